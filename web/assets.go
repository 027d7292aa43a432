package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"

	"github.com/gin-gonic/gin"
)

//go:embed assets
var assetFS embed.FS

// assetPrefix is where the embedded assets are served.
const assetPrefix = "/assets/"

// assets are the embedded style and script, with a fingerprint of each
// for its address: a page links "/assets/style.css?v=<fingerprint>", so a
// browser may keep a file as long as it likes and still gets a new one with
// a new binary.
type assets struct {
	files map[string][]byte // by name
	gz    map[string][]byte // gzip-compressed, by name; none for a file it would not shrink
	tags  map[string]string // fingerprint by name
}

func loadAssets() (*assets, error) {
	a := &assets{files: map[string][]byte{}, gz: map[string][]byte{}, tags: map[string]string{}}
	err := fs.WalkDir(assetFS, "assets", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := assetFS.ReadFile(name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		base := path.Base(name)
		a.files[base], a.tags[base] = data, hex.EncodeToString(sum[:6])
		if gz := gzipped(data); gz != nil {
			a.gz[base] = gz
		}
		return nil
	})
	return a, err
}

// url returns the address of the asset name, for templates; it panics on
// a name that is not embedded, which parsing the templates would show.
func (a *assets) url(name string) (string, error) {
	tag, ok := a.tags[name]
	if !ok {
		return "", fmt.Errorf("web: no asset %q", name)
	}
	return assetPrefix + name + "?v=" + tag, nil
}

// asset serves an embedded asset. With the current fingerprint it may be
// cached for a year; otherwise for a few minutes.
func (p *Pages) asset(c *gin.Context) error {
	name := c.Param("file")
	data, ok := p.assets.files[name]
	if !ok {
		setHeaders(c)
		return errNotFound
	}
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if c.Query("v") == p.assets.tags[name] {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	// Each encoding has an ETag of its own (a representation each).
	etag := `"` + p.assets.tags[name] + `"`
	gz, zipped := p.assets.gz[name]
	if zipped = zipped && acceptsGzip(c.Request); zipped {
		etag = `"` + p.assets.tags[name] + `-gz"`
	}
	h.Set("ETag", etag)
	h.Set("Vary", "Accept-Encoding")
	if c.GetHeader("If-None-Match") == etag {
		c.Status(http.StatusNotModified)
		return nil
	}
	if zipped {
		h.Set("Content-Encoding", "gzip")
		data = gz
	}
	c.Data(http.StatusOK, mime.TypeByExtension(path.Ext(name)), data)
	return nil
}

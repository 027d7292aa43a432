package web

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
	"github.com/klauspost/compress/flate"
)

// Pages, the style and the script are sent gzip-compressed to a browser
// that accepts it (every one does): a board of 60 KB of HTML travels as
// about 8. A page is drawn whole into memory before it is sent (render),
// so it is compressed there, in one call, at the fastest level: most of
// what gzip saves for a page comes at that level, for a fraction of the
// time of the default one (docs/web.md). The embedded assets are
// compressed once, when they load. The live stream is never compressed: it
// is written and flushed event by event, and a compressor would hold its
// events back.

// minCompress is the smallest body worth compressing: below it the
// header and the round of gzip cost more than they save.
const minCompress = 1024

// acceptsGzip reports whether the request's Accept-Encoding takes gzip
// (with no q=0 for it).
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if name = strings.TrimSpace(name); strings.EqualFold(name, "gzip") || name == "*" {
				q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
				if !ok {
					return true
				}
				f, err := strconv.ParseFloat(q, 64)
				return err == nil && f > 0
			}
		}
	}
	return false
}

// gzips are the compressors of pages, at the fastest level.
var gzips = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return w
}}

// writeBody writes body with status and content type typ, compressed when
// the request accepts it and the body is worth it. Either way the
// response varies with Accept-Encoding.
func writeBody(c *gin.Context, status int, typ string, body []byte) {
	c.Header("Vary", "Accept-Encoding")
	if len(body) < minCompress || !acceptsGzip(c.Request) {
		c.Data(status, typ, body)
		return
	}
	out := buffers.Get().(*bytes.Buffer)
	defer putBuffer(out)
	zw := gzips.Get().(*gzip.Writer)
	zw.Reset(out)
	_, err := zw.Write(body)
	if err == nil {
		err = zw.Close()
	}
	gzips.Put(zw)
	if err != nil { // a bytes.Buffer does not fail; send it as it is
		c.Data(status, typ, body)
		return
	}
	c.Header("Content-Encoding", "gzip")
	c.Data(status, typ, out.Bytes())
}

// gzipped compresses data once, at the best level, for an asset served
// many times; nil when it would not be smaller.
func gzipped(data []byte) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	if len(data) < minCompress || b.Len() >= len(data) {
		return nil
	}
	return b.Bytes()
}

// A board is the bulk of its page, and it is drawn once per version and
// kept (boards): it is compressed once too, and each page that shows it
// compresses only what is its own (the layout around the board, the
// reader's news) and sends the pieces as one gzip stream. Deflate allows
// it (RFC 1951, 3.2.3): a stream is a run of blocks of which only the last
// is final, and a flush ends a run byte-aligned; pieces compressed apart,
// each flushed and none final, follow one another, and one final empty
// block ends them. The gzip member around them (RFC 1952) takes the CRC
// and the size of all their bytes.

// gzPart is a piece of a response compressed on its own (raw as it is, z
// its deflate blocks, flushed, none final).
type gzPart struct{ raw, z []byte }

// flaters are the deflate compressors of pieces, at the fastest level.
var flaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// newPart compresses raw as a piece of a stream.
func newPart(raw []byte) gzPart {
	var b bytes.Buffer
	b.Grow(len(raw)/3 + 64) // a board compresses to about a quarter
	fw := flaters.Get().(*flate.Writer)
	fw.Reset(&b)
	fw.Write(raw) // a bytes.Buffer does not fail
	fw.Flush()
	flaters.Put(fw)
	return gzPart{raw: raw, z: b.Bytes()}
}

// storedPart is raw as a piece of stored (uncompressed) deflate blocks,
// for the small pieces a page has of its own (the layout around a board,
// the reader's news): copying them costs nothing, and compressing them
// would cost more than the few hundred bytes it saves. A stored block
// after a flushed piece starts byte-aligned: its header is one zero byte
// (not final, stored), then its length and the length's complement.
func storedPart(raw []byte) gzPart {
	z := make([]byte, 0, len(raw)+5*(len(raw)/0xffff+1))
	for rest := raw; ; {
		n := min(len(rest), 0xffff)
		z = append(z, 0, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		z = append(z, rest[:n]...)
		if rest = rest[n:]; len(rest) == 0 {
			return gzPart{raw: raw, z: z}
		}
	}
}

// finalBlock is a final, empty deflate block: it ends a stream of pieces.
var finalBlock = func() []byte {
	var b bytes.Buffer
	fw, _ := flate.NewWriter(&b, flate.BestSpeed)
	fw.Close()
	return b.Bytes()
}()

// gzipHeader is a gzip member's header: deflate, no name, no time.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// writeParts writes the pieces as one response: one gzip stream when the
// request accepts it, else their bytes as they are.
func writeParts(c *gin.Context, status int, typ string, parts ...gzPart) {
	c.Header("Vary", "Accept-Encoding")
	out := buffers.Get().(*bytes.Buffer)
	defer putBuffer(out)
	if !acceptsGzip(c.Request) {
		for _, p := range parts {
			out.Write(p.raw)
		}
		c.Data(status, typ, out.Bytes())
		return
	}
	out.Write(gzipHeader)
	crc, size := uint32(0), 0
	for _, p := range parts {
		out.Write(p.z)
		crc = crc32.Update(crc, crc32.IEEETable, p.raw)
		size += len(p.raw)
	}
	out.Write(finalBlock)
	out.Write(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, crc), uint32(size)))
	c.Header("Content-Encoding", "gzip")
	c.Data(status, typ, out.Bytes())
}

package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

// TestPiecesMakeOneStream: pieces compressed apart (flushed deflate, and
// stored blocks of any length, none at all among them) go out as one
// gzip stream that inflates to their bytes in order, and as those bytes
// to a client that takes no gzip.
func TestPiecesMakeOneStream(t *testing.T) {
	big := []byte(strings.Repeat("<li class=\"card\">Glitchy (Senior)</li>\n", 5000)) // 200 KB: stored in several blocks
	parts := []gzPart{newPart([]byte("<html><body>")), storedPart(big), storedPart(nil), newPart([]byte(strings.Repeat("board ", 3000))),
		storedPart([]byte("<p>news</p>")), newPart(nil), storedPart([]byte("</body></html>"))}
	var want []byte
	for _, p := range parts {
		want = append(want, p.raw...)
	}
	for _, accept := range []string{"gzip", ""} {
		rec := httptest.NewRecorder()
		c, _ := gin.CreateTestContext(rec)
		c.Request = httptest.NewRequest(http.MethodGet, "/", nil)
		c.Request.Header.Set("Accept-Encoding", accept)
		writeParts(c, http.StatusOK, "text/html", parts...)
		body := rec.Body.Bytes()
		if accept == "" {
			if rec.Header().Get("Content-Encoding") != "" || !bytes.Equal(body, want) {
				t.Fatalf("plain: Content-Encoding %q, %d bytes, want %d", rec.Header().Get("Content-Encoding"), len(body), len(want))
			}
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false) // one member, whose CRC and size the reader checks
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Header().Get("Content-Encoding") != "gzip" || !bytes.Equal(got, want) {
			t.Fatalf("gzip: %d bytes inflated, want %d", len(got), len(want))
		}
	}
}

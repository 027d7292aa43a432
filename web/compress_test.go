package web_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// TestPagesAreCompressed: a page, the style and the script come
// gzip-compressed to a client that accepts it (and the same bytes, once
// inflated, as to one that does not), each response saying that it
// varies with Accept-Encoding; a client that refuses gzip (q=0) gets them
// as they are; the live stream is never compressed, and its first event
// comes at once.
func TestPagesAreCompressed(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{outbox: true})
	ana, bob := s.client(), s.client()
	ana.register("ana", "ana password")
	bob.register("bob", "bob password")
	decks := []int64{s.makeDeck(s.apiLogin("ana", "ana password")), s.makeDeck(s.apiLogin("bob", "bob password"))}
	id := openGame(t, ana, bob, decks)
	board := ana.get(gamePath(id)).mustSee(t, 200, "The Market")
	assets := regexp.MustCompile(`(?:href|src)="(/assets/(?:style\.css|app\.js)\?v=[0-9a-f]+)"`).FindAllStringSubmatch(board.Body, -1)
	if len(assets) != 2 {
		t.Fatalf("assets %v", assets)
	}
	raw := &http.Client{Jar: ana.http.Jar, Timeout: 20 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	fetch := func(path, accept string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.url+path, nil)
		req.Header.Set("Accept-Encoding", accept)
		r, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	read := func(r *http.Response) []byte {
		t.Helper()
		defer r.Body.Close()
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	for _, path := range []string{"/", "/rules", gamePath(id), assets[0][1], assets[1][1]} {
		plain := fetch(path, "identity")
		want := read(plain)
		if plain.Header.Get("Content-Encoding") != "" || plain.StatusCode != 200 {
			t.Fatalf("%s without gzip: status %d, Content-Encoding %q", path, plain.StatusCode, plain.Header.Get("Content-Encoding"))
		}
		for _, accept := range []string{"gzip", "br, gzip;q=0.8, deflate", "*"} {
			r := fetch(path, accept)
			zipped := read(r)
			if r.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(r.Header.Get("Vary"), "Accept-Encoding") {
				t.Fatalf("%s (Accept-Encoding %q): Content-Encoding %q, Vary %q", path, accept, r.Header.Get("Content-Encoding"), r.Header.Get("Vary"))
			}
			zr, err := gzip.NewReader(bytes.NewReader(zipped))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			// A page drawn again differs in its forms' keys; the rules and
			// the assets do not.
			same := bytes.Equal(got, want) || strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "/assets/") && path != "/rules" &&
				bytes.Contains(got, []byte("</html>")) && bytes.Contains(got, []byte("Your games")) == bytes.Contains(want, []byte("Your games"))
			if len(zipped) >= len(want) || !same {
				t.Fatalf("%s: %d bytes compressed, %d inflated, %d plain", path, len(zipped), len(got), len(want))
			}
		}
		if r := fetch(path, "gzip;q=0, identity"); r.Header.Get("Content-Encoding") != "" {
			t.Fatalf("%s with gzip refused: Content-Encoding %q", path, r.Header.Get("Content-Encoding"))
		}
	}
	// The live stream: plain, event by event.
	r := fetch(gamePath(id)+"/live", "gzip")
	defer r.Body.Close()
	if r.Header.Get("Content-Encoding") != "" || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("the live stream: Content-Encoding %q, Content-Type %q", r.Header.Get("Content-Encoding"), r.Header.Get("Content-Type"))
	}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "id:") {
				line <- sc.Text()
				return
			}
		}
	}()
	select {
	case l := <-line:
		if l != "id: 1" {
			t.Fatalf("the stream's first event %q", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event of the live stream within 10 s")
	}
}

package api_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

// send makes one request with header and returns the response with its
// body read, or for an event stream only the headers (the stream is
// closed).
func send(t *testing.T, method, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		r.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		return res, nil
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return res, body
}

// sameHeaders compares the headers of a GET and a HEAD, but Date.
func sameHeaders(get, head http.Header) bool {
	g, h := maps.Clone(get), maps.Clone(head)
	delete(g, "Date")
	delete(h, "Date")
	return reflect.DeepEqual(g, h)
}

// TestHeadOnEveryGetRoute: HEAD on every GET route of the route table
// answers GET's status and headers without a body; so does a HEAD that is
// not modified, a HEAD where no route is and a HEAD on a POST route.
func TestHeadOnEveryGetRoute(t *testing.T) {
	e := newNotifyEnv(t, models.SQLite, true)
	ana, bob := e.register("ana"), e.register("bob")
	g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	var d, wh struct {
		ID int64 `json:"id"`
	}
	e.must(201, req{Method: "POST", Path: "/v1/decks", Token: ana.Access, Body: interrupter}).decode(t, &d)
	e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: ana.Access, Body: map[string]any{"url": "http://127.0.0.1:9/hook"}}).decode(t, &wh)
	// A finished game for the routes that answer only once a game is over.
	over := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/resign", over.ID), Token: bob.Access})
	var feed struct {
		URL string `json:"url"`
	}
	e.must(201, req{Method: "POST", Path: "/v1/me/calendar", Token: ana.Access}).decode(t, &feed)
	ids := map[string]int64{"/v1/decks/": d.ID, "/v1/games/": g.ID, "/v1/webhooks/": wh.ID}
	overOnly := map[string]bool{"/v1/games/:id/actions": true}
	// The webhook's deliveries fail (nothing listens there) until it is
	// disabled: let them, so that the GET and the HEAD of its delivery log
	// see the same log.
	e.drain(t)
	param := regexp.MustCompile(`:\w+`)
	type check struct {
		path   string
		header map[string]string
	}
	auth := func(extra ...string) map[string]string {
		h := map[string]string{"Authorization": "Bearer " + ana.Access, "X-Request-ID": "head-check"}
		for i := 0; i+1 < len(extra); i += 2 {
			h[extra[i]] = extra[i+1]
		}
		return h
	}
	var checks []check
	n := 0
	for _, r := range e.api.Handler().(*gin.Engine).Routes() {
		if r.Method != http.MethodGet {
			continue
		}
		n++
		path := param.ReplaceAllStringFunc(r.Path, func(p string) string {
			if overOnly[r.Path] {
				return fmt.Sprint(over.ID)
			}
			if p == ":name" {
				return ana.Name
			}
			if p == ":file" { // the calendar feed's token and .ics
				return feed.URL[strings.LastIndex(feed.URL, "/")+1:]
			}
			for prefix, id := range ids {
				if strings.HasPrefix(r.Path, prefix) {
					return fmt.Sprint(id)
				}
			}
			t.Fatalf("%s: no value for %s", r.Path, p)
			return ""
		})
		checks = append(checks, check{path, auth()})
	}
	if n < 20 {
		t.Fatalf("only %d GET routes", n)
	}
	etag := e.do(req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", g.ID), Token: ana.Access}).Header.Get("ETag")
	checks = append(checks,
		check{fmt.Sprintf("/v1/games/%d", g.ID), auth("If-None-Match", etag)}, // 304
		check{"/v1/nowhere", auth()},                                          // 404
		check{"/v1/auth/login", auth()},                                       // 405, Allow: POST
		check{"/v1/games/99999", auth()},                                      // 404 problem
	)
	for _, c := range checks {
		headOnTheWire(t, strings.TrimPrefix(e.srv.URL, "http://"), c.path, c.header)
		get, body := send(t, http.MethodGet, e.srv.URL+c.path, c.header)
		head, headBody := send(t, http.MethodHead, e.srv.URL+c.path, c.header)
		if head.StatusCode != get.StatusCode || !sameHeaders(get.Header, head.Header) || len(headBody) != 0 {
			t.Errorf("%s: GET %d %v\nHEAD %d %v, body %q", c.path, get.StatusCode, get.Header, head.StatusCode, head.Header, headBody)
		}
		if get.StatusCode >= 400 && !strings.HasPrefix(c.path, "/v1/unsubscribe") && !strings.Contains("/v1/nowhere /v1/auth/login /v1/games/99999", c.path) {
			t.Errorf("%s: GET %d %s: the check compares no real answer", c.path, get.StatusCode, body)
		}
	}
	if get, _ := send(t, http.MethodOptions, e.srv.URL+"/v1/cards", nil); get.StatusCode != 405 || get.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("OPTIONS on a GET route: %d, Allow %q", get.StatusCode, get.Header.Get("Allow"))
	}
}

// headOnTheWire sends a HEAD for path and then a GET /healthz on the same
// connection: the second answer is read cleanly only if no body followed
// the HEAD's headers and the HEAD's handler ended (a stream's too).
func headOnTheWire(t *testing.T, addr, path string, header map[string]string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "HEAD %s HTTP/1.1\r\nHost: x\r\n", path)
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, b.String()); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	if _, err := http.ReadResponse(br, &http.Request{Method: http.MethodHead}); err != nil {
		t.Fatalf("HEAD %s on the wire: %v", path, err)
	}
	next, err := http.ReadResponse(br, &http.Request{Method: http.MethodGet})
	if err != nil {
		t.Fatalf("the answer after HEAD %s: %v", path, err)
	}
	body, _ := io.ReadAll(next.Body)
	if next.StatusCode != 200 || !strings.Contains(string(body), `"ok"`) {
		t.Fatalf("the answer after HEAD %s: %d %q", path, next.StatusCode, body)
	}
}

// corsHeaders returns the Access-Control headers of h.
func corsHeaders(h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		if strings.HasPrefix(k, "Access-Control-") {
			out[k] = v
		}
	}
	return out
}

// hasAll reports whether the comma-separated list holds every one of want,
// ignoring case.
func hasAll(list string, want ...string) bool {
	var have []string
	for _, v := range strings.Split(list, ",") {
		have = append(have, strings.ToLower(strings.TrimSpace(v)))
	}
	for _, w := range want {
		if !slices.Contains(have, strings.ToLower(w)) {
			return false
		}
	}
	return true
}

// TestCORS: off by default (no Access-Control header, a preflight is a
// 405); with CORS_ORIGINS, a listed origin is allowed with credentials and
// the API's headers exposed, its preflight answered with the methods and
// headers a client sends, another origin gets no CORS header and no
// preflight; "*" allows any origin and never with credentials.
func TestCORS(t *testing.T) {
	const page, other = "https://play.example.org", "https://evil.example"
	preflight := func(origin string) map[string]string {
		return map[string]string{"Origin": origin, "Access-Control-Request-Method": "POST",
			"Access-Control-Request-Headers": "authorization, content-type, idempotency-key, if-match"}
	}
	start := func(origins ...string) (*env, *player, string) {
		cfg := testConfig()
		cfg.CORSOrigins = origins
		e := newEnv(t, models.SQLite, cfg)
		ana := e.register("ana")
		var g game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{"players": 2, "deck": deck(0)}}).decode(t, &g)
		return e, ana, fmt.Sprintf("/v1/games/%d", g.ID)
	}

	t.Run("off", func(t *testing.T) {
		e, ana, game := start()
		res, _ := send(t, "GET", e.srv.URL+game, map[string]string{"Origin": page, "Authorization": "Bearer " + ana.Access})
		if res.StatusCode != 200 || len(corsHeaders(res.Header)) > 0 || res.Header.Get("Vary") != "" {
			t.Errorf("GET from a page: %d %v", res.StatusCode, res.Header)
		}
		res, _ = send(t, "OPTIONS", e.srv.URL+game+"/join", preflight(page))
		if res.StatusCode != 405 || len(corsHeaders(res.Header)) > 0 {
			t.Errorf("preflight: %d %v", res.StatusCode, res.Header)
		}
	})

	t.Run("listed", func(t *testing.T) {
		e, ana, game := start(page)
		res, _ := send(t, "GET", e.srv.URL+game, map[string]string{"Origin": page, "Authorization": "Bearer " + ana.Access})
		h := res.Header
		if res.StatusCode != 200 || h.Get("Access-Control-Allow-Origin") != page || h.Get("Access-Control-Allow-Credentials") != "true" ||
			!hasAll(h.Get("Access-Control-Expose-Headers"), "ETag", "Location", "Retry-After", "X-Request-ID", "Idempotent-Replayed") ||
			!hasAll(h.Get("Vary"), "Origin") {
			t.Errorf("GET from the page: %d %v", res.StatusCode, h)
		}
		// An error is readable by the page too.
		res, _ = send(t, "GET", e.srv.URL+"/v1/me", map[string]string{"Origin": page})
		if res.StatusCode != 401 || res.Header.Get("Access-Control-Allow-Origin") != page {
			t.Errorf("401 to the page: %d %v", res.StatusCode, res.Header)
		}
		res, _ = send(t, "OPTIONS", e.srv.URL+game+"/join", preflight(page))
		h = res.Header
		if res.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != page || h.Get("Access-Control-Allow-Credentials") != "true" ||
			!hasAll(h.Get("Access-Control-Allow-Methods"), "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE") ||
			!hasAll(h.Get("Access-Control-Allow-Headers"), "Authorization", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match", "Last-Event-ID") ||
			h.Get("Access-Control-Max-Age") == "" || h.Get("X-Request-ID") == "" || h.Get("Allow") != "" {
			t.Errorf("preflight from the page: %d %v", res.StatusCode, h)
		}
		// The request the preflight announced.
		res, _ = send(t, "POST", e.srv.URL+game+"/cancel", map[string]string{"Origin": page, "Authorization": "Bearer " + ana.Access})
		if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != page {
			t.Errorf("POST from the page: %d %v", res.StatusCode, res.Header)
		}
		for _, r := range []struct {
			method string
			header map[string]string
		}{
			{"GET", map[string]string{"Origin": other, "Authorization": "Bearer " + ana.Access}},
			{"OPTIONS", preflight(other)},
			{"OPTIONS", preflight("https://play.example.org.evil.example")},
			{"OPTIONS", preflight("null")},
		} {
			res, _ := send(t, r.method, e.srv.URL+game, r.header)
			if len(corsHeaders(res.Header)) > 0 || !hasAll(res.Header.Get("Vary"), "Origin") || (r.method == "OPTIONS" && res.StatusCode != 405) {
				t.Errorf("%s from %s: %d %v", r.method, r.header["Origin"], res.StatusCode, res.Header)
			}
		}
	})

	t.Run("any", func(t *testing.T) {
		e, ana, game := start("*", page)
		for _, origin := range []string{other, "http://localhost:5173"} {
			res, _ := send(t, "GET", e.srv.URL+game, map[string]string{"Origin": origin, "Authorization": "Bearer " + ana.Access})
			if res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Access-Control-Allow-Credentials") != "" {
				t.Errorf("GET from %s: %v", origin, res.Header)
			}
			res, _ = send(t, "OPTIONS", e.srv.URL+game, preflight(origin))
			if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Access-Control-Allow-Credentials") != "" {
				t.Errorf("preflight from %s: %d %v", origin, res.StatusCode, res.Header)
			}
		}
		// A listed origin beside "*" keeps its credentials.
		res, _ := send(t, "GET", e.srv.URL+game, map[string]string{"Origin": page, "Authorization": "Bearer " + ana.Access})
		if res.Header.Get("Access-Control-Allow-Origin") != page || res.Header.Get("Access-Control-Allow-Credentials") != "true" {
			t.Errorf("GET from the listed page: %v", res.Header)
		}
	})
}

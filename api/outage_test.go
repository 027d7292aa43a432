package api_test

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestReadsAfterTerminatedSessions: once every session of the store's
// pool has been ended from another connection (an operator, a restarting
// server), the reads that follow, one after the other and at once, get
// their answer, not a 500.
func TestReadsAfterTerminatedSessions(t *testing.T) {
	e := newEnv(t, models.Postgres, testConfig())
	ana := e.register("ana")
	g := e.openGame(ana, 2)
	reads := []req{
		{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", g.ID), Token: ana.Access},
		{Method: "GET", Path: "/v1/games", Token: ana.Access},
		{Method: "GET", Path: "/v1/me", Token: ana.Access},
	}
	for round := range 3 {
		all := func(n int) []*resp {
			out := make([]*resp, n)
			var wg sync.WaitGroup
			for i := range out {
				wg.Add(1)
				go func() { defer wg.Done(); out[i] = e.do(reads[i%len(reads)]) }()
			}
			wg.Wait()
			return out
		}
		all(8) // connections used a moment ago
		if modelstest.Terminate(t, e.store) == 0 {
			t.Fatal("no session to end")
		}
		var rs []*resp
		for i := range 10 {
			rs = append(rs, e.do(reads[i%len(reads)]))
		}
		all(8)
		rs = append(rs, all(10)...)
		for i, r := range rs {
			if r.Status != 200 {
				t.Fatalf("round %d: read %d: %d %s", round, i, r.Status, r.Body)
			}
		}
	}
}

// TestDatabaseOutage points the store at Postgres through a TCP proxy and
// takes the proxy down: while the database cannot be reached, reads and
// writes get 503 with Retry-After (never 500) and /readyz says not ready;
// once it is back, requests succeed again.
func TestDatabaseOutage(t *testing.T) {
	u, err := url.Parse(modelstest.SchemaURL(t))
	if err != nil {
		t.Fatal(err)
	}
	px := startProxy(t, u.Host)
	u.Host = px.addr
	clk := &clock{t: time.Now().UTC()}
	e := envOn(t, modelstest.OpenURL(t, u.String(), models.Options{Now: clk.Now}), clk, testConfig())
	ana := e.register("ana")
	g := e.openGame(ana, 2)
	reqs := []req{
		{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", g.ID), Token: ana.Access},
		{Method: "GET", Path: "/v1/me", Token: ana.Access},
		{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/cancel", g.ID), Token: ana.Access},
		{Method: "PATCH", Path: "/v1/me", Token: ana.Access, Body: `{"display_name": "Ana"}`},
		{Method: "POST", Path: "/v1/tokens", Token: ana.Access, Body: `{"name": "bot", "scopes": ["read"]}`},
		{Method: "POST", Path: "/v1/auth/login", Body: `{"username": "ana", "password": "password-ana"}`},
	}
	px.down()
	for round := range 3 {
		for _, r := range reqs {
			res := e.unchecked(r)
			if !res.unavailable(t) {
				t.Fatalf("round %d, database down: %s %s: %d (Retry-After %q) %s", round, r.Method, r.Path,
					res.Status, res.Header.Get("Retry-After"), res.Body)
			}
		}
		if res := e.unchecked(req{Method: "GET", Path: "/readyz"}); res.Status != 503 {
			t.Fatalf("database down: readyz %d", res.Status)
		}
	}
	px.up()
	deadline := time.Now().Add(10 * time.Second)
	for e.unchecked(reqs[0]).Status != 200 {
		if time.Now().After(deadline) {
			t.Fatal("the database is back, and the game still cannot be read")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, r := range reqs {
		if res := e.unchecked(r); res.Status >= 300 {
			t.Fatalf("database back: %s %s: %d %s", r.Method, r.Path, res.Status, res.Body)
		}
	}
	e.must(200, req{Method: "GET", Path: "/readyz"})
}

// proxy forwards TCP connections to target, until it is taken down.
type proxy struct {
	t      testing.TB
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

func startProxy(t testing.TB, target string) *proxy {
	p := &proxy{t: t, target: target, conns: map[net.Conn]bool{}}
	p.listen("127.0.0.1:0")
	p.addr = p.ln.Addr().String()
	t.Cleanup(p.down)
	return p
}

func (p *proxy) listen(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
}

func (p *proxy) serve(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // taken down meanwhile
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
	c.Close()
}

// down closes the listener and every connection: connecting is refused.
func (p *proxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// unavailable reports whether r is the answer to a request the database
// did not answer: 503 database_unavailable, as problem+json, with
// Retry-After.
func (r *resp) unavailable(t testing.TB) bool {
	t.Helper()
	return r.Status == 503 && r.Header.Get("Retry-After") == "5" && r.code(t) == "database_unavailable" &&
		strings.HasPrefix(r.Header.Get("Content-Type"), "application/problem+json")
}

// up listens again on the same address.
func (p *proxy) up() { p.listen(p.addr) }

// TestStalledChangeIsUnavailable: a change that the database leaves
// unanswered past the server's own bound (30 s, cut short here) is
// answered as an outage is: 503 database_unavailable with Retry-After,
// not a 500. It changes nothing, and once the database answers, the same
// request succeeds.
func TestStalledChangeIsUnavailable(t *testing.T) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	e := envOn(t, st, &clock{t: time.Now().UTC()}, testConfig())
	ana := e.register("ana")
	g := e.openGame(ana, 2)
	st.BoundForTest(300 * time.Millisecond)
	cancel := req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/cancel", g.ID), Token: ana.Access}

	gate := modelstest.HoldGame(t, st, g.ID) // the database does not answer the change
	res := e.unchecked(cancel)
	if !res.unavailable(t) {
		t.Fatalf("a change left unanswered: %d (Retry-After %q) %s", res.Status, res.Header.Get("Retry-After"), res.Body)
	}
	gate.Release()
	if cur, err := st.Game(t.Context(), g.ID); err != nil || cur.Version != g.Version || cur.Status != g.Status {
		t.Fatalf("after the 503: version %d, %s (%v); want %d, %s", cur.Version, cur.Status, err, g.Version, g.Status)
	}
	if res := e.unchecked(cancel); res.Status >= 300 {
		t.Fatalf("the database answers again: %d %s", res.Status, res.Body)
	}
}

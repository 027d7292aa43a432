package api_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// replica is one of several servers on one database, as behind a load
// balancer, with the count of the password hashes it computed.
type replica struct {
	*env
	hashes *atomic.Int64
}

// eachDBReplicas runs f in parallel subtests, on SQLite and on Postgres,
// with two servers of configuration cfg on one fresh store and one clock.
// cfg trusts X-Forwarded-For from the loopback address, so that a request
// names its client address with it (see replica.from).
func eachDBReplicas(t *testing.T, cfg config, f func(t *testing.T, a, b *replica)) {
	cfg.TrustedProxies = []string{"127.0.0.1", "::1"}
	for _, d := range []models.Dialect{models.SQLite, models.Postgres} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			clk := &clock{t: time.Now().UTC()}
			st := modelstest.Open(t, d, models.Options{Now: clk.Now})
			var rs [2]*replica
			for i := range rs {
				n := &atomic.Int64{}
				cfg := cfg
				cfg.Hash = func(p string) string { n.Add(1); return cheapHash(p) }
				s := newServer(st, nil, cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)), clk.Now)
				srv := httptest.NewServer(s.Handler())
				t.Cleanup(srv.Close)
				rs[i] = &replica{env: &env{t: t, srv: srv, store: st, http: srv.Client(), clock: clk}, hashes: n}
			}
			f(t, rs[0], rs[1])
		})
	}
}

// from is r sent from the client address addr.
func from(addr string, r req) req {
	r.Header = map[string]string{"X-Forwarded-For": addr}
	return r
}

func loginReq(name, password string) req {
	return req{Method: "POST", Path: "/v1/auth/login", Body: map[string]string{"username": name, "password": password}}
}

func refreshReq(refresh string) req {
	return req{Method: "POST", Path: "/v1/auth/refresh", Body: map[string]string{"refresh_token": refresh}}
}

func passwordReq(token, current, next string) req {
	return req{Method: "POST", Path: "/v1/me/password", Token: token,
		Body: map[string]string{"current_password": current, "new_password": next}}
}

// limited checks that r is the 429 of a rate limit, with Retry-After.
func limited(t *testing.T, what string, r *resp) {
	t.Helper()
	if r.Status != 429 || r.code(t) != "rate_limited" || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/problem+json") {
		t.Fatalf("%s: %d %s, want 429 rate_limited", what, r.Status, r.Body)
	}
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Fatalf("%s: Retry-After %q", what, r.Header.Get("Retry-After"))
	}
}

// ended checks that the access token tok no longer works on r, for the
// routes that check it in their own query too, and for the changes that
// check it along their lock of the game: a resignation (which any seat may
// make at any version), a batch at a version long gone, the same with an
// Idempotency-Key, a batch play refuses before it locks the game, and a
// change of a game that does not exist are all 401, and the game is where
// it was.
func ended(t *testing.T, what string, r *replica, tok string, game int64) {
	t.Helper()
	for _, path := range []string{"/v1/me", fmt.Sprintf("/v1/games/%d", game), fmt.Sprintf("/v1/games/%d/legal", game), "/v1/games/999999"} {
		if res := r.do(req{Method: "GET", Path: path, Token: tok}); res.Status != 401 || res.code(t) != "unauthorized" {
			t.Fatalf("%s: GET %s: %d %s, want 401", what, path, res.Status, res.Body)
		}
	}
	before := gameVersion(t, r.store, game)
	stale := map[string]any{"expected_version": 0, "actions": []map[string]any{{"type": "end_turn"}}}
	for _, rq := range []req{
		{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/resign", game), Token: tok},
		{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/vote-end", game), Token: tok},
		{Method: "POST", Path: actionsPath(game), Token: tok, Body: stale},
		{Method: "POST", Path: actionsPath(game), Token: tok, Body: stale, Header: map[string]string{"Idempotency-Key": "after-the-end"}},
		{Method: "POST", Path: actionsPath(game), Token: tok, NoContract: true, // refused by play before the lock
			Body: map[string]any{"expected_version": before, "actions": []map[string]any{{"type": "timeout"}}}},
		{Method: "POST", Path: "/v1/games/999999/resign", Token: tok},
		{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/join", game), Token: tok, Body: map[string]any{"deck": deck(0)}},
	} {
		if res := r.do(rq); res.Status != 401 || res.code(t) != "unauthorized" {
			t.Fatalf("%s: POST %s: %d %s, want 401", what, rq.Path, res.Status, res.Body)
		}
	}
	if after := gameVersion(t, r.store, game); after != before {
		t.Fatalf("%s: the game went from version %d to %d", what, before, after)
	}
}

// gameVersion is the stored version of game id.
func gameVersion(t *testing.T, st *models.Store, id int64) int64 {
	t.Helper()
	g, err := st.GameNoState(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return g.Version
}

// works checks that the access token tok works on r.
func works(t *testing.T, r *replica, tok string, game int64) {
	t.Helper()
	for _, path := range []string{"/v1/me", fmt.Sprintf("/v1/games/%d", game), fmt.Sprintf("/v1/games/%d/legal", game)} {
		r.must(200, req{Method: "GET", Path: path, Token: tok})
	}
}

// TestLogoutEndsItsSessionOnly: after a logout on one server, the access
// tokens of that session stop working at once on every server, those a
// server remembers as verified included, and its refresh token is revoked;
// the account's other session (a bot's, say) goes on with its access token
// and its refresh token, and so does a personal API token. Then "sign out
// everywhere" from the other session ends every session, on every server,
// and leaves the API token.
func TestLogoutEndsItsSessionOnly(t *testing.T) {
	eachDBReplicas(t, testConfig(), func(t *testing.T, a, b *replica) {
		ana, bob := a.register("ana"), a.register("bob")
		g := a.startGame(map[string]any{"mode": "fast"}, ana, bob)
		other := session(t, "ana", b.must(200, loginReq("ana", "password-ana")))
		third := session(t, "ana", a.must(200, loginReq("ana", "password-ana")))
		var tok struct {
			Token string `json:"token"`
		}
		a.must(201, req{Method: "POST", Path: "/v1/tokens", Token: ana.Access, Body: map[string]any{"name": "bot", "scopes": []string{"read", "play"}}}).decode(t, &tok)
		for _, r := range []*replica{a, b, a} { // twice on a: verified, then remembered
			works(t, r, ana.Access, g.ID)
			works(t, r, other.Access, g.ID)
		}
		b.must(204, req{Method: "POST", Path: "/v1/auth/logout", Body: map[string]string{"refresh_token": ana.Refresh}})
		for _, r := range []*replica{a, b} {
			ended(t, "the session logged out", r, ana.Access, g.ID)
			works(t, r, other.Access, g.ID)
			works(t, r, third.Access, g.ID)
			works(t, r, tok.Token, g.ID)
		}
		if r := a.do(refreshReq(ana.Refresh)); r.Status != 401 || r.code(t) != "invalid_token" {
			t.Fatalf("refresh after logout: %d %s", r.Status, r.Body)
		}
		next := session(t, "ana", a.must(200, refreshReq(other.Refresh)))
		works(t, a, next.Access, g.ID)
		works(t, b, next.Access, g.ID)
		works(t, b, other.Access, g.ID) // the session's access token from before its refresh too
		works(t, b, bob.Access, g.ID)   // another account is not touched

		// Sign out everywhere: every session ends, the caller's too.
		if r := a.do(req{Method: "POST", Path: "/v1/me/logout-everywhere", Token: tok.Token}); r.Status != 403 {
			t.Fatalf("sign out everywhere with an API token: %d %s", r.Status, r.Body)
		}
		b.must(204, req{Method: "POST", Path: "/v1/me/logout-everywhere", Token: next.Access})
		for _, r := range []*replica{a, b} {
			for _, s := range []*player{next, other, third} {
				ended(t, "after sign out everywhere", r, s.Access, g.ID)
			}
			works(t, r, tok.Token, g.ID)
			works(t, r, bob.Access, g.ID)
		}
		for _, s := range []*player{next, third} {
			if r := a.do(refreshReq(s.Refresh)); r.Status != 401 {
				t.Fatalf("refresh after sign out everywhere: %d %s", r.Status, r.Body)
			}
		}
		works(t, b, session(t, "ana", a.must(200, loginReq("ana", "password-ana"))).Access, g.ID)
	})
}

// TestRefreshReuseEndsAccessTokens: presenting a rotated refresh token
// again revokes its family, as before, and now also ends the access tokens
// issued before, on every server.
func TestRefreshReuseEndsAccessTokens(t *testing.T) {
	eachDBReplicas(t, testConfig(), func(t *testing.T, a, b *replica) {
		ana, bob := a.register("ana"), a.register("bob")
		g := a.startGame(map[string]any{"mode": "fast"}, ana, bob)
		next := session(t, "ana", a.must(200, refreshReq(ana.Refresh)))
		works(t, a, next.Access, g.ID)
		works(t, a, next.Access, g.ID)
		if r := b.do(refreshReq(ana.Refresh)); r.Status != 401 || r.code(t) != "invalid_token" {
			t.Fatalf("reuse: %d %s", r.Status, r.Body)
		}
		ended(t, "after a reuse", a, next.Access, g.ID)
		ended(t, "after a reuse", b, ana.Access, g.ID)
		if r := b.do(refreshReq(next.Refresh)); r.Status != 401 {
			t.Fatalf("the family after a reuse: %d %s", r.Status, r.Body)
		}
		works(t, b, session(t, "ana", a.must(200, loginReq("ana", "password-ana"))).Access, g.ID)
	})
}

// TestPasswordChange: a weak new password is refused first and changes
// nothing; an API token may not change the password; a wrong current
// password is refused and counted as a failed login of the account (on
// every server); a change ends every access token and refresh token issued
// before, on every server, remembered access tokens included, and gives the
// caller a new session; the old password no longer logs in.
func TestPasswordChange(t *testing.T) {
	cfg := testConfig()
	cfg.LoginBurst = 3
	eachDBReplicas(t, cfg, func(t *testing.T, a, b *replica) {
		ana, bob := a.register("ana"), a.register("bob")
		g := a.startGame(map[string]any{"mode": "fast"}, ana, bob)
		other := session(t, "ana", b.must(200, loginReq("ana", "password-ana")))
		works(t, a, ana.Access, g.ID)
		works(t, a, ana.Access, g.ID)

		for _, weak := range []string{"short", strings.Repeat("x", 257)} {
			pr := passwordReq(ana.Access, "password-ana", weak)
			pr.NoContract = true // the contract refuses it too
			r := a.do(pr)
			if r.Status != 422 || r.code(t) != "invalid" || !strings.Contains(string(r.Body), "new_password") {
				t.Fatalf("weak new password: %d %s", r.Status, r.Body)
			}
		}
		var tok struct {
			Token string `json:"token"`
		}
		a.must(201, req{Method: "POST", Path: "/v1/tokens", Token: ana.Access, Body: map[string]any{"name": "bot", "scopes": []string{"read", "play"}}}).decode(t, &tok)
		if r := a.do(passwordReq(tok.Token, "password-ana", "new-password-ana")); r.Status != 403 || r.code(t) != "insufficient_scope" {
			t.Fatalf("with an API token: %d %s", r.Status, r.Body)
		}

		for i := range 3 {
			r := []*replica{a, b}[i%2].do(passwordReq(other.Access, "wrong-password", "new-password-ana"))
			if r.Status != 403 || r.code(t) != "wrong_password" {
				t.Fatalf("wrong current password %d: %d %s", i, r.Status, r.Body)
			}
		}
		limited(t, "a 4th change with the right password", a.do(passwordReq(ana.Access, "password-ana", "new-password-ana")))
		limited(t, "a login of the account on the other server", b.do(loginReq("ana", "password-ana")))
		works(t, a, ana.Access, g.ID) // nothing changed

		a.clock.Add(3 * time.Minute)
		next := session(t, "ana", b.must(200, passwordReq(other.Access, "password-ana", "new-password-ana")))
		for _, r := range []*replica{a, b} {
			ended(t, "the first session", r, ana.Access, g.ID)
			ended(t, "the session that changed the password", r, other.Access, g.ID)
		}
		for _, refresh := range []string{ana.Refresh, other.Refresh} {
			if r := a.do(refreshReq(refresh)); r.Status != 401 || r.code(t) != "invalid_token" {
				t.Fatalf("a refresh token from before: %d %s", r.Status, r.Body)
			}
		}
		works(t, a, next.Access, g.ID)
		works(t, b, next.Access, g.ID)
		works(t, b, session(t, "ana", a.must(200, refreshReq(next.Refresh))).Access, g.ID)
		if r := b.do(loginReq("ana", "password-ana")); r.Status != 401 {
			t.Fatalf("the old password: %d %s", r.Status, r.Body)
		}
		a.must(200, loginReq("ana", "new-password-ana"))
		a.must(200, req{Method: "GET", Path: "/v1/me", Token: tok.Token}) // personal API tokens stay
	})
}

// TestLoginLimitPerAccount: failed logins to one account from many
// addresses, spread over two servers, are limited together; other accounts
// from those addresses are not; the account logs in again once an attempt
// is due.
func TestLoginLimitPerAccount(t *testing.T) {
	cfg := testConfig()
	cfg.LoginBurst = 5
	eachDBReplicas(t, cfg, func(t *testing.T, a, b *replica) {
		a.register("cyd")
		for i := range 5 {
			r := []*replica{a, b}[i%2].do(from(fmt.Sprintf("198.51.100.%d", i), loginReq("cyd", "wrong-password")))
			if r.Status != 401 || r.code(t) != "bad_credentials" {
				t.Fatalf("attempt %d: %d %s", i, r.Status, r.Body)
			}
		}
		limited(t, "a 6th attempt from a 6th address", b.do(from("198.51.100.99", loginReq("cyd", "password-cyd"))))
		limited(t, "another case of the name", a.do(from("198.51.100.98", loginReq("CYD", "password-cyd"))))
		if r := a.do(from("198.51.100.0", loginReq("dee", "wrong-password"))); r.Status != 401 {
			t.Fatalf("another account: %d %s", r.Status, r.Body)
		}
		a.clock.Add(time.Minute)
		a.must(200, from("198.51.100.100", loginReq("cyd", "password-cyd")))
	})
}

// TestLoginLimitPerAddress: failed logins from one address to many
// accounts, spread over two servers, are limited together (an IPv6 address
// by its /64), and refused logins from there hold even the right password;
// another address is not limited; logins with the right password do not
// count; and the table of counters names no account or address.
func TestLoginLimitPerAddress(t *testing.T) {
	cfg := testConfig()
	cfg.LoginAddressBurst = 5
	eachDBReplicas(t, cfg, func(t *testing.T, a, b *replica) {
		a.register("ana")
		for _, c := range []struct{ addr, same, other string }{
			{"203.0.113.7", "203.0.113.7", "203.0.113.8"},
			{"2001:db8:1:2::1", "2001:db8:1:2:ffff::9", "2001:db8:1:3::1"},
		} {
			for i := range 5 {
				r := []*replica{a, b}[i%2].do(from(c.addr, loginReq(fmt.Sprintf("user%d", i), "wrong-password")))
				if r.Status != 401 {
					t.Fatalf("%s attempt %d: %d %s", c.addr, i, r.Status, r.Body)
				}
			}
			limited(t, "a 6th attempt from "+c.same, b.do(from(c.same, loginReq("ana", "password-ana"))))
			a.must(200, from(c.other, loginReq("ana", "password-ana")))
		}
		for range 8 {
			b.must(200, from("192.0.2.1", loginReq("ana", "password-ana")))
		}
		if r := a.do(from("192.0.2.1", loginReq("nobody", "wrong-password"))); r.Status != 401 {
			t.Fatalf("after 8 right logins from one address: %d %s", r.Status, r.Body)
		}

		db, err := a.store.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(`SELECT key FROM rate_limits`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var key []byte
			if err := rows.Scan(&key); err != nil {
				t.Fatal(err)
			}
			for _, clear := range []string{"ana", "user0", "203.0.113.7", "2001:db8:1:2::", "192.0.2.1"} {
				if bytes.Contains(key, []byte(clear)) {
					t.Fatalf("rate_limits key %q names %q", key, clear)
				}
			}
			n++
		}
		if n == 0 {
			t.Fatal("no rate_limits rows")
		}
	})
}

// TestRegisterLimit: registrations from one address, spread over two
// servers, are limited; a refused one computes no password hash; another
// address is not limited; and the address registers again once an attempt
// is due.
func TestRegisterLimit(t *testing.T) {
	cfg := testConfig()
	cfg.RegisterBurst = 3
	eachDBReplicas(t, cfg, func(t *testing.T, a, b *replica) {
		register := func(r *replica, name, addr string) *resp {
			return r.do(from(addr, req{Method: "POST", Path: "/v1/auth/register", Body: map[string]string{"username": name, "password": "password-" + name}}))
		}
		hashes := func() int64 { return a.hashes.Load() + b.hashes.Load() }
		for i := range 3 {
			if r := register([]*replica{a, b}[i%2], fmt.Sprintf("user%d", i), "203.0.113.9"); r.Status != 201 {
				t.Fatalf("registration %d: %d %s", i, r.Status, r.Body)
			}
		}
		if n := hashes(); n != 3 {
			t.Fatalf("%d hashes for 3 registrations", n)
		}
		limited(t, "a 4th registration", register(b, "user3", "203.0.113.9"))
		limited(t, "a 5th registration", register(a, "user4", "203.0.113.9"))
		if n := hashes(); n != 3 {
			t.Fatalf("refused registrations computed %d hashes", n-3)
		}
		if r := register(a, "user3", "203.0.113.10"); r.Status != 201 {
			t.Fatalf("from another address: %d %s", r.Status, r.Body)
		}
		a.clock.Add(3 * time.Minute)
		if r := register(b, "user4", "203.0.113.9"); r.Status != 201 {
			t.Fatalf("once an attempt is due: %d %s", r.Status, r.Body)
		}
	})
}

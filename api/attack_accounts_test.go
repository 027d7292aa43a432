package api_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/golang-jwt/jwt/v5"
)

// eachDBPair runs f in parallel subtests, on SQLite and on Postgres, with
// two servers of configuration cfg on one fresh store and one clock, as
// two replicas behind a load balancer. Unlike eachDBReplicas the servers
// hash passwords cheaply (cfg.Hash), so that many registrations at once
// stay quick; both trust X-Forwarded-For from the loopback address.
func eachDBPair(t *testing.T, cfg config, f func(t *testing.T, a, b *env)) {
	cfg.TrustedProxies = []string{"127.0.0.1", "::1"}
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		clk := &clock{t: time.Now().UTC()}
		st := modelstest.Open(t, d, models.Options{Now: clk.Now})
		var es [2]*env
		for i := range es {
			s := newServer(st, nil, cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)), clk.Now)
			srv := httptest.NewServer(s.Handler())
			t.Cleanup(srv.Close)
			es[i] = &env{t: t, srv: srv, store: st, http: srv.Client(), clock: clk}
		}
		f(t, es[0], es[1])
	})
}

// registerReq is a registration of name with password, and an address.
func registerReq(name, password string) req {
	return req{Method: "POST", Path: "/v1/auth/register",
		Body: map[string]string{"username": name, "password": password, "email": "someone@example.com"}}
}

// TestAttackAccountLookalikeNames: with ana registered, an attacker
// registers names that read as hers: other cases, fullwidth letters,
// Cyrillic look-alikes, leading and trailing spaces (a no-break space
// too), zero-width characters inside or around, a combining accent, a
// line feed, a NUL, and names too long to be anyone's. What must hold:
// each is refused (422 invalid, the exact name 409 username_taken) and no
// account is created; a login with any of them and ana's password signs
// in as nobody else; fields past their bounds (a 257-byte password, a
// 255-byte address, a 65-byte display name, an address that smuggles a
// header or a second recipient) are refused at registration and in
// PATCH /v1/me alike, and leave the account as it was.
func TestAttackAccountLookalikeNames(t *testing.T) {
	cfg := testConfig()
	cfg.LoginBurst, cfg.LoginAddressBurst, cfg.RegisterBurst = 200, 200, 200
	eachDBPair(t, cfg, func(t *testing.T, e, _ *env) { // one server is enough: eachDBPair takes a configuration
		ana := e.register("ana")
		if r := e.do(registerReq("ana", "another-password")); r.Status != 409 || r.code(t) != "username_taken" {
			t.Fatalf("the same name again: %d %s", r.Status, r.Body)
		}
		for _, name := range []string{
			"Ana", "ANA", "aNa", "ana ", " ana", "ana\u00a0", "\u3000ana", "\uff41\uff4e\uff41", "\u0430na", "an\u0430", "ana\u200b", "a\u200bna",
			"\u200bana", "a\u200dna", "ana\ufeff", "ana\u0301", "an\u00e3", "ana\n", "ana\t", "ana\x00", "~deleted-1",
			strings.Repeat("a", 33), strings.Repeat("a", 4000),
		} {
			rq := registerReq(name, "password-lookalike")
			rq.NoContract = true
			if r := e.do(rq); r.Status != 422 || r.code(t) != "invalid" {
				t.Errorf("register %q: %d %s, want 422 invalid", name, r.Status, r.Body)
			}
		}
		// A login with a look-alike and ana's password (each costs a
		// dummy argon2id hash: two only) signs in as nobody else.
		for _, name := range []string{"Ana", "ana "} {
			lg := loginReq(name, "password-ana")
			lg.NoContract = true
			switch r := e.do(lg); r.Status {
			case 401:
			case 200:
				if got := session(t, name, r); got.ID != ana.ID {
					t.Errorf("login %q signed in as user %d", name, got.ID)
				}
			default:
				t.Errorf("login %q: %d %s", name, r.Status, r.Body)
			}
		}
		if n := modelstest.Count(t, e.store, `SELECT COUNT(*) FROM users`); n != 1 {
			t.Fatalf("%d accounts after the look-alikes, want ana's alone", n)
		}

		email := func(addr string) map[string]string {
			return map[string]string{"username": "bob", "password": "password-bob", "email": addr}
		}
		long := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 58) + ".com"
		if len(long) != 255 {
			t.Fatalf("the long address has %d bytes", len(long))
		}
		badAddresses := []string{long, "ana@example.com\r\nBcc: eve@evil.example", "ana@example.com\nBcc: eve@evil.example",
			"Eve <eve@evil.example>", "ana@example.com, eve@evil.example", "ana@example.com;eve@evil.example", " ana@example.com",
			"ana@example.com ", "ana@exa mple.com"}
		for _, body := range []map[string]string{
			{"username": "bob", "password": strings.Repeat("p", 257), "email": "bob@example.com"},
			{"username": "bob", "password": "short", "email": "bob@example.com"},
			{"username": "bob", "password": "password-bob", "email": "bob@example.com", "display_name": strings.Repeat("d", 65)},
			{"username": "bob", "password": "password-bob", "email": "bob@example.com", "display_name": strings.Repeat("\u00e9", 33)},
		} {
			if r := e.do(req{Method: "POST", Path: "/v1/auth/register", Body: body, NoContract: true}); r.Status != 422 || r.code(t) != "invalid" {
				t.Errorf("register with %.60q...: %d %s", body, r.Status, r.Body)
			}
		}
		for _, addr := range badAddresses {
			if r := e.do(req{Method: "POST", Path: "/v1/auth/register", Body: email(addr), NoContract: true}); r.Status != 422 || r.code(t) != "invalid" {
				t.Errorf("register with the address %q: %d %s", addr, r.Status, r.Body)
			}
			if r := e.do(req{Method: "PATCH", Path: "/v1/me", Token: ana.Access, Body: map[string]any{"email": addr}, NoContract: true}); r.Status != 422 {
				t.Errorf("PATCH /v1/me with the address %q: %d %s", addr, r.Status, r.Body)
			}
		}
		for _, dn := range []string{strings.Repeat("d", 65), strings.Repeat("\u00e9", 33)} {
			if r := e.do(req{Method: "PATCH", Path: "/v1/me", Token: ana.Access, Body: map[string]any{"display_name": dn}, NoContract: true}); r.Status != 422 {
				t.Errorf("PATCH /v1/me with a display name of %d bytes: %d %s", len(dn), r.Status, r.Body)
			}
		}
		if r := e.do(req{Method: "POST", Path: "/v1/auth/register", NoContract: true,
			Body: email(strings.Repeat("x", 70<<10) + "@example.com")}); r.Status != 413 {
			t.Errorf("a registration of 70 KB: %d %s", r.Status, r.Body)
		}
		var me struct {
			Email       string `json:"email"`
			DisplayName string `json:"display_name"`
		}
		e.must(200, req{Method: "GET", Path: "/v1/me", Token: ana.Access}).decode(t, &me)
		if me.Email != "ana@example.com" || me.DisplayName != "" {
			t.Fatalf("ana's account after the refused changes: %+v", me)
		}
		if n := modelstest.Count(t, e.store, `SELECT COUNT(*) FROM users`); n != 1 {
			t.Fatalf("%d accounts after the refused registrations", n)
		}
	})
}

// TestAttackAccountRegisterAtOnce: twelve clients register the name cyd
// at the same moment, each with a password of its own, spread over two
// servers on one database. What must hold: exactly one gets 201, every
// other 409 username_taken (no 5xx), one account is named cyd, and only
// the winner's password signs in to it.
func TestAttackAccountRegisterAtOnce(t *testing.T) {
	cfg := testConfig()
	cfg.RegisterBurst, cfg.LoginBurst = 100, 100
	eachDBPair(t, cfg, func(t *testing.T, a, b *env) {
		const n = 12
		codes := make([]int, n)
		bodies := make([][]byte, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				rq := from(fmt.Sprintf("198.51.100.%d", i+1), registerReq("cyd", fmt.Sprintf("password-cyd-%d", i)))
				codes[i], bodies[i], _, _ = []*env{a, b}[i%2].raw(rq)
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, c := range codes {
			switch {
			case c == 201 && winner < 0:
				winner = i
			case c == 201:
				t.Fatalf("two registrations of cyd got 201: %d and %d (%v)", winner, i, codes)
			case c == 409 && strings.Contains(string(bodies[i]), "username_taken"):
			default:
				t.Fatalf("registration %d: %d %s", i, c, bodies[i])
			}
		}
		if winner < 0 {
			t.Fatalf("no registration of cyd got through: %v", codes)
		}
		if got := modelstest.Count(t, a.store, `SELECT COUNT(*) FROM users WHERE username = 'cyd'`); got != 1 {
			t.Fatalf("%d accounts named cyd", got)
		}
		var tok struct {
			User struct {
				ID int64 `json:"id"`
			} `json:"user"`
		}
		if err := json.Unmarshal(bodies[winner], &tok); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			r := []*env{a, b}[i%2].do(loginReq("cyd", fmt.Sprintf("password-cyd-%d", i)))
			switch {
			case i == winner && (r.Status != 200 || session(t, "cyd", r).ID != tok.User.ID):
				t.Fatalf("the winner's password: %d %s", r.Status, r.Body)
			case i != winner && r.Status != 401:
				t.Fatalf("the password of losing registration %d: %d %s", i, r.Status, r.Body)
			}
		}
	})
}

// TestAttackAccountRegisterRetriedOnTwoReplicas: a client on a flaky
// network sends its registration again with the same Idempotency-Key,
// and the copy reaches the other server while the first still runs (a
// load balancer retrying on another upstream). What must hold, as
// docs/security.md promises of a repeated request ("a copy that arrives
// while its twin runs waits for it and gets its answer"): both copies get
// 201 with the same account, one of them replayed, and one account
// exists; the client is never told that its own name is taken.
func TestAttackAccountRegisterRetriedOnTwoReplicas(t *testing.T) {
	cfg := testConfig()
	cfg.RegisterBurst = 200
	eachDBPair(t, cfg, func(t *testing.T, a, b *env) {
		const rounds = 40
		for round := range rounds {
			name := fmt.Sprintf("flaky%d", round)
			rq := registerReq(name, "password-"+name)
			rq.Header = map[string]string{"Idempotency-Key": "signup-" + name}
			var codes [2]int
			var bodies [2][]byte
			var replayed [2]string
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i, e := range []*env{a, b} {
				wg.Go(func() {
					<-start
					var h http.Header
					codes[i], bodies[i], h, _ = e.raw(rq)
					if h != nil {
						replayed[i] = h.Get("Idempotent-Replayed")
					}
				})
			}
			close(start)
			wg.Wait()
			if codes != [2]int{201, 201} {
				t.Fatalf("round %d: the two copies of one keyed registration got %v: %s / %s", round, codes, bodies[0], bodies[1])
			}
			var ids [2]int64
			for i := range ids {
				var tok struct {
					User struct {
						ID int64 `json:"id"`
					} `json:"user"`
				}
				if err := json.Unmarshal(bodies[i], &tok); err != nil {
					t.Fatal(err)
				}
				ids[i] = tok.User.ID
			}
			if ids[0] != ids[1] || replayed[0] == replayed[1] {
				t.Fatalf("round %d: the copies name accounts %v, replayed %q", round, ids, replayed)
			}
			if got := modelstest.Count(t, a.store, fmt.Sprintf(`SELECT COUNT(*) FROM users WHERE username = '%s'`, name)); got != 1 {
				t.Fatalf("round %d: %d accounts named %s", round, got, name)
			}
		}
	})
}

// TestAttackAccountRefreshAtOnce: one refresh token is presented eight
// times at the same moment, over two servers (a thief and its owner, or
// a client that retries without an Idempotency-Key). What must hold: the
// rotation happens once (one 200, every other answer 401 invalid_token,
// no 5xx); the presentations after it are a reuse, which ends the
// session, so that no token of any answer lives on: no two clients hold
// a live session made from one refresh token. The account's other
// session is untouched, but by the generation a reuse moves on: it
// ends too, and a new login works.
func TestAttackAccountRefreshAtOnce(t *testing.T) {
	eachDBPair(t, testConfig(), func(t *testing.T, a, b *env) {
		ana := a.register("ana")
		const n = 8
		codes := make([]int, n)
		bodies := make([][]byte, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				codes[i], bodies[i], _, _ = []*env{a, b}[i%2].raw(refreshReq(ana.Refresh))
			})
		}
		close(start)
		wg.Wait()
		var won []*player
		for i, c := range codes {
			switch {
			case c == 200:
				won = append(won, session(t, "ana", &resp{Status: c, Body: bodies[i]}))
			case c == 401 && strings.Contains(string(bodies[i]), "invalid_token"):
			default:
				t.Fatalf("refresh %d: %d %s", i, c, bodies[i])
			}
		}
		if len(won) != 1 {
			t.Fatalf("%d of %d refreshes of one token got new tokens (%v)", len(won), n, codes)
		}
		for _, e := range []*env{a, b} {
			for _, tok := range []string{ana.Access, won[0].Access} {
				if r := e.do(req{Method: "GET", Path: "/v1/me", Token: tok}); r.Status != 401 {
					t.Fatalf("an access token after the reuse: %d %s", r.Status, r.Body)
				}
			}
		}
		if r := b.do(refreshReq(won[0].Refresh)); r.Status != 401 || r.code(t) != "invalid_token" {
			t.Fatalf("the refresh token the rotation gave, after the reuse: %d %s", r.Status, r.Body)
		}
		b.must(200, req{Method: "GET", Path: "/v1/me", Token: session(t, "ana", a.must(200, loginReq("ana", "password-ana"))).Access})
	})
}

// TestAttackAccountReadTokenStaysRead: ana gives a bot a personal API
// token with the scope "read", and the bot (or whoever stole the token)
// tries everything else: to play (actions, resign, leave, join, start, a
// new game, a deck), and every route of a login session only: PATCH
// /v1/me, the password, sign out everywhere, the token list, new tokens,
// revoking tokens, the calendar feed, the notification preferences. What
// must hold: each is 403 insufficient_scope and changes nothing (the
// game's version, the address, the password, the tokens, the feed); a
// token with "play" alone cannot read; once revoked the read token is
// refused at once; and ana cannot revoke bob's token by its id (404),
// which goes on working.
func TestAttackAccountReadTokenStaysRead(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		var og game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: bob.Access, Body: map[string]any{"players": 3, "deck": deck(0)}}).decode(t, &og)
		newToken := func(p *player, scopes ...string) (int64, string) {
			var tok struct {
				ID    int64  `json:"id"`
				Token string `json:"token"`
			}
			e.must(201, req{Method: "POST", Path: "/v1/tokens", Token: p.Access, Body: map[string]any{"name": "bot", "scopes": scopes}}).decode(t, &tok)
			return tok.ID, tok.Token
		}
		readID, read := newToken(ana, "read")
		_, playOnly := newToken(ana, "play")
		bobID, bobTok := newToken(bob, "read", "play")
		e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", g.ID), Token: read})
		before := gameVersion(t, e.store, g.ID)
		id := func(format string, args ...any) string { return fmt.Sprintf(format, args...) }
		for _, rq := range []req{
			{Method: "POST", Path: actionsPath(g.ID), Body: map[string]any{"expected_version": before, "actions": []map[string]any{{"type": "end_turn"}}}},
			{Method: "POST", Path: id("/v1/games/%d/resign", g.ID)},
			{Method: "POST", Path: id("/v1/games/%d/vote-end", g.ID)},
			{Method: "POST", Path: id("/v1/games/%d/join", og.ID), Body: map[string]any{"deck": deck(0)}},
			{Method: "POST", Path: id("/v1/games/%d/leave", og.ID)},
			{Method: "POST", Path: id("/v1/games/%d/start", og.ID)},
			{Method: "POST", Path: "/v1/games", Body: map[string]any{"players": 2, "deck": deck(0)}},
			{Method: "POST", Path: "/v1/decks", Body: map[string]any{"name": "stolen", "cards": e.prebuiltCards(0)}},
			{Method: "PATCH", Path: "/v1/me", Body: map[string]any{"email": "eve@evil.example"}},
			{Method: "POST", Path: "/v1/me/password", Body: map[string]string{"current_password": "password-ana", "new_password": "eve-owns-it-now"}},
			{Method: "POST", Path: "/v1/me/logout-everywhere"},
			{Method: "GET", Path: "/v1/tokens"},
			{Method: "POST", Path: "/v1/tokens", Body: map[string]any{"name": "more", "scopes": []string{"read", "play"}}},
			{Method: "DELETE", Path: id("/v1/tokens/%d", readID)},
			{Method: "GET", Path: "/v1/me/calendar"},
			{Method: "POST", Path: "/v1/me/calendar"},
			{Method: "GET", Path: "/v1/me/notification-preferences"},
			{Method: "PUT", Path: "/v1/me/notification-preferences", Body: map[string]any{"preferences": []map[string]any{{"kind": "your_turn", "channel": "email", "enabled": false}}}},
		} {
			rq.Token = read
			if r := e.do(rq); r.Status != 403 || r.code(t) != "insufficient_scope" {
				t.Errorf("%s %s with a read token: %d %s", rq.Method, rq.Path, r.Status, r.Body)
			}
		}
		for _, path := range []string{"/v1/me", id("/v1/games/%d", g.ID), id("/v1/games/%d/legal", g.ID), "/v1/games"} {
			if r := e.do(req{Method: "GET", Path: path, Token: playOnly}); r.Status != 403 || r.code(t) != "insufficient_scope" {
				t.Errorf("GET %s with a play token: %d %s", path, r.Status, r.Body)
			}
		}
		if after := gameVersion(t, e.store, g.ID); after != before {
			t.Fatalf("the game moved from version %d to %d", before, after)
		}
		if og2 := e.getGame(og.ID, bob); len(og2.Seats) != 3 || og2.Status != "open" {
			t.Fatalf("bob's open game after the read token's attempts: %+v", og2)
		}
		var me struct {
			Email string `json:"email"`
		}
		e.must(200, req{Method: "GET", Path: "/v1/me", Token: read}).decode(t, &me)
		if me.Email != "ana@example.com" {
			t.Fatalf("ana's address is now %q", me.Email)
		}
		e.must(200, loginReq("ana", "password-ana"))
		var list struct {
			Tokens []struct {
				ID int64 `json:"id"`
			} `json:"tokens"`
		}
		e.must(200, req{Method: "GET", Path: "/v1/tokens", Token: ana.Access}).decode(t, &list)
		if len(list.Tokens) != 2 {
			t.Fatalf("ana has %d tokens, want the 2 she made", len(list.Tokens))
		}
		if r := e.do(req{Method: "GET", Path: "/v1/me/calendar", Token: ana.Access}); r.Status != 404 {
			t.Fatalf("ana's calendar feed after the read token's attempt: %d %s", r.Status, r.Body)
		}
		if n := modelstest.Count(t, e.store, id(`SELECT COUNT(*) FROM decks WHERE user_id = %d`, ana.ID)); n != 0 {
			t.Fatalf("the read token saved %d decks", n)
		}
		// Revoked, the read token stops at once, on the routes that check
		// it along their query too.
		e.must(204, req{Method: "DELETE", Path: id("/v1/tokens/%d", readID), Token: ana.Access})
		for _, path := range []string{"/v1/me", id("/v1/games/%d", g.ID), id("/v1/games/%d/legal", g.ID), "/v1/games"} {
			if r := e.do(req{Method: "GET", Path: path, Token: read}); r.Status != 401 {
				t.Errorf("GET %s with the revoked read token: %d %s", path, r.Status, r.Body)
			}
		}
		// Another account's token, by its id.
		if r := e.do(req{Method: "DELETE", Path: id("/v1/tokens/%d", bobID), Token: ana.Access}); r.Status != 404 {
			t.Fatalf("ana revoking bob's token: %d %s", r.Status, r.Body)
		}
		e.must(200, req{Method: "GET", Path: "/v1/me", Token: bobTok})
	})
}

// jwtPart is the base64url of the JSON of v, as a part of a JWT.
func jwtPart(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// claimsOf decodes the payload of the JWT tok.
func claimsOf(t *testing.T, tok string) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q", tok)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAttackAccountForgedAccessTokens: an attacker holds ana's and bob's
// genuine access tokens and builds others from them: bob's claims under
// ana's signature, ana's token with its subject turned to bob's id, "alg"
// none in every case with and without a signature, HS384 and RS256 in
// place of HS256, a refresh token or an API-token-shaped string as a
// bearer, an access token presented as a refresh token. With the
// server's key (as if it leaked, or to probe the checks behind the
// signature) it also signs tokens of no user, of user 0 and -1, a
// subject that is not a number, of a generation not yet reached, naming
// bob's session with ana's subject, without an audience, not yet valid.
// What must hold: every one is 401 (invalid_token for the refresh) on a
// read, on a game's read that checks the token along its query, and on a
// change of the game, which stays at its version, on both databases.
func TestAttackAccountForgedAccessTokens(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		parts, bobParts := strings.Split(ana.Access, "."), strings.Split(bob.Access, ".")
		ac, bc := claimsOf(t, ana.Access), claimsOf(t, bob.Access)
		with := func(base map[string]any, set map[string]any) map[string]any {
			c := map[string]any{}
			for k, v := range base {
				c[k] = v
			}
			for k, v := range set {
				if v == nil {
					delete(c, k)
				} else {
					c[k] = v
				}
			}
			return c
		}
		rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		signed := func(c map[string]any) string { return sign(t, jwt.SigningMethodHS256, testSecret, jwt.MapClaims(c)) }
		now := time.Now()
		forged := map[string]string{
			"bob's claims, ana's signature":  bobParts[0] + "." + bobParts[1] + "." + parts[2],
			"ana's token, subject bob":       parts[0] + "." + jwtPart(t, with(ac, map[string]any{"sub": bc["sub"]})) + "." + parts[2],
			"no signature":                   parts[0] + "." + parts[1] + ".",
			"two parts":                      parts[0] + "." + parts[1],
			"HS384":                          sign(t, jwt.SigningMethodHS384, testSecret, jwt.MapClaims(ac)),
			"RS256":                          sign(t, jwt.SigningMethodRS256, rsaKey, jwt.MapClaims(ac)),
			"a refresh token":                ana.Refresh,
			"an API token's prefix":          "dmp_" + ana.Access,
			"no such user":                   signed(with(ac, map[string]any{"sub": "999999", "sid": nil, "gen": nil})),
			"user 0":                         signed(with(ac, map[string]any{"sub": "0", "sid": nil, "gen": nil})),
			"user -1":                        signed(with(ac, map[string]any{"sub": "-1", "sid": nil, "gen": nil})),
			"a subject that is no number":    signed(with(ac, map[string]any{"sub": "ana"})),
			"a subject past int64":           signed(with(ac, map[string]any{"sub": "99999999999999999999"})),
			"a generation not yet reached":   signed(with(ac, map[string]any{"gen": 7})),
			"a negative generation":          signed(with(ac, map[string]any{"gen": -1})),
			"bob's session, ana's subject":   signed(with(ac, map[string]any{"sid": bc["sid"]})),
			"a session of no one":            signed(with(ac, map[string]any{"sid": "made-up-session"})),
			"no audience":                    signed(with(ac, map[string]any{"aud": nil})),
			"no issuer":                      signed(with(ac, map[string]any{"iss": nil})),
			"not valid before an hour":       signed(with(ac, map[string]any{"nbf": now.Add(time.Hour).Unix()})),
			"ana's token with bob's sid":     parts[0] + "." + jwtPart(t, with(ac, map[string]any{"sid": bc["sid"]})) + "." + parts[2],
			"ana's token with a later exp":   parts[0] + "." + jwtPart(t, with(ac, map[string]any{"exp": now.Add(99 * time.Hour).Unix()})) + "." + parts[2],
			"ana's token, kid header":        jwtPart(t, map[string]any{"alg": "HS256", "typ": "JWT", "kid": "../../dev/null"}) + "." + parts[1] + "." + parts[2],
			"ana's token, jwk of the caller": jwtPart(t, map[string]any{"alg": "HS256", "jwk": map[string]string{"kty": "oct", "k": "AAAA"}}) + "." + parts[1] + "." + parts[2],
		}
		for _, alg := range []string{"none", "None", "NONE", "nOnE"} {
			h := jwtPart(t, map[string]string{"alg": alg, "typ": "JWT"})
			forged["alg "+alg] = h + "." + parts[1] + "."
			forged["alg "+alg+", signature kept"] = h + "." + parts[1] + "." + parts[2]
		}
		before := gameVersion(t, e.store, g.ID)
		for name, tok := range forged {
			for _, rq := range []req{
				{Method: "GET", Path: "/v1/me"},
				{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", g.ID)},
				{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/resign", g.ID)},
			} {
				rq.Token = tok
				if r := e.do(rq); r.Status != 401 || r.code(t) != "unauthorized" && r.code(t) != "invalid_token" || r.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("%s: %s %s: %d %s", name, rq.Method, rq.Path, r.Status, r.Body)
				}
			}
		}
		if r := e.do(refreshReq(ana.Access)); r.Status != 401 || r.code(t) != "invalid_token" {
			t.Errorf("an access token as a refresh token: %d %s", r.Status, r.Body)
		}
		if r := e.do(refreshReq("dmr_" + strings.Repeat("A", 43))); r.Status != 401 || r.code(t) != "invalid_token" {
			t.Errorf("a made-up refresh token: %d %s", r.Status, r.Body)
		}
		if after := gameVersion(t, e.store, g.ID); after != before {
			t.Fatalf("a forged token moved the game from version %d to %d", before, after)
		}
		// The genuine tokens still work: the attempts ended nothing.
		e.must(200, req{Method: "GET", Path: "/v1/me", Token: ana.Access})
		e.must(200, req{Method: "GET", Path: "/v1/me", Token: bob.Access})
		e.must(200, refreshReq(ana.Refresh))
	})
}

package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
	"time"
)

// idemCase is one state-changing POST under an Idempotency-Key: the
// request, another request with the same key, what it changes and what
// secrets its response holds.
type idemCase struct {
	name  string
	first req // sent twice with the key
	other req // the same key, another request: 422
	// rows counts what the request creates; it grows by one with the first
	// request and not with the repeat (nil: nothing to count).
	rows    func() int
	secrets func(r *resp) []string // the secrets of the response (nil: none)
	header  string                 // a header the repeat must give again
}

// TestIdempotencyKeys: every state-changing POST outside the games and
// decks honours Idempotency-Key: a repeat gets the same response with
// Idempotent-Replayed: true and creates nothing twice, the key with
// another request gets 422 idempotency_key_reused, and the stored records
// hold no secret of a response in the clear.
func TestIdempotencyKeys(t *testing.T) {
	eachNotifyDB(t, true, func(t *testing.T, e *notifyEnv) {
		ctx := context.Background()
		db, err := e.store.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		count := func(query string) func() int {
			return func() int {
				var n int
				if err := db.QueryRowContext(ctx, query).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
		rcv := startReceiver(t)
		ana, bob := e.register("ana"), e.register("bob")
		var wh struct {
			ID     int64  `json:"id"`
			Secret string `json:"secret"`
		}
		e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: bob.Access,
			Body: map[string]any{"url": rcv.srv.URL + "/hook", "events": []string{"game_started"}}}).decode(t, &wh)
		e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		waitFor(t, "the game_started delivery", func() bool { return len(rcv.all()) == 1 })
		e.drain(t)
		delivery := rcv.all()[0].Header.Get("Webhook-Id")
		deliveriesOf := func() int {
			n := 0
			for _, c := range rcv.all() {
				if c.Header.Get("Webhook-Id") == delivery {
					n++
				}
			}
			return n
		}
		vacation := func(days int) map[string]any {
			start := time.Date(e.clock.Now().Year()+1, 2, 1, 0, 0, 0, 0, time.UTC)
			return map[string]any{"starts_at": start.Format(time.RFC3339), "ends_at": start.AddDate(0, 0, days).Format(time.RFC3339)}
		}
		str := func(field string) func(r *resp) []string {
			return func(r *resp) []string {
				var m map[string]any
				r.decode(t, &m)
				return []string{m[field].(string)}
			}
		}
		tokens := func(r *resp) []string {
			var m map[string]any
			r.decode(t, &m)
			return []string{m["access_token"].(string), m["refresh_token"].(string)}
		}
		login := `{"username":"ana","password":"password-ana"}`
		refreshBody := fmt.Sprintf(`{"refresh_token":%q}`, ana.Refresh)
		cases := []idemCase{
			{name: "register",
				first:   req{Method: "POST", Path: "/v1/auth/register", Body: map[string]string{"username": "cyd", "password": "password-cyd"}},
				other:   req{Method: "POST", Path: "/v1/auth/register", Body: map[string]string{"username": "cyd", "password": "password-other"}},
				rows:    count(`SELECT COUNT(*) FROM refresh_tokens r JOIN users u ON u.id = r.user_id WHERE u.username = 'cyd'`),
				secrets: tokens, header: "Cache-Control"},
			{name: "login",
				first: req{Method: "POST", Path: "/v1/auth/login", Body: login},
				// The same credentials in other bytes are another request.
				other:   req{Method: "POST", Path: "/v1/auth/login", Body: `{"password":"password-ana","username":"ana"}`},
				rows:    count(fmt.Sprintf(`SELECT COUNT(*) FROM refresh_tokens WHERE user_id = %d`, ana.ID)),
				secrets: tokens, header: "Cache-Control"},
			{name: "refresh",
				first:   req{Method: "POST", Path: "/v1/auth/refresh", Body: refreshBody},
				other:   req{Method: "POST", Path: "/v1/auth/refresh", Body: refreshBody + " "},
				rows:    count(fmt.Sprintf(`SELECT COUNT(*) FROM refresh_tokens WHERE user_id = %d AND revoked_at IS NULL`, ana.ID)),
				secrets: tokens, header: "Cache-Control"},
			{name: "create token",
				first:   req{Method: "POST", Path: "/v1/tokens", Token: bob.Access, Body: map[string]any{"name": "bot", "scopes": []string{"read"}}},
				other:   req{Method: "POST", Path: "/v1/tokens", Token: bob.Access, Body: map[string]any{"name": "bot", "scopes": []string{"play"}}},
				rows:    count(fmt.Sprintf(`SELECT COUNT(*) FROM api_tokens WHERE user_id = %d`, bob.ID)),
				secrets: str("token"), header: "Cache-Control"},
			{name: "create webhook",
				first:   req{Method: "POST", Path: "/v1/webhooks", Token: ana.Access, Body: map[string]any{"url": rcv.srv.URL + "/ana"}},
				other:   req{Method: "POST", Path: "/v1/webhooks", Token: ana.Access, Body: map[string]any{"url": rcv.srv.URL + "/other"}},
				rows:    count(fmt.Sprintf(`SELECT COUNT(*) FROM webhooks WHERE user_id = %d`, ana.ID)),
				secrets: str("secret"), header: "Location"},
			{name: "enable webhook",
				first: req{Method: "POST", Path: fmt.Sprintf("/v1/webhooks/%d/enable", wh.ID), Token: bob.Access},
				other: req{Method: "POST", Path: fmt.Sprintf("/v1/webhooks/%d/enable", wh.ID+1000), Token: bob.Access}},
			{name: "redeliver",
				first: req{Method: "POST", Path: fmt.Sprintf("/v1/webhooks/%d/deliveries/%s/redeliver", wh.ID, delivery), Token: bob.Access},
				other: req{Method: "POST", Path: fmt.Sprintf("/v1/webhooks/%d/deliveries/%s/redeliver", wh.ID, delivery+"x"), Token: bob.Access},
				rows: func() int {
					e.drain(t)
					return deliveriesOf()
				}},
			{name: "create vacation",
				first: req{Method: "POST", Path: "/v1/me/vacations", Token: bob.Access, Body: vacation(3)},
				other: req{Method: "POST", Path: "/v1/me/vacations", Token: bob.Access, Body: vacation(4)},
				rows:  count(fmt.Sprintf(`SELECT COUNT(*) FROM vacations WHERE user_id = %d`, bob.ID))},
		}
		var secrets []string
		for i, c := range cases {
			key := fmt.Sprintf("key-%d", i)
			c.first.Header = map[string]string{"Idempotency-Key": key}
			c.other.Header = c.first.Header
			before := 0
			if c.rows != nil {
				before = c.rows()
			}
			first := e.do(c.first)
			if first.Status >= 300 || first.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("%s: %d %s", c.name, first.Status, first.Body)
			}
			again := e.do(c.first)
			if again.Status != first.Status || !bytes.Equal(again.Body, first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("%s: repeat %d %s (replayed %q), first %d %s", c.name, again.Status, again.Body,
					again.Header.Get("Idempotent-Replayed"), first.Status, first.Body)
			}
			if c.header != "" && (first.Header.Get(c.header) == "" || again.Header.Get(c.header) != first.Header.Get(c.header)) {
				t.Errorf("%s: %s %q, repeated %q", c.name, c.header, first.Header.Get(c.header), again.Header.Get(c.header))
			}
			if c.rows != nil {
				if n := c.rows(); n != before+1 {
					t.Errorf("%s: %d rows before, %d after the request and its repeat", c.name, before, n)
				}
			}
			if r := e.do(c.other); r.Status != 422 || r.code(t) != "idempotency_key_reused" {
				t.Errorf("%s: the key with another request: %d %s", c.name, r.Status, r.Body)
			}
			if c.secrets != nil {
				secrets = append(secrets, c.secrets(first)...)
			}
		}

		// The refreshed session goes on: the repeat did not count as a
		// reuse of the old refresh token.
		var next struct {
			RefreshToken string `json:"refresh_token"`
		}
		e.must(200, req{Method: "POST", Path: "/v1/auth/refresh", Body: refreshBody,
			Header: map[string]string{"Idempotency-Key": "key-2"}}).decode(t, &next)
		e.must(200, req{Method: "POST", Path: "/v1/auth/refresh", Body: map[string]string{"refresh_token": next.RefreshToken}})

		// The request hash is keyed: a plain hash of the login's body would
		// be a password hash open to a dictionary.
		plainLogin := sha256.Sum256([]byte("POST /v1/auth/login\n" + login))
		rows, err := db.QueryContext(ctx, `SELECT key, request_hash, response FROM idempotency_keys`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var key string
			var hash, data []byte
			if err := rows.Scan(&key, &hash, &data); err != nil {
				t.Fatal(err)
			}
			n++
			if bytes.Equal(hash, plainLogin[:]) {
				t.Errorf("the record of key %q holds the plain SHA-256 of the login", key)
			}
			for _, s := range append(secrets, "password-cyd", "password-ana") {
				if bytes.Contains(data, []byte(s)) || bytes.Contains([]byte(key), []byte(s)) {
					t.Errorf("the record of key %q holds %q in the clear", key, s)
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if n != len(cases) || len(secrets) != 8 {
			t.Fatalf("%d records for %d requests, %d secrets", n, len(cases), len(secrets))
		}
	})
}

// TestIdempotencyKeyScopes: the same key is another key for another user,
// and on an anonymous route for another account.
func TestIdempotencyKeyScopes(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		key := map[string]string{"Idempotency-Key": "same"}
		ana := e.must(201, req{Method: "POST", Path: "/v1/auth/register", Header: key,
			Body: map[string]string{"username": "ana", "password": "password-ana"}})
		bob := e.must(201, req{Method: "POST", Path: "/v1/auth/register", Header: key,
			Body: map[string]string{"username": "bob", "password": "password-bob"}})
		if bob.Header.Get("Idempotent-Replayed") != "" || bytes.Equal(ana.Body, bob.Body) {
			t.Fatalf("bob's register was answered from ana's record: %s", bob.Body)
		}
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		ana.decode(t, &tok)
		body := map[string]any{"name": "bot", "scopes": []string{"read"}}
		e.must(201, req{Method: "POST", Path: "/v1/tokens", Token: tok.AccessToken, Header: key, Body: body})
		bob.decode(t, &tok)
		if r := e.must(201, req{Method: "POST", Path: "/v1/tokens", Token: tok.AccessToken, Header: key, Body: body}); r.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("bob's token was answered from ana's record")
		}
		// A failed request stores nothing: the key goes on failing the
		// same way with another body instead of answering 422.
		taken := map[string]string{"Idempotency-Key": "taken"}
		for _, password := range []string{"password-new", "password-newer"} {
			if r := e.do(req{Method: "POST", Path: "/v1/auth/register", Header: taken,
				Body: map[string]string{"username": "ana", "password": password}}); r.Status != 409 || r.code(t) != "username_taken" {
				t.Fatalf("register a taken name: %d %s", r.Status, r.Body)
			}
		}
	})
}

// TestConcurrentKeyedSubmissions sends 32 copies of one submission with
// one Idempotency-Key at once: the action is applied once, and every copy
// gets its response (31 of them replayed), none a 409 stale_version that
// would tell the client its move was refused. First with the copies queued
// behind a lock of the game, so that all but one wait for another (on
// Postgres), then simply all at once.
func TestConcurrentKeyedSubmissions(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		players := []*player{ana, bob}
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		for round, gated := range []bool{true, false} {
			me := awaited(g, players)[0]
			key := map[string]string{"Idempotency-Key": fmt.Sprintf("end-turn-%d", round)}
			copies := make([]req, 32)
			for i := range copies {
				copies[i] = req{Method: "POST", Path: actionsPath(g.ID), Token: me.Access, Header: key,
					Body: map[string]any{"expected_version": g.Version, "actions": []map[string]string{{"type": "end_turn"}}}}
			}
			var rs []*resp
			if gated {
				rs = e.queuedAtOnce(g.ID, copies...)
			} else {
				rs = make([]*resp, len(copies))
				var wg sync.WaitGroup
				for i := range copies {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rs[i] = e.do(copies[i])
					}()
				}
				wg.Wait()
			}
			replayed := 0
			for i, r := range rs {
				if r.Status != 200 {
					t.Fatalf("round %d: copy %d: %d %s", round, i, r.Status, r.Body)
				}
				if r.Header.Get("Idempotent-Replayed") == "true" {
					replayed++
				}
				if !bytes.Equal(r.Body, rs[0].Body) {
					t.Fatalf("round %d: copy %d answered otherwise than copy 0:\n%s\n%s", round, i, r.Body, rs[0].Body)
				}
			}
			if replayed != len(rs)-1 {
				t.Fatalf("round %d: %d of %d copies replayed, want all but one", round, replayed, len(rs))
			}
			acts, err := e.store.Actions(context.Background(), g.ID)
			if err != nil {
				t.Fatal(err)
			}
			next := e.getGame(g.ID, me)
			applied := 0
			for _, a := range acts {
				if a.Version > g.Version {
					applied++
				}
			}
			if applied != 1 || next.Version != g.Version+1 {
				t.Fatalf("round %d: %d actions logged after version %d, game at version %d; want one, at %d",
					round, applied, g.Version, next.Version, g.Version+1)
			}
			g = next
		}
	})
}

// TestConcurrentKeyedRefresh sends 16 copies of one refresh with one
// Idempotency-Key at once: each gets the same new tokens, and the family
// stays valid. (A copy that ran after the first would find the token
// rotated and revoke the family, as for a stolen token.)
func TestConcurrentKeyedRefresh(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		rs := make([]*resp, 16)
		var wg sync.WaitGroup
		for i := range rs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rs[i] = e.do(req{Method: "POST", Path: "/v1/auth/refresh", Header: map[string]string{"Idempotency-Key": "refresh-1"},
					Body: map[string]string{"refresh_token": ana.Refresh}})
			}()
		}
		wg.Wait()
		for i, r := range rs {
			if r.Status != 200 || !bytes.Equal(r.Body, rs[0].Body) {
				t.Fatalf("copy %d: %d %s; copy 0: %s", i, r.Status, r.Body, rs[0].Body)
			}
		}
		var tok struct {
			RefreshToken string `json:"refresh_token"`
		}
		rs[0].decode(t, &tok)
		e.must(200, req{Method: "POST", Path: "/v1/auth/refresh", Body: map[string]string{"refresh_token": tok.RefreshToken}})
	})
}

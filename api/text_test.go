package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestUnstorableText sends a NUL character in each string a request
// stores, and in some of them bytes that are not UTF-8 or a lone surrogate
// escape: each gets 422 naming the field (Postgres refuses NUL, and the
// JSON decoder would replace the others unseen), on both databases alike,
// and nothing is stored.
func TestUnstorableText(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		db, err := e.store.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		ana, bob := e.register("ana"), e.register("bob")
		open := e.openGame(ana, 3)
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		me := awaited(g, []*player{ana, bob})[0]
		dk, cards := e.saveDeck(ana, "mine")
		// state is what the requests could have changed: every table's rows.
		state := func() string {
			var b strings.Builder
			for _, table := range []string{"users", "decks", "api_tokens", "webhooks", "games", "seats", "actions",
				"vacations", "notification_prefs", "idempotency_keys", "refresh_tokens"} {
				var n int
				if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
					t.Fatalf("%s: %v", table, err)
				}
				fmt.Fprintf(&b, "%s %d; ", table, n)
			}
			var me, deck string
			if err := db.QueryRowContext(ctx, `SELECT email || display_name FROM users WHERE username = 'ana'`).Scan(&me); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRowContext(ctx, `SELECT name || cards FROM decks`).Scan(&deck); err != nil {
				t.Fatal(err)
			}
			return b.String() + me + " " + deck
		}
		const nul = "a\x00b"
		post := func(path string, tok *player, body any) req {
			r := req{Method: "POST", Path: path, Body: body, NoContract: true}
			if tok != nil {
				r.Token = tok.Access
			}
			return r
		}
		gamePath := func(id int64, verb string) string { return fmt.Sprintf("/v1/games/%d/%s", id, verb) }
		cases := []struct {
			field string
			r     req
		}{
			{"username", post("/v1/auth/register", nil, map[string]string{"username": nul, "password": "password-x", "email": "x@example.com"})},
			{"password", post("/v1/auth/register", nil, map[string]string{"username": "cyd", "password": "password" + nul, "email": "c@example.com"})},
			{"email", post("/v1/auth/register", nil, map[string]string{"username": "cyd", "password": "password-c", "email": "c" + nul + "@example.com"})},
			{"display_name", post("/v1/auth/register", nil, map[string]string{"username": "cyd", "password": "password-c", "email": "c@example.com", "display_name": nul})},
			{"username", post("/v1/auth/login", nil, map[string]string{"username": "ana" + nul, "password": "password-ana"})},
			{"refresh_token", post("/v1/auth/refresh", nil, map[string]string{"refresh_token": ana.Refresh + nul})},
			{"display_name", req{Method: "PATCH", Path: "/v1/me", Token: ana.Access, Body: map[string]string{"display_name": nul}, NoContract: true}},
			{"email", req{Method: "PATCH", Path: "/v1/me", Token: ana.Access, Body: map[string]string{"email": "a" + nul + "@example.com"}, NoContract: true}},
			{"name", post("/v1/tokens", ana, map[string]any{"name": nul, "scopes": []string{"read"}})},
			{"scopes[1]", post("/v1/tokens", ana, map[string]any{"name": "bot", "scopes": []string{"read", nul}})},
			{"url", post("/v1/webhooks", ana, map[string]any{"url": "https://example.com/" + nul})},
			{"secret", post("/v1/webhooks", ana, map[string]any{"url": "https://example.com/hook", "secret": "s3cret-s3cret-s3cret" + nul})},
			{"events[0]", post("/v1/webhooks", ana, map[string]any{"url": "https://example.com/hook", "events": []string{nul}})},
			{"preferences[0].kind", req{Method: "PUT", Path: "/v1/me/notification-preferences", Token: ana.Access, NoContract: true,
				Body: map[string]any{"preferences": []map[string]any{{"kind": nul, "channel": "email", "enabled": false}}}}},
			{"starts_at", post("/v1/me/vacations", ana, map[string]any{"starts_at": "2030-01-01T00:00:00Z" + nul, "ends_at": "2030-01-08T00:00:00Z"})},
			{"name", post("/v1/decks", ana, map[string]any{"name": nul, "cards": cards})},
			{"cards[0].card", post("/v1/decks", ana, map[string]any{"name": "other", "cards": []map[string]any{{"card": nul, "count": 1}}})},
			{"name", req{Method: "PUT", Path: fmt.Sprintf("/v1/decks/%d", dk), Token: ana.Access, Body: map[string]any{"name": nul, "cards": cards}, NoContract: true}},
			{"invite[0]", post("/v1/games", ana, map[string]any{"players": 2, "deck": deck(0), "invite": []string{nul}})},
			{"deck.prebuilt", post("/v1/games", ana, map[string]any{"players": 2, "deck": map[string]string{"prebuilt": nul}})},
			{"mode", post("/v1/games", ana, map[string]any{"players": 2, "deck": deck(0), "mode": nul})},
			{"deck.prebuilt", post(gamePath(open.ID, "join"), bob, map[string]any{"deck": map[string]string{"prebuilt": nul}})},
			{"actions[0].card", post(actionsPath(g.ID), me, map[string]any{"expected_version": g.Version,
				"actions": []map[string]any{{"type": "place", "card": nul}}})},
			{"actions[0].choices[0]", post(actionsPath(g.ID), me, map[string]any{"expected_version": g.Version,
				"actions": []map[string]any{{"type": "answer", "prompt": "p1", "choices": []string{nul}}}})},
			// Not UTF-8, and a lone surrogate, which would arrive as U+FFFD.
			{"display_name", req{Method: "PATCH", Path: "/v1/me", Token: ana.Access, Body: "{\"display_name\": \"caf\xe9\"}", NoContract: true}},
			{"name", post("/v1/decks", ana, `{"name": "deck \ud800", "cards": [{"card": "glitchy-junior", "count": 1}]}`)},
			{"name", post("/v1/decks", ana, `{"name": "deck \udc00\ud800", "cards": [{"card": "glitchy-junior", "count": 1}]}`)},
		}
		before := state()
		for _, tc := range cases {
			r := e.do(tc.r)
			var p struct {
				Detail string `json:"detail"`
			}
			if r.Status == 422 {
				r.decode(t, &p)
			}
			if r.Status != 422 || !strings.HasPrefix(p.Detail, tc.field+": ") {
				t.Errorf("%s %s with %s: %d %s; want 422 naming %s", tc.r.Method, tc.r.Path, tc.field, r.Status, r.Body, tc.field)
			}
		}
		if after := state(); after != before {
			t.Fatalf("stored:\n%s\nwas\n%s", after, before)
		}
		// An escaped surrogate pair is a character like any other.
		pair, _ := json.Marshal(cards)
		e.must(201, req{Method: "POST", Path: "/v1/decks", Token: ana.Access, Body: `{"name": "deck \ud83d\ude00", "cards": ` + string(pair) + `}`})
	})
}

package api_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
)

// TestDetailFromCachedState: the game detail and legal actions a server
// builds from the state it keeps after a submission are those a server
// without it reads from the database, for every player, turn after turn;
// and the submission after such a read still applies.
func TestDetailFromCachedState(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		players := []*player{ana, bob}
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		for range 12 {
			me := awaited(e.getGame(g.ID, ana), players)[0]
			acts := e.legal(g.ID, me)
			if len(acts) == 0 {
				t.Fatal("the awaited player has no legal action")
			}
			cur := e.getGame(g.ID, me)
			e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: me.Access,
				Body: map[string]any{"expected_version": cur.Version, "actions": []any{answered(acts[len(acts)-1], cur.Prompts)}}})
			// A server that has not seen the game, on the same database.
			srv := httptest.NewServer(newServer(e.store, nil, testConfig(), slog.New(slog.NewJSONHandler(io.Discard, nil)), e.clock.Now).Handler())
			t.Cleanup(srv.Close)
			fresh := &env{t: t, srv: srv, store: e.store, http: srv.Client(), clock: e.clock}
			for _, p := range players {
				for _, path := range []string{"/v1/games/%d", "/v1/games/%d/legal"} {
					path = fmt.Sprintf(path, g.ID)
					got := e.must(200, req{Method: "GET", Path: path, Token: p.Access})
					want := fresh.must(200, req{Method: "GET", Path: path, Token: p.Access})
					if string(got.Body) != string(want.Body) || got.Header.Get("ETag") != want.Header.Get("ETag") {
						t.Fatalf("%s for %s:\n cached state: %s\n from the database: %s", path, p.Name, got.Body, want.Body)
					}
				}
			}
			if e.getGame(g.ID, ana).Status != "active" {
				break
			}
		}
	})
}

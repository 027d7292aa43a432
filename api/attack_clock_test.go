package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
)

// TestAttackClockSettingsRefused: a new game's deadline and timeout
// settings at and past their bounds, of the wrong type or too large for
// any integer, are refused with a 4xx problem that names the field, never
// a 500, and no game is stored.
func TestAttackClockSettingsRefused(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		deckJSON, _ := json.Marshal(deck(0))
		rows := []struct{ field, value string }{
			{"turn_deadline_seconds", "-1"},
			{"turn_deadline_seconds", "59"},
			{"turn_deadline_seconds", "2592001"},
			{"turn_deadline_seconds", "9223372036854775807"},
			{"turn_deadline_seconds", "99999999999999999999999"},
			{"turn_deadline_seconds", "1e300"},
			{"turn_deadline_seconds", "3600.5"},
			{"turn_deadline_seconds", `"3600"`},
			{"prompt_deadline_seconds", "-9223372036854775808"},
			{"prompt_deadline_seconds", "2592001"},
			{"timeout_limit", "-1"},
			{"timeout_limit", "21"},
			{"timeout_limit", "4294967297"},
			{"timeout_limit", `"3"`},
			{"on_timeouts", `"resign"`},
			{"on_timeouts", `"BOT"`},
			{"on_timeouts", "1"},
		}
		count := func() int {
			gs, err := e.store.ListGames(context.Background(), models.GameFilter{UserID: ana.ID, Limit: 101})
			if err != nil {
				t.Fatal(err)
			}
			return len(gs)
		}
		for _, r := range rows {
			before := count()
			body := fmt.Sprintf(`{"players":2,"mode":"fast","deck":%s,%q:%s}`, deckJSON, r.field, r.value)
			res := e.do(req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: body, NoContract: true})
			var p struct {
				Code   string `json:"code"`
				Detail string `json:"detail"`
			}
			if res.Status < 400 || res.Status >= 500 {
				t.Fatalf("%s=%s: %d %s", r.field, r.value, res.Status, res.Body)
			}
			res.decode(t, &p)
			if !strings.Contains(p.Detail, r.field) {
				t.Fatalf("%s=%s: the refusal does not name the field: %d %s", r.field, r.value, res.Status, res.Body)
			}
			if count() != before {
				t.Fatalf("%s=%s: a refused game was stored", r.field, r.value)
			}
		}
		// The bounds themselves are taken.
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{"players": 2, "mode": "fast",
			"deck": deck(0), "turn_deadline_seconds": 60, "prompt_deadline_seconds": 2592000, "timeout_limit": 20, "on_timeouts": "forfeit"}})
	})
}

// TestAttackClockReclaimRefusedAPI: reclaiming a seat of a game that does
// not exist, of a game one has no seat in, of a game not started, or with
// a bad id is refused with a 4xx problem, never a 500.
func TestAttackClockReclaimRefusedAPI(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, eve := e.register("ana"), e.register("bob"), e.register("eve")
		g := e.startGame(map[string]any{"mode": "fast", "timeout_limit": 1}, ana, bob)
		var open struct {
			ID int64 `json:"id"`
		}
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{"players": 2, "deck": deck(0)}}).decode(t, &open)
		for _, r := range []struct {
			path   string
			who    *player
			status []int
			code   string
		}{
			{fmt.Sprintf("/v1/games/%d/reclaim", g.ID), eve, []int{403, 404}, ""},
			{fmt.Sprintf("/v1/games/%d/reclaim", g.ID), ana, []int{409}, "not_taken_over"},
			{fmt.Sprintf("/v1/games/%d/reclaim", g.ID+1000), ana, []int{404}, ""},
			{fmt.Sprintf("/v1/games/%d/reclaim", open.ID), ana, []int{409}, "game_not_active"},
			{"/v1/games/abc/reclaim", ana, []int{400, 404}, ""},
			{"/v1/games/99999999999999999999/reclaim", ana, []int{400, 404}, ""},
		} {
			before := e.getGame(g.ID, ana).Version
			res := e.do(req{Method: "POST", Path: r.path, Token: r.who.Access, NoContract: true})
			ok := false
			for _, s := range r.status {
				ok = ok || res.Status == s
			}
			if !ok || r.code != "" && res.code(t) != r.code {
				t.Fatalf("POST %s by %s: %d %s", r.path, r.who.Name, res.Status, res.Body)
			}
			if after := e.getGame(g.ID, ana).Version; after != before {
				t.Fatalf("POST %s changed the game", r.path)
			}
		}
	})
}

package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
)

// The attacks on standing answers through the JSON API: POST
// /v1/games/{id}/actions with {"type": "standing", "standing": {...}}.

// apiStandingPosition: Ana's Action phase; Bob holds Hiring Freeze, which
// answers a place, and nothing that answers a Tool.
const apiStandingPosition = `
name: standing answers through the API
players:
  - name: Ana
    hand: [glitchy-junior, frontend-framework]
    deck: [data-lake, proof-of-concept, design-system]
  - name: Bob
    hand: [hiring-freeze, open-source-library]
    deck: [rapid-prototype, data-lake]
market: [landing-page, spam-filter, todo-app]
challenge_deck: [sales-dashboard, booking-system]
`

// standingGameAPI starts a game of ana and bob in apiStandingPosition.
func (e *env) standingGameAPI(ana, bob *player) game {
	e.t.Helper()
	return e.scenarioGame(ana, bob, apiStandingPosition)
}

// standingOfSeat is a seat's standing answers as stored, in words.
func (e *env) standingOfSeat(id int64, seat int) string {
	e.t.Helper()
	g, err := e.store.Game(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	s, err := engine.Unmarshal(g.State)
	if err != nil {
		e.t.Fatal(err)
	}
	return fmt.Sprintf("v%d %+v", g.Version, s.Players[seat].Standing)
}

// TestAttackStandingBadInput: malformed standing answers are refused with
// a 4xx naming the field (never a 500), and change nothing: unknown
// cards, events, a card that is no Hack, a Hack that answers another
// event, an empty event, overlong ids, too many entries, wrong JSON types.
func TestAttackStandingBadInput(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.standingGameAPI(ana, bob)
		before := e.standingOfSeat(g.ID, 1)
		plays := func(on, card string, n int) []map[string]any {
			out := make([]map[string]any, n)
			for i := range out {
				out[i] = map[string]any{"on": on, "card": card}
			}
			return out
		}
		for _, tc := range []struct {
			name     string
			standing any
			want     string // in the problem's body
		}{
			{"an unknown card", map[string]any{"plays": plays("place", "no-such-card", 1)}, "no-such-card"},
			{"an unknown event", map[string]any{"plays": plays("lunch", "hiring-freeze", 1)}, "lunch"},
			{"an empty event", map[string]any{"plays": plays("", "hiring-freeze", 1)}, "Hiring Freeze"},
			{"a card that is no Hack", map[string]any{"plays": plays("place", "glitchy-junior", 1)}, "Glitchy"},
			{"a Hack that answers another event", map[string]any{"plays": plays("claim", "hiring-freeze", 1)}, "claim"},
			{"an overlong card", map[string]any{"plays": plays("place", strings.Repeat("x", 10000), 1)}, "standing.plays[0]"},
			{"an overlong event", map[string]any{"plays": plays(strings.Repeat("p", 10000), "hiring-freeze", 1)}, "standing.plays[0]"},
			{"too many entries", map[string]any{"plays": plays("place", "hiring-freeze", 65)}, "standing.plays"},
			{"a pass that is no boolean", map[string]any{"pass": "yes"}, "pass"},
			{"plays that are no list", map[string]any{"plays": "hiring-freeze when place"}, "plays"},
			{"a number for a card", map[string]any{"plays": []any{map[string]any{"on": "place", "card": -1}}}, "card"},
			{"no standing", nil, "standing"},
		} {
			action := map[string]any{"type": "standing"}
			if tc.standing != nil {
				action["standing"] = tc.standing
			}
			r := e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: bob.Access, NoContract: true,
				Body: map[string]any{"expected_version": g.Version, "actions": []any{action}}})
			if r.Status < 400 || r.Status >= 500 || !strings.Contains(string(r.Body), tc.want) {
				t.Errorf("%s: %d %s, want a 4xx naming %q", tc.name, r.Status, trim(r.Body), tc.want)
			}
			if now := e.standingOfSeat(g.ID, 1); now != before {
				t.Errorf("%s: the refusal left %s, was %s", tc.name, now, before)
			}
		}
		// Versions that are no version.
		for _, v := range []string{"-1", "0", "99999999999999999999", "1e3", `"7"`} {
			r := e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: bob.Access, NoContract: true,
				Body: `{"expected_version": ` + v + `, "actions": [{"type": "standing", "standing": {"pass": true}}]}`})
			if r.Status >= 500 || (r.Status < 400 && v != "-1" && v != "0") {
				t.Errorf("expected_version %s: %d %s", v, r.Status, trim(r.Body))
			}
		}
	})
}

// TestAttackStandingHidden: Bob's standing answers are his alone: Ana's
// game, legal moves and events say nothing of them,
// though Bob's own say them back; a standing answer sent at an older
// version (Ana moved meanwhile) is set, and Ana's move written before it
// is played, not refused as stale for a change she cannot see.
func TestAttackStandingHidden(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.standingGameAPI(ana, bob)
		v := g.Version
		body := map[string]any{"expected_version": v, "actions": []any{map[string]any{"type": "standing",
			"standing": map[string]any{"pass": false, "plays": []any{map[string]any{"on": "place", "card": "hiring-freeze"}}}}}}
		r := e.must(http.StatusOK, req{Method: "POST", Path: actionsPath(g.ID), Token: bob.Access, Body: body})
		if !strings.Contains(string(r.Body), "hiring-freeze") {
			t.Errorf("Bob's own answer does not say his standing answers back: %s", trim(r.Body))
		}
		for _, path := range []string{fmt.Sprintf("/v1/games/%d", g.ID), fmt.Sprintf("/v1/games/%d/events", g.ID), fmt.Sprintf("/v1/games/%d/legal", g.ID)} {
			r := e.must(http.StatusOK, req{Method: "GET", Path: path, Token: ana.Access})
			if s := string(r.Body); strings.Contains(s, "standing") {
				t.Errorf("Ana's %s shows Bob's standing answers: %s", path, trim(r.Body))
			}
		}
		// Ana places, at the version before Bob's answer: his standing
		// Hiring Freeze cancels it with no prompt.
		var lg struct {
			Actions []struct {
				Type string `json:"type"`
				Card string `json:"card"`
			} `json:"actions"`
		}
		e.must(http.StatusOK, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d/legal", g.ID), Token: ana.Access}).decode(t, &lg)
		card := ""
		for _, a := range lg.Actions {
			if a.Type == "place" {
				card = a.Card
			}
		}
		if card == "" {
			t.Fatalf("Ana may place nothing: %+v", lg)
		}
		r = e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: ana.Access,
			Body: map[string]any{"expected_version": v, "actions": []any{map[string]any{"type": "place", "card": card}}}})
		if r.Status != http.StatusOK {
			t.Fatalf("Ana's place, written before Bob's hidden standing answer: %d %s", r.Status, trim(r.Body))
		}
		if s := string(r.Body); strings.Contains(s, `"standing"`) {
			t.Errorf("Ana's answer shows Bob's standing answers: %s", trim(r.Body))
		}
		// Bob clears his answers at a version long gone: set.
		body["actions"] = []any{map[string]any{"type": "standing", "standing": map[string]any{"pass": false, "plays": []any{}}}}
		e.must(http.StatusOK, req{Method: "POST", Path: actionsPath(g.ID), Token: bob.Access, Body: body})
		if got := e.standingOfSeat(g.ID, 1); !strings.HasSuffix(got, "{Pass:false Plays:[]}") {
			t.Errorf("Bob's cleared standing answers: %s", got)
		}
	})
}

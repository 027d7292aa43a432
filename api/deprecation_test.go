package api_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models/modelstest"
)

// rawLegal returns p's legal entries in game id exactly as listed.
func rawLegal(e *env, id int64, p *player) (int64, []map[string]any) {
	e.t.Helper()
	var l struct {
		Version int64            `json:"version"`
		Actions []map[string]any `json:"actions"`
	}
	e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d/legal", id), Token: p.Access}).decode(e.t, &l)
	return l.Version, l.Actions
}

// deprecatedHeaders checks that r carries the deprecation of the
// descriptive fields, or none.
func deprecatedHeaders(t *testing.T, what string, r *resp, want bool) {
	t.Helper()
	dep, sunset, link := r.Header.Get("Deprecation"), r.Header.Get("Sunset"), r.Header.Get("Link")
	if !want {
		if dep != "" || sunset != "" {
			t.Errorf("%s: Deprecation %q, Sunset %q on a request of the current form", what, dep, sunset)
		}
		return
	}
	if dep != "@1796083200" || sunset != "Tue, 01 Jun 2027 00:00:00 GMT" || !strings.Contains(link, `rel="deprecation"`) ||
		!strings.Contains(link, "docs/api-changes.md") {
		t.Errorf("%s: Deprecation %q, Sunset %q, Link %q", what, dep, sunset, link)
	}
}

// TestLegalEntriesSentBack: a client that sends legal entries back exactly
// as listed (text, min, max and options included) gets what
// docs/api-changes.md promises: a turn action is applied as listed; an
// answer as listed chooses nothing, refused for a prompt that needs a
// choice with a reason naming the prompt, and applied once it has its
// choices; every such response carries Deprecation, Sunset and Link, and
// a request of the current form none.
func TestLegalEntriesSentBack(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		q := interruptGame(t, e)
		ana, bob, g := q.ana, q.bob, game{ID: q.id}
		_, tools := q.ready()

		// ana's Tool and end of turn, as listed.
		version, listed := rawLegal(e, g.ID, ana)
		var batch []map[string]any
		for _, a := range listed {
			if (a["type"] == "play_tool" && a["card"] == tools[0]) || a["type"] == "end_turn" {
				if a["text"] == "" || a["text"] == nil {
					t.Fatalf("a legal entry without text: %v", a)
				}
				batch = append(batch, a)
			}
		}
		if len(batch) != 2 {
			t.Fatalf("no Tool and end of turn among %v", listed)
		}
		r := e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: ana.Access,
			Body: map[string]any{"expected_version": version, "actions": batch}})
		deprecatedHeaders(t, "turn actions as listed", r, true)
		var tr turnResult
		r.decode(t, &tr)
		if len(tr.View.Queued) != 1 || tr.View.Queued[0].Type != engine.ActEndTurn {
			t.Fatalf("the Tool was not played and the end of turn not queued: %+v", tr.View)
		}

		// bob's interrupt prompt, as listed: it needs a choice.
		version, listed = rawLegal(e, g.ID, bob)
		var answer map[string]any
		for _, a := range listed {
			if a["type"] == "answer" {
				answer = a
			}
		}
		if answer == nil || answer["min"] == nil || answer["max"] == nil || answer["options"] == nil || answer["choices"] != nil {
			t.Fatalf("bob's answer entry: %v", answer)
		}
		if answer["min"].(float64) < 1 {
			t.Fatalf("the interrupt prompt takes no choice: %v", answer)
		}
		r = e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: bob.Access,
			Body: map[string]any{"expected_version": version, "actions": []any{answer}}})
		if r.Status != 422 || r.code(t) != "illegal_action" || !strings.Contains(string(r.Body), answer["prompt"].(string)) {
			t.Fatalf("an answer sent back as listed: %d %s", r.Status, r.Body)
		}
		deprecatedHeaders(t, "an answer refused", r, true)
		if now, _ := rawLegal(e, g.ID, bob); now != version {
			t.Fatalf("the refused answer changed the game: version %d, was %d", now, version)
		}

		// The same entry with its choices is applied.
		answer["choices"] = []string{engine.Pass}
		r = e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: bob.Access,
			Body: map[string]any{"expected_version": version, "actions": []any{answer}}})
		deprecatedHeaders(t, "an answer as listed, with its choices", r, true)

		// The current form carries no deprecation: the first thing bob or
		// ana may do, without the descriptive fields.
		sent := false
		for _, p := range []*player{bob, ana} {
			version, listed := rawLegal(e, g.ID, p)
			if len(listed) == 0 || sent {
				continue
			}
			a := map[string]any{"type": listed[0]["type"]}
			for _, k := range []string{"card", "challenges", "prompt"} {
				if v, ok := listed[0][k]; ok {
					a[k] = v
				}
			}
			if a["type"] == "answer" {
				var choices []any
				for _, o := range listed[0]["options"].([]any)[:int(listed[0]["min"].(float64))] {
					choices = append(choices, o.(map[string]any)["id"])
				}
				a["choices"] = choices
			}
			r = e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: p.Access,
				Body: map[string]any{"expected_version": version, "actions": []any{a}}})
			deprecatedHeaders(t, "an action of the current form", r, false)
			sent = true
		}
		if !sent {
			t.Fatal("nobody may act")
		}
	})
}

// kanboAtWork is a position in which ana may activate Kanbo, whose
// Market refresh asks her to put up to 1 challenge under the Challenge
// Deck: a prompt that takes 0 choices too.
const kanboAtWork = `
seed: 3
players:
  - name: ana
    lab: [kanbo-junior]
    hand: [rapid-prototype]
    deck: [data-lake, data-lake, data-lake, data-lake]
  - name: bob
    hand: [qubo-junior]
    deck: [data-lake, data-lake, data-lake, data-lake]
market: [landing-page, todo-app, spam-filter]
challenge_deck: [sales-dashboard, online-store]
active: 0
turn: 3
phase: action
`

// TestAnswerOfNoChoiceSentBack: an answer entry sent back as listed, to a
// prompt that takes no choice too (min 0), is applied as choosing
// nothing, as docs/api-changes.md promises, with the deprecation marked.
func TestAnswerOfNoChoiceSentBack(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		modelstest.Stage(t, e.store, g.ID, kanboAtWork, e.clock.Now())
		version, listed := rawLegal(e, g.ID, ana)
		var activate map[string]any
		for _, a := range listed {
			if a["type"] == "activate" {
				activate = a
			}
		}
		if activate == nil {
			t.Fatalf("Kanbo cannot be activated: %v", listed)
		}
		e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: ana.Access,
			Body: map[string]any{"expected_version": version, "actions": []any{activate}}})
		version, listed = rawLegal(e, g.ID, ana)
		var answer map[string]any
		for _, a := range listed {
			if a["type"] == "answer" {
				answer = a
			}
		}
		if answer == nil || answer["min"] != float64(0) || answer["max"] != float64(1) || len(answer["options"].([]any)) != 3 {
			t.Fatalf("the refresh's answer entry: %v", answer)
		}
		before := e.getGame(g.ID, ana).View.Market
		r := e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: ana.Access,
			Body: map[string]any{"expected_version": version, "actions": []any{answer}}})
		deprecatedHeaders(t, "an answer of no choice as listed", r, true)
		after := e.getGame(g.ID, ana)
		if len(after.Prompts) != 0 || fmt.Sprint(after.View.Market) != fmt.Sprint(before) {
			t.Fatalf("the answer did not choose nothing: prompts %v, Market %v, was %v", after.Prompts, after.View.Market, before)
		}
	})
}

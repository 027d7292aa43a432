package api_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
)

// legalEntry is one entry of a legal list as a client reads it.
type legalEntry struct {
	Type    string          `json:"type"`
	Card    string          `json:"card"`
	Prompt  string          `json:"prompt"`
	Choices []string        `json:"choices"`
	Text    string          `json:"text"`
	Min     *int            `json:"min"`
	Max     *int            `json:"max"`
	Options []engine.Option `json:"options"`
}

// TestLegalInWords: every legal action comes with its text; a hand-limit
// discard is one entry with its min, max and options (never an enumeration
// of its answers); any answer it describes is accepted, the last options as
// well as the first, and one naming an unknown option is refused with a
// reason that names the option and the prompt. The view's cards carry what
// a client needs to draw them.
func TestLegalInWords(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		players := []*player{ana, bob}
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		for range 40 {
			cur := e.getGame(g.ID, ana)
			who := awaited(cur, players)[0]
			var l struct {
				Actions []legalEntry `json:"actions"`
			}
			e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d/legal", g.ID), Token: who.Access}).decode(t, &l)
			for _, a := range l.Actions {
				if a.Text == "" {
					t.Fatalf("legal action %+v has no text", a)
				}
			}
			mine := e.getGame(g.ID, who)
			if len(mine.View.Hand) == 0 || mine.View.Hand[0].Type == "" {
				t.Fatalf("the hand's cards lack their type: %+v", mine.View.Hand)
			}
			if len(mine.Prompts) == 0 || mine.Prompts[0].Kind != engine.PromptDiscard {
				e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: who.Access,
					Body: map[string]any{"expected_version": mine.Version, "actions": []engine.Action{{Type: engine.ActEndTurn}}}})
				continue
			}
			p := mine.Prompts[0]
			if len(l.Actions) != 1 {
				t.Fatalf("a discard prompt is listed as %d entries: %+v", len(l.Actions), l.Actions)
			}
			d := l.Actions[0]
			if d.Type != "answer" || d.Prompt != p.ID || d.Choices != nil || d.Min == nil || *d.Min != p.Min || *d.Max != p.Max ||
				!slices.Equal(d.Options, p.Options) || !strings.HasPrefix(d.Text, "Hand limit: discard") {
				t.Fatalf("the discard is listed as %+v, the prompt is %+v", d, p)
			}
			for _, o := range d.Options {
				if !strings.HasPrefix(o.Text, "Discard ") {
					t.Fatalf("option %+v does not say what it does", o)
				}
			}
			var last []string
			for _, o := range d.Options[len(d.Options)-*d.Min:] {
				last = append(last, o.ID)
			}
			bad := append(slices.Clone(last[1:]), "no-such-card")
			r := e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: who.Access,
				Body: map[string]any{"expected_version": mine.Version, "actions": []engine.Action{{Type: engine.ActAnswer, Prompt: p.ID, Choices: bad}}}})
			if r.Status != 422 || !strings.Contains(string(r.Body), `\"no-such-card\" is not an option of prompt `+p.ID) {
				t.Fatalf("an unknown option: %d %s", r.Status, r.Body)
			}
			e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: who.Access,
				Body: map[string]any{"expected_version": mine.Version, "actions": []engine.Action{{Type: engine.ActAnswer, Prompt: p.ID, Choices: last}}}})
			return
		}
		t.Fatal("no hand-limit discard in 40 actions")
	})
}

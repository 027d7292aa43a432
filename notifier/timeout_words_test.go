package notifier

import (
	"testing"

	"github.com/datamonsters/turns/engine"
)

// TestTimeoutWords reads what a decision email says a timeout chooses, in
// the words an answer takes: a choice of several discards says its verb
// once.
func TestTimeoutWords(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"two discards", `
phase: draw
players:
  - {name: Ana, hand: [data-lake, glitchy-junior, scrum-planning, cloud-credits, rapid-prototype, rapid-prototype, doodle-junior], deck: [proof-of-concept]}
  - {name: Ben}
`, "the first 2 options are chosen: Discard Data Lake (TECH 0, SCI 2) and Glitchy (Junior)"},
		{"one discard", `
phase: draw
players:
  - {name: Ana, hand: [data-lake, glitchy-junior, scrum-planning, cloud-credits, rapid-prototype, rapid-prototype], deck: [proof-of-concept]}
  - {name: Ben}
`, "the first option is chosen: Discard Data Lake (TECH 0, SCI 2)"},
		{"interrupt", `
players:
  - {name: Ana, hand: [rapid-prototype]}
  - {name: Ben, hand: [merge-conflict]}
steps: [{do: play_tool, card: rapid-prototype}]
`, "you pass"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := engine.RunScenario([]byte(tc.doc))
			if err != nil || res.Failed() {
				t.Fatalf("the position: %v %+v", err, res)
			}
			var ps []engine.Prompt
			for seat := range res.State.Players {
				ps = append(ps, res.State.View(seat).Prompts...)
			}
			if len(ps) != 1 {
				t.Fatalf("%d prompts, want 1: %+v", len(ps), ps)
			}
			if got := TimeoutWords(ps[0]); got != tc.want {
				t.Errorf("TimeoutWords = %q\n                 want %q", got, tc.want)
			}
		})
	}
}

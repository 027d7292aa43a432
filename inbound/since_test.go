package inbound_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
)

// TestAnswerSaysNotTheMovesTwice: the answer to a reply lists the moves
// played once, in the reply's words; under "Since you last played" it
// says what came of them (the next turn, the draw), not the same moves
// again as the log words them.
func TestAnswerSaysNotTheMovesTwice(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	g := e.scenarioGame(t, `name: a Tool and the end of a turn
players:
  - {name: ana, hand: [open-source-library, frontend-framework]}
  - {name: ben, hand: [frontend-framework], deck: [rapid-prototype, data-lake, design-system]}
`, ana, ben)
	a := e.answered(t, ana, e.general(g.ID, ana, 0), "play open source library\nend")
	applied, since := section(a.Text, "Your moves were played."), section(a.Text, "Since you last played:")
	if len(applied) != 2 {
		t.Errorf("the moves played: %q, want the reply's two", applied)
	}
	if !slices.Contains(since, "- ben draws 2 cards.") {
		t.Errorf("what came of the moves: %q, want ben's draw", since)
	}
	for _, l := range since {
		if strings.HasPrefix(l, "- ana ") {
			t.Errorf("what came of the moves says a move of ana's again: %q", l)
		}
	}
	if t.Failed() {
		t.Log(a.Text)
	}
}

// TestAnswerSaysTheDrawOnce: a reply plays Hype Cycle, whose draw is news
// to its author: the answer opens with "You drew Rapid Prototype." and
// does not list "You draw Rapid Prototype." again under "Since you last
// played".
func TestAnswerSaysTheDrawOnce(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	g := e.scenarioGame(t, `name: a Hack that draws
players:
  - {name: ana, hand: [hype-cycle, frontend-framework], deck: [rapid-prototype, design-system]}
  - {name: ben, hand: [frontend-framework]}
`, ana, ben)
	a := e.answered(t, ana, e.general(g.ID, ana, 0), "play hype cycle")
	head, _, _ := strings.Cut(a.Text, "Your moves were played.")
	if !strings.Contains(head, "You drew Rapid Prototype") {
		t.Errorf("the answer does not open with the draw:\n%s", a.Text)
	}
	for _, l := range section(a.Text, "Since you last played:") {
		if strings.Contains(l, "You draw ") {
			t.Errorf("the draw is said twice, in the news and in the list: %q\n%s", l, a.Text)
		}
	}
}

// scrumPlanning is a game where Ana holds Scrum Planning, which asks her
// which of her deck's top three cards to take.
const scrumPlanning = `name: a Hack that asks
players:
  - {name: ana, hand: [scrum-planning, frontend-framework], deck: [rapid-prototype, design-system, data-lake, open-source-library]}
  - {name: ben, hand: [frontend-framework]}
`

// TestAnswerAsksOnce: a reply plays Scrum Planning, which asks its author
// which of the top three cards to take. The answer shows the question
// under "Waiting for your answer", and not again under "Since you last
// played".
func TestAnswerAsksOnce(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	g := e.scenarioGame(t, scrumPlanning, ana, ben)
	a := e.answered(t, ana, e.general(g.ID, ana, 0), "play scrum planning")
	asked := section(a.Text, "Waiting for your answer:")
	if len(asked) == 0 {
		t.Fatalf("the answer asks nothing:\n%s", a.Text)
	}
	question := strings.TrimPrefix(asked[0], "- ")
	if n := strings.Count(a.Text, question); n != 1 {
		t.Errorf("the answer shows the question %q %d times, want once:\n%s", question, n, a.Text)
	}
}

// section is the lines of text's list under heading, trimmed.
func section(text, heading string) []string {
	_, rest, ok := strings.Cut(text, heading+"\n")
	if !ok {
		return nil
	}
	var out []string
	for _, l := range strings.Split(rest, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			break
		}
		out = append(out, l)
	}
	return out
}

// TestAnswerSaysAChoiceOnce: Ana's reply answers Scrum Planning's
// question with the card to take. The answer lists the move once, in her
// reply's words, under "Your moves were played", and neither opens with
// "You took ..." nor lists "You look at ... and take ..." again.
func TestAnswerSaysAChoiceOnce(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	g := e.scenarioGame(t, scrumPlanning, ana, ben)
	e.answered(t, ana, e.general(g.ID, ana, 0), "play scrum planning")
	a := e.answered(t, ana, e.general(g.ID, ana, 0), "take design system")
	applied := section(a.Text, "Your moves were played.")
	if len(applied) != 1 || !strings.Contains(applied[0], "Design System") {
		t.Fatalf("the moves played: %q, want the take:\n%s", applied, a.Text)
	}
	for _, said := range []string{"You took Design System", "You look at", "take Design System."} {
		if strings.Contains(a.Text, said) {
			t.Errorf("the answer says the take again (%q):\n%s", said, a.Text)
		}
	}
}

// TestPassEndToAWindow: Ana answers Ben's Hack with "pass end", as the
// email's example ("1 4 end") reads. Her pass is played and the "end",
// with nothing of hers left to end, is skipped and said so: the window
// closes at once rather than after another round trip.
func TestPassEndToAWindow(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	g := e.scenarioGame(t, `name: a window
players:
  - {name: ana, hand: [red-tape], deck: [merge-conflict, data-lake]}
  - {name: ben, hand: [audit-season, frontend-framework], deck: [rapid-prototype, design-system]}
active: 1
steps: [{do: play_hack, card: audit-season}]
`, ana, ben)
	before := e.version(g.ID)
	a := e.answered(t, ana, e.general(g.ID, ana, 0), "pass end")
	if applied := section(a.Text, "Your moves were played."); !slices.Equal(applied, []string{"- Pass"}) {
		t.Errorf("the moves played: %q, want the pass:\n%s", applied, a.Text)
	}
	if skipped := section(a.Text, "Not read as commands, so skipped:"); !slices.Equal(skipped, []string{"> end"}) {
		t.Errorf("skipped: %q, want the end:\n%s", skipped, a.Text)
	}
	if strings.Contains(a.Text, "Nothing was played") {
		t.Errorf("the answer refuses:\n%s", a.Text)
	}
	if v := e.version(g.ID); v == before {
		t.Fatalf("the game stayed at version %d", v)
	}
}

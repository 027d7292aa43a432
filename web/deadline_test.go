package web_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
)

// deadlineRe reads the board's deadline: its label and its time.
var deadlineRe = regexp.MustCompile(`Deadline: ([a-z ]+) <time datetime="[^"]+">`)

// TestBoardSaysWhatTheDeadlineIs: the board names its deadline for what
// it is to its reader, "your turn ends" on their turn (a question of
// their own turn is due with it) and "answer by" for an interrupt window
// of another's turn, and each question says what a timeout answers for
// them: for a window, that they pass; for a choice, the first options.
func TestBoardSaysWhatTheDeadlineIs(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	ana, bob := s.client(), s.client()
	ana.register("ana", "ana password")
	bob.register("bob", "bob password")
	id := s.startGame(s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password"))
	label := func(c *client) string {
		t.Helper()
		m := deadlineRe.FindStringSubmatch(c.get(gamePath(id)).mustSee(t, 200).Body)
		if m == nil {
			t.Fatal("the board shows no deadline")
		}
		return m[1]
	}
	// Ana's turn, with a question of it: which Glitchy stays.
	s.stage(t, id, `
players:
  - {name: ana, hand: [glitchy-junior], lab: [glitchy-junior]}
  - {name: bob}
steps:
  - {do: place, card: glitchy-junior}
`)
	if got := label(ana); got != "your turn ends" {
		t.Errorf("Ana's deadline on her turn, with a choice of it: %q", got)
	}
	page := ana.get(gamePath(id)).Body
	if !strings.Contains(page, "If you do not answer by the deadline, the first option is chosen: ") {
		t.Errorf("Ana's choice does not say what a timeout answers:\n%s", clip(page))
	}
	if got := label(bob); got != "the turn ends" {
		t.Errorf("Bob's deadline on Ana's turn: %q", got)
	}
	// A window for Bob on Ana's turn: her place, his Hiring Freeze.
	s.stage(t, id, `
players:
  - {name: ana, hand: [glitchy-junior]}
  - {name: bob, hand: [hiring-freeze]}
steps:
  - {do: place, card: glitchy-junior}
`)
	if got := label(bob); got != "answer by" {
		t.Errorf("Bob's deadline for a window of Ana's turn: %q", got)
	}
	if page := bob.get(gamePath(id)).Body; !strings.Contains(page, "If you do not answer by the deadline, you pass.") {
		t.Errorf("Bob's window does not say what a timeout answers:\n%s", clip(page))
	}
	if got := label(ana); got != "answers are due" {
		t.Errorf("Ana's deadline while Bob's answer is awaited: %q", got)
	}
}

package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestGlossaryCoversTheCardSet walks every card of the card set: each of
// its keywords and markers (hard, recipe, requires, once per turn, unique,
// one, many) has a glossary entry (Terms), and no entry is there twice.
func TestGlossaryCoversTheCardSet(t *testing.T) {
	seen := map[string]bool{}
	for _, term := range Glossary {
		if seen[term.ID] || term.Word == "" || term.Text == "" {
			t.Errorf("glossary entry %+v: twice or empty", term)
		}
		seen[term.ID] = true
	}
	cat := Standard()
	n := 0
	for _, c := range cat.Cards() {
		id := c.ID
		want := len(c.Keywords)
		if c.Unique {
			want++
		}
		if c.One || c.Many > 0 {
			want++
		}
		if len(c.Recipe) > 0 {
			want++
		}
		text := cat.Text(c)
		for _, marker := range []struct {
			printed bool
			id      string
		}{{c.Hard, "hard"}, {strings.Contains(text, "\nRequires "), "requires"}, {strings.Contains(text, "\nOnce per turn"), "once-per-turn"}} {
			if marker.printed {
				want++
			}
		}
		terms := c.Terms()
		if len(terms) != want {
			t.Errorf("%s: %d terms %v for keywords %v (one %v, many %d, unique %v)", id, len(terms), terms, c.Keywords, c.One, c.Many, c.Unique)
		}
		for _, k := range c.Keywords {
			if !slices.ContainsFunc(terms, func(tm Term) bool { return tm.ID == string(k) }) {
				t.Errorf("%s: keyword %s has no glossary entry", id, k)
			}
		}
		n += len(terms)
	}
	if n == 0 {
		t.Fatal("no card prints a keyword")
	}
}

// TestBlockedCards: in the seat's Action phase a card of the hand that no
// action plays says why, an interrupt says when it is played, and a
// playable card is not listed; on another seat's turn nothing is.
func TestBlockedCards(t *testing.T) {
	s := scenarioState(t, `
players:
  - name: Ana
    hand: [glitchy-senior, glitchy-junior, merge-conflict, rust-rewrite, scrum-planning]
    limited: true
  - {name: Ben}
`)
	got := map[string]string{}
	for _, b := range BlockedCards(s, 0) {
		got[s.card(findCard(s, 0, b.Card)).ID] = b.Reason
	}
	want := map[string]string{
		"glitchy-senior": "a Senior Glitchy needs a Glitchy already in your Lab",
		"merge-conflict": "an interrupt: you play it when an opponent is about to play a Tool, and the game asks you",
		"rust-rewrite":   "Rewrite It in Rust requires a Senior or Chief Engineer Monster in your Lab",
		"scrum-planning": "Scrum Planning has the limit keyword and you already played a limit card since the start of your last turn",
	}
	for id, reason := range want {
		if got[id] != reason {
			t.Errorf("%s: %q, want %q", id, got[id], reason)
		}
	}
	if _, ok := got["glitchy-junior"]; ok || len(got) != len(want) {
		t.Errorf("blocked: %v", got)
	}
	if b := BlockedCards(s, 1); b != nil {
		t.Errorf("the other seat: %v", b)
	}
}

func findCard(s *State, seat int, inst string) string {
	for _, in := range s.Players[seat].Hand {
		if in.ID == inst {
			return in.Card
		}
	}
	return ""
}

// TestMoveWarnings: a downgrade, giving up a build and an ability that
// would only discard say what they cost; other moves say nothing.
func TestMoveWarnings(t *testing.T) {
	s := scenarioState(t, `
players:
  - name: Ana
    hand: [glitchy-junior, data-lake, mechanical-keyboard]
    lab: [glitchy-senior, boss-blob-junior]
  - {name: Ben}
build: {tools: [proof-of-concept]}
`)
	warn := map[ActionType]string{}
	for _, m := range Moves(s, 0) {
		if m.Warning != "" {
			warn[m.Type] = m.Warning
		}
	}
	for typ, want := range map[ActionType]string{
		ActPlace:    "A downgrade: your Glitchy (Senior) goes to your Recycle Bin and Glitchy (Junior) takes its place.",
		ActAbandon:  "You give up the build: its Tool goes to your Recycle Bin.",
		ActEndTurn:  "Your open build is abandoned: its Tool goes to your Recycle Bin.",
		ActActivate: "Your Recycle Bin is empty: you would discard 1 card and take nothing.",
	} {
		if warn[typ] != want {
			t.Errorf("%s: %q, want %q", typ, warn[typ], want)
		}
	}
	if len(warn) != 4 {
		t.Errorf("warnings: %v", warn)
	}
}

// TestHints: the line on how to play fits the seat's moment.
func TestHints(t *testing.T) {
	s := scenarioState(t, sentenceCards+"players:\n  - {name: ana, hand: [t-wrench, t-pizza]}\n  - {name: ben, hand: [t-veto]}\n")
	for seat, want := range map[int]string{0: "Your Action phase", 1: "It is ana’s turn", Spectator: ""} {
		v := s.View(seat)
		if got := v.Hint(v.Moves(Legal(s, seat))); !strings.HasPrefix(got, want) || want == "" && got != "" {
			t.Errorf("seat %d: %q, want %q...", seat, got, want)
		}
	}
	s = scenarioState(t, sentenceCards+"players:\n  - {name: ana, hand: [t-wrench, t-pizza]}\n  - {name: ben, hand: [t-veto]}\nsteps:\n  - {do: play_hack, card: t-pizza}\n")
	if v := s.View(1); !strings.HasPrefix(v.Hint(v.Moves(Legal(s, 1))), "An opponent is about to act") {
		t.Errorf("the window: %q", v.Hint(v.Moves(Legal(s, 1))))
	}
	if v := s.View(0); v.Hint(v.Moves(Legal(s, 0))) != "Your turn waits for ben to answer; it goes on once they have." {
		t.Errorf("the window, for its actor: %q", v.Hint(v.Moves(Legal(s, 0))))
	}
	s = scenarioState(t, sentenceCards+"players:\n  - {name: ana, hand: [t-wrench, t-pizza]}\n  - {name: ben}\nsteps:\n  - {do: play_tool, card: t-wrench}\n")
	if v := s.View(0); !strings.HasPrefix(v.Hint(v.Moves(Legal(s, 0))), "Your Software Build has 1 TECH and 0 SCI") {
		t.Errorf("a build: %q", v.Hint(v.Moves(Legal(s, 0))))
	}
}

// TestDeckDescriptions: each prebuilt deck says how it plays, with its
// counts.
func TestDeckDescriptions(t *testing.T) {
	cat := Standard()
	for _, d := range cat.Decks() {
		got := d.Describe(cat)
		if d.Description == "" || !strings.HasPrefix(got, d.Description) || !strings.Contains(got, "28 cards: 13 Tools, 7 Monsters, 3 Lab Equipment and 5 Hacks; Monsters: ") {
			t.Errorf("%s: %q", d.ID, got)
		}
	}
}

package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
)

// TestNumberedLines: over thousands of positions, every seat's lines are
// numbered from 1 without a gap, prompts' options first; a whole line is
// an action Apply accepts; a run of options of a prompt that takes several
// makes one answer that Apply accepts exactly when its count is within the
// prompt's min and max; the lines' texts are the moves' own; and no two
// turn actions, nor two options of a prompt that takes one of copies
// alike (a discard, an interrupt), read alike.
func TestNumberedLines(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	positions, options := 0, 0
	playPositions(t, 40, func(s *engine.State) {
		for _, seat := range engine.Awaiting(s) {
			moves := engine.Moves(s, seat)
			lines := engine.Numbered(moves)
			positions++
			turn := false
			said := map[string]bool{}
			alike := map[string]bool{"": true} // turn actions, and prompts whose copies are one choice
			for _, m := range moves {
				alike[m.Prompt] = m.Type != engine.ActAnswer || engine.CopiesAlike(m.Kind)
			}
			for i, l := range lines {
				if l.Whole() && alike[l.Prompt] && said[l.Prompt+"\x00"+l.Text] {
					t.Fatalf("two lines read %q", l.Text)
				}
				said[l.Prompt+"\x00"+l.Text] = l.Whole()
				if l.N != i+1 {
					t.Fatalf("line %d numbered %d", i+1, l.N)
				}
				if l.Prompt == "" {
					turn = true
				} else if turn {
					t.Fatalf("an option (line %d) after a turn action", l.N)
				}
				if l.Text == "" {
					t.Fatalf("line %d has no text", l.N)
				}
				if !l.Whole() {
					continue
				}
				acts, err := engine.Choose(lines, []int{l.N})
				if err != nil || len(acts) != 1 {
					t.Fatalf("line %d alone: %v %v", l.N, acts, err)
				}
				if _, err := engine.Apply(s.Clone(), seat, acts[0]); err != nil {
					t.Fatalf("line %d (%s): %v", l.N, l.Text, err)
				}
			}
			for _, m := range moves {
				if m.Type != engine.ActAnswer || m.Max == 1 && m.Min == 1 {
					continue
				}
				var mine []int
				for _, l := range lines {
					if l.Prompt == m.Prompt {
						mine = append(mine, l.N)
					}
				}
				if len(mine) != len(m.Options) {
					t.Fatalf("prompt %s: %d lines for %d options", m.Prompt, len(mine), len(m.Options))
				}
				k := r.IntN(len(mine) + 1)
				r.Shuffle(len(mine), func(i, j int) { mine[i], mine[j] = mine[j], mine[i] })
				acts, err := engine.Choose(lines, mine[:k])
				if k == 0 {
					if err == nil {
						t.Fatal("an empty choice is an action")
					}
					continue
				}
				options++
				if err != nil || len(acts) != 1 || len(acts[0].Choices) != k {
					t.Fatalf("prompt %s, lines %v: %v %v", m.Prompt, mine[:k], acts, err)
				}
				_, err = engine.Apply(s.Clone(), seat, acts[0])
				if ok := k >= m.Min && k <= m.Max; ok != (err == nil) {
					t.Fatalf("prompt %s (%d to %d) with %d options: %v", m.Prompt, m.Min, m.Max, k, err)
				}
			}
		}
	})
	if positions < 1000 || options < 50 {
		t.Fatalf("only %d positions and %d multi-option answers", positions, options)
	}
}

// TestChooseRefusals: what Choose refuses, and the number it names.
func TestChooseRefusals(t *testing.T) {
	lines := engine.Numbered([]engine.Move{
		{Action: engine.Action{Type: engine.ActAnswer, Prompt: "p1"}, Min: 2, Max: 2,
			Options: []engine.Option{{ID: "a", Text: "Discard A"}, {ID: "b", Text: "Discard B"}, {ID: "c", Text: "Discard C"}}},
		{Action: engine.Action{Type: engine.ActAnswer, Prompt: "p2"}, Min: 1, Max: 1,
			Options: []engine.Option{{ID: engine.Pass, Text: "Pass"}, {ID: "x", Text: "Play X"}}},
		{Action: engine.Action{Type: engine.ActEndTurn}, Text: "End your turn"},
	})
	if len(lines) != 6 || lines[5].Action.Type != engine.ActEndTurn || !lines[3].Whole() || lines[0].Whole() {
		t.Fatalf("lines %+v", lines)
	}
	good, err := engine.Choose(lines, []int{1, 3, 4, 6})
	want := []engine.Action{{Type: engine.ActAnswer, Prompt: "p1", Choices: []string{"a", "c"}},
		{Type: engine.ActAnswer, Prompt: "p2", Choices: []string{engine.Pass}}, {Type: engine.ActEndTurn}}
	if err != nil || len(good) != 3 || !slices.Equal(good[0].Choices, want[0].Choices) || good[1].Choices[0] != engine.Pass || good[2].Type != engine.ActEndTurn {
		t.Fatalf("1 3 4 6: %+v %v", good, err)
	}
	for _, c := range []struct {
		numbers []int
		n       int
	}{
		{nil, 0}, {[]int{7}, 7}, {[]int{0}, 0}, {[]int{2, 2}, 2}, {[]int{1, 6, 2}, 2}, {[]int{4, 5}, 5}, {[]int{1, 4, 2}, 2},
	} {
		_, err := engine.Choose(lines, c.numbers)
		var le *engine.LineError
		if !errors.As(err, &le) || le.N != c.n || le.Reason == "" {
			t.Errorf("%v: %v, want a LineError naming %d", c.numbers, err, c.n)
		}
	}
}

// TestDistinctDropsOnlyTwins: over thousands of positions, Distinct keeps
// every answer and the first turn action of each wording, in order, with
// every option of a prompt that takes several and the first option of
// each wording of one that takes one; and each action or option it leaves
// out does exactly what its kept twin does: the two states and event
// lists after them are the same once the two's card ids are swapped, so
// the copy a person was not offered was no other choice.
func TestDistinctDropsOnlyTwins(t *testing.T) {
	dropped, options := 0, map[engine.PromptKind]int{}
	playPositions(t, 40, func(s *engine.State) {
		for _, seat := range engine.Awaiting(s) {
			moves := engine.Moves(s, seat)
			before := fmt.Sprint(moves)
			kept := engine.Distinct(moves)
			if fmt.Sprint(moves) != before {
				t.Fatal("Distinct changed the moves it was given")
			}
			j := 0
			for i, m := range moves {
				twin := slices.IndexFunc(moves[:i], func(e engine.Move) bool {
					return m.Type != engine.ActAnswer && e.Type == m.Type && e.Text == m.Text
				})
				if twin < 0 {
					if j >= len(kept) || kept[j].Prompt != m.Prompt || kept[j].Text != m.Text || kept[j].Card != m.Card {
						t.Fatalf("move %d (%s) is not kept in order: %v", i, m.Text, kept)
					}
					if m.Type == engine.ActAnswer {
						for k, n := range checkOptions(t, s, seat, m, kept[j].Options) {
							options[k] += n
						}
					}
					j++
					continue
				}
				dropped++
				sameDoing(t, s, seat, m.Text, m.Action, moves[twin].Action, idPairs(t, m.Action, moves[twin].Action))
			}
			if j != len(kept) {
				t.Fatalf("Distinct kept %d moves, %d expected", len(kept), j)
			}
		}
	})
	if dropped == 0 || options[engine.PromptDiscard] == 0 || options[engine.PromptInterrupt] == 0 {
		t.Fatalf("%d turn actions and %v options left out: the test shows too little", dropped, options)
	}
	t.Logf("%d turn actions and %v options left out, each its twin's equal", dropped, options)
}

// checkOptions checks the options Distinct kept of the prompt m: all of
// them when it takes several; else the first of each wording, each one
// left out doing what its kept twin does. It returns how many it left out.
func checkOptions(t *testing.T, s *engine.State, seat int, m engine.Move, kept []engine.Option) map[engine.PromptKind]int {
	t.Helper()
	var want []engine.Option
	dropped := map[engine.PromptKind]int{}
	for i, o := range m.Options {
		twin := -1
		if m.Max == 1 && engine.CopiesAlike(m.Kind) {
			twin = slices.IndexFunc(m.Options[:i], func(e engine.Option) bool { return e.Text == o.Text })
		}
		if twin < 0 {
			want = append(want, o)
			continue
		}
		dropped[m.Kind]++
		k := m.Options[twin]
		answer := func(id string) engine.Action {
			return engine.Action{Type: engine.ActAnswer, Prompt: m.Prompt, Choices: []string{id}}
		}
		sameDoing(t, s, seat, o.Text, answer(o.ID), answer(k.ID), [][2]string{{o.ID, k.ID}})
	}
	if !slices.Equal(kept, want) {
		t.Fatalf("prompt %s (%d to %d): kept %v, want %v", m.Prompt, m.Min, m.Max, kept, want)
	}
	return dropped
}

// sameDoing fails unless actions a and b, applied to copies of s, leave
// the same state and events once the ids of pairs are swapped.
func sameDoing(t *testing.T, s *engine.State, seat int, text string, a, b engine.Action, pairs [][2]string) {
	t.Helper()
	sa, sb := s.Clone(), s.Clone()
	evA, errA := engine.Apply(sa, seat, a)
	evB, errB := engine.Apply(sb, seat, b)
	if errA != nil || errB != nil {
		t.Fatalf("%s: %v, %v", text, errA, errB)
	}
	if got, want := swapIDs(t, sa, evA, pairs), swapIDs(t, sb, evB, nil); got != want {
		t.Fatalf("%q left out, but it does not do what its twin does:\n%s\n%s", text, got, want)
	}
}

// idPairs pairs the card ids of two actions of one type, in order.
func idPairs(t *testing.T, a, b engine.Action) [][2]string {
	t.Helper()
	if len(a.Challenges) != len(b.Challenges) || (a.Card == "") != (b.Card == "") {
		t.Fatalf("%v and %v are worded alike but name different numbers of cards", a, b)
	}
	var out [][2]string
	if a.Card != "" && a.Card != b.Card {
		out = append(out, [2]string{a.Card, b.Card})
	}
	for i := range a.Challenges {
		if a.Challenges[i] != b.Challenges[i] {
			out = append(out, [2]string{a.Challenges[i], b.Challenges[i]})
		}
	}
	return out
}

// swapIDs is the JSON of s and events with each pair's two ids swapped,
// and each hand in one order: a hand is a set (taking a card from it
// moves its last card into the gap).
func swapIDs(t *testing.T, s *engine.State, events []engine.Event, pairs [][2]string) string {
	t.Helper()
	js, err := json.Marshal(struct {
		State  *engine.State
		Events []engine.Event
	}{s, events})
	if err != nil {
		t.Fatal(err)
	}
	out := string(js)
	for i, p := range pairs {
		hold := `"\u0000swap` + strconv.Itoa(i) + `"`
		x, y := strconv.Quote(p[0]), strconv.Quote(p[1])
		out = strings.ReplaceAll(out, x, hold)
		out = strings.ReplaceAll(out, y, x)
		out = strings.ReplaceAll(out, hold, y)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	players, _ := v["State"].(map[string]any)["players"].([]any)
	for _, p := range players {
		if hand, ok := p.(map[string]any)["hand"].([]any); ok {
			slices.SortFunc(hand, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		}
	}
	js, err = json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

// TestDigestAndNumberedFor: over thousands of positions, the digest of a
// seat's lines is the same each time they are numbered and never 0, and
// changes when a line's number, text or action does; NumberedFor gives
// Numbered's lines, takes their digest and no other; and it takes an
// email without a digest exactly when the lines read as the numbering
// before Distinct read them (prompt options, then turn actions, each move
// once).
func TestDigestAndNumberedFor(t *testing.T) {
	asBefore, otherwise := 0, 0
	playPositions(t, 40, func(s *engine.State) {
		for _, seat := range engine.Awaiting(s) {
			moves := engine.Moves(s, seat)
			lines := engine.Numbered(moves)
			d := engine.Digest(lines)
			if d == 0 || d != engine.Digest(engine.Numbered(engine.Moves(s, seat))) {
				t.Fatalf("digest %d, then %d", d, engine.Digest(engine.Numbered(engine.Moves(s, seat))))
			}
			for i := range lines {
				for _, change := range []func(*engine.Line){
					func(l *engine.Line) { l.N++ },
					func(l *engine.Line) { l.Text += "." },
					func(l *engine.Line) { l.Action.Type += "x" },
				} {
					other := slices.Clone(lines)
					change(&other[i])
					if engine.Digest(other) == d {
						t.Fatalf("line %d changed, the digest did not", i+1)
					}
				}
			}
			var old []string // the numbering before Distinct
			for _, m := range moves {
				if m.Type == engine.ActAnswer {
					for _, o := range m.Options {
						old = append(old, o.Text)
					}
				}
			}
			for _, m := range moves {
				if m.Type != engine.ActAnswer {
					old = append(old, m.Text)
				}
			}
			var now []string
			for _, l := range lines {
				now = append(now, l.Text)
			}
			for _, digest := range []uint32{d, max(d+1, 1)} {
				got, ok := engine.NumberedFor(moves, digest)
				if !reflect.DeepEqual(got, lines) || ok != (digest == d) {
					t.Fatalf("NumberedFor(digest %d) takes it: %v; lines %v, Numbered %v", digest, ok, got, lines)
				}
			}
			if _, same := engine.NumberedFor(moves, 0); same != slices.Equal(old, now) {
				t.Fatalf("NumberedFor(0) says %v; the lines were %q, are %q", same, old, now)
			} else if same {
				asBefore++
			} else {
				otherwise++
			}
		}
	})
	if asBefore == 0 || otherwise == 0 {
		t.Fatalf("%d positions numbered as before, %d otherwise: the test shows too little", asBefore, otherwise)
	}
}

// TestEndReason: the reason of a game_over event, read back from its
// text, is the one the game ended for (a seat resigning, all voting to end
// it); other events have none.
func TestEndReason(t *testing.T) {
	a, b := propDecks(t)
	newGame := func() *engine.State {
		s, _, err := engine.NewGame(engine.Setup{Seed: 7, Mode: engine.ModeFast, Players: []engine.SeatSetup{{Name: "Ana", Deck: a}, {Name: "Bob", Deck: b}}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	reasonOf := func(events []engine.Event) string {
		t.Helper()
		for _, e := range events {
			if e.Kind == engine.KindGameOver {
				return engine.EndReason(e)
			} else if r := engine.EndReason(e); r != "" {
				t.Fatalf("a %s event has the reason %q", e.Kind, r)
			}
		}
		t.Fatal("no game_over event")
		return ""
	}
	s := newGame()
	events, err := engine.Apply(s, 1, engine.Action{Type: engine.ActResign})
	if err != nil {
		t.Fatal(err)
	}
	if r := reasonOf(events); r != "only one player is left" {
		t.Fatalf("resigned: %q", r)
	}
	s = newGame()
	if _, err := engine.Apply(s, 0, engine.Action{Type: engine.ActVoteEnd}); err != nil {
		t.Fatal(err)
	}
	if events, err = engine.Apply(s, 1, engine.Action{Type: engine.ActVoteEnd}); err != nil {
		t.Fatal(err)
	}
	if r := reasonOf(events); r != "all players agreed to end it" {
		t.Fatalf("voted: %q", r)
	}
	// Events are kept as logged: a shared win logged as "Winner: ..."
	// before the plural was said reads as one logged now.
	for _, text := range []string{"The game is over (all players agreed to end it). Winner: Ana and Bob.",
		"The game is over (all players agreed to end it). Winners: Ana and Bob."} {
		if r := engine.EndReason(engine.Event{Kind: engine.KindGameOver, Text: text}); r != "all players agreed to end it" {
			t.Errorf("%q: %q", text, r)
		}
	}
}

package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScenarios runs every rule scenario under testdata/scenarios; each must
// load and meet all its expectations.
func TestScenarios(t *testing.T) {
	forEachFile(t, "testdata/scenarios/*.yaml", func(t *testing.T, data []byte) {
		res, err := RunScenario(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, fl := range res.Failures {
			t.Error(fl)
		}
		if res.State == nil {
			return
		}
		checkInvariants(t, res.State)
		// Same file, same result: scenarios are deterministic.
		again, err := RunScenario(data)
		if err != nil {
			t.Fatal(err)
		}
		if again.State.Hash() != res.State.Hash() {
			t.Error("running the scenario twice gave different final states")
		}
	})
}

// TestScenariosThatMustFail runs the files under testdata/bad: each holds a
// wrong expectation (or a broken file) and the runner must report it. The
// first line of each file is "# want: TEXT", a substring of the failure or
// error the runner must give.
func TestScenariosThatMustFail(t *testing.T) {
	forEachFile(t, "testdata/bad/*.yaml", func(t *testing.T, data []byte) {
		first, _, _ := strings.Cut(string(data), "\n")
		want, ok := strings.CutPrefix(first, "# want: ")
		if !ok {
			t.Fatalf("first line must be '# want: TEXT', got %q", first)
		}
		res, err := RunScenario(data)
		var got string
		switch {
		case err != nil:
			got = err.Error()
		case !res.Failed():
			t.Fatal("the scenario passed; it must fail")
		default:
			var msgs []string
			for _, fl := range res.Failures {
				msgs = append(msgs, fl.String())
			}
			got = strings.Join(msgs, "\n")
		}
		if !strings.Contains(got, want) {
			t.Errorf("failure does not mention %q:\n%s", want, got)
		}
	})
}

// checkInvariants checks what must hold in any state: every instance id is
// unique, and the views hold no seed and no other seat's hand.
func checkInvariants(t *testing.T, s *State) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range s.Cards() {
		if seen[c.ID] {
			t.Errorf("instance id %s appears twice", c.ID)
		}
		seen[c.ID] = true
	}
	for seat := -1; seat < len(s.Players); seat++ {
		v := s.View(seat)
		for other := range s.Players {
			if other == seat {
				continue
			}
			for _, in := range s.Players[other].Hand {
				for _, cv := range append(append(v.Hand, v.Bin...), flatten(v)...) {
					if cv.ID == in.ID {
						t.Errorf("seat %d's view shows seat %d's hand card %s", seat, other, in.ID)
					}
				}
			}
		}
	}
}

func flatten(v *View) []CardView {
	var out []CardView
	for _, p := range v.Players {
		out = append(out, p.Lab...)
		out = append(out, p.Ranking...)
	}
	out = append(out, v.Market...)
	return out
}

// TestScenarioReportsEveryWrongExpectation checks that each kind of
// expectation fails, with a message naming the step, the fact, what was
// expected and what was found.
func TestScenarioReportsEveryWrongExpectation(t *testing.T) {
	const doc = `
name: everything wrong
cards:
  - {id: t-a, name: Card A, type: hack, effects: [{trigger: play, do: [{op: draw, n: 1}]}]}
  - {id: t-veto, name: Veto, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: play_tool, do: [{op: cancel}]}]}
  - {id: t-wrench, name: Wrench, type: tool, tech: 1}
  - {id: t-ch1, name: Small Project, type: challenge, tech: 1, points: 1}
  - {id: t-eq, name: Gadget, type: lab_equipment}
players:
  - {name: Ana, hand: [t-wrench, t-a], deck: [t-a], bin: [t-a], lab: [t-eq], ranking: [t-ch1]}
  - {name: Ben, hand: [t-veto]}
market: [t-ch1]
challenge_deck: [t-ch1]
steps:
  - do: play_tool
    card: t-wrench
    expect:
      phase: draw
      active: 1
      turn: 9
      over: true
      winners: [1]
      awaiting: [0]
      market: [t-a]
      market_count: 2
      challenge_deck_count: 5
      challenges: {basic: 9, hard: 1}
      global: [t-a]
      shared_deck_count: 3
      shared_bin: [t-a]
      shared_bin_count: 3
      build: {open: false, tech: 7, sci: 7, tools: [t-a]}
      window: {open: false, on: claim, actor: 1, seats: [0], answered: [1]}
      queued: 4
      seats:
        0:
          hand: [t-wrench]
          hand_has: [t-veto]
          hand_lacks: [t-a]
          hand_count: 9
          deck: [t-wrench]
          deck_has: [t-veto]
          deck_count: 9
          bin: [t-veto]
          bin_has: [t-veto]
          bin_count: 9
          lab: []
          lab_has: [t-a]
          lab_lacks: [t-eq]
          lab_count: 9
          ranking: []
          ranking_count: 9
          score: 9
          limited: true
          resigned: true
          voted_end: true
          prompt_count: 3
        1:
          prompts: [{kind: discard, min: 2, max: 2, event: claim, actor: 1, text: nope, options: [t-a]}]
        7: {hand_count: 1}
      events:
        - {kind: drew, seat: 1, card: t-a, cards: [t-a], n: 3, target: 1, on: claim, seats: [1], scores: [1], text: nope, hidden: true}
        - {kind: played, not: true}
      visible:
        - {seat: 0, has: [nothing-like-this], lacks: [t-wrench]}
      legal:
        - {seat: 1, has: [end_turn], lacks: [answer interrupt], count: 7}
  - seat: 1
    answer: pass
    expect:
      seats:
        1: {prompts: [{kind: interrupt}]}
  - do: end_turn
    expect:
      error: not_your_turn
`
	res, err := RunScenario([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"step 1: phase: expected draw, found action",
		"step 1: active seat: expected 1, found 0",
		"step 1: turn: expected 9, found 1",
		"step 1: game over: expected true, found false",
		"step 1: winners: expected [1], found []",
		"step 1: awaiting: expected [0], found [1]",
		"step 1: market: expected [t-a], found [t-ch1]",
		"step 1: market count: expected 2, found 1",
		"step 1: challenge deck count: expected 5, found 1",
		"step 1: basic challenges: expected 9, found 3",
		"step 1: hard challenges: expected 1, found 0",
		"step 1: global zone: expected [t-a], found []",
		"step 1: shared deck count: expected 3, found 0",
		"step 1: shared bin: expected [t-a], found []",
		"step 1: shared bin count: expected 3, found 0",
		"step 1: build open: expected false, found true",
		"step 1: build TECH: expected 7, found 0",
		"step 1: build SCI: expected 7, found 0",
		"step 1: build tools: expected [t-a], found []",
		"step 1: interrupt window open: expected false, found true",
		"step 1: interrupt window event: expected claim, found play_tool",
		"step 1: interrupt window actor: expected 1, found 0",
		"step 1: interrupt window seats: expected [0], found [1]",
		"step 1: interrupt window answered: expected [1], found []",
		"step 1: queued actions: expected 4, found 0",
		"step 1: seat 0 hand: expected [t-wrench], found [t-a]",
		"step 1: seat 0 hand: expected to hold t-veto, found [t-a]",
		"step 1: seat 0 hand: expected not to hold t-a, found [t-a]",
		"step 1: seat 0 hand count: expected 9, found 1",
		"step 1: seat 0 deck (top first): expected [t-wrench], found [t-a]",
		"step 1: seat 0 deck: expected to hold t-veto, found [t-a]",
		"step 1: seat 0 deck count: expected 9, found 1",
		"step 1: seat 0 Recycle Bin: expected [t-veto], found [t-a]",
		"step 1: seat 0 Recycle Bin: expected to hold t-veto, found [t-a]",
		"step 1: seat 0 Recycle Bin count: expected 9, found 1",
		"step 1: seat 0 Lab: expected [], found [t-eq]",
		"step 1: seat 0 Lab: expected to hold t-a, found [t-eq]",
		"step 1: seat 0 Lab: expected not to hold t-eq, found [t-eq]",
		"step 1: seat 0 Lab count: expected 9, found 1",
		"step 1: seat 0 Ranking: expected [], found [t-ch1]",
		"step 1: seat 0 Ranking count: expected 9, found 1",
		"step 1: seat 0 score: expected 9, found 1",
		"step 1: seat 0 limited: expected true, found false",
		"step 1: seat 0 resigned: expected true, found false",
		"step 1: seat 0 voted to end: expected true, found false",
		"step 1: seat 0 open prompts: expected 3, found 0",
		"step 1: seat 1 prompt 1 kind: expected discard, found interrupt",
		"step 1: seat 1 prompt 1 min: expected 2, found 1",
		"step 1: seat 1 prompt 1 max: expected 2, found 1",
		"step 1: seat 1 prompt 1 actor: expected 1, found 0",
		"step 1: seat 1 prompt 1 event: expected claim, found play_tool",
		`step 1: seat 1 prompt 1 text: expected containing "nope", found`,
		"step 1: seat 1 prompt 1 options: expected [t-a], found [pass (Pass), ",
		"step 1: seat 7: expected a seat of the game, found 2 seats",
		"step 1: events: expected an event {kind=drew seat=1 card=t-a cards=[t-a] n=3 target=1 on=claim seats=[1] scores=[1] text~=\"nope\" hidden} (in order), found played(seat 0 card t-wrench)",
		`step 1: events: expected no event {kind=played}, found {"kind":"played"`,
		`step 1: what seat 0 sees: expected the view to show "nothing-like-this", found it does not`,
		`step 1: what seat 0 sees: expected the view not to show "t-wrench", found it does`, // the window shows the Tool about to be played
		`step 1: what seat 0 sees: expected the step's events not to show "t-wrench", found they do`,
		`step 1: legal actions of seat 1: expected to include "end_turn", found [answer interrupt]`,
		`step 1: legal actions of seat 1: expected not to include "answer interrupt", found [answer interrupt]`,
		"step 1: legal actions of seat 1 count: expected 7, found 1",
		"step 2: seat 1 open prompts: expected 1 prompts, found no prompts",
		"step 3: error: expected an error \"not_your_turn\", found the action was accepted",
	}
	var got []string
	for _, f := range res.Failures {
		got = append(got, f.String())
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			if strings.HasPrefix(g, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("no failure %q", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d failures, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
}

// TestScenarioSetupErrors checks that a position that cannot exist is
// refused with a message naming the problem.
func TestScenarioSetupErrors(t *testing.T) {
	const cards = `
cards:
  - {id: t-a, name: Card A, type: hack, effects: [{trigger: play, do: [{op: draw, n: 1}]}]}
  - {id: t-eq, name: Gadget, type: lab_equipment}
  - {id: t-ch1, name: Small Project, type: challenge, tech: 1, points: 1}
  - {id: t-veto, name: Veto, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: play_tool, do: [{op: cancel}]}]}
`
	two := "players:\n  - {name: Ana}\n  - {name: Ben}\n"
	for _, tc := range []struct{ doc, want string }{
		{"players: [{name: Ana}, {name: Ben}]\nmode: slow\n", `mode "slow"`},
		{"players: [{name: Ana}, {name: Ben}]\npolicy: loud\n", `policy "loud"`},
		{"players: [{name: Ana}, {name: Ben}]\nactive: 2\n", "active seat 2 of 2"},
		{"players: [{name: Ana}, {name: Ben}]\nphase: over\n", `phase "over"`},
		{"players: [{name: Ana, lab: [t-a]}, {name: Ben}]\n", "seat 0 lab: t-a is a Hack"},
		{"players: [{name: Ana, hand: [t-ch1]}, {name: Ben}]\n", "seat 0 hand: t-ch1 is a Challenge"},
		{"players: [{name: Ana}, {name: Ben}]\nmarket: [t-a]\n", "market: t-a is a Hack"},
		{"players: [{name: Ana}, {name: Ben}]\nglobal: [{card: t-a, owner: 5}]\n", "global t-a: owner 5"},
		{"players: [{name: Ana}, {name: Ben}]\nbuild: {tools: [t-eq]}\n", "build: t-eq is a Lab Equipment"},
		{"office: true\nplayers: [{name: Ana, deck: [t-a]}, {name: Ben}]\n", "uses shared_deck and shared_bin"},
		{"players: [{name: Ana, used: [t-eq]}, {name: Ben}]\n", "used: t-eq is not in the Lab"},
		{"players: [{name: Ana, standing: {plays: [{on: claim, card: t-veto}]}}, {name: Ben}]\n", "does not answer claim"},
		{"players: [{name: Ana, deck_list: [nope]}, {name: Ben}]\n", `deck_list: unknown card "nope"`},
		{"setup: {players: [{name: Ana, deck: no-such-pack}]}\n", `no prebuilt deck "no-such-pack"`},
		{"setup: {players: [{name: Ana}, {name: Ben}]}\n" + two, "exclude each other"},
		{"cards:\n  - {id: scrum-planning, name: Dup, type: hack, effects: [{trigger: play, do: [{op: draw, n: 1}]}]}\n" + two, "defined twice"},
	} {
		doc := tc.doc
		if !strings.HasPrefix(doc, "cards:") {
			doc = cards + doc
		}
		_, err := RunScenario([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.doc, err, tc.want)
		}
	}
}

// TestScenarioPositionRoundTrip checks that a written position is a state
// like any other: it serializes and restores without loss.
func TestScenarioPositionRoundTrip(t *testing.T) {
	data, err := os.ReadFile("testdata/scenarios/window_sealed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunScenario(data)
	if err != nil || res.Failed() {
		t.Fatal(err, res.Failures)
	}
	raw, err := res.State.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	if back.Hash() != res.State.Hash() {
		t.Error("a scenario state does not survive a JSON round trip")
	}
	if len(back.Extra) == 0 {
		t.Error("inline cards were not kept in the state")
	}
}

// TestScenariosLeakNoHiddenCard replays every rule scenario and, after the
// setup and after each step, checks every seat's view and the step's
// events as that seat sees them (and a spectator's) for the instance id of
// any card hidden from it: another seat's hand or Recycle Bin, any
// Laboratory Deck (its owner's too), the Challenge Deck, the shared Recycle
// Bin, and cards set aside by an effect. Ids are re-keyed through hidden
// zones, so none may show.
func TestScenariosLeakNoHiddenCard(t *testing.T) {
	forEachFile(t, "testdata/scenarios/*.yaml", func(t *testing.T, data []byte) {
		sc, err := ParseScenario(data)
		if err != nil {
			t.Fatal(err)
		}
		_, err = sc.run(func(step int, s *State, events []Event) {
			for seat := -1; seat < len(s.Players); seat++ {
				hidden := hiddenFrom(s, seat)
				view, _ := json.Marshal(s.View(seat))
				evs, _ := json.Marshal(EventsFor(events, seat))
				for id, where := range hidden {
					if bytes.Contains(view, []byte(id)) {
						t.Errorf("step %d: seat %d's view shows %s (%s)", step, seat, id, where)
					}
					if bytes.Contains(evs, []byte(id)) {
						t.Errorf("step %d: seat %d's events show %s (%s)", step, seat, id, where)
					}
				}
			}
		})
		if err != nil && !strings.Contains(err.Error(), "setup") {
			// Scenarios expecting a setup error have no state to check.
			return
		}
	})
}

// hiddenFrom maps the instance ids seat may not see to where they are.
func hiddenFrom(s *State, seat int) map[string]string {
	out := map[string]string{}
	add := func(where string, pile []Inst) {
		for _, in := range pile {
			out[in.ID] = where + " " + in.Card
		}
	}
	for i := range s.Players {
		p := &s.Players[i]
		add(fmt.Sprintf("seat %d deck", i), p.Deck)
		if i != seat {
			add(fmt.Sprintf("seat %d hand", i), p.Hand)
			add(fmt.Sprintf("seat %d Recycle Bin", i), p.Bin)
		}
	}
	add("shared deck", s.SharedDeck)
	add("shared Recycle Bin", s.SharedBin)
	add("Challenge Deck", s.ChallengeDeck)
	for _, t := range s.Stack {
		if t.Seat != seat {
			add("set aside", t.Held)
		}
	}
	return out
}

// forEachFile runs f as a parallel subtest on each file matching pattern,
// and fails if none matches.
func forEachFile(t *testing.T, pattern string, f func(t *testing.T, data []byte)) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no files match %s", pattern)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f(t, data)
		})
	}
}

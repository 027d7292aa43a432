package play_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/play/commandtest"
)

// position is the table's game.
func position(t testing.TB) *engine.State { return positionAt(t, commandtest.Position) }

// positionAt is a scenario (of the table, or a test's own), set up.
func positionAt(t testing.TB, scenario string) *engine.State {
	t.Helper()
	res, err := engine.RunScenario([]byte(scenario))
	if err != nil || res.Failed() {
		t.Fatalf("the position: %v %v", err, res)
	}
	return res.State
}

// resolve reads and resolves text for Ana, numbers naming the lines of
// the position.
func resolve(st *engine.State, text string) (*play.Reading, *play.Plan, error) {
	rd, err := play.ReadCommands(text)
	if err != nil {
		return nil, nil, err
	}
	lines := engine.Numbered(engine.Moves(st, 0))
	plan, err := play.Resolve(st, 0, lines, rd)
	return rd, plan, err
}

// TestCommandTable runs the command language's table: each text plays
// exactly its moves, skips exactly its chatter, or is refused at its step
// with its reason, and its position is never changed.
func TestCommandTable(t *testing.T) {
	t.Parallel()
	states := map[string]*engine.State{}
	hashes := map[string]string{}
	for _, sc := range commandtest.Positions {
		states[sc] = positionAt(t, sc)
		hashes[sc] = states[sc].Hash()
	}
	for _, tc := range commandtest.Cases {
		st := states[tc.Scenario()]
		rd, plan, err := resolve(st, tc.Text)
		if tc.Err != "" {
			var ce *play.CommandError
			if !errors.As(err, &ce) || !strings.Contains(ce.Reason, tc.Err) || ce.Step != tc.Step {
				t.Errorf("%s: %q: error %#v, want step %d %q", tc.Name, tc.Text, err, tc.Step, tc.Err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %q: %v", tc.Name, tc.Text, err)
			continue
		}
		if !slices.Equal(plan.Texts, tc.Played) {
			t.Errorf("%s: %q plays\n  %s\nwant\n  %s", tc.Name, tc.Text, strings.Join(plan.Texts, "\n  "), strings.Join(tc.Played, "\n  "))
		}
		if skipped := play.Skipped(rd, plan); !slices.Equal(skipped, tc.Skipped) {
			t.Errorf("%s: %q skips %q, want %q", tc.Name, tc.Text, skipped, tc.Skipped)
		}
		// The plan applies as one batch to the position, as the play path
		// submits it.
		if _, _, i, err := engine.ApplyBatch(st, 0, plan.Actions); err != nil {
			t.Errorf("%s: the plan fails at action %d: %v", tc.Name, i, err)
		}
	}
	for sc, st := range states {
		if st.Hash() != hashes[sc] {
			t.Fatalf("resolving changed the position %.60q", sc)
		}
	}
}

// TestRefusalListsTheStepsMoves: a refusal at a later step lists the
// moves of that step, in words, and never a card the seat has not seen:
// Growth Hacking Script draws a card, which no word may name.
func TestRefusalListsTheStepsMoves(t *testing.T) {
	t.Parallel()
	st := position(t)
	_, _, err := resolve(st, "play frontend framework\nplay open source library\nclaim spam filter")
	var ce *play.CommandError
	if !errors.As(err, &ce) || ce.Step != 3 || ce.Command != "claim spam filter" {
		t.Fatalf("%#v", err)
	}
	if !slices.Contains(ce.Moves, "Play Rapid Prototype (TECH 1, SCI 2) into your build (TECH 4, SCI 1 so far)") ||
		slices.ContainsFunc(ce.Moves, func(m string) bool { return strings.Contains(m, "Frontend") || strings.HasPrefix(m, "Claim") }) {
		t.Fatalf("the moves at step 3: %q", ce.Moves)
	}
	// A card drawn in the plan is not named: the deck's top card is Data
	// Lake, which a plan that draws must not reveal.
	st = positionAt(t, `
players:
  - {name: Ana, hand: [growth-hacking-script, rapid-prototype], lab: [glitchy-junior], deck: [data-lake, proof-of-concept]}
  - {name: Ben}
market: [landing-page]
challenge_deck: [spam-filter]
`)
	for _, text := range []string{"play growth hacking\nplay data lake", "play growth hacking\nplay proof"} {
		_, _, err = resolve(st, text)
		if !errors.As(err, &ce) || ce.Step != 2 || !strings.Contains(ce.Reason, "no move at this step reads") {
			t.Fatalf("%q: %#v", text, err)
		}
		if slices.ContainsFunc(ce.Moves, func(m string) bool { return strings.Contains(m, "Data Lake") }) ||
			!slices.Contains(ce.Moves, "(and any moves with the card you have not seen yet)") {
			t.Fatalf("%q: the moves at step 2 tell the drawn card: %q", text, ce.Moves)
		}
	}
}

// TestRefusalAtAQuestionNotSeen: Scrum Planning asks Ana to take one of
// her deck's top three cards, which no reply written before may name. A
// reply that goes on past it is refused with what to do instead: the
// question, how many cards it hides, and to send the steps before it on
// their own. No card of the three is named.
func TestRefusalAtAQuestionNotSeen(t *testing.T) {
	t.Parallel()
	st := positionAt(t, `
players:
  - {name: Ana, hand: [scrum-planning, glitchy-junior], deck: [data-lake, proof-of-concept, growth-hacking-script, rapid-prototype]}
  - {name: Ben}
market: [landing-page]
challenge_deck: [spam-filter]
`)
	lineOf := func(text string) int {
		for _, l := range engine.Numbered(engine.Moves(st, 0)) {
			if strings.HasPrefix(l.Text, text) {
				return l.N
			}
		}
		t.Fatalf("no line %q", text)
		return 0
	}
	const first = `the question "Scrum Planning: take one of the top 3 cards of your Laboratory Deck; the rest go to the bottom" must be answered first`
	for _, tc := range []struct{ text, before, reason string }{
		{"play scrum\nend", "send step 1 on its own", "ending your turn is not among your moves at this step: " + first},
		{"place glitchy\nplay scrum\nplay rapid", "send steps 1 to 2 on their own", `no move at this step reads "play rapid"`},
		// By number, lines of the email answered: the engine refuses them,
		// and the refusal quotes them as the list did (the second play of
		// Scrum Planning no longer words itself: the card left the hand).
		{fmt.Sprintf("play scrum\n%d", lineOf("Place Glitchy")), "send step 1 on its own",
			"Place Glitchy (Junior) in your Lab is not possible at this step: " + first},
		{fmt.Sprintf("play scrum\n%d", lineOf("Play Scrum")), "send step 1 on its own",
			"Play Scrum Planning: look at the top 3 cards of your Laboratory Deck, put one into your hand and the rest on the bottom, then draw 1 card is not possible at this step: " + first},
	} {
		_, _, err := resolve(st, tc.text)
		var ce *play.CommandError
		if !errors.As(err, &ce) || ce.Step != strings.Count(tc.text, "\n")+1 {
			t.Fatalf("%q: %#v", tc.text, err)
		}
		if ce.Reason != tc.reason {
			t.Errorf("%q: %q, want %q", tc.text, ce.Reason, tc.reason)
		}
		if len(ce.Moves) != 1 || !strings.HasPrefix(ce.Moves[0], `answer "Scrum Planning: take one of the top 3 cards`) ||
			!strings.Contains(ce.Moves[0], "its 3 options are cards not shown to you yet") || !strings.Contains(ce.Moves[0], tc.before) {
			t.Errorf("%q: the moves at step %d: %q", tc.text, ce.Step, ce.Moves)
		}
		for _, name := range []string{"Data Lake", "Proof of Concept", "Growth Hacking", "Rapid Prototype", "(and any"} {
			if slices.ContainsFunc(ce.Moves, func(m string) bool { return strings.Contains(m, name) }) {
				t.Errorf("%q: the moves name %q: %q", tc.text, name, ce.Moves)
			}
		}
	}
}

// TestRefusalAtAQuestionPartlySeen: Ana passes on Ben's Hack; Ben had
// ended his turn along, so her turn begins and its draw puts her over the
// hand limit. Her "end" is refused at that step: the moves list the
// discards of the cards she knows and count the two she drew among the
// question's options, in words that cannot be read as the two cards the
// question discards.
func TestRefusalAtAQuestionPartlySeen(t *testing.T) {
	t.Parallel()
	st := positionAt(t, `
players:
  - {name: Ana, hand: [red-tape, glitchy-junior, scrum-planning, cloud-credits, data-lake, open-source-library], deck: [merge-conflict, proof-of-concept, rapid-prototype]}
  - {name: Ben, hand: [audit-season]}
active: 1
steps:
  - batch:
      - {do: play_hack, card: audit-season}
      - {do: end_turn}
`)
	_, _, err := resolve(st, "pass\nend")
	var ce *play.CommandError
	if !errors.As(err, &ce) || ce.Step != 2 {
		t.Fatalf("%#v", err)
	}
	if len(ce.Moves) != 7 || ce.Moves[0] != "Discard Red Tape" ||
		ce.Moves[6] != `answer "Hand limit: discard 2 cards to keep 6" once you see all its options: 2 of its 8 options are cards not shown to you yet, so send step 1 on its own and the answer shows them` {
		t.Errorf("the moves at step 2: %q", ce.Moves)
	}
	for _, name := range []string{"Merge Conflict", "Proof of Concept", "Rapid Prototype", "(and any"} {
		if slices.ContainsFunc(ce.Moves, func(m string) bool { return strings.Contains(m, name) }) {
			t.Errorf("the moves name %q: %q", name, ce.Moves)
		}
	}
}

// TestEndWhenNothingWaits: Ana answers Ben's Hack with Red Tape (or
// passes), which may draw her a card, then writes "end", as the email's
// example does ("1 4 end"). At that step nothing waits for her, whatever
// the card: the last "end" is skipped as a sign-off and her answer
// stands, rather than costing a round trip. An "end" with commands after
// it is refused, saying whose turn it is and listing no move, not even
// one with the card she has not seen; "end" alone answers nothing.
func TestEndWhenNothingWaits(t *testing.T) {
	t.Parallel()
	st := positionAt(t, `
players:
  - {name: Ana, hand: [red-tape], deck: [merge-conflict, data-lake]}
  - {name: Ben, hand: [audit-season]}
active: 1
steps: [{do: play_hack, card: audit-season}]
`)
	for _, tc := range []struct{ text, move string }{
		{"play red tape\nend", "Play Red Tape: cancel it, then draw 1 card"},
		{"play red tape end", "Play Red Tape: cancel it, then draw 1 card"},
		{"pass end", "Pass"},
		{"1 end", "Pass"},
		{"2\nend\nThanks!", "Play Red Tape: cancel it, then draw 1 card"},
	} {
		_, plan, err := resolve(st, tc.text)
		if err != nil {
			t.Errorf("%q: %v", tc.text, err)
			continue
		}
		if !slices.Equal(plan.Texts, []string{tc.move}) || len(plan.SignOffs) == 0 || plan.SignOffs[0] != "end" {
			t.Errorf("%q: moves %q, skipped %q", tc.text, plan.Texts, plan.SignOffs)
		}
	}
	for _, text := range []string{"play red tape\nend\nplace data lake", "pass\nend\nend\n2"} {
		_, _, err := resolve(st, text)
		var ce *play.CommandError
		if !errors.As(err, &ce) || ce.Step != 2 {
			t.Fatalf("%q: %#v", text, err)
		}
		if ce.Reason != "nothing waits for you at this step: it is Ben's turn" || len(ce.Moves) != 0 {
			t.Errorf("%q: %q, moves %q", text, ce.Reason, ce.Moves)
		}
	}
	// "end" alone is no answer to the window.
	var ce *play.CommandError
	if _, _, err := resolve(st, "end"); !errors.As(err, &ce) || ce.Step != 1 || len(ce.Moves) != 2 {
		t.Errorf("\"end\" alone: %v", err)
	}
}

// TestPlanThroughAWindow: a place that Ben may answer with Hiring Freeze
// opens a window in the middle of the plan; the words after it resolve as
// if Ben passes, and the play path's batch holds them until he answers.
func TestPlanThroughAWindow(t *testing.T) {
	t.Parallel()
	st := positionAt(t, `
players:
  - {name: Ana, hand: [glitchy-junior, rapid-prototype, open-source-library, frontend-framework]}
  - {name: Ben, hand: [hiring-freeze]}
market: [landing-page]
challenge_deck: [spam-filter]
`)
	_, plan, err := resolve(st, "place glitchy\nplay front\nplay rapid\nplay open\nclaim landing page\nend")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Actions) != 6 {
		t.Fatalf("%q", plan.Texts)
	}
	next, events, _, err := engine.ApplyBatch(st, 0, plan.Actions)
	if err != nil || next.Queue == nil || len(next.Queue.Actions) != 5 || !slices.ContainsFunc(events, func(e engine.Event) bool { return e.Kind == "queued" }) {
		t.Fatalf("the batch: %v, queue %+v", err, next.Queue)
	}
	p := next.Prompts[0]
	if _, err := engine.Apply(next, 1, engine.Action{Type: engine.ActAnswer, Prompt: p.ID, Choices: []string{engine.Pass}}); err != nil {
		t.Fatal(err)
	}
	if next.Queue != nil || len(next.Players[0].Ranking) != 1 || next.Active != 1 {
		t.Fatalf("after Ben passes: queue %+v, ranking %v, active %d", next.Queue, next.Players[0].Ranking, next.Active)
	}
}

// TestOwnPromptAnsweredInThePlan: a move that asks the seat a question is
// answered by the next command, by the words of an option.
func TestOwnPromptAnsweredInThePlan(t *testing.T) {
	t.Parallel()
	st := position(t)
	_, plan, err := resolve(st, "place glitchy junior\nkeep\nend")
	var ce *play.CommandError
	if err == nil || !errors.As(err, &ce) || ce.Step != 2 {
		t.Fatalf("\"keep\" alone names no option: %v %v", plan, err)
	}
	lines := ce.Moves
	if len(lines) != 2 {
		t.Fatalf("the question's options: %q", lines)
	}
	_, plan, err = resolve(st, "place glitchy junior\n"+strings.ToLower(lines[1])+"\nend")
	if err != nil || len(plan.Actions) != 3 || plan.Actions[1].Type != engine.ActAnswer {
		t.Fatalf("%v %v", plan, err)
	}
	next, _, _, err := engine.ApplyBatch(st, 0, plan.Actions)
	if err != nil || next.Queue != nil || next.Active != 1 {
		t.Fatalf("the answer in the batch was queued behind its own question: %v, queue %+v, active %d", err, next.Queue, next.Active)
	}
}

// TestSignOffBesideAControl: words that name no move beside a command
// that stands alone (resign, vote end) or help are a sign-off, skipped;
// beside a move they would be resolved, so a control with a move still
// refuses the reply.
func TestSignOffBesideAControl(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text    string
		control play.Control
		help    bool
		skipped []string
	}{
		{"resign\nTake care", play.ControlResign, false, []string{"Take care"}},
		{"Thanks, vote end\nlet me know when you can", play.ControlVoteEnd, false, []string{"Thanks", "let me know when you can"}},
		{"help\nkeep it up", play.NoControl, true, []string{"keep it up"}},
	} {
		rd, err := play.ReadCommands(tc.text)
		if err != nil || rd.Control != tc.control || rd.Help != tc.help || rd.Moves() || !slices.Equal(rd.Skipped, tc.skipped) {
			t.Errorf("%q: %v, control %v, help %v, moves %v, skipped %q", tc.text, err, rd.Control, rd.Help, rd.Moves(), rd.Skipped)
		}
	}
	if _, err := play.ReadCommands("resign\nplay rapid prototype"); err == nil || !strings.Contains(err.Error(), "goes alone") {
		t.Errorf("a resignation beside a move: %v", err)
	}
}

// FuzzCommands: any text, on each of the table's positions, gives a plan
// or a *CommandError, never a panic; a plan applies as a batch; no
// position is ever changed.
func FuzzCommands(f *testing.F) {
	for _, tc := range commandtest.Cases {
		f.Add(tc.Text)
	}
	for _, s := range []string{"1 4 end", "discard 2 5", "none", "5,,,;;7", strings.Repeat("1 ", 400), "\x00\xff", "claim ćache",
		"1-999", "0", "00003", "join", "resign\n1", "help", "board, 3", "vote end", "x when draw", "9999999999999999999",
		"1-5", "discard 1, pass, 3", "2\npass\npass", "pass\n1 3", "discard data, discard data", "play hiring freeze\npass",
		"resign\nTake care", "3\ntake care\nlet me know when", "take care, 4"} {
		f.Add(s)
	}
	var states []*engine.State
	var hashes []string
	for _, sc := range commandtest.Positions {
		st := positionAt(f, sc)
		states, hashes = append(states, st), append(hashes, st.Hash())
	}
	f.Fuzz(func(t *testing.T, text string) {
		for k, st := range states {
			_, plan, err := resolve(st, text)
			if err != nil {
				var ce *play.CommandError
				if !errors.As(err, &ce) {
					t.Fatalf("position %d: error %T %v", k, err, err)
				}
			} else {
				if len(plan.Actions) != len(plan.Texts) {
					t.Fatalf("position %d: %d actions, %d texts", k, len(plan.Actions), len(plan.Texts))
				}
				if len(plan.Actions) > 0 {
					if _, _, i, err := engine.ApplyBatch(st, 0, plan.Actions); err != nil {
						t.Fatalf("position %d: %q: the plan fails at %d: %v", k, text, i, err)
					}
				}
			}
			if st.Hash() != hashes[k] {
				t.Fatalf("position %d: resolving changed the position", k)
			}
		}
	})
}

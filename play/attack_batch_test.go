package play_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/play/commandtest"
)

// The attacks on a whole turn in one message (DESIGN.md §9): a text of
// commands resolves one command after another, all or nothing.

// TestAttackBatchOddNumbers: numbers written in other digits than 0-9 (a
// phone's full-width "２", Arabic-Indic "٢") name a line as surely as "2"
// does; they are refused, never skipped as a sign-off while the commands
// before them are played: that would play part of a turn.
func TestAttackBatchOddNumbers(t *testing.T) {
	t.Parallel()
	st := position(t)
	hash := st.Hash()
	for _, text := range []string{"3\n２", "3\n٢", "3, ２", "3\n4\n６", "play rapid\n٣", "２", "3\n２\n\nThanks"} {
		_, plan, err := resolve(st, text)
		var ce *play.CommandError
		if !errors.As(err, &ce) {
			t.Errorf("%q: played %q, skipped %q; want a refusal", text, planTexts(plan), planSkipped(plan))
			continue
		}
		if ce.Command == "" || ce.Line == 0 {
			t.Errorf("%q: the refusal names no command: %#v", text, ce)
		}
	}
	// Numbers that are no line, and signs around them, are refused and
	// name what is at fault.
	for _, tc := range []struct{ text, command string }{
		{"0", "0"}, {"3\n0", "3"}, {"-1", "-1"}, {"99999999999999999999", "99999999999999999999"}, {"3\n#2", "#2"},
		{"3 3", "3 3"}, {"3\n3", "3"}, {"3, 6, 3", "3"}, {"2.5", "2.5"}, {"1-99", "1-99"}, {"9999", "9999"},
	} {
		_, plan, err := resolve(st, tc.text)
		var ce *play.CommandError
		if !errors.As(err, &ce) || ce.Command != tc.command {
			t.Errorf("%q: %v %v, want a refusal of %q", tc.text, planTexts(plan), err, tc.command)
		}
	}
	// "2." at a sentence's end, separators of any kind, CRLF and tabs.
	for _, text := range []string{"3\n4\n6", "3, 4, 6", "3;4;6", "3\r\n4\r\n6\r\n", "3\t4\t6", " 3 ;  4 ,6 ", "3.\n4.\n6."} {
		_, plan, err := resolve(st, text)
		if err != nil || len(plan.Actions) != 3 || plan.Actions[2].Type != engine.ActEndTurn {
			t.Errorf("%q: %v %v", text, planTexts(plan), err)
		}
	}
	if st.Hash() != hash {
		t.Fatal("resolving changed the position")
	}
}

func planTexts(p *play.Plan) []string {
	if p == nil {
		return nil
	}
	return p.Texts
}

func planSkipped(p *play.Plan) []string {
	if p == nil {
		return nil
	}
	return p.SignOffs
}

// TestAttackBatchAcrossTheTurn: commands after the end of the turn, by
// number or by words, would be moves in the opponent's turn: refused at
// their step, never played for another seat; the same card twice in one
// text is refused at its second play.
func TestAttackBatchAcrossTheTurn(t *testing.T) {
	t.Parallel()
	st := position(t)
	for _, tc := range []struct {
		text string
		step int
	}{
		{"6\n3", 2}, {"end\n3", 2}, {"3\nend\nplay rapid", 3}, {"end\nend\n3", 2}, {"end\npass", 2}, {"end\nalways pass\n4", 3},
		{"3\nplay front", 2}, {"play front\nplay front", 2}, {"4\n4", 1},
	} {
		_, plan, err := resolve(st, tc.text)
		var ce *play.CommandError
		if !errors.As(err, &ce) || ce.Step != tc.step {
			t.Errorf("%q: %v %#v, want a refusal at step %d", tc.text, planTexts(plan), err, tc.step)
			continue
		}
		// Nothing of Ben's (his hand, his deck) nor of Ana's deck is told.
		for _, hidden := range []string{"Data Lake", "Proof of Concept", "Design System"} {
			if strings.Contains(fmt.Sprint(ce.Moves, ce.Reason), hidden) {
				t.Errorf("%q: the refusal tells %q: %s %q", tc.text, hidden, ce.Reason, ce.Moves)
			}
		}
	}
	// An "end" that ends the text after the turn's end ends nothing of
	// Ben's: it is skipped.
	if _, plan, err := resolve(st, "end\nend"); err != nil || len(plan.Actions) != 1 || plan.Actions[0].Type != engine.ActEndTurn ||
		!slices.Equal(plan.SignOffs, []string{"end"}) {
		t.Errorf("\"end\\nend\": %v %v, skipped %q", planTexts(plan), err, planSkipped(plan))
	}
}

// TestAttackBatchLongTexts: a text longer than the language reads, a line
// longer than it reads: refused whole, naming the line.
func TestAttackBatchLongTexts(t *testing.T) {
	t.Parallel()
	st := position(t)
	long := strings.Repeat("3\n", play.MaxCommandLines+1)
	if _, _, err := resolve(st, long); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("%d lines: %v", play.MaxCommandLines+1, err)
	}
	var ce *play.CommandError
	if _, _, err := resolve(st, "3\nplay rapid prototype"+strings.Repeat(" ", 400)+"x"); !errors.As(err, &ce) || ce.Line != 2 {
		t.Errorf("a long line: %#v", err)
	}
}

// TestAttackBatchTooManyMoves: commas put many commands on a line, so a
// text of commands may name far more moves than a batch holds (MaxBatch,
// which Submit enforces), and standing answers are moves that are always
// legal. A text is refused past MaxBatch moves, naming the command; a
// standing play named again adds nothing, so that batches after batches
// do not grow the seat's standing answers without end.
func TestAttackBatchTooManyMoves(t *testing.T) {
	t.Parallel()
	st := position(t)
	line := strings.TrimSuffix(strings.Repeat("always pass, ", 20), ", ")
	text := strings.TrimSuffix(strings.Repeat(line+"\n", 5), "\n") // 100 moves
	_, plan, err := resolve(st, text)
	var ce *play.CommandError
	if !errors.As(err, &ce) || ce.Step != play.MaxBatch+1 || ce.Command != "always pass" || ce.Line != 3 {
		t.Fatalf("%d moves in one text: %d planned, %#v", 100, len(planTexts(plan)), err)
	}
	_, plan, err = resolve(st, "hiring freeze when place, hiring freeze when place\nplay hiring freeze when place")
	if err != nil {
		t.Fatal(err)
	}
	if last := plan.Actions[len(plan.Actions)-1]; len(last.Standing.Plays) != 1 {
		t.Fatalf("the same standing play three times: %+v", last.Standing.Plays)
	}
}

// batchGame stores the table's position (commandtest.Position, Ana's
// turn) in a started game of svc, and returns the game's id, Ana and
// the version.
func batchGame(t *testing.T, st *models.Store, svc *play.Service) (int64, *models.User, int64) {
	t.Helper()
	id, ana, _, res := startedGame(t, st, svc)
	res.Done()
	pos := position(t)
	g, err := st.Mutate(context.Background(), id, func(g *models.Game) (*models.Change, error) {
		data, err := pos.Marshal()
		g.State, g.Version = data, g.Version+1
		for i := range g.Seats {
			g.Seats[i].Awaited = i == 0
		}
		return &models.Change{}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id, ana, g.Version
}

// stored is what a refused batch must leave as it was: the version, the
// action log and the events.
func stored(t *testing.T, st *models.Store, id int64) string {
	t.Helper()
	ctx := context.Background()
	g, err := st.GameNoState(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	acts, err := st.Actions(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := st.EventsAfter(ctx, id, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("v%d, %d actions, %d events", g.Version, len(acts), len(evs))
}

// TestAttackBatchAllOrNothing: command batches through the play path
// (SubmitCommands) that fail at a late command, that name more moves than
// a batch holds, or that are stale leave the game, its action log and its
// events as they were, and name the command at fault; a batch of standing
// plays sent again and again does not grow the seat's standing answers.
func TestAttackBatchAllOrNothing(t *testing.T) {
	eachLobbyDB(t, func(t *testing.T, st *models.Store, svc *play.Service) {
		ctx := context.Background()
		id, ana, v := batchGame(t, st, svc)
		before := stored(t, st, id)
		refused := func(name string, commands []string, command string) {
			t.Helper()
			_, _, err := svc.SubmitCommands(ctx, id, ana.ID, v, commands, nil)
			var ce *play.CommandError
			if !errors.As(err, &ce) || (command != "" && ce.Command != command) {
				t.Errorf("%s: %#v, want a refusal of %q", name, err, command)
			}
			if now := stored(t, st, id); now != before {
				t.Errorf("%s: the refused batch left %s, was %s", name, now, before)
			}
		}
		refused("a late command fails", []string{"3", "4", "5", "claim spam filter", "end"}, "claim spam filter")
		refused("a number after the end", []string{"3", "6", "4"}, "4")
		refused("other digits", []string{"3", "２"}, "２")
		many := slices.Repeat([]string{strings.TrimSuffix(strings.Repeat("always pass, ", 20), ", ")}, 5)
		refused("more moves than a batch holds", many, "always pass")
		if _, _, err := svc.SubmitCommands(ctx, id, ana.ID, v-1, []string{"3"}, nil); !errors.As(err, new(*play.StaleVersionError)) {
			t.Errorf("a stale batch: %v", err)
		}
		for range 3 {
			res, _, err := svc.SubmitCommands(ctx, id, ana.ID, v, slices.Repeat([]string{"hiring freeze when place, merge conflict when tool"}, 10), nil)
			if err != nil {
				t.Fatal(err)
			}
			plays := res.State.Players[0].Standing.Plays
			v = res.Game.Version
			res.Done()
			if len(plays) != 2 {
				t.Fatalf("after batches of the same two standing plays, %d are stored", len(plays))
			}
		}
	})
}

// TestAttackBatchAtOnce: the same batch, and different batches, for the
// same version at once: exactly one is applied, the others are stale, and
// the log holds the moves of the one.
func TestAttackBatchAtOnce(t *testing.T) {
	eachLobbyDB(t, func(t *testing.T, st *models.Store, svc *play.Service) {
		ctx := context.Background()
		id, ana, v := batchGame(t, st, svc)
		batches := [][]string{{"3", "4", "5", "claim landing", "end"}, {"3", "4", "5", "claim landing", "end"}, {"2", "end"}, {"4", "6"}, {"1"}, {"3, 4, 5, claim landing, end"}}
		var wg sync.WaitGroup
		errs := make([]error, len(batches))
		for i, b := range batches {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, _, err := svc.SubmitCommands(ctx, id, ana.ID, v, b, nil)
				if err == nil {
					res.Done()
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		won := -1
		for i, err := range errs {
			switch {
			case err == nil && won >= 0:
				t.Fatalf("batches %d and %d were both applied", won, i)
			case err == nil:
				won = i
			case !errors.As(err, new(*play.StaleVersionError)):
				t.Errorf("batch %d: %v", i, err)
			}
		}
		if won < 0 {
			t.Fatal("no batch was applied")
		}
		acts, err := st.Actions(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		for _, a := range acts {
			if a.Version > v {
				n++
				if a.Version != v+1 || a.Seat != 0 {
					t.Errorf("an action of version %d seat %d", a.Version, a.Seat)
				}
			}
		}
		rd, _ := play.ReadCommands(strings.Join(batches[won], "\n"))
		plan, err := play.Resolve(positionAt(t, commandtest.Position), 0, engine.Numbered(engine.Moves(position(t), 0)), rd)
		if err != nil || n != len(plan.Actions) {
			t.Fatalf("the log holds %d actions of the batch %q, which plans %v %v", n, batches[won], planTexts(plan), err)
		}
	})
}

package play_test

import (
	"context"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
)

// TestEventsKeptAndCurrent: Events gives the last play.RecentEvents
// events of a game, or its whole log, as the store holds them, whoever
// made them: the changes of the service that keeps the log (added to it
// as they are made) and those of another service on the same store (a
// second process, read when a caller asks up to their seq).
func TestEventsKeptAndCurrent(t *testing.T) {
	ctx := context.Background()
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		st := modelstest.Open(t, d, models.Options{})
		here, there := play.New(st, nil, nil), play.New(st, nil, nil)
		id, ana, bob, _ := startedGame(t, st, here)
		users := map[int]int64{0: ana.ID, 1: bob.ID}
		// same checks that the kept log is the store's last events.
		same := func(step int, seq int64) {
			t.Helper()
			got, err := here.Events(ctx, id, seq, false)
			if err != nil {
				t.Fatal(err)
			}
			all, err := here.Events(ctx, id, 0, true)
			if err != nil {
				t.Fatal(err)
			}
			want := all[max(0, len(all)-play.RecentEvents):]
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("step %d: %d events kept, want the last %d of %d", step, len(got), len(want), len(all))
			}
			for i := range got {
				if got[i].Seq != want[i].Seq || got[i].Text != want[i].Text || got[i].Kind != want[i].Kind {
					t.Fatalf("step %d: event %d is %d %q, the store's %d %q", step, i, got[i].Seq, got[i].Text, want[i].Seq, want[i].Text)
				}
			}
		}
		for step := range 30 {
			var version, seq int64
			var seat int
			var a engine.Action
			err := here.Read(ctx, id, ana.ID, func(g *models.Game, _ int, s *engine.State) error {
				version, seq, seat = g.Version, g.EventSeq, engine.Awaiting(s)[0]
				a = engine.Legal(s, seat)[0]
				if ps := engine.PromptsFor(s, seat); len(ps) > 0 {
					a = engine.Action{Type: engine.ActAnswer, Prompt: ps[0].ID, Choices: ps[0].Default()}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			same(step, seq)
			by := here
			if step%3 == 2 {
				by = there // a change the kept log does not see made
			}
			res, err := by.Submit(ctx, id, users[seat], &version, []engine.Action{a}, nil)
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			res.Done()
			if res.Game.Status != models.StatusActive {
				break
			}
		}
	})
}

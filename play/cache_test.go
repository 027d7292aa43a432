package play_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
)

// TestReadersAtOnceEachHoldTheirOwnState: readers of one game at the same
// moment never share an engine state (a change could write into a state a
// reader still reads), and once each has put back the state it decoded,
// the next readers at once take one each: a read costs its one statement,
// the game's row, and decodes no snapshot. After a change, the readers
// read its version.
func TestReadersAtOnceEachHoldTheirOwnState(t *testing.T) {
	ctx := context.Background()
	for _, d := range modelstest.Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			st := modelstest.Open(t, d, models.Options{})
			svc := play.New(st, nil, nil)
			id, ana, bob, _ := startedGame(t, st, svc)
			count := st.CountStatementsForTest()
			const readers = 3
			// together reads the game as ana and bob at once, each read
			// holding its state until all have theirs; it returns the
			// states held, the versions read and the statements spent.
			together := func() ([]*engine.State, []int64, int64) {
				t.Helper()
				var arrived, wg sync.WaitGroup
				arrived.Add(readers)
				states, versions := make([]*engine.State, readers), make([]int64, readers)
				errs := make([]error, readers)
				before := count()
				for i := range readers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						uid := ana.ID
						if i%2 == 1 {
							uid = bob.ID
						}
						errs[i] = svc.Read(ctx, id, uid, func(g *models.Game, _ int, s *engine.State) error {
							states[i], versions[i] = s, g.Version
							arrived.Done()
							arrived.Wait()
							return nil
						})
					}()
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						t.Fatal(err)
					}
				}
				return states, versions, count() - before
			}
			distinct := func(round string, states []*engine.State) {
				t.Helper()
				for i := range states {
					for j := range i {
						if states[i] == states[j] {
							t.Fatalf("%s: readers %d and %d held the same state", round, j, i)
						}
					}
				}
			}
			first, _, _ := together() // whatever the start left, some decode
			distinct("first readers", first)
			again, versions, spent := together()
			distinct("next readers", again)
			for i, s := range again {
				if !slices.Contains(first, s) {
					t.Errorf("next reader %d decoded the snapshot again: its state is none the first readers put back", i)
				}
			}
			if spent != readers {
				t.Errorf("%d readers at once spent %d statements, want %d (one each: no snapshot read)", readers, spent, readers)
			}
			// A change moves the game on: the readers after it read its
			// version.
			g, seat, err := svc.Game(ctx, id, ana.ID)
			if err != nil {
				t.Fatal(err)
			}
			who := ana.ID
			if !g.Seats[seat].Awaited {
				who = bob.ID
			}
			if _, err := svc.Submit(ctx, id, who, &g.Version, []engine.Action{{Type: engine.ActEndTurn}}, nil); err != nil {
				t.Fatal(err)
			}
			after, now, _ := together()
			distinct("readers after a change", after)
			for i, v := range now {
				if v != versions[0]+1 {
					t.Errorf("reader %d read version %d after the change, want %d", i, v, versions[0]+1)
				}
			}
		})
	}
}

package play_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

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
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
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

// TestReadAtAfterAChange: after a change, a read that holds the game's
// reference (the API's GET) finds the row and state the change left and
// makes no query, and gets what Read gets, for each player; once the
// deadline moves without a new version, it reads the row again.
func TestReadAtAfterAChange(t *testing.T) {
	ctx := context.Background()
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		st := modelstest.Open(t, d, models.Options{})
		svc := play.New(st, nil, nil)
		id, ana, bob, _ := startedGame(t, st, svc)
		g, seat, err := svc.Game(ctx, id, ana.ID)
		if err != nil {
			t.Fatal(err)
		}
		who := ana.ID
		if !g.Seats[seat].Awaited {
			who = bob.ID
		}
		res, err := svc.Submit(ctx, id, who, &g.Version, []engine.Action{{Type: engine.ActEndTurn}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		count := st.CountStatementsForTest()
		type read struct {
			game     string // the exported fields
			deadline string
			snapshot string
			seat     int
			view     string
		}
		// readAt reads as uid through its reference, and says how
		// many statements the read spent past the reference's.
		readAt := func(uid int64, at bool) (read, int64) {
			t.Helper()
			ref, err := svc.Ref(ctx, id, uid, "")
			if err != nil {
				t.Fatal(err)
			}
			var r read
			var spent int64
			before := count()
			fn := func(g *models.Game, seat int, s *engine.State) error {
				spent = count() - before
				view, err := json.Marshal(s.View(seat))
				if err != nil {
					return err
				}
				snap, err := g.Snapshot() // read anew: the row does not keep it
				r = read{exported(t, g), fmt.Sprint(g.DeadlineAt), string(snap), seat, string(view)}
				return err
			}
			if at {
				err = svc.ReadAt(ctx, ref, id, uid, fn)
			} else {
				err = svc.Read(ctx, id, uid, fn)
			}
			if err != nil {
				t.Fatal(err)
			}
			return r, spent
		}
		for _, uid := range []int64{ana.ID, bob.ID} {
			got, spent := readAt(uid, true)
			if spent != 0 {
				t.Errorf("user %d: ReadAt after the change spent %d statements, want 0", uid, spent)
			}
			if want, _ := readAt(uid, false); !reflect.DeepEqual(got, want) {
				t.Errorf("user %d: ReadAt gave\n%+v\nwhere Read gives\n%+v", uid, got, want)
			}
		}
		// The clock moves the deadline; the version stays.
		if g, _, err = svc.Game(ctx, id, ana.ID); err != nil || g.DeadlineAt == nil {
			t.Fatalf("%v, deadline %v", err, g.DeadlineAt)
		}
		later := g.DeadlineAt.Add(time.Hour)
		if ok, err := st.ExtendDeadline(ctx, id, *g.DeadlineAt, later, later, ""); err != nil || !ok {
			t.Fatalf("extend: %v %v", ok, err)
		}
		got, spent := readAt(ana.ID, true)
		if spent == 0 || got.deadline != fmt.Sprint(&later) {
			t.Errorf("after the deadline moved: deadline %s with %d statements, want %v read anew", got.deadline, spent, later)
		}
		if again, spent := readAt(ana.ID, true); spent != 0 || !reflect.DeepEqual(again, got) {
			t.Errorf("the row read anew is not kept: %d statements", spent)
		}
	})
}

// exported is g's exported fields by name, seats included, in JSON (an
// instant's location aside).
func exported(t *testing.T, g *models.Game) string {
	t.Helper()
	out := map[string]any{}
	v := reflect.ValueOf(g).Elem()
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && f.Name != "State" {
			out[f.Name] = v.Field(i).Interface()
		}
	}
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

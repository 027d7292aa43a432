package models_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestChangesWithEndingContexts: changes of one game whose deadlines pass
// at random moments (before the BEGIN and lock are sent, while they are,
// while the write, its job and its COMMIT are) leave the game whole: each
// committed version has its one event and its one job, none without the
// other, every change reported done is among them, no session stays in a
// transaction, and the pool's next changes succeed.
func TestChangesWithEndingContexts(t *testing.T) {
	done, failed, stored := endingChanges(t, func(ctx context.Context, r *rand.Rand) (context.Context, context.CancelFunc) {
		// From at once to a few changes' time in (the others hold the
		// game's lock meanwhile).
		return context.WithTimeout(ctx, time.Duration(r.IntN(20000))*time.Microsecond)
	})
	if len(failed) == 0 {
		t.Fatal("no deadline passed during a change: the test tries nothing")
	}
	if stored < done {
		t.Fatalf("%d versions stored, fewer than the %d changes reported done", stored, done)
	}
}

// TestChangesWhoseCallersHangUp: a change whose caller's context is
// cancelled (a client that hangs up) once the change has begun runs to
// its end: every change is stored exactly when it is reported done, so a
// caller is never told "failed" of a change that was made; one cancelled
// before it began is not made, and says so.
func TestChangesWhoseCallersHangUp(t *testing.T) {
	var early int
	var mu sync.Mutex
	done, failed, stored := endingChanges(t, func(ctx context.Context, r *rand.Rand) (context.Context, context.CancelFunc) {
		c, cancel := context.WithCancel(ctx)
		if r.IntN(8) == 0 {
			cancel() // gone before the change begins
			mu.Lock()
			early++
			mu.Unlock()
		} else {
			time.AfterFunc(time.Duration(r.IntN(20000))*time.Microsecond, cancel)
		}
		return c, cancel
	})
	// A timer may also fire before its change begins.
	if stored != done || len(failed) < early {
		t.Fatalf("%d changes reported done, %d stored; %d failed, %d cancelled before they began",
			done, stored, len(failed), early)
	}
	for _, err := range failed {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a change that began failed: %v", err)
		}
	}
}

// endingChanges runs changes of one game, 8 workers at once, with a job
// each held back as River's, every other one under a context from ending,
// the others under a context that does not end; it checks what both tests
// check and returns how many changes were reported done (the ones after
// them included), the errors of those that failed, and how many versions
// are stored.
func endingChanges(t *testing.T, ending func(ctx context.Context, r *rand.Rand) (context.Context, context.CancelFunc)) (done int, failed []error, stored int) {
	t.Helper()
	st := modelstest.Open(t, models.Postgres, models.Options{})
	ctx := context.Background()
	heldJobs(t, st)
	a, b := newUser(t, st, "tau"), newUser(t, st, "ups")
	g := newGame(t, st, a, b)
	st.SetOutbox(heldOutbox{})
	step := func(cur *models.Game) (*models.Change, error) {
		cur.Version++
		return &models.Change{Events: []models.EventRecord{{Body: `{"kind":"a"}`}}}, nil
	}

	const workers, each = 8, 40
	var mu sync.Mutex
	var versions []int64 // the versions of the changes reported done
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for range each {
				c, cancel := context.WithCancel(ctx)
				ends := r.IntN(2) == 0
				if ends {
					c, cancel = ending(ctx, r)
				}
				got, err := st.Mutate(c, g.ID, step)
				cancel()
				mu.Lock()
				switch {
				case err == nil:
					versions = append(versions, got.Version)
				case ends: // however it is put (a dial cut short is "unavailable")
					failed = append(failed, err)
				default:
					t.Errorf("a change whose context did not end: %v", err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d changes done, %d ended with their context", len(versions), len(failed))

	db, err := st.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	app := ""
	if err := db.QueryRowContext(ctx, `SELECT current_setting('application_name')`).Scan(&app); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := modelstest.Backends(db, app, `state LIKE 'idle in transaction%'`)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still in a transaction", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for range 2 * workers { // more than the pool keeps idle: every connection is tried
		if _, err := st.Mutate(ctx, g.ID, step); err != nil {
			t.Fatalf("a change after the ended ones: %v", err)
		}
	}

	cur, err := st.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	committed := int(cur.Version - g.Version)
	events, err := st.EventsAfter(ctx, g.ID, 0, 10*workers*each)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != committed {
		t.Fatalf("version moved by %d, with %d events", committed, len(events))
	}
	var jobs []int64
	rows, err := db.QueryContext(ctx, `SELECT version FROM held_jobs ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(jobs) != committed || jobs[0] != g.Version+1 || jobs[len(jobs)-1] != cur.Version {
		t.Fatalf("jobs for versions %d..%d (%d), want %d..%d", jobs[0], jobs[len(jobs)-1], len(jobs), g.Version+1, cur.Version)
	}
	for _, v := range versions {
		if _, found := slices.BinarySearch(jobs, v); !found {
			t.Fatalf("version %d was reported done and is not stored", v)
		}
	}
	t.Logf("%d versions stored", committed)
	return len(versions) + 2*workers, failed, committed
}

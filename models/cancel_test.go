package models_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestChangesWithEndingContexts: changes of one game whose contexts end
// at random moments (a client that hangs up, a deadline that passes:
// before the BEGIN and lock are sent, while they are, while the write,
// its job and its COMMIT are) leave the game whole: each committed
// version has its one event and its one job, none without the other,
// every change reported done is among them, no session stays in a
// transaction, and the pool's next changes succeed.
func TestChangesWithEndingContexts(t *testing.T) {
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
	var done []int64 // the versions of the changes reported done
	failed := 0
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for range each {
				// Every other change runs its course; the others end from
				// at once to a few changes' time in (the others hold the
				// game's lock meanwhile).
				c, cancel := context.WithCancel(ctx)
				if r.IntN(2) == 0 {
					c, cancel = context.WithTimeout(ctx, time.Duration(r.IntN(20000))*time.Microsecond)
				}
				got, err := st.Mutate(c, g.ID, step)
				cancel()
				mu.Lock()
				if err == nil {
					done = append(done, got.Version)
				} else {
					failed++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d changes done, %d ended with their context", len(done), failed)
	if failed == 0 {
		t.Fatal("no context ended during a change: the test tries nothing")
	}

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
	for _, v := range done {
		if _, found := slices.BinarySearch(jobs, v); !found {
			t.Fatalf("version %d was reported done and is not stored", v)
		}
	}
	t.Logf("%d versions stored", committed)
	if committed < len(done)+2*workers {
		t.Fatalf("%d versions stored, fewer than the %d changes reported done", committed, len(done)+2*workers)
	}
}

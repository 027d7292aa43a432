package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestMutateReadsSeatsAfterTheLock queues 8 changes of one game behind a
// lock held elsewhere, each adding one to seat 1's timeouts and moving the
// awaited seat on, and lets them run one after the other (in any order):
// each must read the seats as the change before it wrote them, so that
// none is lost. It
// does so for each way a change reads the game: Mutate, MutateCached (with
// the game's version or another, without and with an outbox, which reads
// the seats' users too), MutateKeyed reading an access token's check along
// and GameForUpdate.
func TestMutateReadsSeatsAfterTheLock(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		a, b := newUser(t, st, "kim"), newUser(t, st, "lou")
		for _, outbox := range []models.Outbox{nil, nopOutbox{}} {
			st.SetOutbox(outbox)
			seatsAfterLock(t, st, newGame(t, st, a, b))
		}
	})
}

type nopOutbox struct{}

func (nopOutbox) GameChanged(context.Context, models.OutboxTx, models.GameChange) error { return nil }

func seatsAfterLock(t *testing.T, st *models.Store, g *models.Game) {
	ctx := context.Background()
	step := func(cur *models.Game) (*models.Change, error) {
		cur.Version++
		cur.Seats[1].Timeouts++
		cur.Seats[0].Awaited, cur.Seats[1].Awaited = !cur.Seats[0].Awaited, !cur.Seats[1].Awaited
		return &models.Change{}, nil
	}
	tok := &models.TokenCheck{UserID: *g.Seats[0].UserID, Verify: func(gen int64, live bool) error {
		if gen != 0 || !live {
			return fmt.Errorf("token check read generation %d, live %v", gen, live)
		}
		return nil
	}}
	ways := []func() error{
		func() error { _, err := st.Mutate(ctx, g.ID, step); return err },
		func() error { _, err := st.MutateCached(ctx, g.ID, g.Version, step); return err },
		func() error { _, err := st.MutateCached(ctx, g.ID, -1, step); return err },
		func() error { // reading an access token's check along (see TokenCheck)
			_, err := st.MutateKeyed(ctx, g.ID, -1, models.Key{}, tok, step)
			return err
		},
		func() error {
			return st.Begin(ctx, func(tx models.OutboxTx) error {
				cur, err := tx.Store.GameForUpdate(ctx, g.ID)
				if err != nil {
					return err
				}
				if _, err := step(cur); err != nil {
					return err
				}
				return tx.Store.ExecForTest(ctx, `UPDATE seats SET timeouts = ?, awaited = ? WHERE game_id = ? AND seat_no = 1`,
					cur.Seats[1].Timeouts, cur.Seats[1].Awaited, g.ID)
			})
		},
	}
	const n = 8
	gate := modelstest.HoldGame(t, st, g.ID)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := ways[i%len(ways)](); err != nil {
				t.Error(err)
			}
		}()
	}
	gate.Wait(n) // briefly: a transaction with a lock keeps TestAwaitRunning waiting
	gate.Release()
	wg.Wait()
	got, err := st.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Seats[1].Timeouts != n || got.Seats[1].Awaited != (n%2 == 1) {
		t.Fatalf("after %d changes seat 1 has %d timeouts, awaited %v: changes read stale seats",
			n, got.Seats[1].Timeouts, got.Seats[1].Awaited)
	}
}

// heldOutbox writes a job row for each change, held back as River's
// insert is (models.Deferred).
type heldOutbox struct{}

// heldJobs makes heldOutbox's table on st.
func heldJobs(t *testing.T, st *models.Store) {
	t.Helper()
	if err := st.ExecForTest(context.Background(), `CREATE TABLE held_jobs (version bigint PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
}

func (heldOutbox) GameChanged(ctx context.Context, tx models.OutboxTx, c models.GameChange) error {
	_, err := tx.Tx.ExecContext(models.Deferred(ctx), `INSERT INTO held_jobs VALUES ($1)`, c.Game.Version)
	return err
}

// TestChangeRoundTrips: a change of a game, with a job its outbox writes,
// makes two round trips to Postgres: BEGIN with the lock, and the write
// with the job and the COMMIT (five before BEGIN waited for the lock, the
// job for the write, and the COMMIT went with it).
func TestChangeRoundTrips(t *testing.T) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	ctx := context.Background()
	heldJobs(t, st)
	a, b := newUser(t, st, "rho"), newUser(t, st, "sig")
	g := newGame(t, st, a, b)
	for _, outbox := range []models.Outbox{nil, heldOutbox{}} {
		st.SetOutbox(outbox)
		for _, cached := range []bool{false, true} {
			counted, trips := models.CountRoundTripsForTest(ctx)
			step := func(cur *models.Game) (*models.Change, error) {
				cur.Version++
				return &models.Change{Events: []models.EventRecord{{Body: `{"kind":"a"}`}}}, nil
			}
			var err error
			if cached {
				_, err = st.MutateCached(counted, g.ID, 0, step)
			} else {
				_, err = st.Mutate(counted, g.ID, step)
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := trips(); n != 2 {
				t.Errorf("outbox %T, cached %v: %d round trips, want 2", outbox, cached, n)
			}
		}
	}
	got, err := st.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.ExecForTest(ctx, `DO $$ BEGIN IF (SELECT count(*) FROM held_jobs) <> 2 THEN RAISE 'jobs'; END IF; END $$`); err != nil {
		t.Fatalf("the outbox's jobs: %v", err)
	}
	if got.Version != g.Version+4 {
		t.Fatalf("version %d, want %d", got.Version, g.Version+4)
	}
}

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

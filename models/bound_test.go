package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestStoreDeadlinesAreUnavailable: when the database does not answer
// within a deadline the store set itself (a change whose caller set none,
// a batch of games' references), the error is ErrUnavailable (a 503 with
// Retry-After at the API), not a bare "deadline exceeded" that reads as
// the server's own fault; and nothing is changed. A deadline the caller
// set stays the caller's, and a refusal the change's own.
func TestStoreDeadlinesAreUnavailable(t *testing.T) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	ctx := context.Background()
	a, b := newUser(t, st, "ela"), newUser(t, st, "fynn")
	g := newGame(t, st, a, b)
	const bound = 300 * time.Millisecond
	st.BoundForTest(bound)
	step := func(cur *models.Game) (*models.Change, error) {
		cur.Version++
		return &models.Change{}, nil
	}

	gate := modelstest.HoldGame(t, st, g.ID) // the database does not answer the change's lock
	start := time.Now()
	_, err := st.Mutate(ctx, g.ID, step)
	if !errors.Is(err, models.ErrUnavailable) {
		t.Fatalf("a change past the store's own deadline: %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d < bound {
		t.Fatalf("refused after %v, before the deadline of %v", d, bound)
	}
	theirs, cancel := context.WithTimeout(ctx, bound)
	_, err = st.Mutate(theirs, g.ID, step)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, models.ErrUnavailable) {
		t.Fatalf("a change past its caller's deadline: %v, want that deadline's error", err)
	}
	gate.Release()
	// A refusal of the change's own that comes as the deadline passes
	// stays that refusal.
	refused := errors.New("refused")
	_, err = st.Mutate(ctx, g.ID, func(*models.Game) (*models.Change, error) {
		time.Sleep(bound + 50*time.Millisecond)
		return nil, refused
	})
	if !errors.Is(err, refused) || errors.Is(err, models.ErrUnavailable) {
		t.Fatalf("a refusal past the deadline: %v, want it as it was", err)
	}
	if cur, err := st.Game(ctx, g.ID); err != nil || cur.Version != g.Version {
		t.Fatalf("after the refused changes: version %d (%v), want %d", cur.Version, err, g.Version)
	}
	if _, err := st.Mutate(ctx, g.ID, step); err != nil {
		t.Fatalf("a change once the database answers: %v", err)
	}

	// A batch of references, under the batch's own deadline, while a
	// transaction holds the games table.
	if _, ok := st.HoldRefBatchesForTest(nil, 0); !ok {
		t.Fatal("no batches on Postgres")
	}
	tx := modelstest.Begin(t, st)
	if _, err := tx.ExecContext(ctx, `LOCK TABLE games IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GameRef(ctx, g.ID, a.ID, ""); !errors.Is(err, models.ErrUnavailable) {
		t.Fatalf("a batched reference past the batch's deadline: %v, want ErrUnavailable", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if ref, err := st.GameRef(ctx, g.ID, a.ID, ""); err != nil || ref.Version != g.Version+1 {
		t.Fatalf("a reference once the database answers: %+v, %v", ref, err)
	}
}

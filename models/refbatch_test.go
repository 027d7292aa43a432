package models_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// refQuestion is one GameRef read: a game (or none), a user (or none)
// and the session the access token names.
type refQuestion struct {
	game, user int64
	session    string
}

// TestGameRefBatchAnswers: reads sent at once, held back so that they go
// in batches, answer each what the read on its own answers: a seat or
// none, a private game of others, no such game, no such user, a live, an
// ended and an unknown session, and none.
func TestGameRefBatchAnswers(t *testing.T) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	ctx := context.Background()
	ana, bob, cy := newUser(t, st, "ana"), newUser(t, st, "bob"), newUser(t, st, "cy")
	g := newGame(t, st, ana, bob)
	pub := newGame(t, st, bob)
	if err := st.ExecForTest(ctx, `UPDATE games SET public = true, deadline_at = ? WHERE id = ?`, time.Now().Add(time.Hour), pub.ID); err != nil {
		t.Fatal(err)
	}
	exp := time.Now().Add(time.Hour)
	for _, f := range []string{"ana-live", "ana-ended", "bob-live"} {
		user := ana.ID
		if f == "bob-live" {
			user = bob.ID
		}
		if err := st.CreateRefreshToken(ctx, user, f, []byte(f), exp); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.RevokeRefreshFamily(ctx, []byte("ana-ended")); err != nil {
		t.Fatal(err)
	}
	var qs []refQuestion
	for _, game := range []int64{g.ID, pub.ID, 999999} {
		for _, user := range []int64{ana.ID, bob.ID, cy.ID, 999999} {
			for _, session := range []string{"", "ana-live", "ana-ended", "bob-live", "nobody's"} {
				qs = append(qs, refQuestion{game, user, session})
			}
		}
	}
	want := make([]string, len(qs))
	for i, q := range qs {
		want[i] = refAnswer(st.GameRefOneForTest(ctx, q.game, q.user, q.session))
	}
	// The first batch waits until every other read has queued, so that
	// they go in full batches after it.
	release := make(chan struct{})
	var sizes []int
	var mu sync.Mutex
	queued, ok := st.HoldRefBatchesForTest(func(n int) error {
		mu.Lock()
		first := len(sizes) == 0
		sizes = append(sizes, n)
		mu.Unlock()
		if first {
			<-release
		}
		return nil
	}, 0)
	if !ok {
		t.Fatal("a Postgres store sends no GameRef reads in batches")
	}
	got := make([]string, len(qs))
	var wg sync.WaitGroup
	for i, q := range qs {
		wg.Go(func() { got[i] = refAnswer(st.GameRef(ctx, q.game, q.user, q.session)) })
	}
	awaitQueued(t, queued, len(qs)-1)
	close(release)
	wg.Wait()
	for i, q := range qs {
		if got[i] != want[i] {
			t.Errorf("game %d, user %d, session %q: in a batch %s, alone %s", q.game, q.user, q.session, got[i], want[i])
		}
	}
	// 1 read, then the 59 others in one batch (at most 64 a batch).
	if len(sizes) != 2 || sizes[0] != 1 || sizes[1] != len(qs)-1 {
		t.Errorf("batches of %v, want [1 %d]", sizes, len(qs)-1)
	}
	if want[0] == want[len(want)-1] {
		t.Fatalf("the questions ask nothing: %s", want[0])
	}
}

// oneSeatGame is a Postgres store with a game whose one seat is ana's.
func oneSeatGame(t *testing.T) (*models.Store, *models.User, *models.Game) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	ana := newUser(t, st, "ana")
	return st, ana, newGame(t, st, ana)
}

// awaitQueued waits until n reads wait for a batch.
func awaitQueued(t *testing.T, queued func() int, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); queued() < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d reads queued", queued(), n)
		}
	}
}

// refAnswer is a GameRef read's answer as text, to compare.
func refAnswer(r models.GameRef, err error) string {
	if err != nil {
		return "error " + err.Error()
	}
	deadline := "none"
	if r.DeadlineAt != nil {
		deadline = r.DeadlineAt.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("version %d public %v seat %d deadline %s gen %d live %v", r.Version, r.Public, r.Seat, deadline, r.TokenGen, r.SessionLive)
}

// TestGameRefBatchSeesCommitted: a read that starts after a change or a
// logout committed sees it, while other reads of the same game by the
// same user with the same sessions keep batches under way all the time
// (a read must not join a batch, nor take an answer, whose query was
// sent before it came).
func TestGameRefBatchSeesCommitted(t *testing.T) {
	st, ana, g := oneSeatGame(t)
	ctx := context.Background()
	st.HoldRefBatchesForTest(nil, 0) // in batches at any pace
	const changes = 40
	session := func(v int64) string { return fmt.Sprintf("session-%d", v) }
	for v := g.Version + 1; v <= g.Version+changes; v++ {
		if err := st.CreateRefreshToken(ctx, ana.ID, session(v), []byte(session(v)), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var busy sync.WaitGroup
	for k := range int64(8) {
		busy.Go(func() {
			for n := k; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := st.GameRef(ctx, g.ID, ana.ID, session(g.Version+1+n%changes)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	defer func() { close(stop); busy.Wait() }()
	for v := g.Version + 1; v <= g.Version+changes; v++ {
		if _, err := st.Mutate(ctx, g.ID, func(g *models.Game) (*models.Change, error) {
			g.Version = v
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.RevokeRefreshFamily(ctx, []byte(session(v))); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if r, err := st.GameRef(ctx, g.ID, ana.ID, session(v)); err != nil || r.Version != v || r.SessionLive {
					t.Errorf("read after version %d and the logout of its session committed: version %d, live %v, %v",
						v, r.Version, r.SessionLive, err)
				}
			})
		}
		wg.Wait()
	}
}

// TestGameRefBatchGivenUp: a read whose request ends while it waits for
// a batch returns the request's error at once; the others of its batch
// are answered, and later reads too.
func TestGameRefBatchGivenUp(t *testing.T) {
	st, ana, g := oneSeatGame(t)
	ctx := context.Background()
	release := make(chan struct{})
	var held atomic.Bool
	queued, _ := st.HoldRefBatchesForTest(func(int) error {
		if held.CompareAndSwap(false, true) {
			<-release
		}
		return nil
	}, 0)
	first := make(chan error, 1)
	go func() { _, err := st.GameRef(ctx, g.ID, ana.ID, ""); first <- err }()
	for !held.Load() {
		time.Sleep(time.Millisecond)
	}
	gone, cancel := context.WithCancel(ctx)
	given := make(chan error, 1)
	go func() { _, err := st.GameRef(gone, g.ID, ana.ID, ""); given <- err }()
	other := make(chan error, 1)
	go func() { _, err := st.GameRef(ctx, g.ID, ana.ID, ""); other <- err }()
	awaitQueued(t, queued, 2)
	cancel()
	select {
	case err := <-given:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the read given up: %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the read given up still waits for its batch")
	}
	close(release)
	for name, c := range map[string]chan error{"the first": first, "the other": other} {
		select {
		case err := <-c:
			if err != nil {
				t.Errorf("%s read: %v", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s read has no answer", name)
		}
	}
	if r, err := st.GameRef(ctx, g.ID, ana.ID, ""); err != nil || r.Seat != 0 {
		t.Fatalf("a read after: %+v, %v", r, err)
	}
}

// TestGameRefBatchFails: when a batch's query fails, each of its reads
// gets the error, and the reads after it are answered again.
func TestGameRefBatchFails(t *testing.T) {
	st, ana, g := oneSeatGame(t)
	ctx := context.Background()
	broken := errors.New("the connection broke")
	release := make(chan struct{})
	var batches atomic.Int32
	queued, _ := st.HoldRefBatchesForTest(func(int) error {
		switch batches.Add(1) {
		case 1:
			<-release
			return nil
		case 2:
			return broken
		}
		return nil
	}, 0)
	first := make(chan error, 1)
	go func() { _, err := st.GameRef(ctx, g.ID, ana.ID, ""); first <- err }()
	for batches.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	failed := make(chan error, 3)
	for range 3 {
		go func() { _, err := st.GameRef(ctx, g.ID, ana.ID, ""); failed <- err }()
	}
	awaitQueued(t, queued, 3)
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("the first read: %v", err)
	}
	for range 3 {
		if err := <-failed; !errors.Is(err, broken) {
			t.Errorf("a read of the failed batch: %v, want %v", err, broken)
		}
	}
	if r, err := st.GameRef(ctx, g.ID, ana.ID, ""); err != nil || r.Version != g.Version {
		t.Fatalf("a read after: %+v, %v", r, err)
	}
	if n := batches.Load(); n != 3 {
		t.Errorf("%d batches, want 3", n)
	}
}

// TestGameRefBatchSlowPace: while reads come slowly, a read that finds
// a batch under way does not wait for it: it sends its own query.
func TestGameRefBatchSlowPace(t *testing.T) {
	st, ana, g := oneSeatGame(t)
	release := make(chan struct{})
	var held atomic.Bool
	var batches atomic.Int32
	hold := func(int) error {
		batches.Add(1)
		if held.CompareAndSwap(false, true) {
			<-release
		}
		return nil
	}
	st.HoldRefBatchesForTest(hold, 0) // the first read's batch is held
	defer close(release)
	go st.GameRef(context.Background(), g.ID, ana.ID, "")
	for !held.Load() {
		time.Sleep(time.Millisecond)
	}
	queued, _ := st.HoldRefBatchesForTest(hold, math.Inf(1)) // the pace drops
	// A read at the slow pace reads on its own, under its own context:
	// it neither queues behind the held batch nor outlives its request.
	ctx, cancel := context.WithCancel(context.Background())
	answered := make(chan error, 1)
	go func() { _, err := st.GameRef(ctx, g.ID, ana.ID, ""); answered <- err }()
	select {
	case err := <-answered:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("a read at a slow pace waits for the batch under way (%d queued)", queued())
	}
	cancel()
	if _, err := st.GameRef(ctx, g.ID, ana.ID, ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("a read at a slow pace of an ended request: %v, want its context's error", err)
	}
	if n, b := queued(), batches.Load(); n != 0 || b != 1 {
		t.Fatalf("%d reads queued behind the held batch and %d batches sent, want none and the held one", n, b)
	}
}

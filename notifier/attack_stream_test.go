package notifier

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// TestAttackStreamJobsOutOfOrder: the stream jobs of two changes of one
// game are worked the later first, as River's concurrent workers may on
// SQLite. A subscriber must still get the game's events in seq order, each
// once: a client that resumes after the last id it got would otherwise
// never get the earlier ones.
func TestAttackStreamJobsOutOfOrder(t *testing.T) {
	t.Parallel()
	e := newOutboxEnv(t, models.SQLite)
	o := e.outbox(t, false)
	g := e.createGame(t)
	e.start(t, g.ID)
	r := rand.New(rand.NewPCG(3, 3))
	// Changes that record events, after the start: three ranges of seqs.
	var ranges [][2]int64
	last := int64(0)
	if recs, err := e.st.EventsAfter(context.Background(), g.ID, 0, 1000); err == nil && len(recs) > 0 {
		last = recs[len(recs)-1].Seq
	}
	for len(ranges) < 3 {
		e.step(t, g.ID, r)
		recs, err := e.st.EventsAfter(context.Background(), g.ID, last, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) > 0 {
			ranges = append(ranges, [2]int64{last + 1, recs[len(recs)-1].Seq})
			last = recs[len(recs)-1].Seq
		}
	}
	holders := []int64{e.users[0].ID, e.users[1].ID}
	sub := e.hub.Subscribe(GameSeatTopic(g.ID, -1))
	defer sub.Close()
	job := func(i int) StreamArgs {
		return StreamArgs{GameID: g.ID, FromSeq: ranges[i][0], ToSeq: ranges[i][1], Seats: holders}
	}
	// In order first (the outbox learns the game), then 2 before 1.
	for _, i := range []int{0, 2, 1} {
		if err := o.deliver(context.Background(), job(i)); err != nil {
			t.Fatal(err)
		}
	}
	var got []int64
	for {
		select {
		case ev := <-sub.Events():
			n, _ := strconv.ParseInt(ev.ID, 10, 64)
			got = append(got, n)
			continue
		case <-time.After(200 * time.Millisecond):
		}
		break
	}
	if len(got) == 0 {
		t.Fatal("the spectator got nothing")
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("the spectator got seqs %v: not in order, or twice", got)
		}
	}
	if got[len(got)-1] != ranges[2][1] {
		t.Fatalf("seqs %v, want up to %d", got, ranges[2][1])
	}
}

// TestAttackStreamClientStopsReading: a client opens a stream and never
// reads. Publishing to it never blocks (the hub drops it), and ServeSSE
// ends within its write timeout instead of holding a goroutine and a
// connection for ever.
func TestAttackStreamClientStopsReading(t *testing.T) {
	t.Parallel()
	hub := NewHub(4)
	sub := hub.Subscribe(UserTopic("1"))
	done := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		done <- ServeSSE(r.Context(), w, sub, StreamOptions{WriteTimeout: 300 * time.Millisecond, Heartbeat: -1})
	}))
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close() // never read
	big := []byte(strings.Repeat("x", 64<<10))
	start := time.Now()
	for i := range 2000 {
		hub.Publish(UserTopic("1"), Event{ID: strconv.Itoa(i + 1), Data: big})
		if sub.Lagged() {
			break
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("publishing to a client that does not read took %v", d)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("ServeSSE ended without an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeSSE still runs 10 s after its client stopped reading")
	}
}

// TestAttackStreamCredentialEnds: a stream whose credential ends (the
// Authorized check says no) ends at its next heartbeat with
// ErrStreamUnauthorized, and sends nothing published after that.
func TestAttackStreamCredentialEnds(t *testing.T) {
	t.Parallel()
	hub := NewHub(0)
	sub := hub.Subscribe(UserTopic("7"))
	defer sub.Close()
	var ended atomic.Bool
	rec := httptest.NewRecorder()
	done := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		done <- ServeSSE(ctx, rec, sub, StreamOptions{Heartbeat: 50 * time.Millisecond,
			Authorized: func(context.Context) bool { return !ended.Load() }})
	}()
	time.Sleep(150 * time.Millisecond) // some heartbeats while it is good
	ended.Store(true)
	select {
	case err := <-done:
		if !errors.Is(err, ErrStreamUnauthorized) {
			t.Fatalf("ServeSSE = %v, want ErrStreamUnauthorized", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream went on after its credential ended")
	}
	hub.Publish(UserTopic("7"), Event{ID: "1", Data: []byte("secret")})
	if strings.Contains(rec.Body.String(), "secret") {
		t.Fatal("an event reached the ended stream")
	}
}

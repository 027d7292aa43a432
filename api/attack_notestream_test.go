package api_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
)

// heldNote writes a notification for user in a transaction of its own on
// st and announces it as a change's write does, and returns the
// transaction still open: a change of another game that took its id
// first and commits last.
func heldNote(t *testing.T, st *models.Store, user, game int64) (commit func()) {
	t.Helper()
	ctx := context.Background()
	tx := modelstest.Begin(t, st)
	id := modelstest.Note(t, tx, user, game, "game_over", `{}`, time.Now())
	if _, err := tx.ExecContext(ctx, `SELECT pg_notify(current_schema() || '.' || $1,
  json_build_object('notes', json_build_array(json_build_object('user_id', $2::bigint, 'notification_id', $3::bigint)))::text)`,
		notifier.NotifyChannel, user, id); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// noteIDs are the ids of the notification events of evs.
func noteIDs(t *testing.T, evs []sseEvent) []int64 {
	t.Helper()
	var out []int64
	for _, ev := range evs {
		if ev.ID == "" {
			continue
		}
		n, err := strconv.ParseInt(ev.ID, 10, 64)
		if err != nil {
			t.Fatalf("event id %q", ev.ID)
		}
		out = append(out, n)
	}
	return out
}

// storedNoteIDs are the ids of all of user's stored notifications.
func storedNoteIDs(t *testing.T, st *models.Store, user int64) []int64 {
	t.Helper()
	ns, err := st.NotificationsAfter(context.Background(), user, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return out
}

// sameNotes fails unless got holds each of want once.
func sameNotes(t *testing.T, who string, got, want []int64) {
	t.Helper()
	seen := map[int64]int{}
	for _, id := range got {
		seen[id]++
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("%s got notification %d %d times", who, id, n)
		}
	}
	for _, id := range want {
		if seen[id] == 0 {
			t.Errorf("%s never got notification %d (got %v of %v)", who, id, got, want)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%s got %d notifications, %d are stored", who, len(seen), len(want))
	}
}

// TestAttackNotificationStreamCommitOrder: a change of one game takes a
// notification id for ana and commits after a change of another game
// that took a larger one. Her stream must not send the larger one first:
// a client that dropped the connection just after it and resumed from
// its id never got the other. Twice: with the stream kept (both come,
// the older transaction's first), and with the stream dropped while the
// older transaction runs (the resumed stream brings both). In a database
// of its own: the transaction it holds open holds back every stream of
// its database while it runs.
func TestAttackNotificationStreamCommitOrder(t *testing.T) {
	t.Parallel()
	srv, e := streamServersAt(t, modelstest.DatabaseURL(t))
	ana, bob, carl, dan := e.register("ana"), e.register("bob"), e.register("carl"), e.register("dan")
	g1 := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	g2 := e.startGame(map[string]any{"mode": "fast"}, ana, carl)
	g3 := e.startGame(map[string]any{"mode": "fast"}, ana, dan)
	topic := notifier.UserTopic(strconv.FormatInt(ana.ID, 10))

	ch, stop := srv.openStream(t, "/v1/notifications/stream", ana.Access, "")
	waitFor(t, "ana's subscription", func() bool { return srv.hub.Subscribers(topic) == 1 })
	evs, _ := collect(ch, 500*time.Millisecond)
	got := noteIDs(t, evs)
	if len(got) == 0 {
		t.Fatal("ana's stream sent nothing of her three games' start")
	}

	// Kept: the later commit waits for the older transaction.
	commit := heldNote(t, e.store, ana.ID, g1.ID)
	e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/resign", g2.ID), Token: carl.Access})
	if evs, _ := collect(ch, 700*time.Millisecond); len(evs) > 0 {
		t.Errorf("while an older change runs, ana's stream sent %v: a resumed stream would skip that change's notification", noteIDs(t, evs))
		got = append(got, noteIDs(t, evs)...)
	}
	commit()
	evs, _ = collect(ch, time.Second)
	kept := noteIDs(t, evs)
	if len(kept) < 2 || kept[0] != slices.Min(kept) {
		t.Errorf("after the older change committed: %v, want its notification first", kept)
	}
	got = append(got, kept...)

	// Dropped: the client leaves while the older transaction runs and
	// resumes from the last id it got.
	commit = heldNote(t, e.store, ana.ID, g1.ID)
	e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/resign", g3.ID), Token: dan.Access})
	evs, _ = collect(ch, 700*time.Millisecond)
	got = append(got, noteIDs(t, evs)...)
	stop()
	waitFor(t, "ana's stream to close", func() bool { return srv.hub.Subscribers(topic) == 0 })
	commit()
	ch, stop = srv.openStream(t, "/v1/notifications/stream", ana.Access, strconv.FormatInt(got[len(got)-1], 10))
	defer stop()
	evs, _ = collect(ch, time.Second)
	got = append(got, noteIDs(t, evs)...)
	sameNotes(t, "ana's stream", got, storedNoteIDs(t, e.store, ana.ID))
}

// TestAttackNotificationStreamReconnecting: ana plays four games at once
// against four players while her client drops its stream every few
// events, or after a pause, and resumes from the last id it got. Across
// all its connections it gets each of her notifications exactly once.
func TestAttackNotificationStreamReconnecting(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		srv, e := streamServers(t, d)
		ana := e.register("ana")
		topic := notifier.UserTopic(strconv.FormatInt(ana.ID, 10))
		type table struct {
			g       game
			players []*player
		}
		var tables []table
		for i := range 4 {
			p := e.register(fmt.Sprintf("rival%d", i))
			tables = append(tables, table{e.startGame(map[string]any{"mode": "fast"}, ana, p), []*player{ana, p}})
		}
		var wg sync.WaitGroup
		for i, tb := range tables {
			wg.Go(func() {
				for round := range 15 {
					advance(t, e.env, tb.g.ID, tb.players, uint64(100*i+round), 2)
				}
			})
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		var got []int64
		last, connections := "", 0
		for i := 0; ; i++ {
			ch, stop := srv.openStream(t, "/v1/notifications/stream", ana.Access, last)
			waitFor(t, "ana's subscription", func() bool { return srv.hub.Subscribers(topic) == 1 })
			var evs []sseEvent
			finished := false
			select {
			case <-done:
				finished = true
			default:
			}
			if finished {
				// The rest, which a transaction of another test may
				// hold back a while.
				stored := len(storedNoteIDs(t, e.store, ana.ID))
				deadline := time.Now().Add(10 * time.Second)
				for len(got)+len(noteIDs(t, evs)) < stored && time.Now().Before(deadline) {
					more, _ := collect(ch, 200*time.Millisecond)
					evs = append(evs, more...)
				}
				more, _ := collect(ch, 300*time.Millisecond) // one too many would show now
				evs = append(evs, more...)
			} else {
				evs = collectN(ch, 1+i%3, time.Duration(5+i%4*10)*time.Millisecond)
			}
			stop()
			connections++
			waitFor(t, "ana's stream to close", func() bool { return srv.hub.Subscribers(topic) == 0 })
			ids := noteIDs(t, evs)
			got = append(got, ids...)
			if len(ids) > 0 {
				last = strconv.FormatInt(ids[len(ids)-1], 10)
			}
			if finished {
				break
			}
		}
		want := storedNoteIDs(t, e.store, ana.ID)
		if len(want) < 8 {
			t.Fatalf("only %d notifications for ana: the games did not run", len(want))
		}
		t.Logf("%d connections, %d notifications", connections, len(want))
		sameNotes(t, "ana's reconnecting stream", got, want)
		if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
			t.Fatal("the stream and the log differ")
		}
	})
}

// collectN is collect that returns after n events too.
func collectN(ch <-chan sseEvent, n int, quiet time.Duration) []sseEvent {
	var evs []sseEvent
	for len(evs) < n {
		select {
		case ev, ok := <-ch:
			if !ok {
				return evs
			}
			evs = append(evs, ev)
		case <-time.After(quiet):
			return evs
		}
	}
	return evs
}

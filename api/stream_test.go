package api_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
)

// streamServers returns the server that serves the streams under test and
// the one that takes the players' requests: on SQLite one server (its
// in-process hub); on Postgres two servers on one database, so that the
// changes reach the stream's server through NOTIFY and are read there by
// their ids.
func streamServers(t *testing.T, d models.Dialect) (stream, play *notifyEnv) {
	t.Helper()
	if d == models.SQLite {
		e := newNotifyEnv(t, d, false)
		return e, e
	}
	return streamServersAt(t, modelstest.SchemaURL(t)) // skips without TEST_DATABASE_URL
}

// streamServersAt is streamServers on the Postgres database at url.
func streamServersAt(t *testing.T, url string) (stream, play *notifyEnv) {
	t.Helper()
	clk := &clock{t: time.Now().UTC(), flowing: time.Now()}
	stream = startNotifyEnv(t, openSchema(t, url, clk), clk, notifyOptions{databaseURL: url, idle: true})
	play = startNotifyEnv(t, openSchema(t, url, clk), clk, notifyOptions{databaseURL: url})
	return stream, play
}

// openSchema opens and migrates a store of its own on the Postgres schema
// at url, as one more server process would.
func openSchema(t *testing.T, url string, clk *clock) *models.Store {
	t.Helper()
	ctx := context.Background()
	st, err := models.Open(ctx, url, "", models.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

// publicGame is a public 2-player fast game that ana created, its seat 1
// open, and the path of its routes ("join", "stream", ...).
func publicGame(e *env, ana *player) (game, func(verb string) string) {
	e.t.Helper()
	var g game
	e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access,
		Body: map[string]any{"players": 2, "mode": "fast", "public": true, "deck": deck(0)}}).decode(e.t, &g)
	return g, func(verb string) string { return fmt.Sprintf("/v1/games/%d/%s", g.ID, verb) }
}

// collect reads ch until it closes (the server ended the stream) or quiet
// passes without an event; closed says which.
func collect(ch <-chan sseEvent, quiet time.Duration) (events []sseEvent, closed bool) {
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return events, true
			}
			events = append(events, ev)
		case <-time.After(quiet):
			return events, false
		}
	}
}

// private returns the events of evs that only a seat's holder may see
// (its own draws, with card names and instance ids).
func private(evs []sseEvent) []string {
	var out []string
	for _, ev := range evs {
		if strings.Contains(ev.Data, "You draw") || strings.Contains(ev.Data, `"kind":"drew"`) && strings.Contains(ev.Data, `"insts"`) {
			out = append(out, ev.Data)
		}
	}
	return out
}

// TestStreamAfterLeavingASeat: bob joins the open seat of a public game,
// opens its stream and his notification stream, and leaves; cyd takes the
// seat and the game is played. Bob's game stream gets none of cyd's
// private events (it ends at the first event, the seat no longer his),
// and reconnecting serves him the spectator's events; his notification
// stream gets nothing of the game. Cyd's own stream has her draws. Dan,
// a spectator whose stream is open when he takes a seat, is moved to it
// the same way.
func TestStreamAfterLeavingASeat(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		srv, e := streamServers(t, d)
		ana, bob, cyd := e.register("ana"), e.register("bob"), e.register("cyd")
		g, path := publicGame(e.env, ana)
		e.must(200, req{Method: "POST", Path: path("join"), Token: bob.Access, Body: map[string]any{"deck": deck(1)}})

		bobGame, stopGame := srv.openStream(t, path("stream"), bob.Access, "")
		defer stopGame()
		bobNotes, stopNotes := srv.openStream(t, "/v1/notifications/stream", bob.Access, "")
		defer stopNotes()
		waitFor(t, "bob's subscriptions", func() bool {
			return srv.hub.Subscribers(notifier.GameSeatTopic(g.ID, 1)) == 1 &&
				srv.hub.Subscribers(notifier.UserTopic(strconv.FormatInt(bob.ID, 10))) == 1
		})
		e.must(200, req{Method: "POST", Path: path("leave"), Token: bob.Access})
		e.must(200, req{Method: "POST", Path: path("join"), Token: cyd.Access, Body: map[string]any{"deck": deck(1)}})
		cydGame, stopCyd := srv.openStream(t, path("stream"), cyd.Access, "")
		defer stopCyd()
		waitFor(t, "cyd's subscription", func() bool { return srv.hub.Subscribers(notifier.GameSeatTopic(g.ID, 1)) == 2 })

		e.must(200, req{Method: "POST", Path: path("start"), Token: ana.Access})
		play(t, e.env, g.ID, []*player{ana, cyd}, 3, 30)

		got, closed := collect(bobGame, 2*time.Second)
		if leaked := private(got); len(leaked) > 0 {
			t.Fatalf("bob's stream, kept after he left the seat, got %d of cyd's private events: %s", len(leaked), leaked[0])
		}
		if !closed || len(got) != 0 {
			t.Fatalf("bob's stream: %d events, closed %v; want it ended at the first event, unsent", len(got), closed)
		}
		mine, _ := collect(cydGame, time.Second)
		if len(private(mine)) == 0 {
			t.Fatalf("cyd's own stream has none of her draws in %d events", len(mine))
		}
		notes, _ := collect(bobNotes, 500*time.Millisecond)
		for _, n := range notes {
			if strings.Contains(n.Data, fmt.Sprintf(`"game_id":%d`, g.ID)) {
				t.Fatalf("bob's notification stream got %s of the game he left", n.Type)
			}
		}

		// Reconnected, bob is a spectator: the public twins only.
		again, stopAgain := srv.openStream(t, path("stream"), bob.Access, "")
		defer stopAgain()
		evs, _ := collect(again, time.Second)
		if leaked := private(evs); len(evs) == 0 || len(leaked) > 0 {
			t.Fatalf("bob reconnected: %d events, %d private: %v", len(evs), len(leaked), leaked)
		}
	})
}

// TestStreamFollowsSeatTaken: a spectator's stream open when he takes a
// seat ends at the first event after it (unsent), and reconnecting serves
// him his seat's events, his own draws included.
func TestStreamFollowsSeatTaken(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		srv, e := streamServers(t, d)
		ana, dan := e.register("ana"), e.register("dan")
		g, path := publicGame(e.env, ana)
		watch, stop := srv.openStream(t, path("stream"), dan.Access, "")
		defer stop()
		waitFor(t, "dan's subscription", func() bool { return srv.hub.Subscribers(notifier.GameSeatTopic(g.ID, -1)) == 1 })
		e.must(200, req{Method: "POST", Path: path("join"), Token: dan.Access, Body: map[string]any{"deck": deck(1)}})
		e.must(200, req{Method: "POST", Path: path("start"), Token: ana.Access})
		if got, closed := collect(watch, 2*time.Second); !closed || len(got) != 0 {
			t.Fatalf("dan's spectator stream: %d events, closed %v; want it ended, unsent", len(got), closed)
		}
		seated, stop2 := srv.openStream(t, path("stream"), dan.Access, "")
		defer stop2()
		if evs, _ := collect(seated, time.Second); len(private(evs)) == 0 {
			t.Fatalf("dan reconnected in his seat: none of his draws in %d events", len(evs))
		}
	})
}

// TestStreamSeatChangesWhileConnecting: the seat changes hands while bob's
// stream is opening, between the seat check of the request and the read
// of the backlog. On Postgres a new stream waits for the transactions
// running when it wrote its presence row; one is held open here, so that
// bob can leave, cyd take the seat and the game start (her opening draws)
// meanwhile. The backlog bob then gets is the spectator's: none of cyd's
// draws. (SQLite runs one writer and does not wait: the window cannot be
// held open there.)
func TestStreamSeatChangesWhileConnecting(t *testing.T) {
	t.Parallel()
	srv, e := streamServers(t, models.Postgres)
	ctx := context.Background()
	ana, bob, cyd := e.register("ana"), e.register("bob"), e.register("cyd")
	g, path := publicGame(e.env, ana)
	e.must(200, req{Method: "POST", Path: path("join"), Token: bob.Access, Body: map[string]any{"deck": deck(1)}})

	db, err := srv.store.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	held, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback()
	if _, err := held.ExecContext(ctx, `SELECT pg_current_xact_id()`); err != nil {
		t.Fatal(err)
	}
	type dialed struct {
		ch  <-chan sseEvent
		err error
	}
	done := make(chan dialed, 1)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		ch, err := srv.dialStream(sctx, path("stream"), bob.Access, "")
		done <- dialed{ch, err}
	}()
	waitFor(t, "bob's stream to wait for the running transactions", func() bool {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM stream_presence WHERE game_id = $1`, g.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	})
	e.must(200, req{Method: "POST", Path: path("leave"), Token: bob.Access})
	e.must(200, req{Method: "POST", Path: path("join"), Token: cyd.Access, Body: map[string]any{"deck": deck(1)}})
	e.must(200, req{Method: "POST", Path: path("start"), Token: ana.Access})
	held.Rollback()
	d := <-done
	if d.err != nil {
		t.Fatal(d.err)
	}
	evs, _ := collect(d.ch, time.Second)
	if leaked := private(evs); len(evs) == 0 || len(leaked) > 0 {
		t.Fatalf("bob's stream opened while his seat changed hands: %d events, %d of cyd's private ones: %v", len(evs), len(leaked), leaked)
	}
}

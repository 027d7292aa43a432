package web_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/datamonsters/turns/internal/ssetest"
	"github.com/datamonsters/turns/models"
)

// pagesGame registers ana and bob on s and opens a game of theirs through
// the pages.
func pagesGame(t *testing.T, s *site) (ana, bob *client, id int64) {
	t.Helper()
	ana, bob = s.client(), s.client()
	ana.register("ana", "ana password")
	bob.register("bob", "bob password")
	decks := []int64{s.makeDeck(s.apiLogin("ana", "ana password")), s.makeDeck(s.apiLogin("bob", "bob password"))}
	return ana, bob, openGame(t, ana, bob, decks)
}

// TestSpectatorBoardIsLive: a visitor signed in nowhere who watches a
// public game gets its stored events when the live stream opens and then
// each move as it is made, on both databases (on Postgres the change must
// see that someone follows the game, though nobody signed in does). The
// stream takes none of the turns page reads wait for.
func TestSpectatorBoardIsLive(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{outbox: true, readers: 1})
		ana, bob, id := pagesGame(t, s)
		events := watchLive(t, s, id)
		// A live stream takes no reader's turn: with one turn, the board
		// still opens while the stream stays open.
		s.client().get(gamePath(id)).mustSee(t, 200, "You are watching")
		if n := nextLive(t, events, "the backlog"); n != 1 {
			t.Fatalf("the backlog starts at event %d", n)
		}
		last := drainLive(t, events, 1)
		oneMove(t, id, ana, bob)
		if n := nextLive(t, events, "the move, live"); n <= last {
			t.Fatalf("after event %d the stream sent %d", last, n)
		}
	})
}

// TestBoardLiveUnannounced: a board's live stream whose presence row was
// lost (deleted as expired by another process while this one could not
// refresh it) is told of no change; the next move's events still come, at
// the stream's next heartbeat. They came only with a later move.
func TestBoardLiveUnannounced(t *testing.T) {
	t.Parallel()
	s := newSite(t, models.Postgres, siteOptions{outbox: true, heartbeat: 200 * time.Millisecond})
	ana, bob, id := pagesGame(t, s)
	events := watchLive(t, s, id)
	last := drainLive(t, events, nextLive(t, events, "the backlog"))
	db, err := s.store.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM stream_presence WHERE game_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	oneMove(t, id, ana, bob)
	if n := nextLive(t, events, "the move, at a heartbeat"); n <= last {
		t.Fatalf("after event %d the stream sent %d", last, n)
	}
}

// watchLive opens game id's live stream as a visitor signed in nowhere.
func watchLive(t *testing.T, s *site, id int64) <-chan ssetest.Event {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.url+gamePath(id)+"/live", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	r, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Body.Close() })
	if r.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(r.Body)
		t.Fatalf("the visitor's live stream: status %d: %s", r.StatusCode, b)
	}
	return ssetest.Read(r.Body)
}

// nextLive is the number of the stream's next event, which must come
// within 10 s.
func nextLive(t *testing.T, events <-chan ssetest.Event, what string) int64 {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatalf("%s: the stream ended", what)
		}
		return idOf(t, ev)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: nothing within 10 s", what)
	}
	return 0
}

// drainLive reads the rest of the backlog, which comes at once, after
// event last, and returns the number of its last event.
func drainLive(t *testing.T, events <-chan ssetest.Event, last int64) int64 {
	t.Helper()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the stream ended after the backlog")
			}
			last = idOf(t, ev)
		case <-time.After(time.Second):
			return last
		}
	}
}

// oneMove makes one move in game id by whoever of ana and bob has one.
func oneMove(t *testing.T, id int64, ana, bob *client) {
	t.Helper()
	for _, c := range []*client{ana, bob} {
		page := c.get(gamePath(id)).mustSee(t, 200)
		forms := formsOf(t, page.Body)
		if m, ok := pick(forms, turnOf(page.Body)); ok {
			if r := c.sendMove(forms[m.Form], m); r.Status != http.StatusSeeOther {
				t.Fatalf("%q: status %d", m.Label, r.Status)
			}
			return
		}
	}
	t.Fatal("nobody has a move")
}

// idOf is the number of a game stream's event (its id).
func idOf(t *testing.T, ev ssetest.Event) int64 {
	t.Helper()
	n, err := strconv.ParseInt(ev.ID, 10, 64)
	if err != nil {
		t.Fatalf("event %+v: %v", ev, err)
	}
	return n
}

// TestPrivateGameLiveIsClosed: the live stream of a private game is not
// found for a visitor signed in nowhere, nor for an account without a seat.
func TestPrivateGameLiveIsClosed(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{outbox: true})
	ana, eve := s.client(), s.client()
	ana.register("ana", "ana password")
	eve.register("eve", "eve password")
	deck := s.makeDeck(s.apiLogin("ana", "ana password"))
	f := mustForm(t, ana.get("/new-game").mustSee(t, 200, "A new game").Body, "Open the game")
	delete(f.Fields, "public")
	id := gameIDOf(t, ana.send(f, "players", "2", "mode", "fast", "deck", "deck:"+itoa(deck)).mustRedirect(t, "/games/"))
	if g, err := s.store.Game(context.Background(), id); err != nil || g.Public {
		t.Fatalf("the game: %v, public %v", err, g != nil && g.Public)
	}
	for who, c := range map[string]*client{"a visitor": s.client(), "an account without a seat": eve} {
		if r := c.get(gamePath(id) + "/live"); r.Status != http.StatusNotFound {
			t.Errorf("%s: the private game's live stream answers %d", who, r.Status)
		}
		if r := c.get(gamePath(id)); r.Status == http.StatusOK {
			t.Errorf("%s: the private game's page answers 200", who)
		}
	}
}

// TestLiveEndsAtSignOut: ana and bob follow their game's board live; ana
// signs out. What must hold: her stream, which carries her seat's events,
// ends (at its next heartbeat), as every other read of hers does; bob's
// goes on.
func TestLiveEndsAtSignOut(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{outbox: true, heartbeat: 200 * time.Millisecond})
		ana, bob, id := pagesGame(t, s)
		follow := func(c *client) <-chan ssetest.Event {
			req, err := http.NewRequest(http.MethodGet, s.url+gamePath(id)+"/live", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Accept", "text/event-stream")
			r, err := (&http.Client{Jar: c.http.Jar, Timeout: 30 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Body.Close() })
			if r.StatusCode != http.StatusOK {
				t.Fatalf("the live stream: status %d", r.StatusCode)
			}
			return ssetest.Read(r.Body)
		}
		// ended reports whether events ends within d (what it sends before
		// is read and dropped).
		ended := func(events <-chan ssetest.Event, d time.Duration) bool {
			deadline := time.After(d)
			for {
				select {
				case _, ok := <-events:
					if !ok {
						return true
					}
				case <-deadline:
					return false
				}
			}
		}
		anas, bobs := follow(ana), follow(bob)
		ana.post("/logout", nil).mustRedirect(t, "/login?done=signedout")
		if !ended(anas, 5*time.Second) {
			t.Fatal("ana signed out and her board's live stream goes on")
		}
		if ended(bobs, time.Second) {
			t.Fatal("bob's live stream ended when ana signed out")
		}
	})
}

// TestLiveStreamsAreLimited: a reader opens boards' live streams, and the
// API's, as fast as they can. What must hold: the board's stream counts in
// the same limit per account as the API's (2 here): ana with an API
// stream and a board open is refused a second board (409), her two stay
// open; a visitor signed in nowhere is counted by address; a board that
// resumes from an event the game does not have is refused (400), not
// left on a stream that never sends anything.
func TestLiveStreamsAreLimited(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{outbox: true, streams: 2})
		ana, bob, id := pagesGame(t, s)
		token := s.apiLogin("ana", "ana password")
		open := func(c *client, path, bearer string) *http.Response {
			t.Helper()
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Accept", "text/event-stream")
			if bearer != "" {
				req.Header.Set("Authorization", "Bearer "+bearer)
			}
			hc := &http.Client{}
			if c != nil {
				hc.Jar = c.http.Jar
			}
			r, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Body.Close() })
			return r
		}
		live := gamePath(id) + "/live"
		if r := open(nil, "/v1/notifications/stream", token.Access); r.StatusCode != http.StatusOK {
			t.Fatalf("ana's API stream: %d", r.StatusCode)
		}
		if r := open(ana, live, ""); r.StatusCode != http.StatusOK {
			t.Fatalf("ana's first board: %d", r.StatusCode)
		}
		if r := open(ana, live, ""); r.StatusCode != http.StatusConflict {
			t.Errorf("ana's third stream (a second board): %d; want 409", r.StatusCode)
		}
		if r := open(bob, live, ""); r.StatusCode != http.StatusOK {
			t.Errorf("bob's board, refused for ana's streams: %d", r.StatusCode)
		}
		for i, want := range []int{http.StatusOK, http.StatusOK, http.StatusConflict} {
			if r := open(s.client(), live, ""); r.StatusCode != want {
				t.Errorf("a visitor's board %d: %d; want %d", i+1, r.StatusCode, want)
			}
		}
		if r := open(bob, live+"?last_event_id=1000000", ""); r.StatusCode != http.StatusBadRequest {
			t.Errorf("bob's board resumed from an event the game does not have: %d; want 400", r.StatusCode)
		}
	})
}

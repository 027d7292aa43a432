package api_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
)

// The live streams attacked as a careless client, a flaky network and a
// curious player would: bad resume points, other people's games, a
// session that ends while its stream is open, and reconnections that must
// lose nothing.

// rawStream opens path with token and the Last-Event-ID header lastID
// (sent even when it is empty or odd) and returns the response; the body
// is the caller's to close.
func (e *notifyEnv) rawStream(t *testing.T, ctx context.Context, path, token, lastID string, withID bool) *http.Response {
	t.Helper()
	r, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+path, nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if withID {
		r.Header.Set("Last-Event-ID", lastID)
	}
	res, err := e.http.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// advance plays up to n actions of the game (as play does, but it never
// votes to end it) and returns how many it played.
func advance(t *testing.T, e *env, id int64, players []*player, seed uint64, n int) int {
	t.Helper()
	done := 0
	for done < n {
		g := e.getGame(id, players[0])
		if g.Status != "active" {
			return done
		}
		moved := false
		for i, p := range players {
			if !g.Seats[i].Awaited {
				continue
			}
			mine := e.getGame(id, p)
			legal := e.legal(id, p)
			if len(legal) == 0 {
				continue
			}
			a := bot.NewGreedy(rand.New(rand.NewPCG(seed, uint64(done)))).Choose(mine.View, legal)
			r := e.do(req{Method: "POST", Path: actionsPath(id), Token: p.Access,
				Body: map[string]any{"expected_version": mine.Version, "actions": []engine.Action{a}}})
			if r.Status == 200 {
				done++
				moved = true
				break
			}
			if r.Status != 409 {
				t.Fatalf("action: %d %s", r.Status, r.Body)
			}
		}
		if !moved {
			t.Fatalf("game %d: nobody could move", id)
		}
	}
	return done
}

// problemOf reads a refusal's body whole and returns it.
func problemOf(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String()
}

// TestAttackStreamBadLastEventID: a resume point that is not a number of
// a previous event is refused with 400 naming Last-Event-ID, on both
// streams, by header and by query; never a 500, never a stream.
func TestAttackStreamBadLastEventID(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, false)
	ana, bob := e.register("ana"), e.register("bob")
	g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	paths := []string{"/v1/notifications/stream", fmt.Sprintf("/v1/games/%d/stream", g.ID)}
	for _, p := range paths {
		for _, bad := range []string{"abc", "-1", "-9223372036854775808", "99999999999999999999999", "1.5", "0x10", "1e3", "+-1", "1_000"} {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			res := e.rawStream(t, ctx, p, ana.Access, bad, true)
			body := problemOf(t, res)
			cancel()
			if res.StatusCode != 400 || !strings.Contains(body, "Last-Event-ID") {
				t.Errorf("%s with Last-Event-ID %q: %d %s", p, bad, res.StatusCode, body)
			}
			q := p + "?last_event_id=" + strings.ReplaceAll(strings.ReplaceAll(bad, " ", "%20"), "+", "%2B")
			ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
			res = e.rawStream(t, ctx, q, ana.Access, "", false)
			body = problemOf(t, res)
			cancel()
			if res.StatusCode != 400 || !strings.Contains(body, "Last-Event-ID") {
				t.Errorf("%s: %d %s", q, res.StatusCode, body)
			}
		}
	}
}

// TestAttackStreamFutureLastEventID: a client resumes a stream from an id
// no event of it has (a notification id pasted in place of a game's, a
// corrupted store). It must not get a stream that then silently never
// sends anything again (every later event is at or before that id): it is
// refused with a 400 naming Last-Event-ID. A real id still resumes.
func TestAttackStreamFutureLastEventID(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, false)
	ana, bob := e.register("ana"), e.register("bob")
	g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	gamePath := fmt.Sprintf("/v1/games/%d/stream", g.ID)
	for _, path := range []string{gamePath, "/v1/notifications/stream"} {
		for _, future := range []string{"1000000", strconv.FormatInt(1<<62, 10), "9223372036854775807"} {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			res := e.rawStream(t, ctx, path, ana.Access, future, true)
			body := problemOf(t, res)
			cancel()
			if res.StatusCode != 400 || !strings.Contains(body, "Last-Event-ID") {
				t.Errorf("%s resumed from %s: %d %.200s; want 400 naming Last-Event-ID, not a stream that sends nothing", path, future, res.StatusCode, body)
			}
		}
	}
	// From a real id: the events after it, then the new ones.
	ch, stop := e.openStream(t, gamePath, ana.Access, "3")
	defer stop()
	if first := next(t, ch); first.ID != "4" {
		t.Fatalf("resumed after 3: first event %q", first.ID)
	}
	waitFor(t, "the subscription", func() bool { return e.hub.Subscribers(notifier.GameSeatTopic(g.ID, 0)) > 0 })
	collect(ch, 300*time.Millisecond)
	advance(t, e.env, g.ID, []*player{ana, bob}, 5, 2)
	if got, _ := collect(ch, 2*time.Second); len(got) == 0 {
		t.Fatal("a stream resumed from a real id got nothing of 2 new actions")
	}
}

// TestAttackStreamOtherUsersPrivateGame: cyd, no player of ana and bob's
// private game, opens its stream with her own token (404, as the game's
// other routes answer), by a game id that does not exist (404), by one
// that is not a number (400 or 404, never 500), and without a token (401).
func TestAttackStreamOtherUsersPrivateGame(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, false)
	ana, bob, cyd := e.register("ana"), e.register("bob"), e.register("cyd")
	g := e.startGame(map[string]any{"mode": "fast", "public": false, "invite": []string{"bob"}}, ana, bob)
	for _, tc := range []struct {
		path, token string
		want        []int
	}{
		{fmt.Sprintf("/v1/games/%d/stream", g.ID), cyd.Access, []int{404}},
		{fmt.Sprintf("/v1/games/%d/stream", g.ID+1000), ana.Access, []int{404}},
		{"/v1/games/-1/stream", ana.Access, []int{400, 404}},
		{"/v1/games/abc/stream", ana.Access, []int{400, 404}},
		{"/v1/games/99999999999999999999999/stream", ana.Access, []int{400, 404}},
		{fmt.Sprintf("/v1/games/%d/stream", g.ID), "", []int{401}},
		{fmt.Sprintf("/v1/games/%d/stream", g.ID), "not-a-token", []int{401}},
		{"/v1/notifications/stream", "", []int{401}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res := e.rawStream(t, ctx, tc.path, tc.token, "", false)
		body := problemOf(t, res)
		cancel()
		ok := false
		for _, w := range tc.want {
			ok = ok || res.StatusCode == w
		}
		if !ok || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
			t.Errorf("%s as %q: %d %s %s, want %v", tc.path, tc.token, res.StatusCode, res.Header.Get("Content-Type"), body, tc.want)
		}
	}
	if n := e.hub.Subscribers(notifier.GameSeatTopic(g.ID, -1)); n != 0 {
		t.Fatalf("a refused stream left %d spectator subscriptions", n)
	}
}

// TestAttackStreamSpectatorSeesNoHands: dan watches ana and bob's public
// game from its start to its end, live and then again from the stored
// log; he gets none of their draws, and no instance id of a card in their
// hands.
func TestAttackStreamSpectatorSeesNoHands(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, false)
	ana, bob, dan := e.register("ana"), e.register("bob"), e.register("dan")
	g, path := publicGame(e.env, ana)
	e.must(200, req{Method: "POST", Path: path("join"), Token: bob.Access, Body: map[string]any{"deck": deck(1)}})
	watch, stop := e.openStream(t, path("stream"), dan.Access, "")
	defer stop()
	waitFor(t, "dan's subscription", func() bool { return e.hub.Subscribers(notifier.GameSeatTopic(g.ID, -1)) == 1 })
	e.must(200, req{Method: "POST", Path: path("start"), Token: ana.Access})
	advance(t, e.env, g.ID, []*player{ana, bob}, 9, 12)
	// The cards in the players' hands now were never shown to anyone else
	// (a card played from a hand may keep its id once it is public).
	hands := map[string]bool{}
	for _, p := range []*player{ana, bob} {
		if v := e.getGame(g.ID, p).View; v != nil {
			for _, c := range v.Hand {
				hands[c.ID] = true
			}
		}
	}
	if len(hands) == 0 {
		t.Fatal("no cards in the players' hands to look for")
	}
	live, _ := collect(watch, 2*time.Second)
	stop()
	again, stopAgain := e.openStream(t, path("stream"), dan.Access, "")
	defer stopAgain()
	stored, _ := collect(again, time.Second)
	if len(live) == 0 || len(stored) == 0 {
		t.Fatalf("dan saw %d live and %d stored events", len(live), len(stored))
	}
	for _, evs := range [][]sseEvent{live, stored} {
		if leaked := private(evs); len(leaked) > 0 {
			t.Fatalf("the spectator got %d private events: %s", len(leaked), leaked[0])
		}
		for _, ev := range evs {
			for id := range hands {
				if id != "" && strings.Contains(ev.Data, `"`+id+`"`) {
					t.Fatalf("the spectator's event names card %s of a hand: %s", id, ev.Data)
				}
			}
			if strings.Contains(ev.Data, `"seed"`) || strings.Contains(ev.Data, `"secret"`) {
				t.Fatalf("the spectator's event carries the game's secret: %s", ev.Data)
			}
		}
	}
}

// TestAttackStreamResumeLosesNothing: bob follows the game, drops the
// connection several times mid-game and reconnects with the last id he
// got. The ids he receives rise strictly, none repeats, and together they
// are exactly the events the event log shows him.
func TestAttackStreamResumeLosesNothing(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		srv, e := streamServers(t, d)
		testAttackStreamResume(t, srv, e)
	})
}

func testAttackStreamResume(t *testing.T, srv, e *notifyEnv) {
	ana, bob := e.register("ana"), e.register("bob")
	g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	path := fmt.Sprintf("/v1/games/%d/stream", g.ID)
	var got []sseEvent
	last := ""
	for round := 0; round < 4; round++ {
		ch, stop := srv.openStream(t, path, bob.Access, last)
		waitFor(t, "bob's subscription", func() bool { return srv.hub.Subscribers(notifier.GameSeatTopic(g.ID, 1)) == 1 })
		advance(t, e.env, g.ID, []*player{ana, bob}, uint64(round+20), 3)
		evs, _ := collect(ch, 700*time.Millisecond)
		stop()
		waitFor(t, "bob's stream to close", func() bool { return srv.hub.Subscribers(notifier.GameSeatTopic(g.ID, 1)) == 0 })
		// Actions taken while he is away come from the log next time.
		advance(t, e.env, g.ID, []*player{ana, bob}, uint64(round+40), 2)
		for _, ev := range evs {
			if ev.Type == "event" {
				got = append(got, ev)
				last = ev.ID
			}
		}
	}
	ch, stop := srv.openStream(t, path, bob.Access, last)
	defer stop()
	tail, _ := collect(ch, time.Second)
	for _, ev := range tail {
		if ev.Type == "event" {
			got = append(got, ev)
		}
	}
	var log struct {
		Events []struct {
			Seq int64 `json:"seq"`
		} `json:"events"`
	}
	e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d/events?limit=500", g.ID), Token: bob.Access}).decode(t, &log)
	if len(got) != len(log.Events) {
		t.Fatalf("bob's reconnecting stream got %d events, the log shows him %d", len(got), len(log.Events))
	}
	prev := int64(0)
	for i, ev := range got {
		n, err := strconv.ParseInt(ev.ID, 10, 64)
		if err != nil || n <= prev {
			t.Fatalf("event %d: id %q after %d", i, ev.ID, prev)
		}
		if n != log.Events[i].Seq {
			t.Fatalf("event %d: id %d, the log's %d", i, n, log.Events[i].Seq)
		}
		prev = n
	}
}

// TestAttackStreamEndsWhenSessionEnds: a stream is served to a session.
// When the session logs out, when the account signs out everywhere, or
// when the API token it was opened with is revoked, the stream must end:
// a token that no longer opens anything must not go on receiving the
// player's notifications and their seat's private events.
func TestAttackStreamEndsWhenSessionEnds(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Now().UTC(), flowing: time.Now()}
	e := startNotifyEnv(t, modelstest.Open(t, models.SQLite, models.Options{Now: clk.Now}), clk, notifyOptions{heartbeat: time.Second})
	for how, names := range map[string][2]string{"logout": {"ann", "ben"}, "logout-everywhere": {"amy", "bea"}, "revoke-token": {"ava", "bud"}} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			ana, bob := e.register(names[0]), e.register(names[1])
			g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
			token := bob.Access
			var tokID int64
			if how == "revoke-token" {
				var tok struct {
					ID    int64  `json:"id"`
					Token string `json:"token"`
				}
				e.must(201, req{Method: "POST", Path: "/v1/tokens", Token: bob.Access,
					Body: map[string]any{"name": "watcher", "scopes": []string{"read"}}}).decode(t, &tok)
				token, tokID = tok.Token, tok.ID
			}
			notes, stopNotes := e.openStream(t, "/v1/notifications/stream", token, "")
			defer stopNotes()
			game, stopGame := e.openStream(t, fmt.Sprintf("/v1/games/%d/stream", g.ID), token, "")
			defer stopGame()
			waitFor(t, "the streams", func() bool { return e.hub.Subscribers(notifier.GameSeatTopic(g.ID, 1)) == 1 })
			switch how {
			case "logout":
				e.must(204, req{Method: "POST", Path: "/v1/auth/logout", Body: map[string]string{"refresh_token": bob.Refresh}})
			case "logout-everywhere":
				e.must(204, req{Method: "POST", Path: "/v1/me/logout-everywhere", Token: bob.Access})
			case "revoke-token":
				e.must(204, req{Method: "DELETE", Path: fmt.Sprintf("/v1/tokens/%d", tokID), Token: bob.Access})
			}
			if r := e.do(req{Method: "GET", Path: "/v1/me", Token: token}); r.Status != 401 {
				t.Fatalf("after %s the token still reads /v1/me: %d", how, r.Status)
			}
			// The streams check at their heartbeat (every second here).
			for name, ch := range map[string]<-chan sseEvent{"notification": notes, "game": game} {
				if _, closed := collect(ch, 5*time.Second); !closed {
					t.Errorf("after %s, the %s stream opened with the ended token is still open", how, name)
				}
			}
			// The other player's stream goes on.
			other, stopOther := e.openStream(t, "/v1/notifications/stream", ana.Access, "")
			defer stopOther()
			if _, closed := collect(other, 3*time.Second); closed {
				t.Errorf("after bob's %s, ana's stream ended too", how)
			}
		})
	}
}

// TestAttackStreamManyAtOnce: ana opens live streams, of both kinds, as
// fast as she can. What must hold: past the server's limit per client (3
// here) the next one, of either kind, is refused with 409
// too_many_streams naming the limit, and costs nothing (no subscription
// stays); her open streams go on; bob, another client, opens his; once
// she closes one she may open one again. On both databases (on Postgres
// each stream also holds a presence row).
func TestAttackStreamManyAtOnce(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		e.hub.StreamsPerClient = 3
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		gamePath := fmt.Sprintf("/v1/games/%d/stream", g.ID)
		var stops []func()
		for _, path := range []string{gamePath, gamePath, "/v1/notifications/stream"} {
			_, stop := e.openStream(t, path, ana.Access, "")
			stops = append(stops, stop)
		}
		first, _ := e.openStream(t, gamePath, bob.Access, "")
		next(t, first) // bob's backlog
		for _, path := range []string{gamePath, "/v1/notifications/stream"} {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			res := e.rawStream(t, ctx, path, ana.Access, "", false)
			body := problemOf(t, res)
			cancel()
			if res.StatusCode != 409 || !strings.Contains(body, "too_many_streams") || !strings.Contains(body, "3 live streams") {
				t.Errorf("ana's 4th stream, %s: %d %.300s; want 409 too_many_streams naming the limit", path, res.StatusCode, body)
			}
		}
		if n := e.hub.Subscribers(notifier.GameSeatTopic(g.ID, 0)) + e.hub.Subscribers(notifier.GameSeatTopic(g.ID, 1)); n != 3 {
			t.Errorf("%d subscriptions to the game after the refusals; want 3 (ana's 2 and bob's)", n)
		}
		stops[0]()
		waitFor(t, "ana's closed stream to count no more", func() bool {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res := e.rawStream(t, ctx, gamePath, ana.Access, "", false)
			defer res.Body.Close()
			return res.StatusCode == 200
		})
	})
}

// TestAttackStreamUnannounced: a game's stream whose presence row went
// missing (another process deleted it as expired while this one could
// not refresh it; likewise a change that began before the row was
// written and outlasted the stream's wait) gets no announcement of the
// game's changes. It must get their events all the same, at its next
// heartbeat, in order and once each: it got them only with the game's
// next announced change, or never when that change ended the game.
func TestAttackStreamUnannounced(t *testing.T) {
	t.Parallel()
	url := modelstest.SchemaURL(t) // skips without TEST_DATABASE_URL
	clk := &clock{t: time.Now().UTC(), flowing: time.Now()}
	srv := startNotifyEnv(t, openSchema(t, url, clk), clk, notifyOptions{databaseURL: url, idle: true, heartbeat: 200 * time.Millisecond})
	e := startNotifyEnv(t, openSchema(t, url, clk), clk, notifyOptions{databaseURL: url})
	ana, bob := e.register("ana"), e.register("bob")
	g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	path := fmt.Sprintf("/v1/games/%d/stream", g.ID)
	ch, stop := srv.openStream(t, path, bob.Access, "")
	defer stop()
	waitFor(t, "bob's subscription", func() bool { return srv.hub.Subscribers(notifier.GameSeatTopic(g.ID, 1)) == 1 })
	got, _ := collect(ch, 500*time.Millisecond)

	db, err := e.store.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	// Twice: the stream reads the events again once the game moved.
	for round := range 2 {
		if _, err := db.Exec(`DELETE FROM stream_presence WHERE game_id = $1`, g.ID); err != nil {
			t.Fatal(err)
		}
		if advance(t, e.env, g.ID, []*player{ana, bob}, uint64(7+round), 4) == 0 {
			t.Fatal("no action played")
		}
		var log struct {
			Events []struct {
				Seq int64 `json:"seq"`
			} `json:"events"`
		}
		e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d/events?limit=500", g.ID), Token: bob.Access}).decode(t, &log)
		var want []string
		for _, ev := range log.Events {
			want = append(want, strconv.FormatInt(ev.Seq, 10))
		}
		var ids []string
		deadline := time.Now().Add(10 * time.Second)
		for len(ids) < len(want) && time.Now().Before(deadline) {
			more, closed := collect(ch, 300*time.Millisecond)
			got = append(got, more...)
			ids = ids[:0]
			for _, ev := range got {
				if ev.Type == "event" {
					ids = append(ids, ev.ID)
				}
			}
			if closed {
				break
			}
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("round %d: bob's stream sent events %v; his log holds %v", round, ids, want)
		}
	}
}

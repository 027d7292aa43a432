package api_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
)

// game is the part of a game response the tests read.
type game struct {
	ID       int64  `json:"id"`
	Status   string `json:"status"`
	Version  int64  `json:"version"`
	YourSeat *int   `json:"your_seat"`
	Seats    []struct {
		Seat     int     `json:"seat"`
		Username *string `json:"username"`
		Joined   bool    `json:"joined"`
		Awaited  bool    `json:"awaited"`
	} `json:"seats"`
	Winners    []int           `json:"winners"`
	View       *engine.View    `json:"view"`
	Prompts    []engine.Prompt `json:"prompts"`
	Legal      []engine.Action `json:"legal"`
	DeadlineAt *string         `json:"deadline_at"`
}

type turnResult struct {
	Version int64  `json:"version"`
	Status  string `json:"status"`
	Events  []struct {
		Seq   int64        `json:"seq"`
		Event engine.Event `json:"event"`
	} `json:"events"`
	View    *engine.View    `json:"view"`
	Prompts []engine.Prompt `json:"prompts"`
	Legal   []engine.Action `json:"legal"`
}

var prebuilt = []string{"running-a-startup", "working-for-the-enterprise"}

func deck(i int) map[string]string { return map[string]string{"prebuilt": prebuilt[i%len(prebuilt)]} }

// startGame creates a game for players (the first creates it, the others
// join) and starts it.
func (e *env) startGame(body map[string]any, players ...*player) game {
	e.t.Helper()
	body["players"] = len(players)
	body["deck"] = deck(0)
	var g game
	e.must(201, req{Method: "POST", Path: "/v1/games", Token: players[0].Access, Body: body}).decode(e.t, &g)
	for i, p := range players[1:] {
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/join", g.ID), Token: p.Access,
			Body: map[string]any{"deck": deck(i + 1)}})
	}
	e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/start", g.ID), Token: players[0].Access})
	return e.getGame(g.ID, players[0])
}

func (e *env) getGame(id int64, p *player) game {
	e.t.Helper()
	var g game
	e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", id), Token: p.Access}).decode(e.t, &g)
	return g
}

func (e *env) legal(id int64, p *player) []engine.Action {
	e.t.Helper()
	var l struct {
		Actions []engine.Action `json:"actions"`
	}
	e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d/legal", id), Token: p.Access}).decode(e.t, &l)
	return l.Actions
}

// answered fills in an answer of a legal list (a prompt and no choices:
// the prompt's description stands for every answer) with the answer a
// timeout would give, taken from the player's prompts; any other action is
// returned as it is.
func answered(a engine.Action, prompts []engine.Prompt) engine.Action {
	for i := range prompts {
		if a.Type == engine.ActAnswer && a.Choices == nil && prompts[i].ID == a.Prompt {
			a.Choices = prompts[i].Default()
		}
	}
	return a
}

func actionsPath(id int64) string { return fmt.Sprintf("/v1/games/%d/actions", id) }

// awaited returns the players the game waits for, as the game says.
func awaited(g game, players []*player) []*player {
	var out []*player
	for _, s := range g.Seats {
		if s.Awaited {
			out = append(out, players[s.Seat])
		}
	}
	return out
}

func TestLobby(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, cyd, dan := e.register("ana"), e.register("bob"), e.register("cyd"), e.register("dan")
		var g game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{
			"players": 3, "deck": deck(0), "invite": []string{"bob"}, "mode": "fast", "policy": "conceal"}}).decode(t, &g)
		if g.Status != "open" || len(g.Seats) != 3 || *g.Seats[1].Username != "bob" || g.Seats[1].Joined || g.Seats[2].Username != nil {
			t.Fatalf("created: %+v", g)
		}
		path := func(verb string) string { return fmt.Sprintf("/v1/games/%d/%s", g.ID, verb) }
		if r := e.do(req{Method: "POST", Path: path("start"), Token: ana.Access}); r.Status != 409 || r.code(t) != "not_full" {
			t.Fatalf("start early: %d %s", r.Status, r.Body)
		}
		// The open seat goes to the first stranger; the invited seat stays bob's.
		e.must(200, req{Method: "POST", Path: path("join"), Token: cyd.Access, Body: map[string]any{"deck": deck(1)}})
		if r := e.do(req{Method: "POST", Path: path("join"), Token: dan.Access, Body: map[string]any{"deck": deck(1)}}); r.Status != 409 || r.code(t) != "game_full" {
			t.Fatalf("join full: %d %s", r.Status, r.Body)
		}
		e.must(200, req{Method: "POST", Path: path("leave"), Token: cyd.Access})
		e.must(200, req{Method: "POST", Path: path("join"), Token: dan.Access, Body: map[string]any{"deck": deck(1)}})
		if r := e.do(req{Method: "POST", Path: path("join"), Token: dan.Access, Body: map[string]any{"deck": deck(1)}}); r.Status != 409 || r.code(t) != "already_joined" {
			t.Fatalf("join twice: %d", r.Status)
		}
		if r := e.do(req{Method: "POST", Path: path("join"), Token: bob.Access, Body: map[string]any{"deck": map[string]any{"prebuilt": "nope"}}}); r.Status != 422 {
			t.Fatalf("unknown deck: %d", r.Status)
		}
		e.must(200, req{Method: "POST", Path: path("join"), Token: bob.Access, Body: map[string]any{"deck": deck(1)}})
		if r := e.do(req{Method: "POST", Path: path("start"), Token: bob.Access}); r.Status != 403 || r.code(t) != "not_creator" {
			t.Fatalf("start by a guest: %d", r.Status)
		}
		if r := e.do(req{Method: "POST", Path: path("leave"), Token: ana.Access}); r.Status != 409 {
			t.Fatalf("creator leaves: %d", r.Status)
		}
		var tr turnResult
		e.must(200, req{Method: "POST", Path: path("start"), Token: ana.Access}).decode(t, &tr)
		if tr.Status != "active" || tr.View == nil || tr.View.Seat != 0 || len(tr.View.Players) != 3 {
			t.Fatalf("started: %+v", tr)
		}
		if r := e.do(req{Method: "POST", Path: path("cancel"), Token: ana.Access}); r.Status != 409 || r.code(t) != "game_not_open" {
			t.Fatalf("cancel after start: %d", r.Status)
		}
		// Lists: mine, awaiting me, the lobby.
		var list struct {
			Games []game `json:"games"`
		}
		e.must(200, req{Method: "GET", Path: "/v1/games?status=active", Token: dan.Access}).decode(t, &list)
		if len(list.Games) != 1 || list.Games[0].ID != g.ID || *list.Games[0].YourSeat != 2 {
			t.Fatalf("dan's games: %+v", list.Games)
		}
		n := 0
		for _, p := range []*player{ana, bob, dan} {
			e.must(200, req{Method: "GET", Path: "/v1/games?awaiting=true", Token: p.Access}).decode(t, &list)
			n += len(list.Games)
		}
		if n == 0 {
			t.Fatal("nobody is awaited")
		}
		var g2 game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: cyd.Access, Body: map[string]any{"players": 2, "deck": deck(0)}}).decode(t, &g2)
		e.must(200, req{Method: "GET", Path: "/v1/games?open=true", Token: dan.Access}).decode(t, &list)
		if len(list.Games) != 1 || list.Games[0].ID != g2.ID {
			t.Fatalf("lobby: %+v", list.Games)
		}
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/cancel", g2.ID), Token: cyd.Access})
		e.must(200, req{Method: "GET", Path: "/v1/games?open=true", Token: dan.Access}).decode(t, &list)
		if len(list.Games) != 0 {
			t.Fatalf("cancelled game in the lobby: %+v", list.Games)
		}
	})
}

func TestIdempotentCreate(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		key := map[string]string{"Idempotency-Key": "create-1"}
		body := map[string]any{"players": 2, "deck": deck(0)}
		var a, b game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: body, Header: key}).decode(t, &a)
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: body, Header: key}).decode(t, &b)
		if a.ID != b.ID {
			t.Fatalf("the retry created game %d besides %d", b.ID, a.ID)
		}
		body["players"] = 3
		if r := e.do(req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: body, Header: key}); r.Status != 422 || r.code(t) != "idempotency_key_reused" {
			t.Fatalf("other body: %d %s", r.Status, r.Body)
		}
		// Keys belong to their user.
		bob := e.register("bob")
		var c game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: bob.Access, Body: body, Header: key}).decode(t, &c)
		if c.ID == a.ID {
			t.Fatal("bob got ana's stored response")
		}
	})
}

func TestOfficeGame(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast", "office": true}, ana, bob)
		if g.Status != "active" || g.View == nil || !g.View.Office || g.View.SharedDeck == 0 {
			t.Fatalf("office game: %+v", g.View)
		}
		for _, p := range g.View.Players {
			if p.DeckCount != 0 {
				t.Fatalf("seat %d has a personal deck in the office variant", p.Seat)
			}
		}
	})
}

func TestGameListPagination(t *testing.T) {
	e := newEnv(t, "sqlite", testConfig())
	ana := e.register("ana")
	for range 5 {
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{"players": 2, "deck": deck(0)}})
	}
	var seen []int64
	path := "/v1/games?limit=2"
	for range 10 {
		var page struct {
			Games      []game  `json:"games"`
			NextCursor *string `json:"next_cursor"`
		}
		e.must(200, req{Method: "GET", Path: path, Token: ana.Access}).decode(t, &page)
		for _, g := range page.Games {
			seen = append(seen, g.ID)
		}
		if page.NextCursor == nil {
			break
		}
		path = "/v1/games?limit=2&cursor=" + *page.NextCursor
	}
	if len(seen) != 5 || seen[0] < seen[4] {
		t.Fatalf("pages gave %v", seen)
	}
}

func TestTurnsVersionsAndErrors(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		players := []*player{ana, bob}
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		me := awaited(g, players)[0]
		other := players[1-e.getGame(g.ID, me).mustSeat(t)]

		// ETag and If-None-Match.
		r := e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", g.ID), Token: me.Access})
		etag := r.Header.Get("ETag")
		e.must(304, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", g.ID), Token: me.Access, Header: map[string]string{"If-None-Match": etag}})
		// A deadline moved without a new version (a vacation does that)
		// changes the ETag and the body.
		old, _ := time.Parse(time.RFC3339Nano, *e.getGame(g.ID, me).DeadlineAt)
		row, _ := e.store.Game(context.Background(), g.ID)
		if ok, err := e.store.ExtendDeadline(context.Background(), g.ID, *row.DeadlineAt, row.DeadlineAt.Add(time.Hour), *row.DeadlineAt, ""); !ok || err != nil {
			t.Fatalf("extend: %v %v", ok, err)
		}
		r = e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", g.ID), Token: me.Access, Header: map[string]string{"If-None-Match": etag}})
		var moved game
		r.decode(t, &moved)
		if now, _ := time.Parse(time.RFC3339Nano, *moved.DeadlineAt); !now.Equal(old.Add(time.Hour)) || moved.Version != g.Version {
			t.Fatalf("deadline %s at version %d after moving %s by an hour", *moved.DeadlineAt, moved.Version, old)
		}
		etag = r.Header.Get("ETag")

		// The game detail carries what the caller may do, as /legal says.
		if mine, l := e.getGame(g.ID, me), e.legal(g.ID, me); len(l) == 0 || !reflect.DeepEqual(mine.Legal, l) {
			t.Fatalf("the awaited player's detail lists %v, /legal %v", mine.Legal, l)
		}
		// The waiting player has no legal actions; acting is not their turn.
		if l := e.legal(g.ID, other); len(l) != 0 {
			t.Fatalf("other seat has legal actions: %v", l)
		}
		if r := e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", g.ID), Token: other.Access}); !strings.Contains(string(r.Body), `"legal":[]`) {
			t.Fatalf("the waiting player's detail: %.300s", r.Body)
		}
		r = e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: other.Access, Body: map[string]any{"expected_version": g.Version, "actions": []map[string]string{{"type": "end_turn"}}}})
		if r.Status != 422 || r.code(t) != "illegal_action" || !strings.Contains(string(r.Body), `"index":0`) {
			t.Fatalf("out of turn: %d %s", r.Status, r.Body)
		}
		// A batch fails as a whole and names the failing action.
		r = e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: me.Access, Body: map[string]any{"expected_version": g.Version,
			"actions": []map[string]string{{"type": "end_turn"}, {"type": "place", "card": "nope"}}}})
		if r.Status != 422 || !strings.Contains(string(r.Body), `"index":1`) || !strings.Contains(string(r.Body), `"reason":`) {
			t.Fatalf("bad batch: %d %s", r.Status, r.Body)
		}
		if now := e.getGame(g.ID, me); now.Version != g.Version {
			t.Fatalf("failed batch changed the version: %d", now.Version)
		}
		// Missing version, stale version.
		if r := e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: me.Access, Body: map[string]any{"actions": []map[string]string{{"type": "end_turn"}}}}); r.Status != 428 {
			t.Fatalf("no version: %d", r.Status)
		}
		r = e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: me.Access, Body: map[string]any{"expected_version": g.Version - 1, "actions": []map[string]string{{"type": "end_turn"}}}})
		if r.Status != 409 || r.code(t) != "stale_version" || !strings.Contains(string(r.Body), fmt.Sprintf(`"current_version":%d`, g.Version)) {
			t.Fatalf("stale: %d %s", r.Status, r.Body)
		}
		// A stranger cannot act; timeout is not for clients.
		cyd := e.register("cyd")
		if r := e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: cyd.Access, Body: map[string]any{"expected_version": g.Version, "actions": []map[string]string{{"type": "end_turn"}}}}); r.Status != 403 {
			t.Fatalf("stranger: %d", r.Status)
		}
		if r := e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: me.Access, NoContract: true, Body: map[string]any{"expected_version": g.Version, "actions": []map[string]string{{"type": "timeout"}}}}); r.Status != 422 {
			t.Fatalf("timeout from a client: %d", r.Status)
		}

		// Idempotency: the same request twice applies once; another body with
		// the key is refused. If-Match works in place of expected_version.
		key := map[string]string{"Idempotency-Key": "turn-1", "If-Match": etag}
		body := map[string]any{"actions": []map[string]string{{"type": "end_turn"}}}
		first := e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: me.Access, Body: body, Header: key})
		again := e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: me.Access, Body: body, Header: key})
		if string(first.Body) != string(again.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay differs:\n%s\n%s", first.Body, again.Body)
		}
		var tr turnResult
		first.decode(t, &tr)
		if tr.Version != g.Version+1 || e.getGame(g.ID, me).Version != g.Version+1 {
			t.Fatalf("applied twice? version %d", tr.Version)
		}
		// The stored response (it shows the player's hand) is sealed.
		db, _ := e.store.SQLDB()
		var stored []byte
		if err := db.QueryRow(`SELECT response FROM idempotency_keys WHERE key = 'turn-1'`).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(stored), `"hand"`) || strings.Contains(string(stored), `"version"`) {
			t.Fatalf("the turn's stored response is in the clear: %.80s", stored)
		}
		r = e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: me.Access, Header: key,
			Body: map[string]any{"actions": []map[string]string{{"type": "vote_end"}}}})
		if r.Status != 422 || r.code(t) != "idempotency_key_reused" {
			t.Fatalf("key reuse: %d %s", r.Status, r.Body)
		}
		e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", g.ID), Token: me.Access, Header: map[string]string{"If-None-Match": etag}})
	})
}

func (g game) mustSeat(t *testing.T) int {
	if g.YourSeat == nil {
		t.Fatal("no seat")
	}
	return *g.YourSeat
}

// TestConcurrentSubmissions sends 32 submissions computed from one version
// at once: exactly one is applied and the others get 409 stale_version.
func TestConcurrentSubmissions(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		me := awaited(g, []*player{ana, bob})[0]
		statuses := make([]int, 32)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: me.Access,
					Body: map[string]any{"expected_version": g.Version, "actions": []map[string]string{{"type": "end_turn"}}}}).Status
			}()
		}
		wg.Wait()
		ok := 0
		for _, s := range statuses {
			switch s {
			case 200:
				ok++
			case 409:
			default:
				t.Errorf("status %d", s)
			}
		}
		if ok != 1 {
			t.Fatalf("%d submissions applied, want 1 (%v)", ok, statuses)
		}
		if v := e.getGame(g.ID, me).Version; v != g.Version+1 {
			t.Fatalf("version %d, want %d", v, g.Version+1)
		}
	})
}

// TestRedaction checks that nobody reads another seat's hand, deck order,
// Recycle Bin, prompts or the seed, in views, events and turn responses.
func TestRedaction(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, eve := e.register("ana"), e.register("bob"), e.register("eve")
		players := []*player{ana, bob}
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		hands := map[int][]string{}
		for i, p := range players {
			v := e.getGame(g.ID, p).View
			if v.Seat != i || len(v.Hand) == 0 {
				t.Fatalf("seat %d view: %+v", i, v)
			}
			for _, c := range v.Hand {
				hands[i] = append(hands[i], c.ID)
			}
		}
		read := func(p *player, path string) string {
			return string(e.must(200, req{Method: "GET", Path: path, Token: p.Access}).Body)
		}
		for i, p := range players {
			other := hands[1-i]
			for _, path := range []string{fmt.Sprintf("/v1/games/%d", g.ID), fmt.Sprintf("/v1/games/%d/events", g.ID)} {
				body := read(p, path)
				for _, id := range other {
					if strings.Contains(body, id) {
						t.Fatalf("seat %d reads seat %d's card %s in %s", i, 1-i, id, path)
					}
				}
				if strings.Contains(body, `"seed"`) || strings.Contains(body, `"deck":[`) {
					t.Fatalf("%s leaks state: %.200s", path, body)
				}
			}
		}
		// A spectator of a public game sees no hand at all.
		spec := e.getGame(g.ID, eve)
		if spec.YourSeat != nil || spec.View.Seat != -1 || len(spec.View.Hand) != 0 || len(spec.Prompts) != 0 || spec.Legal != nil {
			t.Fatalf("spectator: %+v", spec.View)
		}
		for _, ids := range hands {
			for _, id := range ids {
				if strings.Contains(read(eve, fmt.Sprintf("/v1/games/%d/events", g.ID)), id) {
					t.Fatal("spectator reads a hand in the event log")
				}
			}
		}
		if r := e.do(req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d/legal", g.ID), Token: eve.Access}); r.Status != 403 {
			t.Fatalf("spectator legal: %d", r.Status)
		}
		// A private game is not found for strangers.
		priv := e.startGame(map[string]any{"mode": "fast", "public": false, "invite": []string{"bob"}}, ana, bob)
		if r := e.do(req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", priv.ID), Token: eve.Access}); r.Status != 404 {
			t.Fatalf("private game: %d", r.Status)
		}
		if r := e.do(req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d/events", priv.ID), Token: eve.Access}); r.Status != 404 {
			t.Fatalf("private events: %d", r.Status)
		}
	})
}

func TestDecksAPI(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		var cards struct {
			Cards []struct {
				ID, Type, Text string
			} `json:"cards"`
		}
		e.must(200, req{Method: "GET", Path: "/v1/cards"}).decode(t, &cards)
		if len(cards.Cards) == 0 || cards.Cards[0].Text == "" {
			t.Fatalf("catalogue: %d cards", len(cards.Cards))
		}
		var pre struct {
			Decks []struct {
				ID    string `json:"id"`
				Cards []map[string]any
			} `json:"decks"`
		}
		e.must(200, req{Method: "GET", Path: "/v1/prebuilt-decks"}).decode(t, &pre)
		if len(pre.Decks) < 2 {
			t.Fatalf("prebuilt: %d", len(pre.Decks))
		}
		good := map[string]any{"name": "copy", "cards": pre.Decks[0].Cards}
		var d struct {
			ID   int64 `json:"id"`
			Size int   `json:"size"`
		}
		e.must(201, req{Method: "POST", Path: "/v1/decks", Token: ana.Access, Body: good}).decode(t, &d)
		if d.Size < engine.MinDeck {
			t.Fatalf("size %d", d.Size)
		}
		// Too many copies of one card: the error names the card and the rule.
		bad := map[string]any{"name": "bad", "cards": []map[string]any{{"card": pre.Decks[0].Cards[0]["card"], "count": 9}}}
		r := e.do(req{Method: "POST", Path: "/v1/decks", Token: ana.Access, Body: bad})
		var p struct{ Code, Card, Rule string }
		r.decode(t, &p)
		if r.Status != 422 || p.Code != "invalid_deck" || p.Rule == "" {
			t.Fatalf("bad deck: %d %s", r.Status, r.Body)
		}
		path := fmt.Sprintf("/v1/decks/%d", d.ID)
		if r := e.do(req{Method: "GET", Path: path, Token: bob.Access}); r.Status != 404 {
			t.Fatalf("another's deck: %d", r.Status)
		}
		good["name"] = "renamed"
		e.must(200, req{Method: "PUT", Path: path, Token: ana.Access, Body: good})
		var list struct {
			Decks []struct{ Name string } `json:"decks"`
		}
		e.must(200, req{Method: "GET", Path: "/v1/decks", Token: ana.Access}).decode(t, &list)
		if len(list.Decks) != 1 || list.Decks[0].Name != "renamed" {
			t.Fatalf("list: %+v", list)
		}
		// A custom deck can be played.
		var g game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{"players": 2, "deck": map[string]any{"deck_id": d.ID}}}).decode(t, &g)
		e.must(204, req{Method: "DELETE", Path: path, Token: ana.Access})
		e.must(404, req{Method: "GET", Path: path, Token: ana.Access})
	})
}

// TestTurnClock: a turn's deadline is set when the turn starts and runs on
// through the turn's actions, the choices the turn asks of its player
// included; it moves when the game waits for another seat. Each response
// also lists the player's next legal actions.
func TestTurnClock(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		players := []*player{ana, bob}
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		checked, moved, inTurn := 0, 0, 0
		// ownTurn: the game waits for who alone, on who's turn (any prompt
		// is a choice of that turn).
		ownTurn := func(g game, who *player) bool {
			aw := awaited(g, players)
			return len(aw) == 1 && aw[0] == who && g.View != nil && players[g.View.Active] == who
		}
		for range 30 {
			cur := e.getGame(g.ID, ana)
			if cur.Status != "active" {
				break
			}
			who := awaited(cur, players)[0]
			mine := e.getGame(g.ID, who)
			legal := e.legal(g.ID, who)
			a := answered(legal[0], mine.Prompts)
			// Places and activations first, but from the sixth action of
			// a turn on the turn ends as soon as it can: a Monster that
			// recovers the card it replaced could otherwise be placed and
			// activated forever.
			for _, l := range legal {
				if l.Type == engine.ActPlace || l.Type == engine.ActActivate {
					a = l
					break
				}
			}
			for _, l := range legal {
				if inTurn >= 5 && l.Type == engine.ActEndTurn {
					a = l
				}
			}
			if inTurn++; a.Type == engine.ActEndTurn {
				inTurn = 0
			}
			e.clock.Add(20 * time.Minute) // 30 of them stay within the access tokens' lifetime
			var tr turnResult
			e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: who.Access,
				Body: map[string]any{"expected_version": cur.Version, "actions": []engine.Action{a}}}).decode(t, &tr)
			// The response lists what the player may do next, as GET .../legal does.
			if got, want := fmt.Sprint(tr.Legal), fmt.Sprint(e.legal(g.ID, who)); got != want {
				t.Fatalf("legal in the response %s, GET .../legal %s", got, want)
			}
			next := e.getGame(g.ID, who)
			sameWait := ownTurn(mine, who) && ownTurn(next, who)
			switch {
			case next.Status != "active":
			case sameWait:
				checked++
				if *next.DeadlineAt != *cur.DeadlineAt {
					t.Fatalf("%s within the turn moved the deadline from %s to %s", a.Type, *cur.DeadlineAt, *next.DeadlineAt)
				}
			case *next.DeadlineAt != *cur.DeadlineAt:
				moved++
			}
		}
		if checked == 0 || moved == 0 {
			t.Fatalf("%d actions within a turn, %d changes of who is awaited: too few to check the clock", checked, moved)
		}
	})
}

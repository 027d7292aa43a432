package api_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// lobbyProblem is the part of a refusal the lobby attacks read.
type lobbyProblem struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// gamePath is the path of game id's verb ("" for the game itself).
func gamePath(id int64, verb string) string {
	if verb == "" {
		return fmt.Sprintf("/v1/games/%d", id)
	}
	return fmt.Sprintf("/v1/games/%d/%s", id, verb)
}

// sameGame fails t unless game id, as p reads it, is still what before
// was: its version and every seat's user and joined flag.
func (e *env) sameGame(t *testing.T, what string, id int64, p *player, before game) {
	t.Helper()
	got := e.getGame(id, p)
	if got.Version != before.Version || got.Status != before.Status || len(got.Seats) != len(before.Seats) {
		t.Fatalf("%s changed the game: version %d -> %d, status %s -> %s", what, before.Version, got.Version, before.Status, got.Status)
	}
	for i, s := range got.Seats {
		b := before.Seats[i]
		if s.Joined != b.Joined || (s.Username == nil) != (b.Username == nil) || s.Username != nil && *s.Username != *b.Username {
			t.Fatalf("%s changed seat %d: %+v -> %+v", what, i, b, s)
		}
	}
}

// noContract marks r as deliberately outside the contract's request
// schemas (a hostile client's).
func noContract(r req) req {
	r.NoContract = true
	return r
}

// TestAttackLobbyJoinManySeatsAtOnce: twelve players, one of them sending
// its join twice, rush the three open seats of a four-player game at the
// same moment. What must hold: exactly three joins succeed, each for a
// different player and seat; every other join is a 409 game_full or (the
// doubled one) already_joined, never a 5xx; the game's version grew by
// exactly three and no player sits twice.
func TestAttackLobbyJoinManySeatsAtOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		g := e.openGame(ana, 4)
		var joins []req
		var who []*player
		for i := range 12 {
			p := e.register(fmt.Sprintf("rusher%d", i))
			n := 1
			if i == 0 {
				n = 2 // a double click
			}
			for range n {
				who = append(who, p)
				joins = append(joins, req{Method: "POST", Path: gamePath(g.ID, "join"), Token: p.Access, Body: map[string]any{"deck": deck(i)}})
			}
		}
		won := map[string]int{}
		for i, r := range e.queuedAtOnce(g.ID, joins...) {
			switch {
			case r.Status == 200:
				won[who[i].Name]++
			case r.Status == 409 && (r.code(t) == "game_full" || who[i] == who[0] && r.code(t) == "already_joined"):
			default:
				t.Errorf("%s: %d %s", who[i].Name, r.Status, r.Body)
			}
		}
		if len(won) != 3 {
			t.Fatalf("%d players got a seat, want 3: %v", len(won), won)
		}
		for name, n := range won {
			if n != 1 {
				t.Errorf("%s got %d seats", name, n)
			}
		}
		got := e.getGame(g.ID, ana)
		seen := map[string]bool{}
		for _, s := range got.Seats {
			if !s.Joined || s.Username == nil || seen[*s.Username] {
				t.Fatalf("seats after the rush: %+v", got.Seats)
			}
			seen[*s.Username] = true
		}
		if got.Version != g.Version+3 {
			t.Fatalf("version %d after three joins from %d", got.Version, g.Version)
		}
	})
}

// TestAttackLobbyPrivateGame: a stranger goes after a private game with
// every lobby verb, having guessed its id. What must hold: each answer is
// 404, as for a game that does not exist, the game is not in the open
// games list, and nothing changes; the invited player still joins.
func TestAttackLobbyPrivateGame(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, eve := e.register("ana"), e.register("bob"), e.register("eve")
		var g game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{
			"players": 3, "deck": deck(0), "public": false, "invite": []string{"bob"}}}).decode(t, &g)
		for _, verb := range []string{"join", "leave", "start", "cancel", "resign", "vote-end", "reclaim"} {
			var body any
			if verb == "join" {
				body = map[string]any{"deck": deck(1)}
			}
			if r := e.do(req{Method: "POST", Path: gamePath(g.ID, verb), Token: eve.Access, Body: body}); r.Status != 404 {
				t.Errorf("a stranger's %s of a private game: %d %s", verb, r.Status, r.Body)
			}
		}
		if r := e.do(req{Method: "GET", Path: gamePath(g.ID, ""), Token: eve.Access}); r.Status != 404 {
			t.Errorf("a stranger reads a private game: %d", r.Status)
		}
		if slices.Contains(e.openIDs(eve, ""), g.ID) {
			t.Fatal("the private game is in the open games list")
		}
		e.sameGame(t, "the stranger", g.ID, ana, g)
		e.must(200, req{Method: "POST", Path: gamePath(g.ID, "join"), Token: bob.Access, Body: map[string]any{"deck": deck(1)}})
	})
}

// TestAttackLobbyRefusalsChangeNothing: a careless and a hostile user try
// every lobby rule on an open game: the wrong person starts, cancels
// or leaves; the creator leaves; a game starts before it is
// full; a join names another player's deck, an unknown deck or two decks;
// a creation invites nobody, itself, someone twice, too many players or
// too many bots. What must hold: each is a 4xx whose code (and, for a
// setting, detail) names the rule or field, never a 5xx, and the game is
// exactly as it was.
func TestAttackLobbyRefusalsChangeNothing(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, cyd := e.register("ana"), e.register("bob"), e.register("cyd")
		bobsDeck, _ := e.saveDeck(bob, "bob's")

		var g game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{
			"players": 3, "deck": deck(0), "invite": []string{"bob"}}}).decode(t, &g)
		type attempt struct {
			what   string
			r      req
			status int
			code   string
			detail string // the start of the detail, "" for any
		}
		post := func(p *player, verb string, body any) req {
			return req{Method: "POST", Path: gamePath(g.ID, verb), Token: p.Access, Body: body}
		}
		create := func(body map[string]any) req {
			body["deck"] = deck(0)
			return req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: body}
		}
		for _, a := range []attempt{
			{"start by a guest", post(bob, "start", nil), 403, "not_creator", ""},
			{"cancel by a guest", post(bob, "cancel", nil), 403, "not_creator", ""},
			{"cancel by a stranger", post(cyd, "cancel", nil), 403, "not_creator", ""},
			{"leave by a stranger", post(cyd, "leave", nil), 403, "not_a_player", ""},
			{"leave by the invitee not joined", post(bob, "leave", nil), 403, "not_a_player", ""},
			{"leave by the creator", post(ana, "leave", nil), 409, "creator_cannot_leave", ""},
			{"start before full", post(ana, "start", nil), 409, "not_full", ""},
			{"join twice", post(ana, "join", map[string]any{"deck": deck(0)}), 409, "already_joined", ""},
			{"reclaim before the start", post(ana, "reclaim", nil), 409, "", ""},
			{"resign before the start", post(ana, "resign", nil), 409, "", ""},
			{"vote before the start", post(ana, "vote-end", nil), 409, "", ""},
			{"join with another's deck", post(cyd, "join", map[string]any{"deck": map[string]any{"deck_id": bobsDeck}}), 422, "invalid", "deck:"},
			{"join with no such deck", post(cyd, "join", map[string]any{"deck": map[string]any{"deck_id": 1 << 62}}), 422, "invalid", "deck:"},
			{"join with a negative deck id", post(cyd, "join", map[string]any{"deck": map[string]any{"deck_id": -1}}), 422, "invalid", "deck:"},
			{"join with an unknown prebuilt", post(cyd, "join", map[string]any{"deck": map[string]any{"prebuilt": "../../etc/passwd"}}), 422, "invalid", "deck:"},
			{"join with two decks", post(cyd, "join", map[string]any{"deck": map[string]any{"prebuilt": prebuilt[0], "deck_id": bobsDeck}}), 422, "invalid", "deck:"},
			{"join with no deck", post(cyd, "join", map[string]any{"deck": map[string]any{}}), 422, "invalid", "deck:"},
			{"invite nobody", create(map[string]any{"players": 2, "invite": []string{"nobody"}}), 422, "invalid", "invite:"},
			{"invite an empty name", create(map[string]any{"players": 2, "invite": []string{""}}), 422, "invalid", "invite:"},
			{"invite oneself", create(map[string]any{"players": 2, "invite": []string{"ana"}}), 422, "invalid", "invite:"},
			{"invite twice", create(map[string]any{"players": 3, "invite": []string{"bob", "bob"}}), 422, "invalid", "invite:"},
			{"invite too many", create(map[string]any{"players": 2, "invite": []string{"bob", "cyd"}}), 422, "invalid", "invite:"},
			{"bots beyond the seats", create(map[string]any{"players": 3, "invite": []string{"bob"}, "bots": 2}), 422, "invalid", "bots:"},
			{"five players", noContract(create(map[string]any{"players": 5})), 422, "invalid", "players:"},
		} {
			r := e.do(a.r)
			if r.Status >= 500 {
				t.Errorf("%s: %d %s", a.what, r.Status, r.Body)
				continue
			}
			var p lobbyProblem
			r.decode(t, &p)
			switch {
			case r.Status != a.status && !(a.status == 422 && r.Status == 400):
				t.Errorf("%s: %d %s, want %d", a.what, r.Status, r.Body, a.status)
			case a.code != "" && r.Status == a.status && p.Code != a.code:
				t.Errorf("%s: code %q (%s), want %q", a.what, p.Code, p.Detail, a.code)
			case a.detail != "" && !strings.HasPrefix(p.Detail, a.detail):
				t.Errorf("%s: detail %q does not name %q", a.what, p.Detail, a.detail)
			}
			e.sameGame(t, a.what, g.ID, ana, g)
		}
		// None of the refused creations made a game.
		var mine struct {
			Games []game `json:"games"`
		}
		e.must(200, req{Method: "GET", Path: "/v1/games", Token: ana.Access}).decode(t, &mine)
		if len(mine.Games) != 1 {
			t.Fatalf("ana has %d games after one creation and refused ones", len(mine.Games))
		}
	})
}

// TestAttackLobbyStartAtOnce: the creator of a full game presses start six
// times at once (a double click, a retried request, two tabs). What must
// hold: exactly one start deals the game and the others get 409
// game_not_open; the version grew by one; no answer, the winner's
// included, shows the game's secret or salt, nor another seat's hand.
func TestAttackLobbyStartAtOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.openGame(ana, 2)
		e.must(200, req{Method: "POST", Path: gamePath(g.ID, "join"), Token: bob.Access, Body: map[string]any{"deck": deck(1)}})
		before := e.getGame(g.ID, ana)
		starts := make([]req, 6)
		for i := range starts {
			starts[i] = req{Method: "POST", Path: gamePath(g.ID, "start"), Token: ana.Access}
		}
		rs := e.queuedAtOnce(g.ID, starts...)
		ok := 0
		for i, r := range rs {
			switch {
			case r.Status == 200:
				ok++
			case r.Status != 409 || r.code(t) != "game_not_open":
				t.Errorf("start %d: %d %s", i, r.Status, r.Body)
			}
		}
		if ok != 1 {
			t.Fatalf("%d starts dealt the game", ok)
		}
		after := e.getGame(g.ID, ana)
		if after.Status != "active" || after.Version != before.Version+1 {
			t.Fatalf("after the starts: %s at version %d, from %d", after.Status, after.Version, before.Version)
		}
		st := storedState(t, e, g.ID)
		forms := secretForms(st.Secret, st.Salt)
		bobs := e.getGame(g.ID, bob).View
		for i, r := range rs {
			for _, f := range forms {
				if bytes.Contains(r.Body, []byte(f)) {
					t.Fatalf("start %d shows the secret: %.300s", i, r.Body)
				}
			}
			for _, c := range bobs.Hand {
				if bytes.Contains(r.Body, []byte(`"`+c.ID+`"`)) {
					t.Fatalf("ana's start %d shows bob's card %s", i, c.ID)
				}
			}
		}
		// A late join of the started game is refused and shows nothing.
		cyd := e.register("cyd")
		r := e.do(req{Method: "POST", Path: gamePath(g.ID, "join"), Token: cyd.Access, Body: map[string]any{"deck": deck(0)}})
		if r.Status != 409 || r.code(t) != "game_not_open" {
			t.Fatalf("a join of the started game: %d %s", r.Status, r.Body)
		}
	})
}

// TestAttackLobbyIdempotencyKeys: Idempotency-Keys on the lobby's
// changes, reused and raced. What must hold: a key used for one join and
// sent with another game's join is a 422 idempotency_key_reused that
// changes nothing there; another user's same key is theirs alone; a
// replay after the player has left answers the stored response again and
// does not seat them again; eight copies of one keyed join at once all
// get the one response, one join applied.
func TestAttackLobbyIdempotencyKeys(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, cyd, dan := e.register("ana"), e.register("bob"), e.register("cyd"), e.register("dan")
		ga, gb := e.openGame(ana, 3), e.openGame(ana, 2)
		key := map[string]string{"Idempotency-Key": "join-1"}
		join := func(p *player, id int64, h map[string]string) req {
			return req{Method: "POST", Path: gamePath(id, "join"), Token: p.Access, Body: map[string]any{"deck": deck(1)}, Header: h}
		}
		first := e.must(200, join(bob, ga.ID, key))
		// The key on another request: refused, nothing done.
		if r := e.do(join(bob, gb.ID, key)); r.Status != 422 || r.code(t) != "idempotency_key_reused" {
			t.Fatalf("the key on another game's join: %d %s", r.Status, r.Body)
		}
		e.sameGame(t, "the reused key", gb.ID, ana, gb)
		if r := e.do(req{Method: "POST", Path: gamePath(ga.ID, "leave"), Token: bob.Access, Header: key}); r.Status != 422 || r.code(t) != "idempotency_key_reused" {
			t.Fatalf("the key on a leave: %d %s", r.Status, r.Body)
		}
		// Another user's same key is theirs.
		var cg game
		e.must(200, join(cyd, ga.ID, key)).decode(t, &cg)
		if cg.YourSeat == nil || *cg.Seats[*cg.YourSeat].Username != "cyd" {
			t.Fatalf("cyd's join with bob's key: %+v", cg)
		}
		// Bob leaves; his join sent again is answered from its record and
		// does not seat him again.
		e.must(200, req{Method: "POST", Path: gamePath(ga.ID, "leave"), Token: bob.Access})
		left := e.getGame(ga.ID, ana)
		again := e.must(200, join(bob, ga.ID, key))
		if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, first.Body) {
			t.Fatalf("the replay: %v %s", again.Header, again.Body)
		}
		e.sameGame(t, "the replay", ga.ID, ana, left)

		// Eight copies of one keyed join at once.
		copies := make([]req, 8)
		for i := range copies {
			copies[i] = join(dan, gb.ID, map[string]string{"Idempotency-Key": "dan-join"})
		}
		rs := e.queuedAtOnce(gb.ID, copies...)
		replayed := 0
		for i, r := range rs {
			if r.Status != 200 || !bytes.Equal(r.Body, rs[0].Body) {
				t.Fatalf("copy %d: %d %s\nfirst: %s", i, r.Status, r.Body, rs[0].Body)
			}
			if r.Header.Get("Idempotent-Replayed") == "true" {
				replayed++
			}
		}
		if replayed != len(rs)-1 {
			t.Fatalf("%d of %d copies replayed", replayed, len(rs))
		}
		if got := e.getGame(gb.ID, ana); got.Version != gb.Version+1 || !got.Seats[1].Joined {
			t.Fatalf("after the copies: version %d (from %d), seat 1 %+v", got.Version, gb.Version, got.Seats[1])
		}
	})
}

// TestAttackLobbyCancelAgainstJoins: the creator cancels while players
// rush to join. What must hold: the cancel succeeds whatever the order;
// a join that came before it is kept in the cancelled game's record and a
// join after it is 409 game_not_open; nobody is left seated in an open
// game; nothing is a 5xx.
func TestAttackLobbyCancelAgainstJoins(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		g := e.openGame(ana, 4)
		rs := []req{{Method: "POST", Path: gamePath(g.ID, "cancel"), Token: ana.Access}}
		for i := range 5 {
			p := e.register(fmt.Sprintf("late%d", i))
			rs = append(rs, req{Method: "POST", Path: gamePath(g.ID, "join"), Token: p.Access, Body: map[string]any{"deck": deck(i)}})
		}
		out := e.queuedAtOnce(g.ID, rs...)
		if out[0].Status != 200 {
			t.Fatalf("cancel: %d %s", out[0].Status, out[0].Body)
		}
		for i, r := range out[1:] {
			if r.Status != 200 && (r.Status != 409 || (r.code(t) != "game_not_open" && r.code(t) != "game_full")) {
				t.Errorf("join %d: %d %s", i, r.Status, r.Body)
			}
		}
		if got := e.getGame(g.ID, ana); got.Status != "cancelled" {
			t.Fatalf("the game is %s", got.Status)
		}
		if slices.Contains(e.openIDs(ana, ""), g.ID) {
			t.Fatal("the cancelled game is still listed as open")
		}
	})
}

// TestAttackLobbyResignAndVoteRaces: both players of a started game resign
// and vote to end several times at once, and a stranger tries too. What
// must hold: nothing is a 5xx; the stranger is refused without changing
// the game; the game ends over, once.
func TestAttackLobbyResignAndVoteRaces(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, eve := e.register("ana"), e.register("bob"), e.register("eve")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		for _, verb := range []string{"resign", "vote-end", "reclaim"} {
			if r := e.do(req{Method: "POST", Path: gamePath(g.ID, verb), Token: eve.Access}); r.Status != 403 || r.code(t) != "not_a_player" {
				t.Errorf("a spectator's %s: %d %s", verb, r.Status, r.Body)
			}
		}
		e.sameGame(t, "the spectator", g.ID, ana, g)
		var rs []req
		for range 3 {
			for _, p := range []*player{ana, bob} {
				for _, verb := range []string{"resign", "vote-end"} {
					rs = append(rs, req{Method: "POST", Path: gamePath(g.ID, verb), Token: p.Access})
				}
			}
		}
		var wg sync.WaitGroup
		out := make([]*resp, len(rs))
		for i := range rs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i] = e.do(rs[i])
			}()
		}
		wg.Wait()
		for i, r := range out {
			if r.Status >= 500 || r.Status != 200 && r.Status != 409 && r.Status != 422 {
				t.Errorf("%s %s: %d %s", rs[i].Path, rs[i].Token[:8], r.Status, r.Body)
			}
		}
		if got := e.getGame(g.ID, ana); got.Status != "over" {
			t.Fatalf("the game is %s", got.Status)
		}
	})
}

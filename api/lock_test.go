package api_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/datamonsters/turns/models/modelstest"
)

// queued sends the requests one after the other while the game's row is
// locked elsewhere, each once the ones before it wait for the lock, then
// lets them run: on Postgres each then waits for the change before it, in
// the order sent (the case of a change that has to wait for another), on
// SQLite they simply run at once. It returns the responses in that order.
func (e *env) queued(gameID int64, rs ...req) []*resp { return e.behindLock(gameID, true, rs) }

// queuedAtOnce is queued for requests whose order does not matter: they
// are sent at once, and the lock is let go once all of them wait for it,
// which keeps it short (a transaction that holds a lock has an id, which
// other tests that wait for the server's running transactions wait for).
func (e *env) queuedAtOnce(gameID int64, rs ...req) []*resp { return e.behindLock(gameID, false, rs) }

func (e *env) behindLock(gameID int64, ordered bool, rs []req) []*resp {
	e.t.Helper()
	gate := modelstest.HoldGame(e.t, e.store, gameID)
	out := make([]*resp, len(rs))
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = e.do(r)
		}()
		if ordered {
			gate.Wait(i + 1)
		}
	}
	gate.Wait(len(rs))
	gate.Release()
	wg.Wait()
	for i, r := range out {
		if r == nil {
			e.t.Fatalf("request %d got no response", i)
		}
	}
	return out
}

// openGame creates a game of players seats, the first p's, the others open.
func (e *env) openGame(p *player, players int) game {
	e.t.Helper()
	var g game
	e.must(201, req{Method: "POST", Path: "/v1/games", Token: p.Access, Body: map[string]any{"players": players, "deck": deck(0)}}).decode(e.t, &g)
	return g
}

// TestConcurrentJoins: 8 players join the one open seat of a game at
// once; exactly one gets it, and the others a 409 game_full.
func TestConcurrentJoins(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		g := e.openGame(ana, 2)
		var joins []req
		var players []*player
		for i := range 8 {
			p := e.register(fmt.Sprintf("joiner%d", i))
			players = append(players, p)
			joins = append(joins, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/join", g.ID), Token: p.Access,
				Body: map[string]any{"deck": deck(1)}})
		}
		var winner *player
		for i, r := range e.queuedAtOnce(g.ID, joins...) {
			switch {
			case r.Status == 200 && winner == nil:
				winner = players[i]
			case r.Status == 200:
				t.Errorf("%s got the seat too", players[i].Name)
			case r.Status != 409 || r.code(t) != "game_full":
				t.Errorf("%s: %d %s, want 409 game_full", players[i].Name, r.Status, r.Body)
			}
		}
		if winner == nil {
			t.Fatal("nobody got the seat")
		}
		got := e.getGame(g.ID, ana)
		if s := got.Seats[1]; s.Username == nil || *s.Username != winner.Name || !s.Joined || got.Version != g.Version+1 {
			t.Fatalf("seat 1 is %+v at version %d; want %s's at %d", s, got.Version, winner.Name, g.Version+1)
		}
	})
}

// TestStartAgainstLeave: the creator starts a full game while the other
// player leaves it; exactly one of the two succeeds, in either order.
func TestStartAgainstLeave(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		for _, leaveFirst := range []bool{true, false} {
			g := e.openGame(ana, 2)
			e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/join", g.ID), Token: bob.Access,
				Body: map[string]any{"deck": deck(1)}})
			start := req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/start", g.ID), Token: ana.Access}
			leave := req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/leave", g.ID), Token: bob.Access}
			var s, l *resp
			if leaveFirst {
				rs := e.queued(g.ID, leave, start)
				l, s = rs[0], rs[1]
			} else {
				rs := e.queued(g.ID, start, leave)
				s, l = rs[0], rs[1]
			}
			got := e.getGame(g.ID, ana)
			switch {
			case s.Status == 200 && l.Status == 409 && l.code(t) == "game_not_open":
				if got.Status != "active" || !got.Seats[1].Joined {
					t.Fatalf("started, but the game is %s with seat 1 %+v", got.Status, got.Seats[1])
				}
			case l.Status == 200 && s.Status == 409 && s.code(t) == "not_full":
				if got.Status != "open" || got.Seats[1].Joined {
					t.Fatalf("left, but the game is %s with seat 1 %+v", got.Status, got.Seats[1])
				}
			default:
				t.Fatalf("leave first %v: start %d %s, leave %d %s; want exactly one 200", leaveFirst, s.Status, s.Body, l.Status, l.Body)
			}
		}
	})
}

// TestActionsThatSkipTheVersionCheck: a resignation and the vote that ends
// a game are applied at whatever version the game is at, here right after
// the other seat's end of turn has made the resigning or voting seat the
// awaited one. The game is then over, and no seat is still awaited (the
// seat rows are those the end of turn wrote, changed again).
func TestActionsThatSkipTheVersionCheck(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		for _, verb := range []string{"resign", "vote-end"} {
			g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
			players := []*player{ana, bob}
			me := awaited(g, players)[0]
			other := ana
			if me == ana {
				other = bob
			}
			if verb == "vote-end" { // the first vote; the other's then ends the game
				e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/vote-end", g.ID), Token: me.Access})
				g = e.getGame(g.ID, me)
			}
			rs := e.queued(g.ID,
				req{Method: "POST", Path: actionsPath(g.ID), Token: me.Access,
					Body: map[string]any{"expected_version": g.Version, "actions": []map[string]string{{"type": "end_turn"}}}},
				req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/%s", g.ID, verb), Token: other.Access})
			// On SQLite the two may come in either order: the end of turn
			// then finds the game over.
			if end := rs[0]; end.Status != 200 && (end.Status != 409 || end.code(t) != "game_not_active") {
				t.Fatalf("%s: end of turn: %d %s", verb, end.Status, end.Body)
			}
			if rs[1].Status != 200 {
				t.Fatalf("%s: %d %s", verb, rs[1].Status, rs[1].Body)
			}
			got := e.getGame(g.ID, ana)
			if got.Status != "over" {
				t.Fatalf("%s: the game is %s", verb, got.Status)
			}
			for _, s := range got.Seats {
				if s.Awaited {
					t.Errorf("%s: seat %d is still awaited in a game that is over", verb, s.Seat)
				}
			}
			var list struct {
				Games []game `json:"games"`
			}
			e.must(200, req{Method: "GET", Path: "/v1/games?awaiting=true", Token: other.Access}).decode(t, &list)
			for _, lg := range list.Games {
				if lg.ID == g.ID {
					t.Errorf("%s: the game that is over still waits for %s", verb, other.Name)
				}
			}
		}
	})
}

package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
)

// deckCount is how many decks p has.
func (e *env) deckCount(p *player) int {
	e.t.Helper()
	var list struct {
		Decks []json.RawMessage `json:"decks"`
	}
	e.must(200, req{Method: "GET", Path: "/v1/decks", Token: p.Access}).decode(e.t, &list)
	return len(list.Decks)
}

// TestAttackDecksHostileCounts: deck lists built to break the count
// arithmetic or the catalogue: counts at the integer limits, zero,
// negative, fractional, as strings or past int64; unknown, empty and
// Challenge cards; one card split over many entries to pass a per-entry
// limit. What must hold: each is a 4xx (422 invalid_deck naming the card
// and rule when the list parses), never a 5xx, and no deck is stored,
// whether created or put over an existing deck (which keeps its list).
func TestAttackDecksHostileCounts(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		good := e.prebuiltCards(0)
		card := good[0]["card"].(string)
		var kept struct {
			ID    int64            `json:"id"`
			Cards []map[string]any `json:"cards"`
		}
		e.must(201, req{Method: "POST", Path: "/v1/decks", Token: ana.Access, Body: map[string]any{"name": "kept", "cards": good}}).decode(t, &kept)
		entry := func(c string, n any) string { return fmt.Sprintf(`{"card":%q,"count":%v}`, c, n) }
		split := make([]string, 0, 40)
		for range 40 {
			split = append(split, entry(card, 1))
		}
		challenge := ""
		for _, c := range engine.Standard().Cards() {
			if c.Type == engine.Challenge {
				challenge = c.ID
				break
			}
		}
		cases := []struct {
			what, cards string
			wantCard    bool // a 422 invalid_deck names the card
		}{
			{"max int64", entry(card, math.MaxInt64), true},
			{"min int64", entry(card, math.MinInt64), true},
			{"max int64 twice", entry(card, math.MaxInt64) + "," + entry(good[1]["card"].(string), math.MaxInt64), true},
			{"a copy then max int64", entry(card, 1) + "," + entry(card, math.MaxInt64), true},
			{"2^32+1", entry(card, uint64(1)<<32+1), true},
			{"zero", entry(card, 0), true},
			{"minus one", entry(card, -1), true},
			{"past int64", entry(card, "99999999999999999999999"), false},
			{"fraction", entry(card, 1.5), false},
			{"string count", entry(card, `"2"`), false},
			{"null count", entry(card, "null"), false},
			{"one card split over entries", strings.Join(split, ","), true},
			{"unknown card", entry("no-such-card", 2), true},
			{"empty card", entry("", 2), false},
			{"challenge card", entry(challenge, 1), true},
			{"no cards", "", false},
		}
		for _, c := range cases {
			body := `{"name":"hostile","cards":[` + c.cards + `]}`
			for _, r := range []req{
				{Method: "POST", Path: "/v1/decks", Token: ana.Access, Body: body, NoContract: true},
				{Method: "PUT", Path: fmt.Sprintf("/v1/decks/%d", kept.ID), Token: ana.Access, Body: body, NoContract: true},
			} {
				res := e.do(r)
				var p struct{ Code, Card, Rule string }
				if res.Status >= 400 {
					res.decode(t, &p)
				}
				switch {
				case res.Status != 400 && res.Status != 422:
					t.Errorf("%s %s: %d %s", r.Method, c.what, res.Status, res.Body)
				case c.wantCard && (res.Status != 422 || p.Code != "invalid_deck" || p.Rule == "" || p.Card == "" && c.what != "no cards"):
					t.Errorf("%s %s: %d %s, want invalid_deck naming the card and rule", r.Method, c.what, res.Status, res.Body)
				}
			}
		}
		if n := e.deckCount(ana); n != 1 {
			t.Fatalf("ana has %d decks after refused ones", n)
		}
		var got struct {
			Name  string           `json:"name"`
			Cards []map[string]any `json:"cards"`
		}
		e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/decks/%d", kept.ID), Token: ana.Access}).decode(t, &got)
		if a, b := fmt.Sprint(got.Cards), fmt.Sprint(kept.Cards); got.Name != "kept" || a != b {
			t.Fatalf("a refused put changed the deck: %s %s, was %s", got.Name, a, b)
		}
	})
}

// TestAttackDecksName: deck names at the contract's bound of 64
// characters, in letters that take more than one byte each, and just past
// it. What must hold: a name the contract allows (64 characters) is
// stored as sent, whatever its bytes; 65 characters, or a NUL, is a 4xx
// naming the name.
func TestAttackDecksName(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		cards := e.prebuiltCards(0)
		for _, letter := range []string{"a", "é", "Ж", "漢", "🂡"} {
			name := strings.Repeat(letter, 64)
			var d struct {
				Name string `json:"name"`
			}
			r := e.do(req{Method: "POST", Path: "/v1/decks", Token: ana.Access, Body: map[string]any{"name": name, "cards": cards}})
			if r.Status != 201 {
				t.Errorf("64 × %s (%d bytes): %d %s", letter, len(name), r.Status, r.Body)
				continue
			}
			r.decode(t, &d)
			if d.Name != name {
				t.Errorf("stored as %q", d.Name)
			}
			long := e.do(req{Method: "POST", Path: "/v1/decks", Token: ana.Access, NoContract: true,
				Body: map[string]any{"name": name + letter, "cards": cards}})
			var p lobbyProblem
			long.decode(t, &p)
			if long.Status != 422 && long.Status != 400 || !strings.Contains(p.Detail, "name") {
				t.Errorf("65 × %s: %d %s", letter, long.Status, long.Body)
			}
		}
		r := e.do(req{Method: "POST", Path: "/v1/decks", Token: ana.Access, NoContract: true,
			Body: `{"name":"a\u0000b","cards":` + string(must(json.Marshal(cards))) + `}`})
		if r.Status != 400 && r.Status != 422 {
			t.Errorf("a NUL in the name: %d %s", r.Status, r.Body)
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestAttackDecksChangedAfterJoin: bob joins with his own deck, then puts
// another list over it and deletes it before the creator starts the game.
// What must hold: the start succeeds, and bob plays the list he joined
// with: the seat keeps its copy, which no later edit of the deck reaches.
// Another player can neither read, change nor delete bob's deck, nor
// create or join a game with it.
func TestAttackDecksChangedAfterJoin(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, eve := e.register("ana"), e.register("bob"), e.register("eve")
		joined, other := e.prebuiltCards(0), e.prebuiltCards(1)
		var d struct {
			ID int64 `json:"id"`
		}
		e.must(201, req{Method: "POST", Path: "/v1/decks", Token: bob.Access, Body: map[string]any{"name": "mine", "cards": joined}}).decode(t, &d)
		path := fmt.Sprintf("/v1/decks/%d", d.ID)
		g := e.openGame(ana, 2)
		e.must(200, req{Method: "POST", Path: gamePath(g.ID, "join"), Token: bob.Access, Body: map[string]any{"deck": map[string]any{"deck_id": d.ID}}})

		// Eve goes after bob's deck.
		for _, r := range []req{
			{Method: "GET", Path: path, Token: eve.Access},
			{Method: "PUT", Path: path, Token: eve.Access, Body: map[string]any{"name": "eve's now", "cards": other}},
			{Method: "DELETE", Path: path, Token: eve.Access},
		} {
			if res := e.do(r); res.Status != 404 {
				t.Errorf("eve's %s of bob's deck: %d %s", r.Method, res.Status, res.Body)
			}
		}
		if r := e.do(req{Method: "POST", Path: "/v1/games", Token: eve.Access, Body: map[string]any{"players": 2, "deck": map[string]any{"deck_id": d.ID}}}); r.Status != 422 {
			t.Errorf("eve creates a game with bob's deck: %d %s", r.Status, r.Body)
		}

		e.must(200, req{Method: "PUT", Path: path, Token: bob.Access, Body: map[string]any{"name": "changed", "cards": other}})
		e.must(204, req{Method: "DELETE", Path: path, Token: bob.Access})
		e.must(200, req{Method: "POST", Path: gamePath(g.ID, "start"), Token: ana.Access})

		stored, err := e.store.GameNoState(context.Background(), g.ID)
		if err != nil {
			t.Fatal(err)
		}
		var seat struct {
			Cards []map[string]any `json:"cards"`
		}
		if stored.Seats[1].Deck == nil || json.Unmarshal([]byte(*stored.Seats[1].Deck), &seat) != nil {
			t.Fatalf("bob's seat has no deck: %+v", stored.Seats[1])
		}
		if a, b := fmt.Sprint(seat.Cards), fmt.Sprint(joined); a != b {
			t.Fatalf("bob plays %s, joined with %s", a, b)
		}
	})
}

// TestAttackDecksOfficeSharedPrebuilt: office games of three and four
// seats whose players (or bots) bring the prebuilt decks, the same one or
// both: merged as they are, the shared deck would hold more copies of a
// card than the office rules allow (nine of a card allowed eight), and the
// full game could never be started. What must hold: as the rulebook
// builds an office deck from packs, the superfluous copies are removed and
// the game starts, with one shared deck and no personal ones.
func TestAttackDecksOfficeSharedPrebuilt(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		var others []*player
		for i := range 3 {
			others = append(others, e.register(fmt.Sprintf("office%d", i)))
		}
		for _, c := range []struct {
			what    string
			players int
			bots    int
			deckOf  func(seat int) map[string]string
		}{
			{"three of one deck", 3, 0, func(int) map[string]string { return deck(0) }},
			{"three, mixed", 3, 0, deck},
			{"four of one deck", 4, 0, func(int) map[string]string { return deck(1) }},
			{"four, mixed", 4, 0, deck},
			{"one player and three bots", 4, 3, deck},
		} {
			var g game
			e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{
				"players": c.players, "bots": c.bots, "office": true, "mode": "fast", "deck": c.deckOf(0)}}).decode(t, &g)
			for i, p := range others[:c.players-1-c.bots] {
				e.must(200, req{Method: "POST", Path: gamePath(g.ID, "join"), Token: p.Access, Body: map[string]any{"deck": c.deckOf(i + 1)}})
			}
			r := e.do(req{Method: "POST", Path: gamePath(g.ID, "start"), Token: ana.Access})
			if r.Status != 200 {
				t.Errorf("%s: start: %d %s", c.what, r.Status, r.Body)
				continue
			}
			v := e.getGame(g.ID, ana).View
			if v == nil || !v.Office || v.SharedDeck == 0 {
				t.Errorf("%s: the started game's view: %+v", c.what, v)
				continue
			}
			for _, p := range v.Players {
				if p.DeckCount != 0 {
					t.Errorf("%s: seat %d has a personal deck", c.what, p.Seat)
				}
			}
		}
	})
}

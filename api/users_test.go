package api_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/datamonsters/turns/rating"
)

type profile struct {
	Username    string  `json:"username"`
	Rating      int     `json:"rating"`
	Deviation   int     `json:"deviation"`
	Volatility  float64 `json:"volatility"`
	Provisional bool    `json:"provisional"`
	Games       int     `json:"games"`
	Wins        int     `json:"wins"`
}

func (e *env) profile(name string) profile {
	e.t.Helper()
	var p profile
	e.must(200, req{Method: "GET", Path: "/v1/users/" + name}).decode(e.t, &p)
	return p
}

// openIDs are the ids of the open public games a filter lists.
func (e *env) openIDs(p *player, query string) []int64 {
	e.t.Helper()
	var list struct {
		Games []game `json:"games"`
	}
	e.must(200, req{Method: "GET", Path: "/v1/games?open=true&" + query, Token: p.Access}).decode(e.t, &list)
	var ids []int64
	for _, g := range list.Games {
		ids = append(ids, g.ID)
	}
	return ids
}

// TestUserProfilesAndNearRating: a player's public profile gives their
// rating, games and wins, before and after a rated game; the lobby's list
// of open games keeps those near a rating.
func TestUserProfilesAndNearRating(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, cyd := e.register("ana"), e.register("bob"), e.register("cyd")
		if p := e.profile("ana"); p != (profile{Username: "ana", Rating: 1500, Deviation: 350, Volatility: 0.06, Provisional: true}) {
			t.Fatalf("a new player's profile: %+v", p)
		}
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/resign", g.ID), Token: ana.Access})
		init := rating.Default.Initial
		want := rating.Default.Table([]rating.Rating{init, init}, []int{1, 0})
		for i, c := range []struct {
			name  string
			games int
			wins  int
		}{{"ana", 1, 0}, {"bob", 1, 1}} {
			p := e.profile(c.name)
			if p.Rating != int(math.Round(want[i].Rating)) || p.Deviation != int(math.Round(want[i].Deviation)) ||
				p.Games != c.games || p.Wins != c.wins || !p.Provisional {
				t.Errorf("%s after the game: %+v, want %.0f ± %.0f", c.name, p, want[i].Rating, want[i].Deviation)
			}
		}
		for _, name := range []string{"nobody", "~deleted-1", "ANA", "a"} {
			if r := e.do(req{Method: "GET", Path: "/v1/users/" + name}); r.Status != 404 || r.code(t) != "not_found" {
				t.Errorf("profile of %q: %d %s", name, r.Status, r.Body)
			}
		}

		// Each opens a game: the one near Bob's rating is Bob's.
		open := map[string]int64{}
		for _, p := range []*player{ana, bob, cyd} {
			var og game
			e.must(201, req{Method: "POST", Path: "/v1/games", Token: p.Access, Body: map[string]any{"players": 2, "deck": deck(0)}}).decode(t, &og)
			open[p.Name] = og.ID
		}
		all := e.openIDs(cyd, "")
		for name, id := range open {
			if !slices.Contains(all, id) {
				t.Fatalf("%s's open game %d is not listed: %v", name, id, all)
			}
		}
		for _, c := range []struct {
			query string
			want  []int64
		}{
			{fmt.Sprintf("near_rating=%d&within=50", int(want[1].Rating)), []int64{open["bob"]}},
			{fmt.Sprintf("near_rating=%d&within=50", int(want[0].Rating)), []int64{open["ana"]}},
			{"near_rating=1500&within=50", []int64{open["cyd"]}},
			{"near_rating=1500&within=150", []int64{open["cyd"]}},
			{"near_rating=1800", []int64{open["bob"]}}, // within 200 by default
			{"near_rating=1500&within=1000", []int64{open["cyd"], open["bob"], open["ana"]}},
			{"near_rating=3000", nil},
		} {
			if got := e.openIDs(cyd, c.query); !slices.Equal(got, c.want) {
				t.Errorf("%s: %v, want %v", c.query, got, c.want)
			}
		}
		for _, q := range []string{"/v1/games?near_rating=1500", "/v1/games?open=true&within=50", "/v1/games?open=true&near_rating=-1",
			"/v1/games?open=true&near_rating=1500&within=0", "/v1/games?open=true&near_rating=abc"} {
			if r := e.do(req{Method: "GET", Path: q, Token: cyd.Access, NoContract: true}); r.Status != 400 {
				t.Errorf("%s: %d %s", q, r.Status, r.Body)
			}
		}
	})
}

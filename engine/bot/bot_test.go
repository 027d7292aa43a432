package bot

import (
	"math/rand/v2"
	"testing"

	"github.com/datamonsters/turns/engine"
)

// setup builds a game with the two prebuilt decks alternating by seat.
func setup(t testing.TB, seed uint64, players int) engine.Setup {
	t.Helper()
	a, ok1 := engine.Standard().Deck("running-a-startup")
	b, ok2 := engine.Standard().Deck("working-for-the-enterprise")
	if !ok1 || !ok2 {
		t.Fatal("prebuilt decks missing")
	}
	st := engine.Setup{Seed: seed}
	for i := range players {
		d := a
		if i%2 == 1 {
			d = b
		}
		st.Players = append(st.Players, engine.SeatSetup{Name: string(rune('A' + i)), Deck: d})
	}
	return st
}

func bots(kind string, seed uint64, n int) []Bot {
	out := make([]Bot, n)
	for i := range out {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		if kind == "random" {
			out[i] = NewRandom(r)
		} else {
			out[i] = NewGreedy(r)
		}
	}
	return out
}

func TestPlayFinishes(t *testing.T) {
	for _, kind := range []string{"random", "greedy"} {
		turns, actions := 0, 0
		for seed := range uint64(40) {
			players := 2 + int(seed%3)
			res, err := Play(setup(t, seed, players), bots(kind, seed, players), 300)
			if err != nil {
				t.Fatalf("%s seed %d: %v", kind, seed, err)
			}
			if !res.Finished || len(res.Winners) == 0 {
				t.Fatalf("%s seed %d: not finished after %d turns", kind, seed, res.Turns)
			}
			turns += res.Turns
			actions += res.Actions
		}
		t.Logf("%s: mean %.1f turns, %.1f actions per game", kind, float64(turns)/40, float64(actions)/40)
	}
}

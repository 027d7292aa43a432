package bot

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/datamonsters/turns/engine"
)

func TestZZLeadSim(t *testing.T) {
	games, _ := strconv.Atoi(os.Getenv("SIM_GAMES"))
	if games == 0 {
		t.Skip()
	}
	a, _ := engine.Standard().Deck("running-a-startup")
	b, _ := engine.Standard().Deck("working-for-the-enterprise")
	for players := 2; players <= 4; players++ {
		var deckWins [2]float64
		seatWins := make([]float64, players)
		unfinished, turns := 0, 0
		for g := range games {
			seed := uint64(g*13 + players*1000003)
			setup := engine.Setup{Seed: seed}
			bots := []Bot{}
			for i := range players {
				d := a
				if (i+g)%2 == 1 {
					d = b
				}
				setup.Players = append(setup.Players, engine.SeatSetup{Name: fmt.Sprint(i), Deck: d})
				bots = append(bots, NewGreedy(rand.New(rand.NewPCG(seed, uint64(i)))))
			}
			res, err := Play(setup, bots, 200)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Finished {
				unfinished++
				continue
			}
			turns += res.Turns
			for _, w := range res.Winners {
				sh := 1 / float64(len(res.Winners))
				deckWins[(w+g)%2] += sh
				seatWins[(w-res.First+players)%players] += sh
			}
		}
		// seats per deck over all games
		na, nb := 0, 0
		for g := range games {
			for i := range players {
				if (i+g)%2 == 0 {
					na++
				} else {
					nb++
				}
			}
		}
		sr := make([]string, players)
		for i := range sr {
			sr[i] = fmt.Sprintf("%.3f", seatWins[i]/float64(games))
		}
		fmt.Printf("players %d: startup %.3f enterprise %.3f (fair %.3f) seats %v unfinished %d turns %.1f\n", players,
			deckWins[0]/float64(na)*float64(players)/float64(players), deckWins[1]/float64(nb), 1/float64(players), sr, unfinished, float64(turns)/float64(games-unfinished))
	}
}

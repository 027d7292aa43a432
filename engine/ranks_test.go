package engine_test

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/datamonsters/turns/engine"
)

// rankCards are the challenges the positions of TestRanks hold.
const rankCards = `
cards:
  - {id: t-ch1, name: Small Project, type: challenge, tech: 1, points: 1}
  - {id: t-ch2, name: Science Project, type: challenge, sci: 2, points: 2}
  - {id: t-ch3, name: Medium Project, type: challenge, tech: 2, sci: 1, points: 3}
  - {id: t-ch5, name: Big Project, type: challenge, tech: 3, sci: 3, points: 5, hard: true}
  - {id: t-a, name: Card A, type: hack, effects: [{trigger: play, do: [{op: draw, n: 1}]}]}
market: [t-ch1]
challenge_deck: [t-ch2]
`

// TestRanks places the seats by the scoring rules that name the winners:
// points, then the most valuable single challenge, shared places, and the
// seats that resigned last.
func TestRanks(t *testing.T) {
	deck := "deck: [t-a, t-a, t-a, t-a, t-a, t-a]"
	for _, c := range []struct {
		name    string
		players string
		resign  []int
		want    []int
	}{
		{"points, then the best challenge", `
  - {name: Ana, ranking: [t-ch3], ` + deck + `}
  - {name: Ben, ranking: [t-ch5], ` + deck + `}
  - {name: Cy, ranking: [t-ch1, t-ch2], ` + deck + `}`, nil, []int{1, 0, 2}},
		{"a shared place counts for the next", `
  - {name: Ana, ranking: [t-ch3], ` + deck + `}
  - {name: Ben, ranking: [t-ch3], ` + deck + `}
  - {name: Cy, ` + deck + `}`, nil, []int{0, 0, 2}},
		{"the seats that resigned share the last place, whatever their points", `
  - {name: Ana, ` + deck + `}
  - {name: Ben, ranking: [t-ch5], ` + deck + `}
  - {name: Cy, ranking: [t-ch1], ` + deck + `}
  - {name: Di, ranking: [t-ch3], ` + deck + `}`, []int{1, 3}, []int{1, 2, 0, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := "name: ranks\nplayers:" + c.players + rankCards + "steps:\n"
			for _, seat := range c.resign {
				y += fmt.Sprintf("  - {do: resign, seat: %d}\n", seat)
			}
			res, err := engine.RunScenario([]byte(y))
			if err != nil || res.Failed() {
				t.Fatalf("scenario: %v %v", err, res.Failures)
			}
			if got := engine.Ranks(res.State); !slices.Equal(got, c.want) {
				t.Errorf("ranks %v, want %v", got, c.want)
			}
		})
	}
}

// TestRanksNameTheWinners checks, over the rule scenarios that end a game,
// that the seats placed first are its winners.
func TestRanksNameTheWinners(t *testing.T) {
	ended := 0
	for _, f := range []string{"score_tie_best_challenge", "score_shared_win", "game_end_last_challenge", "resign", "vote_end", "batch_game_end_resign"} {
		data, err := os.ReadFile("testdata/scenarios/" + f + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.RunScenario(data)
		if err != nil || res.Failed() {
			t.Fatalf("%s: %v %v", f, err, res.Failures)
		}
		if !res.State.Over() {
			continue
		}
		ended++
		var first []int
		for seat, r := range engine.Ranks(res.State) {
			if r == 0 {
				first = append(first, seat)
			}
		}
		if !slices.Equal(first, res.State.Winners) {
			t.Errorf("%s: placed first %v, winners %v", f, first, res.State.Winners)
		}
	}
	if ended < 4 {
		t.Fatalf("only %d of the scenarios ended their game", ended)
	}
}

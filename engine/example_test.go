package engine_test

import (
	"fmt"

	"github.com/datamonsters/turns/engine"
)

// A two-player game with the prebuilt decks: the first player ends their
// turn, and the other player is awaited.
func Example() {
	cat := engine.Standard()
	startup, _ := cat.Deck("running-a-startup")
	enterprise, _ := cat.Deck("working-for-the-enterprise")
	s, _, err := engine.NewGame(engine.Setup{Seed: 42, Players: []engine.SeatSetup{
		{Name: "Ana", Deck: startup}, {Name: "Ben", Deck: enterprise}}})
	if err != nil {
		panic(err)
	}
	first := s.Active
	fmt.Println("hand of the first player:", len(s.View(first).Hand) >= 3)
	if _, err := engine.Apply(s, first, engine.Action{Type: engine.ActEndTurn}); err != nil {
		panic(err)
	}
	fmt.Println("turn:", s.Turn, "awaiting the other seat:", engine.Awaiting(s)[0] == 1-first)
	_, err = engine.Apply(s, first, engine.Action{Type: engine.ActEndTurn})
	fmt.Println(err)
	// Output:
	// hand of the first player: true
	// turn: 2 awaiting the other seat: true
	// it is Ben's turn
}

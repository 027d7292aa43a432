package models_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/datamonsters/turns/models"
)

// TestBoardReadLeavesStartedDecks: the board's read of a game
// (GameNoStateChecked) carries the seats' deck lists before the start,
// where the lobby shows them, and not after it, where the game's state
// holds them; the other reads of the game carry them throughout.
func TestBoardReadLeavesStartedDecks(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		g := newGame(t, st, newUser(t, st, "ines"), newUser(t, st, "jon"))
		deck := `{"cards":[{"card":"merge-conflict","count":2}]}`
		started := st.Now()
		chk := &models.SessionCheck{Hash: []byte("no such session")}
		read := func(when string, wantDeck bool) {
			t.Helper()
			board, err := st.GameNoStateChecked(ctx, g.ID, chk)
			if err != nil {
				t.Fatal(err)
			}
			if got := board.Seats[1].Deck; (got != nil) != wantDeck || wantDeck && !sameJSON(*got, deck) {
				t.Errorf("%s: the board's read has the deck %v, want it: %v", when, got, wantDeck)
			}
			if !chk.Checked || chk.Live {
				t.Errorf("%s: the session check: %+v", when, chk)
			}
			other, err := st.GameNoState(ctx, g.ID)
			if err != nil || other.Seats[1].Deck == nil || !sameJSON(*other.Seats[1].Deck, deck) {
				t.Errorf("%s: GameNoState's deck %v, %v", when, other.Seats[1].Deck, err)
			}
		}
		if _, err := st.Mutate(ctx, g.ID, func(cur *models.Game) (*models.Change, error) {
			cur.Seats[1].Deck, cur.StartedAt = &deck, nil
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		read("before the start", true)
		if _, err := st.Mutate(ctx, g.ID, func(cur *models.Game) (*models.Change, error) {
			cur.StartedAt = &started
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		read("after the start", false)
	})
}

// sameJSON reports whether a and b are the same JSON value (Postgres's
// jsonb spaces a document its own way).
func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

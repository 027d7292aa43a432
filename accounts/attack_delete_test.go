package accounts_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
)

// TestAttackDeleteWhileJoining: bob deletes his account while another of
// his sessions joins ana's and carl's open games and creates games of its own, one
// after another, without pause. What must hold: once the deletion
// returns, no game that is not over holds a seat or an invitation of
// bob's, however the two interleaved; a join or creation after the
// deletion is refused as account_deleted, and any other error is a bug.
func TestAttackDeleteWhileJoining(t *testing.T) {
	eachDB(t, accounts.Config{}, func(t *testing.T, e *env) {
		svc := play.New(e.st, e.clock.Now, nil)
		ana, bob := e.user(t, "ana", "ana password"), e.user(t, "bob", "bob password")
		carl := e.user(t, "carl", "carl password") // ana and carl open 20 each, play.MaxOpenGames
		deck := play.DeckChoice{Prebuilt: "running-a-startup"}
		var open []int64
		for i := range 40 {
			res, err := svc.Create(e.ctx, []*models.User{ana, carl}[i%2].ID, play.NewGame{Players: 2, Deck: deck}, nil)
			if err != nil {
				t.Fatal(err)
			}
			open = append(open, res.Game.ID)
		}
		started := make(chan struct{})
		var wg sync.WaitGroup
		var joinErr error
		refused := 0
		wg.Go(func() {
			for i, id := range open {
				if i == 3 {
					close(started)
				}
				_, err := svc.Join(e.ctx, id, bob.ID, deck, nil)
				if err == nil && i%2 == 0 {
					_, err = svc.Create(e.ctx, bob.ID, play.NewGame{Players: 2, Deck: deck}, nil)
				}
				var pe *play.Error
				switch {
				case errors.As(err, &pe) && pe.Code == "account_deleted":
					refused++
				case err != nil:
					joinErr = err
					return
				}
			}
		})
		<-started
		if err := e.acc.Delete(e.ctx, bob.ID); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if joinErr != nil {
			t.Fatalf("a join beside the deletion: %v", joinErr)
		}
		for _, status := range []string{models.StatusOpen, models.StatusActive} {
			games, err := e.st.ListGames(e.ctx, models.GameFilter{UserID: bob.ID, Status: status, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range games {
				if i := g.SeatOf(bob.ID); i >= 0 {
					t.Errorf("game %d (%s) keeps the deleted account in seat %d: %+v", g.ID, g.Status, i, g.Seats[i])
				}
			}
		}
		t.Logf("joins and creations refused after the deletion: %d of %d", refused, len(open))
	})
}

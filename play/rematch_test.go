package play_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
)

// TestRematch: after a finished game, one of its players opens the same
// game again in one call: the same settings, their deck in seat 0, the
// other player invited and the bot seat kept; a game of one person and a
// bot starts at once. A game not over, or a caller who did not play it,
// is refused.
func TestRematch(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		ctx := context.Background()
		st := modelstest.Open(t, d, models.Options{})
		svc := play.New(st, nil, nil)
		ana, bob, eve := newUser(t, st, "ana"), newUser(t, st, "bob"), newUser(t, st, "eve")
		private := false
		limit := 2
		res, err := svc.Create(ctx, ana.ID, play.NewGame{Players: 3, Mode: "fast", Public: &private, Policy: "conceal",
			Deck: play.DeckChoice{Prebuilt: "running-a-startup"}, Invite: []string{"bob"}, Bots: 1, TurnDeadlineSeconds: 3600,
			TimeoutLimit: &limit, OnTimeouts: play.OnTimeoutsForfeit}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := res.Game.ID
		if _, err := svc.Join(ctx, id, bob.ID, play.DeckChoice{Prebuilt: "working-for-the-enterprise"}, nil); err != nil {
			t.Fatal(err)
		}
		res, err = svc.Start(ctx, id, ana.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		var pe *play.Error
		if _, err := svc.Rematch(ctx, id, bob.ID, nil); !errors.As(err, &pe) || pe.Code != "game_not_over" {
			t.Fatalf("a rematch of a game in play: %v", err)
		}
		for _, u := range []int64{ana.ID, bob.ID} {
			if res, err = svc.Resign(ctx, id, u, nil); err != nil && !errors.As(err, new(*play.BatchError)) {
				t.Fatal(err)
			}
			res.Done()
		}
		if _, err := svc.Rematch(ctx, id, eve.ID, nil); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("a rematch by someone who did not play: %v", err)
		}
		again, err := svc.Rematch(ctx, id, bob.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		old, _ := st.GameNoState(ctx, id)
		g := again.Game
		if g.ID == id || g.Status != models.StatusOpen || g.Players != 3 || g.Mode != "fast" || g.Policy != "conceal" || g.Public ||
			g.Settings != old.Settings || g.CreatedBy != bob.ID {
			t.Fatalf("the rematch: %+v", g)
		}
		var deck engine.Deck
		if g.Seats[0].Deck != nil {
			json.Unmarshal([]byte(*g.Seats[0].Deck), &deck)
		}
		if g.Seats[0].Username != "bob" || !g.Seats[0].Joined || deck.ID != "working-for-the-enterprise" ||
			g.Seats[1].Username != "ana" || !g.Seats[1].Invited || g.Seats[1].Joined || g.Seats[2].Bot != models.BotFromStart {
			t.Fatalf("the rematch's seats: %+v", g.Seats)
		}

		// One person and a bot: the rematch starts.
		res, err = svc.Create(ctx, ana.ID, play.NewGame{Players: 2, Mode: "fast", Deck: play.DeckChoice{Prebuilt: "running-a-startup"}, Bots: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		solo := res.Game.ID
		res, err = svc.Start(ctx, solo, ana.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		res, err = svc.Resign(ctx, solo, ana.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		res, err = svc.Rematch(ctx, solo, ana.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		if g := res.Game; g.Status != models.StatusActive || g.ID == solo || g.Seats[0].Username != "ana" || g.Seats[1].Bot != models.BotFromStart {
			t.Fatalf("the solo rematch: %+v", g)
		}
	})
}

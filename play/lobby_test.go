package play_test

import (
	"context"
	"errors"
	"testing"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
)

func newUser(t *testing.T, st *models.Store, name string) *models.User {
	t.Helper()
	u := &models.User{Username: name, Email: name + "@example.com", NotifyEmail: true, NotifyTurns: true}
	if err := st.CreateUser(context.Background(), u, "hash-"+name); err != nil {
		t.Fatal(err)
	}
	return u
}

// startedGame creates a fast 2-player game of ana and bob (new users)
// with svc, and starts it: its id, the two users and the start's result.
func startedGame(t *testing.T, st *models.Store, svc *play.Service) (int64, *models.User, *models.User, *play.Result) {
	t.Helper()
	ctx := context.Background()
	ana, bob := newUser(t, st, "ana"), newUser(t, st, "bob")
	deck := play.DeckChoice{Prebuilt: "running-a-startup"}
	res, err := svc.Create(ctx, ana.ID, play.NewGame{Players: 2, Mode: "fast", Deck: deck, Invite: []string{"bob"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Game.ID
	if _, err := svc.Join(ctx, id, bob.ID, deck, nil); err != nil {
		t.Fatal(err)
	}
	if res, err = svc.Start(ctx, id, ana.ID, nil); err != nil {
		t.Fatal(err)
	}
	return id, ana, bob, res
}

// TestDecline: an invitee turns down a private game's invitation and the
// seat opens; nobody else can decline it, twice is refused, and a joined
// seat or a started game is left otherwise.
func TestDecline(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		ctx := context.Background()
		st := modelstest.Open(t, d, models.Options{})
		svc := play.New(st, nil, nil)
		ana, bob, cy := newUser(t, st, "ana"), newUser(t, st, "bob"), newUser(t, st, "cy")
		private := false
		deck := play.DeckChoice{Prebuilt: "running-a-startup"}
		res, err := svc.Create(ctx, ana.ID, play.NewGame{Players: 3, Public: &private, Deck: deck, Invite: []string{"bob", "cy"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := res.Game.ID
		var pe *play.Error
		if _, err := svc.Decline(ctx, id, ana.ID, nil); !errors.As(err, &pe) || pe.Code != "not_invited" {
			t.Fatalf("decline by the creator: %v", err)
		}
		if _, err := svc.Join(ctx, id, cy.ID, deck, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Decline(ctx, id, cy.ID, nil); !errors.As(err, &pe) || pe.Code != "already_joined" {
			t.Fatalf("decline after joining: %v", err)
		}
		res, err = svc.Decline(ctx, id, bob.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := res.Game.Seats[1]
		if s.UserID != nil || s.Invited || s.Username != "" || res.Seat != -1 || res.Game.Version != 3 {
			t.Fatalf("seat after decline: %+v, caller seat %d, version %d", s, res.Seat, res.Game.Version)
		}
		// The seat is gone with the invitation: a second decline, or a
		// look at the private game, finds nothing.
		if _, err := svc.Decline(ctx, id, bob.ID, nil); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("second decline: %v", err)
		}
		if _, _, err := svc.Game(ctx, id, bob.ID); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("the private game after declining: %v", err)
		}
	})
}

// TestLobbyRefusalsNameNoSeatNumber: the lobby's refusals are read by
// people on pages that number seats from 1 and by clients that number
// them from 0, so they say how many seats are open, or "this game",
// instead of a seat's number.
func TestLobbyRefusalsNameNoSeatNumber(t *testing.T) {
	ctx := context.Background()
	st := modelstest.Open(t, models.SQLite, models.Options{})
	svc := play.New(st, nil, nil)
	ana, bob := newUser(t, st, "ana"), newUser(t, st, "bob")
	deck := play.DeckChoice{Prebuilt: "running-a-startup"}
	res, err := svc.Create(ctx, ana.ID, play.NewGame{Players: 4, Deck: deck}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Game.ID
	if _, err := svc.Join(ctx, id, bob.ID, deck, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		err  error
		want string
	}{
		{"a start with two seats open", second(svc.Start(ctx, id, ana.ID, nil)), "not_full: 2 of the 4 seats are not taken yet"},
		{"bob joining again", second(svc.Join(ctx, id, bob.ID, deck, nil)), "already_joined: you already sit in this game"},
	} {
		var pe *play.Error
		if !errors.As(c.err, &pe) || pe.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.what, c.err, c.want)
		}
	}
}

// second is the error of a call that returns a value and an error.
func second[T any](_ T, err error) error { return err }

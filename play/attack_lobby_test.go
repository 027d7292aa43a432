package play_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
)

// eachLobbyDB runs f in parallel subtests on each test database, with a
// fresh store and play path.
func eachLobbyDB(t *testing.T, f func(t *testing.T, st *models.Store, svc *play.Service)) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		st := modelstest.Open(t, d, models.Options{})
		f(t, st, play.New(st, nil, nil))
	})
}

// deleteAccount deletes user u's account as accounts.Service.Delete does:
// out of every game first, then the account, then out of any game taken
// meanwhile.
func deleteAccount(t *testing.T, st *models.Store, svc *play.Service, u *models.User) {
	t.Helper()
	ctx := context.Background()
	if err := svc.ResignAll(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteAccount(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.ResignAll(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
}

// TestAttackLobbyDeletedAccountActs: a request of bob's that began before
// his account was deleted goes on after it (it was authenticated, it read
// his user row): it creates a game, joins ana's, and ana's rematch of a
// game with him, read before, invites him. What must hold: none of them
// seats the deleted account (each is refused in the change's own
// transaction, naming the account), and nothing is written: a seat held by
// an account nobody can sign in to keeps a game waiting for ever.
func TestAttackLobbyDeletedAccountActs(t *testing.T) {
	eachLobbyDB(t, func(t *testing.T, st *models.Store, svc *play.Service) {
		ctx := context.Background()
		ana, bob := newUser(t, st, "ana"), newUser(t, st, "bob")
		deck := play.DeckChoice{Prebuilt: "running-a-startup"}
		open, err := svc.Create(ctx, ana.ID, play.NewGame{Players: 2, Deck: deck}, nil)
		if err != nil {
			t.Fatal(err)
		}
		deleteAccount(t, st, svc, bob)

		var pe *play.Error
		if _, err := svc.Create(ctx, bob.ID, play.NewGame{Players: 2, Deck: deck}, nil); !errors.As(err, &pe) || pe.Code != "account_deleted" {
			t.Fatalf("a game created by a deleted account: %v", err)
		}
		if _, err := svc.Join(ctx, open.Game.ID, bob.ID, deck, nil); !errors.As(err, &pe) || pe.Code != "account_deleted" {
			t.Fatalf("a game joined by a deleted account: %v", err)
		}
		g, err := st.GameNoState(ctx, open.Game.ID)
		if err != nil {
			t.Fatal(err)
		}
		if g.SeatOf(bob.ID) >= 0 || g.Version != open.Game.Version {
			t.Fatalf("a refused join changed the game: version %d, seats %+v", g.Version, g.Seats)
		}
		// As Rematch and Create do once they have read the invitees'
		// rows: a game naming bob's id is stored.
		err = st.CreateGame(ctx, &models.Game{CreatedBy: ana.ID, Status: models.StatusOpen, Players: 2, Settings: "{}", Version: 1,
			Seats: []models.Seat{{SeatNo: 0, UserID: &ana.ID, Username: "ana", Joined: true},
				{SeatNo: 1, UserID: &bob.ID, Username: "bob", Invited: true}}}, models.Happened{})
		var gone *models.UserGoneError
		if !errors.As(err, &gone) || gone.UserID != bob.ID {
			t.Fatalf("a game inviting a deleted account: %v", err)
		}
		for _, uid := range []int64{ana.ID, bob.ID} {
			games, err := st.ListGames(ctx, models.GameFilter{UserID: uid, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(games) != 1 && uid == ana.ID || len(games) != 0 && uid == bob.ID {
				t.Fatalf("user %d is in %d games", uid, len(games))
			}
		}
	})
}

// TestAttackRematchDeletedAccount: ana and bob finish a game, then bob
// deletes his account, and ana asks for a rematch. What must hold (as
// Rematch promises): the deleted account's seat is left open for anyone,
// not reserved for an account nobody can sign in to again, so that the
// rematch can fill and start.
func TestAttackRematchDeletedAccount(t *testing.T) {
	eachLobbyDB(t, func(t *testing.T, st *models.Store, svc *play.Service) {
		ctx := context.Background()
		id, ana, bob, res := startedGame(t, st, svc)
		res.Done()
		res, err := svc.Resign(ctx, id, bob.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		deleteAccount(t, st, svc, bob)

		again, err := svc.Rematch(ctx, id, ana.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		g := again.Game
		if s := g.Seats[1]; s.UserID != nil || s.Invited || s.Username != "" {
			t.Fatalf("the rematch reserves seat 1 for the deleted account: %+v", s)
		}
		// Anyone may take it, and the rematch then starts.
		cy := newUser(t, st, "cy")
		if _, err := svc.Join(ctx, g.ID, cy.ID, play.DeckChoice{Prebuilt: "running-a-startup"}, nil); err != nil {
			t.Fatalf("joining the open seat of the rematch: %v", err)
		}
		started, err := svc.Start(ctx, g.ID, ana.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		started.Done()
	})
}

// TestAttackLobbyInviteDeletedAccount: a creator names a deleted account
// by the name it was given when it was deleted. What must hold: the
// invitation is refused as a user that does not exist (naming the invite
// field), and nothing is created: a seat reserved for an account nobody
// can sign in to would keep the game from ever filling.
func TestAttackLobbyInviteDeletedAccount(t *testing.T) {
	eachLobbyDB(t, func(t *testing.T, st *models.Store, svc *play.Service) {
		ctx := context.Background()
		ana, bob := newUser(t, st, "ana"), newUser(t, st, "bob")
		deleteAccount(t, st, svc, bob)
		_, err := svc.Create(ctx, ana.ID, play.NewGame{Players: 2, Deck: play.DeckChoice{Prebuilt: "running-a-startup"},
			Invite: []string{models.DeletedUsername(bob.ID)}}, nil)
		var pe *play.Error
		if !errors.As(err, &pe) || pe.Kind != play.Invalid || !strings.HasPrefix(pe.Detail, "invite:") {
			t.Fatalf("inviting a deleted account: %v", err)
		}
		games, err := st.ListGames(ctx, models.GameFilter{UserID: ana.ID, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(games) != 0 {
			t.Fatalf("a refused creation left %d games", len(games))
		}
	})
}

// TestAttackLobbyInviteeDeletesAccount: bob is invited to ana's game and
// deletes his account before he joins. What must hold: the seat his
// invitation held opens (as if he had declined), so that the game can
// still fill and start; the seat he never took is not kept for an account
// that no longer exists.
func TestAttackLobbyInviteeDeletesAccount(t *testing.T) {
	eachLobbyDB(t, func(t *testing.T, st *models.Store, svc *play.Service) {
		ctx := context.Background()
		ana, bob, cy := newUser(t, st, "ana"), newUser(t, st, "bob"), newUser(t, st, "cy")
		deck := play.DeckChoice{Prebuilt: "running-a-startup"}
		res, err := svc.Create(ctx, ana.ID, play.NewGame{Players: 2, Deck: deck, Invite: []string{"bob"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := res.Game.ID
		deleteAccount(t, st, svc, bob)
		g, err := st.GameNoState(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != models.StatusOpen || g.SeatOf(bob.ID) >= 0 {
			t.Fatalf("after the invitee's deletion the game is %s with seats %+v", g.Status, g.Seats)
		}
		if _, err := svc.Join(ctx, id, cy.ID, deck, nil); err != nil {
			t.Fatalf("joining the seat the deleted invitee held: %v", err)
		}
		started, err := svc.Start(ctx, id, ana.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		started.Done()
	})
}

// TestAttackRematchAllAtOnce: both players of a finished game ask for a
// rematch at the same moment, each several times. What must hold: no
// request fails; every new game is a well-formed open game (each asker in
// seat 0, the other invited, never seated twice), and the finished game is
// untouched.
func TestAttackRematchAllAtOnce(t *testing.T) {
	eachLobbyDB(t, func(t *testing.T, st *models.Store, svc *play.Service) {
		ctx := context.Background()
		id, ana, bob, res := startedGame(t, st, svc)
		res.Done()
		res, err := svc.Resign(ctx, id, ana.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		before, err := st.GameNoState(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var made []*models.Game
		for range 3 {
			for _, u := range []*models.User{ana, bob} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := svc.Rematch(ctx, id, u.ID, nil)
					if err != nil {
						t.Errorf("%s's rematch: %v", u.Username, err)
						return
					}
					r.Done()
					mu.Lock()
					made = append(made, r.Game)
					mu.Unlock()
				}()
			}
		}
		wg.Wait()
		for _, g := range made {
			me, other := g.Seats[0], g.Seats[1]
			if g.Status != models.StatusOpen || !me.Joined || me.UserID == nil || other.Joined || !other.Invited ||
				other.UserID == nil || *other.UserID == *me.UserID {
				t.Errorf("rematch %d: %s, seats %+v", g.ID, g.Status, g.Seats)
			}
		}
		after, err := st.GameNoState(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if after.Version != before.Version || after.Status != models.StatusOver {
			t.Fatalf("the finished game moved: version %d -> %d, %s", before.Version, after.Version, after.Status)
		}
	})
}

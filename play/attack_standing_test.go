package play_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
)

// The attacks on standing answers (DESIGN.md §3, §9): a seat's answers to
// the interrupt windows to come, set through the play path at any time,
// even on another player's turn.

// standingPosition: Ana (seat 0) is in her Action phase with two Juniors
// and a Tool; Ben (seat 1) holds Hiring Freeze, which cancels a placement,
// and nothing that answers a Tool. Her place of a Monster opens a window
// for him; her Tool opens none.
const standingPosition = `
name: standing answers under attack
players:
  - name: Ana
    hand: [glitchy-junior, doodle-junior, frontend-framework]
    deck: [data-lake, proof-of-concept, design-system]
  - name: Ben
    hand: [hiring-freeze, open-source-library]
    deck: [rapid-prototype, data-lake]
market: [landing-page, spam-filter, todo-app]
challenge_deck: [sales-dashboard, booking-system]
`

// standingGame starts a game of ana and bob and puts it in
// standingPosition: its id, the two users and the version.
func standingGame(t *testing.T, st *models.Store, svc *play.Service) (int64, *models.User, *models.User, int64) {
	t.Helper()
	id, ana, bob, res := startedGame(t, st, svc)
	res.Done()
	pos := positionAt(t, standingPosition)
	g, err := st.Mutate(context.Background(), id, func(g *models.Game) (*models.Change, error) {
		data, err := pos.Marshal()
		g.State, g.Version = data, g.Version+1
		for i := range g.Seats {
			g.Seats[i].Awaited = i == 0
		}
		return &models.Change{}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id, ana, bob, g.Version
}

// standingState is game id's engine state as stored.
func standingState(t *testing.T, st *models.Store, id int64) (*models.Game, *engine.State) {
	t.Helper()
	g, err := st.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Unmarshal(g.State)
	if err != nil {
		t.Fatal(err)
	}
	return g, s
}

// standingKept is what a refused change must leave as it was: the
// version, the action log, the events and the seats' standing answers.
func standingKept(t *testing.T, st *models.Store, id int64) string {
	t.Helper()
	ctx := context.Background()
	g, s := standingState(t, st, id)
	acts, err := st.Actions(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := st.EventsAfter(ctx, id, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	var stand []string
	for _, p := range s.Players {
		stand = append(stand, fmt.Sprintf("%+v", p.Standing))
	}
	return fmt.Sprintf("v%d, %d actions, %d events, standing %v", g.Version, len(acts), len(evs), stand)
}

func standing(pass bool, plays ...engine.StandingPlay) []engine.Action {
	return []engine.Action{{Type: engine.ActStanding, Standing: &engine.Standing{Pass: pass, Plays: plays}}}
}

var freezeOnPlace = engine.StandingPlay{On: engine.EvPlace, Card: "hiring-freeze"}

// TestAttackStandingAtAnOlderVersion: standing answers are set for the
// opponents' coming turn, while that turn runs (§9): the moves the
// opponent makes meanwhile do not make them stale, through Submit or
// through a batch of commands, and the answers set so apply at the next
// window. A batch that mixes a standing answer with a move is still held
// to its version.
func TestAttackStandingAtAnOlderVersion(t *testing.T) {
	eachLobbyDB(t, func(t *testing.T, st *models.Store, svc *play.Service) {
		ctx := context.Background()
		id, ana, bob, v := standingGame(t, st, svc)
		// Ana plays her Tool: no window, but the game moves on.
		res, err := svc.Submit(ctx, id, ana.ID, &v, []engine.Action{{Type: engine.ActPlayTool, Card: handID(t, st, id, 0, "frontend-framework")}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		// Ben answers at the version he saw, before her Tool.
		res, err = svc.Submit(ctx, id, bob.ID, &v, standing(true), nil)
		if err != nil {
			t.Fatalf("a standing answer written before the opponent's last move: %v", err)
		}
		res.Done()
		res, _, err = svc.SubmitCommands(ctx, id, bob.ID, v, []string{"hiring freeze when place"}, nil)
		if err != nil {
			t.Fatalf("a standing play written before the opponent's last move: %v", err)
		}
		res.Done()
		_, s := standingState(t, st, id)
		if got := s.Players[1].Standing; !got.Pass || !slices.Equal(got.Plays, []engine.StandingPlay{freezeOnPlace}) {
			t.Fatalf("Ben's standing answers: %+v, want always pass and Hiring Freeze when place (the command adds to what is set)", got)
		}
		// A move beside a standing answer is no standing answer: stale.
		before := standingKept(t, st, id)
		if _, err := svc.Submit(ctx, id, bob.ID, &v, append(standing(true), engine.Action{Type: engine.ActVoteEnd}), nil); !errors.As(err, new(*play.StaleVersionError)) {
			t.Errorf("a stale batch of a standing answer and a vote: %v, want stale", err)
		}
		if now := standingKept(t, st, id); now != before {
			t.Errorf("the refused batch left %s, was %s", now, before)
		}
		// The answer applies: Ana's place is cancelled with no prompt for Ben.
		g, _ := standingState(t, st, id)
		cur := g.Version
		res, err = svc.Submit(ctx, id, ana.ID, &cur, []engine.Action{{Type: engine.ActPlace, Card: handID(t, st, id, 0, "glitchy-junior")}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		_, s = standingState(t, st, id)
		if len(s.Prompts) > 0 || len(s.Players[0].Lab) != 0 || slices.ContainsFunc(s.Players[1].Hand, func(in engine.Inst) bool { return in.Card == "hiring-freeze" }) {
			t.Fatalf("Ben's standing Hiring Freeze did not cancel the place: prompts %+v, Ana's Lab %+v, Ben's hand %+v", s.Prompts, s.Players[0].Lab, s.Players[1].Hand)
		}
	})
}

// TestAttackStandingClearedMeanwhile: while Ana writes her turn, Ben sets
// "always pass" and then clears it (no seat has standing answers left).
// What must hold: Ana's move, written at the version before both, plays
// at the version they left, as it does when an answer stays set; a
// move written before a real move of Ben's would still be stale.
func TestAttackStandingClearedMeanwhile(t *testing.T) {
	eachLobbyDB(t, func(t *testing.T, st *models.Store, svc *play.Service) {
		ctx := context.Background()
		id, ana, bob, v := standingGame(t, st, svc)
		for _, pass := range []bool{true, false} {
			res, err := svc.Submit(ctx, id, bob.ID, &v, standing(pass), nil)
			if err != nil {
				t.Fatal(err)
			}
			res.Done()
		}
		res, err := svc.Submit(ctx, id, ana.ID, &v, []engine.Action{{Type: engine.ActPlayTool, Card: handID(t, st, id, 0, "frontend-framework")}}, nil)
		if err != nil {
			t.Fatalf("a move written before a standing answer set and cleared: %v", err)
		}
		res.Done()
		if _, s := standingState(t, st, id); len(s.Players[1].Standing.Plays) > 0 || s.Players[1].Standing.Pass {
			t.Fatalf("Ben's standing answers: %+v, want none", s.Players[1].Standing)
		}
	})
}

// handID is the instance id of the first card of seat's hand with card id
// card, in game id as stored.
func handID(t *testing.T, st *models.Store, id int64, seat int, card string) string {
	t.Helper()
	_, s := standingState(t, st, id)
	for _, in := range s.Players[seat].Hand {
		if in.Card == card {
			return in.ID
		}
	}
	t.Fatalf("seat %d holds no %s", seat, card)
	return ""
}

// TestAttackStandingWhoMaySet: standing answers are the seat's own and the
// running game's: a user who is not seated, a seat that resigned and a
// game that is over are refused, and nothing is written; nor does a
// resigned seat's standing play fire (it has left the table).
func TestAttackStandingWhoMaySet(t *testing.T) {
	eachLobbyDB(t, func(t *testing.T, st *models.Store, svc *play.Service) {
		ctx := context.Background()
		id, ana, bob, v := standingGame(t, st, svc)
		eve := newUser(t, st, "eve")
		before := standingKept(t, st, id)
		if _, err := svc.Submit(ctx, id, eve.ID, &v, standing(true), nil); err == nil {
			t.Error("a user who is not seated set standing answers")
		}
		if _, _, err := svc.SubmitCommands(ctx, id, eve.ID, v, []string{"always pass"}, nil); err == nil {
			t.Error("a user who is not seated set standing answers by command")
		}
		if now := standingKept(t, st, id); now != before {
			t.Fatalf("the refusals left %s, was %s", now, before)
		}
		// Ben sets a standing play, then resigns: the game ends (two
		// players), and nothing more is accepted.
		res, err := svc.Submit(ctx, id, bob.ID, &v, standing(false, freezeOnPlace), nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		if res, err = svc.Resign(ctx, id, bob.ID, nil); err != nil {
			t.Fatal(err)
		}
		res.Done()
		g, _ := standingState(t, st, id)
		if g.Status != models.StatusOver {
			t.Fatalf("a two-player game after a resignation is %s", g.Status)
		}
		before = standingKept(t, st, id)
		cur := g.Version
		for _, u := range []*models.User{ana, bob} {
			if _, err := svc.Submit(ctx, id, u.ID, &cur, standing(true), nil); err == nil {
				t.Errorf("%s set standing answers in a game that is over", u.Username)
			}
			if _, _, err := svc.SubmitCommands(ctx, id, u.ID, cur, []string{"always pass"}, nil); err == nil {
				t.Errorf("%s set standing answers by command in a game that is over", u.Username)
			}
		}
		if now := standingKept(t, st, id); now != before {
			t.Fatalf("the refusals left %s, was %s", now, before)
		}
	})
}

// TestAttackStandingResignedSeatInThreePlayerGame: in the engine, a seat
// that resigned keeps its hand and its standing answers, but no window
// asks it, its standing play does not fire, and it may set nothing more.
func TestAttackStandingResignedSeat(t *testing.T) {
	t.Parallel()
	st := positionAt(t, `
name: a resigned seat's standing answers
players:
  - name: Ana
    hand: [glitchy-junior, doodle-junior]
    deck: [data-lake, proof-of-concept]
  - name: Ben
    hand: [hiring-freeze]
    deck: [rapid-prototype, data-lake]
    standing: {pass: false, plays: [{on: place, card: hiring-freeze}]}
  - name: Cy
    hand: [open-source-library]
    deck: [rapid-prototype, data-lake]
market: [landing-page, spam-filter, todo-app]
challenge_deck: [sales-dashboard, booking-system]
`)
	if _, err := engine.Apply(st, 1, engine.Action{Type: engine.ActResign}); err != nil {
		t.Fatal(err)
	}
	if st.Over() {
		t.Fatal("a three-player game ended at one resignation")
	}
	hash := st.Hash()
	if _, err := engine.Apply(st, 1, standing(true)[0]); err == nil || st.Hash() != hash {
		t.Fatalf("a resigned seat set standing answers: %v", err)
	}
	var card string
	for _, in := range st.Players[0].Hand {
		if in.Card == "glitchy-junior" {
			card = in.ID
		}
	}
	if _, err := engine.Apply(st, 0, engine.Action{Type: engine.ActPlace, Card: card}); err != nil {
		t.Fatal(err)
	}
	if len(st.Players[0].Lab) != 1 || len(st.Players[1].Hand) != 1 || len(st.Prompts) > 0 {
		t.Fatalf("the resigned seat's standing Hiring Freeze fired or asked: Lab %+v, Ben's hand %+v, prompts %+v",
			st.Players[0].Lab, st.Players[1].Hand, st.Prompts)
	}
}

// TestAttackStandingRacesTheWindow: Ben sets (or withdraws) a standing
// answer at the moment Ana's place opens the window it covers, many times
// over. Whatever order the two changes commit in, the result is the one
// of that order: answered by the standing answer if it committed first,
// a prompt for Ben otherwise; never both, never a lost change.
func TestAttackStandingRacesTheWindow(t *testing.T) {
	eachLobbyDB(t, func(t *testing.T, _ *models.Store, _ *play.Service) {
		ctx := context.Background()
		for round := range 6 {
			withdraw := round%2 == 1
			st := modelstest.Open(t, dialectOf(t), models.Options{})
			svc := play.New(st, nil, nil)
			id, ana, bob, v := standingGame(t, st, svc)
			if withdraw {
				res, err := svc.Submit(ctx, id, bob.ID, &v, standing(false, freezeOnPlace), nil)
				if err != nil {
					t.Fatal(err)
				}
				v = res.Game.Version
				res.Done()
			}
			set := standing(true) // always pass
			if withdraw {
				// Hiring Freeze withdrawn, a play for another event kept
				// (a seat with no standing answers left at all is not
				// looked for: a move written before is then stale).
				set = standing(false, engine.StandingPlay{On: engine.EvClaim, Card: "scope-creep"})
			}
			card := handID(t, st, id, 0, "glitchy-junior")
			var wg sync.WaitGroup
			var placeErr, setErr error
			var setVersion, placeVersion int64
			wg.Add(2)
			go func() {
				defer wg.Done()
				res, err := svc.Submit(ctx, id, ana.ID, &v, []engine.Action{{Type: engine.ActPlace, Card: card}}, nil)
				if placeErr = err; err == nil {
					placeVersion = res.Game.Version
					res.Done()
				}
			}()
			go func() {
				defer wg.Done()
				res, err := svc.Submit(ctx, id, bob.ID, &v, set, nil)
				if setErr = err; err == nil {
					setVersion = res.Game.Version
					res.Done()
				}
			}()
			wg.Wait()
			if placeErr != nil || setErr != nil {
				t.Fatalf("round %d: place %v, standing %v: both must go through, in either order", round, placeErr, setErr)
			}
			_, s := standingState(t, st, id)
			if !slices.Equal(s.Players[1].Standing.Plays, set[0].Standing.Plays) || s.Players[1].Standing.Pass != set[0].Standing.Pass {
				t.Fatalf("round %d: Ben's standing answers are %+v, want %+v", round, s.Players[1].Standing, *set[0].Standing)
			}
			prompted := slices.ContainsFunc(s.Prompts, func(p engine.Prompt) bool { return p.Seat == 1 })
			setFirst := setVersion < placeVersion
			switch {
			case !withdraw && setFirst && (prompted || len(s.Players[0].Lab) != 1):
				t.Fatalf("round %d: always pass came first, yet Ben is asked (%v) or the place did not land: Lab %+v", round, prompted, s.Players[0].Lab)
			case withdraw && !setFirst && (prompted || len(s.Players[0].Lab) != 0):
				t.Fatalf("round %d: the place came before the withdrawal, yet the standing Hiring Freeze did not answer: asked %v, Lab %+v", round, prompted, s.Players[0].Lab)
			case (withdraw == setFirst) && !prompted:
				t.Fatalf("round %d: Ben is not asked, though the window opened with no standing answer of his (set first %v)", round, setFirst)
			}
		}
	})
}

// dialectOf is the database of an eachLobbyDB subtest, by its name.
func dialectOf(t *testing.T) models.Dialect {
	for _, d := range modelstest.Dialects() {
		if strings.HasSuffix(t.Name(), "/"+d.String()) {
			return d
		}
	}
	t.Fatalf("no database is named by %s", t.Name())
	return ""
}

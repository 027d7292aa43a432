package play_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
)

// TestOwnTurnChoiceKeepsTheTurnsDeadline: a choice that a player's own
// turn asks of them (the discard down to the hand limit) is due with the
// turn: its deadline is the turn's, not the shorter one of prompts, and
// answering it does not move it. Each player only ends turns until one
// has too many cards.
func TestOwnTurnChoiceKeepsTheTurnsDeadline(t *testing.T) {
	ctx := context.Background()
	st := modelstest.Open(t, models.SQLite, models.Options{})
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	svc := play.New(st, clock, nil)
	ana, bob := newUser(t, st, "ana"), newUser(t, st, "bob")
	g := startDuel(t, svc, ana, bob, play.NewGame{TurnDeadlineSeconds: 7200, PromptDeadlineSeconds: 600})
	id := g.ID
	users := []int64{*g.Seats[0].UserID, *g.Seats[1].UserID}
	for step := 0; step < 40; step++ {
		now = now.Add(time.Minute)
		var g *models.Game
		var s *engine.State
		err := svc.Read(ctx, id, ana.ID, func(gm *models.Game, _ int, state *engine.State) error {
			g, s = gm, state.Clone()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		seat := engine.Awaiting(s)[0]
		ps := engine.PromptsFor(s, seat)
		own := len(ps) > 0 && seat == s.Active && len(s.Prompts) == len(ps) && ps[0].Kind != engine.PromptInterrupt
		a := engine.Action{Type: engine.ActEndTurn}
		if len(ps) > 0 {
			a = engine.Action{Type: engine.ActAnswer, Prompt: ps[0].ID, Choices: ps[0].Default()}
		}
		if own {
			// The turn began a minute ago, with the discard: the turn's two
			// hours from then, not the prompt's ten minutes.
			if want := now.Add(-time.Minute).Add(2 * time.Hour); !g.DeadlineAt.Equal(want) {
				t.Fatalf("an own-turn choice is due at %v, want the turn's %v", g.DeadlineAt, want)
			}
		}
		v := g.Version
		res, err := svc.Submit(ctx, id, users[seat], &v, []engine.Action{a}, nil)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		after := *res.Game.DeadlineAt
		res.Done()
		if own {
			if !after.Equal(*g.DeadlineAt) {
				t.Fatalf("answering it moved the turn's deadline from %v to %v", g.DeadlineAt, after)
			}
			return
		}
	}
	t.Fatal("no player had to discard in 40 moves")
}

// TestReplay: the state of every version of a game, rebuilt from its log
// in any order (each replay going on from the last one kept, or from the
// start), is the state the game had then, byte for byte.
func TestReplay(t *testing.T) {
	ctx := context.Background()
	st := modelstest.Open(t, models.SQLite, models.Options{})
	svc := play.New(st, nil, nil)
	id, ana, _, res := startedGame(t, st, svc)
	users := []int64{*res.Game.Seats[0].UserID, *res.Game.Seats[1].UserID}
	hashes := map[int64]string{res.Game.Version: res.State.Hash()}
	res.Done()
	r := rand.New(rand.NewPCG(1, 1))
	for range 30 {
		var seat int
		var a engine.Action
		var v int64
		over := false
		if err := svc.Read(ctx, id, ana.ID, func(g *models.Game, _ int, s *engine.State) error {
			v, over = g.Version, s.Over()
			if !over {
				seat = engine.Awaiting(s)[0]
				a = bot.NewGreedy(r).Choose(s.View(seat), engine.Legal(s, seat))
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if over {
			break
		}
		res, err := svc.Submit(ctx, id, users[seat], &v, []engine.Action{a}, nil)
		if err != nil {
			t.Fatal(err)
		}
		hashes[res.Game.Version] = res.State.Hash()
		res.Done()
	}
	for _, v := range []int64{5, 3, 9, 10, 4, 20, 12, 33} {
		want, ok := hashes[v]
		if !ok {
			continue
		}
		got, err := svc.StateAt(ctx, id, v)
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if got.Hash() != want {
			t.Fatalf("version %d replays to another state", v)
		}
	}
	if _, err := svc.StateAt(ctx, id, 1); !errors.Is(err, play.ErrNoState) {
		t.Fatalf("a version before the start: %v", err)
	}
}

package play_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
)

// TestDeadlineOutOfQuietHours: bob's quiet hours are 22:00 to 07:00 in
// Berlin. His turn, starting at 13:00 UTC on the day before the clocks
// go forward with ten hours to play, would end at 23:00 UTC (midnight in
// Berlin): it ends at 07:00 CEST instead, 05:00 UTC, and the game row
// says whose quiet hours moved it, on both databases; the calendar says
// so too. A game whose settings ignore quiet hours keeps the clock's
// deadline, and ana's turn, in no quiet hours, is not moved.
func TestDeadlineOutOfQuietHours(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		for _, ignore := range []bool{false, true} {
			testDeadlineOutOfQuietHours(t, d, ignore)
		}
	})
}

// startDuel creates a fast 2-player game of ana's, with n's clocks and
// settings, that bob joins, and starts it; it returns the game as started.
func startDuel(t *testing.T, svc *play.Service, ana, bob *models.User, n play.NewGame) *models.Game {
	t.Helper()
	ctx := context.Background()
	deck := play.DeckChoice{Prebuilt: "running-a-startup"}
	n.Players, n.Mode, n.Deck, n.Invite = 2, "fast", deck, []string{bob.Username}
	res, err := svc.Create(ctx, ana.ID, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Join(ctx, res.Game.ID, bob.ID, deck, nil); err != nil {
		t.Fatal(err)
	}
	if res, err = svc.Start(ctx, res.Game.ID, ana.ID, nil); err != nil {
		t.Fatal(err)
	}
	res.Done()
	return res.Game
}

func testDeadlineOutOfQuietHours(t *testing.T, d models.Dialect, ignore bool) {
	ctx := context.Background()
	st := modelstest.Open(t, d, models.Options{})
	now := time.Date(2026, 3, 28, 13, 0, 0, 0, time.UTC)
	svc := play.New(st, func() time.Time { return now }, nil)
	ana, bob := newUser(t, st, "ana"), newUser(t, st, "bob")
	if err := st.SetTimeZone(ctx, bob.ID, "Europe/Berlin"); err != nil {
		t.Fatal(err)
	}
	if err := st.SetQuietHours(ctx, bob.ID, &models.QuietHours{Start: 22 * 60, End: 7 * 60}); err != nil {
		t.Fatal(err)
	}
	g := startDuel(t, svc, ana, bob, play.NewGame{TurnDeadlineSeconds: 10 * 3600, PromptDeadlineSeconds: 3600, IgnoreQuietHours: ignore})
	id, bobSeat := g.ID, g.SeatOf(bob.ID)
	// Ana ends her turns (with the first option of any choice) until bob's
	// turn starts, at now (or it is his at the start, at now).
	for step := 0; ; step++ {
		var seat int
		var a engine.Action
		var v int64
		err := svc.Read(ctx, id, ana.ID, func(g *models.Game, _ int, s *engine.State) error {
			seat, v = engine.Awaiting(s)[0], g.Version
			a = engine.Action{Type: engine.ActEndTurn}
			if ps := engine.PromptsFor(s, seat); len(ps) > 0 {
				a = engine.Action{Type: engine.ActAnswer, Prompt: ps[0].ID, Choices: ps[0].Default()}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if seat == bobSeat || step > 10 {
			break
		}
		uid := ana.ID
		res, err := svc.Submit(ctx, id, uid, &v, []engine.Action{a}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
	}
	g, err := st.Game(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Seats[bobSeat].Awaited {
		t.Fatalf("the game does not wait for bob: %+v", g.Seats)
	}
	natural := now.Add(10 * time.Hour)
	want, quiet := time.Date(2026, 3, 29, 5, 0, 0, 0, time.UTC), []int{bobSeat}
	if ignore {
		want, quiet = natural, nil
	}
	if !g.DeadlineAt.Equal(want) || !slices.Equal(g.QuietSeats(), quiet) {
		t.Fatalf("ignore %v: deadline %v moved by seats %v, want %v by %v", ignore, g.DeadlineAt.UTC(), g.QuietSeats(), want, quiet)
	}
	ds, err := svc.Deadlines(ctx, bob.ID)
	if err != nil || len(ds) != 1 || !ds[0].At.Equal(want) || ds[0].Quiet == ignore {
		t.Fatalf("bob's calendar: %+v %v", ds, err)
	}
	// Bob ends his turn at 14:00 UTC: ana's deadline, at midnight UTC, is
	// in nobody's quiet hours, and the game's note of the move is gone.
	now = now.Add(time.Hour)
	v := g.Version
	res, err := svc.Submit(ctx, id, bob.ID, &v, []engine.Action{{Type: engine.ActEndTurn}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Done()
	if g, err = st.Game(ctx, id); err != nil {
		t.Fatal(err)
	}
	if !g.DeadlineAt.Equal(now.Add(10*time.Hour)) || g.DeadlineQuiet != "" {
		t.Fatalf("ana's deadline %v (moved by %q), want %v as the clock set it", g.DeadlineAt, g.DeadlineQuiet, now.Add(10*time.Hour))
	}
}

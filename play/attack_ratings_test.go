package play_test

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/rating"
)

// checkRatedOnce holds game id to having been rated exactly once: one
// rating line per player, each player's stored rating what the lines say
// and what rating.Default.Table gives for their places from the ratings
// before (the initial rating for newcomers), and one rated game each.
func (e *ratingsEnv) checkRatedOnce(t *testing.T, id int64, users ...*models.User) []models.RatingChange {
	t.Helper()
	lines, err := e.st.RatingChanges(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(users) {
		t.Fatalf("game %d has %d rating lines, want %d: %+v", id, len(lines), len(users), lines)
	}
	before := make([]rating.Rating, len(lines))
	places := make([]int, len(lines))
	for i, l := range lines {
		before[i] = rating.Rating{Rating: l.RatingBefore, Deviation: l.DeviationBefore, Volatility: l.VolatilityBefore}
		places[i] = l.Place
	}
	want := rating.Default.Table(before, places)
	for i, l := range lines {
		if l.UserID != users[i].ID {
			t.Fatalf("line %d is user %d's, want %s's", i, l.UserID, users[i].Username)
		}
		got, row := e.ratingOf(t, users[i])
		after := rating.Rating{Rating: l.RatingAfter, Deviation: l.DeviationAfter, Volatility: l.VolatilityAfter}
		if !same(after, want[i]) || !same(got, after) {
			t.Errorf("%s: stored %+v, line %+v, Table %+v", users[i].Username, got, after, want[i])
		}
		if row.Games != 1 {
			t.Errorf("%s has %d rated games after one game", users[i].Username, row.Games)
		}
		won := 0
		if l.Place == 0 {
			won = 1
		}
		if row.Wins != won {
			t.Errorf("%s placed %d has %d wins", users[i].Username, l.Place, row.Wins)
		}
	}
	return lines
}

// TestAttackRatingsEndRetried: every way a game can end is tried at once,
// and again and again after the end, as impatient players, retried
// requests and late outbox jobs do: both players resign three times each,
// both vote to end, the deadline's timeout and the forfeits of both seats
// run, all at the same moment. What must hold: the game ends once and is
// rated once (one line per player, one rated game each, the stored
// ratings those of its lines and of Glicko-2 for its places); whatever
// comes after the end changes no rating.
func TestAttackRatingsEndRetried(t *testing.T) {
	eachRatingsDB(t, func(t *testing.T, e *ratingsEnv) {
		ctx := context.Background()
		ana, bob := newUser(t, e.st, "ana"), newUser(t, e.st, "bob")
		id := e.start(t, 0, ana, bob)
		e.clk.Add(30 * 24 * time.Hour) // every deadline has passed

		attempts := []func() error{}
		for range 3 {
			for _, u := range []*models.User{ana, bob} {
				attempts = append(attempts, func() error { _, err := e.svc.Resign(ctx, id, u.ID, nil); return err })
			}
		}
		for _, u := range []*models.User{ana, bob} {
			attempts = append(attempts, func() error { _, err := e.svc.VoteEnd(ctx, id, u.ID, nil); return err })
		}
		attempts = append(attempts,
			func() error { _, err := e.svc.Timeout(ctx, id); return err },
			func() error { return e.svc.Forfeit(ctx, id, 0) },
			func() error { return e.svc.Forfeit(ctx, id, 1) })
		var wg sync.WaitGroup
		errs := make([]error, len(attempts))
		for i, f := range attempts {
			wg.Go(func() { errs[i] = f() })
		}
		wg.Wait()
		for i, err := range errs {
			var pe *play.Error
			if err != nil && !errors.As(err, &pe) && !errors.Is(err, models.ErrConflict) {
				t.Errorf("attempt %d: %v", i, err)
			}
		}
		g, _, err := e.svc.Game(ctx, id, ana.ID)
		if err != nil || g.Status != models.StatusOver {
			t.Fatalf("the game after every end at once: %+v %v", g, err)
		}
		lines := e.checkRatedOnce(t, id, ana, bob)

		// And once more, one after the other, later.
		e.clk.Add(60 * 24 * time.Hour)
		for _, f := range attempts {
			f()
		}
		if again := e.checkRatedOnce(t, id, ana, bob); again[0] != lines[0] || again[1] != lines[1] {
			t.Errorf("the lines changed after the end: %+v, were %+v", again, lines)
		}
	})
}

// TestAttackRatingsSelfPlay: a player tries to sit in two seats of one
// game, to play against themselves and win a rated game (inviting
// themselves, joining their own game, joining another's twice, taking an
// invited seat that is theirs already); then the database is asked
// straight to put one user in two seats. What must hold: every try is
// refused, no game ever has one user twice, and nobody is rated.
func TestAttackRatingsSelfPlay(t *testing.T) {
	eachRatingsDB(t, func(t *testing.T, e *ratingsEnv) {
		ctx := context.Background()
		ana, bob := newUser(t, e.st, "ana"), newUser(t, e.st, "bob")
		deck := play.DeckChoice{Prebuilt: "running-a-startup"}
		if _, err := e.svc.Create(ctx, ana.ID, play.NewGame{Players: 2, Mode: "fast", Deck: deck, Invite: []string{"ana"}}, nil); err == nil {
			t.Error("ana invited herself to her own game")
		}
		own, err := e.svc.Create(ctx, ana.ID, play.NewGame{Players: 2, Mode: "fast", Deck: deck}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Join(ctx, own.Game.ID, ana.ID, deck, nil); err == nil {
			t.Error("ana joined her own game a second time")
		}
		if _, err := e.svc.JoinInvited(ctx, own.Game.ID, ana.ID, deck, nil); err == nil {
			t.Error("ana joined her own game again by an invitation")
		}
		theirs, err := e.svc.Create(ctx, bob.ID, play.NewGame{Players: 3, Mode: "fast", Deck: deck, Invite: []string{"ana"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Join(ctx, theirs.Game.ID, ana.ID, deck, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Join(ctx, theirs.Game.ID, ana.ID, deck, nil); err == nil {
			t.Error("ana took a second seat of bob's game")
		}
		if _, err := e.svc.JoinInvited(ctx, theirs.Game.ID, ana.ID, deck, nil); err == nil {
			t.Error("ana took a second seat of bob's game by an invitation")
		}
		// The last line: the database keeps one seat per user and game.
		if err := e.st.ExecForTest(ctx, `UPDATE seats SET user_id = ?, username = 'ana' WHERE game_id = ? AND seat_no = 2`,
			ana.ID, theirs.Game.ID); err == nil {
			t.Error("the database put ana in two seats of one game")
		}
		for _, id := range []int64{own.Game.ID, theirs.Game.ID} {
			g, _, err := e.svc.Game(ctx, id, ana.ID)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, s := range g.Seats {
				if s.UserID != nil && *s.UserID == ana.ID {
					n++
				}
			}
			if n != 1 {
				t.Errorf("game %d seats ana %d times", id, n)
			}
		}
		if _, err := e.st.Rating(ctx, ana.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("ana is rated: %v", err)
		}
	})
}

// TestAttackRatingsGamesThatDoNotCount: games a player might use to move
// ratings cheaply: a game of two people and the bot from the start (one
// person resigns, then the other: the bot "wins"), a game of one person
// and three bots, a game cancelled before its start, a game left before
// its start. What must hold: none of them rates anybody, none leaves a
// rating line.
func TestAttackRatingsGamesThatDoNotCount(t *testing.T) {
	eachRatingsDB(t, func(t *testing.T, e *ratingsEnv) {
		ctx := context.Background()
		ana, bob, cy := newUser(t, e.st, "ana"), newUser(t, e.st, "bob"), newUser(t, e.st, "cy")
		withBot := e.start(t, 1, ana, bob)
		if _, err := e.svc.Resign(ctx, withBot, bob.ID, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Resign(ctx, withBot, ana.ID, nil); err != nil {
			t.Fatal(err)
		}
		solo := e.start(t, 3, cy)
		if _, err := e.svc.Resign(ctx, solo, cy.ID, nil); err != nil {
			t.Fatal(err)
		}
		// The game of two people and a bot is over (the bot won); the bots
		// of the solo game play on without its person, unrated either way.
		if g, _, _ := e.svc.Game(ctx, withBot, ana.ID); g == nil || g.Status != models.StatusOver {
			t.Fatalf("game %d is not over", withBot)
		}
		deck := play.DeckChoice{Prebuilt: "running-a-startup"}
		cancelled, err := e.svc.Create(ctx, ana.ID, play.NewGame{Players: 2, Mode: "fast", Deck: deck}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Join(ctx, cancelled.Game.ID, bob.ID, deck, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Leave(ctx, cancelled.Game.ID, bob.ID, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Cancel(ctx, cancelled.Game.ID, ana.ID, nil); err != nil {
			t.Fatal(err)
		}
		for _, id := range []int64{withBot, solo, cancelled.Game.ID} {
			if lines, err := e.st.RatingChanges(ctx, id); err != nil || len(lines) != 0 {
				t.Errorf("game %d has rating lines: %+v %v", id, lines, err)
			}
		}
		for _, u := range []*models.User{ana, bob, cy} {
			if r, err := e.st.Rating(ctx, u.ID); !errors.Is(err, models.ErrNotFound) {
				t.Errorf("%s is rated by games that do not count: %+v %v", u.Username, r, err)
			}
			if r, err := e.svc.RatingOf(ctx, u.ID); err != nil || r.Games != 0 || !same(r.Rating, rating.Default.Initial) {
				t.Errorf("%s's rating: %+v %v", u.Username, r, err)
			}
		}
	})
}

// TestAttackRatingsTakeoverCannotDraw: a player about to lose lets their
// clock run out until the bot takes their seat over, then both vote to end
// at scores still level, hoping for a draw. What must hold: the seat the
// bot plays at the end counts as left: its player is placed last and
// loses, the other wins, and the game is rated once.
func TestAttackRatingsTakeoverCannotDraw(t *testing.T) {
	eachRatingsDB(t, func(t *testing.T, e *ratingsEnv) {
		ctx := context.Background()
		ana, bob := newUser(t, e.st, "ana"), newUser(t, e.st, "bob")
		deck := play.DeckChoice{Prebuilt: "running-a-startup"}
		one := 1
		res, err := e.svc.Create(ctx, ana.ID, play.NewGame{Players: 2, Mode: "fast", Deck: deck, TimeoutLimit: &one,
			OnTimeouts: play.OnTimeoutsBot, TurnDeadlineSeconds: 3600}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := res.Game.ID
		if _, err := e.svc.Join(ctx, id, bob.ID, deck, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Start(ctx, id, ana.ID, nil); err != nil {
			t.Fatal(err)
		}
		users := []*models.User{ana, bob}
		e.clk.Add(2 * time.Hour)
		if did, err := e.svc.Timeout(ctx, id); !did || err != nil {
			t.Fatalf("timeout: %v %v", did, err)
		}
		g, _, err := e.svc.Game(ctx, id, ana.ID)
		if err != nil {
			t.Fatal(err)
		}
		late := -1
		for i, s := range g.Seats {
			if s.Bot == models.BotTakeover {
				late = i
			}
		}
		if late < 0 {
			t.Fatalf("no seat taken over after a timeout with a limit of one: %+v", g.Seats)
		}
		for _, u := range []*models.User{users[1-late], users[late]} {
			if _, err := e.svc.VoteEnd(ctx, id, u.ID, nil); err != nil {
				t.Logf("%s's vote: %v", u.Username, err)
			}
		}
		if g, _, _ := e.svc.Game(ctx, id, ana.ID); g.Status != models.StatusOver {
			// Should the late player's vote not count while the bot plays
			// their seat, they end the game by resigning, which must rate
			// it the same way.
			if _, err := e.svc.Resign(ctx, id, users[late].ID, nil); err != nil {
				t.Fatal(err)
			}
		}
		lines := e.checkRatedOnce(t, id, ana, bob)
		if lines[late].Place != 1 || lines[1-late].Place != 0 {
			t.Fatalf("the seat the bot took over placed %d, the other %d: a loss and a win expected", lines[late].Place, lines[1-late].Place)
		}
		if lines[late].RatingAfter >= 1500 || math.IsNaN(lines[late].RatingAfter) {
			t.Errorf("the late player's rating went to %v", lines[late].RatingAfter)
		}
	})
}

package play_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/rating"
)

// testClock is a clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// ratingsEnv is a play path on a fresh store of dialect d, with a clock.
type ratingsEnv struct {
	st  *models.Store
	svc *play.Service
	clk *testClock
}

func eachRatingsDB(t *testing.T, f func(t *testing.T, e *ratingsEnv)) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		clk := &testClock{t: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)}
		st := modelstest.Open(t, d, models.Options{Now: clk.Now})
		f(t, &ratingsEnv{st: st, svc: play.New(st, clk.Now, nil), clk: clk})
	})
}

// start opens a fast game of users (the first creates it, the others
// join) with bots more seats played by the service's bot, and starts it.
func (e *ratingsEnv) start(t *testing.T, bots int, users ...*models.User) int64 {
	t.Helper()
	ctx := context.Background()
	deck := play.DeckChoice{Prebuilt: "running-a-startup"}
	res, err := e.svc.Create(ctx, users[0].ID, play.NewGame{Players: len(users) + bots, Mode: "fast", Deck: deck, Bots: bots}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Game.ID
	for _, u := range users[1:] {
		if _, err := e.svc.Join(ctx, id, u.ID, deck, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.svc.Start(ctx, id, users[0].ID, nil); err != nil {
		t.Fatal(err)
	}
	return id
}

// playOut plays game id to its end, each awaited seat choosing with the
// greedy bot from its own view and legal actions, through the play path;
// after maxActions everyone votes to end it. It returns the final state.
func (e *ratingsEnv) playOut(t *testing.T, id int64, users []*models.User, maxActions int) *engine.State {
	t.Helper()
	ctx := context.Background()
	for n := 0; ; n++ {
		var (
			seat    int
			act     engine.Action
			version int64
			over    bool
		)
		err := e.svc.Read(ctx, id, users[0].ID, func(g *models.Game, _ int, st *engine.State) error {
			if over = g.Status != models.StatusActive; over {
				return nil
			}
			seat, version = engine.Awaiting(st)[0], g.Version
			act = bot.NewGreedy(rand.New(rand.NewPCG(uint64(id), uint64(n)))).Choose(st.View(seat), engine.Legal(st, seat))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if over {
			break
		}
		if n == maxActions {
			for _, u := range users {
				if _, err := e.svc.VoteEnd(ctx, id, u.ID, nil); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		if _, err := e.svc.Submit(ctx, id, users[seat].ID, &version, []engine.Action{act}, nil); err != nil {
			t.Fatalf("action %d of seat %d: %v", n, seat, err)
		}
	}
	var final *engine.State
	if err := e.svc.Read(ctx, id, users[0].ID, func(_ *models.Game, _ int, st *engine.State) error {
		final = st.Clone()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return final
}

// ratingOf is the user's stored rating as rating's type, with the
// counts; an unrated user fails the test.
func (e *ratingsEnv) ratingOf(t *testing.T, u *models.User) (rating.Rating, *models.PlayerRating) {
	t.Helper()
	r, err := e.st.Rating(context.Background(), u.ID)
	if err != nil {
		t.Fatalf("rating of %s: %v", u.Username, err)
	}
	return rating.Rating{Rating: r.Rating, Deviation: r.Deviation, Volatility: r.Volatility}, r
}

func same(a, b rating.Rating) bool {
	return math.Abs(a.Rating-b.Rating) < 1e-9 && math.Abs(a.Deviation-b.Deviation) < 1e-9 &&
		math.Abs(a.Volatility-b.Volatility) < 1e-12
}

// TestRatedTwoPlayerGames: a resignation is a loss; the next game starts
// from the ratings the first left, grown by the idle weeks between; a game
// with a bot seat rates nobody.
func TestRatedTwoPlayerGames(t *testing.T) {
	eachRatingsDB(t, func(t *testing.T, e *ratingsEnv) {
		ctx := context.Background()
		ana, bob := newUser(t, e.st, "ana"), newUser(t, e.st, "bob")
		first := e.start(t, 0, ana, bob)
		if _, err := e.svc.Resign(ctx, first, ana.ID, nil); err != nil {
			t.Fatal(err)
		}
		init := rating.Default.Initial
		want := rating.Default.Table([]rating.Rating{init, init}, []int{1, 0})
		a, ar := e.ratingOf(t, ana)
		b, br := e.ratingOf(t, bob)
		if !same(a, want[0]) || !same(b, want[1]) || a.Rating >= 1500 || b.Rating <= 1500 {
			t.Fatalf("after ana resigned: ana %+v bob %+v, want %+v", a, b, want)
		}
		if ar.Games != 1 || ar.Wins != 0 || br.Games != 1 || br.Wins != 1 {
			t.Errorf("counts: ana %d games %d wins, bob %d games %d wins", ar.Games, ar.Wins, br.Games, br.Wins)
		}
		lines, err := e.st.RatingChanges(ctx, first)
		if err != nil || len(lines) != 2 || lines[0].Place != 1 || lines[1].Place != 0 || lines[0].RatingBefore != 1500 ||
			lines[1].RatingAfter != b.Rating {
			t.Fatalf("the game's lines: %+v %v", lines, err)
		}

		// Three weeks and a day later Bob resigns a second game: both
		// ratings grow their RD by three idle weeks first.
		e.clk.Add(3*rating.IdlePeriod + 24*time.Hour)
		second := e.start(t, 0, bob, ana)
		if _, err := e.svc.Resign(ctx, second, bob.ID, nil); err != nil {
			t.Fatal(err)
		}
		want = rating.Default.Table([]rating.Rating{rating.Default.Idle(b, 3), rating.Default.Idle(a, 3)}, []int{1, 0})
		b2, br := e.ratingOf(t, bob)
		a2, ar := e.ratingOf(t, ana)
		if !same(b2, want[0]) || !same(a2, want[1]) {
			t.Fatalf("second game: bob %+v ana %+v, want %+v", b2, a2, want)
		}
		if ar.Games != 2 || ar.Wins != 1 || br.Games != 2 || br.Wins != 1 || !ar.LastGameAt.Equal(e.clk.Now()) {
			t.Errorf("counts after two games: ana %+v, bob %+v", ar, br)
		}

		// A practice game against the bot rates nobody.
		cy := newUser(t, e.st, "cy")
		practice := e.start(t, 1, cy)
		if _, err := e.svc.Resign(ctx, practice, cy.ID, nil); err != nil {
			t.Fatal(err)
		}
		if g, _, _ := e.svc.Game(ctx, practice, cy.ID); g.Status != models.StatusOver {
			t.Fatalf("the practice game is %s", g.Status)
		}
		if _, err := e.st.Rating(ctx, cy.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("a game against the bot rated its player: %v", err)
		}
		if lines, _ := e.st.RatingChanges(ctx, practice); len(lines) != 0 {
			t.Errorf("a game against the bot has rating lines: %+v", lines)
		}
	})
}

// TestThreePlayerResultRatesAllThree plays a whole game of three to its
// end: each player's new rating is Glicko-2's over their two pairings, by
// the final places.
func TestThreePlayerResultRatesAllThree(t *testing.T) {
	eachRatingsDB(t, func(t *testing.T, e *ratingsEnv) {
		ctx := context.Background()
		users := []*models.User{newUser(t, e.st, "ana"), newUser(t, e.st, "bob"), newUser(t, e.st, "cy")}
		id := e.start(t, 0, users...)
		final := e.playOut(t, id, users, 3000)
		ranks := engine.Ranks(final)
		init := rating.Default.Initial
		want := rating.Default.Table([]rating.Rating{init, init, init}, ranks)
		g, _, err := e.svc.Game(ctx, id, users[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		changed := 0
		for i, u := range users {
			got, row := e.ratingOf(t, u)
			if !same(got, want[i]) {
				t.Errorf("seat %d (place %d): %+v, want %+v", i, ranks[i], got, want[i])
			}
			if got.Deviation >= init.Deviation {
				t.Errorf("seat %d: RD %.1f after a game", i, got.Deviation)
			}
			if got.Rating != init.Rating {
				changed++
			}
			won := 0
			if ranks[i] == 0 {
				won = 1
			}
			if row.Games != 1 || row.Wins != won {
				t.Errorf("seat %d: %d games, %d wins; placed %d", i, row.Games, row.Wins, ranks[i])
			}
		}
		// Random shuffles end some games in a three-way tie: draws between
		// equal ratings move none (RD still shrinks, checked above); any
		// other result moves at least two.
		if allTied := ranks[0] == ranks[1] && ranks[1] == ranks[2]; allTied && changed != 0 || !allTied && changed < 2 {
			t.Errorf("places %v moved %d ratings", ranks, changed)
		}
		t.Logf("places %v, winners %v, %d events", ranks, g.WinnerSeats(), g.EventSeq)
	})
}

// TestRatingWithTheEndOrNotAtAll: the ratings are written in the
// transaction that ends the game. When their write fails, the game does
// not end either (nothing is lost: the move can be made again); once the
// game is over, nothing that comes after it (a late timeout, a forfeit, a
// second resignation) rates it again.
func TestRatingWithTheEndOrNotAtAll(t *testing.T) {
	eachRatingsDB(t, func(t *testing.T, e *ratingsEnv) {
		ctx := context.Background()
		ana, bob := newUser(t, e.st, "ana"), newUser(t, e.st, "bob")
		id := e.start(t, 0, ana, bob)
		g, _, _ := e.svc.Game(ctx, id, ana.ID)
		// A line already there for Bob makes the ratings' write fail, as a
		// crash in the middle of it would: the whole change rolls back.
		block := `INSERT INTO rating_changes (game_id, user_id, seat, place, rating_before, deviation_before, volatility_before,
  rating_after, deviation_after, volatility_after, created_at) VALUES (?, ?, 1, 0, 1, 1, 1, 1, 1, 1, ?)`
		if err := e.st.ExecForTest(ctx, block, id, bob.ID, e.clk.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Resign(ctx, id, ana.ID, nil); !errors.Is(err, models.ErrConflict) {
			t.Fatalf("resigning with the ratings' write failing: %v", err)
		}
		after, _, _ := e.svc.Game(ctx, id, ana.ID)
		if after.Status != models.StatusActive || after.Version != g.Version {
			t.Fatalf("the game ended without its ratings: %s at version %d (was %d)", after.Status, after.Version, g.Version)
		}
		for _, u := range []*models.User{ana, bob} {
			if r, err := e.st.Rating(ctx, u.ID); !errors.Is(err, models.ErrNotFound) {
				t.Errorf("%s rated by a change that rolled back: %+v %v", u.Username, r, err)
			}
		}
		if err := e.st.ExecForTest(ctx, `DELETE FROM rating_changes WHERE game_id = ?`, id); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Resign(ctx, id, ana.ID, nil); err != nil {
			t.Fatal(err)
		}
		// What may come after the end changes no rating.
		e.clk.Add(30 * 24 * time.Hour)
		if did, err := e.svc.Timeout(ctx, id); did || err != nil {
			t.Errorf("a timeout after the end: %v %v", did, err)
		}
		if err := e.svc.Forfeit(ctx, id, 1); err != nil {
			t.Errorf("a forfeit after the end: %v", err)
		}
		var pe *play.Error
		if _, err := e.svc.Resign(ctx, id, bob.ID, nil); !errors.As(err, &pe) || pe.Code != "game_not_active" {
			t.Errorf("resigning a game that is over: %v", err)
		}
		for _, u := range []*models.User{ana, bob} {
			if _, r := e.ratingOf(t, u); r.Games != 1 {
				t.Errorf("%s has %d rated games after one", u.Username, r.Games)
			}
		}
		if lines, _ := e.st.RatingChanges(ctx, id); len(lines) != 2 {
			t.Errorf("%d rating lines for a game of two", len(lines))
		}
	})
}

// TestRatingsOfGamesEndingAtOnce ends two games with a player in common at
// the same moment: both are rated, one after the other, none lost.
func TestRatingsOfGamesEndingAtOnce(t *testing.T) {
	eachRatingsDB(t, func(t *testing.T, e *ratingsEnv) {
		ctx := context.Background()
		ana, bob, cy := newUser(t, e.st, "ana"), newUser(t, e.st, "bob"), newUser(t, e.st, "cy")
		one, two := e.start(t, 0, ana, bob), e.start(t, 0, ana, cy)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, id := range []int64{one, two} {
			wg.Go(func() { _, errs[i] = e.svc.Resign(ctx, id, ana.ID, nil) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		_, r := e.ratingOf(t, ana)
		if r.Games != 2 || r.Wins != 0 {
			t.Fatalf("ana after losing two games at once: %+v", r)
		}
		a, _ := e.ratingOf(t, ana)
		init := rating.Default.Initial
		// One game was rated first, from the initial rating, and the other
		// from what it left.
		firstLoss := rating.Default.Table([]rating.Rating{init, init}, []int{1, 0})[0]
		want := rating.Default.Table([]rating.Rating{firstLoss, init}, []int{1, 0})[0]
		if !same(a, want) {
			t.Errorf("ana after two losses: %+v, want %+v", a, want)
		}
	})
}

// TestVoteToEndCountsAsTheScoresSay: a game ended by a vote is rated by
// its scores as they stand; at the start nobody has points, so it is a
// draw, shared first place for both.
func TestVoteToEndCountsAsTheScoresSay(t *testing.T) {
	eachRatingsDB(t, func(t *testing.T, e *ratingsEnv) {
		ctx := context.Background()
		ana, bob := newUser(t, e.st, "ana"), newUser(t, e.st, "bob")
		id := e.start(t, 0, ana, bob)
		for _, u := range []*models.User{ana, bob} {
			if _, err := e.svc.VoteEnd(ctx, id, u.ID, nil); err != nil {
				t.Fatal(err)
			}
		}
		init := rating.Default.Initial
		want := rating.Default.Table([]rating.Rating{init, init}, []int{0, 0})
		for i, u := range []*models.User{ana, bob} {
			got, row := e.ratingOf(t, u)
			if !same(got, want[i]) || got.Rating != 1500 || got.Deviation >= 350 || row.Games != 1 || row.Wins != 1 {
				t.Errorf("%s after a drawn vote: %+v %+v, want %+v", u.Username, got, row, want[i])
			}
		}
	})
}

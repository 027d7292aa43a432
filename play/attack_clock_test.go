package play_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
)

// acEnv is a play path with a clock the test moves, on a fresh store.
type acEnv = ratingsEnv

func eachAttackClockDB(t *testing.T, f func(t *testing.T, e *acEnv)) { eachRatingsDB(t, f) }

// game starts a fast game of users with n's settings (users[0] creates it,
// the others are invited and join).
func (e *acEnv) game(t *testing.T, n play.NewGame, users ...*models.User) int64 {
	t.Helper()
	ctx := context.Background()
	deck := play.DeckChoice{Prebuilt: "running-a-startup"}
	n.Players, n.Mode, n.Deck = len(users), "fast", deck
	for _, u := range users[1:] {
		n.Invite = append(n.Invite, u.Username)
	}
	res, err := e.svc.Create(ctx, users[0].ID, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Game.ID
	for _, u := range users[1:] {
		if _, err := e.svc.Join(ctx, id, u.ID, deck, nil); err != nil {
			t.Fatal(err)
		}
	}
	if res, err = e.svc.Start(ctx, id, users[0].ID, nil); err != nil {
		t.Fatal(err)
	}
	res.Done()
	return id
}

// now is the game as stored, with a copy of its state.
func (e *acEnv) now(t *testing.T, id int64) (*models.Game, *engine.State) {
	t.Helper()
	g, err := e.st.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var s *engine.State
	if g.State != nil {
		data, err := g.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if s, err = engine.Unmarshal(data); err != nil {
			t.Fatal(err)
		}
	}
	return g, s
}

// endTurn is the action that ends the awaited seat's turn, or the default
// answer of its first prompt.
func endTurn(s *engine.State, seat int) engine.Action {
	if ps := engine.PromptsFor(s, seat); len(ps) > 0 {
		return engine.Action{Type: engine.ActAnswer, Prompt: ps[0].ID, Choices: ps[0].Default()}
	}
	return engine.Action{Type: engine.ActEndTurn}
}

// passDeadline moves the clock just past game id's deadline.
func (e *acEnv) passDeadline(t *testing.T, id int64) {
	t.Helper()
	g, _ := e.now(t, id)
	if g.DeadlineAt == nil {
		t.Fatal("no deadline")
	}
	e.clk.Add(g.DeadlineAt.Sub(e.clk.Now()) + time.Second)
}

// actionsAfter is game id's action log after version v.
func (e *acEnv) actionsAfter(t *testing.T, id, v int64) []models.ActionRecord {
	t.Helper()
	all, err := e.st.Actions(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []models.ActionRecord
	for _, a := range all {
		if a.Version > v {
			out = append(out, a)
		}
	}
	return out
}

// games is the list of user uid's games.
func (e *acEnv) games(t *testing.T, uid int64) []models.Game {
	t.Helper()
	gs, err := e.st.ListGames(context.Background(), models.GameFilter{UserID: uid, Limit: 101})
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

func refusalCode(err error) string {
	var re *play.Error
	if errors.As(err, &re) {
		return re.Code
	}
	return ""
}

// TestAttackClockMoveRacesTimeout: the awaited player's move and the
// deadline's timeout arrive together, just past the deadline, many times
// over: exactly one applies; an acknowledged move is in the log; a move
// that lost is refused as stale; the seat's run of timeouts counts the
// timeout only when it applied; a second timeout does nothing.
func TestAttackClockMoveRacesTimeout(t *testing.T) {
	eachAttackClockDB(t, func(t *testing.T, e *acEnv) {
		ctx := context.Background()
		ana, bob := newUser(t, e.st, "ana"), newUser(t, e.st, "bob")
		users := []*models.User{ana, bob}
		limit := 0
		id := e.game(t, play.NewGame{TurnDeadlineSeconds: 60, PromptDeadlineSeconds: 60, TimeoutLimit: &limit}, ana, bob)
		moved, timedOut := 0, 0
		for round := 0; round < 12; round++ {
			g, s := e.now(t, id)
			if g.Status != models.StatusActive {
				break
			}
			seat := engine.Awaiting(s)[0]
			before := g.Seats[seat].Timeouts
			v := g.Version
			a := endTurn(s, seat)
			e.passDeadline(t, id)
			var (
				wg      sync.WaitGroup
				res     *play.Result
				subErr  error
				applied bool
				toErr   error
			)
			wg.Add(2)
			go func() {
				defer wg.Done()
				res, subErr = e.svc.Submit(ctx, id, users[seat].ID, &v, []engine.Action{a}, nil)
			}()
			go func() {
				defer wg.Done()
				// Staggered a little every other round, so that both orders happen.
				time.Sleep(time.Duration(round%2) * 2 * time.Millisecond)
				applied, toErr = e.svc.Timeout(ctx, id)
			}()
			wg.Wait()
			if toErr != nil {
				t.Fatalf("round %d: timeout: %v", round, toErr)
			}
			after, _ := e.now(t, id)
			if subErr == nil && applied {
				// Both, in this order only: an answer to a choice of the
				// seat's own turn keeps the turn's deadline, passed, and the
				// timeout then ends the turn. The answer stays in the log.
				acts := e.actionsAfter(t, id, v)
				if after.Version != v+2 || a.Type != engine.ActAnswer || !res.Game.DeadlineAt.Equal(*g.DeadlineAt) ||
					len(acts) != 2 || acts[0].Seat != seat || acts[1].Seat != -1 || after.Seats[seat].Timeouts != 1 {
					t.Fatalf("round %d: both the move (%s) and the timeout applied: version %d -> %d, log %+v",
						round, a.Type, v, after.Version, acts)
				}
				res.Done()
				moved++
				timedOut++
				continue
			}
			if after.Version != v+1 {
				t.Fatalf("round %d: version %d -> %d (move err %v, timeout %v): want exactly one change", round, v, after.Version, subErr, applied)
			}
			switch {
			case subErr == nil:
				moved++
				res.Done()
				if after.Seats[seat].Timeouts != 0 {
					t.Fatalf("round %d: the seat moved but its run of timeouts is %d", round, after.Seats[seat].Timeouts)
				}
				acts := e.actionsAfter(t, id, v)
				if len(acts) != 1 || acts[0].Seat != seat || acts[0].Version != v+1 {
					t.Fatalf("round %d: the acknowledged move is not the log's: %+v", round, acts)
				}
			case applied:
				timedOut++
				var stale *play.StaleVersionError
				var batch *play.BatchError
				if !errors.As(subErr, &stale) && !errors.As(subErr, &batch) {
					t.Fatalf("round %d: the move that lost to the timeout: %v", round, subErr)
				}
				if after.Seats[seat].Timeouts != before+1 {
					t.Fatalf("round %d: run of timeouts %d -> %d", round, before, after.Seats[seat].Timeouts)
				}
			default:
				t.Fatalf("round %d: neither applied: %v", round, subErr)
			}
			// The same timeout again (a retried job) finds nothing due.
			if again, err := e.svc.Timeout(ctx, id); err != nil || again {
				t.Fatalf("round %d: a second timeout: %v %v", round, again, err)
			}
			if g2, _ := e.now(t, id); g2.Version != after.Version {
				t.Fatalf("round %d: the second timeout changed the game", round)
			}
		}
		t.Logf("%d moves won, %d timeouts won", moved, timedOut)
	})
}

// TestAttackClockTimeoutNotDue: a timeout before the deadline, for a game
// that ended, or once the deadline was replaced by a move does nothing.
func TestAttackClockTimeoutNotDue(t *testing.T) {
	eachAttackClockDB(t, func(t *testing.T, e *acEnv) {
		ctx := context.Background()
		ana, bob := newUser(t, e.st, "ana"), newUser(t, e.st, "bob")
		users := []*models.User{ana, bob}
		id := e.game(t, play.NewGame{TurnDeadlineSeconds: 3600, PromptDeadlineSeconds: 600}, ana, bob)
		g, s := e.now(t, id)
		e.clk.Add(g.DeadlineAt.Sub(e.clk.Now()) - time.Microsecond)
		if ok, err := e.svc.Timeout(ctx, id); ok || err != nil {
			t.Fatalf("a microsecond early: %v %v", ok, err)
		}
		// The player moves a second late; the old deadline's timeout,
		// coming later still, finds the new deadline not passed.
		e.clk.Add(time.Second)
		seat := engine.Awaiting(s)[0]
		v := g.Version
		res, err := e.svc.Submit(ctx, id, users[seat].ID, &v, []engine.Action{endTurn(s, seat)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		if ok, err := e.svc.Timeout(ctx, id); ok || err != nil {
			t.Fatalf("after a late move: %v %v", ok, err)
		}
		if g2, _ := e.now(t, id); g2.Version != v+1 || g2.Seats[seat].Timeouts != 0 {
			t.Fatalf("version %d, timeouts %d", g2.Version, g2.Seats[seat].Timeouts)
		}
		// Over: no timeout, even days past the last deadline.
		if res, err = e.svc.Resign(ctx, id, ana.ID, nil); err != nil {
			t.Fatal(err)
		}
		res.Done()
		g, _ = e.now(t, id)
		if g.Status != models.StatusOver || g.DeadlineAt != nil {
			t.Fatalf("after the resignation: %s, deadline %v", g.Status, g.DeadlineAt)
		}
		e.clk.Add(30 * 24 * time.Hour)
		if ok, err := e.svc.Timeout(ctx, id); ok || err != nil {
			t.Fatalf("an ended game: %v %v", ok, err)
		}
		if g2, _ := e.now(t, id); g2.Version != g.Version {
			t.Fatal("a timeout changed an ended game")
		}
		if ok, err := e.svc.Timeout(ctx, id+1000); ok || err == nil {
			t.Fatalf("a game that does not exist: %v %v", ok, err)
		}
	})
}

// TestAttackClockReclaimRacesBot: a seat taken over after one timeout is
// reclaimed by its player while the bot's move for it runs: whichever
// comes first, the seat is the player's afterwards, no bot move follows the
// reclaim, and the bot's job, run again, does nothing.
func TestAttackClockReclaimRacesBot(t *testing.T) {
	eachAttackClockDB(t, func(t *testing.T, e *acEnv) {
		ctx := context.Background()
		ana, bob := newUser(t, e.st, "ana"), newUser(t, e.st, "bob")
		users := []*models.User{ana, bob}
		for round := 0; round < 6; round++ {
			limit := 1
			id := e.game(t, play.NewGame{TurnDeadlineSeconds: 600, PromptDeadlineSeconds: 600, TimeoutLimit: &limit}, ana, bob)
			g, s := e.now(t, id)
			victim := engine.Awaiting(s)[0]
			other := 1 - victim
			e.passDeadline(t, id)
			if ok, err := e.svc.Timeout(ctx, id); !ok || err != nil {
				t.Fatalf("timeout: %v %v", ok, err)
			}
			g, s = e.now(t, id)
			if g.Seats[victim].Bot != models.BotTakeover {
				t.Fatalf("seat %d not taken over: %+v", victim, g.Seats[victim])
			}
			// The other player ends their turns until the bot's seat is awaited.
			for i := 0; i < 10 && !slices.Contains(engine.Awaiting(s), victim); i++ {
				v := g.Version
				res, err := e.svc.Submit(ctx, id, users[other].ID, &v, []engine.Action{endTurn(s, other)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				res.Done()
				g, s = e.now(t, id)
			}
			if !slices.Contains(engine.Awaiting(s), victim) {
				t.Fatal("the bot's seat is never awaited")
			}
			v := g.Version
			var wg sync.WaitGroup
			var botErr, recErr error
			wg.Add(2)
			go func() { defer wg.Done(); botErr = e.svc.PlayBot(ctx, id, victim, v) }()
			go func() {
				defer wg.Done()
				var res *play.Result
				if res, recErr = e.svc.Reclaim(ctx, id, users[victim].ID, nil); recErr == nil {
					res.Done()
				}
			}()
			wg.Wait()
			if botErr != nil || recErr != nil {
				t.Fatalf("bot %v, reclaim %v", botErr, recErr)
			}
			after, _ := e.now(t, id)
			if after.Seats[victim].Bot != "" || after.Seats[victim].Timeouts != 0 {
				t.Fatalf("after the reclaim: %+v", after.Seats[victim])
			}
			acts := e.actionsAfter(t, id, v)
			switch after.Version {
			case v + 1: // the reclaim first: the bot did nothing
				if len(acts) != 0 {
					t.Fatalf("the bot moved after the reclaim: %+v", acts)
				}
			case v + 2: // the bot first, then the reclaim
				if len(acts) != 1 || acts[0].Version != v+1 {
					t.Fatalf("actions after the bot's version: %+v", acts)
				}
			default:
				t.Fatalf("version %d -> %d", v, after.Version)
			}
			// The bot's job again (a retry): nothing.
			if err := e.svc.PlayBot(ctx, id, victim, v); err != nil {
				t.Fatal(err)
			}
			if g2, _ := e.now(t, id); g2.Version != after.Version {
				t.Fatal("a retried bot job played for the player")
			}
		}
	})
}

// TestAttackClockReclaimRefused: reclaiming by a stranger, by a player
// whose seat is theirs, twice, and in a game that ended is refused with a
// code, and changes nothing.
func TestAttackClockReclaimRefused(t *testing.T) {
	eachAttackClockDB(t, func(t *testing.T, e *acEnv) {
		ctx := context.Background()
		ana, bob, eve := newUser(t, e.st, "ana"), newUser(t, e.st, "bob"), newUser(t, e.st, "eve")
		users := []*models.User{ana, bob}
		limit := 1
		id := e.game(t, play.NewGame{TurnDeadlineSeconds: 600, PromptDeadlineSeconds: 600, TimeoutLimit: &limit}, ana, bob)
		_, s := e.now(t, id)
		victim := engine.Awaiting(s)[0]
		e.passDeadline(t, id)
		if ok, err := e.svc.Timeout(ctx, id); !ok || err != nil {
			t.Fatalf("timeout: %v %v", ok, err)
		}
		g, _ := e.now(t, id)
		check := func(what string, uid int64, want string) {
			t.Helper()
			res, err := e.svc.Reclaim(ctx, id, uid, nil)
			if code := refusalCode(err); code != want {
				t.Fatalf("%s: %v (code %q), want %q", what, err, code, want)
			}
			if res != nil {
				t.Fatalf("%s: a result", what)
			}
			if g2, _ := e.now(t, id); g2.Version != g.Version || g2.Seats[victim].Bot != g.Seats[victim].Bot {
				t.Fatalf("%s changed the game", what)
			}
		}
		check("a stranger", eve.ID, "not_a_player")
		check("the other player", users[1-victim].ID, "not_taken_over")
		res, err := e.svc.Reclaim(ctx, id, users[victim].ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		g, _ = e.now(t, id)
		check("twice", users[victim].ID, "not_taken_over")
		// Taken over again, then the game ends: no reclaim.
		e.passDeadline(t, id)
		if ok, err := e.svc.Timeout(ctx, id); !ok || err != nil {
			t.Fatalf("timeout: %v %v", ok, err)
		}
		g, _ = e.now(t, id)
		timedOut := slices.IndexFunc(g.Seats, func(s models.Seat) bool { return s.Bot == models.BotTakeover })
		if timedOut < 0 {
			t.Fatal("no seat taken over")
		}
		if res, err = e.svc.Resign(ctx, id, users[1-timedOut].ID, nil); err != nil {
			t.Fatal(err)
		}
		res.Done()
		g, _ = e.now(t, id)
		victim = timedOut
		check("an ended game", users[timedOut].ID, "game_not_active")
	})
}

// TestAttackClockForfeitThreeSeats: with "forfeit" after one timeout, in a
// game of three, the seat that times out resigns (its job run twice does
// nothing more); the two left play on, with a deadline for the seat
// awaited; the next to time out resigns too and the last one wins; the
// game is rated once, the forfeits last.
func TestAttackClockForfeitThreeSeats(t *testing.T) {
	eachAttackClockDB(t, func(t *testing.T, e *acEnv) {
		ctx := context.Background()
		ana, bob, cy := newUser(t, e.st, "ana"), newUser(t, e.st, "bob"), newUser(t, e.st, "cy")
		limit := 1
		id := e.game(t, play.NewGame{TurnDeadlineSeconds: 600, PromptDeadlineSeconds: 600, TimeoutLimit: &limit,
			OnTimeouts: play.OnTimeoutsForfeit}, ana, bob, cy)
		var forfeited []int
		for len(forfeited) < 2 {
			g, s := e.now(t, id)
			if g.Status != models.StatusActive {
				t.Fatalf("over after %v forfeits", forfeited)
			}
			late := engine.Awaiting(s)
			e.passDeadline(t, id)
			if ok, err := e.svc.Timeout(ctx, id); !ok || err != nil {
				t.Fatalf("timeout: %v %v", ok, err)
			}
			g, _ = e.now(t, id)
			for _, seat := range late {
				if g.Seats[seat].Bot != "" {
					t.Fatalf("seat %d went to a bot in forfeit mode", seat)
				}
				for range 2 { // the forfeit job and its retry
					if err := e.svc.Forfeit(ctx, id, seat); err != nil {
						t.Fatal(err)
					}
				}
				forfeited = append(forfeited, seat)
			}
			g2, s2 := e.now(t, id)
			if g2.Version != g.Version+int64(len(late)) {
				t.Fatalf("versions %d -> %d for %d forfeits", g.Version, g2.Version, len(late))
			}
			for _, seat := range late {
				if !s2.Players[seat].Resigned {
					t.Fatalf("seat %d did not resign", seat)
				}
			}
			if g2.Status == models.StatusActive {
				aw := engine.Awaiting(s2)
				if len(aw) == 0 || g2.DeadlineAt == nil || !g2.DeadlineAt.After(e.clk.Now()) {
					t.Fatalf("the game goes on awaiting %v, deadline %v", aw, g2.DeadlineAt)
				}
				for _, seat := range aw {
					if s2.Players[seat].Resigned {
						t.Fatalf("awaits resigned seat %d", seat)
					}
				}
			}
		}
		g, s := e.now(t, id)
		if g.Status != models.StatusOver || g.DeadlineAt != nil {
			t.Fatalf("after two forfeits: %s, deadline %v", g.Status, g.DeadlineAt)
		}
		winner := 3 - forfeited[0] - forfeited[1]
		if !slices.Equal(s.Winners, []int{winner}) || g.Winners != string(rune('0'+winner)) {
			t.Fatalf("winners %v (%q), want seat %d", s.Winners, g.Winners, winner)
		}
		for i, u := range []*models.User{ana, bob, cy} {
			r, err := e.st.Rating(ctx, u.ID)
			if err != nil {
				t.Fatalf("rating of %s: %v", u.Username, err)
			}
			if r.Games != 1 {
				t.Fatalf("%s rated for %d games", u.Username, r.Games)
			}
			if i == winner && r.Rating <= 1500 || i != winner && r.Rating >= 1500 {
				t.Fatalf("seat %d (winner %d) rated %v", i, winner, r.Rating)
			}
		}
		if err := e.svc.Forfeit(ctx, id, winner); err != nil {
			t.Fatal(err)
		}
		if g2, _ := e.now(t, id); g2.Version != g.Version {
			t.Fatal("a forfeit changed an ended game")
		}
	})
}

// TestAttackClockForfeitAfterComeback: a seat's limit of timeouts was
// reached and its forfeit job is queued (the queue is slow), but the
// player comes back and acts first: their run of timeouts is broken, and
// the late forfeit job does not resign a player who plays.
func TestAttackClockForfeitAfterComeback(t *testing.T) {
	eachAttackClockDB(t, func(t *testing.T, e *acEnv) {
		ctx := context.Background()
		ana, bob, cy := newUser(t, e.st, "ana"), newUser(t, e.st, "bob"), newUser(t, e.st, "cy")
		users := []*models.User{ana, bob, cy}
		limit := 2
		id := e.game(t, play.NewGame{TurnDeadlineSeconds: 600, PromptDeadlineSeconds: 600, TimeoutLimit: &limit,
			OnTimeouts: play.OnTimeoutsForfeit}, ana, bob, cy)
		_, s := e.now(t, id)
		late := engine.Awaiting(s)[0]
		// The seat times out on its turn twice; the others end theirs.
		for n := 0; n < limit; {
			g, s := e.now(t, id)
			seat := engine.Awaiting(s)[0]
			if seat == late {
				e.passDeadline(t, id)
				if ok, err := e.svc.Timeout(ctx, id); !ok || err != nil {
					t.Fatalf("timeout: %v %v", ok, err)
				}
				n++
				continue
			}
			v := g.Version
			res, err := e.svc.Submit(ctx, id, users[seat].ID, &v, []engine.Action{endTurn(s, seat)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			res.Done()
		}
		g, _ := e.now(t, id)
		if g.Seats[late].Timeouts != limit {
			t.Fatalf("run of timeouts %d, want %d", g.Seats[late].Timeouts, limit)
		}
		// Back before the forfeit job runs: an action of theirs (standing
		// answers, taken at any version).
		res, err := e.svc.Submit(ctx, id, users[late].ID, nil, []engine.Action{{Type: engine.ActStanding,
			Standing: &engine.Standing{Pass: true}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		g, _ = e.now(t, id)
		if g.Seats[late].Timeouts != 0 {
			t.Fatalf("the seat acted; run of timeouts %d", g.Seats[late].Timeouts)
		}
		if err := e.svc.Forfeit(ctx, id, late); err != nil {
			t.Fatal(err)
		}
		g2, s2 := e.now(t, id)
		if s2.Players[late].Resigned || g2.Version != g.Version {
			t.Fatalf("the late forfeit job resigned a player who is back (version %d -> %d)", g.Version, g2.Version)
		}
	})
}

// TestAttackClockSettingsBounds: deadline and timeout settings out of
// range are refused as invalid, naming the field, and create nothing;
// the bounds themselves are taken.
func TestAttackClockSettingsBounds(t *testing.T) {
	eachAttackClockDB(t, func(t *testing.T, e *acEnv) {
		ctx := context.Background()
		ana := newUser(t, e.st, "ana")
		deck := play.DeckChoice{Prebuilt: "running-a-startup"}
		ip := func(n int) *int { return &n }
		rows := []struct {
			name  string
			n     play.NewGame
			field string // "" accepted
		}{
			{"turn negative", play.NewGame{TurnDeadlineSeconds: -1}, "turn_deadline_seconds"},
			{"turn too short", play.NewGame{TurnDeadlineSeconds: play.MinDeadline - 1}, "turn_deadline_seconds"},
			{"turn too long", play.NewGame{TurnDeadlineSeconds: play.MaxDeadline + 1}, "turn_deadline_seconds"},
			{"turn huge", play.NewGame{TurnDeadlineSeconds: 1 << 62}, "turn_deadline_seconds"},
			{"turn min int", play.NewGame{TurnDeadlineSeconds: -1 << 63}, "turn_deadline_seconds"},
			{"prompt negative", play.NewGame{PromptDeadlineSeconds: -60}, "prompt_deadline_seconds"},
			{"prompt too long", play.NewGame{PromptDeadlineSeconds: play.MaxDeadline + 1}, "prompt_deadline_seconds"},
			{"limit negative", play.NewGame{TimeoutLimit: ip(-1)}, "timeout_limit"},
			{"limit too high", play.NewGame{TimeoutLimit: ip(play.MaxTimeoutLimit + 1)}, "timeout_limit"},
			{"on_timeouts unknown", play.NewGame{OnTimeouts: "resign"}, "on_timeouts"},
			{"on_timeouts case", play.NewGame{OnTimeouts: "Bot"}, "on_timeouts"},
			{"bounds", play.NewGame{TurnDeadlineSeconds: play.MinDeadline, PromptDeadlineSeconds: play.MaxDeadline,
				TimeoutLimit: ip(play.MaxTimeoutLimit), OnTimeouts: play.OnTimeoutsForfeit}, ""},
			{"never", play.NewGame{TimeoutLimit: ip(0)}, ""},
		}
		for _, r := range rows {
			before := e.games(t, ana.ID)
			n := r.n
			n.Players, n.Mode, n.Deck = 2, "fast", deck
			res, err := e.svc.Create(ctx, ana.ID, n, nil)
			after := e.games(t, ana.ID)
			if r.field == "" {
				if err != nil || len(after) != len(before)+1 {
					t.Fatalf("%s: %v", r.name, err)
				}
				set := res.Game.SettingsOf()
				if r.n.TurnDeadlineSeconds != 0 && set.TurnDeadlineSeconds != r.n.TurnDeadlineSeconds ||
					r.n.TimeoutLimit != nil && set.TimeoutLimit != *r.n.TimeoutLimit {
					t.Fatalf("%s: stored %+v", r.name, set)
				}
				continue
			}
			var re *play.Error
			if !errors.As(err, &re) || re.Kind != play.Invalid || !strings.HasPrefix(re.Detail, r.field+":") {
				t.Fatalf("%s: %v, want an invalid refusal naming %s", r.name, err, r.field)
			}
			if len(after) != len(before) {
				t.Fatalf("%s: a refused game was stored", r.name)
			}
		}
	})
}

package notifier

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// storeTimeouter applies timeouts through the play path, counting the
// calls.
type storeTimeouter struct {
	e     *outboxEnv
	calls atomic.Int32
}

func (s *storeTimeouter) Timeout(ctx context.Context, id int64) (bool, error) {
	s.calls.Add(1)
	return play.New(s.e.st, s.e.clock.Now, nil).Timeout(ctx, id)
}

// mailKinds returns the notification kind of each message in msgs (from
// its Message-ID) with its recipient, e.g. "deadline_reminder>ben@example.com".
func mailKinds(t *testing.T, msgs []received) []string {
	var out []string
	for _, m := range msgs {
		id := parseMail(t, m.Data).Header.Get("Message-Id")
		for _, k := range Kinds {
			if strings.Contains(id, "."+string(k)+".") {
				out = append(out, string(k)+">"+m.Rcpts[0])
			}
		}
	}
	return out
}

// TestClockReminderAndTimeout moves the injected clock: the reminder job
// scheduled at 80% of the turn reminds the awaited player only and writes
// the timeout job at the deadline, which submits the engine's timeout,
// which every player is told about.
func TestClockReminderAndTimeout(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		o, to, g, before := e.startTimedGame(t)
		game, err := e.st.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		start := e.clock.Now()
		if !game.DeadlineAt.Equal(start.Add(72 * time.Hour)) {
			t.Fatalf("deadline %v, want 72 h after %v", game.DeadlineAt, start)
		}
		clockJobs := func(when string, want ...time.Duration) {
			t.Helper()
			if at := scheduledClockJobs(t, o, start); !slices.Equal(at, want) {
				t.Fatalf("%s: clock jobs at %v after the start, want %v", when, at, want)
			}
		}
		clockJobs("after the start", time.Duration(0.8*float64(72*time.Hour)).Round(time.Minute)) // the reminder only
		var awaited string
		for _, s := range game.Seats {
			if s.Awaited {
				awaited = s.Username + "@example.com"
			}
		}
		// Nothing is due yet.
		e.clock.Add(57 * time.Hour)
		if n, err := o.RunDue(ctx); err != nil || n != 0 {
			t.Fatalf("due at 57 h: %d %v", n, err)
		}
		// Due now; River's scheduler, on the same clock, may have made the
		// job available before RunDue does: what counts is the mail.
		e.clock.Add(time.Hour)
		if n, err := o.RunDue(ctx); err != nil || n > 1 {
			t.Fatalf("due at 58 h: %d %v", n, err)
		}
		msgs := e.waitMail(t, before+1)
		if got := mailKinds(t, msgs[before:]); !slices.Equal(got, []string{"deadline_reminder>" + awaited}) {
			t.Fatalf("after the reminder: %v", got)
		}
		clockJobs("after the reminder", 72*time.Hour) // the timeout, written by the reminder
		before = len(msgs)
		e.clock.Add(14 * time.Hour)
		if n, err := o.RunDue(ctx); err != nil || n > 1 {
			t.Fatalf("due at 72 h: %d %v", n, err)
		}
		msgs = e.waitMail(t, before+3)
		got := mailKinds(t, msgs[before:])
		timeouts, turns := 0, 0
		for _, k := range got {
			if strings.HasPrefix(k, "timeout_applied>") {
				timeouts++
			}
			if strings.HasPrefix(k, "your_turn>") {
				turns++
			}
		}
		// One email each: the player whose turn starts now is told of the
		// timeout in their turn's email.
		if timeouts != 2 || turns != 1 || len(got) != 3 || to.calls.Load() != 1 {
			t.Fatalf("after the deadline (%d timeout calls): %v", to.calls.Load(), got)
		}
		game, _ = e.st.Game(ctx, g.ID)
		if game.Version != 3 || !game.DeadlineAt.After(e.clock.Now()) {
			t.Fatalf("after the timeout: version %d, deadline %v", game.Version, game.DeadlineAt)
		}
		for _, m := range msgs[before:] {
			p := parseMail(t, m.Data)
			if strings.Contains(p.Header.Get("Message-Id"), ".timeout_applied.") && !strings.Contains(p.Text, "Time ran out") &&
				!strings.Contains(strings.ToLower(p.Text), "time") {
				t.Fatalf("timeout mail:\n%s", p.Text)
			}
			if strings.Contains(p.Header.Get("Message-Id"), ".your_turn.") && !strings.Contains(p.Text, "ran out of time") {
				t.Fatalf("the turn's email does not say the other ran out of time:\n%s", p.Text)
			}
		}
	})
}

// scheduledClockJobs returns when the scheduled reminder and timeout jobs
// run, after start, to the minute and in order.
func scheduledClockJobs(t *testing.T, o *Outbox, start time.Time) []time.Duration {
	t.Helper()
	res, err := o.Client().JobList(context.Background(),
		river.NewJobListParams().States(rivertype.JobStateScheduled).Kinds(reminderKind, timeoutKind))
	if err != nil {
		t.Fatal(err)
	}
	var at []time.Duration
	for _, j := range res.Jobs {
		at = append(at, j.ScheduledAt.Sub(start).Round(time.Minute))
	}
	slices.Sort(at)
	return at
}

// TestClockStaleDeadlineDoesNothing: a player acted before the deadline, so
// the jobs of the old deadline neither remind nor time out.
func TestClockStaleDeadlineDoesNothing(t *testing.T) {
	eachOutboxDB(t, testClockStaleDeadlineDoesNothing)
}

func testClockStaleDeadlineDoesNothing(t *testing.T, d models.Dialect) {
	ctx := context.Background()
	e := newOutboxEnv(t, d)
	o, to, g, before := e.startTimedGame(t)
	e.clock.Add(time.Hour)
	e.step(t, g.ID, rand.New(rand.NewPCG(1, 1))) // a new deadline 72 h from now
	time.Sleep(200 * time.Millisecond)
	before = len(e.sink.messages())
	e.clock.Add(72*time.Hour - time.Minute) // past the first deadline, before the second
	if _, err := o.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	for _, k := range mailKinds(t, e.sink.messages()[before:]) {
		if !strings.HasPrefix(k, "deadline_reminder>") {
			t.Fatalf("stale deadline sent %s", k)
		}
	}
	if n := to.calls.Load(); n != 0 {
		t.Fatalf("stale timeout job called the timeouter %d times", n)
	}
}

// TestClockFollowsMovedDeadline: a change that moves the deadline writes
// no job while the reminder job the game relies on runs first; that job,
// finding the deadline replaced, writes the new deadline's reminder, which
// reminds and writes the timeout, which applies it.
func TestClockFollowsMovedDeadline(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		o, _, g, _ := e.startTimedGame(t)
		start := e.clock.Now()
		jobs := func(when string, want ...time.Duration) {
			t.Helper()
			waitFor(t, when, func() bool { return slices.Equal(scheduledClockJobs(t, o, start), want) })
		}
		pct := func(from, span time.Duration) time.Duration {
			return (from + time.Duration(0.8*float64(span))).Round(time.Minute)
		}
		first, second := pct(0, 72*time.Hour), pct(time.Hour, 72*time.Hour)
		jobs("the start's reminder", first)

		e.clock.Add(time.Hour)
		e.step(t, g.ID, rand.New(rand.NewPCG(1, 1))) // a new deadline 72 h from now
		game, err := e.st.Game(ctx, g.ID)
		if err != nil || !game.DeadlineAt.Equal(start.Add(73*time.Hour)) || game.ClockAt == nil ||
			game.ClockAt.Sub(start).Round(time.Minute) != first {
			t.Fatalf("after the move: deadline %v, clock at %v (%v)", game.DeadlineAt, game.ClockAt, err)
		}
		jobs("no job for the moved deadline", first)

		mails := len(e.sink.messages())
		e.clock.Add(first - time.Hour)
		if _, err := o.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		jobs("the old reminder writes the new one", second)
		if got := mailKinds(t, e.sink.messages()[mails:]); len(got) != 0 {
			t.Fatalf("the old deadline's reminder sent %v", got)
		}

		e.clock.Add(second - first)
		if _, err := o.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		msgs := e.waitMail(t, mails+1)
		if got := mailKinds(t, msgs[mails:]); len(got) != 1 || !strings.HasPrefix(got[0], "deadline_reminder>") {
			t.Fatalf("the new deadline's reminder sent %v", got)
		}
		jobs("the new reminder writes the timeout", 73*time.Hour)

		e.clock.Add(73*time.Hour - second)
		if _, err := o.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the timeout", func() bool {
			now, err := e.st.Game(ctx, g.ID)
			return err == nil && now.Version > game.Version && now.DeadlineAt.After(start.Add(73*time.Hour))
		})
	})
}

// storeSeats plays bot seats and forfeits through the play path,
// counting them.
type storeSeats struct {
	e               *outboxEnv
	mu              sync.Mutex
	moves, forfeits int
}

func (s *storeSeats) PlayBot(ctx context.Context, id int64, seat int, version int64) error {
	before, err := s.e.st.Game(ctx, id)
	if err != nil {
		return err
	}
	if err := play.New(s.e.st, s.e.clock.Now, nil).PlayBot(ctx, id, seat, version); err != nil {
		return err
	}
	if after, err := s.e.st.Game(ctx, id); err == nil && after.Version > before.Version && before.Version == version {
		s.mu.Lock()
		s.moves++
		s.mu.Unlock()
	}
	return nil
}

// counts returns the bot moves and forfeits so far.
func (s *storeSeats) counts() (moves, forfeits int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.moves, s.forfeits
}

func (s *storeSeats) Forfeit(ctx context.Context, id int64, seat int) error {
	before, err := s.e.st.Game(ctx, id)
	if err != nil {
		return err
	}
	if err := play.New(s.e.st, s.e.clock.Now, nil).Forfeit(ctx, id, seat); err != nil {
		return err
	}
	if after, err := s.e.st.Game(ctx, id); err == nil && after.Version > before.Version {
		s.mu.Lock()
		s.forfeits++
		s.mu.Unlock()
	}
	return nil
}

// TestClockTakeover: with a limit of one timeout, each seat that times out
// is taken over by the greedy bot (everyone is told), and once every seat
// is a bot the service plays the game to its end by itself; with
// "forfeit" the seat resigns instead.
func TestClockTakeover(t *testing.T) {
	for _, mode := range []string{"bot", "forfeit"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
				ctx := context.Background()
				e := newOutboxEnv(t, d)
				to := &storeTimeouter{e: e}
				seats := &storeSeats{e: e}
				e.cfg.Timeouts, e.cfg.Bots = to, seats
				o := e.outbox(t, true)
				g := e.createGame(t)
				if err := e.st.ExecForTest(ctx, `UPDATE games SET settings = ? WHERE id = ?`,
					`{"turn_deadline_seconds":259200,"prompt_deadline_seconds":86400,"timeout_limit":1,"on_timeouts":"`+mode+`"}`, g.ID); err != nil {
					t.Fatal(err)
				}
				e.start(t, g.ID)
				for i := 0; i < 12; i++ {
					game, _ := e.st.Game(ctx, g.ID)
					bots := botSeatsOf(game)
					if game.Status != models.StatusActive || len(bots) == 3 {
						break
					}
					old := *game.DeadlineAt
					e.clock.Add(73 * time.Hour)
					// A forfeit or bot move may set a new deadline meanwhile:
					// wait for the deadline to change, making due jobs run.
					for try := 0; ; try++ {
						if _, err := o.RunDue(ctx); err != nil {
							t.Fatal(err)
						}
						game, _ := e.st.Game(ctx, g.ID)
						if game.Status != models.StatusActive || game.DeadlineAt == nil || !game.DeadlineAt.Equal(old) {
							break
						}
						if try == 3000 {
							t.Fatal("no timeout within 60 s")
						}
						time.Sleep(20 * time.Millisecond)
					}
				}
				if mode == "forfeit" {
					waitFor(t, "the forfeits", func() bool {
						game, _ := e.st.Game(ctx, g.ID)
						return game.Status == models.StatusOver
					})
					// Two seats resigned by the clock's forfeits, none went
					// to a bot. The state says so; the wrapper's count is only
					// a lower bound (it misses a forfeit whose call failed
					// after the change committed, then ran again as a no-op,
					// or whose read after it failed: seen once under load).
					game, _ := e.st.Game(ctx, g.ID)
					data, err := game.Snapshot()
					if err != nil {
						t.Fatal(err)
					}
					st, err := engine.Unmarshal(data)
					if err != nil {
						t.Fatal(err)
					}
					resigned := 0
					for _, p := range st.Players {
						if p.Resigned {
							resigned++
						}
					}
					if _, forfeits := seats.counts(); resigned != 2 || forfeits == 0 || len(botSeatsOf(game)) != 0 {
						t.Fatalf("%d seats resigned, %d forfeits counted, bot seats %v", resigned, forfeits, botSeatsOf(game))
					}
					return
				}
				waitFor(t, "the bots to finish the game", func() bool {
					game, _ := e.st.Game(ctx, g.ID)
					return game.Status == models.StatusOver
				})
				game, _ := e.st.Game(ctx, g.ID)
				bots := botSeatsOf(game)
				if moves, _ := seats.counts(); len(bots) != 3 || moves == 0 {
					t.Fatalf("bot seats %v, %d bot moves", bots, moves)
				}
				taken := 0
				for _, m := range e.sink.messages() {
					p := parseMail(t, m.Data)
					if strings.Contains(p.Header.Get("Message-Id"), ".timeout_applied.") && strings.Contains(strings.ToLower(p.Text), "bot") {
						taken++
					}
				}
				if taken < 3 {
					t.Fatalf("%d timeout mails mention the takeover, want at least one per seat taken over", taken)
				}
			})
		})
	}
}

// startTimedGame starts a game on an outbox that works its jobs and has the
// store apply timeouts (storeTimeouter), waits for the start's 5 emails (2
// invitations, 3 game started), and returns the outbox, the timeouter, the
// game and that count of emails.
func (e *outboxEnv) startTimedGame(t *testing.T) (*Outbox, *storeTimeouter, *models.Game, int) {
	t.Helper()
	to := &storeTimeouter{e: e}
	e.cfg.Timeouts = to
	o := e.outbox(t, true)
	g := e.createGame(t)
	e.start(t, g.ID)
	return o, to, g, len(e.waitMail(t, 5))
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestClockVacation: the awaited player is away for 10 days of a 3-day
// turn; the other players are told, no reminder goes out, and at the
// deadline the clock moves by the time away instead of timing out.
func TestClockVacation(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) { testClockVacation(t, d, false) })
}

// TestClockVacationQuiet: as TestClockVacation, but the deadline moved by
// the time away would fall in the away player's quiet hours: it moves on
// to their end, and the game says whose quiet hours moved it.
func TestClockVacationQuiet(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) { testClockVacation(t, d, true) })
}

func testClockVacation(t *testing.T, d models.Dialect, quiet bool) {
	ctx := context.Background()
	e := newOutboxEnv(t, d)
	o, to, g, before := e.startTimedGame(t)
	game, _ := e.st.Game(ctx, g.ID)
	var away *models.Seat
	for i := range game.Seats {
		if game.Seats[i].Awaited {
			away = &game.Seats[i]
		}
	}
	start := e.clock.Now()
	want, wantSeats := start.Add(72*time.Hour).Add(72*time.Hour), []int(nil)
	if quiet {
		// Quiet from an hour before the start's time of day to two after.
		q := modelstest.QuietAround(start)
		if err := e.st.SetQuietHours(ctx, *away.UserID, &q); err != nil {
			t.Fatal(err)
		}
		end, _ := q.Within(want)
		want, wantSeats = end, []int{away.SeatNo}
	}
	v := models.Vacation{UserID: *away.UserID, StartsAt: start, EndsAt: start.Add(10 * 24 * time.Hour)}
	err := e.st.Begin(ctx, func(tx models.OutboxTx) error {
		if err := tx.Store.AddVacation(ctx, &v); err != nil {
			return err
		}
		return o.VacationStarted(ctx, tx, v)
	})
	if err != nil {
		t.Fatal(err)
	}
	msgs := e.waitMail(t, before+2)
	for _, k := range mailKinds(t, msgs[before:]) {
		if !strings.HasPrefix(k, "vacation>") || strings.HasSuffix(k, away.Username+"@example.com") {
			t.Fatalf("vacation notices: %v", mailKinds(t, msgs[before:]))
		}
	}
	before = len(msgs)
	e.clock.Add(73 * time.Hour)
	if n, err := o.RunDue(ctx); err != nil || n > 2 { // River's scheduler may have been first
		t.Fatalf("due: %d %v", n, err)
	}
	waitFor(t, "the deadline to move", func() bool {
		// The reminder job schedules the timeout job at the deadline, now
		// past: run it at once rather than at River's next scheduling.
		if _, err := o.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		game, _ = e.st.Game(ctx, g.ID)
		return !game.DeadlineAt.Equal(start.Add(72 * time.Hour))
	})
	if to.calls.Load() != 0 {
		t.Fatal("timed out a player on vacation")
	}
	if !game.DeadlineAt.Equal(want) || !slices.Equal(game.QuietSeats(), wantSeats) {
		t.Fatalf("deadline %v moved by the quiet hours of seats %v, want %v (moved by the 72 h away) by %v",
			game.DeadlineAt.Sub(start), game.QuietSeats(), want.Sub(start), wantSeats)
	}
	if got := mailKinds(t, e.sink.messages()[before:]); len(got) != 0 {
		t.Fatalf("mails while away: %v", got)
	}
}

// botSeatsOf returns the seats of g that the service plays.
func botSeatsOf(g *models.Game) []int {
	var out []int
	for _, s := range g.Seats {
		if s.Bot != "" {
			out = append(out, s.SeatNo)
		}
	}
	return out
}

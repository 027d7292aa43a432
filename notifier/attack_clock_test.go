package notifier

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// acMailCount counts msgs by kind prefix ("timeout_applied>" …).
func acMailCount(t *testing.T, msgs []received) map[string]int {
	out := map[string]int{}
	for _, k := range mailKinds(t, msgs) {
		kind, _, _ := strings.Cut(k, ">")
		out[kind]++
	}
	return out
}

// acNoDuplicates fails when two messages carry the same Message-ID.
func acNoDuplicates(t *testing.T, msgs []received) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range msgs {
		id := parseMail(t, m.Data).Header.Get("Message-Id") + ">" + m.Rcpts[0]
		if seen[id] {
			t.Fatalf("sent twice: %s", id)
		}
		seen[id] = true
	}
}

// acJobs is the number of River jobs of kinds, in any state.
func acJobs(t *testing.T, o *Outbox, kinds ...string) int {
	t.Helper()
	p := river.NewJobListParams().First(10000).States(rivertype.JobStateAvailable, rivertype.JobStateCancelled,
		rivertype.JobStateCompleted, rivertype.JobStateDiscarded, rivertype.JobStateRetryable, rivertype.JobStateRunning,
		rivertype.JobStateScheduled, rivertype.JobStatePending)
	if len(kinds) > 0 {
		p = p.Kinds(kinds...)
	}
	res, err := o.Client().JobList(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Jobs)
}

// TestAttackClockTimeoutJobEarlyTwiceLate: the timeout job of the game's
// deadline, run by hand as a flaky queue would: before its time it snoozes
// and applies nothing; run twice at once past it (with River's own run of
// it besides), the timeout applies once and its emails go out once; run
// again late, and for a deadline the game never had, it does nothing.
func TestAttackClockTimeoutJobEarlyTwiceLate(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		o, to, g, before := e.startTimedGame(t)
		game, err := e.st.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		deadline := game.DeadlineAt.UTC().Truncate(time.Microsecond)
		k := gameKey(g.ID).n("d", deadline.UnixMicro()).w("timeout")
		job := &river.Job[TimeoutArgs]{JobRow: &rivertype.JobRow{}, Args: TimeoutArgs{Key: string(k), GameID: g.ID,
			Deadline: deadline, From: e.clock.Now()}}

		e.clock.Add(time.Hour)
		var snooze *river.JobSnoozeError
		if err := o.workTimeout(ctx, job); !errors.As(err, &snooze) || to.calls.Load() != 0 {
			t.Fatalf("an early timeout job: %v, %d calls", err, to.calls.Load())
		}

		e.clock.Add(72 * time.Hour)
		var wg sync.WaitGroup
		errs := make([]error, 3)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i == 2 {
					_, errs[i] = o.RunDue(ctx) // the reminder, then the queue's own timeout job
					return
				}
				errs[i] = o.workTimeout(ctx, job)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		waitFor(t, "the timeout", func() bool {
			now, _ := e.st.Game(ctx, g.ID)
			return now.Version > game.Version
		})
		after, _ := e.st.Game(ctx, g.ID)
		if after.Version != game.Version+1 {
			t.Fatalf("version %d -> %d: the timeout applied more than once", game.Version, after.Version)
		}
		// The queue's own timeout job, if the reminder wrote it, runs too.
		for range 10 {
			o.RunDue(ctx)
			time.Sleep(30 * time.Millisecond)
		}
		msgs := e.waitMail(t, before+3)
		acNoDuplicates(t, msgs)
		got := acMailCount(t, msgs[before:])
		if got["timeout_applied"] != 2 || got["your_turn"] != 1 {
			t.Fatalf("after the timeout: %v", got)
		}

		// Late, twice: the deadline was replaced.
		calls := to.calls.Load()
		for range 2 {
			if err := o.workTimeout(ctx, job); err != nil {
				t.Fatal(err)
			}
		}
		bogus := *job
		bogus.Args.Deadline = after.DeadlineAt.Add(-time.Second) // a deadline the game never had
		if err := o.workTimeout(ctx, &bogus); err != nil {
			t.Fatal(err)
		}
		if now, _ := e.st.Game(ctx, g.ID); now.Version != after.Version || to.calls.Load() != calls {
			t.Fatalf("a stale timeout job: version %d -> %d, %d more calls", after.Version, now.Version, to.calls.Load()-calls)
		}
	})
}

// acFailingOutbox writes a change's jobs, then fails the change.
type acFailingOutbox struct{ o *Outbox }

var errACOutbox = errors.New("the transaction fails after the jobs")

func (f acFailingOutbox) GameChanged(ctx context.Context, tx models.OutboxTx, c models.GameChange) error {
	if err := f.o.GameChanged(ctx, tx, c); err != nil {
		return err
	}
	return errACOutbox
}

// TestAttackClockTimeoutRollback: a timeout whose transaction fails after
// its jobs were written leaves the game as it was and no job behind (no
// email for a change that did not happen); the retry applies it once, with
// its emails once.
func TestAttackClockTimeoutRollback(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		o := e.outbox(t, true)
		g := e.createGame(t)
		e.start(t, g.ID)
		before := len(e.waitMail(t, 5))
		game, _ := e.st.Game(ctx, g.ID)
		jobs := acJobs(t, o)
		svc := play.New(e.st, e.clock.Now, nil)
		e.clock.Add(73 * time.Hour)
		e.st.SetOutbox(acFailingOutbox{o})
		if ok, err := svc.Timeout(ctx, g.ID); ok || !errors.Is(err, errACOutbox) {
			t.Fatalf("the failing timeout: %v %v", ok, err)
		}
		if now, _ := e.st.Game(ctx, g.ID); now.Version != game.Version || !now.DeadlineAt.Equal(*game.DeadlineAt) ||
			now.Seats[0].Timeouts+now.Seats[1].Timeouts+now.Seats[2].Timeouts != 0 {
			t.Fatalf("the rolled back timeout changed the game: version %d, deadline %v", now.Version, now.DeadlineAt)
		}
		if n := acJobs(t, o); n != jobs {
			t.Fatalf("%d jobs after a rolled back change, %d before", n, jobs)
		}
		e.st.SetOutbox(o)
		if ok, err := svc.Timeout(ctx, g.ID); !ok || err != nil {
			t.Fatalf("the retry: %v %v", ok, err)
		}
		msgs := e.waitMail(t, before+3)
		acNoDuplicates(t, msgs)
		if got := acMailCount(t, msgs[before:]); got["timeout_applied"] != 2 || got["your_turn"] != 1 || len(msgs) != before+3 {
			t.Fatalf("after the retry: %v", got)
		}
	})
}

// TestAttackClockForfeitEmails: with "forfeit" after one timeout in a game
// of three, the queue runs the clock to the end: two seats forfeit (one
// forfeit job each, the last seat wins), and every player gets one game
// over email, no email twice.
func TestAttackClockForfeitEmails(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		e.cfg.Timeouts, e.cfg.Bots = &storeTimeouter{e: e}, &storeSeats{e: e}
		o := e.outbox(t, true)
		g := e.createGame(t)
		if err := e.st.ExecForTest(ctx, `UPDATE games SET settings = ? WHERE id = ?`,
			`{"turn_deadline_seconds":3600,"prompt_deadline_seconds":3600,"timeout_limit":1,"on_timeouts":"forfeit"}`, g.ID); err != nil {
			t.Fatal(err)
		}
		e.start(t, g.ID)
		for i := 0; i < 10; i++ {
			game, _ := e.st.Game(ctx, g.ID)
			if game.Status != models.StatusActive {
				break
			}
			old := *game.DeadlineAt
			e.clock.Add(old.Sub(e.clock.Now()) + time.Minute)
			waitFor(t, "the deadline to pass", func() bool {
				if _, err := o.RunDue(ctx); err != nil {
					t.Fatal(err)
				}
				game, _ := e.st.Game(ctx, g.ID)
				return game.Status != models.StatusActive || game.DeadlineAt == nil || !game.DeadlineAt.Equal(old)
			})
		}
		waitFor(t, "the end", func() bool {
			game, _ := e.st.Game(ctx, g.ID)
			return game.Status == models.StatusOver
		})
		game, _ := e.st.Game(ctx, g.ID)
		data, _ := game.Snapshot()
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
		if resigned != 2 || len(st.Winners) != 1 || st.Players[st.Winners[0]].Resigned {
			t.Fatalf("%d resigned, winners %v", resigned, st.Winners)
		}
		if n := acJobs(t, o, forfeitKind); n != 2 {
			t.Fatalf("%d forfeit jobs, want 2", n)
		}
		waitFor(t, "the game over emails", func() bool { return acMailCount(t, e.sink.messages())["game_over"] >= 3 })
		time.Sleep(300 * time.Millisecond)
		msgs := e.sink.messages()
		acNoDuplicates(t, msgs)
		for _, u := range e.users {
			n := 0
			for _, k := range mailKinds(t, msgs) {
				if k == "game_over>"+u.Email {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%s got %d game over emails: %v", u.Username, n, mailKinds(t, msgs))
			}
		}
	})
}

// acVacationGame starts the 3-seat game on an outbox whose workers do
// not run (the test runs the clock's jobs by hand), with the timeouts
// applied through the play path; it returns the outbox, the timeouter,
// the game as started, the awaited seat's user and the deadline's timeout
// job.
func (e *outboxEnv) acVacationGame(t *testing.T) (*Outbox, *storeTimeouter, *models.Game, int64, *river.Job[TimeoutArgs]) {
	t.Helper()
	to := &storeTimeouter{e: e}
	e.cfg.Timeouts = to
	o := e.outbox(t, false)
	g := e.createGame(t)
	start := e.clock.Now()
	e.start(t, g.ID)
	g, err := e.st.Game(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	var uid int64
	for _, s := range g.Seats {
		if s.Awaited {
			uid = *s.UserID
		}
	}
	deadline := g.DeadlineAt.UTC().Truncate(time.Microsecond)
	k := gameKey(g.ID).n("d", deadline.UnixMicro()).w("timeout")
	return o, to, g, uid, &river.Job[TimeoutArgs]{JobRow: &rivertype.JobRow{},
		Args: TimeoutArgs{Key: string(k), GameID: g.ID, Deadline: deadline, From: start}}
}

// TestAttackClockVacationBookedAfterDeadline: the deadline passed 30
// seconds ago and its timeout job has not run yet (a busy queue); the
// player books a vacation that starts at the earliest the accounts allow,
// a little in the past, before the deadline. Time away booked after the
// deadline passed does not pause a clock that has run out: the timeout
// applies, and the deadline is not moved.
func TestAttackClockVacationBookedAfterDeadline(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		o, to, g, uid, job := e.acVacationGame(t)
		e.clock.Add(job.Args.Deadline.Sub(e.clock.Now()) + 30*time.Second)
		acc := accounts.New(e.st, nil, accounts.Config{Secret: []byte("secret"), Vacations: o}, nil, e.clock.Now)
		from := e.clock.Now().Add(-59 * time.Second)
		v, err := acc.NewVacation(uid, &from, from.Add(5*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if err := acc.BookVacation(ctx, &v); err != nil {
			t.Fatal(err)
		}
		if !v.StartsAt.Before(job.Args.Deadline) {
			t.Fatalf("the vacation starts at %v, after the deadline %v: no attack", v.StartsAt, job.Args.Deadline)
		}
		if err := o.workTimeout(ctx, job); err != nil {
			t.Fatal(err)
		}
		after, _ := e.st.Game(ctx, g.ID)
		if to.calls.Load() != 1 || after.Version != g.Version+1 {
			t.Fatalf("a vacation booked after the deadline stopped the timeout: %d calls, version %d -> %d, deadline moved by %v",
				to.calls.Load(), g.Version, after.Version, after.DeadlineAt.Sub(job.Args.Deadline))
		}
	})
}

// TestAttackClockVacationEndsEarly: a vacation booked at the start of a
// turn for ten days ends after one, while the deadline's jobs are queued:
// at the deadline the clock moves by the day away only, and the new
// deadline's timeout applies.
func TestAttackClockVacationEndsEarly(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		o, to, g, uid, job := e.acVacationGame(t)
		acc := accounts.New(e.st, nil, accounts.Config{Secret: []byte("secret"), Vacations: o}, nil, e.clock.Now)
		e.clock.Add(time.Hour)
		v, err := acc.NewVacation(uid, nil, e.clock.Now().Add(10*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if err := acc.BookVacation(ctx, &v); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(24 * time.Hour)
		if err := acc.EndVacation(ctx, uid, v.ID); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(job.Args.Deadline.Sub(e.clock.Now()) + time.Second)
		if err := o.workTimeout(ctx, job); err != nil {
			t.Fatal(err)
		}
		moved, _ := e.st.Game(ctx, g.ID)
		want := job.Args.Deadline.Add(24 * time.Hour)
		if to.calls.Load() != 0 || moved.Version != g.Version || moved.DeadlineAt.Sub(want).Abs() > time.Second {
			t.Fatalf("%d timeouts; deadline moved by %v, want the day away", to.calls.Load(), moved.DeadlineAt.Sub(job.Args.Deadline))
		}
		// The moved deadline's timeout: nothing away in its stretch.
		e.clock.Add(moved.DeadlineAt.Sub(e.clock.Now()) + time.Second)
		next := &river.Job[TimeoutArgs]{JobRow: &rivertype.JobRow{}, Args: TimeoutArgs{GameID: g.ID,
			Deadline: moved.DeadlineAt.UTC().Truncate(time.Microsecond), From: job.Args.Deadline}}
		if err := o.workTimeout(ctx, next); err != nil {
			t.Fatal(err)
		}
		if after, _ := e.st.Game(ctx, g.ID); to.calls.Load() != 1 || after.Version != g.Version+1 {
			t.Fatalf("the moved deadline: %d calls, version %d -> %d", to.calls.Load(), g.Version, after.Version)
		}
	})
}

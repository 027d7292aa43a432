package notifier

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river"
)

// ReminderArgs is the first clock job of one deadline of a game, scheduled
// at ReminderAt (80%) of the time between From and the deadline: it reminds
// the awaited players and writes the deadline's timeout job. A reminder
// whose deadline was replaced meanwhile does nothing, so a deadline that
// does not last (most do not: a turn ends, a prompt is answered) costs one
// job, not two.
type ReminderArgs struct {
	Key      string    `json:"key" river:"unique"`
	GameID   int64     `json:"game_id"`
	Deadline time.Time `json:"deadline"`
	From     time.Time `json:"from"` // as TimeoutArgs.From
}

// Kind is the River job kind.
func (ReminderArgs) Kind() string { return reminderKind }

// TimeoutArgs is the timeout job of one deadline of a game, scheduled at
// the deadline. It submits the engine's timeout action through the
// Timeouter (the same path as a player's actions).
type TimeoutArgs struct {
	Key      string    `json:"key" river:"unique"`
	GameID   int64     `json:"game_id"`
	Deadline time.Time `json:"deadline"`
	// From is when this stretch of the clock started running: the change
	// that set the deadline, or the old deadline it was extended from
	// (time spent on vacation in [From, Deadline] moves the deadline).
	From time.Time `json:"from"`
}

// Kind is the River job kind.
func (TimeoutArgs) Kind() string { return timeoutKind }

// scheduleClock writes the first clock job (the reminder) of a new deadline.
func (o *Outbox) scheduleClock(ctx context.Context, tx models.OutboxTx, gameID int64, deadline time.Time) error {
	return o.scheduleClockFrom(ctx, tx, gameID, deadline, o.now())
}

// scheduleClockFrom writes the reminder job of a deadline whose clock runs
// from from; the reminder writes the timeout job.
func (o *Outbox) scheduleClockFrom(ctx context.Context, tx models.OutboxTx, gameID int64, deadline, from time.Time) error {
	deadline = deadline.UTC().Truncate(time.Microsecond) // as the database keeps it
	k := "g" + strconv.FormatInt(gameID, 10) + ".d" + strconv.FormatInt(deadline.UnixMicro(), 10)
	remind := from.Add(time.Duration(float64(deadline.Sub(from)) * o.cfg.ReminderAt))
	return o.insert(ctx, tx.Tx, ReminderArgs{Key: k + ".reminder", GameID: gameID, Deadline: deadline, From: from}, remind)
}

type reminderWorker struct {
	river.WorkerDefaults[ReminderArgs]
	o *Outbox
}

// Work reminds the seats the game still waits for and writes the timeout
// job of the deadline, if the deadline is still the one the job was
// scheduled for.
func (w *reminderWorker) Work(ctx context.Context, job *river.Job[ReminderArgs]) error {
	a := job.Args
	o := w.o
	return o.store.Begin(ctx, func(tx models.OutboxTx) error {
		g, st, err := clockGame(ctx, tx.Store, a.GameID, a.Deadline)
		if err != nil || g == nil {
			return err
		}
		// The timeout job and the reminder's jobs go in with one statement.
		return o.batched(ctx, tx.Tx, func(ctx context.Context) error { return o.remind(ctx, tx, a, g, st) })
	})
}

// remind writes the timeout job of the reminder's deadline, and the
// reminders of the seats g waits for unless one of them is away now.
func (o *Outbox) remind(ctx context.Context, tx models.OutboxTx, a ReminderArgs, g *models.Game, st *engine.State) error {
	k := strings.TrimSuffix(a.Key, ".reminder")
	if err := o.insert(ctx, tx.Tx, TimeoutArgs{Key: k + ".timeout", GameID: a.GameID, Deadline: a.Deadline, From: a.From}, a.Deadline); err != nil {
		return err
	}
	if away, err := o.awayDuring(ctx, tx.Store, g, st, o.now(), o.now().Add(time.Nanosecond)); err != nil || away > 0 {
		return err // an awaited player is away now: no reminder
	}
	var notes []note
	for _, seat := range engine.Awaiting(st) {
		if seat >= len(g.Seats) || g.Seats[seat].UserID == nil {
			continue
		}
		uid := *g.Seats[seat].UserID
		ps := engine.PromptsFor(st, seat)
		d := &DeadlineReminder{Prompt: len(ps) > 0, Prompts: promptsOut(ps, a.Deadline), Deadline: a.Deadline}
		notes = append(notes, note{userID: uid, kind: KindDeadlineReminder, data: d, common: &d.Common,
			key: k + "." + string(KindDeadlineReminder) + ".u" + strconv.FormatInt(uid, 10)})
	}
	return o.dispatch(ctx, tx, g, g.Version, nil, notes, StreamArgs{Key: k + ".stream"})
}

type timeoutWorker struct {
	river.WorkerDefaults[TimeoutArgs]
	o *Outbox
}

// Work applies the timeout once the injected clock has reached the
// deadline, if the deadline is still the one the job was scheduled for.
func (w *timeoutWorker) Work(ctx context.Context, job *river.Job[TimeoutArgs]) error {
	a := job.Args
	o := w.o
	if o.cfg.Timeouts == nil {
		return nil
	}
	g, st, err := clockGame(ctx, o.store, a.GameID, a.Deadline)
	if err != nil || g == nil {
		return err
	}
	if wait := a.Deadline.Sub(o.now()); wait > 0 {
		return river.JobSnooze(wait)
	}
	away, err := o.awayDuring(ctx, o.store, g, st, a.From, a.Deadline)
	if err != nil {
		return err
	}
	if away > 0 {
		// The clock paused while an awaited player was away: move the
		// deadline by that time, and watch the new stretch.
		return o.store.Begin(ctx, func(tx models.OutboxTx) error {
			next := a.Deadline.Add(away)
			ok, err := tx.Store.ExtendDeadline(ctx, g.ID, *g.DeadlineAt, next)
			if err != nil || !ok {
				return err
			}
			return o.scheduleClockFrom(ctx, tx, g.ID, next, a.Deadline)
		})
	}
	_, err = o.cfg.Timeouts.Timeout(ctx, a.GameID)
	return err
}

// clockGame returns the game of a clock job and its state, or a nil game
// when the job is stale: the game is gone or no longer active, or its
// deadline is no longer the one the job was scheduled for.
func clockGame(ctx context.Context, st *models.Store, id int64, deadline time.Time) (*models.Game, *engine.State, error) {
	g, err := st.Game(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if g.Status != models.StatusActive || !sameDeadline(g.DeadlineAt, deadline) || g.State == nil {
		return nil, nil, nil
	}
	state, err := engine.Unmarshal(g.State)
	if err != nil {
		return nil, nil, err
	}
	return g, state, nil
}

// sameDeadline reports whether a game's stored deadline is the one a clock
// job was scheduled for. Postgres keeps microseconds, SQLite whatever it
// was given, and the job the deadline cut to microseconds.
func sameDeadline(stored *time.Time, job time.Time) bool {
	return stored != nil && stored.Truncate(time.Microsecond).Equal(job.Truncate(time.Microsecond))
}

// awayDuring returns the longest time one of the players the game waits
// for spent on vacation within [from, to].
func (o *Outbox) awayDuring(ctx context.Context, st *models.Store, g *models.Game, s *engine.State, from, to time.Time) (time.Duration, error) {
	var longest time.Duration
	if from.IsZero() || !to.After(from) {
		return 0, nil
	}
	for _, seat := range engine.Awaiting(s) {
		if seat >= len(g.Seats) || g.Seats[seat].UserID == nil {
			continue
		}
		vs, err := st.Vacations(ctx, *g.Seats[seat].UserID, from)
		if err != nil {
			return 0, err
		}
		var d time.Duration
		for _, v := range vs {
			start, end := maxTime(v.StartsAt, from), minTime(v.EndsAt, to)
			if end.After(start) {
				d += end.Sub(start)
			}
		}
		longest = max(longest, d)
	}
	return longest, nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

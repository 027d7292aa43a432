package notifier

import (
	"context"
	"errors"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river"
)

// ReminderArgs is the first clock job of one deadline of a game, scheduled
// At ReminderAt (80%) of the time between From and the deadline: it reminds
// the awaited players and writes the deadline's timeout job.
//
// The game row names the reminder job it relies on (Game.ClockAt, when it
// runs). A change that moves the deadline writes no job while that job runs
// no later than the new deadline's reminder is due (most deadlines do not
// last: a turn ends, a prompt is answered); the job, finding the deadline
// replaced, then writes the reminder of the deadline the game has by then.
// A reminder whose deadline was replaced and that the game no longer relies
// on does nothing.
type ReminderArgs struct {
	Key      string    `json:"key" river:"unique"`
	GameID   int64     `json:"game_id"`
	Deadline time.Time `json:"deadline"`
	From     time.Time `json:"from"` // as TimeoutArgs.From
	At       time.Time `json:"at"`   // when it is scheduled
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

// clockGrace is how long past its time a reminder job the game relies on
// is still trusted to run (a busy queue); after that, a moved deadline
// writes its own reminder job.
const clockGrace = 10 * time.Minute

// scheduleClock starts the clock of g's new deadline, from now: it records
// the start on g and writes the deadline's reminder job, unless the job g
// relies on runs no later than that reminder is due (see ReminderArgs).
func (o *Outbox) scheduleClock(ctx context.Context, tx models.OutboxTx, g *models.Game) error {
	now := o.now()
	deadline := g.DeadlineAt.UTC().Truncate(time.Microsecond) // as the database keeps it
	at := o.reminderAt(now, deadline)
	g.ClockFrom = &now
	if g.ClockAt != nil && !g.ClockAt.After(at) && g.ClockAt.After(now.Add(-clockGrace)) {
		return nil
	}
	g.ClockAt = &at
	return o.insertReminder(ctx, tx, g.ID, deadline, now, at)
}

// reminderAt is when the reminder of a deadline whose clock runs from from
// is due.
func (o *Outbox) reminderAt(from, deadline time.Time) time.Time {
	return from.Add(time.Duration(float64(deadline.Sub(from)) * o.cfg.ReminderAt)).UTC().Truncate(time.Microsecond)
}

// insertReminder writes the reminder job of a deadline whose clock runs
// from from, at at; the reminder writes the timeout job.
func (o *Outbox) insertReminder(ctx context.Context, tx models.OutboxTx, gameID int64, deadline, from, at time.Time) error {
	deadline = deadline.UTC().Truncate(time.Microsecond)
	k := gameKey(gameID).n("d", deadline.UnixMicro()).w("reminder")
	return o.insert(ctx, tx.Tx, ReminderArgs{Key: string(k), GameID: gameID, Deadline: deadline, From: from, At: at}, at)
}

// workReminder works a reminder job, with the game row locked: if the deadline is still the one the job
// was scheduled for, reminds the seats the game waits for and writes the
// deadline's timeout job; if it was replaced and the game relies on this
// job, writes the reminder job of the deadline the game has now.
func (o *Outbox) workReminder(ctx context.Context, job *river.Job[ReminderArgs]) error {
	a := job.Args
	return o.store.Begin(ctx, func(tx models.OutboxTx) error {
		g, err := tx.Store.GameForUpdate(ctx, a.GameID)
		if errors.Is(err, models.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		relied := !a.At.IsZero() && sameStored(g.ClockAt, a.At)
		active := g.Status == models.StatusActive && g.DeadlineAt != nil && g.State != nil
		switch {
		case active && sameStored(g.DeadlineAt, a.Deadline):
			st, err := engine.Unmarshal(g.State)
			if err != nil {
				return err
			}
			if relied {
				if err := tx.Store.SetClockAt(ctx, g.ID, nil); err != nil {
					return err
				}
			}
			// The timeout job and the reminder's jobs go in with one
			// statement; the reminders are built from st (a copy of it).
			o.recent.put(g.ID, g.Version, st)
			return o.batched(ctx, tx.Tx, func(ctx context.Context) error { return o.remind(ctx, tx, a, g, st) })
		case active && relied:
			from := o.now()
			if g.ClockFrom != nil {
				from = *g.ClockFrom
			}
			at := o.reminderAt(from, *g.DeadlineAt)
			if err := tx.Store.SetClockAt(ctx, g.ID, &at); err != nil {
				return err
			}
			return o.insertReminder(ctx, tx, g.ID, *g.DeadlineAt, from, at)
		case relied:
			return tx.Store.SetClockAt(ctx, g.ID, nil)
		}
		return nil
	})
}

// remind writes the timeout job of the reminder's deadline, and the
// reminders of the seats g waits for unless one of them is away now.
func (o *Outbox) remind(ctx context.Context, tx models.OutboxTx, a ReminderArgs, g *models.Game, st *engine.State) error {
	k := gameKey(a.GameID).n("d", a.Deadline.UnixMicro()) // the reminder's, without its word
	if err := o.insert(ctx, tx.Tx, TimeoutArgs{Key: string(k.w("timeout")), GameID: a.GameID, Deadline: a.Deadline, From: a.From}, a.Deadline); err != nil {
		return err
	}
	if away, err := o.awayDuring(ctx, tx.Store, g, st, o.now(), o.now().Add(time.Nanosecond)); err != nil || away > 0 {
		return err // an awaited player is away now: no reminder
	}
	var notes []note
	for _, seat := range engine.Awaiting(st) {
		if seat >= len(g.Seats) || g.Seats[seat].UserID == nil || g.Seats[seat].Bot != "" {
			continue // no one to remind, or the service plays the seat
		}
		uid := *g.Seats[seat].UserID
		d := &DeadlineReminder{Prompt: len(engine.PromptsFor(st, seat)) > 0, Deadline: a.Deadline}
		notes = append(notes, note{userID: uid, seat: seat, kind: KindDeadlineReminder, data: d, common: &d.Common,
			key:  k.w(string(KindDeadlineReminder)).n("u", uid),
			fill: &Fill{GameID: g.ID, Version: g.Version, Seat: seat}})
	}
	return o.dispatch(ctx, tx, g, nil, notes, StreamArgs{Key: string(k.w("stream"))})
}

// workTimeout works a timeout job: it applies the timeout once the injected clock has reached the
// deadline, if the deadline is still the one the job was scheduled for.
func (o *Outbox) workTimeout(ctx context.Context, job *river.Job[TimeoutArgs]) error {
	a := job.Args
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
		// deadline by that time (and out of the quiet hours of the players
		// it awaits, as a change does), and watch the new stretch.
		return o.store.Begin(ctx, func(tx models.OutboxTx) error {
			old, next := *g.DeadlineAt, a.Deadline.Add(away)
			g.DeadlineAt, g.DeadlineQuiet = &next, ""
			if !g.SettingsOf().IgnoreQuietHours {
				err := g.MoveOutOfQuiet(engine.Awaiting(st), func(ids []int64) (map[int64]models.QuietHours, error) {
					return tx.Store.QuietHoursOf(ctx, ids...)
				})
				if err != nil {
					return err
				}
				next = *g.DeadlineAt
			}
			at := o.reminderAt(a.Deadline, next)
			ok, err := tx.Store.ExtendDeadline(ctx, g.ID, old, next, at, g.DeadlineQuiet)
			if err != nil || !ok {
				return err
			}
			return o.insertReminder(ctx, tx, g.ID, next, a.Deadline, at)
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
	if g.Status != models.StatusActive || !sameStored(g.DeadlineAt, deadline) || g.State == nil {
		return nil, nil, nil
	}
	state, err := engine.Unmarshal(g.State)
	if err != nil {
		return nil, nil, err
	}
	return g, state, nil
}

// sameStored reports whether a time the game row stores (its deadline, its
// clock) is the one a clock job carries. Postgres keeps microseconds,
// SQLite whatever it was given, and the job the time cut to microseconds.
func sameStored(stored *time.Time, job time.Time) bool {
	return stored != nil && stored.Truncate(time.Microsecond).Equal(job.Truncate(time.Microsecond))
}

// awayDuring returns the longest time one of the players the game waits
// for spent on vacation within [from, to], counting each vacation from
// when it was booked at the earliest.
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
			// Time away counts from when it was booked: a vacation booked
			// after the deadline passed, starting a little earlier (as
			// the accounts allow), does not undo a clock that ran out.
			start, end := maxTime(maxTime(v.StartsAt, v.CreatedAt), from), minTime(v.EndsAt, to)
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

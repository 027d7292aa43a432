package notifier

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river"
)

// Quiet hours (see accounts/quiet.go): an email or a push of the outbox
// whose recipient is in their quiet hours when its job runs waits until
// they end (the job snoozes), unless it is urgent. Urgent are:
//
//   - the answer to the recipient's own email reply: they are writing now;
//   - a notification that names a deadline of the recipient's (their
//     turn, a decision, a reminder, a digest that names one) that comes
//     before their quiet hours end plus QuietMargin: waiting would leave
//     them next to no time to act.
//
// Everything else waits: invitations, the start of a game that is not
// the recipient's turn, queued actions, timeouts, vacations, the end of a
// game, a digest with no deadline near. The digest's own job waits too
// (see workDigest), so that it gathers what happens until the end. The
// account's emails (address verification, a new password) are not the
// outbox's: the pages send them at once, to the person waiting for them
// (web/mail.go); the sign-in link of a game email travels with its email.
//
// A deadline that would fall in the quiet hours of the player it awaits
// is moved to their end as the play path sets it (models.OutOfQuiet,
// unless the game's settings say otherwise): such a deadline is never
// urgent, and the emails of the game say that it was moved (QuietMove).

// QuietMargin is the least time a notification that waits for its
// recipient's quiet hours to end leaves them to act: one whose deadline
// comes sooner after the end goes at once.
const QuietMargin = 2 * time.Hour

// quietEnd returns when user uid's quiet hours end, if they are in them
// now; the zero time if not.
func (o *Outbox) quietEnd(ctx context.Context, uid int64) (time.Time, error) {
	if uid == 0 {
		return time.Time{}, nil
	}
	hs, err := o.store.QuietHoursOf(ctx, uid)
	if err != nil {
		return time.Time{}, err
	}
	end, _ := hs[uid].Within(o.now())
	return end, nil
}

// waitQuiet returns the error that snoozes a job of user uid's until
// their quiet hours end, if they are in them now and the job is not
// urgent: its deadline (the zero time: none) comes QuietMargin or more
// after the end. nil: the job goes on now.
func (o *Outbox) waitQuiet(ctx context.Context, uid int64, deadline time.Time, what string) error {
	end, err := o.quietEnd(ctx, uid)
	if err != nil || end.IsZero() {
		return err
	}
	if !deadline.IsZero() && deadline.Before(end.Add(QuietMargin)) {
		return nil // urgent: it cannot wait
	}
	o.log.Info("waits for the end of quiet hours", "what", what, "user_id", uid, "until", end)
	// The clock has moved on since quietEnd read it, maybe past the end:
	// JobSnooze panics on a negative time.
	return river.JobSnooze(max(end.Sub(o.now()), 0))
}

// deadlineOf is the deadline of the recipient's that d names (the
// soonest, for a digest); the zero time for none.
func deadlineOf(d Data) time.Time {
	switch x := d.(type) {
	case YourTurn:
		return x.Deadline
	case PromptWaiting:
		return x.Deadline
	case GameStarted:
		return x.Deadline
	case DeadlineReminder:
		return x.Deadline
	case SeatReclaimed:
		return x.Deadline
	case ReplyAnswer:
		return x.Deadline
	case Digest:
		var soonest time.Time
		for _, g := range x.Games {
			if g.YourTurn && !g.Deadline.IsZero() && (soonest.IsZero() || g.Deadline.Before(soonest)) {
				soonest = g.Deadline
			}
		}
		return soonest
	}
	return time.Time{}
}

// QuietMove says that a game's deadline was moved out of the quiet hours
// of the players it awaits, to their end.
type QuietMove struct {
	Deadline time.Time // the deadline as moved
	Players  []string  // the other players whose quiet hours moved it
	You      bool      // the recipient's own quiet hours moved it
}

// QuietMoveOf is what the emails of g tell the player of seat (-1: none)
// of its deadline's move out of quiet hours; nil when it was not moved.
func QuietMoveOf(g *models.Game, seat int) *QuietMove {
	seats := g.QuietSeats()
	if len(seats) == 0 {
		return nil
	}
	m := &QuietMove{Deadline: *g.DeadlineAt, You: slices.Contains(seats, seat)}
	for _, s := range seats {
		if s != seat && s >= 0 && s < len(g.Seats) {
			m.Players = append(m.Players, g.Seats[s].Username)
		}
	}
	return m
}

// whose says whose quiet hours moved the deadline: "your", "ben's",
// "your and ben's".
func (m *QuietMove) whose() string {
	var ws []string
	if m.You {
		ws = append(ws, "your")
	}
	for _, p := range m.Players {
		ws = append(ws, p+"'s")
	}
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// Note says the move after the deadline: "moved out of your quiet
// hours", "moved out of ben's quiet hours".
func (m *QuietMove) Note() string { return "moved out of " + m.whose() + " quiet hours" }

// QuietNote is what a deadline line says of t when it is the deadline
// moved out of quiet hours (QuietMove.Note); "" for any other time.
func (c Common) QuietNote(t time.Time) string {
	if c.Quiet == nil || t.IsZero() || !t.Equal(c.Quiet.Deadline) {
		return ""
	}
	return c.Quiet.Note()
}

// QuietLine is the sentence of an email that shows no deadline of its
// recipient's about the game's deadline moved out of quiet hours: "The
// game's deadline, Fri 3 Apr 2026, 07:00 CEST, was moved out of ben's
// quiet hours, to their end."; "" when it was not moved.
func (c Common) QuietLine() string {
	if c.Quiet == nil {
		return ""
	}
	return "The game's deadline, " + c.When(c.Quiet.Deadline) + ", was " + c.Quiet.Note() + ", to their end."
}

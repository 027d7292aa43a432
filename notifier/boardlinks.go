package notifier

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/datamonsters/turns/models"
)

// withBoardLinks completes a decision email (one with a Board) as it is
// sent to the job's recipient: the recipient's time zone, each whole
// line's one-click link, and, when the recipient answers the game's
// decisions by email, the reply address of the decision. Other emails are
// left as they are. Nothing of it is stored: the links and the address
// are signed, and made per email.
func (o *Outbox) withBoardLinks(ctx context.Context, d Data, a EmailArgs) (Data, error) {
	switch v := d.(type) {
	case GameStarted:
		err := o.completeDecision(ctx, a, &v.Common, &v.Board, v.Deadline)
		return v, err
	case YourTurn:
		err := o.completeDecision(ctx, a, &v.Common, &v.Board, v.Deadline)
		return v, err
	case PromptWaiting:
		err := o.completeDecision(ctx, a, &v.Common, &v.Board, v.Deadline)
		return v, err
	case DeadlineReminder:
		err := o.completeDecision(ctx, a, &v.Common, &v.Board, v.Deadline)
		return v, err
	case ReplyAnswer:
		err := o.completeDecision(ctx, a, &v.Common, &v.Board, v.Deadline)
		return v, err
	}
	return d, nil
}

// completeDecision sets c's time zone and reply address and a copy of
// *b with its lines' links, for the job's recipient.
func (o *Outbox) completeDecision(ctx context.Context, a EmailArgs, c *Common, b **Board, deadline time.Time) error {
	set, err := o.store.MailSettingsOf(ctx, a.UserID, a.GameID)
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	c.Location = Zone(set.TimeZone)
	if *b == nil || len((*b).Lines) == 0 {
		return nil
	}
	nb := **b
	now := o.now()
	if o.cfg.Reply.Enabled() && set.RepliesOn() {
		c.ReplyTo = Reply{GameID: a.GameID, Seat: nb.Seat, UserID: a.UserID, Version: nb.Version,
			Expires: ReplyExpiry(deadline, now), Lines: nb.Digest}.Address(o.cfg.Reply.Secret, o.cfg.Reply.Domain)
	}
	if o.cfg.SignInSecret != nil {
		nb.Lines = make([]Line, len(nb.Lines))
		for i, l := range (*b).Lines {
			if l.Whole {
				l.URL = ActionURL(o.cfg.Email.BaseURL, o.cfg.SignInSecret, a.UserID, a.GameID, nb.Version, l.N, nb.Digest, deadline, now)
			}
			nb.Lines[i] = l
		}
	}
	*b = &nb
	return nil
}

var zones sync.Map // name -> *time.Location

// Zone returns the time zone of an IANA name, UTC for "" and for a name
// that is not one; zones are loaded once per name.
func Zone(name string) *time.Location {
	if name == "" || name == "UTC" {
		return time.UTC
	}
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location)
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		l = time.UTC
	}
	zones.Store(name, l)
	return l
}

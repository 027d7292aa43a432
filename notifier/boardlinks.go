package notifier

import (
	"context"
	"errors"
	"reflect"
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

// Zone returns the time zone of an IANA name, UTC for "" and for a name
// that is not one; zones are loaded once per name (models.Zone).
func Zone(name string) *time.Location { return models.Zone(name) }

// generalReplyTo is the reply address of email d of game a.GameID that
// numbers no moves (General): its recipient may answer it with help,
// board, resign, join and the words of moves; the address of a message's
// own email (TableTalk) is a Talk one, whose reply is a message back (to
// the author alone when the message was private). It is "" when replies
// are off for the recipient, or the game holds no seat of theirs.
func (o *Outbox) generalReplyTo(ctx context.Context, d Data, a EmailArgs) (string, error) {
	if !o.cfg.Reply.Enabled() {
		return "", nil
	}
	set, err := o.store.MailSettingsOf(ctx, a.UserID, a.GameID)
	if errors.Is(err, models.ErrNotFound) {
		return "", nil
	}
	if err != nil || !set.RepliesOn() {
		return "", err
	}
	g, err := o.store.GameNoState(ctx, a.GameID)
	if errors.Is(err, models.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	seat := g.SeatOf(a.UserID)
	if seat < 0 {
		return "", nil
	}
	r := Reply{GameID: a.GameID, Seat: seat, UserID: a.UserID, Version: g.Version, Expires: ReplyExpiry(time.Time{}, o.now()), General: true}
	if t, ok := d.(TableTalk); ok {
		r.Talk, r.To = true, -1
		if t.Private {
			m, err := o.store.Message(ctx, a.GameID, t.MessageID)
			if errors.Is(err, models.ErrNotFound) {
				return "", nil // no message to answer: no address rather than one to the table
			}
			if err != nil {
				return "", err
			}
			r.To = m.Seat
		}
	}
	return r.Address(o.cfg.Reply.Secret, o.cfg.Reply.Domain), nil
}

// withReplyTo is d with its reply address set to addr ("" leaves d as it
// is), whatever kind of email d is; a message's own email (TableTalk)
// says so (Common.TalkReply), as generalReplyTo made its address.
func withReplyTo(d Data, addr string) Data {
	if addr == "" {
		return d
	}
	v := reflect.New(reflect.TypeOf(d)).Elem()
	v.Set(reflect.ValueOf(d))
	c := v.FieldByName("Common")
	c.FieldByName("ReplyTo").SetString(addr)
	_, talk := d.(TableTalk)
	c.FieldByName("TalkReply").SetBool(talk)
	return v.Interface().(Data)
}

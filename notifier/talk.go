package notifier

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// Table talk: a message of a game is a notification of kind KindMessage
// to each player who may read it (the others, or its one reader), but for
// those who muted the game's messages. It goes on their live stream and to
// their webhooks; by email only to those who chose so (DefaultOn), since
// every other email of the game shows the messages its recipient has not
// been shown yet (withTalk). The game's live stream (the boards) carries
// it as an event of type "message" (MessageEvent).

// DefaultOn reports whether notifications of kind go out on channel for a
// user who chose nothing: all but the digest, and the table talk's own
// emails (messages reach email in the next email of the game instead).
func DefaultOn(kind Kind, channel string) bool { return !models.OptIn(string(kind), channel) }

// MessagePosted writes the notifications of message m of game g in tx,
// the transaction that stores it (it implements models.MessageOutbox):
// one note to each player who may read it and did not mute the game's
// messages, and the message on the game's live stream.
func (o *Outbox) MessagePosted(ctx context.Context, tx models.OutboxTx, g *models.Game, m *models.Message) error {
	muted, err := tx.Store.MutedUsers(ctx, g.ID)
	if err != nil {
		return err
	}
	base := gameKey(g.ID).n("m", m.ID)
	var notes []note
	for _, s := range g.Seats {
		if s.UserID == nil || *s.UserID == m.UserID || slices.Contains(muted, *s.UserID) || !m.For(s.SeatNo) {
			continue
		}
		d := &TableTalk{MessageID: m.ID, From: seatName(g, m.Seat), Private: m.Private(), Text: m.Body, At: m.CreatedAt}
		notes = append(notes, note{userID: *s.UserID, seat: s.SeatNo, kind: KindMessage, data: d, common: &d.Common,
			key: base.w(string(KindMessage)).n("u", *s.UserID)})
	}
	stream := StreamArgs{Key: string(base.w("stream")), GameID: g.ID, MessageID: m.ID, Seats: g.Holders()}
	return o.batched(ctx, tx.Tx, func(ctx context.Context) error { return o.dispatch(ctx, tx, g, nil, notes, stream) })
}

// looking reports whether the recipient of email a follows its game live,
// so that it is not sent: a turn or prompt email, or a message's own (the
// message then waits for their next email of the game).
func (o *Outbox) looking(ctx context.Context, a EmailArgs) bool {
	switch a.NoteKind {
	case KindYourTurn, KindPromptWaiting:
		return o.onStream(ctx, a.UserID, a.GameID, a.seat())
	case KindMessage:
		g, err := o.store.GameNoState(ctx, a.GameID)
		return err == nil && o.onStream(ctx, a.UserID, a.GameID, g.SeatOf(a.UserID))
	}
	return false
}

// maxTalk is the most messages an email shows; earlier ones are counted.
const maxTalk = 20

// withTalk is d, an email of game a.GameID to a.UserID, with the messages
// of the game that no email has shown them yet (Common.Talk), and the id
// of the last of them, to record once the email is sent (0: none). skip
// says that the email is the message's own (KindMessage) and an email
// since showed that message, or the recipient muted the game since: it
// has nothing to say.
func (o *Outbox) withTalk(ctx context.Context, d Data, a EmailArgs) (_ Data, last int64, skip bool, err error) {
	if a.GameID == 0 {
		return d, 0, false, nil
	}
	ms, earlier, err := o.store.Unemailed(ctx, a.UserID, a.GameID, maxTalk)
	if err != nil {
		return nil, 0, false, err
	}
	if t, ok := d.(TableTalk); ok && !slices.ContainsFunc(ms, func(m models.AuthoredMessage) bool { return m.ID == t.MessageID }) {
		return d, 0, true, nil
	}
	if len(ms) == 0 {
		return d, 0, false, nil
	}
	lines := make([]TalkLine, len(ms))
	for i, m := range ms {
		lines[i] = TalkLine{From: m.Author, Private: m.Private(), At: m.CreatedAt, Text: m.Body}
	}
	d = withCommon(d, func(c *Common) { c.Talk, c.TalkEarlier = lines, earlier })
	return d, ms[len(ms)-1].ID, false, nil
}

// MessageBody is a message of a game's table talk as the API gives it
// and the game's live stream carries it: the Message of openapi.yaml.
type MessageBody struct {
	ID        int64   `json:"id"`
	Seat      int     `json:"seat"`
	From      string  `json:"from"`
	ToSeat    *int    `json:"to_seat"`
	To        *string `json:"to"`
	Text      string  `json:"text"`
	CreatedAt string  `json:"created_at"`
}

// NewMessageBody is the body of message id, written at at by the player
// from at seat, to the table (toSeat nil) or to seat toSeat's player to.
func NewMessageBody(id int64, seat int, from string, toSeat *int, to, text string, at time.Time) MessageBody {
	b := MessageBody{ID: id, Seat: seat, From: from, ToSeat: toSeat, Text: text, CreatedAt: at.UTC().Format(time.RFC3339)}
	if toSeat != nil {
		b.To = &to
	}
	return b
}

// MessageEvent is the SSE event of message m of game g on the game's live
// stream: no id (a message is not in the game's event log, from which a
// stream resumes), type "message", data the message's MessageBody.
// Seats are the seats' holders, as a game's events carry them.
func MessageEvent(g *models.Game, m *models.Message, seats []int64) Event {
	to := ""
	if m.ToSeat != nil {
		to = seatName(g, *m.ToSeat)
	}
	return MessageBodyEvent(NewMessageBody(m.ID, m.Seat, seatName(g, m.Seat), m.ToSeat, to, m.Body, m.CreatedAt), seats)
}

// MessageBodyEvent is the SSE event of a message's body b (see
// MessageEvent).
func MessageBodyEvent(b MessageBody, seats []int64) Event {
	data, _ := json.Marshal(b)
	return Event{Type: "message", Data: data, Seats: seats}
}

// deliverMessage publishes message a.MessageID to the game's live streams
// of this process that may read it: the seats it is for whose holders did
// not mute the game's messages, and the spectators' when it is public and
// the game shows its messages to spectators.
func (o *Outbox) deliverMessage(ctx context.Context, a StreamArgs) error {
	hub := o.cfg.Hub
	topics := map[int]Topic{}
	for seat := -1; seat < engine.MaxPlayers; seat++ {
		if t := GameSeatTopic(a.GameID, seat); hub.Subscribers(t) > 0 {
			topics[seat] = t
		}
	}
	if len(topics) == 0 {
		return nil
	}
	m, err := o.store.Message(ctx, a.GameID, a.MessageID)
	if err != nil {
		return err
	}
	g, err := o.store.GameNoState(ctx, a.GameID)
	if err != nil {
		return err
	}
	muted, err := o.store.MutedUsers(ctx, a.GameID)
	if err != nil {
		return err
	}
	ev := MessageEvent(g, m, a.Seats)
	for seat, topic := range topics {
		switch {
		case !m.For(seat):
		case seat < 0 && !g.SettingsOf().SpectatorMessages:
		case seat >= 0 && seat < len(a.Seats) && slices.Contains(muted, a.Seats[seat]):
		default:
			hub.Publish(topic, ev)
		}
	}
	return nil
}

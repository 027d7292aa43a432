package notifier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river"
)

// Job kinds.
const (
	emailKind    = "dm_email"
	webhookKind  = "dm_webhook"
	streamKind   = "dm_stream"
	reminderKind = "dm_reminder"
	timeoutKind  = "dm_timeout"
)

// EmailArgs is one email job: one notification to one user. Key is unique
// per (event, recipient, channel) and gives the stable Message-ID.
type EmailArgs struct {
	Key      string          `json:"key" river:"unique"`
	UserID   int64           `json:"user_id"`
	GameID   int64           `json:"game_id"`
	Name     string          `json:"name"`
	Email    string          `json:"email"`
	NoteKind Kind            `json:"kind"`
	Data     json.RawMessage `json:"data"`
	// Fill is what the worker adds to Data before it renders the email;
	// nil: Data is whole.
	Fill *Fill `json:"fill,omitempty"`
}

// Kind is the River job kind.
func (EmailArgs) Kind() string { return emailKind }

// seat is the recipient's seat in the game, as the fill names it; -1 when
// the job does not say.
func (a EmailArgs) seat() int {
	if a.Fill == nil {
		return -1
	}
	return a.Fill.Seat
}

// WebhookArgs is one webhook delivery job. The body is in the delivery
// log, where the first attempt of a notification's delivery writes it,
// built from Note.
type WebhookArgs struct {
	Key        string       `json:"key" river:"unique"`
	DeliveryID string       `json:"delivery_id"`
	WebhookID  int64        `json:"webhook_id"`
	Redeliver  int          `json:"redeliver,omitempty"` // >0: a redelivery asked for by the owner
	Note       *WebhookNote `json:"note,omitempty"`      // nil: the delivery is in the log already
}

// WebhookNote is the notification a delivery job delivers: its kind, the
// time of the change that caused it, what the change said of it and what
// the worker adds (see Fill).
type WebhookNote struct {
	Kind Kind            `json:"kind"`
	At   time.Time       `json:"at"`
	Data json.RawMessage `json:"data"`
	Fill *Fill           `json:"fill,omitempty"`
}

// Kind is the River job kind.
func (WebhookArgs) Kind() string { return webhookKind }

// StreamArgs publishes one change to the live stream: the stored
// notifications it made (Notes) and the range of the game's events it
// recorded (GameID, FromSeq..ToSeq), or the message of the game's table
// talk it posted (MessageID), with the users holding the game's seats as
// the change left them (Seats, by seat number, 0 for none; see
// models.Game.Holders), in one job.
type StreamArgs struct {
	Key       string       `json:"key" river:"unique"`
	GameID    int64        `json:"game_id,omitempty"`
	FromSeq   int64        `json:"from_seq,omitempty"`
	ToSeq     int64        `json:"to_seq,omitempty"`
	MessageID int64        `json:"message_id,omitempty"`
	Seats     []int64      `json:"seats,omitempty"`
	Notes     []StreamNote `json:"notes,omitempty"`
}

// StreamNote is one stored notification of a stream job: its recipient
// and id.
type StreamNote struct {
	UserID         int64 `json:"user_id"`
	NotificationID int64 `json:"notification_id"`
}

// empty reports whether the job names nothing to publish.
func (a StreamArgs) empty() bool { return a.FromSeq == 0 && a.MessageID == 0 && len(a.Notes) == 0 }

// Kind is the River job kind.
func (StreamArgs) Kind() string { return streamKind }

// decodeData turns a stored notification body back into its template data.
func decodeData(kind Kind, raw []byte) (Data, error) {
	decode, ok := decoders[kind]
	if !ok {
		return nil, fmt.Errorf("notifier: unknown notification kind %q", kind)
	}
	return decode(raw)
}

// decoders decode the stored data of each kind of notification.
var decoders = map[Kind]func([]byte) (Data, error){
	KindInvitation: decodeAs[Invitation], KindGameStarted: decodeAs[GameStarted], KindYourTurn: decodeAs[YourTurn],
	KindPromptWaiting: decodeAs[PromptWaiting], KindQueuedActions: decodeAs[QueuedActions],
	KindDeadlineReminder: decodeAs[DeadlineReminder], KindTimeoutApplied: decodeAs[TimeoutApplied],
	KindGameOver: decodeAs[GameOver], KindVacation: decodeAs[VacationNotice], KindSeatReclaimed: decodeAs[SeatReclaimed],
	KindDigest: decodeAs[Digest], KindReplyAnswer: decodeAs[ReplyAnswer], KindMessage: decodeAs[TableTalk],
}

// withCommon returns d with f applied to its common fields.
func withCommon(d Data, f func(c *Common)) Data {
	switch x := d.(type) {
	case Invitation:
		f(&x.Common)
		return x
	case GameStarted:
		f(&x.Common)
		return x
	case YourTurn:
		f(&x.Common)
		return x
	case PromptWaiting:
		f(&x.Common)
		return x
	case QueuedActions:
		f(&x.Common)
		return x
	case DeadlineReminder:
		f(&x.Common)
		return x
	case TimeoutApplied:
		f(&x.Common)
		return x
	case GameOver:
		f(&x.Common)
		return x
	case VacationNotice:
		f(&x.Common)
		return x
	case SeatReclaimed:
		f(&x.Common)
		return x
	case Digest:
		f(&x.Common)
		return x
	case ReplyAnswer:
		f(&x.Common)
		return x
	case TableTalk:
		f(&x.Common)
		return x
	}
	return d
}

func decodeAs[T Data](raw []byte) (Data, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}

type emailWorker struct {
	river.WorkerDefaults[EmailArgs]
	o *Outbox
}

// Work renders and sends one email. A "your turn" or "prompt" email, or
// a message's own, is skipped while the recipient follows the game live
// (their notification stream, or the game's stream: its board's page), in
// any process (see Presence); one that is not urgent waits while the
// recipient is in their quiet hours (see quiet.go). Every email of a game
// shows the messages of its table talk that the recipient's emails have
// not shown yet. A message that can never be sent is cancelled, not
// retried.
func (w *emailWorker) Work(ctx context.Context, job *river.Job[EmailArgs]) error {
	a := job.Args
	if w.o.looking(ctx, a) {
		w.o.log.Info("email skipped: recipient is on the live stream", "key", a.Key)
		return nil
	}
	d, err := decodeData(a.NoteKind, a.Data)
	if err != nil {
		return river.JobCancel(err)
	}
	if a.NoteKind != KindReplyAnswer { // an answer goes to someone writing now
		if err := w.o.waitQuiet(ctx, a.UserID, deadlineOf(d), a.Key); err != nil {
			return err
		}
	}
	d, st, err := w.o.filledState(ctx, d, a.Fill)
	if err != nil {
		return err
	}
	if pw, ok := d.(PromptWaiting); ok && st != nil {
		if d, err = w.o.widenDecision(ctx, pw, a.Fill, st); err != nil {
			return err
		}
	}
	if yt, ok := d.(YourTurn); ok && st != nil {
		if d, err = w.o.widenTurn(ctx, yt, a.Fill, st); err != nil {
			return err
		}
	}
	d, talked, skip, err := w.o.withTalk(ctx, d, a)
	if err != nil || skip {
		return err
	}
	if c := d.base(); c.GameID != "" && c.Host == "" && a.GameID > 0 {
		// Written without the host's name (an answer to a reply): the
		// game's subject names them all the same.
		if g, err := w.o.store.GameNoState(ctx, a.GameID); err == nil {
			d = withCommon(d, func(c *Common) { c.Host = hostName(g) })
		}
	}
	d = WithSignIn(d, w.o.cfg.Email.BaseURL, w.o.cfg.SignInSecret, a.UserID, w.o.now())
	d, err = w.o.withBoardLinks(ctx, d, a)
	if err != nil {
		return err
	}
	if d.base().ReplyTo == "" && a.GameID != 0 {
		// Any email of a game takes the commands that need no list.
		addr, err := w.o.generalReplyTo(ctx, d, a)
		if err != nil {
			return err
		}
		d = withReplyTo(d, addr)
	}

	msg, err := Compose(w.o.cfg.Email.Domain(), Address{Name: a.Name, Email: a.Email}, d, a.Key)
	if err != nil {
		return river.JobCancel(err)
	}
	msg.ReplyTo = d.base().ReplyTo
	if r, ok := d.(ReplyAnswer); ok && r.InReplyTo != "" && msgIDRe.MatchString(r.InReplyTo) {
		msg.InReplyTo, msg.References = r.InReplyTo, append(msg.References, r.InReplyTo)
	}
	if err := w.o.cfg.Sender.Send(ctx, msg); err != nil {
		if IsPermanent(err) {
			return river.JobCancel(err)
		}
		return err
	}
	if talked > 0 {
		// Sent: the next email of the game shows only later messages. (Not
		// recorded, the next shows them again: no reason to send this again.)
		if err := w.o.store.MessagesEmailed(ctx, a.UserID, a.GameID, talked); err != nil {
			w.o.log.Warn("messages shown by email not recorded", "key", a.Key, "error", err)
		}
	}
	return nil
}

// widenDecision is the decision email pw with what it says happened
// stretched back to its seat's last action (actedNews): in a game of
// three or four the move a window asks about may answer another's move
// made in a change that emailed the seat nothing (the window that asked
// another seat first), and the question alone does not say what it
// answers. The lines that ask its questions again stay out.
func (o *Outbox) widenDecision(ctx context.Context, pw PromptWaiting, fill *Fill, st *engine.State) (Data, error) {
	var asked []engine.Prompt
	for _, p := range st.Prompts {
		if p.Seat == fill.Seat && slices.Contains(fill.Prompts, p.ID) {
			asked = append(asked, p)
		}
	}
	news, told, since, ok, err := o.actedNews(ctx, fill.GameID, fill.Version, fill.Seat, st, asked)
	if ok {
		pw.News, pw.Told, pw.Since = news, told, withAlso(pw.Since, since)
	}
	return pw, err
}

// widenTurn is the email yt, of the turn that fill's change began or
// let go on, with what it says happened stretched back past that change.
// The turn comes after several changes of the others' turns, maybe: its
// news are all that changed since the seat's own turn ended (turnNews).
// A turn that goes on (NoPrompts: the interrupt window its seat's move
// opened has closed) tells all that changed since that move (actedNews):
// the seat was told what its turn began with when it began, and in a game
// of three or four every seat asked answered in a change of its own.
func (o *Outbox) widenTurn(ctx context.Context, yt YourTurn, fill *Fill, st *engine.State) (Data, error) {
	if fill.NoPrompts {
		news, told, since, ok, err := o.actedNews(ctx, fill.GameID, fill.Version, fill.Seat, st, nil)
		if ok {
			yt.News, yt.Told, yt.Since = news, told, withAlso(yt.Since, since)
		}
		return yt, err
	}
	news, told, ok, err := o.turnNews(ctx, fill.GameID, fill.Version, fill.Seat, st)
	if ok {
		yt.News, yt.Told = news, told
	}
	return yt, err
}

// NextRetry backs off from EmailRetryBase doubling to 30 min.
func (w *emailWorker) NextRetry(job *river.Job[EmailArgs]) time.Time {
	return w.o.now().Add(Backoff(job.Attempt, w.o.cfg.EmailRetryBase, 30*time.Minute, 0.2))
}

type webhookWorker struct {
	river.WorkerDefaults[WebhookArgs]
	o *Outbox
}

// Work posts one delivery, records the attempt in the delivery log, and
// disables the webhook after WebhookDisableAfter consecutive failures or
// when the receiver answers 410 Gone.
func (w *webhookWorker) Work(ctx context.Context, job *river.Job[WebhookArgs]) error {
	a := job.Args
	st := w.o.store
	h, err := st.WebhookByID(ctx, a.WebhookID)
	if errors.Is(err, models.ErrNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	d, err := st.Delivery(ctx, a.WebhookID, a.DeliveryID)
	if errors.Is(err, models.ErrNotFound) && a.Note != nil {
		d, err = w.o.recordDelivery(ctx, a)
	}
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if h.DisabledAt != nil {
		return river.JobCancel(fmt.Errorf("webhook %d is disabled", h.ID))
	}
	if w.o.cfg.Webhook == nil {
		return errors.New("webhooks are not configured")
	}
	res := w.o.cfg.Webhook.Deliver(ctx, h.URL, []byte(h.Secret), d.ID, []byte(d.Body))
	errText := ""
	if res.Err != nil {
		errText = res.Err.Error()
	} else if res.Outcome != OutcomeOK {
		errText = fmt.Sprintf("HTTP %d: %s", res.Status, res.Response)
	}
	disable := ""
	switch {
	case res.Outcome == OutcomeDisable:
		disable = errText
	case res.Outcome == OutcomeRetry && ShouldDisable(h.Failures+1, w.o.cfg.WebhookDisableAfter):
		disable = fmt.Sprintf("%d consecutive failures", h.Failures+1)
	}
	final := res.Outcome != OutcomeOK && job.Attempt >= job.MaxAttempts
	if err := st.RecordAttempt(ctx, d, res.Outcome == OutcomeOK, final, res.Status, errText, disable); err != nil {
		return err
	}
	switch {
	case res.Outcome == OutcomeOK:
		return nil
	case disable != "":
		return river.JobCancel(fmt.Errorf("webhook %d disabled: %s", h.ID, disable))
	}
	return errors.New(errText)
}

// recordDelivery writes the delivery of a's notification in the delivery
// log, with its body built now, as its first attempt begins.
func (o *Outbox) recordDelivery(ctx context.Context, a WebhookArgs) (*models.WebhookDelivery, error) {
	n := a.Note
	public, err := o.publicBody(ctx, n.Kind, n.Data, n.Fill)
	if err != nil {
		return nil, err
	}
	body, err := NewWebhookBody(a.DeliveryID, string(n.Kind), n.At, public)
	if err != nil {
		return nil, err
	}
	d := &models.WebhookDelivery{ID: a.DeliveryID, WebhookID: a.WebhookID, Event: string(n.Kind), Body: string(body)}
	if err := o.store.AddDelivery(ctx, d); err != nil {
		return nil, err
	}
	return o.store.Delivery(ctx, a.WebhookID, a.DeliveryID)
}

// NextRetry follows the documented backoff: WebhookBackoffBase doubling to
// at most 6 h, with jitter.
func (w *webhookWorker) NextRetry(job *river.Job[WebhookArgs]) time.Time {
	return w.o.now().Add(Backoff(job.Attempt, w.o.cfg.WebhookBackoffBase, 6*time.Hour, 0.2))
}

// Redeliver queues delivery id of the user's webhook again, with the same
// Webhook-Id; n numbers the request so that each one is a new job.
func (o *Outbox) Redeliver(ctx context.Context, userID, webhookID int64, id string) error {
	if _, err := o.store.Webhook(ctx, userID, webhookID); err != nil {
		return err
	}
	if _, err := o.store.Delivery(ctx, webhookID, id); err != nil {
		return err
	}
	k := jobKey(id).w("r" + strconv.FormatInt(o.now().UnixNano(), 36))
	_, err := o.client.Insert(ctx, WebhookArgs{Key: string(k), DeliveryID: id, WebhookID: webhookID, Redeliver: 1},
		&river.InsertOpts{UniqueOpts: uniqueOpts})
	return err
}

// workStream works a stream job: it announces the job's rows to the live
// stream of every process.
func (o *Outbox) workStream(ctx context.Context, job *river.Job[StreamArgs]) error {
	return o.announce(ctx, job.Args)
}

// GameSeatTopic is the live-stream topic of a game's events as seat sees
// them (seat < 0: a spectator).
func GameSeatTopic(gameID int64, seat int) Topic {
	if seat < 0 {
		return GameTopic(strconv.FormatInt(gameID, 10))
	}
	return GameTopic(strconv.FormatInt(gameID, 10) + ".s" + strconv.Itoa(seat))
}

// NotificationEvent is the SSE event of a stored notification: id is the
// notification id, type its kind, data {"id","kind","game_id","created_at","data"}.
func NotificationEvent(n models.Notification) Event {
	body, _ := json.Marshal(struct {
		ID        int64           `json:"id"`
		Kind      string          `json:"kind"`
		GameID    *int64          `json:"game_id,omitempty"`
		CreatedAt string          `json:"created_at"`
		Data      json.RawMessage `json:"data"`
	}{n.ID, n.Kind, n.GameID, n.CreatedAt.UTC().Format(time.RFC3339), json.RawMessage(n.Body)})
	return Event{ID: strconv.FormatInt(n.ID, 10), Type: n.Kind, Data: body}
}

// GameEvent is the SSE event of a stored game event as seat sees it, and
// false if seat sees nothing of it: id is the event's sequence number, type
// "event", data {"seq","version","created_at","event"}.
func GameEvent(r models.EventRecord, seat int) (Event, bool) {
	var ev engine.Event
	if err := json.Unmarshal([]byte(r.Body), &ev); err != nil {
		return Event{}, false
	}
	v, ok := ev.For(seat)
	if !ok {
		return Event{}, false
	}
	body, _ := json.Marshal(struct {
		Seq       int64        `json:"seq"`
		Version   int64        `json:"version"`
		CreatedAt string       `json:"created_at"`
		Event     engine.Event `json:"event"`
	}{r.Seq, r.Version, r.CreatedAt.UTC().Format(time.RFC3339), v})
	return Event{ID: strconv.FormatInt(r.Seq, 10), Type: "event", Data: body}, true
}

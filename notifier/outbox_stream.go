package notifier

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/jackc/pgx/v5"
)

// NotifyChannel names the Postgres NOTIFY channel that tells every server
// process which stored notifications or game events are new: the channel
// is the schema's name, a dot and this, so that deployments (or tests)
// sharing a database in schemas of their own do not hear each other.
const NotifyChannel = models.AnnounceChannel

// listenChannel is the LISTEN statement of the channel of schema.
func listenChannel(schema string) string {
	return "LISTEN " + pgx.Identifier{schema + "." + NotifyChannel}.Sanitize()
}

// ErrBadNotify is returned by DecodeNotify for a payload it cannot read.
var ErrBadNotify = errors.New("notifier: bad notify payload")

// EncodeNotify makes the NOTIFY payload of a stream job: its identifiers
// only (notification ids with their users, and a game and a range of event
// sequence numbers), never the content, so that events of any size fit in
// the 8000 bytes Postgres allows a payload.
func EncodeNotify(a StreamArgs) (string, error) {
	b, err := json.Marshal(a)
	return string(b), err
}

// DecodeNotify reverses EncodeNotify. A payload that names nothing, an
// event range that is not one, or a note without its user or id is
// ErrBadNotify.
func DecodeNotify(payload string) (StreamArgs, error) {
	var a StreamArgs
	if err := json.Unmarshal([]byte(payload), &a); err != nil {
		return StreamArgs{}, fmt.Errorf("%w: %v", ErrBadNotify, err)
	}
	events := a.FromSeq != 0 || a.ToSeq != 0
	if a.empty() || (events && (a.GameID <= 0 || a.FromSeq <= 0 || a.ToSeq < a.FromSeq)) ||
		(a.MessageID != 0 && (a.GameID <= 0 || a.MessageID < 0)) ||
		slices.ContainsFunc(a.Notes, func(n StreamNote) bool { return n.UserID <= 0 || n.NotificationID <= 0 }) {
		return StreamArgs{}, fmt.Errorf("%w: %q names nothing", ErrBadNotify, payload)
	}
	return a, nil
}

// maxNotify is the largest NOTIFY payload Postgres accepts, less one.
const maxNotify = 7999

// notifyPayloads encodes a as NOTIFY payloads: one, unless it names so many
// notifications that they need several (each then names a share of them,
// the first also the events).
func notifyPayloads(a StreamArgs) ([]string, error) {
	p, err := EncodeNotify(a)
	if err != nil || len(p) <= maxNotify || len(a.Notes) < 2 {
		return []string{p}, err
	}
	half := len(a.Notes) / 2
	first, rest := a, StreamArgs{Key: a.Key, Notes: a.Notes[half:]}
	first.Notes = a.Notes[:half]
	ps, err := notifyPayloads(first)
	if err != nil {
		return nil, err
	}
	more, err := notifyPayloads(rest)
	return append(ps, more...), err
}

// notify sends a's NOTIFY payloads through db (a transaction or the pool).
func notify(ctx context.Context, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, a StreamArgs) error {
	payloads, err := notifyPayloads(a)
	if err != nil {
		return err
	}
	for _, p := range payloads {
		if _, err := db.ExecContext(ctx, `SELECT pg_notify(current_schema() || '.' || $1, $2)`, NotifyChannel, p); err != nil {
			return err
		}
	}
	return nil
}

// stream announces stored notifications (and events) to the live stream
// in the transaction that stores them: listening on Postgres, with a
// NOTIFY, which Postgres delivers when, and only when, the transaction
// commits (what a subscriber misses while no listener is connected it
// reads from the stored log when it resumes); otherwise (SQLite: one
// process) with a stream job that publishes them to this process's hub
// after the commit. A game change's own write announces what it stores on
// Postgres (models.Change.Notifications), so it does not come here.
func (o *Outbox) stream(ctx context.Context, tx *sql.Tx, a StreamArgs) error {
	switch {
	case a.empty():
		return nil
	case o.cfg.DatabaseURL != "":
		return notify(ctx, tx, a)
	default:
		return o.insert(ctx, tx, a, time.Time{})
	}
}

// announce tells the live stream of every process about the rows a stream
// job names: through NOTIFY when the outbox listens on Postgres (each
// listener then reads the rows itself), else by publishing them to this
// process's hub (SQLite runs one process).
func (o *Outbox) announce(ctx context.Context, a StreamArgs) error {
	if o.cfg.DatabaseURL == "" {
		return o.deliver(ctx, a)
	}
	db, err := o.store.SQLDB()
	if err != nil {
		return err
	}
	return notify(ctx, db, a)
}

// deliver reads the stored rows a stream job names and publishes them to
// this process's subscribers: to each user's notification streams a
// notice, on which each reads the log from where it is
// (NotificationFeed: the notifications' ids are not in commit order), and
// the game's events as each seat (and a spectator) sees them, each with
// the seats' holders at the change (Event.Seats), against which every
// game stream checks its subscriber before it writes the event. Rows
// nobody here is subscribed to are not read.
func (o *Outbox) deliver(ctx context.Context, a StreamArgs) error {
	hub := o.cfg.Hub
	for _, n := range a.Notes {
		hub.Publish(UserTopic(strconv.FormatInt(n.UserID, 10)), Event{})
	}
	if a.MessageID != 0 {
		if err := o.deliverMessage(ctx, a); err != nil {
			return err
		}
	}
	if a.FromSeq == 0 {
		return nil
	}
	return o.deliverEvents(ctx, a)
}

// published is what a process has published of one game's events: from
// the seq of the first (floor) to that of the last, with nothing missing.
type published struct{ floor, last int64 }

// firstGap is how many events before the first job of a game that a
// process works it publishes along (deliverEvents).
const firstGap = 64

// maxPublished is the most games whose published events an outbox
// remembers (the games changed last).
const maxPublished = 4096

// deliverEvents publishes the game's events a names in the order of
// their seqs, which is the order their changes committed in (a game's
// changes hold its lock). The stream jobs of two changes of one game may
// be worked at once (SQLite: River's workers), the later one first; its
// events went out first then, and a client that resumed after the last id
// it had got never got the earlier ones. So the outbox remembers, per
// game, the last seq it published: events that come after a gap publish
// the gap first, read from the store (committed before them), and the
// late job then finds its events published. The first job of a game
// this process works publishes the firstGap events before it too (a
// subscriber skips those it has: ServeSSE); events older than that go
// out as they come.
func (o *Outbox) deliverEvents(ctx context.Context, a StreamArgs) error {
	o.publishMu.Lock()
	defer o.publishMu.Unlock()
	from := a.FromSeq
	p, known := o.published.Get(a.GameID)
	switch {
	case !known:
		// The first of the game's jobs this process works may be a later
		// change's (the game's start and first moves commit at once):
		// the events just before it are published first too.
		p = published{floor: max(1, a.FromSeq-firstGap)}
		from = p.floor
	case a.ToSeq < p.floor:
		return o.publishEvents(ctx, a, a.FromSeq)
	case a.ToSeq <= p.last:
		return nil // published with a later change's, as their gap
	default:
		from = p.last + 1
	}
	if err := o.publishEvents(ctx, a, from); err != nil {
		return err
	}
	p.last = a.ToSeq
	o.published.Put(a.GameID, p)
	return nil
}

// publishEvents publishes the game's events from seq from to a.ToSeq to
// every seat's subscribers of this process (and a spectator's), each as
// that seat sees it, with a's holders of the seats.
func (o *Outbox) publishEvents(ctx context.Context, a StreamArgs, from int64) error {
	hub := o.cfg.Hub
	seats := map[int]Topic{}
	for seat := -1; seat < engine.MaxPlayers; seat++ {
		if t := GameSeatTopic(a.GameID, seat); hub.Subscribers(t) > 0 {
			seats[seat] = t
		}
	}
	if len(seats) == 0 {
		return nil
	}
	recs, err := o.store.EventsAfter(ctx, a.GameID, from-1, int(a.ToSeq-from+1))
	if err != nil {
		return err
	}
	for seat, topic := range seats {
		for _, r := range recs {
			if ev, ok := GameEvent(r, seat); ok {
				ev.Seats = a.Seats
				hub.Publish(topic, ev)
			}
		}
	}
	return nil
}

// Listen runs the LISTEN loop of this process on Postgres until ctx ends:
// the rows every stream job announces, in any process, are read here and
// published to this process's hub. It reconnects after errors. Without a
// DatabaseURL it returns at once.
func (o *Outbox) Listen(ctx context.Context) {
	if o.cfg.DatabaseURL == "" {
		return
	}
	for ctx.Err() == nil {
		if err := o.listenOnce(ctx); err != nil && ctx.Err() == nil {
			o.log.Warn("live stream listener", "error", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

func (o *Outbox) listenOnce(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, o.cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var schema string
	if err := conn.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, listenChannel(schema)); err != nil {
		return err
	}
	o.listening.Store(true)
	defer o.listening.Store(false)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		a, err := DecodeNotify(n.Payload)
		if err != nil {
			o.log.Warn("live stream: bad NOTIFY payload", "error", err)
			continue
		}
		if err := o.deliver(ctx, a); err != nil && ctx.Err() == nil {
			// The subscribers catch up from the stored log when they
			// reconnect with Last-Event-ID.
			o.log.Warn("live stream: read announced rows", "error", err, "payload", n.Payload)
		}
	}
}

// Listening reports whether the LISTEN loop is connected.
func (o *Outbox) Listening() bool { return o.listening.Load() }

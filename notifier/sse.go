package notifier

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/datamonsters/turns/refusal"
)

// Topic names a stream: one user's notifications or one game's events.
type Topic string

// UserTopic is the topic of one user's notifications.
func UserTopic(userID string) Topic { return Topic("user:" + userID) }

// GameTopic is the topic of one game's (public, redacted) events.
func GameTopic(gameID string) Topic { return Topic("game:" + gameID) }

// Event is one Server-Sent Event.
type Event struct {
	// ID is what a client sends back as Last-Event-ID to resume: the
	// event's position in the stored log (for example the game's event
	// sequence number, or the user's notification id). CR, LF and NUL are
	// removed when written. "" sends no id line.
	ID string
	// Type is the SSE event name ("turn", "prompt", "game_over", ...); ""
	// is the default "message". CR, LF and NUL are removed when written.
	Type string
	// Data is the payload, usually JSON. Each line becomes a "data:" line.
	// Browsers do not dispatch an event whose data is empty.
	Data []byte
	// Seats, for a game's event, are the users holding the game's seats
	// (by seat number, 0 for none) as the change that recorded the event
	// left them: whom the event's seat views belong to (see
	// StreamOptions.Viewer). Nil for other events. Not written.
	Seats []int64
}

// DefaultSubscriberBuffer is the number of events a subscriber may fall
// behind before the hub drops it.
const DefaultSubscriberBuffer = 64

// Hub fans events out to in-process subscribers by topic. Publish never
// blocks: a subscriber whose buffer is full is dropped (its channel closed,
// Lagged true) and its client reconnects with Last-Event-ID, catching up
// from the stored log. Across processes, a Postgres LISTEN/NOTIFY listener
// learns which stored rows are new and calls Publish with them in every
// process (see Outbox.Listen); the hub itself keeps no history. The zero Hub is not usable; call NewHub.
type Hub struct {
	// StreamsPerClient is the most live streams one client may hold open
	// at once (see Admit); 0 is DefaultStreamsPerClient. Set it before
	// the hub is used.
	StreamsPerClient int

	mu     sync.RWMutex
	topics map[Topic]map[*Subscription]struct{}
	buffer int
	closed bool
	open   map[string]int // streams open by client (Admit)
}

// NewHub returns a hub whose subscribers buffer up to buffer events
// (buffer <= 0 means DefaultSubscriberBuffer).
func NewHub(buffer int) *Hub {
	if buffer <= 0 {
		buffer = DefaultSubscriberBuffer
	}
	return &Hub{topics: make(map[Topic]map[*Subscription]struct{}), buffer: buffer}
}

// Subscription receives the events published to its topics, in publish
// order per publisher. Close it when the client goes away.
type Subscription struct {
	hub    *Hub
	topics []Topic
	ch     chan Event
	closed bool // guarded by hub.mu
	lagged bool // guarded by hub.mu
}

// Subscribe returns a subscription to the given topics (duplicates are
// ignored). On a closed hub the subscription's channel is already closed.
func (h *Hub) Subscribe(topics ...Topic) *Subscription {
	s := &Subscription{hub: h, ch: make(chan Event, h.buffer)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		s.closed = true
		close(s.ch)
		return s
	}
	for _, t := range topics {
		subs := h.topics[t]
		if subs == nil {
			subs = make(map[*Subscription]struct{})
			h.topics[t] = subs
		}
		if _, dup := subs[s]; dup {
			continue
		}
		subs[s] = struct{}{}
		s.topics = append(s.topics, t)
	}
	return s
}

// Publish sends ev to every subscriber of topic and returns how many
// received it. It is safe to call from any goroutine (the notify listener,
// a request handler) and never blocks on a slow subscriber: one whose
// buffer is full is dropped instead.
func (h *Hub) Publish(topic Topic, ev Event) int {
	var laggards []*Subscription
	n := 0
	h.mu.RLock()
	for s := range h.topics[topic] {
		select {
		case s.ch <- ev:
			n++
		default:
			laggards = append(laggards, s)
		}
	}
	h.mu.RUnlock()
	for _, s := range laggards {
		h.remove(s, true)
	}
	return n
}

// Subscribers returns the number of subscriptions to topic (for "is this
// player connected to the live stream", which suppresses turn emails).
func (h *Hub) Subscribers(topic Topic) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.topics[topic])
}

// Close closes every subscription; later Subscribe calls get closed
// subscriptions and Publish reaches no one.
func (h *Hub) Close() {
	h.mu.Lock()
	subs := map[*Subscription]struct{}{}
	for _, m := range h.topics {
		for s := range m {
			subs[s] = struct{}{}
		}
	}
	h.closed = true
	h.mu.Unlock()
	for s := range subs {
		h.remove(s, false)
	}
}

// remove unregisters s and closes its channel once. The channel is closed
// under the write lock, so no Publish (which sends under the read lock) can
// send on it afterwards.
func (h *Hub) remove(s *Subscription, lagged bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.closed {
		return
	}
	for _, t := range s.topics {
		if subs := h.topics[t]; subs != nil {
			delete(subs, s)
			if len(subs) == 0 {
				delete(h.topics, t)
			}
		}
	}
	s.closed, s.lagged = true, lagged
	close(s.ch)
}

// Events returns the channel of events; it is closed when the subscription
// is closed, dropped for lagging, or the hub is closed.
func (s *Subscription) Events() <-chan Event { return s.ch }

// Close ends the subscription. It is safe to call more than once.
func (s *Subscription) Close() { s.hub.remove(s, false) }

// Lagged reports whether the hub dropped the subscription because it fell
// more than the buffer behind.
func (s *Subscription) Lagged() bool {
	s.hub.mu.RLock()
	defer s.hub.mu.RUnlock()
	return s.lagged
}

// SSEWriter writes the text/event-stream format to a response and flushes
// after every event.
type SSEWriter struct {
	w            io.Writer
	rc           *http.ResponseController
	writeTimeout time.Duration
}

// NewSSEWriter sets the event-stream response headers (Content-Type,
// Cache-Control: no-cache, X-Accel-Buffering: no so proxies do not buffer),
// writes the 200 status and flushes. writeTimeout, if > 0, bounds each
// write, so a client that stops reading is noticed.
func NewSSEWriter(w http.ResponseWriter, writeTimeout time.Duration) (*SSEWriter, error) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &SSEWriter{w: w, rc: http.NewResponseController(w), writeTimeout: writeTimeout}
	return s, s.flush()
}

func (s *SSEWriter) flush() error {
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

func (s *SSEWriter) write(b []byte) error {
	if s.writeTimeout > 0 {
		if err := s.rc.SetWriteDeadline(time.Now().Add(s.writeTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
	}
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.flush()
}

// FormatEvent returns ev in the text/event-stream format: optional "id:"
// and "event:" lines (CR, LF and NUL removed), one "data:" line per line of
// Data (split at CRLF, CR or LF), and a blank line.
func FormatEvent(ev Event) []byte {
	var b strings.Builder
	if id := sseField(ev.ID); id != "" {
		b.WriteString("id: ")
		b.WriteString(id)
		b.WriteByte('\n')
	}
	if typ := sseField(ev.Type); typ != "" {
		b.WriteString("event: ")
		b.WriteString(typ)
		b.WriteByte('\n')
	}
	for _, line := range splitLines(string(ev.Data)) {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return []byte(b.String())
}

func sseField(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' || r == 0 {
			return -1
		}
		return r
	}, s)
}

// Event writes one event and flushes it.
func (s *SSEWriter) Event(ev Event) error { return s.write(FormatEvent(ev)) }

// Comment writes a comment line (": text"), which clients ignore; used as a
// heartbeat so proxies and clients see the connection alive.
func (s *SSEWriter) Comment(text string) error {
	return s.write([]byte(": " + sseField(text) + "\n\n"))
}

// Retry tells the client how long to wait before reconnecting.
func (s *SSEWriter) Retry(d time.Duration) error {
	return s.write([]byte("retry: " + strconv.FormatInt(d.Milliseconds(), 10) + "\n\n"))
}

// ErrStreamLagged ends ServeSSE when the hub dropped a slow subscriber;
// ErrStreamClosed when the subscription or hub was closed; ErrSeatChanged
// when a game's event shows that the subscriber's seat changed hands (see
// StreamOptions.Viewer); ErrStreamUnauthorized when the credential the
// stream was opened with ended (see StreamOptions.Authorized).
var (
	ErrStreamLagged       = errors.New("notifier: live stream subscriber fell behind")
	ErrStreamClosed       = errors.New("notifier: live stream closed")
	ErrSeatChanged        = errors.New("notifier: the stream's seat changed hands")
	ErrStreamUnauthorized = errors.New("notifier: the stream's credential ended")
)

// StreamOptions configure ServeSSE.
type StreamOptions struct {
	// Backlog is sent first: the stored events after the client's
	// Last-Event-ID, read after Subscribe. Their IDs are positions in the
	// log (decimal numbers), and every live event at or before the last
	// position written is skipped, so an event both stored and published
	// meanwhile is sent once, and so is one published again (the stream
	// writes in the order of the log).
	Backlog []Event
	// More, if set, returns the rest of Backlog a page at a time; it is
	// asked until it returns none, before the live events.
	More func(context.Context) ([]Event, error)
	// Feed, if set, is where the events after Backlog come from: an
	// event published to the subscription only says that the log may
	// have grown, and the stream then writes what Feed.Next returns.
	// Feed is asked once after Backlog, at every notice (notices waiting
	// together count once), at every heartbeat (a row whose change began
	// before the stream's presence was written and committed after the
	// first read was announced to no one), and, while it says again, at
	// once when it returned events, else after a pause that doubles from
	// feedRetry to feedRetryMax. After and the Backlog's skipping are not
	// used.
	Feed Feed
	// After is the client's resume point when event IDs are positions in
	// the stored log (decimal numbers): live events at or before it (or
	// the last position written since) are skipped, since the client has
	// them (an event published late, after the client read it from the
	// log and reconnected). 0 skips none.
	After int64
	// Heartbeat is the interval of ": ping" comments (default 25 s; < 0
	// disables them).
	Heartbeat time.Duration
	// Retry, if > 0, is sent first as the client's reconnection delay.
	Retry time.Duration
	// WriteTimeout bounds each write (default 10 s).
	WriteTimeout time.Duration
	// Viewer, for a game's stream, is the user it is for (0: not a game's
	// stream) and Seat the seat whose view it carries (-1: a spectator's).
	// Each live event is then checked against its Seats just before it is
	// written: unless Seat is still the viewer's (for a spectator: unless
	// the viewer still holds no seat), the stream ends with ErrSeatChanged
	// and the event is not written; the client reconnects and is served
	// as what it now is. An event without Seats counts as changed. The
	// check reads only the event, so no change can come between it and
	// the write.
	Viewer int64
	Seat   int
	// Catch, if set, is asked at every heartbeat, with the last position
	// in the log the stream wrote (or After), for the stored events after
	// it, and again while it returns some: a change whose announcement
	// reached no process (it began before the stream's presence row was
	// written and was still running past the stream's wait, or the row
	// was lost while its process could not refresh it) comes then. Live
	// events at or before the last position written are skipped from
	// then on. ErrSeatChanged from it ends the stream as a live event
	// would, ErrStreamUnauthorized as Authorized's no would (a Catch that
	// checks the credential along its read); another error (the database does not answer) is let go
	// until the next heartbeat, so that a moment's outage does not end
	// every stream (a browser does not reconnect to a stream that then
	// answers with an error). With heartbeats disabled it is never
	// asked.
	Catch func(ctx context.Context, last int64) ([]Event, error)
	// Authorized, if set, is asked at every heartbeat whether the
	// credential the stream was opened with is still good (a logout, a
	// revoked token: no); when it says no, the stream ends with
	// ErrStreamUnauthorized. It should say yes when it cannot tell (the
	// database does not answer). With heartbeats disabled it is never
	// asked.
	Authorized func(context.Context) bool
}

// follows reports whether ev may go to the stream's viewer as its seat.
func (o *StreamOptions) follows(ev Event) bool {
	switch {
	case o.Viewer == 0:
		return true
	case ev.Seats == nil:
		return false
	case o.Seat < 0:
		return !slices.Contains(ev.Seats, o.Viewer)
	}
	return o.Seat < len(ev.Seats) && ev.Seats[o.Seat] == o.Viewer
}

// ServeSSE streams sub to w until ctx ends (the client left: returns
// ctx.Err(), also when a write failed because of it), the subscription ends (ErrStreamLagged or ErrStreamClosed; the
// client then reconnects with Last-Event-ID), or a write fails. It does not
// close sub. The resumable pattern for a game's stream is:
//
//	gs, err := notifier.OpenGameStream(ctx, hub, presence, store, game, uid, seat, after, who) // after: ResumeAfter(r)
//	defer gs.Close()
//	err = notifier.ServeSSE(ctx, w, gs.Sub, notifier.StreamOptions{Backlog: gs.Backlog, More: gs.More,
//		Catch: gs.Catch, After: after, Viewer: uid, Seat: gs.Seat})
func ServeSSE(ctx context.Context, w http.ResponseWriter, sub *Subscription, opts StreamOptions) error {
	if opts.Heartbeat == 0 {
		opts.Heartbeat = 25 * time.Second
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 10 * time.Second
	}
	sw, err := NewSSEWriter(w, opts.WriteTimeout)
	if err != nil {
		return err
	}
	if opts.Retry > 0 {
		if err := sw.Retry(opts.Retry); err != nil {
			return err
		}
	}
	// last is the furthest position in the log written (or the
	// client's).
	last := opts.After
	write := func(ev Event) error {
		if err := sw.Event(ev); err != nil {
			return writeErr(ctx, err)
		}
		if n, ok := logPosition(ev.ID); ok {
			last = max(last, n)
		}
		return nil
	}
	for evs := opts.Backlog; ; {
		for _, ev := range evs {
			if err := write(ev); err != nil {
				return err
			}
		}
		if opts.More == nil {
			break
		}
		var err error
		if evs, err = opts.More(ctx); err != nil {
			return err
		} else if len(evs) == 0 {
			break
		}
	}
	var tick <-chan time.Time
	if opts.Heartbeat > 0 {
		t := time.NewTicker(opts.Heartbeat)
		defer t.Stop()
		tick = t.C
	}
	// retry is when the feed is asked again without a notice; nil: not.
	var retry <-chan time.Time
	pause := feedRetry
	pull := func() error {
		evs, again, err := opts.Feed.Next(ctx)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if err := sw.Event(ev); err != nil {
				return writeErr(ctx, err)
			}
		}
		switch {
		case !again:
			retry, pause = nil, feedRetry
		case len(evs) > 0:
			retry, pause = time.After(0), feedRetry
		default:
			retry, pause = time.After(pause), min(2*pause, feedRetryMax)
		}
		return nil
	}
	if opts.Feed != nil {
		if err := pull(); err != nil {
			return err
		}
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-sub.Events():
			if !ok {
				if sub.Lagged() {
					return ErrStreamLagged
				}
				return ErrStreamClosed
			}
			if opts.Feed != nil {
				if !drain(sub) {
					continue // closed: said at the next turn
				}
				if err := pull(); err != nil {
					return err
				}
				continue
			}
			if n, ok := logPosition(ev.ID); ok && n <= last {
				continue // written already, or the client has it
			}
			if !opts.follows(ev) {
				return ErrSeatChanged
			}
			if err := write(ev); err != nil {
				return err
			}
		case <-retry:
			if err := pull(); err != nil {
				return err
			}
		case <-tick:
			if opts.Authorized != nil && !opts.Authorized(ctx) {
				return ErrStreamUnauthorized
			}
			if err := sw.Comment("ping"); err != nil {
				return writeErr(ctx, err)
			}
			if opts.Catch != nil {
				if err := catchUp(ctx, opts.Catch, &last, write); err != nil {
					return err
				}
			}
			if opts.Feed != nil {
				if err := pull(); err != nil {
					return err
				}
			}
		}
	}
}

// logPosition reads an event ID that is a position in the stored log (a
// decimal number).
func logPosition(id string) (int64, bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	return n, err == nil
}

// catchUp writes what catch returns after *last until it returns none,
// or nothing that moves *last on. Of catch's errors it returns only
// ErrSeatChanged and ErrStreamUnauthorized (see StreamOptions.Catch).
func catchUp(ctx context.Context, catch func(context.Context, int64) ([]Event, error), last *int64, write func(Event) error) error {
	for {
		from := *last
		evs, err := catch(ctx, from)
		if errors.Is(err, ErrSeatChanged) || errors.Is(err, ErrStreamUnauthorized) {
			return err
		} else if err != nil {
			return nil
		}
		for _, ev := range evs {
			if n, ok := logPosition(ev.ID); ok && n <= *last {
				continue
			}
			if err := write(ev); err != nil {
				return err
			}
		}
		if *last == from {
			return nil
		}
	}
}

// A feed that has rows it cannot read yet is asked again after feedRetry,
// then after twice as long each time, up to feedRetryMax.
const (
	feedRetry    = 5 * time.Millisecond
	feedRetryMax = 250 * time.Millisecond
)

// drain takes the notices waiting on sub, so that they count as one; false
// when sub was closed meanwhile.
func drain(sub *Subscription) bool {
	for {
		select {
		case _, ok := <-sub.Events():
			if !ok {
				return false
			}
		default:
			return true
		}
	}
}

// writeErr reports a failed write as the client leaving (ctx.Err()) when
// the request context has ended, since that is what happened.
func writeErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("notifier: live stream write: %w", err)
}

// StreamBacklog is the most stored events a stream sends on (re)connection.
const StreamBacklog = 500

// ResumeError refuses a Last-Event-ID that is not the id of a stored
// event of the stream: not a number, a number from another stream, or one
// beyond its last event, from which nothing would ever be sent. A client
// must not be left on a stream that stays silent.
type ResumeError struct{ ID string }

// RefusalKind is Invalid: the request is wrong as sent.
func (e *ResumeError) RefusalKind() refusal.Kind { return refusal.Invalid }

func (e *ResumeError) Error() string {
	return fmt.Sprintf("Last-Event-ID %q is not the id of an event of this stream", e.ID)
}

// ResumeAfter is the stored position a stream resumes after: LastEventID
// as a number, 0 when there is none, a *ResumeError when it is not a
// number.
func ResumeAfter(r *http.Request) (int64, error) {
	v := LastEventID(r)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, &ResumeError{ID: v}
	}
	return n, nil
}

// Resumed is the backlog of a stream resumed after the stored item after
// (0: from the start), from rows read from the one before it on (from the
// start for 0), in order: the rows after it, at most StreamBacklog. An
// after that names no stored item of the stream is refused
// (*ResumeError).
func Resumed[T any](rows []T, after int64, id func(T) int64) ([]T, error) {
	if after > 0 {
		if len(rows) == 0 || id(rows[0]) != after {
			return nil, &ResumeError{ID: strconv.FormatInt(after, 10)}
		}
		rows = rows[1:]
	}
	if len(rows) > StreamBacklog {
		rows = rows[:StreamBacklog]
	}
	return rows, nil
}

// LastEventID returns the position a client resumes from: the
// Last-Event-ID header (sent by browsers on reconnect), else the
// last_event_id query parameter (for a first connection), else "". Values
// longer than 200 bytes or containing CR, LF or NUL are ignored.
func LastEventID(r *http.Request) string {
	for _, v := range []string{r.Header.Get("Last-Event-ID"), r.URL.Query().Get("last_event_id")} {
		if v != "" && len(v) <= 200 && !strings.ContainsAny(v, "\r\n\x00") {
			return v
		}
	}
	return ""
}

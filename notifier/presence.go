package notifier

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/datamonsters/turns/models"
)

// DefaultPresenceTTL is how long a live-stream connection counts as open
// after its process last vouched for it.
const DefaultPresenceTTL = 30 * time.Second

// PresenceOptions configure NewPresence. The zero value is valid.
type PresenceOptions struct {
	// TTL is how long a connection's row lives without a heartbeat
	// (default DefaultPresenceTTL). The heartbeat runs every TTL/3, so a
	// process that dies stops suppressing emails at most TTL after its
	// last heartbeat. Server clocks must agree to well within it.
	TTL time.Duration
	// Now is the clock (nil: time.Now); the email worker compares the
	// rows' expiry with the outbox's clock.
	Now    func() time.Time
	Logger *slog.Logger
}

// Presence records in the database which users are connected to the live
// stream in this process, so that the email worker of any process can skip
// their "your turn" and prompt emails: one row per open connection,
// written when it opens (Enter), refreshed by Run's heartbeat, deleted when
// it closes. It fails safe: a row that cannot be written or refreshed, or
// whose process died, expires and the emails go out again. The zero
// Presence is not usable; call NewPresence.
type Presence struct {
	store   *models.Store
	process string
	ttl     time.Duration
	now     func() time.Time
	log     *slog.Logger

	mu    sync.Mutex
	conns map[string]presenceConn // open connections by id
}

// presenceConn is what one open connection streams: a user's
// notifications, or (game set) a game's events to that user.
type presenceConn struct {
	user int64
	game *int64
}

// NewPresence returns the presence of this process (a new random process
// id) on store.
func NewPresence(store *models.Store, opts PresenceOptions) *Presence {
	p := &Presence{store: store, process: randomID(), ttl: opts.TTL, now: opts.Now, log: opts.Logger,
		conns: map[string]presenceConn{}}
	if p.ttl <= 0 {
		p.ttl = DefaultPresenceTTL
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	return p
}

func randomID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Enter records a notification stream connection of userID and returns
// the function that removes it (call it when the connection closes; it uses
// its own short context, since the request's has ended by then). On
// Postgres a game change announces a user's notifications only while they
// have such a row (qWriteChange in models), so Enter then waits for the
// changes already running to end: what they stored is in the backlog read
// next. An error means the row was not written: the caller should not
// serve a stream that may get nothing live (the heartbeat writes the rows
// of open connections again).
func (p *Presence) Enter(ctx context.Context, userID int64) (leave func(), err error) {
	return p.enter(ctx, presenceConn{user: userID})
}

// EnterGame is Enter for a stream of game gameID's events to userID.
func (p *Presence) EnterGame(ctx context.Context, userID, gameID int64) (leave func(), err error) {
	return p.enter(ctx, presenceConn{user: userID, game: &gameID})
}

// settleLimit bounds how long a new connection waits for the running
// transactions (changes take milliseconds).
const settleLimit = 2 * time.Second

func (p *Presence) enter(ctx context.Context, c presenceConn) (leave func(), err error) {
	id := randomID()
	p.mu.Lock()
	p.conns[id] = c
	p.mu.Unlock()
	leave = func() {
		p.mu.Lock()
		delete(p.conns, id)
		p.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := p.store.LeaveStream(ctx, id); err != nil {
			p.log.Warn("live stream presence: leave", "error", err)
		}
	}
	if err := p.store.EnterStream(ctx, id, p.process, c.user, c.game, p.now().Add(p.ttl)); err != nil {
		return leave, err
	}
	return leave, p.store.AwaitRunning(ctx, settleLimit)
}

// Run refreshes this process's connections every TTL/3 until ctx ends,
// writing again any row that went missing, and deletes the rows that
// other, dead processes left expired. When ctx ends it deletes this
// process's rows.
func (p *Presence) Run(ctx context.Context) {
	t := time.NewTicker(p.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := p.store.LeaveStreams(sctx, p.process); err != nil {
				p.log.Warn("live stream presence: leave at shutdown", "error", err)
			}
			return
		case <-t.C:
			if err := p.Heartbeat(ctx); err != nil && ctx.Err() == nil {
				p.log.Warn("live stream presence: heartbeat", "error", err)
			}
		}
	}
}

// Heartbeat refreshes this process's connections once (Run calls it).
func (p *Presence) Heartbeat(ctx context.Context) error {
	now := p.now()
	p.mu.Lock()
	conns := make(map[string]presenceConn, len(p.conns))
	for id, c := range p.conns {
		conns[id] = c
	}
	p.mu.Unlock()
	n, err := p.store.RefreshStreams(ctx, p.process, now.Add(p.ttl))
	if err != nil {
		return err
	}
	if n < int64(len(conns)) {
		for id, c := range conns {
			if err := p.store.EnterStream(ctx, id, p.process, c.user, c.game, now.Add(p.ttl)); err != nil {
				return err
			}
		}
	}
	_, err = p.store.PurgeStreams(ctx, now.Add(-p.ttl))
	return err
}

// onStream reports whether userID follows game gameID live, on their
// notification stream or on the game's own (its board's page), where seat
// is theirs: in this process (its hub), or, on Postgres where several
// processes may serve, in any process (a presence row that has not
// expired). A failed read counts as not connected: the email goes out.
func (o *Outbox) onStream(ctx context.Context, userID, gameID int64, seat int) bool {
	hub := o.cfg.Hub
	if hub.Subscribers(UserTopic(strconv.FormatInt(userID, 10))) > 0 || gameID > 0 && hub.Subscribers(GameSeatTopic(gameID, seat)) > 0 {
		return true
	}
	if o.cfg.DatabaseURL == "" {
		return false // SQLite: one process, whose hub has answered
	}
	on, err := o.store.Follows(ctx, userID, gameID, o.now())
	if err != nil {
		o.log.Warn("live stream presence: read", "error", err)
	}
	return on
}

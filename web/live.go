package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// The board's live stream: the game's events as Server-Sent Events, as
// the reader's seat sees them (a spectator: the public ones), on the
// notifier's hub and served by notifier.ServeSSE, with a session cookie
// instead of a bearer token. The board's script reloads the board when one
// arrives. Messages of the table talk come too (events "message", with no
// id), those after last_message first. It follows the reader's seat as the API's game stream does: the
// stream ends before an event that shows the seat changed hands, and the
// browser reconnects as what the reader is then.

// liveBacklog is the most stored events sent when a board connects.
const liveBacklog = 500

// errLiveOff: this server streams nothing live.
var errLiveOff = &pageError{http.StatusServiceUnavailable, "No live updates", "This server does not stream games live; reload the page to see what happened."}

// errSeatChanging: the reader's seat kept changing while the stream opened.
var errSeatChanging = &pageError{http.StatusConflict, "Seats are changing", "Your seat changed while the page connected; it connects again."}

// live streams game id's events to its board.
func (p *Pages) live(c *gin.Context) {
	hub := p.cfg.Hub
	if hub == nil {
		p.fail(c, errLiveOff)
		return
	}
	id := gameID(c)
	if id == 0 {
		p.fail(c, errNotFound)
		return
	}
	after, err := strconv.ParseInt(notifier.LastEventID(c.Request), 10, 64)
	if err != nil || after < 0 {
		after = 0
	}
	ctx, uid := c.Request.Context(), userOf(c)
	_, seat, err := p.play.Game(ctx, id, uid)
	if err != nil {
		p.fail(c, err)
		return
	}
	sub := hub.Subscribe(notifier.GameSeatTopic(id, seat))
	defer func() { sub.Close() }()
	if pr := p.cfg.Presence; pr != nil {
		// On Postgres a change announces its events only to games that
		// someone follows (a presence row; a spectator signed in nowhere
		// has one without a user); then those already committed are in the
		// backlog read next.
		leave, err := pr.EnterGame(ctx, uid, id)
		defer leave()
		if err != nil {
			p.fail(c, err)
			return
		}
	}
	// The seat again, now that the subscription stands: every change
	// committed after this read reaches the subscription with its holders.
	var ref models.GameRef
	for tries := 0; ; tries++ {
		if ref, err = p.store.GameRef(ctx, id, uid, ""); err != nil {
			p.fail(c, err)
			return
		}
		if ref.Seat < 0 && !ref.Public {
			p.fail(c, errNotFound)
			return
		}
		if ref.Seat == seat {
			break
		}
		if tries == 3 {
			p.fail(c, errSeatChanging)
			return
		}
		sub.Close()
		seat = ref.Seat
		sub = hub.Subscribe(notifier.GameSeatTopic(id, seat))
	}
	recs, err := p.store.EventsAfter(ctx, id, after, liveBacklog)
	if err != nil {
		p.fail(c, err)
		return
	}
	var backlog []notifier.Event
	for _, r := range recs {
		if r.Version > ref.Version {
			break // committed after the seat was read: it comes live
		}
		if ev, ok := notifier.GameEvent(r, seat); ok {
			backlog = append(backlog, ev)
		}
	}
	if last, err := strconv.ParseInt(c.Query("last_message"), 10, 64); err == nil && last >= 0 {
		// The board's talk shows the messages up to last: the later ones
		// come first, as messages posted while the page connected.
		backlog = append(backlog, p.talkSince(c, id, last)...)
	}
	c.Header("X-Accel-Buffering", "no")
	// A visitor (uid 0) holds no seat for a change to move: nothing to follow.
	opts := notifier.StreamOptions{Backlog: backlog, After: after, Retry: 2 * time.Second, Viewer: uid, Seat: seat,
		Heartbeat: p.cfg.Heartbeat}
	if raw := p.sessionCookie(c); uid != 0 && raw != "" {
		// A reader who signs out (here, or everywhere) stops getting their
		// seat's events: the stream ends at the next heartbeat.
		opts.Authorized = func(ctx context.Context) bool {
			_, _, err := p.acc.WebSession(ctx, raw)
			return !errors.Is(err, models.ErrNotFound)
		}
	}
	err = notifier.ServeSSE(ctx, c.Writer, sub, opts)
	if err != nil && !errors.Is(err, ctx.Err()) && !errors.Is(err, notifier.ErrStreamLagged) &&
		!errors.Is(err, notifier.ErrStreamClosed) && !errors.Is(err, notifier.ErrSeatChanged) {
		p.log.Warn("board stream", "game_id", id, "error", err)
	}
	c.Abort()
}

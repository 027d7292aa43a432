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
// id), those after last_message first. It opens as the API's game stream
// does (notifier.OpenGameStream), counted against the reader's account
// (a visitor's address) in the same limit, and follows the reader's seat:
// the stream ends before an event that shows the seat changed hands, and
// the browser reconnects as what the reader is then. A last_event_id (the
// last event the page shows) that names no event of the game is refused.

// errLiveOff: this server streams nothing live.
var errLiveOff = &pageError{http.StatusServiceUnavailable, "No live updates", "This server does not stream games live; reload the page to see what happened."}

// live streams game id's events to its board.
func (p *Pages) live(c *gin.Context) error {
	hub := p.cfg.Hub
	if hub == nil {
		return errLiveOff
	}
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	after, err := notifier.ResumeAfter(c.Request)
	if err != nil {
		return err
	}
	ctx, uid := c.Request.Context(), userOf(c)
	_, seat, err := p.play.Game(ctx, id, uid)
	if err != nil {
		return err
	}
	gs, err := notifier.OpenGameStream(ctx, hub, p.cfg.Presence, p.store, id, uid, seat, after, notifier.ClientKey(uid, c.ClientIP()))
	if err != nil {
		return err
	}
	defer gs.Close()
	backlog := gs.Backlog
	if last, err := strconv.ParseInt(c.Query("last_message"), 10, 64); err == nil && last >= 0 {
		// The board's talk shows the messages up to last: the later ones
		// come first, as messages posted while the page connected.
		backlog = append(backlog, p.talkSince(c, id, last)...)
	}
	c.Header("X-Accel-Buffering", "no")
	// A visitor (uid 0) holds no seat for a change to move: nothing to follow.
	opts := notifier.StreamOptions{Backlog: backlog, More: gs.More, Catch: gs.Catch, After: after, Retry: 2 * time.Second, Viewer: uid, Seat: gs.Seat,
		Heartbeat: p.cfg.Heartbeat}
	if raw := p.sessionCookie(c); uid != 0 && raw != "" {
		// A reader who signs out (here, or everywhere) stops getting their
		// seat's events: the stream ends at the next heartbeat.
		opts.Authorized = func(ctx context.Context) bool {
			_, _, err := p.acc.WebSession(ctx, raw)
			return !errors.Is(err, models.ErrNotFound)
		}
	}
	err = notifier.ServeSSE(ctx, c.Writer, gs.Sub, opts)
	if err != nil && !errors.Is(err, ctx.Err()) && !errors.Is(err, notifier.ErrStreamLagged) &&
		!errors.Is(err, notifier.ErrStreamClosed) && !errors.Is(err, notifier.ErrSeatChanged) &&
		!errors.Is(err, notifier.ErrStreamUnauthorized) {
		p.log.Warn("board stream", "game_id", id, "error", err)
	}
	c.Abort()
	return nil
}

package api

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/refusal"
	"github.com/gin-gonic/gin"
)

// streamNotifications is the caller's notifications as Server-Sent Events:
// the stored ones after Last-Event-ID first, then live ones, all read from
// the log in its order (notifier.NotificationFeed). While the
// caller is connected (to this server or another), "your turn" and prompt
// emails are not sent. The connection's presence row is written before the
// backlog is read: on Postgres the database announces only what a
// connection follows.
func (s *Server) streamNotifications(c *gin.Context) error {
	if s.notify == nil || s.notify.Hub == nil {
		return errNotifyOff
	}
	after, err := notifier.ResumeAfter(c.Request)
	if err != nil {
		return err
	}
	uid := userID(c)
	release, err := s.notify.Hub.Admit(notifier.ClientKey(uid, ""))
	if err != nil {
		return err
	}
	defer release()
	sub := s.notify.Hub.Subscribe(notifier.UserTopic(strconv.FormatInt(uid, 10)))
	defer sub.Close()
	if p := s.notify.Presence; p != nil {
		leave, err := p.Enter(c.Request.Context(), uid)
		defer leave()
		if err != nil {
			return err
		}
	}
	feed, err := notifier.OpenNotificationFeed(c.Request.Context(), s.store, s.notify.Outbox, uid, after)
	if err != nil {
		return err
	}
	backlog, _, err := feed.Next(c.Request.Context()) // asked again at once: ServeSSE
	if err != nil {
		return err
	}
	s.serveStream(c, sub, notifier.StreamOptions{Backlog: backlog, Feed: feed})
	return nil
}

// streamGame is one game's events as Server-Sent Events, redacted for the
// caller (a spectator of a public game sees the public events). The
// stream follows the caller's seat: every live event carries the seats'
// holders as its change left them, and the stream ends before the first
// one that shows the caller's seat changed hands (a leave, a join); the
// client reconnects and is served as what it is then.
//
// The backlog is read in the same way: the seat is read again once the
// subscription and the presence row are in place (so that every change
// committed after that read reaches the subscription, with its holders),
// the subscription moved if the seat changed meanwhile, and the backlog
// is the stored events up to the version of that read, redacted for that
// seat. Later ones come live. Seats change hands only in the lobby, which
// records no events, so every stored event up to that version is the
// seat's as it is then. At every heartbeat the stream also reads the
// stored events after the last it sent (GameStream.Catch): a change whose
// announcement reached no process comes then.
func (s *Server) streamGame(c *gin.Context) error {
	if s.notify == nil || s.notify.Hub == nil {
		return errNotifyOff
	}
	g, seat, err := s.loadVisible(c)
	if err != nil {
		return err
	}
	after, err := notifier.ResumeAfter(c.Request)
	if err != nil {
		return err
	}
	ctx, uid := c.Request.Context(), userID(c)
	gs, err := notifier.OpenGameStream(ctx, s.notify.Hub, s.notify.Presence, s.store, g.ID, uid, seat, after, notifier.ClientKey(uid, ""))
	if err != nil {
		return err
	}
	defer gs.Close()
	opts := notifier.StreamOptions{Backlog: gs.Backlog, More: gs.More, Catch: gs.Catch, After: after, Viewer: uid, Seat: gs.Seat}
	if a, ok := s.streamAccess(c); ok {
		// A login's access token is checked along the game's read at
		// every heartbeat: one read, not two.
		gs.CheckAccess(a.Session, func(ref models.GameRef) bool { return stillGood(a.Check(ref.TokenGen, ref.SessionLive)) })
		opts.Authorized = checkedAlong
	}
	s.serveStream(c, gs.Sub, opts)
	return nil
}

// checkedAlong is StreamOptions.Authorized for a stream whose credential
// is checked along another read (notifier.GameStream.CheckAccess).
func checkedAlong(context.Context) bool { return true }

// streamAccess is the login's access token a stream was opened with,
// verified; false for an API token (or a token no longer verified).
func (s *Server) streamAccess(c *gin.Context) (accounts.Access, bool) {
	tok := bearer(c)
	if accounts.IsAPIToken(tok) {
		return accounts.Access{}, false
	}
	a, err := s.acc.VerifyAccess(tok)
	return a, err == nil
}

// bearer is the request's bearer token ("" for none).
func bearer(c *gin.Context) string {
	tok, _ := strings.CutPrefix(c.GetHeader("Authorization"), "Bearer ")
	return tok
}

func (s *Server) serveStream(c *gin.Context, sub *notifier.Subscription, opts notifier.StreamOptions) {
	c.Header("X-Accel-Buffering", "no")
	if router.IsHead(c.Request) {
		notifier.NewSSEWriter(c.Writer, 0) // the stream's headers, and no stream
		return
	}
	if opts.Authorized == nil {
		opts.Authorized = s.stillAuthorized(c)
	}
	opts.Heartbeat = s.notify.Heartbeat
	err := notifier.ServeSSE(c.Request.Context(), c.Writer, sub, opts)
	if err != nil && !errors.Is(err, c.Request.Context().Err()) && !errors.Is(err, notifier.ErrStreamLagged) &&
		!errors.Is(err, notifier.ErrStreamClosed) && !errors.Is(err, notifier.ErrSeatChanged) &&
		!errors.Is(err, notifier.ErrStreamUnauthorized) {
		s.log.Warn("stream", "error", err)
	}
}

// stillAuthorized is the check an open stream makes at every heartbeat of
// the bearer token it was opened with (authenticate checked it then): an
// API token not revoked; an access token whose session is live and whose
// generation is current, so that a logout, "sign out everywhere", a
// password change or a revoked token ends the stream as it ends every
// other request. (An access token that merely expires does not end it.)
// It says yes when the database cannot answer.
func (s *Server) stillAuthorized(c *gin.Context) func(context.Context) bool {
	if a, ok := s.streamAccess(c); ok {
		return func(ctx context.Context) bool { return stillGood(s.acc.CheckAccess(ctx, a)) }
	}
	if tok := bearer(c); accounts.IsAPIToken(tok) {
		return func(ctx context.Context) bool {
			_, err := s.acc.APIToken(ctx, tok)
			return stillGood(err)
		}
	}
	return func(context.Context) bool { return false }
}

// stillGood says whether a check of a stream's credential that answered
// err leaves it open: yes unless it says the credential ended (not when
// the database cannot answer).
func stillGood(err error) bool { return err == nil || refusal.KindOf(err) != refusal.Unauthorized }

package api

import (
	"errors"
	"strconv"

	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// streamBacklog is the most stored events sent on (re)connection.
const streamBacklog = 500

// lastEventID parses Last-Event-ID (or ?last_event_id=) as a number; "" is 0.
func lastEventID(c *gin.Context) (int64, error) {
	v := notifier.LastEventID(c.Request)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, badRequest("Last-Event-ID must be a number from a previous event")
	}
	return n, nil
}

// streamNotifications is the caller's notifications as Server-Sent Events:
// the stored ones after Last-Event-ID first, then live ones. While the
// caller is connected (to this server or another), "your turn" and prompt
// emails are not sent. The connection's presence row is written before the
// backlog is read: on Postgres the database announces only what a
// connection follows.
func (s *Server) streamNotifications(c *gin.Context) {
	if s.notify == nil || s.notify.Hub == nil {
		writeError(c, errNotifyOff)
		return
	}
	after, err := lastEventID(c)
	if err != nil {
		writeError(c, err)
		return
	}
	uid := userID(c)
	sub := s.notify.Hub.Subscribe(notifier.UserTopic(strconv.FormatInt(uid, 10)))
	defer sub.Close()
	if p := s.notify.Presence; p != nil {
		leave, err := p.Enter(c.Request.Context(), uid)
		defer leave()
		if err != nil {
			writeError(c, err)
			return
		}
	}
	stored, err := s.store.NotificationsAfter(c.Request.Context(), uid, after, streamBacklog)
	if err != nil {
		writeError(c, err)
		return
	}
	if s.notify.Outbox != nil {
		stored = s.notify.Outbox.Complete(c.Request.Context(), stored)
	}
	backlog := make([]notifier.Event, 0, len(stored))
	for _, n := range stored {
		backlog = append(backlog, notifier.NotificationEvent(n))
	}
	s.serveStream(c, sub, notifier.StreamOptions{Backlog: backlog, After: after})
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
// seat's as it is then.
func (s *Server) streamGame(c *gin.Context) {
	if s.notify == nil || s.notify.Hub == nil {
		writeError(c, errNotifyOff)
		return
	}
	g, seat, err := s.loadVisible(c)
	if err != nil {
		writeError(c, err)
		return
	}
	after, err := lastEventID(c)
	if err != nil {
		writeError(c, err)
		return
	}
	ctx, uid := c.Request.Context(), userID(c)
	sub := s.notify.Hub.Subscribe(notifier.GameSeatTopic(g.ID, seat))
	defer func() { sub.Close() }()
	if p := s.notify.Presence; p != nil {
		leave, err := p.EnterGame(ctx, uid, g.ID)
		defer leave()
		if err != nil {
			writeError(c, err)
			return
		}
	}
	var ref models.GameRef
	for tries := 0; ; tries++ {
		if ref, err = s.store.GameRef(ctx, g.ID, uid, ""); err != nil {
			writeError(c, err)
			return
		}
		if ref.Seat < 0 && !ref.Public {
			writeError(c, models.ErrNotFound) // no longer a player of a private game
			return
		}
		if ref.Seat == seat {
			break
		}
		if tries == 3 {
			writeError(c, errSeatChanging)
			return
		}
		sub.Close()
		seat = ref.Seat
		sub = s.notify.Hub.Subscribe(notifier.GameSeatTopic(g.ID, seat))
	}
	recs, err := s.store.EventsAfter(ctx, g.ID, after, streamBacklog)
	if err != nil {
		writeError(c, err)
		return
	}
	backlog := make([]notifier.Event, 0, len(recs))
	for _, r := range recs {
		if r.Version > ref.Version {
			break // committed after the seat was read: it comes live, with its holders
		}
		if ev, ok := notifier.GameEvent(r, seat); ok {
			backlog = append(backlog, ev)
		}
	}
	s.serveStream(c, sub, notifier.StreamOptions{Backlog: backlog, After: after, Viewer: uid, Seat: seat})
}

// errSeatChanging: the caller's seat kept changing while the stream opened.
var errSeatChanging = conflict("seat_changing", "your seat changed while the stream opened; connect again")

func (s *Server) serveStream(c *gin.Context, sub *notifier.Subscription, opts notifier.StreamOptions) {
	c.Header("X-Accel-Buffering", "no")
	if router.IsHead(c.Request) {
		notifier.NewSSEWriter(c.Writer, 0) // the stream's headers, and no stream
		return
	}
	err := notifier.ServeSSE(c.Request.Context(), c.Writer, sub, opts)
	if err != nil && !errors.Is(err, c.Request.Context().Err()) && !errors.Is(err, notifier.ErrStreamLagged) &&
		!errors.Is(err, notifier.ErrStreamClosed) && !errors.Is(err, notifier.ErrSeatChanged) {
		s.log.Warn("stream", "error", err)
	}
}

package api

import (
	"context"
	"errors"
	"strconv"
	"time"

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
// emails are not sent.
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
		if err != nil {
			s.log.Warn("live stream presence", "user_id", uid, "error", err)
		}
		defer leave()
	}
	// Notification ids come from one sequence for all users, so a change
	// may commit after another that took a later id: the log counts as
	// settled up to the last entry older than streamSettle.
	read := func(ctx context.Context, from int64) ([]notifier.Event, int64, error) {
		stored, err := s.store.NotificationsAfter(ctx, uid, from, streamBacklog)
		if err != nil {
			return nil, from, err
		}
		evs, settled, old := make([]notifier.Event, 0, len(stored)), from, s.now().Add(-streamSettle)
		prefix := true // the entries so far are all old enough
		for _, n := range stored {
			evs = append(evs, notifier.NotificationEvent(n))
			if prefix = prefix && n.CreatedAt.Before(old); prefix {
				settled = n.ID
			}
		}
		return evs, settled, nil
	}
	s.serveStream(c, sub, after, read)
}

// streamGame is one game's events as Server-Sent Events, redacted for the
// caller (a spectator of a public game sees the public events).
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
	sub := s.notify.Hub.Subscribe(notifier.GameSeatTopic(g.ID, seat))
	defer sub.Close()
	// A game's events are numbered under its row lock, in commit order:
	// the log is settled up to the last one read.
	read := func(ctx context.Context, from int64) ([]notifier.Event, int64, error) {
		recs, err := s.store.EventsAfter(ctx, g.ID, from, streamBacklog)
		if err != nil {
			return nil, from, err
		}
		evs, settled := make([]notifier.Event, 0, len(recs)), from
		for _, r := range recs {
			if ev, ok := notifier.GameEvent(r, seat); ok {
				evs = append(evs, ev)
			}
			settled = r.Seq
		}
		return evs, settled, nil
	}
	s.serveStream(c, sub, after, read)
}

// streamSettle is how old a stored notification must be to count as
// settled: no notification with a smaller id commits later than that.
const streamSettle = 5 * time.Second

// serveStream sends the stored log after the client's resume point, then
// live events, and reads the log again every s.notify.StreamPoll for any
// event whose live announcement was lost.
func (s *Server) serveStream(c *gin.Context, sub *notifier.Subscription, after int64,
	read func(ctx context.Context, from int64) ([]notifier.Event, int64, error)) {
	backlog, settled, err := read(c.Request.Context(), after)
	if err != nil {
		writeError(c, err)
		return
	}
	c.Header("X-Accel-Buffering", "no")
	err = notifier.ServeSSE(c.Request.Context(), c.Writer, sub, notifier.StreamOptions{Backlog: backlog, After: after,
		Poll: read, PollFrom: settled, PollEvery: s.notify.StreamPoll})
	if err != nil && !errors.Is(err, c.Request.Context().Err()) && !errors.Is(err, notifier.ErrStreamLagged) &&
		!errors.Is(err, notifier.ErrStreamClosed) {
		s.log.Warn("stream", "error", err)
	}
}

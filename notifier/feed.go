package notifier

import (
	"context"
	"errors"
	"strconv"

	"github.com/datamonsters/turns/models"
)

// Feed is where a stream's events come from when they are read from a
// stored log in an order that a notice cannot give (see ServeSSE):
// Next returns the events after those it returned before, and again
// when it should be asked again without waiting for a notice (a full
// page, or rows stored that cannot be read yet).
type Feed interface {
	Next(ctx context.Context) (evs []Event, again bool, err error)
}

// NotificationFeed is one user's notification log for their live stream,
// read in the log's order (models.Store.NotificationsFrom) from where the
// client left it. What it has returned is always a prefix of the log
// that stays one, so a client that resumes after the last id it got
// misses nothing and gets nothing twice, whatever order the changes
// that wrote the rows committed in.
type NotificationFeed struct {
	store  *models.Store
	outbox *Outbox // builds the bodies left to complete (Complete); nil: none
	user   int64
	at     models.NoteCursor
}

// OpenNotificationFeed is the feed of user's notifications after their
// notification after (0: from the start), or a *ResumeError when after
// is not one of theirs. outbox may be nil.
func OpenNotificationFeed(ctx context.Context, store *models.Store, outbox *Outbox, user, after int64) (*NotificationFeed, error) {
	f := &NotificationFeed{store: store, outbox: outbox, user: user}
	if after == 0 {
		return f, nil
	}
	at, err := store.NoteCursorAt(ctx, user, after)
	if errors.Is(err, models.ErrNotFound) {
		return nil, &ResumeError{ID: strconv.FormatInt(after, 10)}
	}
	f.at = at
	return f, err
}

// Next returns the notifications after those it returned before, at most
// StreamBacklog, as events; again when there are more now or stored ones
// that cannot be read yet.
func (f *NotificationFeed) Next(ctx context.Context) ([]Event, bool, error) {
	ns, at, waiting, err := f.store.NotificationsFrom(ctx, f.user, f.at, StreamBacklog)
	if err != nil {
		return nil, false, err
	}
	f.at = at
	if f.outbox != nil {
		ns = f.outbox.Complete(ctx, ns)
	}
	evs := make([]Event, len(ns))
	for i, n := range ns {
		evs[i] = NotificationEvent(n)
	}
	return evs, waiting || len(ns) == StreamBacklog, nil
}

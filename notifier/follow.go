package notifier

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
)

// DefaultStreamsPerClient is how many live streams one client (an account,
// or a visitor's address) may hold open in one process at once: a player's
// tabs and a bot that follows each of its games stay well under it; a
// client opening streams by the thousand, each holding a goroutine, a
// presence row and a heartbeat, is refused.
const DefaultStreamsPerClient = 32

// Admit counts one more live stream of client who ("user:7", "addr:…"),
// or refuses it when who holds the most already (a Conflict, code
// too_many_streams: no wait lets it through, closing a stream does).
// release ends it, when the stream closes; a second call does nothing.
// The count is this process's: behind a balancer each process keeps its
// own.
func (h *Hub) Admit(who string) (release func(), err error) {
	most := h.StreamsPerClient
	if most <= 0 {
		most = DefaultStreamsPerClient
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open[who] >= most {
		return nil, refusal.New(refusal.Conflict, "too_many_streams",
			"%d live streams are open for you on this server, the most it keeps; close one (a tab, a client) first", most)
	}
	if h.open == nil {
		h.open = map[string]int{}
	}
	h.open[who]++
	done := false
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if done {
			return
		}
		done = true
		if h.open[who]--; h.open[who] <= 0 {
			delete(h.open, who)
		}
	}, nil
}

// ClientKey names a client for Admit: an account (user > 0), else a
// visitor signed in nowhere by their address.
func ClientKey(user int64, addr string) string {
	if user > 0 {
		return "user:" + strconv.FormatInt(user, 10)
	}
	return "addr:" + addr
}

// GameStream is a game's live stream as it opens (OpenGameStream): the
// subscription for the reader's seat, and the stored events to send
// before live ones. Close it when the client goes away.
type GameStream struct {
	Sub     *Subscription
	Seat    int     // the reader's seat (-1: a spectator's view)
	Backlog []Event // the stored events after the resume point, up to the version at which Seat was read, as Seat sees them
	// More returns the next page of them when Backlog holds only the
	// first StreamBacklog, and none once all are returned (see
	// StreamOptions.More).
	More func(context.Context) ([]Event, error)
	ends []func()

	store      *models.Store
	game, user int64
	// caught is the last Catch that found nothing: after seq last, up
	// to version. Asked the same at the same version, Catch reads no
	// events.
	caught struct{ last, version int64 }
	// session and good, when good is set (CheckAccess), check the
	// reader's access token along Catch's read of the game.
	session string
	good    func(models.GameRef) bool
}

// CheckAccess makes Catch check the access token the stream was opened
// with, with its read of the game at every heartbeat: that read carries
// the user's token generation and whether session (the one the token
// names) is live, and good says from them whether the token still is;
// when it says no, Catch returns ErrStreamUnauthorized. The stream then
// needs no StreamOptions.Authorized, and a heartbeat makes one read
// instead of two. good should say yes only for a token that is good.
func (s *GameStream) CheckAccess(session string, good func(models.GameRef) bool) {
	s.session, s.good = session, good
}

// Catch returns the stored events after seq last, up to the game's
// version now, as the stream's seat sees them, a page at a time (none
// once there are no more): for StreamOptions.Catch, which asks at every
// heartbeat, so that a change announced to no process reaches the
// stream all the same. It reads the game's row, and its events only when
// the game or last moved since the last call that found none; call it
// from one goroutine at a time. ErrSeatChanged when the reader no longer
// holds Seat (or may no longer read a private game): the client connects
// again. ErrStreamUnauthorized when the access token it checks
// (CheckAccess) ended.
func (s *GameStream) Catch(ctx context.Context, last int64) ([]Event, error) {
	ref, err := s.store.GameRef(ctx, s.game, s.user, s.session)
	switch {
	case s.good != nil && (err == nil || errors.Is(err, models.ErrNotFound)) && !s.good(ref):
		return nil, ErrStreamUnauthorized // the token first, as a request checks it
	case errors.Is(err, models.ErrNotFound):
		return nil, ErrSeatChanged
	case err != nil:
		return nil, err
	case ref.Seat != s.Seat || ref.Seat < 0 && !ref.Public:
		return nil, ErrSeatChanged
	}
	if s.caught.last == last && s.caught.version == ref.Version {
		return nil, nil
	}
	evs, more, err := backlog(ctx, s.store, s.game, s.Seat, last, ref.Version)
	if err == nil && len(evs) == 0 {
		evs, err = more(ctx) // the first page may hold none the seat sees
	}
	if err == nil && len(evs) == 0 {
		s.caught.last, s.caught.version = last, ref.Version
	}
	return evs, err
}

// Close ends the subscription, the presence row and the stream's count.
func (s *GameStream) Close() {
	s.Sub.Close()
	for _, end := range s.ends {
		end()
	}
}

// ErrSeatChanging refuses a game stream whose reader's seat kept changing
// while it opened: the client connects again.
var ErrSeatChanging = refusal.New(refusal.Conflict, "seat_changing", "your seat changed while the stream opened; connect again")

// OpenGameStream opens game's live stream for user (0: a visitor), who
// held seat (-1: none) when the caller read the game, counted as client
// who (see Hub.Admit), with a presence row when presence is set. Every
// door's game stream opens this way, in this order: the subscription for
// the seat first, then the presence row (on Postgres a change announces
// its events only to games that someone follows), then the seat read
// again, so that every change committed after that read reaches the
// subscription with its holders; if the seat changed meanwhile the
// subscription moves to the new one (three times at most, then
// ErrSeatChanging). A user who no longer holds a seat of a private game
// gets models.ErrNotFound. The backlog is the stored events after after
// (Resumed: a *ResumeError when after names no event of the game) up to
// the version of that read, redacted for the seat; later ones were
// committed after it and come live, with their change's holders, or, for
// a change that announced them to no process, at the stream's next
// heartbeat (Catch).
func OpenGameStream(ctx context.Context, hub *Hub, presence *Presence, store *models.Store, game, user int64, seat int, after int64, who string) (*GameStream, error) {
	release, err := hub.Admit(who)
	if err != nil {
		return nil, err
	}
	s := &GameStream{Sub: hub.Subscribe(GameSeatTopic(game, seat)), Seat: seat, ends: []func(){release},
		store: store, game: game, user: user}
	fail := func(err error) (*GameStream, error) {
		s.Close()
		return nil, err
	}
	if presence != nil {
		leave, err := presence.EnterGame(ctx, user, game)
		s.ends = append(s.ends, leave)
		if err != nil {
			return fail(err)
		}
	}
	for tries := 0; ; tries++ {
		ref, err := store.GameRef(ctx, game, user, "")
		switch {
		case err != nil:
			return fail(err)
		case ref.Seat < 0 && !ref.Public:
			return fail(fmt.Errorf("game %d: no longer a player: %w", game, models.ErrNotFound))
		case ref.Seat == s.Seat:
			if s.Backlog, s.More, err = backlog(ctx, store, game, s.Seat, after, ref.Version); err != nil {
				return fail(err)
			}
			return s, nil
		case tries == 3:
			return fail(ErrSeatChanging)
		}
		s.Sub.Close()
		s.Seat = ref.Seat
		s.Sub = hub.Subscribe(GameSeatTopic(game, s.Seat))
	}
}

// backlog is the game's stored events after after, up to version, as
// seat sees them: the first StreamBacklog, and more, which returns the
// next ones a page at a time (none once they are all returned). A
// stream that sent only the first page and then live ones left out the
// rest for good: the client's last id was a live one.
func backlog(ctx context.Context, store *models.Store, game int64, seat int, after, version int64) ([]Event, func(context.Context) ([]Event, error), error) {
	recs, err := store.EventsAfter(ctx, game, max(after-1, 0), StreamBacklog+1)
	if err != nil {
		return nil, nil, err
	}
	if recs, err = Resumed(recs, after, func(r models.EventRecord) int64 { return r.Seq }); err != nil {
		return nil, nil, err
	}
	page := func(recs []models.EventRecord) (out []Event, last int64, done bool) {
		for _, r := range recs {
			if r.Version > version {
				return out, last, true
			}
			if ev, ok := GameEvent(r, seat); ok {
				out = append(out, ev)
			}
			last = r.Seq
		}
		return out, last, len(recs) < StreamBacklog
	}
	first, last, done := page(recs)
	more := func(ctx context.Context) ([]Event, error) {
		for !done {
			recs, err := store.EventsAfter(ctx, game, last, StreamBacklog)
			if err != nil {
				return nil, err
			}
			var evs []Event
			if evs, last, done = page(recs); len(evs) > 0 {
				return evs, nil
			}
		}
		return nil, nil
	}
	return first, more, nil
}

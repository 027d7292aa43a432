package play

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/bounded"
	"github.com/datamonsters/turns/models"
)

// Service is the play path over one store. Build it with New; it is safe
// for concurrent use.
type Service struct {
	log     *slog.Logger
	store   *models.Store
	cat     *engine.Catalog
	now     func() time.Time
	states  *stateCache                   // parsed states of recently changed games
	replays *bounded.Map[int64, replayed] // the last replay of a few games (Replay)
	logs    *bounded.Map[int64, []Event]  // the last events of the games read lately (Events)
	talks   *bounded.Map[talkKey, *Talk]  // the talk of the boards read lately (LatestMessagesIn)
}

// New returns the play path over store. now is the clock (nil: time.Now),
// read to the microsecond in UTC, as the store keeps times, so that a row
// a change leaves is the row a read finds; log takes the debug lines of
// the bot's moves (nil: none).
func New(store *models.Store, now func() time.Time, log *slog.Logger) *Service {
	clock := now
	if clock == nil {
		clock = time.Now
	}
	now = func() time.Time { return clock().UTC().Truncate(time.Microsecond) }
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{log: log, store: store, cat: engine.Standard(), now: now, states: newStateCache(4096),
		replays: bounded.New[int64, replayed](maxReplays), logs: bounded.New[int64, []Event](2048),
		talks: bounded.New[talkKey, *Talk](maxTalks)}
}

// Store is the store the service plays on.
func (s *Service) Store() *models.Store { return s.store }

// Record is the idempotency record a front door stores with a change, in
// the change's transaction: Make builds it from the change's result (nil
// stores none) once the change's events have their sequence numbers. A key
// already stored makes the change fail with models.ErrConflict, and nothing
// of it is written; a change that fails while a copy of the request with
// Key stored its record meanwhile fails with models.ErrKeyStored (see
// models.Store.MutateKeyed), whose record is then the answer.
type Record struct {
	Key  models.Key
	Make func(*Result) (*models.Idempotency, error)
	// Answered says that the door answers the caller itself with the board
	// the change leaves (an email reply's answer, which is a decision email
	// of its own): the change then sends them no turn or prompt email.
	Answered bool
	// Token is the request's access token, for the change to check along
	// its lock of the game (models.TokenCheck); nil when the door checked
	// it already. A Record may carry it alone, with no Key.
	Token *models.TokenCheck
}

// Result is a change as it is recorded.
type Result struct {
	Game  *models.Game  // the game as written, with its seats
	Seat  int           // the caller's seat after the change; -1 for none and for the service
	State *engine.State // the engine state after the change; nil before the start
	// Message is the message a Say posted, and Rate the bucket of the
	// poster's messages in the game after it; nil and zero for other
	// changes.
	Message *Said
	Rate    models.RateState

	ch     *models.Change
	events []engine.Event
	keep   func() // hands State to the cache
}

// Event is an engine event of a change, unredacted, with its place in the
// game's event log.
type Event struct {
	Seq     int64
	Version int64
	At      time.Time
	engine.Event
}

// Events returns the change's events with their sequence numbers, in the
// order the engine emitted them (none for a lobby change). Redact each for
// its reader with For.
func (r *Result) Events() []Event {
	out := make([]Event, len(r.events))
	for i, e := range r.events {
		rec := r.ch.Events[i]
		out[i] = Event{Seq: rec.Seq, Version: rec.Version, At: rec.CreatedAt, Event: e}
	}
	return out
}

// News is what changed for seat (-1: a spectator) in the events made by
// the changes after version since, in sentences worded for the seat by
// engine.News: the banner of its board. Its emails open with the same
// sentences (notifier.News).
// events are a game's events in order (others than those after since
// are skipped); t is the game's table (engine.State.Table), for its
// players' names and its card set. Nothing new gives nil.
func News(t engine.Table, seat int, events []Event, since int64) []string {
	var evs []engine.Event
	for _, e := range events {
		if e.Version > since {
			evs = append(evs, e.Event)
		}
	}
	if len(evs) == 0 {
		return nil
	}
	return t.News(seat, evs)
}

// Done hands State back to the service, so that the next change or read of
// the game starts from it without decoding the snapshot. Call it once
// nothing reads State or what was built from it any more (a view shares
// some of its memory), for example once a response is written. A Result
// never handed back costs only that decoding.
func (r *Result) Done() {
	if r != nil && r.keep != nil {
		r.keep()
		r.keep = nil
	}
}

// mutation is one operation on a locked game: it changes g in place for
// the caller's seat (-1: none, or the service) and returns what else to
// write and the result to give back.
type mutation func(g *models.Game, seat int) (*models.Change, *Result, error)

// change runs fn on game id, locked, in one store transaction, for user
// uid (0: the service itself), and records what it returns with rec's
// idempotency record. A private game the user has no seat in is
// models.ErrNotFound. It is the one way every operation changes a game.
func (s *Service) change(ctx context.Context, id, uid int64, rec *Record, fn mutation) (*Result, error) {
	var res *Result
	var key models.Key
	var tok *models.TokenCheck
	if rec != nil {
		key, tok = rec.Key, rec.Token
	}
	// The state cache's version of the game spares reading the snapshot
	// when it is still current; takeState reads it otherwise.
	_, err := s.store.MutateKeyed(ctx, id, s.states.version(id), key, tok, func(g *models.Game) (*models.Change, error) {
		seat := -1
		if uid != 0 {
			if seat = g.SeatOf(uid); seat < 0 && !g.Public {
				return nil, models.ErrNotFound
			}
		}
		ch, r, err := fn(g, seat)
		if err != nil {
			return nil, err
		}
		if ch == nil {
			ch = &models.Change{}
		}
		if rec != nil && rec.Answered && seat >= 0 {
			ch.Happened.Answered = append(ch.Happened.Answered, seat)
		}
		r.ch, res = ch, r
		if rec != nil && rec.Make != nil {
			ch.Record = func() (*models.Idempotency, error) { return rec.Make(res) }
		}
		return ch, nil
	})
	if err != nil {
		return nil, err
	}
	if keep := res.keep; keep != nil {
		// The committed row goes into the cache beside the state.
		row := s.store.Row(res.Game)
		res.keep = func() { keep(); s.states.keepGame(row) }
	}
	s.remember(id, res)
	return res, nil
}

// lobby is a change of a game that has not started: fn changes the game
// and its seats, and the version goes up by one.
func (s *Service) lobby(ctx context.Context, id, uid int64, rec *Record, fn func(g *models.Game, seat int) error) (*Result, error) {
	return s.lobbyOf(ctx, id, uid, false, rec, fn)
}

// lobbyOf is lobby; with invited, the user may change a private game they
// have no seat in (they hold an invitation to it, which the caller checked).
func (s *Service) lobbyOf(ctx context.Context, id, uid int64, invited bool, rec *Record, fn func(g *models.Game, seat int) error) (*Result, error) {
	caller := uid
	if invited {
		caller = 0 // the invitation stands for the game's visibility
	}
	return s.change(ctx, id, caller, rec, func(g *models.Game, _ int) (*models.Change, *Result, error) {
		if err := fn(g, seatOf(g, uid)); err != nil {
			return nil, nil, err
		}
		g.Version++
		return &models.Change{}, &Result{Game: g, Seat: seatOf(g, uid)}, nil
	})
}

// seatOf is the seat of uid in g, -1 for none and for the service.
func seatOf(g *models.Game, uid int64) int {
	if uid == 0 {
		return -1
	}
	return g.SeatOf(uid)
}

// takeState returns the engine state of g at its version (nil before the
// start), from the state cache when it holds that version, else decoded
// from the snapshot. The caller owns it: it is no longer in the cache, and
// goes back with states.put once the caller is done with it.
func (s *Service) takeState(g *models.Game) (*engine.State, error) {
	if st := s.states.take(g.ID, g.Version); st != nil {
		return st, nil
	}
	data, err := g.Snapshot()
	if err != nil || data == nil {
		return nil, err
	}
	return engine.Unmarshal(data)
}

// Game returns game id and user uid's seat in it (-1 for none), without
// its snapshot; a private game the user has no seat in is
// models.ErrNotFound.
func (s *Service) Game(ctx context.Context, id, uid int64) (*models.Game, int, error) {
	return s.visible(ctx, id, uid)
}

// GameChecked is Game checking the browser session chk (nil for none) in
// the game's read (models.SessionCheck), so that a page polling a game
// spends one statement on both.
func (s *Service) GameChecked(ctx context.Context, id, uid int64, chk *models.SessionCheck) (*models.Game, int, error) {
	return s.visibleChecked(ctx, id, uid, chk)
}

// Ref returns what names the version of game id as user uid sees it (see
// models.GameRef), with one small query: enough to answer a read from a
// cache of responses; session is the login session the request's access
// token names ("" for none), whose state is read along. A private game the
// user has no seat in is models.ErrNotFound.
func (s *Service) Ref(ctx context.Context, id, uid int64, session string) (models.GameRef, error) {
	ref, err := s.store.GameRef(ctx, id, uid, session)
	if err == nil && ref.Seat < 0 && !ref.Public {
		err = models.ErrNotFound
	}
	return ref, err
}

// Read calls fn with game id as user uid sees it (seat -1: a spectator of
// a public game) and its engine state at the game's version (nil before
// the start): the state the last change left when it is still current,
// else decoded from the snapshot. The state is lent for the call: fn must
// not change it, nor keep it or anything built from it (a view shares its
// memory) after it returns.
func (s *Service) Read(ctx context.Context, id, uid int64, fn func(g *models.Game, seat int, st *engine.State) error) error {
	return s.ReadChecked(ctx, id, uid, nil, fn)
}

// ReadChecked is Read checking the browser session chk (nil for none)
// along the game's read, when the state is cached (the read of the game
// without its snapshot, models.SessionCheck); chk.Checked says whether it
// was.
func (s *Service) ReadChecked(ctx context.Context, id, uid int64, chk *models.SessionCheck, fn func(g *models.Game, seat int, st *engine.State) error) error {
	cached := s.states.version(id)
	st := s.states.take(id, cached)
	var g *models.Game
	var seat int
	var err error
	if st != nil {
		// The game without its snapshot: the state stands for it, if the
		// game has not moved on meanwhile.
		if g, seat, err = s.visibleChecked(ctx, id, uid, chk); err == nil && g.Version != cached {
			s.states.put(id, cached, st)
			st = nil
		}
	}
	if st == nil && err == nil {
		if g, err = s.store.Game(ctx, id); err == nil {
			if seat = g.SeatOf(uid); seat < 0 && !g.Public {
				err = models.ErrNotFound
			}
		}
		if err == nil {
			st, err = s.takeState(g)
		}
	}
	if err != nil {
		s.states.put(id, cached, st)
		return err
	}
	row := s.store.Row(g)
	defer func() { s.states.put(g.ID, g.Version, st); s.states.keepGame(row) }()
	return fn(g, seat, st)
}

// ReadAt is Read for a caller that holds the game's reference, read for
// user uid (Ref, which checked that the user may see the game): when the
// state cache holds the game's row and state at the reference's version
// and deadline, fn gets them with no query.
func (s *Service) ReadAt(ctx context.Context, ref models.GameRef, id, uid int64, fn func(g *models.Game, seat int, st *engine.State) error) error {
	if g := s.states.game(id, ref.Version, ref.DeadlineAt); g != nil {
		if st := s.states.take(id, ref.Version); st != nil {
			defer s.states.put(id, ref.Version, st)
			return fn(g, ref.Seat, st)
		}
	}
	return s.Read(ctx, id, uid, fn)
}

// ErrNoState is wrapped by StateAt and Replay for a version of a game
// whose state cannot be had: before the start, after the current
// version, or in a log that does not replay.
var ErrNoState = errors.New("play: no such state")

// StateAt returns the engine state of game id at version, the caller's to
// change: a copy of the cached state or the snapshot while the game is
// still at that version, else the state Replay rebuilds. The outbox builds
// the notifications of a change from it.
func (s *Service) StateAt(ctx context.Context, id, version int64) (*engine.State, error) {
	if st := s.copyCached(id, version); st != nil {
		return st, nil
	}
	g, err := s.store.GameNoState(ctx, id)
	if err != nil {
		return nil, err
	}
	cur := s.copyCached(id, g.Version)
	if cur == nil {
		data, err := g.Snapshot()
		if err != nil {
			return nil, err
		}
		if data == nil {
			return nil, fmt.Errorf("%w: game %d has not started", ErrNoState, id)
		}
		if cur, err = engine.Unmarshal(data); err != nil {
			return nil, err
		}
	}
	if g.Version == version {
		return cur, nil
	}
	return s.Replay(ctx, g, cur, version)
}

// copyCached returns a copy of the cached state of game id at version, or
// nil; the cache keeps its own.
func (s *Service) copyCached(id, version int64) *engine.State {
	st := s.states.take(id, version)
	if st == nil {
		return nil
	}
	defer s.states.put(id, version, st)
	return st.Clone()
}

// Replay rebuilds the engine state of game g at version from its setup,
// the secret the current state cur holds and its action log: the state a
// notification or an email written at that version was built from. A
// version before the start, after the current one, or a log that does not
// replay is an error.
func (s *Service) Replay(ctx context.Context, g *models.Game, cur *engine.State, version int64) (*engine.State, error) {
	switch {
	case version > g.Version || g.StartedAt == nil:
		return nil, fmt.Errorf("%w: version %d of game %d", ErrNoState, version, g.ID)
	case cur.Secret.IsZero() || cur.Resealed != 0:
		// Stored before secrets, or given one since: its first shuffles
		// came from a seed that the log does not hold.
		return nil, fmt.Errorf("%w: game %d was dealt before secrets; its log does not replay", ErrNoState, g.ID)
	}
	if first, err := s.store.EventsAfter(ctx, g.ID, 0, 1); err != nil {
		return nil, err
	} else if len(first) == 0 || version < first[0].Version {
		// The start's events are the game's first: before, there is no state.
		return nil, fmt.Errorf("%w: version %d of game %d is before its start", ErrNoState, version, g.ID)
	}
	var st *engine.State
	var from int64
	if kept, ok := s.replays.Get(g.ID); ok && kept.version <= version {
		st, from = kept.st.Clone(), kept.version
	} else {
		setup, err := s.SetupOf(g)
		if err != nil {
			return nil, err
		}
		setup.Secret, setup.Salt = cur.Secret, cur.Salt
		if st, _, err = engine.NewGame(setup); err != nil {
			return nil, err
		}
	}
	recs, err := s.store.Actions(ctx, g.ID)
	if err != nil {
		return nil, err
	}
	i := 0
	for i < len(recs) && recs[i].Version <= from {
		i++ // replayed already
	}
	j := i
	for j < len(recs) && recs[j].Version <= version {
		j++
	}
	log, err := loggedActions(recs[i:j])
	if err != nil {
		return nil, err
	}
	if st, err = engine.Replay(st, log, nil); err != nil {
		return nil, fmt.Errorf("%w: replay of game %d: %w", ErrNoState, g.ID, err)
	}
	s.replays.Put(g.ID, replayed{version, st.Clone()})
	return st, nil
}

// replayed is the last state Replay rebuilt of a game, kept (a few games'
// in Service.replays) so that the next replay of the game (the
// notifications of its later changes, worked one after another after a
// restart) goes on from it instead of from the start. The state is only
// ever copied, in and out.
type replayed struct {
	version int64
	st      *engine.State
}

// maxReplays is the most games whose last replay is kept.
const maxReplays = 64

package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/engine"
	"gorm.io/gorm"
)

// Game statuses.
const (
	StatusOpen      = "open"      // waiting for players to join
	StatusActive    = "active"    // started
	StatusOver      = "over"      // ended by the rules, a vote or resignations
	StatusCancelled = "cancelled" // cancelled before it started
)

// Game is a stored game. Version grows by one with every change, lobby
// changes included. State is the engine's snapshot (nil before the start).
type Game struct {
	ID         int64
	CreatedBy  int64
	Status     string
	Public     bool
	Mode       string
	Office     bool
	Policy     string
	Players    int    // number of seats
	Settings   string // JSON; the store does not interpret it
	Version    int64
	EventSeq   int64 // seq of the last event
	ActionSeq  int64 // seq of the last action
	State      []byte
	Winners    string     // comma-separated seat numbers; "" until the end
	DeadlineAt *time.Time // when the awaited seats run out of time; nil: no deadline
	// ClockFrom is when the stretch of the clock that ends at DeadlineAt
	// started, and ClockAt when the game's pending reminder job runs (nil:
	// none); the outbox keeps both (see notifier's clock).
	ClockFrom *time.Time
	ClockAt   *time.Time
	// DeadlineQuiet are the seats (comma-separated numbers) whose players'
	// quiet hours moved DeadlineAt to their end; "" when the clock set it
	// as it is. See QuietSeats.
	DeadlineQuiet string
	// TalkSeq grows by one with every message posted to the game's table
	// talk and every mute or unmute of it, in the transaction of that
	// change (the version does not move): a read of the talk made at
	// one TalkSeq and version is current while the game row has both.
	TalkSeq   int64
	CreatedAt time.Time
	UpdatedAt time.Time
	StartedAt *time.Time
	EndedAt   *time.Time

	Seats []Seat `gorm:"-"` // in seat order

	// loadState reads the snapshot when the game was loaded without it
	// (GameNoState, MutateCached); see Snapshot.
	loadState func() ([]byte, error)
	// seatUsers are the seats' users as recipients, when read with the
	// game (MutateCached with an outbox); see RecipientsOf.
	seatUsers map[int64]recipientRow
	// quietHours reads users' quiet hours in the transaction of the
	// change that loaded the game; see QuietHours.
	quietHours func(ids []int64) (map[int64]QuietHours, error)
	// session is the browser session checked along the read
	// (GameNoStateChecked): its account's updated_at while it is live.
	session *time.Time
	// token is the access token's check read along the lock
	// (TokenCheck): the user's token generation (-1: no such user) and
	// whether the session is live; nil when none was read.
	token *tokenState
}

// tokenState is what an access token is checked against (AccessCheck).
type tokenState struct {
	gen  int64
	live bool
}

// Snapshot returns the engine snapshot (nil before the start): State, or
// when the game was loaded without it, the stored snapshot of the version
// loaded, which it reads now and keeps in State. A game that has moved past
// that version since gives ErrStale.
func (g *Game) Snapshot() ([]byte, error) {
	if g.State == nil && g.loadState != nil {
		data, err := g.loadState()
		if err != nil {
			return nil, err
		}
		g.State, g.loadState = data, nil
	}
	return g.State, nil
}

// GameSettings is what a game's Settings JSON holds: its clocks, its
// timeout rule, and whether spectators read the table talk.
type GameSettings struct {
	TurnDeadlineSeconds   int    `json:"turn_deadline_seconds"`
	PromptDeadlineSeconds int    `json:"prompt_deadline_seconds"`
	TimeoutLimit          int    `json:"timeout_limit,omitempty"` // consecutive timeouts before OnTimeouts; 0: never
	OnTimeouts            string `json:"on_timeouts,omitempty"`   // "bot" or "forfeit"
	// SpectatorMessages shows the players' public messages to the
	// spectators of a public game; false (the default): players only.
	SpectatorMessages bool `json:"spectator_messages,omitempty"`
	// IgnoreQuietHours keeps a deadline where the clock sets it, in the
	// quiet hours of the player it awaits; false (the default): it moves
	// to their end.
	IgnoreQuietHours bool `json:"ignore_quiet_hours,omitempty"`
}

// Turn is the time a player has for a turn.
func (s GameSettings) Turn() time.Duration { return time.Duration(s.TurnDeadlineSeconds) * time.Second }

// Prompt is the time a player has to answer a prompt.
func (s GameSettings) Prompt() time.Duration {
	return time.Duration(s.PromptDeadlineSeconds) * time.Second
}

// SettingsOf decodes g.Settings; settings it cannot read are zero.
func (g *Game) SettingsOf() GameSettings {
	var st GameSettings
	json.Unmarshal([]byte(g.Settings), &st)
	return st
}

// ErrStale means a game changed between two reads outside a transaction.
var ErrStale = errors.New("game changed meanwhile")

// TableName is the games table.
func (Game) TableName() string { return "games" }

// Seat is one seat of a game. An open seat has no UserID; an invited seat has
// one but is not Joined until the invitee joins with a deck.
type Seat struct {
	GameID   int64 `gorm:"primaryKey;autoIncrement:false"`
	SeatNo   int   `gorm:"primaryKey;autoIncrement:false"`
	UserID   *int64
	Username string
	Invited  bool
	Joined   bool
	Deck     *string // deck list JSON, once joined
	Awaited  bool    // the game waits for this seat (its turn, or a prompt)
	JoinedAt *time.Time
	Bot      string // why the service plays this seat (BotFromStart, BotTakeover); "" for a person
	Timeouts int    // the seat's run of consecutive timeouts
	BotSince int64  // the version at which the bot took the seat over (Bot BotTakeover); 0 otherwise
}

// Bot seat reasons.
const (
	BotFromStart = "start"    // created as a bot seat
	BotTakeover  = "timeouts" // taken over after repeated timeouts
)

// TableName is the seats table.
func (Seat) TableName() string { return "seats" }

// SeatOf returns the seat number of userID, or -1 if the user has no seat.
func (g *Game) SeatOf(userID int64) int {
	for _, s := range g.Seats {
		if s.UserID != nil && *s.UserID == userID {
			return s.SeatNo
		}
	}
	return -1
}

// Holders returns, by seat number, the user holding each seat (0 for
// none: an open seat or a bot's). A change announces its events to the
// live stream with the holders it leaves, so that a stream follows its
// subscriber's seat as it is at each event.
func (g *Game) Holders() []int64 {
	out := make([]int64, len(g.Seats))
	for _, s := range g.Seats {
		if s.UserID != nil && s.SeatNo >= 0 && s.SeatNo < len(out) {
			out[s.SeatNo] = *s.UserID
		}
	}
	return out
}

// WinnerSeats returns the winners' seat numbers.
func (g *Game) WinnerSeats() []int {
	var out []int
	for _, f := range strings.Split(g.Winners, ",") {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// ActionRecord is one entry of the append-only action log.
type ActionRecord struct {
	GameID    int64 `gorm:"primaryKey;autoIncrement:false"`
	Seq       int64 `gorm:"primaryKey;autoIncrement:false"`
	Version   int64 // the game version the action produced
	Seat      int   // -1 for the service (timeouts)
	UserID    *int64
	Body      string // the action as JSON
	CreatedAt time.Time
}

// TableName is the actions table.
func (ActionRecord) TableName() string { return "actions" }

// EventRecord is one entry of the event log. Body is the engine event as
// JSON, unredacted: redact it for the reader.
type EventRecord struct {
	GameID    int64 `gorm:"primaryKey;autoIncrement:false"`
	Seq       int64 `gorm:"primaryKey;autoIncrement:false"`
	Version   int64
	Body      string
	CreatedAt time.Time
}

// TableName is the events table.
func (EventRecord) TableName() string { return "events" }

// PromptRecord is a pending prompt.
type PromptRecord struct {
	GameID     int64  `gorm:"primaryKey;autoIncrement:false"`
	PromptID   string `gorm:"primaryKey"`
	Seat       int
	Body       string
	CreatedAt  time.Time
	DeadlineAt *time.Time
}

// TableName is the prompts table.
func (PromptRecord) TableName() string { return "prompts" }

// Idempotency is a stored response to a request made with an Idempotency-Key.
type Idempotency struct {
	UserID      int64  `gorm:"primaryKey;autoIncrement:false"`
	Key         string `gorm:"primaryKey"`
	RequestHash []byte // hash of method, path and body
	Status      int
	Response    []byte
	CreatedAt   time.Time
}

// TableName is the idempotency_keys table.
func (Idempotency) TableName() string { return "idempotency_keys" }

// IdempotencyTTL is how long idempotency records are kept at least.
const IdempotencyTTL = 24 * time.Hour

// Change is what a Mutate callback writes besides the game row and seats.
type Change struct {
	Actions        []ActionRecord // appended; Seq, GameID and CreatedAt are filled in
	Events         []EventRecord  // appended; Seq, GameID, Version and CreatedAt are filled in
	ReplacePrompts bool           // replace the pending prompts with Prompts
	Prompts        []PromptRecord
	// Notifications are stored with the change, in its write; GameID is
	// theirs to set, CreatedAt is filled in, and their IDs are not set.
	Notifications []Notification
	// Record, when set, is called once the sequence numbers are assigned and
	// returns the idempotency record to store with the change (nil for
	// none). A key already stored gives ErrConflict.
	Record func() (*Idempotency, error)
	// Timeouts are the seats this change's timeouts named, with their new
	// run of consecutive timeouts and what it led to; the seat rows hold
	// the runs (and a bot takeover) already.
	Timeouts []SeatTimeouts
	// Reclaimed are the seats their players took back from the service's
	// bot in this change.
	Reclaimed []Reclaim
	// Rated, for a change that ends a rated game, is what it writes to the
	// players' ratings, in the same transaction (see RatedGame); nil for
	// any other change.
	Rated *RatedGame
	// Engine, for a change made by the engine, holds in parsed form what
	// the caller already has, so that the outbox need not decode the
	// snapshot and the events again. Nil: decode them.
	Engine *EngineChange
	// Happened is what the change did that players are told of.
	Happened Happened
	// AfterCommit is called once the change has committed, in order, on
	// the caller's goroutine, before Mutate returns; never when it rolls
	// back (on a store bound to a transaction, see InTx, once its
	// savepoint is released). The outbox keeps there what its workers will
	// need of the change (the new state, which the caller's next change
	// may alter in place).
	AfterCommit []func()
}

// Happened is what a change did that the outbox tells players of, as the
// play path knows it while it makes the change, so that the outbox need
// not compare the game before and after. The zero value: nothing of the
// sort (a lobby change, a seat taken back).
type Happened struct {
	Invited  []int    // a new game: the seats its creator invited someone to
	Started  bool     // the game started
	Over     bool     // the game ended
	Awaited  []int    // the seats the game waits for now and did not before
	Opened   []string // the ids of the prompts the change opened (interrupt windows, choices)
	Deadline bool     // the change set a new deadline, whose clock starts now
	// Answered are the seats whose front door answers them itself with
	// the board the change leaves (an email reply's answer): the change
	// sends them no turn or prompt email of its own.
	Answered []int
}

// SeatTimeouts is a seat that timed out in a change: its run of
// consecutive timeouts, and TakeOver, what reaching the game's limit led
// to: "" (not reached), "bot" (the service plays the seat from now on) or
// "forfeit" (the seat is to resign).
type SeatTimeouts struct {
	Seat        int
	Consecutive int
	TakeOver    string
}

// Reclaim is a seat taken back from the bot; Since is the version at
// which the bot had taken it over.
type Reclaim struct {
	Seat  int
	Since int64
}

// EngineChange is a change of the engine state in parsed form.
type EngineChange struct {
	State  *engine.State  // the new state, which Game.State encodes
	Events []engine.Event // Change.Events, in order
}

// CreateGame stores a new game with its seats and sets g.ID; h says what
// its creation did (the seats it invited someone to).
func (s *Store) CreateGame(ctx context.Context, g *Game, h Happened) error {
	now := s.Now()
	g.CreatedAt, g.UpdatedAt = now, now
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := s.holdUsers(tx, newlySeated(nil, g.Seats)); err != nil {
			return err
		}
		if err := tx.Omit("Seats").Create(g).Error; err != nil {
			return err
		}
		for i := range g.Seats {
			g.Seats[i].GameID = g.ID
		}
		if len(g.Seats) > 0 {
			if err := tx.Create(&g.Seats).Error; err != nil {
				return err
			}
		}
		return s.notifyOutbox(ctx, tx, GameChange{Created: true, Game: g, Change: &Change{Happened: h}})
	})
}

// Game returns the game with its seats, or ErrNotFound.
func (s *Store) Game(ctx context.Context, id int64) (*Game, error) {
	return s.loadGame(s.db.WithContext(ctx), id, false)
}

// GameRef is what names the version of a game as one user sees it: enough
// to answer a read from a cache, or with 304.
type GameRef struct {
	Version    int64
	Public     bool
	Seat       int // the user's seat, -1 for none
	DeadlineAt *time.Time
	// TokenGen is the user's token generation (User.TokenGen), read along
	// so that a read authenticated by an access token checks it without a
	// query of its own; -1 when there is no such user.
	TokenGen int64
	// SessionLive says that the session the access token names is live,
	// as AccessCheck reads it; true for a token that names none.
	SessionLive bool
}

// GameRef returns the game's version, visibility and deadline and
// userID's seat in it, and the user's token generation and whether session
// (the one the request's access token names, "" for none) is live, with
// one small query; ErrNotFound if there is no such game or user (then
// TokenGen is still the user's, or -1). userID 0 is a reader signed in
// nowhere: the game's alone, with no seat and TokenGen -1. On Postgres,
// outside a transaction, the reads of signed-in users that come fast
// while another is under way go together in one query (refBatch), each
// sent after its read came; at a slower pace each read sends its own.
func (s *Store) GameRef(ctx context.Context, id, userID int64, session string) (GameRef, error) {
	if userID == 0 {
		return s.gameRef(ctx, qGameRefVisitor, []any{id}, id, userID)
	}
	if s.refs != nil {
		if r, batched, err := s.refs.get(ctx, id, userID, session); batched {
			return r, err
		}
	}
	return s.gameRef(ctx, qGameRef, []any{session, session, id, userID}, id, userID)
}

// gameRef is GameRef's read on its own: query q with args.
func (s *Store) gameRef(ctx context.Context, q string, args []any, id, userID int64) (GameRef, error) {
	rows, err := s.direct(ctx, s.db.Statement.ConnPool, q, args...)
	if err != nil {
		return GameRef{Seat: -1, TokenGen: -1}, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return GameRef{Seat: -1, TokenGen: -1}, err
		}
		return GameRef{Seat: -1, TokenGen: -1}, fmt.Errorf("user %d: %w", userID, ErrNotFound)
	}
	r, game, err := scanGameRef(rows)
	if err == nil && !game {
		err = fmt.Errorf("game %d: %w", id, ErrNotFound)
	}
	return r, err
}

// scanGameRef scans a row of qGameRef's columns, after the columns lead,
// into a GameRef; game says that the row names a game (its columns are
// NULL when there is none).
func scanGameRef(rows *sql.Rows, lead ...any) (r GameRef, game bool, err error) {
	r = GameRef{Seat: -1, TokenGen: -1}
	var version *int64
	var public *bool
	var seat *int
	if err := rows.Scan(append(lead, &version, &public, &r.DeadlineAt, &seat, &r.TokenGen, &r.SessionLive)...); err != nil {
		return r, false, err
	}
	if version == nil {
		return r, false, nil
	}
	r.Version, r.Public = *version, *public
	if seat != nil {
		r.Seat = *seat
	}
	return r, true, nil
}

// GameNoState is Game without reading the snapshot: Snapshot reads it
// when it is needed (for callers that keep what they derive from it by
// version, such as encoded responses).
func (s *Store) GameNoState(ctx context.Context, id int64) (*Game, error) {
	return s.GameNoStateChecked(ctx, id, nil)
}

// SessionCheck is a browser session checked along a read of a game, so
// that a page whose reader's account is known already (a game's board)
// checks the session with no query of its own: Hash names the session
// (HashToken of its cookie's value). The read sets Checked, and Live and
// Updated (the account's updated_at) when the session is live, not
// expired: an account whose updated_at moved was changed since it was
// read.
type SessionCheck struct {
	Hash    []byte
	Checked bool
	Live    bool
	Updated time.Time
}

// GameNoStateChecked is GameNoState checking the browser session chk
// (nil for none) in the same query.
func (s *Store) GameNoStateChecked(ctx context.Context, id int64, chk *SessionCheck) (*Game, error) {
	db := s.db.WithContext(ctx)
	var g *Game
	var err error
	if chk == nil {
		g, err = s.loadGameSeats(db, id, qGameNoState, id)
	} else {
		g, err = s.loadGameSeats(db, id, qGameNoStateSession, chk.Hash, s.Now(), id)
	}
	if err != nil {
		return nil, err
	}
	if chk != nil {
		chk.Checked, chk.Live = true, g.session != nil
		if g.session != nil {
			chk.Updated = *g.session
		}
		g.session = nil
	}
	g.setLoadState(db)
	return g, nil
}

// loadGameSeats loads a game and its seats with one query that joins them
// (qGameNoState, qLockGameCached: the game's columns, the snapshot column
// for the latter, then the seat's columns, one row per seat). It scans the
// rows itself, and sends the query straight to the connection (direct):
// this is the query of every read and every change of a game.
func (s *Store) loadGameSeats(tx *gorm.DB, id int64, q string, args ...any) (*Game, error) {
	rows, err := s.direct(tx.Statement.Context, tx.Statement.ConnPool, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	withState, withUsers := slices.Contains(cols, "state"), slices.Contains(cols, "u_id")
	withSession := slices.Contains(cols, "session_updated_at")
	withToken := slices.Contains(cols, "a_gen")
	var g Game
	found := false
	for rows.Next() {
		var (
			r     Game
			state []byte
			seat  struct {
				no, timeouts            *int
				botSince                *int64
				userID                  *int64
				username, deck, bot     *string
				invited, joined, waited *bool
				joinedAt                *time.Time
			}
		)
		dst := []any{&r.ID, &r.CreatedBy, &r.Status, &r.Public, &r.Mode, &r.Office, &r.Policy, &r.Players, &r.Settings,
			&r.Version, &r.EventSeq, &r.ActionSeq, &r.Winners, &r.DeadlineAt, &r.ClockFrom, &r.ClockAt, &r.CreatedAt, &r.UpdatedAt,
			&r.StartedAt, &r.EndedAt, &r.DeadlineQuiet, &r.TalkSeq}
		if withState {
			dst = append(dst, &state)
		}
		dst = append(dst, &seat.no, &seat.userID, &seat.username, &seat.invited, &seat.joined, &seat.deck, &seat.waited,
			&seat.joinedAt, &seat.bot, &seat.timeouts, &seat.botSince)
		var u struct {
			id                       *int64
			username, email, display *string
			notifyEmail, notifyTurns *bool
			createdAt, updatedAt     *time.Time
			hasPrefs, hasHooks       bool
			hasPush                  bool
			quietStart, quietEnd     *int
			zone                     *string
		}
		var tokenGen *int64
		var tokenLive bool
		if withToken {
			dst = append(dst, &tokenGen, &tokenLive)
		}
		var session *time.Time
		if withSession {
			dst = append(dst, &session)
		}
		if withUsers {
			dst = append(dst, &u.id, &u.username, &u.email, &u.display, &u.notifyEmail, &u.notifyTurns, &u.createdAt,
				&u.updatedAt, &u.hasPrefs, &u.hasHooks, &u.hasPush, &u.quietStart, &u.quietEnd, &u.zone)
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		if !found {
			g, found = r, true
			g.session = session
			if withToken {
				g.token = &tokenState{gen: -1, live: tokenLive}
				if tokenGen != nil {
					g.token.gen = *tokenGen
				}
			}
		}
		if u.id != nil {
			if g.seatUsers == nil {
				g.seatUsers = map[int64]recipientRow{}
			}
			g.seatUsers[*u.id] = recipientRow{User: User{ID: *u.id, Username: deref(u.username), Email: deref(u.email),
				DisplayName: deref(u.display), NotifyEmail: deref(u.notifyEmail), NotifyTurns: deref(u.notifyTurns),
				CreatedAt: deref(u.createdAt), UpdatedAt: deref(u.updatedAt)}, HasPrefs: u.hasPrefs, HasHooks: u.hasHooks,
				HasPush: u.hasPush, quietRead: true}
			if u.quietStart != nil && u.quietEnd != nil {
				g.seatUsers[*u.id] = withQuiet(g.seatUsers[*u.id], QuietHours{Start: *u.quietStart, End: *u.quietEnd, Zone: deref(u.zone)})
			}
		}
		if state != nil {
			g.State = state
		}
		if seat.no == nil {
			continue // a game without seats
		}
		g.Seats = append(g.Seats, Seat{GameID: g.ID, SeatNo: *seat.no, UserID: seat.userID, Username: deref(seat.username),
			Invited: deref(seat.invited), Joined: deref(seat.joined), Deck: seat.deck, Awaited: deref(seat.waited),
			JoinedAt: seat.joinedAt, Bot: deref(seat.bot), Timeouts: deref(seat.timeouts),
			BotSince: deref(seat.botSince)})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("game %d: %w", id, ErrNotFound)
	}
	return &g, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// Row returns a copy of g as GameNoState reads it at g's version: its
// columns and its seats (a slice of its own), without its snapshot, which
// Snapshot reads from s when asked, and without what was read along with
// it (recipients, quiet hours, a session or token checked), which belongs
// to the transaction or request that read g. A cache keeps rows: they
// outlive both. A copy of a row is a row.
func (s *Store) Row(g *Game) *Game {
	row := *g
	row.State, row.Seats = nil, slices.Clone(g.Seats)
	row.loadState, row.seatUsers, row.quietHours, row.session, row.token = nil, nil, nil, nil, nil
	row.setLoadState(s.db)
	return &row
}

// setLoadState makes Snapshot read the snapshot of g's version through db.
func (g *Game) setLoadState(db *gorm.DB) {
	if g.State != nil || g.Status == StatusOpen || g.Status == StatusCancelled {
		return // read already, or none yet
	}
	id, version := g.ID, g.Version
	g.loadState = func() ([]byte, error) {
		var rows []struct{ State []byte }
		if err := db.Raw(qGameState, id, version).Scan(&rows).Error; err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			return nil, fmt.Errorf("game %d after version %d: %w", id, version, ErrStale)
		}
		return rows[0].State, nil
	}
}

// GameForUpdate is Game with the game row locked until the end of the
// store's transaction (see Begin).
func (s *Store) GameForUpdate(ctx context.Context, id int64) (*Game, error) {
	return s.loadGame(s.db.WithContext(ctx), id, true)
}

// loadGame reads the game with its seats and snapshot in one query,
// locking the game row when lock is set.
func (s *Store) loadGame(tx *gorm.DB, id int64, lock bool) (*Game, error) {
	q := qLockGameCached
	if lock {
		q += s.lockGameSeats()
	}
	return s.loadGameSeats(tx, id, q, int64(-1), id) // no version is cached: the snapshot comes too
}

// lockGameSeats is the suffix that locks the game row and the seat rows of
// a game read with its seats (qLockGameCached, qLockGameRecipients).
//
// The seats are locked too, not only the game row that guards them, so that
// a transaction that waited for the lock reads them as the one before it
// committed them. A statement reads as of its start (READ COMMITTED): when
// it has to wait for a row it locks, Postgres then returns the newest
// version of each row the statement locks, and the other rows joined to it
// as they were when the statement started. Locking the game row alone
// returned the game as committed and its seats from before, which the
// change then wrote back: a seat joined meanwhile was taken again, a seat
// left meanwhile still counted for the start. Locking the 2-4 seat rows
// costs no round trip (reading the seats again after the lock would cost
// one per change); nothing else locks seat rows, and every change takes the
// game row first, so the order is the same for all. The users joined to
// the seats are not locked: after a wait, a seat's user that changed comes
// without its row, and the outbox reads it (RecipientsOf). SQLite runs one
// transaction at a time and needs no lock.
func (s *Store) lockGameSeats() string {
	if s.dialect == Postgres {
		return lockGameSeatsPG
	}
	return ""
}

const lockGameSeatsPG = " FOR UPDATE OF g, s"

// direct sends query q (with "?" placeholders) on pool (a GORM
// session's connection pool, or its transaction), past GORM: for the
// reads of every request (a game's reference, a game with its seats),
// whose statement GORM would build anew each time (a tenth of a change's
// lock). On Postgres q must be one of pgTexts, numbered once. It counts
// for CountStatementsForTest.
func (s *Store) direct(ctx context.Context, pool gorm.ConnPool, q string, args ...any) (*sql.Rows, error) {
	if s.dialect == Postgres {
		pg, ok := pgTexts[q]
		if !ok {
			return nil, fmt.Errorf("models: a direct query without its Postgres text: %.60q", q)
		}
		q = pg
	}
	s.countDirect()
	return pool.QueryContext(ctx, q, args...)
}

// countDirect counts a read sent past GORM (see CountStatementsForTest).
func (s *Store) countDirect() {
	if s.tests != nil {
		if n := s.tests.counted.Load(); n != nil {
			n.Add(1)
		}
	}
}

// Mutate changes game id in one transaction with the game row locked. fn
// gets the current game and seats, changes them in place and returns what
// else to write; the store then writes the game row, the seats that changed
// and the Change. An error from fn rolls everything back and is returned as
// is. The game row is always written, so fn should bump Version for every
// change; a nil Change writes nothing else. Mutate returns the written game.
func (s *Store) Mutate(ctx context.Context, id int64, fn func(g *Game) (*Change, error)) (*Game, error) {
	return s.mutate(ctx, id, nil, Key{}, nil, fn)
}

// MutateCached is Mutate for a caller that holds the parsed state of the
// game at version cached: if the locked game is still at that version its
// snapshot is not read (State is nil; Snapshot reads it if need be), and
// the stored snapshot is kept unless fn sets State.
func (s *Store) MutateCached(ctx context.Context, id, cached int64, fn func(g *Game) (*Change, error)) (*Game, error) {
	return s.mutate(ctx, id, &cached, Key{}, nil, fn)
}

// TokenCheck is the access token of the request a change is made for,
// checked along the query that locks the game (MutateKeyed), so that the
// change spends no query of its own on it: the query reads UserID's token
// generation and whether Session (the one the token names, "" for none) is
// live, as AccessCheck does, and Verify gets them (generation -1 for a
// user that does not exist) before the change is worked out. An error from
// Verify ends the change, which writes nothing, and is returned as is.
// For a game that does not exist, the check is made with AccessCheck
// before ErrNotFound is returned.
type TokenCheck struct {
	UserID  int64
	Session string
	Verify  func(gen int64, live bool) error
}

// verify checks tok against what the lock read along (g's token) or, when
// the game was not found (lockErr), against AccessCheck's reading: an
// error from tok.Verify first, then lockErr.
func (s *Store) verify(ctx context.Context, tx *gorm.DB, tok *TokenCheck, g *Game, lockErr error) error {
	var gen int64
	var live bool
	switch {
	case lockErr == nil && g.token != nil:
		gen, live = g.token.gen, g.token.live
	case lockErr == nil || errors.Is(lockErr, ErrNotFound):
		var err error
		if gen, live, err = s.on(tx).AccessCheck(ctx, tok.UserID, tok.Session); errors.Is(err, ErrNotFound) {
			gen = -1
		} else if err != nil {
			return err
		}
	default:
		return lockErr
	}
	if err := tok.Verify(gen, live); err != nil {
		return err
	}
	return lockErr
}

func (s *Store) mutate(ctx context.Context, id int64, cached *int64, key Key, tok *TokenCheck, fn func(g *Game) (*Change, error)) (*Game, error) {
	// A change once begun runs to its end when its caller hangs up (a
	// client's request ends): cut off, it may have committed with its
	// caller told that it failed, and its connection is closed. A
	// deadline still ends it: its caller's, else changeTimeout.
	if err := ctx.Err(); err != nil {
		return nil, err // gone before it began: nothing is made
	}
	ctx, cancel, bound := detached(ctx, s.tests.bound(changeTimeout))
	defer cancel()
	// The transaction's BEGIN goes with the lock (beginWithFirst). A
	// connection that turns out broken then fails the lock, not the BEGIN,
	// which database/sql would have tried again on another: so does this,
	// as long as fn has not run.
	g, ran, err := s.mutateOnce(beginWithFirst(ctx), id, cached, key, tok, fn)
	if !ran && errors.Is(err, driver.ErrBadConn) {
		g, _, err = s.mutateOnce(ctx, id, cached, key, tok, fn)
	}
	if bound > 0 {
		err = unanswered(ctx, err, bound)
	}
	return g, err
}

// changeTimeout bounds a change whose caller set no deadline.
const changeTimeout = 30 * time.Second

// detached is ctx without its cancellation, with its deadline, or, when
// it has none, one of bound from now, returned as own.
func detached(ctx context.Context, bound time.Duration) (_ context.Context, _ context.CancelFunc, own time.Duration) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline, own = time.Now().Add(bound), bound
	}
	c, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	return c, cancel, own
}

// unanswered is err of work under a deadline of the store's own, bound
// (a change's when its caller set none, a batch of reads'): when it is
// that deadline's error, an ErrUnavailable, since the database did not
// answer in that time and the request may work later; not the caller's
// deadline, which it did not set, nor an error of the server's (a 500).
// Any other error (a refusal that came as the deadline passed) is
// returned as it is.
func unanswered(ctx context.Context, err error, bound time.Duration) error {
	if ctx.Err() == nil || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrUnavailable) {
		return err
	}
	return &unavailableError{err: fmt.Errorf("no answer within %v: %w", bound, err)}
}

// mutateOnce is mutate's transaction; ran reports whether fn ran.
func (s *Store) mutateOnce(ctx context.Context, id int64, cached *int64, key Key, tok *TokenCheck, fn func(g *Game) (*Change, error)) (out *Game, ran bool, err error) {
	var written *Change
	committer, nested := s.db.Statement.ConnPool.(gorm.TxCommitter) // a savepoint in a transaction
	nested = nested && committer != nil
	committed := false
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var g *Game
		var err error
		if cached != nil {
			q, args := qLockGameCached, []any{*cached}
			switch {
			case s.outbox != nil && tok != nil:
				q, args = qLockGameRecipientsToken, append(args, tok.UserID, tok.Session, tok.Session, tok.UserID)
			case s.outbox != nil:
				q = qLockGameRecipients
			case tok != nil:
				q, args = qLockGameCachedToken, append(args, tok.UserID, tok.Session, tok.Session, tok.UserID)
			}
			if g, err = s.loadGameSeats(tx, id, q+s.lockGameSeats(), append(args, id)...); err == nil {
				g.setLoadState(tx)
			}
		} else {
			g, err = s.loadGame(tx, id, true)
		}
		if tok != nil {
			err = s.verify(ctx, tx, tok, g, err)
		}
		if err != nil {
			return err
		}
		g.quietHours = func(ids []int64) (map[int64]QuietHours, error) {
			if hs, ok := g.seatQuiet(ids); ok {
				return hs, nil
			}
			return s.on(tx).QuietHoursOf(ctx, ids...)
		}
		before, prevDeadline := slices.Clone(g.Seats), g.DeadlineAt
		ran = true
		ch, err := fn(g)
		if err != nil {
			if key.Key != "" && keyStored(ctx, tx, key, s.Now()) {
				return ErrKeyStored
			}
			return err
		}
		if ch == nil {
			ch = &Change{}
		}
		if err := s.holdUsers(tx, newlySeated(before, g.Seats)); err != nil {
			return err
		}
		now := s.Now()
		if ch.Rated != nil {
			if err := s.rate(tx, g, ch.Rated); err != nil {
				return err
			}
		}
		for i := range ch.Actions {
			g.ActionSeq++
			a := &ch.Actions[i]
			a.GameID, a.Seq, a.CreatedAt = id, g.ActionSeq, now
		}
		for i := range ch.Events {
			g.EventSeq++
			e := &ch.Events[i]
			e.GameID, e.Seq, e.Version, e.CreatedAt = id, g.EventSeq, g.Version, now
		}
		g.UpdatedAt = now
		if err := s.notifyOutbox(ctx, tx, GameChange{Game: g, Change: ch}); err != nil {
			return err
		}
		for i := range ch.Prompts {
			ch.Prompts[i].GameID, ch.Prompts[i].CreatedAt = id, now
		}
		for i := range ch.Notifications {
			ch.Notifications[i].CreatedAt = now
		}
		if ch.Record != nil {
			rec, err := ch.Record()
			if err != nil {
				return err
			}
			if rec != nil {
				if err := s.on(tx).SaveIdempotency(ctx, rec); err != nil {
					return err
				}
			}
		}
		// The write is the transaction's last statement: unless this
		// transaction is inside another, it commits along (commitWith).
		last := !nested
		if err := s.writeGame(tx, g, before, ch, deadlineMoved(prevDeadline, g.DeadlineAt), last); err != nil {
			return err
		}
		out, written = g, ch
		committed = last && s.dialect == Postgres
		return nil
	})
	// Once the write has committed, an error of the Commit that follows
	// (the context ended meanwhile) is not the change's.
	if err != nil && !committed {
		return nil, ran, err
	}
	for _, f := range written.AfterCommit {
		f()
	}
	return out, ran, nil
}

// on is the store on transaction tx, which it does not end.
func (s *Store) on(tx *gorm.DB) *Store {
	return &Store{db: tx, dialect: s.dialect, now: s.now, tests: s.tests}
}

// stmt is one SQL statement with "?" placeholders.
type stmt struct {
	sql  string
	args []any
}

// deadlineMoved is 1 when a change set the deadline from prev to next
// (one or the other nil, or another time), else 0: what a game's
// deadline_seq grows by.
func deadlineMoved(prev, next *time.Time) int {
	if (prev == nil) == (next == nil) && (prev == nil || prev.Equal(*next)) {
		return 0
	}
	return 1
}

// writeGame writes the game row, the seats that differ from before, the
// new actions, events and notifications, and the replaced prompts; moved
// (0 or 1, see deadlineMoved) counts a new or moved deadline in the row's
// deadline_seq and deadline_set_at. On Postgres they go in one statement
// that ends by announcing them (writeChange), and with last, the
// transaction's COMMIT goes with it (commitWith); on SQLite one statement
// each.
func (s *Store) writeGame(tx *gorm.DB, g *Game, before []Seat, ch *Change, moved int, last bool) error {
	seats := changedSeats(before, g.Seats)
	if s.dialect == Postgres {
		ctx := tx.Statement.Context
		if last {
			ctx = commitWith(ctx)
		}
		return writeChange(ctx, tx, g, seats, ch, moved)
	}
	stmts := []stmt{{qUpdateGame, []any{g.Status, g.Version, g.EventSeq, g.ActionSeq, g.newState(), g.Winners,
		g.DeadlineAt, g.ClockFrom, g.ClockAt, g.UpdatedAt, g.StartedAt, g.EndedAt, g.Settings, moved, moved, g.UpdatedAt,
		g.DeadlineQuiet, g.ID}}}
	for _, st := range seats {
		stmts = append(stmts, stmt{qUpdateSeat, []any{st.UserID, st.Username, st.Invited, st.Joined, st.Deck,
			st.Awaited, st.JoinedAt, st.Bot, st.Timeouts, st.BotSince, g.ID, st.SeatNo}})
	}
	if len(ch.Actions) > 0 {
		stmts = append(stmts, insertRows(`actions (game_id, seq, version, seat, user_id, body, created_at)`, len(ch.Actions),
			func(i int) []any {
				a := ch.Actions[i]
				return []any{a.GameID, a.Seq, a.Version, a.Seat, a.UserID, a.Body, a.CreatedAt}
			}))
	}
	if len(ch.Events) > 0 {
		stmts = append(stmts, insertRows(`events (game_id, seq, version, body, created_at)`, len(ch.Events), func(i int) []any {
			e := ch.Events[i]
			return []any{e.GameID, e.Seq, e.Version, e.Body, e.CreatedAt}
		}))
	}
	if len(ch.Notifications) > 0 {
		stmts = append(stmts, insertRows(`notifications (user_id, game_id, kind, body, fill, created_at)`, len(ch.Notifications),
			func(i int) []any {
				n := ch.Notifications[i]
				return []any{n.UserID, n.GameID, n.Kind, n.Body, nullIfEmpty(n.Fill), n.CreatedAt}
			}))
	}
	if ch.ReplacePrompts {
		stmts = append(stmts, stmt{`DELETE FROM prompts WHERE game_id = ?`, []any{g.ID}})
		if len(ch.Prompts) > 0 {
			stmts = append(stmts, insertRows(`prompts (game_id, prompt_id, seat, body, created_at, deadline_at)`, len(ch.Prompts),
				func(i int) []any {
					p := ch.Prompts[i]
					return []any{p.GameID, p.PromptID, p.Seat, p.Body, p.CreatedAt, p.DeadlineAt}
				}))
		}
	}
	for _, st := range stmts {
		if err := tx.Exec(st.sql, st.args...).Error; err != nil {
			return writeError(err)
		}
	}
	return nil
}

// AnnounceChannel is the Postgres NOTIFY channel, after the schema's name
// and a dot, on which a change announces the events and notifications it
// stores to the live stream of every server process.
const AnnounceChannel = "dm_events"

// writeChange is writeGame on Postgres: qWriteChange, with the rows of each
// table as arrays of their columns (their created_at is the game's
// updated_at and the events' version the game's, as mutate sets them). It
// goes to the driver past GORM, which would spread a slice into a list of
// values.
func writeChange(ctx context.Context, tx *gorm.DB, g *Game, seats []Seat, ch *Change, moved int) error {
	args := []any{g.ID, g.Status, g.Version, g.EventSeq, g.ActionSeq, g.newState(), g.Winners,
		g.DeadlineAt, g.ClockFrom, g.ClockAt, g.UpdatedAt, g.StartedAt, g.EndedAt, g.Settings}
	args = append(args, columns(seats, func(s Seat) int { return s.SeatNo }),
		columns(seats, func(s Seat) *int64 { return s.UserID }),
		columns(seats, func(s Seat) string { return s.Username }),
		columns(seats, func(s Seat) bool { return s.Invited }),
		columns(seats, func(s Seat) bool { return s.Joined }),
		columns(seats, func(s Seat) *string { return s.Deck }),
		columns(seats, func(s Seat) bool { return s.Awaited }),
		columns(seats, func(s Seat) *time.Time { return s.JoinedAt }),
		columns(seats, func(s Seat) string { return s.Bot }),
		columns(seats, func(s Seat) int { return s.Timeouts }))
	args = append(args, columns(ch.Actions, func(a ActionRecord) int64 { return a.Seq }),
		columns(ch.Actions, func(a ActionRecord) int64 { return a.Version }),
		columns(ch.Actions, func(a ActionRecord) int { return a.Seat }),
		columns(ch.Actions, func(a ActionRecord) *int64 { return a.UserID }),
		columns(ch.Actions, func(a ActionRecord) string { return a.Body }))
	args = append(args, columns(ch.Events, func(e EventRecord) int64 { return e.Seq }),
		columns(ch.Events, func(e EventRecord) string { return e.Body }))
	args = append(args, columns(ch.Notifications, func(n Notification) int64 { return n.UserID }),
		columns(ch.Notifications, func(n Notification) *int64 { return n.GameID }),
		columns(ch.Notifications, func(n Notification) string { return n.Kind }),
		columns(ch.Notifications, func(n Notification) string { return n.Body }))
	var prompts []PromptRecord
	if ch.ReplacePrompts {
		prompts = ch.Prompts
	}
	args = append(args, ch.ReplacePrompts, columns(prompts, func(p PromptRecord) string { return p.PromptID }),
		columns(prompts, func(p PromptRecord) int { return p.Seat }),
		columns(prompts, func(p PromptRecord) string { return p.Body }),
		columns(prompts, func(p PromptRecord) *time.Time { return p.DeadlineAt }), g.Holders(), // $41
		columns(seats, func(s Seat) int64 { return s.BotSince }), // $42
		moved, // $43
		columns(ch.Notifications, func(n Notification) string { return n.Fill }), // $44
		g.DeadlineQuiet) // $45
	_, err := tx.Statement.ConnPool.ExecContext(ctx, qWriteChange, args...)
	return writeError(err)
}

// columns is one column of rows, as an array argument: never nil, which
// the driver would send as NULL rather than as an empty array.
func columns[R, C any](rows []R, col func(R) C) []C {
	out := make([]C, len(rows))
	for i, r := range rows {
		out[i] = col(r)
	}
	return out
}

// changedSeats returns the seats that differ from before.
func changedSeats(before, seats []Seat) []Seat {
	var out []Seat
	for i, st := range seats {
		if i >= len(before) || !seatEqual(before[i], st) {
			out = append(out, st)
		}
	}
	return out
}

// newlySeated are the users that seats give a seat or an invitation to
// and before did not: the users a change seats.
func newlySeated(before, seats []Seat) []int64 {
	var out []int64
	for i, st := range seats {
		if st.UserID != nil && (i >= len(before) || before[i].UserID == nil || *before[i].UserID != *st.UserID) {
			out = append(out, *st.UserID)
		}
	}
	return out
}

// UserGoneError is a change that would seat or invite user UserID, whose
// account is deleted or was never there (see holdUsers).
type UserGoneError struct{ UserID int64 }

func (e *UserGoneError) Error() string {
	return fmt.Sprintf("user %d: the account is deleted", e.UserID)
}

// holdUsers reads the rows of the users a change seats, in its
// transaction tx, shared-locked on Postgres (FOR SHARE), and fails with
// *UserGoneError when one is deleted or missing. An account deleted at
// the same time (DeleteAccount's update of the row) is then either
// deleted first, and this change sees it, or waits for this change to
// commit, and the sweep that follows the deletion
// (play.Service.ResignAll) sees the seat. SQLite runs one write
// transaction at a time.
func (s *Store) holdUsers(tx *gorm.DB, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	lock := ""
	if s.dialect == Postgres {
		lock = " FOR SHARE"
	}
	var users []User
	if err := tx.Raw(`SELECT id, username FROM users WHERE id IN ?`+lock, ids).Scan(&users).Error; err != nil {
		return err
	}
	for _, id := range ids {
		i := slices.IndexFunc(users, func(u User) bool { return u.ID == id })
		if i < 0 || users[i].Deleted() {
			return &UserGoneError{UserID: id}
		}
	}
	return nil
}

// forLiveUser runs fn in a transaction that first holds user userID's
// row (holdUsers): a deleted account gets *UserGoneError, and fn does
// not run. What fn writes for the account then cannot outlive its
// deletion.
func (s *Store) forLiveUser(ctx context.Context, userID int64, fn func(tx *gorm.DB) error) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := s.holdUsers(tx, []int64{userID}); err != nil {
			return err
		}
		return fn(tx)
	})
}

// nullIfEmpty is s, or NULL for "".
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// newState is the snapshot to write: NULL, not an empty blob, when there is
// none (the stored one is kept).
func (g *Game) newState() any {
	if g.State == nil {
		return nil
	}
	return g.State
}

// writeError is the error of a change's write: a unique violation is a
// seat taken.
func writeError(err error) error {
	if uniqueViolation(err) {
		return fmt.Errorf("seat taken: %w", ErrConflict)
	}
	return err
}

// insertRows is one INSERT INTO table (with its column list) of n rows,
// row giving the values of each.
func insertRows(table string, n int, row func(i int) []any) stmt {
	var b strings.Builder
	q := stmt{}
	b.WriteString("INSERT INTO " + table + " VALUES ")
	for i := range n {
		vals := row(i)
		b.WriteString(sep(i) + "(" + strings.Repeat("?, ", len(vals)-1) + "?)")
		q.args = append(q.args, vals...)
	}
	q.sql = b.String()
	return q
}

func sep(i int) string {
	if i == 0 {
		return ""
	}
	return ", "
}

func seatEqual(a, b Seat) bool {
	eqID := (a.UserID == nil) == (b.UserID == nil) && (a.UserID == nil || *a.UserID == *b.UserID)
	eqDeck := (a.Deck == nil) == (b.Deck == nil) && (a.Deck == nil || *a.Deck == *b.Deck)
	eqTime := (a.JoinedAt == nil) == (b.JoinedAt == nil) && (a.JoinedAt == nil || a.JoinedAt.Equal(*b.JoinedAt))
	return eqID && eqDeck && eqTime && a.Username == b.Username && a.Invited == b.Invited &&
		a.Joined == b.Joined && a.Awaited == b.Awaited && a.Bot == b.Bot && a.Timeouts == b.Timeouts &&
		a.BotSince == b.BotSince
}

// GameFilter selects games for ListGames.
type GameFilter struct {
	UserID   int64  // the caller
	Open     bool   // list public games open for joining instead of the caller's games
	Awaiting bool   // only the caller's games that wait for the caller
	Status   string // "" for any
	Before   int64  // cursor: only games with id < Before; 0 for the first page
	Limit    int    // page size, 1..101 (one more than a page tells whether another follows)
	// Near, with Open, keeps the games whose seated players' mean rating
	// is within Within of *Near, a player with no rated game counting as
	// Unrated (their initial rating); nil keeps every game.
	Near    *float64
	Within  float64
	Unrated float64
}

// ListGames returns a page of games, newest first, with their seats.
func (s *Store) ListGames(ctx context.Context, f GameFilter) ([]Game, error) {
	if f.Limit <= 0 || f.Limit > 101 {
		return nil, errors.New("limit must be 1..101")
	}
	q, args := listQuery(f)
	db := s.db.WithContext(ctx)
	var games []Game
	if err := db.Raw(q, args...).Scan(&games).Error; err != nil {
		return nil, err
	}
	if len(games) == 0 {
		return games, nil
	}
	ids := make([]int64, len(games))
	idx := make(map[int64]int, len(games))
	for i, g := range games {
		ids[i], idx[g.ID] = g.ID, i
	}
	var seats []Seat
	if err := db.Raw(qSeatsOfGames, ids).Scan(&seats).Error; err != nil {
		return nil, err
	}
	for _, st := range seats {
		g := &games[idx[st.GameID]]
		g.Seats = append(g.Seats, st)
	}
	return games, nil
}

// listQuery builds the named list query for f.
func listQuery(f GameFilter) (string, []any) {
	before := f.Before
	if before <= 0 {
		before = 1<<63 - 1
	}
	var (
		q    string
		args []any
	)
	switch {
	case f.Open:
		q, args = qOpenGames, []any{before}
	case f.Awaiting:
		q, args = qMyAwaitedGames, []any{f.UserID, before}
	default:
		q, args = qMyGames, []any{f.UserID, before}
	}
	if f.Status != "" {
		q += " AND g.status = ?"
		args = append(args, f.Status)
	}
	if f.Open && f.Near != nil {
		q += qNearRating
		args = append(args, f.Unrated, *f.Near-f.Within, *f.Near+f.Within)
	}
	q += " ORDER BY s.game_id DESC LIMIT ?"
	if f.Open {
		q = strings.Replace(q, "s.game_id DESC", "g.id DESC", 1)
	}
	return q, append(args, f.Limit)
}

// EventsAfter returns up to limit events of the game with seq > after.
func (s *Store) EventsAfter(ctx context.Context, gameID, after int64, limit int) ([]EventRecord, error) {
	var out []EventRecord
	err := s.db.WithContext(ctx).Raw(qEventsAfter, gameID, after, limit).Scan(&out).Error
	return out, err
}

// EventsSince returns up to limit events of the game made by changes
// after version, in order.
func (s *Store) EventsSince(ctx context.Context, gameID, version int64, limit int) ([]EventRecord, error) {
	var out []EventRecord
	err := s.db.WithContext(ctx).Raw(qEventsSince, gameID, version, limit).Scan(&out).Error
	return out, err
}

// LastEvents returns the last event of each game of ids that has one, in
// no particular order: a finished game's game_over, for a list of games
// that shows their results. No ids gives none.
func (s *Store) LastEvents(ctx context.Context, ids []int64) ([]EventRecord, error) {
	var out []EventRecord
	if len(ids) == 0 {
		return out, nil
	}
	err := s.db.WithContext(ctx).Raw(qLastEvents, ids).Scan(&out).Error
	return out, err
}

// LastActionVersion returns the version that seat's last action in the
// game made, among the actions up to version upTo; 0 when the seat made
// none (the service's own actions, seat -1, are no seat's).
func (s *Store) LastActionVersion(ctx context.Context, gameID int64, seat int, upTo int64) (int64, error) {
	var v []int64
	err := s.db.WithContext(ctx).Raw(qLastActionVersion, gameID, seat, upTo).Scan(&v).Error
	if err != nil || len(v) == 0 {
		return 0, err
	}
	return v[0], nil
}

// Actions returns the game's whole action log in order.
func (s *Store) Actions(ctx context.Context, gameID int64) ([]ActionRecord, error) {
	var out []ActionRecord
	err := s.db.WithContext(ctx).Where("game_id = ?", gameID).Order("seq").Find(&out).Error
	return out, err
}

// Prompts returns the game's pending prompts.
func (s *Store) Prompts(ctx context.Context, gameID int64) ([]PromptRecord, error) {
	var out []PromptRecord
	err := s.db.WithContext(ctx).Raw(qPromptsOfGame, gameID).Scan(&out).Error
	return out, err
}

// IdempotencyRecord returns the user's record for key if it is younger than
// IdempotencyTTL, or ErrNotFound.
func (s *Store) IdempotencyRecord(ctx context.Context, userID int64, key string) (*Idempotency, error) {
	var r Idempotency
	if err := s.db.WithContext(ctx).Raw(qIdempotencyGet, userID, key, s.Now().Add(-IdempotencyTTL)).Scan(&r).Error; err != nil {
		return nil, err
	}
	if r.UserID == 0 {
		return nil, ErrNotFound
	}
	return &r, nil
}

// PurgeIdempotency deletes records older than IdempotencyTTL and returns how
// many it deleted.
func (s *Store) PurgeIdempotency(ctx context.Context) (int64, error) {
	res := s.db.WithContext(ctx).Exec(qIdempotencyPurge, s.Now().Add(-IdempotencyTTL))
	return res.RowsAffected, res.Error
}

// InTx runs fn with a store whose every call runs in one transaction,
// committed if fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(tx *Store) error) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return fn(&Store{db: tx, dialect: s.dialect, now: s.now, outbox: s.outbox, tests: s.tests})
	})
}

// SaveIdempotency stores an idempotency record (in the caller's
// transaction, with InTx). A live record with the same key gives
// ErrConflict; an expired one is replaced.
func (s *Store) SaveIdempotency(ctx context.Context, rec *Idempotency) error {
	now := s.Now()
	rec.CreatedAt = now
	db := s.db.WithContext(ctx)
	if err := db.Exec(`DELETE FROM idempotency_keys WHERE user_id = ? AND key = ? AND created_at < ?`,
		rec.UserID, rec.Key, now.Add(-IdempotencyTTL)).Error; err != nil {
		return err
	}
	if err := db.Create(rec).Error; err != nil {
		if uniqueViolation(err) {
			return fmt.Errorf("idempotency key: %w", ErrConflict)
		}
		return err
	}
	return nil
}

package play

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
)

// Defaults and bounds of a new game's settings.
const (
	DefaultTurnDeadline   = 3 * 24 * 3600 // seconds
	DefaultPromptDeadline = 24 * 3600     // seconds
	MinDeadline           = 60            // seconds, for either deadline
	MaxDeadline           = 30 * 24 * 3600
	DefaultTimeoutLimit   = 3  // consecutive timeouts before the seat is taken over
	MaxTimeoutLimit       = 20 //
	OnTimeoutsBot         = "bot"
	OnTimeoutsForfeit     = "forfeit"
)

// MaxOpenGames is how many games one account may have created and not yet
// started or cancelled: one more is refused (limit_reached), so that no
// one fills the list of open games.
const MaxOpenGames = 20

// DeckChoice names a deck: a prebuilt one (Prebuilt, a deck id of the
// catalogue) or one of the caller's (DeckID). Exactly one is set.
type DeckChoice struct {
	Prebuilt string
	DeckID   int64
}

// NewGame is what a game is created with. Zero values take the defaults
// noted.
type NewGame struct {
	Players               int        // 2 to 4 seats
	Mode                  string     // "standard" (default) or "fast"
	Office                bool       // one shared Laboratory Deck, from every seat's deck
	Public                *bool      // listed for anyone to join or watch; nil: true
	Policy                string     // interrupt policy: "holders" (default) or "conceal"
	Deck                  DeckChoice // the creator's deck
	Invite                []string   // usernames invited to the next seats
	TurnDeadlineSeconds   int        // 0: DefaultTurnDeadline
	PromptDeadlineSeconds int        // 0: DefaultPromptDeadline
	Bots                  int        // the last seats, played by the service's greedy bot
	TimeoutLimit          *int       // consecutive timeouts before OnTimeouts; nil: DefaultTimeoutLimit, 0: never
	OnTimeouts            string     // OnTimeoutsBot (default) or OnTimeoutsForfeit
	// SpectatorMessages shows the players' public messages to spectators
	// (false: to the players only).
	SpectatorMessages bool
	// IgnoreQuietHours keeps deadlines where the clock sets them, in the
	// quiet hours of the players they await (false: moved to their end).
	IgnoreQuietHours bool
}

// check validates the settings and fills in their defaults.
func (n *NewGame) check() error {
	if n.Mode == "" {
		n.Mode = string(engine.ModeStandard)
	}
	if n.Policy == "" {
		n.Policy = string(engine.Holders)
	}
	if n.TurnDeadlineSeconds == 0 {
		n.TurnDeadlineSeconds = DefaultTurnDeadline
	}
	if n.PromptDeadlineSeconds == 0 {
		n.PromptDeadlineSeconds = DefaultPromptDeadline
	}
	if n.TimeoutLimit == nil {
		limit := DefaultTimeoutLimit
		n.TimeoutLimit = &limit
	}
	if n.OnTimeouts == "" {
		n.OnTimeouts = OnTimeoutsBot
	}
	switch {
	case n.Players < engine.MinPlayers || n.Players > engine.MaxPlayers:
		return invalid("players: %d to %d", engine.MinPlayers, engine.MaxPlayers)
	case n.Mode != string(engine.ModeStandard) && n.Mode != string(engine.ModeFast):
		return invalid("mode: standard or fast")
	case n.Policy != string(engine.Holders) && n.Policy != string(engine.Conceal):
		return invalid("policy: holders or conceal")
	case len(n.Invite) > n.Players-1:
		return invalid("invite: at most %d usernames for %d players", n.Players-1, n.Players)
	case n.TurnDeadlineSeconds < MinDeadline || n.TurnDeadlineSeconds > MaxDeadline:
		return invalid("turn_deadline_seconds: %d to %d seconds", MinDeadline, MaxDeadline)
	case n.PromptDeadlineSeconds < MinDeadline || n.PromptDeadlineSeconds > MaxDeadline:
		return invalid("prompt_deadline_seconds: %d to %d seconds", MinDeadline, MaxDeadline)
	case n.Bots < 0 || n.Bots > n.Players-1-len(n.Invite):
		return invalid("bots: 0 to %d for %d players and %d invited", max(n.Players-1-len(n.Invite), 0), n.Players, len(n.Invite))
	case *n.TimeoutLimit < 0 || *n.TimeoutLimit > MaxTimeoutLimit:
		return invalid("timeout_limit: 0 (never) to %d", MaxTimeoutLimit)
	case n.OnTimeouts != OnTimeoutsBot && n.OnTimeouts != OnTimeoutsForfeit:
		return invalid("on_timeouts: bot or forfeit")
	}
	return nil
}

// Create opens a game with user uid in seat 0, the invited users in the
// next seats, open seats after them and the bot seats last. rec, when set,
// stores the request's idempotency record in the same transaction.
func (s *Service) Create(ctx context.Context, uid int64, n NewGame, rec *Record) (*Result, error) {
	if err := n.check(); err != nil {
		return nil, err
	}
	deck, err := s.resolveDeck(ctx, uid, n.Deck)
	if err != nil {
		return nil, err
	}
	me, err := s.store.UserByID(ctx, uid)
	if err != nil {
		return nil, err
	}
	settings, _ := json.Marshal(models.GameSettings{TurnDeadlineSeconds: n.TurnDeadlineSeconds,
		PromptDeadlineSeconds: n.PromptDeadlineSeconds, TimeoutLimit: *n.TimeoutLimit, OnTimeouts: n.OnTimeouts,
		SpectatorMessages: n.SpectatorMessages, IgnoreQuietHours: n.IgnoreQuietHours})
	now := s.now().UTC()
	g := &models.Game{CreatedBy: me.ID, Status: models.StatusOpen, Public: n.Public == nil || *n.Public, Mode: n.Mode,
		Office: n.Office, Policy: n.Policy, Players: n.Players, Settings: string(settings), Version: 1,
		Seats: []models.Seat{{SeatNo: 0, UserID: &me.ID, Username: me.Username, Joined: true, Deck: deckJSON(deck), JoinedAt: &now}}}
	for _, name := range n.Invite {
		u, err := s.store.UserByUsername(ctx, name)
		if errors.Is(err, models.ErrNotFound) || err == nil && u.Deleted() {
			return nil, invalid("invite: no user %q", name)
		}
		if err != nil {
			return nil, err
		}
		if g.SeatOf(u.ID) >= 0 {
			return nil, invalid("invite: %q is already seated", name)
		}
		g.Seats = append(g.Seats, models.Seat{SeatNo: len(g.Seats), UserID: &u.ID, Username: u.Username, Invited: true})
	}
	for len(g.Seats) < n.Players-n.Bots {
		g.Seats = append(g.Seats, models.Seat{SeatNo: len(g.Seats)})
	}
	g.Seats = append(g.Seats, botSeats(len(g.Seats), n.Bots, now)...)
	return s.create(ctx, g, rec)
}

// create stores the new game g, with rec's idempotency record, in one
// transaction, unless its creator has MaxOpenGames open (limit_reached);
// the outbox is told of the seats its creator invited.
func (s *Service) create(ctx context.Context, g *models.Game, rec *Record) (*Result, error) {
	var invited []int
	for _, st := range g.Seats {
		if st.Invited {
			invited = append(invited, st.SeatNo)
		}
	}
	res := &Result{Game: g, Seat: 0}
	err := s.store.InTx(ctx, func(tx *models.Store) error {
		ok, err := tx.Room(ctx, g.CreatedBy, models.OpenGames, MaxOpenGames)
		if err != nil {
			return err
		}
		if !ok {
			return refusal.LimitReached(MaxOpenGames, "open games", "start or cancel one first")
		}
		if err := tx.CreateGame(ctx, g, models.Happened{Invited: invited}); err != nil {
			return err
		}
		return saveRecord(ctx, tx, rec, res)
	})
	if err != nil {
		return nil, accountGone(err, g.CreatedBy, g)
	}
	return res, nil
}

// accountGone says in play's terms the store's refusal to seat a deleted
// account (*models.UserGoneError), made in the change's transaction so
// that a deletion at the same time cannot miss the seat: uid's own
// account, or that of a player g invites. Any other err is returned as
// it is.
func accountGone(err error, uid int64, g *models.Game) error {
	var gone *models.UserGoneError
	switch {
	case !errors.As(err, &gone):
		return err
	case gone.UserID == uid: // as a request after the deletion is
		return ErrAccountDeleted
	case g != nil && g.SeatOf(gone.UserID) >= 0:
		return invalid("invite: no user %q", g.Seats[g.SeatOf(gone.UserID)].Username)
	}
	return invalid("invite: no user with id %d", gone.UserID)
}

// Rematch opens a new game like finished game id for user uid, who
// played it: the same number of seats, mode, variant, interrupt policy,
// deadlines, timeout rule and visibility, uid in seat 0 with the deck they
// played, the game's other players invited to the next seats (a deleted
// account's seat is left open), and as many bot seats, last. A game with
// no one to wait for (uid and bots) starts at once. rec's record is stored
// with the new game.
func (s *Service) Rematch(ctx context.Context, id, uid int64, rec *Record) (*Result, error) {
	old, seat, err := s.visible(ctx, id, uid)
	if err != nil {
		return nil, err
	}
	switch {
	case seat < 0 || !old.Seats[seat].Joined:
		return nil, ErrNotPlayer
	case old.Status != models.StatusOver:
		return nil, conflict("game_not_over", "a rematch follows a finished game; this one is %s", old.Status)
	}
	var deck engine.Deck
	if d := old.Seats[seat].Deck; d == nil || json.Unmarshal([]byte(*d), &deck) != nil {
		return nil, conflict("no_deck", "your deck of game %d cannot be read", id)
	}
	if err := engine.ValidateDeck(s.cat, deck, false, 0); err != nil {
		return nil, err
	}
	me, err := s.store.UserByID(ctx, uid)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	g := &models.Game{CreatedBy: me.ID, Status: models.StatusOpen, Public: old.Public, Mode: old.Mode, Office: old.Office,
		Policy: old.Policy, Players: old.Players, Settings: old.Settings, Version: 1,
		Seats: []models.Seat{{SeatNo: 0, UserID: &me.ID, Username: me.Username, Joined: true, Deck: deckJSON(deck), JoinedAt: &now}}}
	bots := 0
	for i, st := range old.Seats {
		var u *models.User
		if i != seat && st.Bot != models.BotFromStart && st.UserID != nil {
			// A seat keeps the name it was played under: whether its
			// account was deleted since is the user row's to say.
			if u, err = s.store.UserByID(ctx, *st.UserID); errors.Is(err, models.ErrNotFound) {
				u = nil
			} else if err != nil {
				return nil, err
			}
		}
		switch {
		case i == seat:
		case st.Bot == models.BotFromStart:
			bots++
		case u == nil || u.Deleted(): // nobody takes a deleted account's seat
			g.Seats = append(g.Seats, models.Seat{SeatNo: len(g.Seats)})
		default:
			g.Seats = append(g.Seats, models.Seat{SeatNo: len(g.Seats), UserID: st.UserID, Username: st.Username, Invited: true})
		}
	}
	g.Seats = append(g.Seats, botSeats(len(g.Seats), bots, now)...)
	res, err := s.create(ctx, g, rec)
	if err != nil || !ready(g) {
		return res, err
	}
	started, err := s.Start(ctx, g.ID, uid, nil)
	if err != nil {
		return res, nil // the game is open: its creator starts it from its page
	}
	return started, nil
}

// ready reports whether every seat of g is taken.
func ready(g *models.Game) bool {
	for _, st := range g.Seats {
		if !st.Joined {
			return false
		}
	}
	return true
}

// saveRecord stores rec's idempotency record of res with tx, if any.
func saveRecord(ctx context.Context, tx *models.Store, rec *Record, res *Result) error {
	if rec == nil || rec.Make == nil {
		return nil
	}
	r, err := rec.Make(res)
	if err != nil || r == nil {
		return err
	}
	return tx.SaveIdempotency(ctx, r)
}

// botSeats returns n bot seats numbered from first, each joined with a
// prebuilt deck. A bot seat has no user.
func botSeats(first, n int, now time.Time) []models.Seat {
	decks := engine.Standard().Decks()
	out := make([]models.Seat, 0, n)
	for i := range n {
		no := first + i
		out = append(out, models.Seat{SeatNo: no, Username: "bot-" + strconv.Itoa(no), Joined: true,
			Deck: deckJSON(decks[no%len(decks)]), JoinedAt: &now, Bot: models.BotFromStart})
	}
	return out
}

// resolveDeck returns the personal deck the choice names, checked against
// the deck-building rules. In the office variant every seat still brings a
// personal deck: at the start they are shuffled together into the shared
// Laboratory Deck (see Start).
func (s *Service) resolveDeck(ctx context.Context, uid int64, ch DeckChoice) (engine.Deck, error) {
	var d engine.Deck
	switch {
	case ch.Prebuilt != "" && ch.DeckID != 0, ch.Prebuilt == "" && ch.DeckID == 0:
		return d, invalid("deck: give exactly one of prebuilt or deck_id")
	case ch.Prebuilt != "":
		var ok bool
		if d, ok = s.cat.Deck(ch.Prebuilt); !ok {
			return d, invalid("deck: no prebuilt deck %q", ch.Prebuilt)
		}
	default:
		stored, err := s.store.Deck(ctx, uid, ch.DeckID)
		if errors.Is(err, models.ErrNotFound) {
			return d, invalid("deck: you have no deck %d", ch.DeckID)
		}
		if err != nil {
			return d, err
		}
		if d, err = stored.List(); err != nil {
			return d, err
		}
	}
	if err := engine.ValidateDeck(s.cat, d, false, 0); err != nil {
		return d, err
	}
	return d, nil
}

// officeDeck merges the seats' decks into the office variant's shared deck
// (engine.Catalog.OfficeDeck, which removes the copies past the office
// limits) and checks it against the office deck rules for the table.
func (s *Service) officeDeck(decks []engine.Deck) (engine.Deck, error) {
	for _, d := range decks {
		// Each is a personal deck first: its counts are bounded before
		// they are summed (a seat's list may have been stored unchecked).
		if err := engine.ValidateDeck(s.cat, d, false, len(decks)); err != nil {
			return engine.Deck{}, err
		}
	}
	out := s.cat.OfficeDeck(decks)
	return out, engine.ValidateDeck(s.cat, out, true, len(decks))
}

func deckJSON(d engine.Deck) *string {
	data, _ := json.Marshal(d)
	s := string(data)
	return &s
}

// visible returns game id and uid's seat in it (-1 for none), without its
// snapshot; a private game the user has no seat in is models.ErrNotFound.
func (s *Service) visible(ctx context.Context, id, uid int64) (*models.Game, int, error) {
	return s.visibleChecked(ctx, id, uid, nil)
}

// visibleChecked is visible checking the browser session chk (nil for
// none) in the game's read (models.SessionCheck).
func (s *Service) visibleChecked(ctx context.Context, id, uid int64, chk *models.SessionCheck) (*models.Game, int, error) {
	g, err := s.store.GameNoStateChecked(ctx, id, chk)
	if err != nil {
		return nil, 0, err
	}
	seat := g.SeatOf(uid)
	if seat < 0 && !g.Public {
		return nil, 0, models.ErrNotFound
	}
	return g, seat, nil
}

// Join seats user uid with the deck: in their invited seat, or else the
// first open seat.
func (s *Service) Join(ctx context.Context, id, uid int64, deck DeckChoice, rec *Record) (*Result, error) {
	if _, _, err := s.visible(ctx, id, uid); err != nil {
		return nil, err
	}
	return s.join(ctx, id, uid, deck, false, rec)
}

// JoinInvited is Join for a user who holds an invitation to game id made
// by one of its players (a signed link of the game, checked by the
// caller): the game may be private.
func (s *Service) JoinInvited(ctx context.Context, id, uid int64, deck DeckChoice, rec *Record) (*Result, error) {
	return s.join(ctx, id, uid, deck, true, rec)
}

// join seats uid in game id; invited: a private game too.
func (s *Service) join(ctx context.Context, id, uid int64, deck DeckChoice, invited bool, rec *Record) (*Result, error) {
	d, err := s.resolveDeck(ctx, uid, deck)
	if err != nil {
		return nil, err
	}
	me, err := s.store.UserByID(ctx, uid)
	if err != nil {
		return nil, err
	}
	res, err := s.lobbyOf(ctx, id, uid, invited, rec, func(g *models.Game, seat int) error {
		if g.Status != models.StatusOpen {
			return ErrNotOpen
		}
		if seat >= 0 && g.Seats[seat].Joined {
			return conflict("already_joined", "you already sit in this game")
		}
		if seat < 0 {
			seat = slices.IndexFunc(g.Seats, func(st models.Seat) bool { return st.UserID == nil })
		}
		if seat < 0 {
			return conflict("game_full", "no open seat is left")
		}
		now := s.now().UTC()
		st := &g.Seats[seat]
		st.UserID, st.Username, st.Joined, st.Deck, st.JoinedAt = &me.ID, me.Username, true, deckJSON(d), &now
		return nil
	})
	return res, accountGone(err, uid, nil)
}

// Leave gives up user uid's seat before the start. An invitation stays
// open for the invitee.
func (s *Service) Leave(ctx context.Context, id, uid int64, rec *Record) (*Result, error) {
	return s.lobby(ctx, id, uid, rec, func(g *models.Game, seat int) error {
		switch {
		case seat < 0 || !g.Seats[seat].Joined:
			return ErrNotPlayer
		case g.Status != models.StatusOpen:
			return ErrNotOpen
		case g.CreatedBy == uid:
			return conflict("creator_cannot_leave", "the creator cancels the game instead of leaving it")
		}
		st := &g.Seats[seat]
		st.Joined, st.Deck, st.JoinedAt = false, nil, nil
		if !st.Invited {
			st.UserID, st.Username = nil, ""
		}
		return nil
	})
}

// Decline turns down user uid's invitation to game id before the start:
// the invited seat becomes an open seat. A seat already joined is left with
// Leave instead; a user with no invitation to the game is ErrNotPlayer.
func (s *Service) Decline(ctx context.Context, id, uid int64, rec *Record) (*Result, error) {
	return s.lobby(ctx, id, uid, rec, func(g *models.Game, seat int) error {
		switch {
		case seat < 0 || !g.Seats[seat].Invited:
			return forbidden("not_invited", "you hold no invitation to this game")
		case g.Status != models.StatusOpen:
			return ErrNotOpen
		case g.Seats[seat].Joined:
			return conflict("already_joined", "you already sit in this game: leave it instead")
		}
		st := &g.Seats[seat]
		st.Invited, st.UserID, st.Username = false, nil, ""
		return nil
	})
}

// Cancel cancels a game that has not started; only its creator may.
func (s *Service) Cancel(ctx context.Context, id, uid int64, rec *Record) (*Result, error) {
	return s.lobby(ctx, id, uid, rec, func(g *models.Game, seat int) error {
		if g.CreatedBy != uid {
			return forbidden("not_creator", "only the game's creator may cancel it")
		}
		if g.Status != models.StatusOpen {
			return ErrNotOpen
		}
		now := s.now().UTC()
		g.Status, g.EndedAt = models.StatusCancelled, &now
		return nil
	})
}

// newSecret draws a game's secret, or the salt of its commitment.
func newSecret() engine.Secret {
	var b engine.Secret
	rand.Read(b[:])
	return b
}

// SetupOf is the engine setup of game g from its seats (their names and
// decks), without the secret: what Start gives engine.NewGame, and what a
// finished game's action log publishes.
func (s *Service) SetupOf(g *models.Game) (engine.Setup, error) {
	setup := engine.Setup{Mode: engine.Mode(g.Mode), Office: g.Office, Policy: engine.Policy(g.Policy)}
	open := 0
	for _, st := range g.Seats {
		if !st.Joined || st.Deck == nil {
			open++
		}
	}
	if open > 0 {
		verb := "are"
		if open == 1 {
			verb = "is"
		}
		return setup, conflict("not_full", "%d of the %d seats %s not taken yet", open, len(g.Seats), verb)
	}
	for _, st := range g.Seats {
		var d engine.Deck
		if err := json.Unmarshal([]byte(*st.Deck), &d); err != nil {
			return setup, err
		}
		setup.Players = append(setup.Players, engine.SeatSetup{Name: st.Username, Deck: d})
	}
	if g.Office {
		var decks []engine.Deck
		for _, p := range setup.Players {
			decks = append(decks, p.Deck)
		}
		var err error
		if setup.OfficeDeck, err = s.officeDeck(decks); err != nil {
			return setup, err
		}
	}
	return setup, nil
}

// Start deals the game once every seat is taken; only its creator may.
// The game's secret and the salt of its commitment come from crypto/rand.
func (s *Service) Start(ctx context.Context, id, uid int64, rec *Record) (*Result, error) {
	return s.change(ctx, id, uid, rec, func(g *models.Game, seat int) (*models.Change, *Result, error) {
		if g.CreatedBy != uid {
			return nil, nil, forbidden("not_creator", "only the game's creator may start it")
		}
		if g.Status != models.StatusOpen {
			return nil, nil, ErrNotOpen
		}
		setup, err := s.SetupOf(g)
		if err != nil {
			return nil, nil, err
		}
		setup.Secret, setup.Salt = newSecret(), newSecret()
		state, events, err := engine.NewGame(setup)
		if err != nil {
			return nil, nil, err
		}
		now := s.now().UTC()
		g.Status, g.StartedAt = models.StatusActive, &now
		ch, res, err := s.commit(g, seat, nil, nil, state, events)
		if ch != nil {
			ch.Happened.Started = true
		}
		return ch, res, err
	})
}

// ResignAll takes user uid out of every game they sit in, as when they
// delete their account: it cancels the open games they created, leaves
// the other open games they joined, declines their invitations to open
// games they have not joined (the seat opens for someone else), and
// resigns every active game. A game that moved on meanwhile (started,
// ended, resigned already) is left as it is; the first other error stops
// it.
func (s *Service) ResignAll(ctx context.Context, uid int64) error {
	for before := int64(0); ; {
		open, err := s.store.ListGames(ctx, models.GameFilter{UserID: uid, Status: models.StatusOpen, Before: before, Limit: 101})
		if err != nil {
			return err
		}
		for _, g := range open {
			seat := g.SeatOf(uid)
			switch {
			case g.CreatedBy == uid:
				_, err = s.Cancel(ctx, g.ID, uid, nil)
			case seat >= 0 && g.Seats[seat].Joined:
				_, err = s.Leave(ctx, g.ID, uid, nil)
			case seat >= 0 && g.Seats[seat].Invited:
				// Kept, the invited seat would wait for them for ever.
				_, err = s.Decline(ctx, g.ID, uid, nil)
			default:
				continue
			}
			if err != nil && !gone(err) {
				return err
			}
		}
		if len(open) < 101 {
			break
		}
		before = open[len(open)-1].ID
	}
	active, err := s.store.ActiveGamesOf(ctx, uid)
	if err != nil {
		return err
	}
	for _, id := range active {
		res, err := s.Resign(ctx, id, uid, nil)
		if err != nil && !gone(err) {
			return err
		}
		res.Done()
	}
	return nil
}

// gone reports whether err says that a game moved past what ResignAll
// meant to do to it: it started or ended meanwhile, or the seat resigned
// already.
func gone(err error) bool {
	var pe *Error
	var ill *engine.IllegalActionError
	return errors.As(err, &ill) || errors.As(err, &pe) && pe.Kind == Conflict || errors.Is(err, models.ErrNotFound)
}

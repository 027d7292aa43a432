package api

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

// Defaults and bounds of the game deadlines, in seconds.
const (
	defaultTurnDeadline   = 3 * 24 * 3600
	defaultPromptDeadline = 24 * 3600
	minDeadline           = 60
	maxDeadline           = 30 * 24 * 3600
	maxBatch              = 50
)

// resolveDeck returns the personal deck the choice names, checked against
// the deck-building rules. In the office variant every seat still brings a
// personal deck: at the start they are shuffled together into the shared
// Laboratory Deck (see startGame).
func (s *Server) resolveDeck(c *gin.Context, ch deckChoice, players int) (engine.Deck, error) {
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
		stored, err := s.store.Deck(c.Request.Context(), userID(c), ch.DeckID)
		if errors.Is(err, models.ErrNotFound) {
			return d, invalid("deck: you have no deck %d", ch.DeckID)
		}
		if err != nil {
			return d, err
		}
		if d, err = storedDeck(stored); err != nil {
			return d, err
		}
	}
	if err := engine.ValidateDeck(s.cat, d, false, players); err != nil {
		return d, err
	}
	return d, nil
}

// officeDeck merges the seats' decks into the office variant's shared deck
// and checks it against the office deck rules for the table.
func (s *Server) officeDeck(decks []engine.Deck) (engine.Deck, error) {
	out := engine.Deck{ID: "office", Name: "Office deck"}
	at := map[string]int{}
	for _, d := range decks {
		for _, e := range d.Cards {
			if i, ok := at[e.Card]; ok {
				out.Cards[i].Count += e.Count
				continue
			}
			at[e.Card] = len(out.Cards)
			out.Cards = append(out.Cards, e)
		}
	}
	return out, engine.ValidateDeck(s.cat, out, true, len(decks))
}

func deckJSON(d engine.Deck) *string {
	data, _ := json.Marshal(d)
	s := string(data)
	return &s
}

func settingsOf(g *models.Game) gameSettings {
	var st gameSettings
	json.Unmarshal([]byte(g.Settings), &st)
	return st
}

// createGame opens a game with the caller in seat 0, invited users in the
// next seats and open seats after them.
func (s *Server) createGame(c *gin.Context) {
	var req createGameRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	if req.Mode == "" {
		req.Mode = string(engine.ModeStandard)
	}
	if req.Policy == "" {
		req.Policy = string(engine.Holders)
	}
	if req.TurnDeadlineSeconds == 0 {
		req.TurnDeadlineSeconds = defaultTurnDeadline
	}
	if req.PromptDeadlineSeconds == 0 {
		req.PromptDeadlineSeconds = defaultPromptDeadline
	}
	public := req.Public == nil || *req.Public
	switch {
	case req.Players < engine.MinPlayers || req.Players > engine.MaxPlayers:
		writeError(c, invalid("players: %d to %d", engine.MinPlayers, engine.MaxPlayers))
		return
	case req.Mode != string(engine.ModeStandard) && req.Mode != string(engine.ModeFast):
		writeError(c, invalid("mode: standard or fast"))
		return
	case req.Policy != string(engine.Holders) && req.Policy != string(engine.Conceal):
		writeError(c, invalid("policy: holders or conceal"))
		return
	case len(req.Invite) > req.Players-1:
		writeError(c, invalid("invite: at most %d usernames for %d players", req.Players-1, req.Players))
		return
	case req.TurnDeadlineSeconds < minDeadline || req.TurnDeadlineSeconds > maxDeadline,
		req.PromptDeadlineSeconds < minDeadline || req.PromptDeadlineSeconds > maxDeadline:
		writeError(c, invalid("deadlines: %d to %d seconds", minDeadline, maxDeadline))
		return
	}
	if err := checkBots(&req); err != nil {
		writeError(c, err)
		return
	}
	deck, err := s.resolveDeck(c, req.Deck, req.Players)
	if err != nil {
		writeError(c, err)
		return
	}
	me, err := s.store.UserByID(c.Request.Context(), userID(c))
	if err != nil {
		writeError(c, err)
		return
	}
	settings, _ := json.Marshal(gameSettings{TurnDeadlineSeconds: req.TurnDeadlineSeconds, PromptDeadlineSeconds: req.PromptDeadlineSeconds,
		TimeoutLimit: *req.TimeoutLimit, OnTimeouts: req.OnTimeouts})
	now := s.now().UTC()
	uid := me.ID
	g := &models.Game{CreatedBy: me.ID, Status: models.StatusOpen, Public: public, Mode: req.Mode, Office: req.Office,
		Policy: req.Policy, Players: req.Players, Settings: string(settings), Version: 1,
		Seats: []models.Seat{{SeatNo: 0, UserID: &uid, Username: me.Username, Joined: true, Deck: deckJSON(deck), JoinedAt: &now}}}
	for _, name := range req.Invite {
		u, err := s.store.UserByUsername(c.Request.Context(), name)
		if errors.Is(err, models.ErrNotFound) {
			writeError(c, invalid("invite: no user %q", name))
			return
		}
		if err != nil {
			writeError(c, err)
			return
		}
		if g.SeatOf(u.ID) >= 0 {
			writeError(c, invalid("invite: %q is already seated", name))
			return
		}
		id := u.ID
		g.Seats = append(g.Seats, models.Seat{SeatNo: len(g.Seats), UserID: &id, Username: u.Username, Invited: true})
	}
	for len(g.Seats) < req.Players-req.Bots {
		g.Seats = append(g.Seats, models.Seat{SeatNo: len(g.Seats)})
	}
	g.Seats = append(g.Seats, botSeats(len(g.Seats), req.Bots, now)...)
	s.idempotentCreate(c, func(st *models.Store) (response, error) {
		if err := st.CreateGame(c.Request.Context(), g); err != nil {
			return response{}, err
		}
		return response{status: http.StatusCreated, body: s.gameOut(g, 0, nil),
			header: map[string]string{"Location": fmt.Sprintf("/v1/games/%d", g.ID), "ETag": etagOf(g, 0)}}, nil
	})
}

// etagOf is the ETag of the game as seat sees it: it changes with every
// version, and with the deadline (a vacation moves it without a new
// version).
func etagOf(g *models.Game, seat int) string {
	return fmt.Sprintf(`"g%d-v%d-s%d-d%d"`, g.ID, g.Version, seat, deadlineKey(g))
}

// deadlineKey is the game's deadline in microseconds (as stored), 0 for none.
func deadlineKey(g *models.Game) int64 {
	if g.DeadlineAt == nil {
		return 0
	}
	return g.DeadlineAt.UnixMicro()
}

// keyOf names the body of kind for seat of g at its version and deadline.
func keyOf(g *models.Game, seat int, kind byte) bodyKey {
	return bodyKey{g.ID, g.Version, deadlineKey(g), seat, kind}
}

// gameOut builds the game response for seat (-1: not a player). With a
// state it includes the seat's view and prompts.
func (s *Server) gameOut(g *models.Game, seat int, st *engine.State) gameResponse {
	set := settingsOf(g)
	out := gameResponse{ID: g.ID, Status: g.Status, Public: g.Public, Mode: g.Mode, Office: g.Office, Policy: g.Policy,
		Players: g.Players, Version: g.Version, TurnDeadlineSeconds: set.TurnDeadlineSeconds,
		PromptDeadlineSeconds: set.PromptDeadlineSeconds, Seats: []seatResponse{}, Winners: g.WinnerSeats(),
		DeadlineAt: rfc3339p(g.DeadlineAt), CreatedAt: rfc3339(g.CreatedAt), StartedAt: rfc3339p(g.StartedAt),
		EndedAt: rfc3339p(g.EndedAt)}
	if out.Winners == nil {
		out.Winners = []int{}
	}
	if seat >= 0 {
		out.YourSeat = &seat
	}
	for _, st := range g.Seats {
		sr := seatResponse{Seat: st.SeatNo, Invited: st.Invited, Joined: st.Joined, Awaited: st.Awaited}
		if st.Username != "" {
			name := st.Username
			sr.Username = &name
		}
		out.Seats = append(out.Seats, sr)
	}
	if st != nil {
		out.View = st.View(seat)
		out.Prompts = promptsFor(st, seat)
		if seat >= 0 {
			legal := legalFor(st, seat)
			out.Legal = &legal
		}
	}
	return out
}

// promptsFor is the seat's pending prompts; never another seat's.
func promptsFor(st *engine.State, seat int) []engine.Prompt {
	p := engine.PromptsFor(st, seat)
	if p == nil || seat < 0 {
		p = []engine.Prompt{}
	}
	return p
}

// listGames lists the caller's games (or, with open=true, public games
// waiting for players), newest first.
func (s *Server) listGames(c *gin.Context) {
	before, err := decodeCursor(c, "game")
	if err != nil {
		writeError(c, err)
		return
	}
	limit, err := queryInt(c, "limit", 20, 1, 100)
	if err != nil {
		writeError(c, err)
		return
	}
	f := models.GameFilter{UserID: userID(c), Before: before, Limit: int(limit) + 1, Status: c.Query("status"),
		Awaiting: c.Query("awaiting") == "true", Open: c.Query("open") == "true"}
	if f.Status != "" && !slices.Contains([]string{models.StatusOpen, models.StatusActive, models.StatusOver, models.StatusCancelled}, f.Status) {
		writeError(c, badRequest("status: open, active, over or cancelled"))
		return
	}
	for _, q := range []string{"awaiting", "open"} {
		if v, ok := c.GetQuery(q); ok && v != "true" && v != "false" {
			writeError(c, badRequest("%s: true or false", q))
			return
		}
	}
	games, err := s.store.ListGames(c.Request.Context(), f)
	if err != nil {
		writeError(c, err)
		return
	}
	out := gameListResponse{Games: []gameResponse{}}
	if len(games) > int(limit) {
		games = games[:limit]
		out.NextCursor = encodeCursor("game", games[len(games)-1].ID)
	}
	for i := range games {
		out.Games = append(out.Games, s.gameOut(&games[i], games[i].SeatOf(userID(c)), nil))
	}
	c.JSON(http.StatusOK, out)
}

// loadVisible returns the game and the caller's seat (-1 for a spectator
// of a public game). Private games of others are not found. The snapshot is
// read when needed (Snapshot), or at once with whole.
func (s *Server) loadVisible(c *gin.Context, whole ...bool) (*models.Game, int, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return nil, 0, err
	}
	load := s.store.GameNoState
	if len(whole) > 0 && whole[0] {
		load = s.store.Game
	}
	g, err := load(c.Request.Context(), id)
	if err != nil {
		return nil, 0, err
	}
	seat := g.SeatOf(userID(c))
	if seat < 0 && !g.Public {
		return nil, 0, models.ErrNotFound
	}
	return g, seat, nil
}

// getGame is the game as the caller may see it, with ETag.
func (s *Server) getGame(c *gin.Context) {
	s.visibleJSON(c, func(g *models.Game, seat int) (bodyKey, func(*engine.State) any, bool) {
		etag := etagOf(g, seat)
		c.Header("ETag", etag)
		if etagMatch(c, etag) {
			c.Status(http.StatusNotModified)
			return bodyKey{}, nil, false
		}
		return keyOf(g, seat, 'g'), func(st *engine.State) any { return s.gameOut(g, seat, st) }, true
	})
}

// visibleJSON responds with the body named by what prepare returns for the
// game the caller may see (nothing when ok is false): the cached one, known
// from the game's reference alone, or else the encoding of what build
// returns from the game's state.
func (s *Server) visibleJSON(c *gin.Context, prepare func(g *models.Game, seat int) (k bodyKey, build func(*engine.State) any, ok bool)) {
	// First the game's reference alone: with it a cached body, or 304,
	// is the answer without reading the game.
	id, err := pathID(c, "id")
	if err != nil {
		writeError(c, err)
		return
	}
	ref, err := s.store.GameRef(c.Request.Context(), id, userID(c))
	if err == nil || errors.Is(err, models.ErrNotFound) { // the token's generation first (see authenticateLater)
		if ended := checkLater(c, ref.TokenGen); ended != nil {
			err = ended
		}
	}
	if err == nil && ref.Seat < 0 && !ref.Public {
		err = models.ErrNotFound
	}
	if err != nil {
		writeError(c, err)
		return
	}
	k, _, ok := prepare(&models.Game{ID: id, Version: ref.Version, Public: ref.Public, DeadlineAt: ref.DeadlineAt}, ref.Seat)
	if !ok {
		return
	}
	if body, hit := s.bodies.get(k); hit {
		c.Data(http.StatusOK, "application/json; charset=utf-8", body)
		return
	}
	// The game and its parsed state: from the state cache when it holds
	// this version (as after a submission to the game), else read whole.
	st := s.states.take(id, ref.Version)
	g, seat, err := s.loadVisible(c, st == nil)
	if err == nil && st != nil && g.Version != ref.Version { // moved on meanwhile
		s.states.put(id, ref.Version, st)
		g, seat, err = s.loadVisible(c, true)
		st = nil
	}
	if err == nil && st == nil {
		st, err = s.takeState(g)
	}
	if err != nil {
		s.states.put(id, ref.Version, st)
		writeError(c, err)
		return
	}
	defer s.states.put(g.ID, g.Version, st) // once encoded: the body may share the state's memory
	k, build, ok := prepare(g, seat)
	if !ok {
		return
	}
	body, err := json.Marshal(build(st))
	if err != nil {
		writeError(c, err)
		return
	}
	s.bodies.put(k, body)
	c.Data(http.StatusOK, "application/json; charset=utf-8", body)
}

func actionOut(a engine.Action) actionInput {
	out := actionInput{Type: a.Type.String(), Card: a.Card, Challenges: a.Challenges, Prompt: a.Prompt, Choices: a.Choices}
	if a.Standing != nil {
		out.Standing = &standingInput{Pass: a.Standing.Pass, Plays: []standingPlayInput{}}
		for _, p := range a.Standing.Plays {
			out.Standing.Plays = append(out.Standing.Plays, standingPlayInput{On: string(p.On), Card: p.Card})
		}
	}
	return out
}

func actionIn(a actionInput) engine.Action {
	out := engine.Action{Type: engine.ActionType(a.Type), Card: a.Card, Challenges: a.Challenges, Prompt: a.Prompt, Choices: a.Choices}
	if a.Standing != nil {
		out.Standing = &engine.Standing{Pass: a.Standing.Pass}
		for _, p := range a.Standing.Plays {
			out.Standing.Plays = append(out.Standing.Plays, engine.StandingPlay{On: engine.EventKind(p.On), Card: p.Card})
		}
	}
	return out
}

// legalActions lists what the caller's seat may do now.
func (s *Server) legalActions(c *gin.Context) {
	s.visibleJSON(c, func(g *models.Game, seat int) (bodyKey, func(*engine.State) any, bool) {
		if seat < 0 {
			writeError(c, forbidden("not_a_player", "you have no seat in this game"))
			return bodyKey{}, nil, false
		}
		return keyOf(g, seat, 'l'), func(st *engine.State) any {
			out := legalResponse{Version: g.Version, Seat: seat, Actions: []actionInput{}}
			if g.Status == models.StatusActive {
				out.Actions = legalFor(st, seat)
			}
			return out
		}, true
	})
}

// legalFor lists the legal actions of seat (none for a spectator or a
// game without a state).
func legalFor(st *engine.State, seat int) []actionInput {
	out := []actionInput{}
	if st == nil || seat < 0 {
		return out
	}
	for _, a := range engine.Legal(st, seat) {
		out = append(out, actionOut(a))
	}
	return out
}

// listEvents is the event log after a sequence number, redacted for the
// caller (spectators see only public events).
func (s *Server) listEvents(c *gin.Context) {
	g, seat, err := s.loadVisible(c)
	if err != nil {
		writeError(c, err)
		return
	}
	after, err := queryInt(c, "after", 0, 0, 1<<62)
	if err != nil {
		writeError(c, err)
		return
	}
	limit, err := queryInt(c, "limit", 100, 1, 500)
	if err != nil {
		writeError(c, err)
		return
	}
	recs, err := s.store.EventsAfter(c.Request.Context(), g.ID, after, int(limit))
	if err != nil {
		writeError(c, err)
		return
	}
	out := eventListResponse{Events: []eventResponse{}, NextAfter: after}
	for _, r := range recs {
		var ev engine.Event
		if err := json.Unmarshal([]byte(r.Body), &ev); err != nil {
			writeError(c, err)
			return
		}
		out.NextAfter = r.Seq
		if v, ok := ev.For(seat); ok {
			out.Events = append(out.Events, eventResponse{Seq: r.Seq, Version: r.Version, CreatedAt: rfc3339(r.CreatedAt), Event: v})
		}
	}
	c.JSON(http.StatusOK, out)
}

// response is a status and body decided inside a game transaction.
type response struct {
	status int
	body   any
	header map[string]string
	// written, when set, runs once the change is committed and the
	// response written.
	written func()
}

// mutation changes a locked game for the caller's seat (-1: none) and
// returns what to write and how to respond once the sequence numbers are
// assigned.
type mutation func(g *models.Game, seat int) (*models.Change, func() response, error)

// mutateGame runs fn on the locked game and responds. With an
// Idempotency-Key header, a repeat of the same request (same method, path and
// body) gets the stored response again without applying anything, and a
// different request with the key gets 422.
func (s *Server) mutateGame(c *gin.Context, fn mutation) {
	id, err := pathID(c, "id")
	if err != nil {
		writeError(c, err)
		return
	}
	uid := userID(c)
	key, reqHash, done := s.idempotencyStart(c)
	if done {
		return
	}
	var resp response
	// The state cache's version of the game spares reading the snapshot
	// when it is still current; takeState reads it otherwise.
	_, err = s.store.MutateCached(c.Request.Context(), id, s.states.version(id), func(g *models.Game) (*models.Change, error) {
		seat := g.SeatOf(uid)
		if seat < 0 && !g.Public {
			return nil, models.ErrNotFound
		}
		ch, respond, err := fn(g, seat)
		if err != nil {
			return nil, err
		}
		ch.Record = func() (*models.Idempotency, error) {
			resp = respond()
			if key == "" {
				return nil, nil
			}
			data, err := s.seal(c, uid, key, resp)
			if err != nil {
				return nil, err
			}
			return &models.Idempotency{UserID: uid, Key: key, RequestHash: reqHash, Status: resp.status, Response: data}, nil
		}
		return ch, nil
	})
	if errors.Is(err, models.ErrConflict) && key != "" && s.replay(c, uid, key, reqHash) {
		return // a concurrent request with the same key won
	}
	if err != nil {
		writeError(c, err)
		return
	}
	c.JSON(resp.status, resp.body)
	if resp.written != nil {
		resp.written()
	}
}

// lobby is a mutation of a game that has not started: it bumps the version
// and responds with the game.
func (s *Server) lobby(c *gin.Context, fn func(g *models.Game, seat int) error) {
	s.mutateGame(c, func(g *models.Game, seat int) (*models.Change, func() response, error) {
		if err := fn(g, seat); err != nil {
			return nil, nil, err
		}
		g.Version++
		return &models.Change{}, func() response {
			return response{status: http.StatusOK, body: s.gameOut(g, g.SeatOf(userID(c)), nil)}
		}, nil
	})
}

var errNotOpen = conflict("game_not_open", "the game has already started or was cancelled")

// joinGame takes the caller's invited seat, or else the first open seat.
func (s *Server) joinGame(c *gin.Context) {
	var req joinRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	g, _, err := s.loadVisible(c)
	if err != nil {
		writeError(c, err)
		return
	}
	deck, err := s.resolveDeck(c, req.Deck, g.Players)
	if err != nil {
		writeError(c, err)
		return
	}
	me, err := s.store.UserByID(c.Request.Context(), userID(c))
	if err != nil {
		writeError(c, err)
		return
	}
	s.lobby(c, func(g *models.Game, seat int) error {
		if g.Status != models.StatusOpen {
			return errNotOpen
		}
		if seat >= 0 && g.Seats[seat].Joined {
			return conflict("already_joined", "you already sit in seat %d", seat)
		}
		if seat < 0 {
			seat = slices.IndexFunc(g.Seats, func(st models.Seat) bool { return st.UserID == nil })
		}
		if seat < 0 {
			return conflict("game_full", "no open seat is left")
		}
		now := s.now().UTC()
		uid := me.ID
		st := &g.Seats[seat]
		st.UserID, st.Username, st.Joined, st.Deck, st.JoinedAt = &uid, me.Username, true, deckJSON(deck), &now
		return nil
	})
}

// leaveGame gives up the caller's seat before the start. An invitation
// stays open for the invitee.
func (s *Server) leaveGame(c *gin.Context) {
	s.lobby(c, func(g *models.Game, seat int) error {
		switch {
		case seat < 0 || !g.Seats[seat].Joined:
			return forbidden("not_a_player", "you have no seat in this game")
		case g.Status != models.StatusOpen:
			return errNotOpen
		case g.CreatedBy == userID(c):
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

// cancelGame cancels a game that has not started; only its creator may.
func (s *Server) cancelGame(c *gin.Context) {
	s.lobby(c, func(g *models.Game, seat int) error {
		if g.CreatedBy != userID(c) {
			return forbidden("not_creator", "only the game's creator may cancel it")
		}
		if g.Status != models.StatusOpen {
			return errNotOpen
		}
		now := s.now().UTC()
		g.Status, g.EndedAt = models.StatusCancelled, &now
		return nil
	})
}

// newSeed draws the game's secret seed.
func newSeed() uint64 {
	var b [8]byte
	rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// startGame deals the game once every seat is taken; only the creator may.
func (s *Server) startGame(c *gin.Context) {
	s.mutateGame(c, func(g *models.Game, seat int) (*models.Change, func() response, error) {
		if g.CreatedBy != userID(c) {
			return nil, nil, forbidden("not_creator", "only the game's creator may start it")
		}
		if g.Status != models.StatusOpen {
			return nil, nil, errNotOpen
		}
		setup := engine.Setup{Seed: newSeed(), Mode: engine.Mode(g.Mode), Office: g.Office, Policy: engine.Policy(g.Policy)}
		for _, st := range g.Seats {
			if !st.Joined || st.Deck == nil {
				return nil, nil, conflict("not_full", "seat %d is not taken yet", st.SeatNo)
			}
			var d engine.Deck
			if err := json.Unmarshal([]byte(*st.Deck), &d); err != nil {
				return nil, nil, err
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
				return nil, nil, err
			}
		}
		state, events, err := engine.NewGame(setup)
		if err != nil {
			return nil, nil, err
		}
		now := s.now().UTC()
		g.Status, g.StartedAt = models.StatusActive, &now
		return s.commitState(g, seat, nil, nil, state, events)
	})
}

// submitActions applies a batch of actions for the caller's seat, all or
// nothing, if the game is still at the version they were computed from.
func (s *Server) submitActions(c *gin.Context) {
	var req submitRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	expected, err := expectedVersion(c, req.ExpectedVersion)
	if err != nil {
		writeError(c, err)
		return
	}
	if len(req.Actions) == 0 || len(req.Actions) > maxBatch {
		writeError(c, invalid("actions: 1 to %d actions", maxBatch))
		return
	}
	actions := make([]engine.Action, len(req.Actions))
	for i, a := range req.Actions {
		if a.Type == string(engine.ActTimeout) {
			writeError(c, &BatchError{Index: i, Err: &engine.IllegalActionError{Code: engine.ErrBadAction.Code,
				Reason: "timeout is submitted by the service, not a seat"}})
			return
		}
		actions[i] = actionIn(a)
	}
	s.apply(c, &expected, actions)
}

// resign and voteEnd submit the one action they name, at any version.
func (s *Server) resign(c *gin.Context) {
	s.apply(c, nil, []engine.Action{{Type: engine.ActResign}})
}

func (s *Server) voteEnd(c *gin.Context) {
	s.apply(c, nil, []engine.Action{{Type: engine.ActVoteEnd}})
}

var ifMatchVersion = regexp.MustCompile(`^(?:W/)?"(?:g\d+-)?v(\d+)(?:-s-?\d+)?(?:-d\d+)?"$`)

// expectedVersion takes the version from the body or from If-Match (an
// ETag of the game, or "v12"); one of them is required and they must agree.
func expectedVersion(c *gin.Context, body *int64) (int64, error) {
	var header *int64
	if im := strings.TrimSpace(c.GetHeader("If-Match")); im != "" {
		m := ifMatchVersion.FindStringSubmatch(im)
		if m == nil {
			return 0, badRequest(`If-Match: want an ETag of the game, or "v<version>"`)
		}
		v, _ := strconv.ParseInt(m[1], 10, 64)
		header = &v
	}
	switch {
	case body == nil && header == nil:
		return 0, newError(http.StatusPreconditionRequired, "version_required", "Version required",
			"name the version the actions were computed from: expected_version or If-Match")
	case body != nil && header != nil && *body != *header:
		return 0, badRequest("expected_version and If-Match disagree")
	case body != nil:
		return *body, nil
	}
	return *header, nil
}

// apply runs actions for the caller's seat on the locked game.
func (s *Server) apply(c *gin.Context, expected *int64, actions []engine.Action) {
	s.mutateGame(c, func(g *models.Game, seat int) (*models.Change, func() response, error) {
		switch {
		case seat < 0:
			return nil, nil, forbidden("not_a_player", "you have no seat in this game")
		case g.Status != models.StatusActive:
			return nil, nil, conflict("game_not_active", "the game is %s", g.Status)
		}
		prev, err := s.takeState(g)
		if err != nil {
			return nil, nil, err
		}
		if expected != nil && *expected != g.Version && !answersOpenPrompts(prev, seat, actions) {
			s.states.put(g.ID, g.Version, prev)
			return nil, nil, &StaleVersionError{Current: g.Version}
		}
		ch, respond, err := s.play(g, prev, seat, actions)
		var illegal *BatchError
		if errors.As(err, &illegal) {
			s.states.put(g.ID, g.Version, prev) // unchanged: Apply and ApplyBatch change nothing on error
		}
		return ch, respond, err
	})
}

// play applies actions for seat to st, the state of the locked game g, all
// or nothing, and records the result on g (commitState). An illegal action
// gives a *BatchError that names it, and leaves st unchanged.
func (s *Server) play(g *models.Game, st *engine.State, seat int, actions []engine.Action) (*models.Change, func() response, error) {
	before := slices.Clone(st.Prompts)
	next, events, idx, err := applyActions(st, seat, actions)
	if err != nil {
		return nil, nil, &BatchError{Index: idx, Err: err}
	}
	return s.commitState(g, seat, before, actions, next, events)
}

// takeState returns the engine state of g at its version (nil before the
// start), from the state cache when it holds that version, else decoded
// from the snapshot. The caller owns it: it is no longer in the cache, and
// goes back with states.put once the caller is done with it.
func (s *Server) takeState(g *models.Game) (*engine.State, error) {
	if st := s.states.take(g.ID, g.Version); st != nil {
		return st, nil
	}
	data, err := g.Snapshot()
	if err != nil || data == nil {
		return nil, err
	}
	return engine.Unmarshal(data)
}

// applyActions applies a batch for seat, all or nothing. One action is
// applied in place (Apply leaves the state unchanged on error), which spares
// the copy ApplyBatch makes to keep a batch all-or-nothing.
func applyActions(st *engine.State, seat int, actions []engine.Action) (*engine.State, []engine.Event, int, error) {
	if len(actions) == 1 {
		events, err := engine.Apply(st, seat, actions[0])
		return st, events, 0, err
	}
	return engine.ApplyBatch(st, seat, actions)
}

// commitState records a new engine state on g: snapshot, version, awaited
// seats, deadline, status and winners, and returns the change (actions,
// events, prompts) and the response for seat.
func (s *Server) commitState(g *models.Game, seat int, prevPrompts []engine.Prompt, actions []engine.Action, next *engine.State,
	events []engine.Event) (*models.Change, func() response, error) {
	data, err := next.Marshal()
	if err != nil {
		return nil, nil, err
	}
	now := s.now().UTC()
	set := settingsOf(g)
	g.State = data
	g.Version++
	awaiting := engine.Awaiting(next)
	moved := false // whether the game waits for other seats than before
	for i := range g.Seats {
		a := slices.Contains(awaiting, g.Seats[i].SeatNo)
		moved = moved || a != g.Seats[i].Awaited
		g.Seats[i].Awaited = a
	}
	promptsChanged := !samePrompts(prevPrompts, next.Prompts)
	switch {
	case next.Over():
		g.DeadlineAt = nil
		g.Status, g.EndedAt = models.StatusOver, &now
		var w []string
		for _, seat := range next.Winners {
			w = append(w, strconv.Itoa(seat))
		}
		g.Winners = strings.Join(w, ",")
	case !moved && !promptsChanged && g.DeadlineAt != nil && seat != engine.System:
		// The same seats wait for the same things: their clock runs on (a
		// turn's deadline is for the whole turn, not for each action).
	case len(next.Prompts) > 0:
		d := now.Add(time.Duration(set.PromptDeadlineSeconds) * time.Second)
		g.DeadlineAt = &d
	case len(awaiting) > 0:
		d := now.Add(time.Duration(set.TurnDeadlineSeconds) * time.Second)
		g.DeadlineAt = &d
	default:
		g.DeadlineAt = nil
	}
	ch := &models.Change{}
	var uid *int64
	if seat >= 0 && g.Seats[seat].UserID != nil {
		uid = g.Seats[seat].UserID
	}
	for _, a := range actions {
		body, _ := json.Marshal(a)
		ch.Actions = append(ch.Actions, models.ActionRecord{Version: g.Version, Seat: seat, UserID: uid, Body: string(body)})
	}
	for _, e := range events {
		body, _ := json.Marshal(e)
		ch.Events = append(ch.Events, models.EventRecord{Body: string(body)})
	}
	ch.Engine = &models.EngineChange{State: next, Events: events}
	for _, p := range prevPrompts {
		ch.Engine.PrevPrompts = append(ch.Engine.PrevPrompts, p.ID)
	}
	if promptsChanged {
		ch.ReplacePrompts = true
		for _, p := range next.Prompts {
			body, _ := json.Marshal(p)
			ch.Prompts = append(ch.Prompts, models.PromptRecord{PromptID: p.ID, Seat: p.Seat, Body: string(body), DeadlineAt: g.DeadlineAt})
		}
	}
	respond := func() response {
		out := submitResponse{Version: g.Version, Status: g.Status, Events: []eventResponse{}, View: next.View(seat),
			Prompts: promptsFor(next, seat), Legal: legalFor(next, seat)}
		for i, e := range events {
			if v, ok := e.For(seat); ok {
				r := ch.Events[i]
				out.Events = append(out.Events, eventResponse{Seq: r.Seq, Version: r.Version, CreatedAt: rfc3339(r.CreatedAt), Event: v})
			}
		}
		id, version := g.ID, g.Version
		return response{status: http.StatusOK, body: out, written: func() { s.states.put(id, version, next) }}
	}
	return ch, respond, nil
}

// answersOpenPrompts reports whether every action answers a prompt that
// is still open for seat. Such a batch does not depend on what the other
// seats did meanwhile (each prompt lists its own legal answers), so it is
// applied even when the game moved on since the version it names: an
// answer never fails because another player answered a different prompt.
func answersOpenPrompts(st *engine.State, seat int, actions []engine.Action) bool {
	open := engine.PromptsFor(st, seat)
	for _, a := range actions {
		if a.Type != engine.ActAnswer || !slices.ContainsFunc(open, func(p engine.Prompt) bool { return p.ID == a.Prompt }) {
			return false
		}
	}
	return len(actions) > 0
}

func samePrompts(a, b []engine.Prompt) bool {
	return slices.EqualFunc(a, b, func(x, y engine.Prompt) bool { return x.ID == y.ID })
}

package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/jsonenc"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// deckChoice translates the request's deck to the play path's.
func (d deckChoice) play() play.DeckChoice {
	return play.DeckChoice{Prebuilt: d.Prebuilt, DeckID: d.DeckID}
}

// createGame opens a game with the caller in seat 0, invited users in the
// next seats and open seats after them.
func (s *Server) createGame(c *gin.Context) error {
	var req createGameRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	n := play.NewGame{Players: req.Players, Mode: req.Mode, Office: req.Office, Public: req.Public, Policy: req.Policy,
		Deck: req.Deck.play(), Invite: req.Invite, TurnDeadlineSeconds: req.TurnDeadlineSeconds,
		PromptDeadlineSeconds: req.PromptDeadlineSeconds, Bots: req.Bots, TimeoutLimit: req.TimeoutLimit, OnTimeouts: req.OnTimeouts,
		SpectatorMessages: req.SpectatorMessages, IgnoreQuietHours: req.RespectQuietHours != nil && !*req.RespectQuietHours}
	return s.mutateGame(c, func(rec *play.Record) (*play.Result, error) {
		return s.play.Create(c.Request.Context(), userID(c), n, rec)
	}, func(r *play.Result) response {
		g := r.Game
		return response{status: http.StatusCreated, body: s.gameOut(g, 0, nil),
			header: map[string]string{"Location": fmt.Sprintf("/v1/games/%d", g.ID), "ETag": etagOf(g, 0)}}
	})
}

// etagOf is the ETag of the game as seat sees it: it changes with every
// version, and with the deadline (a vacation moves it without a new
// version).
func etagOf(g *models.Game, seat int) string {
	b := make([]byte, 0, 64)
	b = append(b, `"g`...)
	b = strconv.AppendInt(b, g.ID, 10)
	b = append(b, "-v"...)
	b = strconv.AppendInt(b, g.Version, 10)
	b = append(b, "-s"...)
	b = strconv.AppendInt(b, int64(seat), 10)
	b = append(b, "-d"...)
	b = strconv.AppendInt(b, deadlineKey(g), 10)
	return string(append(b, '"'))
}

// deadlineKey is the game's deadline in microseconds (as stored), 0 for none.
func deadlineKey(g *models.Game) int64 {
	if g.DeadlineAt == nil {
		return 0
	}
	return g.DeadlineAt.UnixMicro()
}

// bodyKey names a response that is fixed by the game version and deadline
// and the seat asking: the game detail or the legal actions.
type bodyKey struct {
	game, version, deadline int64
	seat                    int
	kind                    byte
}

// keyOf names the body of kind for seat of g at its version and deadline.
func keyOf(g *models.Game, seat int, kind byte) bodyKey {
	return bodyKey{g.ID, g.Version, deadlineKey(g), seat, kind}
}

// gameOut builds the game response for seat (-1: not a player). With a
// state it includes the seat's view and prompts.
func (s *Server) gameOut(g *models.Game, seat int, st *engine.State) gameResponse {
	set := g.SettingsOf()
	out := gameResponse{ID: g.ID, Status: g.Status, Public: g.Public, Mode: g.Mode, Office: g.Office, Policy: g.Policy,
		Players: g.Players, Version: g.Version, TurnDeadlineSeconds: set.TurnDeadlineSeconds,
		PromptDeadlineSeconds: set.PromptDeadlineSeconds, SpectatorMessages: set.SpectatorMessages, Seats: []seatResponse{}, Winners: g.WinnerSeats(),
		DeadlineAt: rfc3339p(g.DeadlineAt), CreatedAt: rfc3339(g.CreatedAt), StartedAt: rfc3339p(g.StartedAt),
		EndedAt: rfc3339p(g.EndedAt), RespectQuietHours: !set.IgnoreQuietHours, QuietSeats: g.QuietSeats()}
	if out.Winners == nil {
		out.Winners = []int{}
	}
	if out.QuietSeats == nil {
		out.QuietSeats = []int{}
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
		out.Fairness = play.FairnessOf(st)
		out.View = st.View(seat)
		out.Prompts = promptsFor(st, seat)
		if seat >= 0 {
			legal := legalIn(st, out.View)
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
func (s *Server) listGames(c *gin.Context) error {
	before, err := decodeCursor(c, "game")
	if err != nil {
		return err
	}
	limit, err := queryInt(c, "limit", 20, 1, 100)
	if err != nil {
		return err
	}
	f := models.GameFilter{UserID: userID(c), Before: before, Limit: int(limit) + 1, Status: c.Query("status"),
		Awaiting: c.Query("awaiting") == "true", Open: c.Query("open") == "true"}
	if f.Status != "" && !slices.Contains([]string{models.StatusOpen, models.StatusActive, models.StatusOver, models.StatusCancelled}, f.Status) {
		return badRequest("status: open, active, over or cancelled")
	}
	for _, q := range []string{"awaiting", "open"} {
		if v, ok := c.GetQuery(q); ok && v != "true" && v != "false" {
			return badRequest("%s: true or false", q)
		}
	}
	if err := nearRating(c, &f); err != nil {
		return err
	}
	games, err := s.store.ListGames(c.Request.Context(), f)
	if err != nil {
		return err
	}
	out := gameListResponse{Games: []gameResponse{}}
	if len(games) > int(limit) {
		games = games[:limit]
		out.NextCursor = encodeCursor("game", games[len(games)-1].ID)
	}
	for i := range games {
		out.Games = append(out.Games, s.gameOut(&games[i], games[i].SeatOf(userID(c)), nil))
	}
	writeJSON(c, http.StatusOK, out)
	return nil
}

// nearRating reads the filter of open games near a rating into f:
// near_rating (0 to 4000), with open=true only, and within (1 to 1000,
// default NearRatingWithin).
func nearRating(c *gin.Context, f *models.GameFilter) error {
	_, near := c.GetQuery("near_rating")
	_, within := c.GetQuery("within")
	if !near {
		if within {
			return badRequest("within: only with near_rating")
		}
		return nil
	}
	if !f.Open {
		return badRequest("near_rating: only with open=true (it filters the public games waiting for players)")
	}
	r, err := queryInt(c, "near_rating", 0, 0, 4000)
	if err != nil {
		return err
	}
	w, err := queryInt(c, "within", play.NearRatingWithin, 1, 1000)
	if err != nil {
		return err
	}
	play.NearRating(f, float64(r), float64(w))
	return nil
}

// loadVisible returns the game and the caller's seat (-1 for a spectator
// of a public game), without its snapshot. Private games of others are not
// found.
func (s *Server) loadVisible(c *gin.Context) (*models.Game, int, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return nil, 0, err
	}
	return s.play.Game(c.Request.Context(), id, userID(c))
}

// getGame is the game as the caller may see it, with ETag.
func (s *Server) getGame(c *gin.Context) error {
	return s.visibleJSON(c, func(g *models.Game, seat int) (bodyKey, func(*engine.State) any, error) {
		etag := etagOf(g, seat)
		c.Header("ETag", etag)
		if etagMatch(c, etag) {
			c.Status(http.StatusNotModified)
			return bodyKey{}, nil, nil
		}
		return keyOf(g, seat, 'g'), func(st *engine.State) any { return s.gameOut(g, seat, st) }, nil
	})
}

// visibleJSON responds with the body named by what prepare returns for the
// game the caller may see: the cached one, known from the game's reference
// alone, or else the encoding of what build returns from the game's state.
// prepare returns no build when it has answered (304), or a refusal.
func (s *Server) visibleJSON(c *gin.Context, prepare func(g *models.Game, seat int) (k bodyKey, build func(*engine.State) any, err error)) error {
	// First the game's reference alone: with it a cached body, or 304,
	// is the answer without reading the game.
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	ref, err := s.play.Ref(c.Request.Context(), id, userID(c), laterSession(c))
	if err == nil || errors.Is(err, models.ErrNotFound) { // the token's generation first (see authenticateLater)
		if ended := checkLater(c, ref.TokenGen, ref.SessionLive); ended != nil {
			err = ended
		}
	}
	if err != nil {
		return err
	}
	k, build, err := prepare(&models.Game{ID: id, Version: ref.Version, Public: ref.Public, DeadlineAt: ref.DeadlineAt}, ref.Seat)
	if err != nil || build == nil {
		return err
	}
	if body, hit := s.bodies.Get(k); hit {
		c.Data(http.StatusOK, jsonType, body)
		return nil
	}
	var body []byte
	err = s.play.ReadAt(c.Request.Context(), ref, id, userID(c), func(g *models.Game, seat int, st *engine.State) error {
		k, build, err := prepare(g, seat)
		if err != nil || build == nil {
			return err
		}
		if body, err = jsonenc.Marshal(build(st)); err == nil { // encoded while the state is lent
			s.bodies.Put(k, body)
		}
		return err
	})
	if err != nil {
		return err
	}
	if body != nil {
		c.Data(http.StatusOK, jsonType, body)
	}
	return nil
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
func (s *Server) legalActions(c *gin.Context) error {
	return s.visibleJSON(c, func(g *models.Game, seat int) (bodyKey, func(*engine.State) any, error) {
		if seat < 0 {
			return bodyKey{}, nil, forbidden("not_a_player", "you have no seat in this game")
		}
		return keyOf(g, seat, 'l'), func(st *engine.State) any {
			out := legalResponse{Version: g.Version, Seat: seat, Actions: []legalAction{}}
			if g.Status == models.StatusActive {
				out.Actions = legalFor(st, seat)
			}
			return out
		}, nil
	})
}

// legalFor lists the legal actions of seat in words, each open prompt once
// with its options (none for a spectator or a game without a state).
func legalFor(st *engine.State, seat int) []legalAction {
	if st == nil || seat < 0 {
		return []legalAction{}
	}
	return legalIn(st, st.View(seat))
}

// legalIn is legalFor for the seat of v, a view of st.
func legalIn(st *engine.State, v *engine.View) []legalAction {
	out := []legalAction{}
	if v.Seat < 0 {
		return out
	}
	for _, m := range v.Moves(engine.Legal(st, v.Seat)) {
		l := legalAction{actionInput: actionOut(m.Action), Text: m.Text}
		if m.Type == engine.ActAnswer {
			l.Min, l.Max, l.Options = &m.Min, &m.Max, m.Options
		}
		out = append(out, l)
	}
	return out
}

// listEvents is the event log after a sequence number, redacted for the
// caller (spectators see only public events).
func (s *Server) listEvents(c *gin.Context) error {
	g, seat, err := s.loadVisible(c)
	if err != nil {
		return err
	}
	after, err := queryInt(c, "after", 0, 0, 1<<62)
	if err != nil {
		return err
	}
	limit, err := queryInt(c, "limit", 100, 1, 500)
	if err != nil {
		return err
	}
	recs, err := s.store.EventsAfter(c.Request.Context(), g.ID, after, int(limit))
	if err != nil {
		return err
	}
	out := eventListResponse{Events: []eventResponse{}, NextAfter: after}
	for _, r := range recs {
		var ev engine.Event
		if err := json.Unmarshal([]byte(r.Body), &ev); err != nil {
			return err
		}
		out.NextAfter = r.Seq
		if v, ok := ev.For(seat); ok {
			out.Events = append(out.Events, eventResponse{Seq: r.Seq, Version: r.Version, CreatedAt: rfc3339(r.CreatedAt), Event: v})
		}
	}
	writeJSON(c, http.StatusOK, out)
	return nil
}

// response is a status and body decided for a change.
type response struct {
	status int
	body   any
	header map[string]string
}

// mutateGame makes the change call names through the play path and
// responds with what respond builds from its result. With an
// Idempotency-Key header, a repeat of the same request (same method, path
// and body) gets the stored response again without applying anything, and
// a different request with the key gets 422; the record is stored in the
// change's transaction (call passes rec to the play path).
func (s *Server) mutateGame(c *gin.Context, call func(rec *play.Record) (*play.Result, error), respond func(*play.Result) response) error {
	uid := userID(c)
	tok := tokenCheck(c)
	if tok != nil && c.GetHeader(idempotencyKeyHeader) != "" {
		// A stored response may answer before any lock: check first.
		if err := s.checkNow(c); err != nil {
			return err
		}
		tok = nil
	}
	key, reqHash, err := s.idempotencyKey(c, idemScope{})
	if err != nil {
		return err
	}
	if key != "" {
		if answered, err := s.replay(c, uid, key, reqHash); answered {
			return err // the stored response of a repeated request
		}
	}
	var resp *response
	var rec *play.Record
	if tok != nil {
		rec = &play.Record{Token: tok}
	}
	if key != "" {
		// A copy of the request that ran first answers (models.ErrKeyStored).
		rec = &play.Record{Key: models.Key{UserID: uid, Key: key}, Make: func(r *play.Result) (*models.Idempotency, error) {
			out := respond(r)
			data, err := s.seal(c, uid, key, out)
			if err != nil {
				return nil, err
			}
			resp = &out
			return &models.Idempotency{UserID: uid, Key: key, RequestHash: reqHash, Status: out.status, Response: data}, nil
		}}
	}
	res, err := call(rec)
	if errors.Is(err, models.ErrConflict) && key != "" {
		if answered, rerr := s.replay(c, uid, key, reqHash); answered {
			return rerr // a concurrent request with the same key won
		}
	}
	// A change checks the token along its lock of the game; one refused
	// before it (or, were there one, a change that did not) is checked
	// here, and the token's refusal comes first.
	if ended := s.checkNow(c); ended != nil {
		res.Done()
		err = ended
	}
	if err != nil {
		return err
	}
	defer res.Done() // once the response, which may share the state's memory, is written
	if resp == nil {
		out := respond(res)
		resp = &out
	}
	for k, v := range resp.header {
		c.Header(k, v)
	}
	writeJSON(c, resp.status, resp.body)
	return nil
}

// lobbyOut is the response to a lobby change: the game as the caller sees it.
func (s *Server) lobbyOut(r *play.Result) response {
	return response{status: http.StatusOK, body: s.gameOut(r.Game, r.Seat, nil)}
}

// gameCall is a play-path call on the game the path names, for the
// caller, with an idempotency record.
func (s *Server) gameCall(c *gin.Context, op func(ctx context.Context, id, uid int64, rec *play.Record) (*play.Result, error)) func(*play.Record) (*play.Result, error) {
	return func(rec *play.Record) (*play.Result, error) {
		id, err := pathID(c, "id")
		if err != nil {
			return nil, err
		}
		return op(c.Request.Context(), id, userID(c), rec)
	}
}

// joinGame takes the caller's invited seat, or else the first open seat.
func (s *Server) joinGame(c *gin.Context) error {
	var req joinRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	return s.mutateGame(c, s.gameCall(c, func(ctx context.Context, id, uid int64, rec *play.Record) (*play.Result, error) {
		return s.play.Join(ctx, id, uid, req.Deck.play(), rec)
	}), s.lobbyOut)
}

// gameChange is the handler of a change that takes no body: op on the
// game the path names, for the caller, answered by respond.
func (s *Server) gameChange(op func(ctx context.Context, id, uid int64, rec *play.Record) (*play.Result, error), respond func(*play.Result) response) gin.HandlerFunc {
	return handle(func(c *gin.Context) error { return s.mutateGame(c, s.gameCall(c, op), respond) })
}

// submitActions applies a batch of actions for the caller's seat, all or
// nothing, if the game is still at the version they were computed from.
func (s *Server) submitActions(c *gin.Context) error {
	var req submitRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	expected, err := expectedVersion(c, req.ExpectedVersion)
	if err != nil {
		return err
	}
	switch {
	case len(req.Actions) > 0 && len(req.Commands) > 0:
		return invalid("actions, commands: send one of them, not both")
	case len(req.Commands) > 0:
		return s.mutateGame(c, s.gameCall(c, func(ctx context.Context, id, uid int64, rec *play.Record) (*play.Result, error) {
			res, _, err := s.play.SubmitCommands(ctx, id, uid, expected, req.Commands, rec)
			return res, err
		}), s.submitOut)
	}
	if err := checkActionLimits(req.Actions); err != nil {
		return err
	}
	actions := make([]engine.Action, len(req.Actions))
	for i, a := range req.Actions {
		if a.described() {
			deprecated(c, descriptiveFieldsSunset)
		}
		actions[i] = actionIn(a.actionInput)
	}
	return s.mutateGame(c, s.gameCall(c, func(ctx context.Context, id, uid int64, rec *play.Record) (*play.Result, error) {
		return s.play.Submit(ctx, id, uid, &expected, actions, rec)
	}), s.submitOut)
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

// submitOut is the response to a change of the engine state: the new
// version, the caller's events, view, prompts and legal actions.
func (s *Server) submitOut(r *play.Result) response {
	seat, st := r.Seat, r.State
	v := st.View(seat)
	out := submitResponse{Version: r.Game.Version, Status: r.Game.Status, Events: []eventResponse{}, View: v,
		Prompts: promptsFor(st, seat), Legal: legalIn(st, v)}
	for _, e := range r.Events() {
		if v, ok := e.For(seat); ok {
			out.Events = append(out.Events, eventResponse{Seq: e.Seq, Version: e.Version, CreatedAt: rfc3339(e.At), Event: v})
		}
	}
	return response{status: http.StatusOK, body: out}
}

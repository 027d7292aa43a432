package play

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/jsonenc"
	"github.com/datamonsters/turns/models"
)

// MaxBatch is the most actions one submission may hold.
const MaxBatch = 50

// Submit applies a batch of actions for user uid's seat, all or nothing,
// if the game is still at version expected (nil: at any version, as for
// resigning). A batch of answers to prompts that are still open for the
// seat is applied even when the game moved on meanwhile: such answers do
// not depend on what the other seats did; so is a batch of standing
// answers, which depend on nothing but the seat's wish, and any batch
// whose version was moved on by standing answers alone (afterStanding).
// An illegal action gives a *BatchError naming it; a stale version a
// *StaleVersionError.
func (s *Service) Submit(ctx context.Context, id, uid int64, expected *int64, actions []engine.Action, rec *Record) (*Result, error) {
	if len(actions) == 0 || len(actions) > MaxBatch {
		return nil, invalid("actions: 1 to %d actions", MaxBatch)
	}
	for i, a := range actions {
		if a.Type == engine.ActTimeout {
			return nil, &BatchError{Index: i, Err: &engine.IllegalActionError{Code: engine.ErrBadAction.Code,
				Reason: "timeout is submitted by the service, not a seat"}}
		}
	}
	return s.afterStanding(ctx, id, expected, func(expected *int64) (*Result, error) {
		return s.change(ctx, id, uid, rec, func(g *models.Game, seat int) (*models.Change, *Result, error) {
			prev, err := s.stateToPlay(g, seat, func(prev *engine.State) bool {
				return expected != nil && *expected != g.Version && !answersOpenPrompts(prev, seat, actions) && !standingOnly(actions)
			})
			if err != nil {
				return nil, nil, err
			}
			return s.play(g, prev, seat, actions)
		})
	})
}

// standingOnly reports whether every action sets standing answers: they
// replace the seat's own, hidden from the others, and depend on nothing
// the others did, so they are set at any version (they are set on the
// opponents' turn, which moves the game on meanwhile: DESIGN.md §9).
func standingOnly(actions []engine.Action) bool {
	return len(actions) > 0 && !slices.ContainsFunc(actions, func(a engine.Action) bool { return a.Type != engine.ActStanding })
}

// anyStanding reports whether a seat of st has set standing answers in
// the game, even if it cleared them since: a clear moves the version too.
func anyStanding(st *engine.State) bool {
	return slices.ContainsFunc(st.Players, func(p engine.Player) bool {
		return p.StandingUsed || p.Standing.Pass || len(p.Standing.Plays) > 0
	})
}

// maxStandingSince is the most changes a batch may be written before that
// are standing answers alone (afterStanding).
const maxStandingSince = 8

// afterStanding runs submit at version expected and, when that is stale
// only because every change since set standing answers, again at the
// version they left. A standing answer changes no move, prompt or line of
// any list, and another seat's is hidden: a batch written before one
// cannot depend on it, and refusing it would let an opponent's "always
// pass", set on this seat's turn, turn its whole turn away as stale.
func (s *Service) afterStanding(ctx context.Context, id int64, expected *int64, submit func(*int64) (*Result, error)) (*Result, error) {
	at := expected
	for range maxStandingSince {
		res, err := submit(at)
		var stale *StaleVersionError
		// Only where a seat has set standing answers: a stale submission
		// costs no statement more than the game's lock otherwise.
		if expected == nil || !errors.As(err, &stale) || !stale.standing || !s.onlyStanding(ctx, id, *expected, stale.Current) {
			return res, err
		}
		cur := stale.Current
		at = &cur
	}
	return submit(at)
}

// OnlyStandingSince reports whether every change of game id after version
// from up to version to recorded standing answers and nothing else: the
// game at to is the game at from but for them, with the same moves and
// lines for every seat, and a batch written at from plays at to (Submit).
func (s *Service) OnlyStandingSince(ctx context.Context, id, from, to int64) bool {
	return s.onlyStanding(ctx, id, from, to)
}

// onlyStanding is OnlyStandingSince: the events of the changes, one a
// standing action, are all standing_set.
func (s *Service) onlyStanding(ctx context.Context, id, from, to int64) bool {
	if to <= from || to-from > maxStandingSince {
		return false
	}
	limit := int(to-from)*MaxBatch + 1
	recs, err := s.store.EventsSince(ctx, id, from, limit)
	if err != nil || len(recs) == limit && recs[limit-1].Version <= to {
		return false
	}
	next := from + 1 // the next version whose change must show
	for _, r := range recs {
		if r.Version > to {
			break
		}
		var e struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal([]byte(r.Body), &e) != nil || e.Kind != engine.KindStandingSet || r.Version > next {
			return false
		}
		if r.Version == next {
			next++
		}
	}
	return next == to+1
}

// SubmitCommands is Submit for a batch written in the command language
// (ReadCommands), one command an element: resolved one after another at
// the version expected (Resolve; numbers name engine.Numbered's lines at
// it), then applied as one batch. An element that is no command, or a
// command that stands alone (help, board, resign, join, say...: the API
// has their own operations), is a *CommandError; so is a command that
// resolves to no move at its step. As with Submit, a batch of standing
// answers alone is read against the game as it is, at any version, and a
// version moved on by standing answers alone is not stale. The plan is
// returned with the result.
func (s *Service) SubmitCommands(ctx context.Context, id, uid int64, expected int64, commands []string, rec *Record) (*Result, *Plan, error) {
	if len(commands) == 0 || len(commands) > MaxBatch {
		return nil, nil, invalid("commands: 1 to %d commands", MaxBatch)
	}
	for i, c := range commands {
		if strings.ContainsAny(c, "\n\r") {
			return nil, nil, &CommandError{Command: clip(c), Line: i + 1, Reason: "a command holds one line"}
		}
	}
	rd, err := ReadCommands(strings.Join(commands, "\n"))
	switch {
	case err != nil:
		return nil, nil, err
	case len(rd.Skipped) > 0:
		return nil, nil, notACommand(commands, rd.Skipped[0])
	case rd.Control != NoControl || rd.Help || rd.Board || len(rd.Says) > 0:
		return nil, nil, &CommandError{Reason: "help, board, resign, vote end, join, decline and say are not moves: the API has their own operations"}
	}
	var plan *Plan
	res, err := s.afterStanding(ctx, id, &expected, func(at *int64) (*Result, error) {
		expected := *at
		return s.change(ctx, id, uid, rec, func(g *models.Game, seat int) (*models.Change, *Result, error) {
			prev, err := s.stateToPlay(g, seat, func(*engine.State) bool { return expected != g.Version && !rd.StandingOnly() })
			if err != nil {
				return nil, nil, err
			}
			lines := engine.Numbered(prev.View(seat).Moves(engine.Legal(prev, seat)))
			if plan, err = Resolve(prev, seat, lines, rd); err == nil && len(plan.SignOffs) > 0 {
				// What a reply skips as a sign-off is no command of a batch.
				err = notACommand(commands, plan.SignOffs[0])
			}
			if err != nil {
				s.states.put(g.ID, g.Version, prev)
				return nil, nil, err
			}
			return s.play(g, prev, seat, plan.Actions)
		})
	})
	if err != nil {
		return nil, nil, err
	}
	return res, plan, nil
}

// notACommand is the refusal of the part of commands that a reply
// would skip.
func notACommand(commands []string, part string) *CommandError {
	// The element that holds the part whole, between commas, as
	// ReadCommands cut it: "rapid" is not in "play rapid prototype".
	i := slices.IndexFunc(commands, func(c string) bool {
		return slices.ContainsFunc(strings.FieldsFunc(c, func(r rune) bool { return r == ',' || r == ';' }),
			func(p string) bool { return clip(strings.TrimSpace(p)) == part })
	})
	if i < 0 {
		i = slices.IndexFunc(commands, func(c string) bool { return strings.Contains(c, strings.TrimSuffix(part, "…")) })
	}
	return &CommandError{Command: part, Line: i + 1, Reason: "not a command"}
}

// stateToPlay is the state of g that seat's batch is played on (see
// takeState), once playing lets the seat change g; when stale says the
// batch may not be read against g at its version, the state goes back to
// the cache and the answer is a *StaleVersionError.
func (s *Service) stateToPlay(g *models.Game, seat int, stale func(prev *engine.State) bool) (*engine.State, error) {
	if err := playing(g, seat); err != nil {
		return nil, err
	}
	prev, err := s.takeState(g)
	if err != nil {
		return nil, err
	}
	if stale(prev) {
		s.states.put(g.ID, g.Version, prev)
		return nil, &StaleVersionError{Current: g.Version, standing: anyStanding(prev)}
	}
	return prev, nil
}

// playing refuses a change by seat of g unless the seat is a player's
// and the game is running.
func playing(g *models.Game, seat int) error {
	switch {
	case seat < 0:
		return ErrNotPlayer
	case g.Status != models.StatusActive:
		return conflict("game_not_active", "the game is %s", g.Status)
	}
	return nil
}

// Resign takes user uid's seat out of the game, at any version.
func (s *Service) Resign(ctx context.Context, id, uid int64, rec *Record) (*Result, error) {
	return s.Submit(ctx, id, uid, nil, []engine.Action{{Type: engine.ActResign}}, rec)
}

// VoteEnd records user uid's vote to end the game as it stands, at any
// version; the game ends once every player still in it has voted.
func (s *Service) VoteEnd(ctx context.Context, id, uid int64, rec *Record) (*Result, error) {
	return s.Submit(ctx, id, uid, nil, []engine.Action{{Type: engine.ActVoteEnd}}, rec)
}

// play applies actions for seat to st, the state of the locked game g, all
// or nothing, and records the result on g (commit). An illegal action
// gives a *BatchError that names it, and st goes back to the cache
// unchanged.
func (s *Service) play(g *models.Game, st *engine.State, seat int, actions []engine.Action) (*models.Change, *Result, error) {
	before := slices.Clone(st.Prompts)
	on := st
	var resealed []engine.Event
	if engine.NeedsSecret(st) {
		// Stored before secrets, with a seed its public ids give away: it
		// gets a secret now, in a copy, which an illegal action leaves unused.
		on = st.Clone()
		resealed = engine.Reseal(on, newSecret())
	}
	next, events, idx, err := applyActions(on, seat, actions)
	if err != nil {
		s.states.put(g.ID, g.Version, st) // Apply and ApplyBatch change nothing on error
		return nil, nil, &BatchError{Index: idx, Err: err}
	}
	return s.commit(g, seat, before, actions, next, append(resealed, events...))
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

// commit records a new engine state on g, changed by seat's actions
// (engine.System for the service's): the snapshot, the version, the
// awaited seats, the deadline, the status and winners, each seat's run of
// timeouts and any takeover it leads to. It returns the change to write
// (actions, events, prompts) and the result.
func (s *Service) commit(g *models.Game, seat int, prevPrompts []engine.Prompt, actions []engine.Action, next *engine.State,
	events []engine.Event) (*models.Change, *Result, error) {
	data, err := jsonenc.Marshal(next) // next.Marshal()'s bytes, faster
	if err != nil {
		return nil, nil, err
	}
	now := s.now().UTC()
	set := g.SettingsOf()
	g.State = data
	g.Version++
	awaiting := engine.Awaiting(next)
	var happened models.Happened
	moved := false // whether the game waits for other seats than before
	for i := range g.Seats {
		a := slices.Contains(awaiting, g.Seats[i].SeatNo)
		moved = moved || a != g.Seats[i].Awaited
		if a && !g.Seats[i].Awaited {
			happened.Awaited = append(happened.Awaited, g.Seats[i].SeatNo)
		}
		g.Seats[i].Awaited = a
	}
	for _, p := range next.Prompts {
		if !slices.ContainsFunc(prevPrompts, func(q engine.Prompt) bool { return q.ID == p.ID }) {
			happened.Opened = append(happened.Opened, p.ID)
		}
	}
	promptsChanged := !samePrompts(prevPrompts, next.Prompts)
	deadline := g.DeadlineAt
	switch {
	case next.Over():
		happened.Over = true
		g.DeadlineAt = nil
		g.Status, g.EndedAt = models.StatusOver, &now
		var w []string
		for _, seat := range next.Winners {
			w = append(w, strconv.Itoa(seat))
		}
		g.Winners = strings.Join(w, ",")
	case !moved && (!promptsChanged || ownTurn(next, awaiting, prevPrompts)) && g.DeadlineAt != nil && seat != engine.System:
		// The same seats wait for the same things, or the active seat alone
		// for its own turn's choices: their clock runs on (a turn's
		// deadline is for the whole turn, its choices included, not for
		// each action).
	case ownTurn(next, awaiting, nil):
		d := now.Add(set.Turn()) // a turn that starts with a choice: the turn's deadline
		g.DeadlineAt = &d
	case len(next.Prompts) > 0:
		d := now.Add(set.Prompt())
		g.DeadlineAt = &d
	case len(awaiting) > 0:
		d := now.Add(set.Turn())
		g.DeadlineAt = &d
	default:
		g.DeadlineAt = nil
	}
	if g.DeadlineAt != deadline { // set anew, or none
		g.DeadlineQuiet = ""
		if g.DeadlineAt != nil && !set.IgnoreQuietHours {
			if err := g.MoveOutOfQuiet(awaiting, g.QuietHours); err != nil {
				return nil, nil, err
			}
		}
	}
	happened.Deadline = g.DeadlineAt != nil && g.DeadlineAt != deadline
	ch := &models.Change{Happened: happened}
	ch.Timeouts = countTimeouts(g, seat, len(actions) > 0, events, set)
	if next.Over() {
		ch.Rated = ratedGame(g, next, now)
	}
	var uid *int64
	if seat >= 0 && g.Seats[seat].UserID != nil {
		uid = g.Seats[seat].UserID
	}
	for _, a := range actions {
		body, _ := jsonenc.Marshal(a)
		ch.Actions = append(ch.Actions, models.ActionRecord{Version: g.Version, Seat: seat, UserID: uid, Body: string(body)})
	}
	for _, e := range events {
		body, _ := jsonenc.Marshal(e)
		ch.Events = append(ch.Events, models.EventRecord{Body: string(body)})
	}
	ch.Engine = &models.EngineChange{State: next, Events: events}
	if promptsChanged {
		ch.ReplacePrompts = true
		for _, p := range next.Prompts {
			body, _ := jsonenc.Marshal(p)
			ch.Prompts = append(ch.Prompts, models.PromptRecord{PromptID: p.ID, Seat: p.Seat, Body: string(body), DeadlineAt: g.DeadlineAt})
		}
	}
	id, version := g.ID, g.Version
	res := &Result{Game: g, Seat: seat, State: next, events: events, keep: func() { s.states.put(id, version, next) }}
	return ch, res, nil
}

// ownTurn reports whether the game waits for the active seat alone, on
// its own turn, with every prompt open now (and every one of before) its
// own: a choice its turn asks for, such as a discard, whose answer is due
// with the turn.
func ownTurn(next *engine.State, awaiting []int, before []engine.Prompt) bool {
	own := func(p engine.Prompt) bool { return p.Seat == next.Active }
	return len(awaiting) == 1 && awaiting[0] == next.Active && !next.Over() &&
		!slices.ContainsFunc(next.Prompts, func(p engine.Prompt) bool { return !own(p) }) &&
		!slices.ContainsFunc(before, func(p engine.Prompt) bool { return !own(p) })
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

package engine

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Apply validates action a by seat and, if it is legal, applies it to s and
// runs the game on to the next decision. On error s is unchanged. The events
// are unredacted: show each seat EventsFor(events, seat).
func Apply(s *State, seat int, a Action) ([]Event, error) {
	if err := check(s, seat, a, explain); err != nil {
		return nil, err
	}
	g := game{s: s, events: make([]Event, 0, 4)}
	g.run(seat, a)
	return g.events, nil
}

// AppendApply is Apply appending the events to events, for a caller that
// applies many actions with one slice for their events. On error it returns
// events as they were.
func AppendApply(events []Event, s *State, seat int, a Action) ([]Event, error) {
	if err := check(s, seat, a, explain); err != nil {
		return events, err
	}
	g := game{s: s, events: events}
	g.run(seat, a)
	return g.events, nil
}

// ApplyQuiet is Apply without the events, which it does not build: for
// simulations, which only need the game to go on. It changes s exactly as
// Apply does.
func ApplyQuiet(s *State, seat int, a Action) error {
	if err := check(s, seat, a, explain); err != nil {
		return err
	}
	g := game{s: s, silent: true}
	g.run(seat, a)
	return nil
}

// run applies a checked action and runs the game on.
func (g *game) run(seat int, a Action) {
	g.apply(seat, a)
	g.loop()
	g.drainQueue()
	g.s.Version++
}

// ApplyBatch applies a seat's actions in order, all or nothing, to a copy of
// s. If an action leaves the seat waiting (an interrupt window, a prompt
// that the next action does not answer), the actions after it are queued
// in the state and resumed by the engine when the seat can act again: all
// of them, if each still applies in turn, with one private
// "queue_resumed" event; else none, with a private "queue_dropped" event
// that says which stopped and why. On error it returns s itself, the index
// of the failing action and the error.
//
// A batch may end the game part-way (a claim of the last challenge, the
// last vote to end): end_turn actions after that are accepted and do
// nothing, since a player writes a turn before knowing it wins the game;
// any other action after it is refused with a reason that says at which
// action (counted from 0, as the returned index) the game ended.
func ApplyBatch(s *State, seat int, actions []Action) (*State, []Event, int, error) {
	if len(actions) == 0 {
		return s, nil, 0, illegal(ErrBadAction, "no actions")
	}
	c := s.Clone()
	var events []Event
	ended := -1 // the action that ended the game
	for i, a := range actions {
		if ended >= 0 {
			if a.Type == ActEndTurn {
				continue
			}
			return s, nil, i, illegal(ErrGameOver, "the game ended at action %d of this batch (%s); only end_turn may follow it, not %s", ended, actions[ended].Type, a.Type)
		}
		var err error
		if events, err = AppendApply(events, c, seat, a); err != nil {
			return s, nil, i, err
		}
		if c.Over() {
			ended = i
			continue
		}
		if i+1 < len(actions) && waits(c, seat, actions[i+1]) {
			c.Queue = queue(c, seat, actions[i+1:])
			n := len(actions) - i - 1
			events = append(events, Event{Kind: KindQueued, Seat: seat, N: n, Only: []int{seat},
				Text: fmt.Sprintf("%s %s for the game to continue.", plural(n, "planned move"), pluralWord(n, "waits", "wait"))})
			break
		}
	}
	return c, events, -1, nil
}

// waits reports whether seat's next action a must wait: the game is in
// the middle of something (a window, an effect), and a is not the answer
// to a prompt of the seat's that is open now.
func waits(s *State, seat int, a Action) bool {
	if len(s.Prompts) == 0 && len(s.Stack) == 0 {
		return false
	}
	return a.Type != ActAnswer || !slices.ContainsFunc(s.Prompts, func(p Prompt) bool { return p.ID == a.Prompt && p.Seat == seat })
}

// queue holds actions of seat until the game goes on, each worded for the
// seat as it stands now.
func queue(s *State, seat int, actions []Action) *Queued {
	v := s.View(seat)
	q := &Queued{Seat: seat, Actions: cloneActions(actions), Texts: make([]string, len(actions))}
	for i, a := range actions {
		q.Texts[i] = v.Text(a)
	}
	return q
}

// idle reports whether the game waits only for the active player's action.
func (s *State) idle() bool {
	return s.Phase == PhaseAction && len(s.Prompts) == 0 && len(s.Stack) == 0
}

// Awaiting lists the seats the game is waiting for: seats with open prompts,
// or else the active player.
func Awaiting(s *State) []int { return AppendAwaiting(nil, s) }

// AppendAwaiting appends Awaiting(s) to out and returns the extended slice.
func AppendAwaiting(out []int, s *State) []int {
	if s.Over() {
		return out
	}
	start := len(out)
	for _, p := range s.Prompts {
		if !slices.Contains(out[start:], p.Seat) {
			out = append(out, p.Seat)
		}
	}
	if len(out) == start && s.idle() {
		out = append(out, s.Active)
	}
	slices.Sort(out[start:])
	return out
}

// PromptsFor returns the open prompts owed by seat.
func PromptsFor(s *State, seat int) []Prompt { return appendPrompts(nil, s, seat) }

// appendPrompts appends PromptsFor(s, seat) to out.
func appendPrompts(out []Prompt, s *State, seat int) []Prompt {
	for _, p := range s.Prompts {
		if p.Seat == seat {
			out = append(out, p)
		}
	}
	return out
}

// verdict says how the predicates of check report a failed action: Apply
// needs the reason in words, Legal and the engine's own tests of
// playability only whether the action fails.
type verdict bool

const (
	quiet   verdict = false // a failure is the bare sentinel of its kind
	explain verdict = true  // a failure is an IllegalActionError with its reason
)

// fail is the error of a failed predicate of kind; reason is worded only
// when the verdict explains.
func (v verdict) fail(kind *IllegalActionError, reason func() string) error {
	if v == quiet {
		return kind
	}
	return &IllegalActionError{Code: kind.Code, Reason: reason()}
}

// check is the single set of predicates that decides legality: Apply uses it
// to validate, Legal to list.
func check(s *State, seat int, a Action, v verdict) error {
	if s.Over() {
		return v.fail(ErrGameOver, func() string { return "the game is over" })
	}
	if a.Type == ActTimeout {
		if seat != System {
			return v.fail(ErrBadAction, func() string { return "timeout is submitted by the service, not a seat" })
		}
		return nil
	}
	if !s.live(seat) {
		return v.fail(ErrBadAction, func() string { return fmt.Sprintf("seat %d is not playing in this game", seat) })
	}
	switch a.Type {
	case ActAnswer:
		return s.checkAnswer(seat, a, v)
	case ActStanding:
		return s.checkStanding(a.Standing, v)
	case ActVoteEnd:
		if s.Players[seat].VotedEnd {
			return v.fail(ErrBadAction, func() string { return "you already voted to end the game" })
		}
		return nil
	case ActResign:
		return nil
	case ActPlace, ActPlayTool, ActPlayHack, ActClaim, ActAbandon, ActActivate, ActEndTurn:
	default:
		return v.fail(ErrBadAction, func() string { return fmt.Sprintf("unknown action type %q", a.Type) })
	}
	if seat != s.Active {
		return v.fail(ErrNotYourTurn, func() string { return "it is " + s.name(s.Active) + "'s turn" })
	}
	if len(s.Prompts) > 0 || len(s.Stack) > 0 {
		return v.fail(ErrWaiting, func() string {
			return "the game is waiting for " + s.seatList(Awaiting(s)) + " to answer a prompt"
		})
	}
	if s.Phase != PhaseAction {
		return v.fail(ErrWrongPhase, func() string { return string(a.Type) + " is only possible in the Action phase" })
	}
	switch a.Type {
	case ActPlace, ActPlayTool, ActPlayHack:
		c, err := s.handCard(seat, a.Card, v)
		if err != nil {
			return err
		}
		return s.checkPlay(seat, a.Type, c, v)
	case ActClaim:
		return s.checkClaim(a.Challenges, v)
	case ActAbandon:
		if s.Build == nil {
			return v.fail(ErrBuild, func() string { return "there is no open Software Build to abandon" })
		}
	case ActActivate:
		_, err := s.activatable(seat, a.Card, v)
		return err
	}
	return nil
}

// handCard finds a card in seat's hand.
func (s *State) handCard(seat int, id string, v verdict) (*Card, error) {
	in, ok := find(s.Players[seat].Hand, id)
	if !ok {
		return nil, v.fail(ErrNoCard, func() string { return fmt.Sprintf("card %q is not in your hand", id) })
	}
	return s.card(in.Card), nil
}

// checkPlay checks playing card c from hand with action type t.
func (s *State) checkPlay(seat int, t ActionType, c *Card, v verdict) error {
	want := playTypes(t)
	if !slices.Contains(want, c.Type) {
		return v.fail(ErrCardType, func() string {
			return c.Name + " is a " + c.Type.Title() + "; " + string(t) + " takes a " + joinOr(typeTitles(want))
		})
	}
	if c.Has(KwInterrupt) {
		return v.fail(ErrCardType, func() string {
			return c.Name + " is an interrupt: it is played when an interrupt window asks you"
		})
	}
	if err := s.playable(seat, c, v); err != nil {
		return err
	}
	if t == ActPlace {
		return s.placeable(seat, c, v)
	}
	return nil
}

// playable checks a card's requirements and the limit keyword for seat.
func (s *State) playable(seat int, c *Card, v verdict) error {
	if c.Has(KwLimit) && s.Players[seat].Limited {
		return v.fail(ErrLimit, func() string {
			return c.Name + " has the limit keyword and you already played a limit card since the start of your last turn"
		})
	}
	for _, r := range c.Requires {
		if !s.holds(seat, c, r) {
			return v.fail(ErrRequirement, func() string { return c.Name + " requires " + ConditionText(r) })
		}
	}
	return nil
}

// placeable checks the Monster placement rules: a Senior needs a same-name
// Monster in the Lab, a Chief a same-name Senior or Chief.
func (s *State) placeable(seat int, c *Card, v verdict) error {
	if c.Type != Monster || c.Level == Junior {
		return nil
	}
	best := 0
	for _, in := range s.Players[seat].Lab {
		if m := s.card(in.Card); m.Type == Monster && m.Name == c.Name {
			best = max(best, m.Level.Rank())
		}
	}
	switch {
	case c.Level == Senior && best == 0:
		return v.fail(ErrPlacement, func() string {
			return "a Senior " + c.Name + " needs a " + c.Name + " already in your Lab"
		})
	case c.Level == Chief && best < Senior.Rank():
		return v.fail(ErrPlacement, func() string {
			return "a Chief " + c.Name + " needs a Senior or Chief " + c.Name + " already in your Lab"
		})
	}
	return nil
}

// checkClaim checks that the open build covers the chosen Market challenges.
func (s *State) checkClaim(ids []string, v verdict) error {
	if s.Build == nil || len(s.Build.Tools) == 0 {
		return v.fail(ErrBuild, func() string { return "play Tools into a Software Build before claiming" })
	}
	if len(ids) == 0 {
		return v.fail(ErrBuild, func() string { return "name at least one Market challenge to claim" })
	}
	tech, sci := 0, 0
	for i, id := range ids {
		in, ok := find(s.Market, id)
		if !ok {
			return v.fail(ErrNoCard, func() string { return fmt.Sprintf("challenge %q is not in the Market", id) })
		}
		if slices.Contains(ids[:i], id) {
			return v.fail(ErrBadAction, func() string { return fmt.Sprintf("challenge %q is named twice", id) })
		}
		c := s.card(in.Card)
		tech += c.Tech
		sci += c.Sci
	}
	if bt, bs := s.buildStats(); tech > bt || sci > bs {
		return v.fail(ErrBuild, func() string {
			return fmt.Sprintf("the claim needs %d TECH and %d SCI; the Software Build has %d TECH and %d SCI", tech, sci, bt, bs)
		})
	}
	return nil
}

// activatable finds the activated effect of a card in seat's Lab.
func (s *State) activatable(seat int, id string, v verdict) (Effect, error) {
	p := &s.Players[seat]
	in, ok := find(p.Lab, id)
	if !ok {
		return Effect{}, v.fail(ErrNoCard, func() string { return fmt.Sprintf("card %q is not in your Lab", id) })
	}
	c := s.card(in.Card)
	e, ok := c.effect(Activated)
	if !ok {
		return Effect{}, v.fail(ErrActivated, func() string { return c.Name + " has no activated ability" })
	}
	if slices.Contains(p.Used, id) {
		return Effect{}, v.fail(ErrActivated, func() string { return c.Name + "'s ability was already used this turn" })
	}
	if e.Cost > len(p.Hand) {
		return Effect{}, v.fail(ErrActivated, func() string {
			return c.Name + "'s ability costs " + plural(e.Cost, "card") + " to discard; you hold " + strconv.Itoa(len(p.Hand))
		})
	}
	if e.If != nil && !s.holds(seat, c, *e.If) {
		return Effect{}, v.fail(ErrRequirement, func() string { return c.Name + "'s ability requires " + ConditionText(*e.If) })
	}
	return e, nil
}

// checkAnswer validates an answer to one of seat's prompts.
func (s *State) checkAnswer(seat int, a Action, v verdict) error {
	i := slices.IndexFunc(s.Prompts, func(p Prompt) bool { return p.ID == a.Prompt })
	if i < 0 {
		return v.fail(ErrNoPrompt, func() string { return fmt.Sprintf("prompt %q is not open", a.Prompt) })
	}
	p := &s.Prompts[i]
	if p.Seat != seat {
		return v.fail(ErrNoPrompt, func() string { return fmt.Sprintf("prompt %q is not yours", a.Prompt) })
	}
	return p.check(a.Choices, v)
}

// checkStanding validates standing interrupt answers.
func (s *State) checkStanding(st *Standing, v verdict) error {
	if st == nil {
		return v.fail(ErrBadAction, func() string { return "standing needs a standing field" })
	}
	for _, sp := range st.Plays {
		c := s.catalog().Card(sp.Card)
		if c == nil {
			return v.fail(ErrNoCard, func() string { return fmt.Sprintf("no card %q", sp.Card) })
		}
		if !c.answers(sp.On) {
			return v.fail(ErrCardType, func() string { return fmt.Sprintf("%s does not answer %s events", c.Name, sp.On) })
		}
	}
	return nil
}

// apply performs a checked action.
func (g *game) apply(seat int, a Action) {
	s := g.s
	switch a.Type {
	case ActPlace, ActPlayTool, ActPlayHack:
		p := &s.Players[seat]
		in, _ := remove(&p.Hand, a.Card)
		c := s.card(in.Card)
		if c.Has(KwLimit) {
			p.Limited = true
		}
		kind := playEvent(a.Type)
		if kind == EvPlayTool && s.Build == nil {
			s.Build = &Build{}
		}
		g.emit(func() Event {
			return Event{Kind: KindPlayed, Seat: seat, Card: c.ID, Inst: in.ID, On: kind, Text: s.name(seat) + " plays " + c.words().named + "."}
		})
		g.propose(Proposal{Kind: kind, Actor: seat, Card: &in})
	case ActClaim:
		g.propose(Proposal{Kind: EvClaim, Actor: seat, Challenges: slices.Clone(a.Challenges)})
	case ActAbandon:
		g.abandonBuild(seat)
	case ActActivate:
		e, _ := s.activatable(seat, a.Card, quiet)
		p := &s.Players[seat]
		p.Used = append(p.Used, a.Card)
		in, _ := find(p.Lab, a.Card)
		c := s.card(in.Card)
		g.emit(func() Event {
			return Event{Kind: KindActivated, Seat: seat, Card: c.ID, Inst: in.ID, Text: s.name(seat) + " activates " + c.Name + "."}
		})
		g.pushEffect(seat, c, e, 0)
	case ActEndTurn:
		g.push(Task{Kind: TaskNext, Seat: seat}, Task{Kind: TaskEnd, Seat: seat})
	case ActAnswer:
		i := slices.IndexFunc(s.Prompts, func(p Prompt) bool { return p.ID == a.Prompt })
		g.answer(s.Prompts[i], slices.Clone(a.Choices), true)
	case ActStanding:
		s.Players[seat].Standing = *a.Standing
		s.Players[seat].StandingUsed = true
		g.emit(func() Event {
			return Event{Kind: KindStandingSet, Seat: seat, Only: []int{seat}, Text: "Your standing interrupt answers are saved."}
		})
	case ActVoteEnd:
		s.Players[seat].VotedEnd = true
		g.emit(func() Event {
			return Event{Kind: KindVotedEnd, Seat: seat, Text: fmt.Sprintf("%s votes to end the game.", s.name(seat))}
		})
		for _, o := range s.order(seat) {
			if !s.Players[o].VotedEnd {
				return
			}
		}
		g.finish("all players agreed to end it")
	case ActResign:
		g.resign(seat)
	case ActTimeout:
		g.timeout()
	}
}

// timeout is a passed deadline: open prompts get their default answers
// (interrupt windows pass); with none open, the active turn ends.
func (g *game) timeout() {
	s := g.s
	if len(s.Prompts) > 0 {
		seats := Awaiting(s)
		for _, p := range slices.Clone(s.Prompts) {
			g.answer(p, p.Default(), false)
		}
		g.emit(func() Event {
			return Event{Kind: KindTimeout, Seat: -1, Seats: seats, Text: fmt.Sprintf("Time ran out for %s: the default answers apply.", s.seatList(seats))}
		})
		return
	}
	g.emit(func() Event {
		return Event{Kind: KindTimeout, Seat: -1, Seats: []int{s.Active}, Text: fmt.Sprintf("Time ran out for %s: the turn ends.", s.name(s.Active))}
	})
	if s.idle() {
		g.push(Task{Kind: TaskNext, Seat: s.Active}, Task{Kind: TaskEnd, Seat: s.Active})
	}
}

// resign takes seat out of the game.
func (g *game) resign(seat int) {
	s := g.s
	for _, p := range slices.Clone(s.Prompts) {
		if p.Seat == seat {
			g.answer(p, p.Default(), false)
		}
	}
	s.Players[seat].Resigned = true
	if s.Queue != nil && s.Queue.Seat == seat {
		s.Queue = nil
	}
	g.emit(func() Event {
		return Event{Kind: KindResigned, Seat: seat, Text: fmt.Sprintf("%s resigns.", s.name(seat))}
	})
	g.expireGlobals(seat)
	if len(s.order(seat)) < 2 {
		g.finish("only one player is left")
		return
	}
	if seat != s.Active {
		return
	}
	for _, t := range s.Stack {
		g.returnHeld(t)
	}
	s.Stack, s.Prompts = nil, nil
	g.abandonBuild(seat)
	g.push(Task{Kind: TaskNext, Seat: seat})
}

// drainQueue resumes queued actions once their seat can act again: the
// whole rest of the batch, if every action of it still applies in turn
// (up to a window that holds the rest again), with one "queue_resumed"
// event that names them; else none of them, with a "queue_dropped" event
// that names the one that stopped, why, and the rest.
func (g *game) drainQueue() {
	s := g.s
	for s.Queue != nil {
		q := s.Queue
		if s.Over() {
			s.Queue = nil
			return
		}
		if waits(s, q.Seat, q.Actions[0]) {
			return
		}
		// The rest runs on a copy, which becomes the state only if all of
		// it applies; the copy draws on from the same random streams.
		c := s.Clone()
		c.rnd, c.Queue = s.rnd, nil
		run := game{s: c, silent: g.silent}
		ran := 0
		var failed error
		for i, a := range q.Actions {
			if i > 0 && waits(c, q.Seat, a) {
				c.Queue = &Queued{Seat: q.Seat, Actions: q.Actions[i:], Texts: q.Texts[min(i, len(q.Texts)):]}
				break
			}
			if c.Over() {
				if a.Type == ActEndTurn {
					ran++
					continue
				}
				failed = illegal(ErrGameOver, "the game ended before it")
				break
			}
			failed = check(c, q.Seat, a, explain)
			if failed == nil && a.Type != ActAnswer && c.Active != q.Seat {
				failed = illegal(ErrNotYourTurn, "your turn ended before it could run")
			}
			if failed != nil {
				break
			}
			run.apply(q.Seat, a)
			run.loop()
			ran++
		}
		text := func(i int) string {
			if i < len(q.Texts) && q.Texts[i] != "" {
				return q.Texts[i]
			}
			return s.View(q.Seat).Text(q.Actions[i])
		}
		if failed != nil {
			s.Queue = nil
			g.emit(func() Event {
				msg := fmt.Sprintf("Your planned move %q was not played: %s.", text(ran), queueReason(failed))
				if n := len(q.Actions); n > 1 {
					all := make([]string, n)
					for i := range all {
						all[i] = text(i)
					}
					msg = fmt.Sprintf("Your %d planned moves were not played, since %q no longer goes: %s. They were: %s.",
						n, text(ran), queueReason(failed), strings.Join(all, "; "))
				}
				return Event{Kind: KindQueueDropped, Seat: q.Seat, N: len(q.Actions), Only: []int{q.Seat}, Text: msg}
			})
			return
		}
		g.emit(func() Event {
			texts := make([]string, ran)
			for i := range texts {
				texts[i] = text(i)
			}
			what := "Your planned moves go on: "
			if ran == 1 {
				what = "Your planned move goes on: "
			}
			return Event{Kind: KindQueueResumed, Seat: q.Seat, N: ran, Only: []int{q.Seat}, Text: what + strings.Join(texts, "; ") + "."}
		})
		g.events = append(g.events, run.events...)
		*s = *c
	}
}

// queueReason says in words why a queued action no longer applies: the
// rule's reason, but for a card or question that is gone, which the reason
// would name by its id.
func queueReason(err error) string {
	var ill *IllegalActionError
	if !errors.As(err, &ill) {
		return err.Error()
	}
	switch ill.Code {
	case ErrNoCard.Code:
		return "the card is no longer where it was"
	case ErrNoPrompt.Code:
		return "that question is no longer open"
	}
	return ill.Reason
}

// Card types each play action takes, and the event it proposes.
var (
	placeTypes = []CardType{Monster, LabEquipment}
	toolTypes  = []CardType{Tool}
	hackTypes  = []CardType{Hack}
)

func playTypes(t ActionType) []CardType {
	switch t {
	case ActPlace:
		return placeTypes
	case ActPlayTool:
		return toolTypes
	case ActPlayHack:
		return hackTypes
	}
	return nil
}

func playEvent(t ActionType) EventKind {
	switch t {
	case ActPlace:
		return EvPlace
	case ActPlayTool:
		return EvPlayTool
	case ActPlayHack:
		return EvPlayHack
	}
	return ""
}

func typeTitles(ts []CardType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Title()
	}
	return out
}

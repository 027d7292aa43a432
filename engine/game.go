package engine

import (
	"slices"
	"strconv"
	"strings"
)

// TaskKind names a step of work waiting on the stack.
type TaskKind string

// Task kinds. Phase tasks drive the turn; ops tasks run an effect; event
// tasks carry a proposed event through its interrupt window.
const (
	TaskBegin     TaskKind = "begin"      // Beginning phase of Seat's turn
	TaskDraw      TaskKind = "draw"       // Draw phase
	TaskHandLimit TaskKind = "hand_limit" // end of the Draw phase: discard down to the hand limit
	TaskAction    TaskKind = "action"     // enter the Action phase
	TaskEnd       TaskKind = "end"        // End phase
	TaskNext      TaskKind = "next"       // pass the turn on
	TaskOps       TaskKind = "ops"        // run Ops for Seat
	TaskEvent     TaskKind = "event"      // a proposed event
)

// Task is one frame of the engine's work stack: "where was I" inside a
// running turn or effect, as plain data, so a game can wait days for an
// answer.
type Task struct {
	Kind     TaskKind  `json:"kind"`
	Seat     int       `json:"seat"`
	Src      string    `json:"src,omitempty"`      // card id whose effect runs
	Ops      []Op      `json:"ops,omitempty"`      // TaskOps: the operations
	I        int       `json:"i,omitempty"`        // TaskOps: the next operation
	Who      []int     `json:"who,omitempty"`      // seats the current operation still has to deal with
	Resolved bool      `json:"resolved,omitempty"` // Who is set for the current operation
	Prompt   string    `json:"prompt,omitempty"`   // the prompt this task waits for
	Answer   []string  `json:"answer,omitempty"`
	Answered bool      `json:"answered,omitempty"`
	Parent   int       `json:"parent,omitempty"` // 1 + stack index of the event an interrupt effect answers; 0 none
	Held     []Inst    `json:"held,omitempty"`   // cards lifted from a deck while a choice is made
	Ev       *Proposal `json:"ev,omitempty"`
	// chosen is the prompt whose Answer the seat gave itself (not a
	// default given for it at a timeout or resignation): the events of
	// the choice name it (Event.Echoes). It lives only in the Apply that
	// answers, as Answer does.
	chosen string
}

// forget drops the answer t has used: its choices, and whose they were.
func (t *Task) forget() { t.Answer, t.Answered, t.chosen = nil, false, "" }

// Proposal is an event proposed but not yet happened.
type Proposal struct {
	Kind       EventKind `json:"kind"`
	Actor      int       `json:"actor"`
	Card       *Inst     `json:"card,omitempty"` // the card being placed or played, held here meanwhile
	Challenges []string  `json:"challenges,omitempty"`
	N          int       `json:"n,omitempty"`    // draw: cards to draw
	Tech       int       `json:"tech,omitempty"` // alterations
	Sci        int       `json:"sci,omitempty"`
	Cancelled  bool      `json:"cancelled,omitempty"`
	Depth      int       `json:"depth,omitempty"`
	Interrupt  bool      `json:"interrupt,omitempty"` // a play_hack of an interrupt answering Parent
	Parent     int       `json:"parent,omitempty"`
	Stage      string    `json:"stage,omitempty"`
	Window     *Window   `json:"window,omitempty"`
}

// Window is an open interrupt window. Plays are sealed: views never show them.
type Window struct {
	Seats   []int        `json:"seats"`   // seats asked, in seat order from the actor
	Prompts []string     `json:"prompts"` // prompts still open
	Plays   []WindowPlay `json:"plays,omitempty"`
}

// WindowPlay is a sealed answer: Seat plays the instance Card.
type WindowPlay struct {
	Seat int    `json:"seat"`
	Card string `json:"card"`
}

// loopCap bounds the steps of one Apply; reaching it is an engine bug.
const loopCap = 100000

// game is one Apply in progress: the state and the events it emits.
type game struct {
	s      *State
	events []Event
	silent bool // the caller wants no events: they are not even built
	steps  int
}

// emit records the event that ev builds.
func (g *game) emit(ev func() Event) {
	if !g.silent {
		g.events = append(g.events, ev())
	}
}

// emitPrivate records an event for seat only, with a public twin.
func (g *game) emitPrivate(seat int, private, public func() Event) {
	if g.silent {
		return
	}
	ev := private()
	// The twin and the list of one seat share an allocation.
	twin := &struct {
		public Event
		only   [1]int
	}{public(), [1]int{seat}}
	ev.Only, ev.Public = twin.only[:], &twin.public
	g.events = append(g.events, ev)
}

func (s *State) name(seat int) string {
	if seat < 0 || seat >= len(s.Players) {
		return "the game"
	}
	if n := s.Players[seat].Name; n != "" {
		return n
	}
	return "Seat " + strconv.Itoa(seat)
}

// push puts tasks on the stack; the last one runs first.
func (g *game) push(ts ...Task) { g.s.Stack = append(g.s.Stack, ts...) }

func (g *game) pop() Task {
	s := g.s
	t := s.Stack[len(s.Stack)-1]
	s.Stack = s.Stack[:len(s.Stack)-1]
	return t
}

// loop runs the stack until a prompt is open, the stack is empty (the
// active player's Action phase) or the game is over.
func (g *game) loop() {
	s := g.s
	for s.Phase != PhaseOver && len(s.Prompts) == 0 && len(s.Stack) > 0 {
		g.steps++
		if g.steps > loopCap {
			panic("engine: loop cap reached")
		}
		g.step()
	}
}

func (g *game) step() {
	s := g.s
	top := len(s.Stack) - 1
	switch t := s.Stack[top]; t.Kind {
	case TaskBegin:
		g.pop()
		g.beginTurn(t.Seat)
	case TaskDraw:
		g.pop()
		s.Phase = PhaseDraw
		n := drawCount[len(s.Players)] + s.allStatMods()[t.Seat].draw
		g.push(Task{Kind: TaskEvent, Seat: t.Seat, Ev: &Proposal{Kind: EvDraw, Actor: t.Seat, N: max(n, 0)}})
	case TaskHandLimit:
		g.pop()
		if over := len(s.Players[t.Seat].Hand) - HandLimit; over > 0 {
			g.push(Task{Kind: TaskOps, Seat: t.Seat, Src: "hand_limit", Ops: []Op{{Verb: VDiscard, N: over}}})
		}
	case TaskAction:
		g.pop()
		s.Phase = PhaseAction
	case TaskEnd:
		g.pop()
		s.Phase = PhaseEnd
		g.abandonBuild(t.Seat)
		g.labEffects(t.Seat, OnTurnEnd)
	case TaskNext:
		g.pop()
		g.emit(func() Event {
			return Event{Kind: KindTurnEnded, Seat: t.Seat, Text: s.name(t.Seat) + " ends their turn."}
		})
		var seats [MaxPlayers]int
		next := s.appendOrder(seats[:0], t.Seat)[0]
		s.Turn++
		s.Active = next
		g.push(Task{Kind: TaskAction, Seat: next}, Task{Kind: TaskHandLimit, Seat: next}, Task{Kind: TaskDraw, Seat: next}, Task{Kind: TaskBegin, Seat: next})
	case TaskOps:
		g.stepOps(top)
	case TaskEvent:
		g.stepEvent(top)
	default:
		panic("engine: unknown task " + string(t.Kind))
	}
}

// beginTurn runs the Beginning phase: globals expire, the limit lock lifts,
// and "at the beginning of your turn" effects of the Lab run.
func (g *game) beginTurn(seat int) {
	s := g.s
	s.Phase = PhaseBeginning
	p := &s.Players[seat]
	p.Limited = false
	p.Used = nil
	g.emit(func() Event {
		return Event{Kind: KindTurnStarted, Seat: seat, N: s.Turn, Text: "Turn " + strconv.Itoa(s.Turn) + ": " + s.name(seat) + " begins."}
	})
	g.expireGlobals(seat)
	g.labEffects(seat, OnTurnStart)
}

// expireGlobals moves seat's cards in the Global zone to their Recycle Bin:
// at the start of their turn, or when they resign and will have no turn.
func (g *game) expireGlobals(seat int) {
	s := g.s
	kept := s.Global[:0]
	for _, gl := range s.Global {
		if gl.Owner != seat {
			kept = append(kept, gl)
			continue
		}
		*s.bin(seat) = append(*s.bin(seat), s.rekey(gl.Inst))
		g.emit(func() Event {
			return Event{Kind: KindGlobalExpired, Seat: seat, Card: gl.Card, Inst: gl.ID,
				Text: s.name(seat) + "'s " + s.card(gl.Card).Name + " leaves the Global zone."}
		})
	}
	s.Global = kept
}

// labEffects pushes the effects with trigger t of seat's Lab cards, so that
// they run in Lab order.
func (g *game) labEffects(seat int, t Trigger) {
	s := g.s
	lab := s.Players[seat].Lab
	for i := len(lab) - 1; i >= 0; i-- {
		c := s.card(lab[i].Card)
		effs := c.effects(t)
		for j := len(effs) - 1; j >= 0; j-- {
			g.pushEffect(seat, c, effs[j], 0)
		}
	}
}

// pushEffect schedules an effect of card c controlled by seat, unless its
// condition fails. parent is 1 + the stack index of the event it answers.
func (g *game) pushEffect(seat int, c *Card, e Effect, parent int) {
	if e.If != nil && !g.s.holds(seat, c, *e.If) {
		return
	}
	ops := e.Do
	if e.Cost > 0 {
		ops = append([]Op{{Verb: VDiscard, N: e.Cost}}, ops...)
	}
	g.push(Task{Kind: TaskOps, Seat: seat, Src: c.ID, Ops: ops, Parent: parent})
}

// draw moves n cards from seat's Laboratory Deck to their hand, reshuffling
// the Recycle Bin into a new deck when the deck runs out.
func (g *game) draw(seat, n int) {
	s := g.s
	p := &s.Players[seat]
	start := len(p.Hand)
	for len(p.Hand)-start < n && g.ensureDeck(seat) {
		deck := s.deck(seat)
		k := min(n-(len(p.Hand)-start), len(*deck))
		p.Hand = append(p.Hand, (*deck)[:k]...)
		*deck = (*deck)[k:]
		s.rekeyAll(p.Hand[len(p.Hand)-k:])
	}
	got := p.Hand[start:]
	if len(got) == 0 {
		return
	}
	g.emitPrivate(seat,
		func() Event {
			cards, insts := split(got)
			return Event{Kind: KindDrew, Seat: seat, Cards: cards, Insts: insts, N: len(got), Text: "You draw " + s.cardList(cards) + "."}
		},
		func() Event {
			return Event{Kind: KindDrew, Seat: seat, N: len(got), Text: s.name(seat) + " draws " + plural(len(got), "card") + "."}
		})
}

// ensureDeck makes sure seat's deck has a card, reshuffling the Recycle Bin
// if needed. It reports false if both are empty.
func (g *game) ensureDeck(seat int) bool {
	s := g.s
	deck, bin := s.deck(seat), s.bin(seat)
	if len(*deck) > 0 {
		return true
	}
	if len(*bin) == 0 {
		return false
	}
	*deck, *bin = *bin, nil
	s.shuffle(*deck)
	g.emit(func() Event {
		return Event{Kind: KindDeckReshuffled, Seat: seat, N: len(*deck),
			Text: s.name(seat) + " shuffles the Recycle Bin into a new Laboratory Deck of " + plural(len(*deck), "card") + "."}
	})
	return true
}

// toBin puts cards into seat's Recycle Bin, face down.
func (g *game) toBin(seat int, cards ...Inst) {
	bin := g.s.bin(seat)
	*bin = append(*bin, cards...)
	g.s.rekeyAll((*bin)[len(*bin)-len(cards):])
}

// discard moves the hand cards with these instance ids to the Recycle Bin;
// chosen is the prompt the seat answered to choose them ("" for none).
func (g *game) discard(seat int, ids []string, random bool, chosen string) {
	s := g.s
	p := &s.Players[seat]
	var gone []Inst
	for _, id := range ids {
		if c, ok := remove(&p.Hand, id); ok {
			gone = append(gone, c)
		}
	}
	if len(gone) == 0 {
		return
	}
	g.toBin(seat, gone...)
	how := ""
	if random {
		how = " at random"
	}
	g.emitPrivate(seat,
		func() Event {
			cards, _ := split(gone)
			return Event{Kind: KindDiscarded, Seat: seat, Cards: cards, N: len(gone), Prompt: chosen, Text: "You discard " + s.cardList(cards) + how + "."}
		},
		func() Event {
			return Event{Kind: KindDiscarded, Seat: seat, N: len(gone), Text: s.name(seat) + " discards " + plural(len(gone), "card") + how + "."}
		})
}

// refillMarket flips challenges until the Market is full or the Challenge
// Deck is empty.
func (g *game) refillMarket() {
	s := g.s
	for len(s.Market) < marketSize[len(s.Players)] && len(s.ChallengeDeck) > 0 {
		c := s.rekey(s.ChallengeDeck[0])
		s.ChallengeDeck = s.ChallengeDeck[1:]
		s.Market = append(s.Market, c)
		g.emit(func() Event {
			return Event{Kind: KindChallengeRevealed, Seat: -1, Card: c.Card, Inst: c.ID,
				Text: s.card(c.Card).Name + " opens in the Market."}
		})
	}
}

// abandonBuild sends an open build's Tools to the Recycle Bin.
func (g *game) abandonBuild(seat int) {
	s := g.s
	if s.Build == nil {
		return
	}
	tools := s.Build.Tools
	s.Build = nil
	g.toBin(seat, tools...)
	g.emit(func() Event {
		return Event{Kind: KindBuildAbandoned, Seat: seat, N: len(tools),
			Text: s.name(seat) + " abandons a Software Build of " + plural(len(tools), "Tool") + "."}
	})
}

// prompt opens a prompt for task t. A prompt for a seat that has left the
// game is answered at once with its default.
func (g *game) prompt(t *Task, p Prompt) {
	s := g.s
	if !s.live(p.Seat) {
		t.Answer, t.Answered = p.Default(), true
		return
	}
	s.Serial++
	p.ID = "p" + strconv.Itoa(s.Serial)
	if p.Kind != PromptInterrupt {
		p.Actor = p.Seat
	}
	s.Prompts = append(s.Prompts, p)
	t.Prompt = p.ID
	g.emitPrivate(p.Seat,
		func() Event { return Event{Kind: KindPrompt, Seat: p.Seat, Prompt: p.ID, Text: p.Text} },
		func() Event {
			return Event{Kind: KindWaiting, Seat: p.Seat, Text: "Waiting for " + s.name(p.Seat) + " to decide."}
		})
}

// answer delivers a validated answer to the task or window waiting for it;
// own is whether its seat gave it, not a default given for it.
func (g *game) answer(p Prompt, choices []string, own bool) {
	s := g.s
	s.Prompts = slices.DeleteFunc(s.Prompts, func(q Prompt) bool { return q.ID == p.ID })
	for i := len(s.Stack) - 1; i >= 0; i-- {
		t := &s.Stack[i]
		if t.Prompt == p.ID {
			t.Prompt, t.Answer, t.Answered = "", choices, true
			if own {
				t.chosen = p.ID
			}
			return
		}
		if t.Ev != nil && t.Ev.Window != nil && slices.Contains(t.Ev.Window.Prompts, p.ID) {
			w := t.Ev.Window
			w.Prompts = slices.DeleteFunc(w.Prompts, func(id string) bool { return id == p.ID })
			if choices[0] != Pass {
				w.Plays = append(w.Plays, WindowPlay{Seat: p.Seat, Card: choices[0]})
			}
			g.emit(func() Event {
				return Event{Kind: KindAnswered, Seat: p.Seat, Prompt: p.ID, On: t.Ev.Kind,
					Text: s.name(p.Seat) + " has answered."}
			})
			return
		}
	}
	panic("engine: no task waits for prompt " + p.ID)
}

// finish ends the game, scores it and names the winners.
func (g *game) finish(reason string) {
	s := g.s
	for _, t := range s.Stack {
		g.returnHeld(t)
	}
	s.Stack, s.Prompts, s.Queue = nil, nil, nil
	if s.Build != nil {
		g.abandonBuild(s.Active)
	}
	s.Phase = PhaseOver
	scores := make([]int, len(s.Players))
	for i := range s.Players {
		scores[i] = s.Score(i)
	}
	s.Winners = s.winners(scores)
	g.emit(func() Event {
		return Event{Kind: KindGameOver, Seat: -1, Scores: scores, Seats: s.Winners,
			Text: gameOverOpen + reason + pluralWord(max(len(s.Winners), 1), gameOverWinner, gameOverWinners) + s.seatList(s.Winners) + "."}
	})
}

// How a game_over event's text names its reason: "The game is over (" +
// reason + "). Winner: " + the winner + "." ("). Winners: " for several).
const gameOverOpen, gameOverWinner, gameOverWinners = "The game is over (", "). Winner: ", "). Winners: "

// EndReason is how the game ended, as its game_over event e says ("the
// last challenge was won"), for a front door that names the winners
// itself; "" for another event. Events are kept as they were logged (the
// replay compares them), so the reason is read from the text, in the
// shape finish writes it.
func EndReason(e Event) string {
	rest, ok := strings.CutPrefix(e.Text, gameOverOpen)
	i := max(strings.LastIndex(rest, gameOverWinner), strings.LastIndex(rest, gameOverWinners))
	if e.Kind != KindGameOver || !ok || i <= 0 {
		return ""
	}
	return rest[:i]
}

// returnHeld puts cards held by a task back into a Recycle Bin, so that no
// card is lost when the stack is unwound.
func (g *game) returnHeld(t Task) {
	if t.Ev != nil && t.Ev.Card != nil {
		g.toBin(t.Ev.Actor, *t.Ev.Card)
	}
	if len(t.Held) > 0 {
		g.toBin(t.Seat, t.Held...)
	}
}

// Score is seat's Big Data Points: their Ranking plus static modifiers.
func (s *State) Score(seat int) int {
	return s.scoreWith(seat, s.allStatMods()[seat].points)
}

// scoreWith is Score given seat's static points modifier.
func (s *State) scoreWith(seat, mod int) int {
	n := 0
	for _, c := range s.Players[seat].Ranking {
		n += s.card(c.Card).Points
	}
	return n + mod
}

// winners applies the scoring rules: most Big Data Points; on a tie, the
// player holding the single most valuable challenge; still tied, a shared
// win. Seats that resigned cannot win.
func (s *State) winners(scores []int) []int {
	var out []int
	for seat, r := range s.ranks(scores) {
		if r == 0 && s.live(seat) {
			out = append(out, seat)
		}
	}
	return out
}

// Ranks returns each seat's place in the game as it stands (at its end,
// its final places), 0 for the first, by the scoring rules that name the
// winners: among the seats still in the game, more Big Data Points place
// higher, then the single most valuable challenge held; seats the rules
// cannot part share a place, and the next place counts them ("0, 0, 2").
// Seats that resigned come after all of them, sharing the last place. The
// winners are exactly the seats placed 0 (once the game is over).
func Ranks(s *State) []int {
	scores := make([]int, len(s.Players))
	for i := range s.Players {
		scores[i] = s.Score(i)
	}
	return s.ranks(scores)
}

// ranks is Ranks given each seat's score.
func (s *State) ranks(scores []int) []int {
	type key struct{ out, score, top int } // out: 1 for a seat that resigned
	keys := make([]key, len(scores))
	for i, sc := range scores {
		if s.live(i) {
			keys[i] = key{0, sc, s.topChallenge(i)}
		} else {
			keys[i] = key{out: 1}
		}
	}
	better := func(a, b key) bool {
		return a.out < b.out || a.out == b.out && (a.score > b.score || a.score == b.score && a.top > b.top)
	}
	out := make([]int, len(scores))
	for i := range keys {
		for j := range keys {
			if better(keys[j], keys[i]) {
				out[i]++
			}
		}
	}
	return out
}

// topChallenge is the Big Data Points of the single most valuable
// challenge in seat's Ranking (0 for none).
func (s *State) topChallenge(seat int) int {
	m := 0
	for _, c := range s.Players[seat].Ranking {
		m = max(m, s.card(c.Card).Points)
	}
	return m
}

// statSums holds every stat's static modifier for one seat.
type statSums struct{ tech, sci, draw, points int }

func (m *statSums) add(stat Stat, n int) {
	switch stat {
	case StatTech:
		m.tech += n
	case StatSci:
		m.sci += n
	case StatDraw:
		m.draw += n
	case StatPoints:
		m.points += n
	}
}

// allStatMods sums the static modifiers of every stat for every seat, in
// one pass over every Lab card in play and every card in the Global zone;
// seats past the last are zero.
func (s *State) allStatMods() [MaxPlayers]statSums {
	var out [MaxPlayers]statSums
	add := func(owner int, id string) {
		c := s.card(id)
		for i := range c.Effects {
			e := &c.Effects[i]
			if e.Trigger != Static || (e.If != nil && !s.holds(owner, c, *e.If)) {
				continue
			}
			for _, op := range e.Do {
				n := op.N * s.per(owner, op.Per)
				for seat := range s.Players {
					if affects(owner, op.Who, seat) {
						out[seat].add(op.Stat, n)
					}
				}
			}
		}
	}
	for owner := range s.Players {
		if !s.live(owner) {
			continue
		}
		for _, in := range s.Players[owner].Lab {
			add(owner, in.Card)
		}
	}
	for _, gl := range s.Global {
		add(gl.Owner, gl.Card)
	}
	return out
}

func affects(owner int, who Who, seat int) bool {
	switch who {
	case Opponents:
		return seat != owner
	case All:
		return true
	}
	return seat == owner
}

// per is the multiplier of an operation with Per: the number of Monsters of
// that class in seat's Lab, or 1 without Per.
func (s *State) per(seat int, cl Class) int {
	if cl == "" {
		return 1
	}
	n := 0
	for _, in := range s.Players[seat].Lab {
		if c := s.card(in.Card); c.Type == Monster && c.HasClass(cl) {
			n++
		}
	}
	return n
}

// holds tests a condition for seat about card c.
func (s *State) holds(seat int, c *Card, cond Condition) bool {
	lab := s.Players[seat].Lab
	if cond.Class != "" || cond.Level != "" {
		need := max(cond.Count, 1)
		n := 0
		for _, in := range lab {
			m := s.card(in.Card)
			if m.Type == Monster && (cond.Class == "" || m.HasClass(cond.Class)) && m.Level.Rank() >= cond.Level.Rank() {
				n++
			}
		}
		if n < need {
			return false
		}
	}
	if cond.Equipment != "" && !slices.ContainsFunc(lab, func(in Inst) bool { return in.Card == cond.Equipment }) {
		return false
	}
	if cond.Recipe || cond.Components > 0 {
		if s.Build == nil || s.Active != seat {
			return false
		}
		if cond.Recipe && !recipeIn(s.Build.Tools, c.Recipe) {
			return false
		}
		if cond.Components > 0 {
			n := 0
			for _, t := range s.Build.Tools {
				if s.card(t.Card).Has(KwComponent) {
					n++
				}
			}
			if n < cond.Components {
				return false
			}
		}
	}
	return true
}

// BuildTech and BuildSci are the open build's totals with static modifiers.
func (s *State) BuildTech() int {
	tech, _ := s.buildStats()
	return tech
}

// BuildSci is the open build's SCI with static modifiers.
func (s *State) BuildSci() int {
	_, sci := s.buildStats()
	return sci
}

// buildStats is BuildTech and BuildSci, with one pass over the modifiers.
func (s *State) buildStats() (tech, sci int) {
	if s.Build == nil {
		return 0, 0
	}
	m := s.allStatMods()[s.Active]
	return max(s.Build.Tech+m.tech, 0), max(s.Build.Sci+m.sci, 0)
}

// split lists the card ids and the instance ids of cs, in one backing array.
func split(cs []Inst) (cards, insts []string) {
	both := make([]string, 2*len(cs))
	cards, insts = both[:len(cs):len(cs)], both[len(cs):]
	for i, c := range cs {
		cards[i], insts[i] = c.Card, c.ID
	}
	return cards, insts
}

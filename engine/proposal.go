package engine

import (
	"fmt"
	"slices"
	"strconv"
)

// Stages of a proposed event.
const (
	stagePropose = ""
	stageWindow  = "window"
	stageHappen  = "happen"
	stageKeep    = "keep"
	stageBin     = "bin" // a Hack whose effects are resolving; then to the Recycle Bin
)

// propose puts an event on the stack; it happens once its interrupt window
// (if any) has closed and the interrupts played into it have resolved.
func (g *game) propose(p Proposal) {
	g.push(Task{Kind: TaskEvent, Seat: p.Actor, Ev: &p})
}

// stepEvent advances the proposed event at stack index i.
func (g *game) stepEvent(i int) {
	s := g.s
	ev := s.Stack[i].Ev
	switch ev.Stage {
	case stagePropose:
		ev.Stage = stageWindow
		if ev.Depth < MaxDepth && g.openWindow(i) {
			return
		}
	case stageWindow:
		g.closeWindow(i)
	case stageHappen:
		g.happen(i)
	case stageKeep:
		g.keep(i)
	case stageBin:
		t := g.pop()
		g.toBin(t.Ev.Actor, *t.Ev.Card)
	}
}

// eligible lists the seats an interrupt window on ev asks, in seat order
// from the actor, with the interrupt cards each could play now.
func (s *State) eligible(ev *Proposal) (seats []int, playable [][]Inst) {
	var order [MaxPlayers]int
	for _, seat := range s.appendOrder(order[:0], ev.Actor) {
		if seat == ev.Actor {
			continue
		}
		var cards []Inst
		for _, in := range s.Players[seat].Hand {
			if c := s.card(in.Card); c.answers(ev.Kind) && s.playable(seat, c, quiet) == nil {
				cards = append(cards, in)
			}
		}
		ask := len(cards) > 0
		if s.Policy == Conceal {
			ask = slices.ContainsFunc(s.Players[seat].DeckList, func(id string) bool { return s.card(id).answers(ev.Kind) })
		}
		if ask {
			seats = append(seats, seat)
			playable = append(playable, cards)
		}
	}
	return seats, playable
}

// openWindow opens an interrupt window on the event at stack index i,
// applying standing answers. It reports whether any prompt is open.
func (g *game) openWindow(i int) bool {
	s := g.s
	t := &s.Stack[i]
	ev := t.Ev
	seats, playable := s.eligible(ev)
	if len(seats) == 0 {
		return false
	}
	w := &Window{Seats: seats}
	ev.Window = w
	g.emit(func() Event {
		return Event{Kind: KindWindowOpened, Seat: ev.Actor, On: ev.Kind, Seats: seats, Cards: s.proposalCards(ev),
			Text: s.proposalText(ev) + "; " + s.seatList(seats) + " may answer with an interrupt."}
	})
	for k, seat := range seats {
		if play, ok := s.standingPlay(seat, ev.Kind, playable[k]); ok {
			w.Plays = append(w.Plays, WindowPlay{Seat: seat, Card: play})
			g.emit(func() Event {
				return Event{Kind: KindAnswered, Seat: seat, On: ev.Kind, Text: s.name(seat) + " has answered."}
			})
			continue
		}
		if s.Players[seat].Standing.Pass {
			g.emit(func() Event {
				return Event{Kind: KindAnswered, Seat: seat, On: ev.Kind, Text: s.name(seat) + " has answered."}
			})
			continue
		}
		opts := append([]Option{{ID: Pass, Text: "Pass"}}, s.cardOptions(playable[k], "Play ", ": ", func(c *Card) string {
			return c.words().answerText(ev.Kind)
		})...)
		before := s.Serial
		g.prompt(&s.Stack[i], Prompt{Seat: seat, Kind: PromptInterrupt, Min: 1, Max: 1, Options: opts, Event: ev.Kind, Actor: ev.Actor,
			Text: s.proposalText(ev) + ". Play an interrupt Hack, or pass."})
		t = &s.Stack[i]
		if s.Serial != before {
			w.Prompts = append(w.Prompts, t.Prompt)
		}
		t.Prompt = ""
	}
	return len(w.Prompts) > 0
}

// standingPlay returns the card a seat's standing answer plays, if any.
func (s *State) standingPlay(seat int, kind EventKind, playable []Inst) (string, bool) {
	for _, sp := range s.Players[seat].Standing.Plays {
		if sp.On != kind {
			continue
		}
		for _, in := range playable {
			if in.Card == sp.Card {
				return in.ID, true
			}
		}
	}
	return "", false
}

// closeWindow reveals the sealed plays and schedules them in seat order from
// the actor; the event happens after they have resolved.
func (g *game) closeWindow(i int) {
	s := g.s
	ev := s.Stack[i].Ev
	ev.Stage = stageHappen
	w := ev.Window
	ev.Window = nil
	if w == nil {
		return
	}
	var plays []Proposal
	for _, seat := range w.Seats {
		for _, pl := range w.Plays {
			if pl.Seat != seat {
				continue
			}
			c, ok := remove(&s.Players[seat].Hand, pl.Card)
			if !ok {
				continue
			}
			if s.card(c.Card).Has(KwLimit) {
				s.Players[seat].Limited = true
			}
			plays = append(plays, Proposal{Kind: EvPlayHack, Actor: seat, Card: &c, Depth: ev.Depth + 1, Interrupt: true, Parent: i + 1})
		}
	}
	g.emit(func() Event {
		text := "The interrupt window closes: nobody interrupts."
		if len(plays) > 0 {
			text = "The interrupt window closes with " + plural(len(plays), "interrupt") + "."
		}
		return Event{Kind: KindWindowClosed, Seat: ev.Actor, On: ev.Kind, N: len(plays), Text: text}
	})
	for k := len(plays) - 1; k >= 0; k-- {
		g.propose(plays[k])
	}
}

// happen carries out the event at stack index i, unless it was cancelled.
func (g *game) happen(i int) {
	s := g.s
	ev := *s.Stack[i].Ev
	if ev.Kind == EvPlace && !ev.Cancelled {
		g.place(i)
		return
	}
	g.pop()
	if ev.Cancelled {
		if ev.Card != nil {
			g.toBin(ev.Actor, *ev.Card)
		}
		// A build opened for a Tool that never arrived is not a build.
		if ev.Kind == EvPlayTool && s.Build != nil && len(s.Build.Tools) == 0 {
			s.Build = nil
		}
		return
	}
	switch ev.Kind {
	case EvDraw:
		g.draw(ev.Actor, ev.N)
	case EvPlayTool:
		c := s.card(ev.Card.Card)
		effs := c.effects(OnPlay)
		// Effect conditions see the build as it was before this Tool. A
		// stack Tool's recipe effects wait for the whole recipe instead.
		var run []Effect
		for _, e := range effs {
			if e.If != nil && e.If.Recipe {
				continue
			}
			if e.If == nil || s.holds(ev.Actor, c, *e.If) {
				run = append(run, Effect{Trigger: e.Trigger, Do: e.Do})
			}
		}
		if s.Build == nil {
			s.Build = &Build{}
		}
		s.Build.Tools = append(s.Build.Tools, *ev.Card)
		s.Build.Tech += max(c.Tech+ev.Tech, 0)
		s.Build.Sci += max(c.Sci+ev.Sci, 0)
		bt, bs := s.buildStats()
		g.emit(func() Event {
			return Event{Kind: KindToolPlayed, Seat: ev.Actor, Card: c.ID, Inst: ev.Card.ID, N: len(s.Build.Tools),
				Text: s.name(ev.Actor) + " adds " + c.Name + " to the Software Build (now " + strconv.Itoa(bt) + " TECH, " + strconv.Itoa(bs) + " SCI)."}
		})
		// The Tool's own effects run first, then those of the stack Tools
		// whose recipe it completes (the last pushed runs first).
		g.completeRecipes(ev.Actor)
		for k := len(run) - 1; k >= 0; k-- {
			g.pushEffect(ev.Actor, c, run[k], 0)
		}
	case EvPlayHack:
		c := s.card(ev.Card.Card)
		if c.Has(KwGlobal) {
			s.Global = append(s.Global, Global{Inst: *ev.Card, Owner: ev.Actor})
		} else {
			// "Hacks provide instant effects and then must be put into the
			// Recycle Bin": the card waits under its effects.
			g.push(Task{Kind: TaskEvent, Seat: ev.Actor, Ev: &Proposal{Kind: EvPlayHack, Actor: ev.Actor, Card: ev.Card, Stage: stageBin}})
		}
		g.emit(func() Event {
			return Event{Kind: KindHackResolved, Seat: ev.Actor, Card: c.ID, Inst: ev.Card.ID,
				Text: s.name(ev.Actor) + "'s " + c.Name + " takes effect."}
		})
		trigger, parent := OnPlay, 0
		if ev.Interrupt {
			trigger, parent = OnInterrupt, ev.Parent
		}
		effs := c.effects(trigger)
		for k := len(effs) - 1; k >= 0; k-- {
			if ev.Interrupt && parent > 0 && parent <= len(s.Stack) && s.Stack[parent-1].Ev != nil && effs[k].Answers != s.Stack[parent-1].Ev.Kind {
				continue
			}
			g.pushEffect(ev.Actor, c, effs[k], parent)
		}
	case EvClaim:
		g.claim(ev)
	}
}

// completeRecipes runs the recipe effects of every stack Tool in the open
// build whose recipe the Tool just played (the build's last) completes:
// "a recipe of several components that must be played together with the
// card", in whatever order. A stack Tool played into a build that holds its
// recipe completes it too. Each stack Tool's recipe effects run once per
// build: Tools never leave a build, so a recipe completed stays complete.
// An effect's condition is checked when the recipe completes.
func (g *game) completeRecipes(seat int) {
	s := g.s
	tools := s.Build.Tools
	last := len(tools) - 1
	for i := len(tools) - 1; i >= 0; i-- { // pushed last first, so they run in build order
		k := s.card(tools[i].Card)
		if !k.Has(KwStack) || !recipeIn(tools, k.Recipe) || (i < last && recipeIn(tools[:last], k.Recipe)) {
			continue
		}
		effs := k.effects(OnPlay)
		ran := false
		for j := len(effs) - 1; j >= 0; j-- {
			if e := effs[j]; e.If != nil && e.If.Recipe && s.holds(seat, k, *e.If) {
				g.push(Task{Kind: TaskOps, Seat: seat, Src: k.ID, Ops: e.Do})
				ran = true
			}
		}
		if ran {
			g.emit(func() Event {
				return Event{Kind: KindRecipeCompleted, Seat: seat, Card: k.ID, Inst: tools[i].ID,
					Text: s.name(seat) + "'s Software Build holds the recipe of " + k.Name + ": its effect applies."}
			})
		}
	}
}

// recipeIn reports whether tools hold every card of recipe, a card named
// twice needing two copies.
func recipeIn(tools []Inst, recipe []string) bool {
	for j, need := range recipe {
		want := 1 + countOf(recipe[:j], need)
		have := 0
		for _, t := range tools {
			if t.Card == need {
				have++
			}
		}
		if have < want {
			return false
		}
	}
	return true
}

func countOf(ids []string, id string) int {
	n := 0
	for _, x := range ids {
		if x == id {
			n++
		}
	}
	return n
}

// claim completes the Software Build if it still covers the challenges.
func (g *game) claim(ev Proposal) {
	s := g.s
	tech, sci, points := ev.Tech, ev.Sci, 0
	var won []Inst
	for _, id := range ev.Challenges {
		c, ok := find(s.Market, id)
		if !ok {
			continue
		}
		card := s.card(c.Card)
		tech += card.Tech
		sci += card.Sci
		points += card.Points
		won = append(won, c)
	}
	if bt, bs := s.buildStats(); s.Build == nil || len(won) != len(ev.Challenges) || tech > bt || sci > bs {
		g.emit(func() Event {
			cards, _ := split(won)
			text := s.name(ev.Actor) + "'s claim of " + s.cardList(cards) + " fails: "
			switch {
			case len(won) != len(ev.Challenges):
				text += "a challenge it named has left the Market"
			case s.Build == nil:
				text += "the Software Build is gone"
			default:
				text += "it needs " + strconv.Itoa(tech) + " TECH and " + strconv.Itoa(sci) + " SCI; the Software Build has " +
					strconv.Itoa(bt) + " TECH and " + strconv.Itoa(bs) + " SCI and stays open"
			}
			return Event{Kind: KindClaimFailed, Seat: ev.Actor, N: len(ev.Challenges), Cards: cards, Text: text + "."}
		})
		return
	}
	p := &s.Players[ev.Actor]
	for _, c := range won {
		remove(&s.Market, c.ID)
		p.Ranking = append(p.Ranking, c)
	}
	tools := s.Build.Tools
	s.Build = nil
	g.toBin(ev.Actor, tools...)
	g.emit(func() Event {
		cards, insts := split(won)
		return Event{Kind: KindBuildCompleted, Seat: ev.Actor, Cards: cards, Insts: insts, N: points,
			Text: s.name(ev.Actor) + " completes a Software Build of " + plural(len(tools), "Tool") + " and wins " + s.cardList(cards) + " (" + plural(points, "Big Data Point") + ")."}
	})
	g.refillMarket()
	if len(s.Market) == 0 && len(s.ChallengeDeck) == 0 {
		g.finish("the last challenge was won")
	}
}

// place puts a Monster or Lab Equipment into the actor's Lab, following the
// same-name rules: upgrade, degrade, or a choice of which card stays.
func (g *game) place(i int) {
	s := g.s
	ev := s.Stack[i].Ev
	seat := ev.Actor
	c := s.card(ev.Card.Card)
	p := &s.Players[seat]
	k := s.labTwin(seat, c)
	if s.placeable(seat, c, quiet) != nil {
		// The Lab changed while the event was proposed: the card returns to hand.
		g.pop()
		p.Hand = append(p.Hand, s.rekey(*ev.Card))
		g.emit(func() Event {
			return Event{Kind: KindPlaceFailed, Seat: seat, Card: c.ID, Text: fmt.Sprintf("%s cannot be placed any more and returns to %s's hand.", c.words().named, s.name(seat))}
		})
		return
	}
	if k < 0 {
		g.pop()
		p.Lab = append(p.Lab, *ev.Card)
		g.placed(seat, *ev.Card, "")
		return
	}
	old := p.Lab[k]
	oc := s.card(old.Card)
	if c.Type == Monster && oc.Type == Monster && c.Level.Rank() != oc.Level.Rank() {
		g.pop()
		p.Lab[k] = *ev.Card
		g.toBin(seat, old)
		g.placed(seat, *ev.Card, old.Card)
		return
	}
	ev.Stage = stageKeep
	t := &s.Stack[i]
	g.prompt(t, Prompt{Seat: seat, Kind: PromptKeep, Min: 1, Max: 1, Source: c.ID,
		Options: []Option{{ID: ev.Card.ID, Card: c.ID, Text: "Keep " + c.Name + " (new)"}, {ID: old.ID, Card: old.Card, Text: "Keep " + oc.Name + " (in your Lab)"}},
		Text:    fmt.Sprintf("You already have %s in your Lab: choose which card stays.", c.Name)})
}

// labTwin is the index of the card in seat's Lab that c, placed there,
// would contest (see labTwins), or -1.
func (s *State) labTwin(seat int, c *Card) int {
	return slices.IndexFunc(s.Players[seat].Lab, func(in Inst) bool { return labTwins(c, s.card(in.Card)) })
}

// labTwins reports whether a Lab holds only one of a and b: two Monsters of
// one name ("Each player can have only one copy of each Monster in the Lab
// zone"), or two Lab Equipment cards of one name of which one is marked
// unique. Other Lab Equipment of one name stands together.
func labTwins(a, b *Card) bool {
	if a.Name != b.Name || a.Type != b.Type {
		return false
	}
	return a.Type == Monster || (a.Type == LabEquipment && (a.Unique || b.Unique))
}

// keep finishes a placement after the choice of which card stays.
func (g *game) keep(i int) {
	s := g.s
	t := g.pop()
	ev := t.Ev
	seat := ev.Actor
	p := &s.Players[seat]
	k := s.labTwin(seat, s.card(ev.Card.Card))
	if k < 0 || t.Answer[0] != ev.Card.ID {
		g.toBin(seat, *ev.Card)
		g.emit(func() Event {
			return Event{Kind: KindKept, Seat: seat, Card: ev.Card.Card, Text: fmt.Sprintf("%s keeps the %s already in the Lab.", s.name(seat), s.card(ev.Card.Card).Name)}
		})
		return
	}
	old := p.Lab[k]
	p.Lab[k] = *ev.Card
	g.toBin(seat, old)
	g.placed(seat, *ev.Card, old.Card)
}

// placed announces a placement and runs the card's on-play effects.
func (g *game) placed(seat int, in Inst, replaced string) {
	s := g.s
	c := s.card(in.Card)
	g.emit(func() Event {
		text := s.name(seat) + " places " + c.words().named + " in the Lab."
		var gone []string
		if replaced != "" {
			text = s.name(seat) + " places " + c.words().named + " in the Lab, replacing " + s.card(replaced).words().named + "."
			gone = []string{replaced}
		}
		return Event{Kind: KindPlaced, Seat: seat, Card: c.ID, Inst: in.ID, Cards: gone, Text: text}
	})
	effs := c.effects(OnPlay)
	for k := len(effs) - 1; k >= 0; k-- {
		g.pushEffect(seat, c, effs[k], 0)
	}
}

// proposalText describes a proposed event: "ana is about to play the
// Hack Scrum Planning".
func (s *State) proposalText(p *Proposal) string {
	who := s.name(p.Actor)
	switch p.Kind {
	case EvDraw:
		return who + " is about to draw " + plural(p.N, "card")
	case EvClaim:
		return who + " is about to claim " + s.cardList(s.proposalCards(p))
	}
	name := "a card"
	if p.Card != nil {
		name = s.card(p.Card.Card).words().named
	}
	switch p.Kind {
	case EvPlace:
		return who + " is about to place " + name
	case EvPlayTool:
		return who + " is about to play the Tool " + name
	}
	return who + " is about to play the Hack " + name
}

// proposalNoun names a proposed event as what an interrupt acts on:
// "ana's Scrum Planning", "bob's draw of 2 cards", "ana's claim of Spam
// Filter".
func (s *State) proposalNoun(p *Proposal) string {
	who := s.name(p.Actor) + "'s "
	switch p.Kind {
	case EvDraw:
		return who + "draw of " + plural(p.N, "card")
	case EvClaim:
		return who + "claim of " + s.cardList(s.proposalCards(p))
	}
	if p.Card == nil {
		return who + "card"
	}
	return who + s.card(p.Card.Card).words().named
}

// proposalCards are the card ids a proposed event shows: the card placed
// or played, or the Market challenges claimed (those still there); none
// for a draw.
func (s *State) proposalCards(p *Proposal) []string {
	if p.Kind == EvClaim {
		var cards []string
		for _, id := range p.Challenges {
			if c, ok := find(s.Market, id); ok {
				cards = append(cards, c.Card)
			}
		}
		return cards
	}
	if p.Card != nil {
		return []string{p.Card.Card}
	}
	return nil
}

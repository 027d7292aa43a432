package engine

import (
	"fmt"
	"slices"
	"strconv"
)

// stepOps runs the next operation of the ops task at index i.
func (g *game) stepOps(i int) {
	s := g.s
	t := &s.Stack[i]
	if t.I >= len(t.Ops) {
		g.pop()
		return
	}
	if g.op(t, t.Ops[t.I]) {
		t = &s.Stack[i]
		t.I++
		t.Who, t.Resolved, t.Held = nil, false, nil
		t.forget()
	}
}

// parent returns the proposal an interrupt effect answers, or nil.
func (g *game) parent(t *Task) *Proposal {
	if t.Parent <= 0 || t.Parent > len(g.s.Stack) {
		return nil
	}
	return g.s.Stack[t.Parent-1].Ev
}

// targets resolves op.Who into t.Who, prompting for a chosen opponent. It
// reports false while waiting for that answer.
func (g *game) targets(t *Task, op Op) bool {
	if t.Resolved {
		return true
	}
	s := g.s
	opps := slices.DeleteFunc(s.order(t.Seat), func(x int) bool { return x == t.Seat })
	switch op.Who {
	case Opponents:
		t.Who = opps
	case All:
		t.Who = append([]int{t.Seat}, opps...)
	case Actor:
		if p := g.parent(t); p != nil && s.live(p.Actor) {
			t.Who = []int{p.Actor}
		}
	case Chosen:
		switch {
		case t.Answered:
			seat, _ := strconv.Atoi(t.Answer[0])
			t.Who = []int{seat}
			t.forget()
		case len(opps) <= 1:
			t.Who = opps
		default:
			opts := make([]Option, len(opps))
			for k, o := range opps {
				opts[k] = Option{ID: strconv.Itoa(o), Text: s.name(o)}
			}
			g.prompt(t, Prompt{Seat: t.Seat, Kind: PromptPlayer, Min: 1, Max: 1, Options: opts, Source: t.Src,
				Text: fmt.Sprintf("%s: choose an opponent to %s.", s.srcName(t.Src), OpText(op))})
			return false
		}
	default:
		t.Who = []int{t.Seat}
	}
	t.Resolved = true
	return true
}

// op runs one operation for task t. It reports whether the operation is
// finished; false means it opened a prompt and waits for the answer.
func (g *game) op(t *Task, op Op) bool {
	s := g.s
	if !g.targets(t, op) {
		return false
	}
	n := op.N * s.per(t.Seat, op.Per)
	src := s.srcName(t.Src)
	switch op.Verb {
	case VDraw:
		for _, seat := range t.Who {
			g.draw(seat, n)
		}
	case VDiscardRandom:
		for _, seat := range t.Who {
			hand := s.Players[seat].Hand
			var ids []string
			for _, k := range s.random().Perm(len(hand))[:min(n, len(hand))] {
				ids = append(ids, hand[k].ID)
			}
			g.discard(seat, ids, true, "")
		}
	case VDiscard:
		for len(t.Who) > 0 {
			seat := t.Who[0]
			hand := s.Players[seat].Hand
			switch {
			case t.Answered:
				g.discard(seat, t.Answer, false, t.chosen)
				t.forget()
			case len(hand) <= n:
				_, ids := split(hand)
				g.discard(seat, ids, false, "")
			default:
				text := src + ": discard " + plural(n, "card") + "."
				if t.Src == "hand_limit" {
					text = "Hand limit: discard " + plural(n, "card") + " to keep " + strconv.Itoa(HandLimit) + "."
				}
				g.prompt(t, Prompt{Seat: seat, Kind: PromptDiscard, Min: n, Max: n, Options: s.cardOptions(hand, "Discard ", "", nil), Source: t.Src, Text: text})
				return false
			}
			t.Who = t.Who[1:]
		}
	case VLook:
		return g.look(t, n)
	case VRecover:
		return g.recover(t, n)
	case VRecycle:
		deck, bin := s.deck(t.Seat), s.bin(t.Seat)
		k := len(*bin)
		*deck = append(*deck, *bin...)
		*bin = nil
		s.shuffle(*deck)
		g.emit(func() Event {
			text := s.name(t.Seat) + " shuffles " + plural(k, "card") + " from the Recycle Bin into the Laboratory Deck."
			if k == 0 {
				text = s.name(t.Seat) + " has no card in the Recycle Bin to shuffle into the Laboratory Deck."
			}
			return Event{Kind: KindRecycled, Seat: t.Seat, N: k, Text: text}
		})
	case VBoost:
		if s.Build != nil && s.Active == t.Seat {
			if op.Stat == StatTech {
				s.Build.Tech += n
			} else {
				s.Build.Sci += n
			}
			g.emit(func() Event {
				return Event{Kind: KindBoosted, Seat: t.Seat, Card: t.Src, N: n, Text: src + " adds " + strconv.Itoa(n) + " " + statName(op.Stat) + " to the Software Build."}
			})
		}
	case VCancel:
		if p := g.parent(t); p != nil && !p.Cancelled {
			p.Cancelled = true
			g.emit(func() Event {
				text := src + " cancels " + s.proposalNoun(p) + "."
				if p.Card != nil {
					text = src + " cancels " + s.proposalNoun(p) + ", which goes to the Recycle Bin."
				}
				return Event{Kind: KindCancelled, Seat: t.Seat, Card: t.Src, On: p.Kind, Target: p.Actor, N: p.N, Cards: s.proposalCards(p), Text: text}
			})
		}
	case VAlter:
		if p := g.parent(t); p != nil {
			switch op.Stat {
			case StatDraw:
				p.N = max(p.N+op.N, 0)
			case StatTech:
				p.Tech += op.N
			case StatSci:
				p.Sci += op.N
			}
			g.emit(func() Event {
				return Event{Kind: KindAltered, Seat: t.Seat, Card: t.Src, On: p.Kind, N: op.N, Target: p.Actor, Cards: s.proposalCards(p),
					Text: src + ": " + s.alteredText(p, op) + "."}
			})
		}
	case VRefresh:
		return g.refresh(t, n)
	case VBounce, VScrap:
		return g.removeFromLab(t, op)
	case VChoose:
		if !t.Answered {
			opts := make([]Option, len(op.Options))
			for k, o := range op.Options {
				opts[k] = Option{ID: strconv.Itoa(k + 1), Text: Capitalize(OpsText(o))}
			}
			g.prompt(t, Prompt{Seat: t.Seat, Kind: PromptChoose, Min: 1, Max: 1, Options: opts, Source: t.Src, Text: src + ": choose one."})
			return false
		}
		k, _ := strconv.Atoi(t.Answer[0])
		t.Ops = slices.Concat(t.Ops[:t.I+1], op.Options[k-1], t.Ops[t.I+1:])
	}
	return true
}

// look lifts the top n cards of the controller's deck, lets them take one
// into their hand, and puts the rest on the bottom.
func (g *game) look(t *Task, n int) bool {
	s := g.s
	seat := t.Seat
	if !t.Answered {
		for len(t.Held) < n && g.ensureDeck(seat) {
			deck := s.deck(seat)
			t.Held = append(t.Held, (*deck)[0])
			*deck = (*deck)[1:]
		}
		if len(t.Held) == 0 {
			return true
		}
		if len(t.Held) > 1 {
			g.prompt(t, Prompt{Seat: seat, Kind: PromptLook, Min: 1, Max: 1, Options: s.cardOptions(t.Held, "Take ", "", nil), Source: t.Src,
				Text: s.srcName(t.Src) + ": take one of the top " + plural(len(t.Held), "card") + " of your Laboratory Deck; the rest go to the bottom."})
			return false
		}
		t.Answer = []string{t.Held[0].ID}
	}
	chosen := t.chosen // "" when one card left no choice
	var taken Inst
	var rest []Inst
	for _, c := range t.Held {
		if c.ID == t.Answer[0] {
			taken = c
		} else {
			rest = append(rest, c)
		}
	}
	p := &s.Players[seat]
	p.Hand = append(p.Hand, s.rekey(taken))
	deck := s.deck(seat)
	*deck = append(*deck, rest...)
	s.rekeyAll((*deck)[len(*deck)-len(rest):])
	t.Held = nil
	g.emitPrivate(seat,
		func() Event {
			seen := make([]string, 0, 1+len(rest))
			seen = append(seen, taken.Card)
			for _, c := range rest {
				seen = append(seen, c.Card)
			}
			text := "You look at " + s.cardList(seen) + " and take " + s.card(taken.Card).Name + "."
			if len(rest) == 0 {
				text = "You take " + s.card(taken.Card).Name + ", the top card of your Laboratory Deck."
			}
			return Event{Kind: KindLooked, Seat: seat, Card: taken.Card, Cards: seen, N: len(seen), Prompt: chosen, Text: text}
		},
		func() Event {
			text := s.name(seat) + " looks at " + plural(1+len(rest), "card") + " of their deck and takes one."
			if len(rest) == 0 {
				text = s.name(seat) + " takes the top card of their Laboratory Deck."
			}
			return Event{Kind: KindLooked, Seat: seat, N: 1 + len(rest), Text: text}
		})
	return true
}

// recover takes up to n cards of the controller's choice from their Recycle
// Bin into their hand.
func (g *game) recover(t *Task, n int) bool {
	s := g.s
	seat := t.Seat
	bin := s.bin(seat)
	if len(*bin) == 0 {
		return true
	}
	var ids []string
	chosen := ""
	switch {
	case t.Answered:
		ids, chosen = t.Answer, t.chosen
	case len(*bin) <= n:
		_, ids = split(*bin)
	case s.Office:
		// The shared Recycle Bin holds every player's discards, face down:
		// choosing from it would show them, so the cards come at random.
		for _, k := range s.random().Perm(len(*bin))[:n] {
			ids = append(ids, (*bin)[k].ID)
		}
	default:
		g.prompt(t, Prompt{Seat: seat, Kind: PromptRecover, Min: n, Max: n, Options: s.cardOptions(*bin, "Take ", "", nil), Source: t.Src,
			Text: s.srcName(t.Src) + ": take " + plural(n, "card") + " from your Recycle Bin."})
		return false
	}
	var got []Inst
	for _, id := range ids {
		if c, ok := remove(bin, id); ok {
			got = append(got, c)
		}
	}
	s.rekeyAll(got)
	s.Players[seat].Hand = append(s.Players[seat].Hand, got...)
	g.emitPrivate(seat,
		func() Event {
			cards, _ := split(got)
			return Event{Kind: KindRecovered, Seat: seat, Cards: cards, N: len(got), Prompt: chosen, Text: "You take " + s.cardList(cards) + " from your Recycle Bin."}
		},
		func() Event {
			return Event{Kind: KindRecovered, Seat: seat, N: len(got), Text: s.name(seat) + " takes " + plural(len(got), "card") + " from the Recycle Bin."}
		})
	return true
}

// refresh puts up to n Market challenges of the controller's choice under
// the Challenge Deck and refills the Market.
func (g *game) refresh(t *Task, n int) bool {
	s := g.s
	if len(s.Market) == 0 || len(s.ChallengeDeck) == 0 {
		return true
	}
	if !t.Answered {
		g.prompt(t, Prompt{Seat: t.Seat, Kind: PromptRefresh, Min: 0, Max: min(n, len(s.Market)), Options: s.cardOptions(s.Market, "Put ", " under the Challenge Deck", nil), Source: t.Src,
			Text: fmt.Sprintf("%s: put up to %s from the Market under the Challenge Deck.", s.srcName(t.Src), plural(n, "challenge"))})
		return false
	}
	for _, id := range t.Answer {
		if c, ok := remove(&s.Market, id); ok {
			s.ChallengeDeck = append(s.ChallengeDeck, s.rekey(c))
			g.emit(func() Event {
				return Event{Kind: KindChallengeRefreshed, Seat: t.Seat, Card: c.Card, Inst: c.ID,
					Text: fmt.Sprintf("%s puts %s under the Challenge Deck.", s.name(t.Seat), s.card(c.Card).Name)}
			})
		}
	}
	g.refillMarket()
	return true
}

// removeFromLab returns (bounce) or discards (scrap) a card of the target
// type from each target's Lab, chosen by the controller.
func (g *game) removeFromLab(t *Task, op Op) bool {
	s := g.s
	for len(t.Who) > 0 {
		seat := t.Who[0]
		var cands []Inst
		for _, in := range s.Players[seat].Lab {
			if s.card(in.Card).Type == op.Target {
				cands = append(cands, in)
			}
		}
		switch {
		case len(cands) == 0:
		case !t.Answered && len(cands) > 1:
			verb, where := "Return "+s.name(seat)+"'s ", " to their hand"
			if op.Verb == VScrap {
				verb, where = "Put "+s.name(seat)+"'s ", " into their Recycle Bin"
			}
			g.prompt(t, Prompt{Seat: t.Seat, Kind: PromptCard, Min: 1, Max: 1, Options: s.cardOptions(cands, verb, where, nil), Source: t.Src,
				Text: fmt.Sprintf("%s: choose a card in %s's Lab to %s.", s.srcName(t.Src), s.name(seat), map[Verb]string{VBounce: "return to their hand", VScrap: "put into their Recycle Bin"}[op.Verb])})
			return false
		default:
			id := cands[0].ID
			if t.Answered {
				id = t.Answer[0]
			}
			t.forget()
			c, _ := remove(&s.Players[seat].Lab, id)
			kind, where := KindBounce, "hand"
			if op.Verb == VBounce {
				s.Players[seat].Hand = append(s.Players[seat].Hand, s.rekey(c))
			} else {
				g.toBin(seat, c)
				kind, where = KindScrap, "Recycle Bin"
			}
			g.emit(func() Event {
				return Event{Kind: kind, Seat: t.Seat, Target: seat, Card: c.Card, Inst: c.ID,
					Text: fmt.Sprintf("%s sends %s's %s from the Lab to their %s.", s.srcName(t.Src), s.name(seat), s.card(c.Card).words().named, where)}
			})
		}
		t.Who = t.Who[1:]
	}
	return true
}

// alteredText says what an interrupt's alteration op does to the proposed
// event p, now that it is applied: "ana's claim of Spam Filter needs 2
// more TECH", "bob draws 1 card fewer".
func (s *State) alteredText(p *Proposal, op Op) string {
	n := abs(op.N)
	switch {
	case p.Kind == EvDraw && op.Stat == StatDraw:
		return s.name(p.Actor) + " draws " + strconv.Itoa(n) + " " + moreFewer(op.N, "card", "cards")
	case p.Kind == EvClaim:
		return s.proposalNoun(p) + " needs " + strconv.Itoa(n) + " " + moreLess(op.N) + " " + statName(op.Stat)
	case p.Kind == EvPlayTool:
		return s.proposalNoun(p) + " gives " + strconv.Itoa(n) + " " + moreLess(op.N) + " " + statName(op.Stat)
	}
	return s.proposalNoun(p) + " changes by " + strconv.Itoa(op.N) + " " + statName(op.Stat)
}

// srcName is the name of the card an effect comes from.
func (s *State) srcName(src string) string {
	switch src {
	case "":
		return "The game"
	case "hand_limit":
		return "Hand limit"
	}
	if c := s.catalog().Card(src); c != nil {
		return c.Name
	}
	return src
}

func statName(st Stat) string {
	switch st {
	case StatTech:
		return "TECH"
	case StatSci:
		return "SCI"
	case StatDraw:
		return "cards drawn"
	case StatPoints:
		return "Big Data Points"
	}
	return string(st)
}

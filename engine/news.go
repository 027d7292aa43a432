package engine

import (
	"slices"
	"strconv"
	"strings"
)

// News is what changed for seat in events, in short sentences in the
// past tense worded for the seat: what another player did to its moves
// ("bot-1 played Red Tape: your Scrum Planning was cancelled", "bot-1
// played Scope Creep on your claim of Spam Filter: the challenges need 2
// more TECH, so the claim failed"), what the others did that stays on
// the table (a placement, a win, a Global card, a card sent from a Lab),
// its opening hand, the cards it drew, took or discarded (but for those
// its own answer chose: Event.Chosen), new challenges, and the end of
// the game. Its own moves that went as asked say nothing: the seat saw
// them. events are the game's events since a moment the
// caller chooses (the version the seat last saw, for example), oldest
// first, as stored: each is read as the seat may see it (Event.For), so
// News tells nothing the seat may not know. A spectator (seat < 0) gets
// what everyone may know, worded with every player's name. Names and cards come from s, the
// game's state (any version of it: only names and the card set are read).
// Events that say nothing new to the seat give no sentence; none gives
// nil.
func News(s *State, seat int, events []Event) []string { return s.Table().News(seat, events) }

// Table is what News reads of a game: its players' names and its card
// set. It shares nothing that changes with the state it comes from, so a
// caller may keep it after the state is gone.
type Table struct {
	names []string
	cat   *Catalog
}

// Table returns the players' names and the card set of s.
func (s *State) Table() Table {
	t := Table{names: make([]string, len(s.Players)), cat: s.catalog()}
	for i := range s.Players {
		t.names[i] = s.name(i)
	}
	return t
}

// News is the package function News on the game of t.
func (t Table) News(seat int, events []Event) []string {
	news, _ := t.NewsTelling(seat, events)
	return news
}

// NewsTelling is News, and for each of events the index of the sentence
// that tells it (-1: none), so that a caller that also lists the events
// can leave out those the news already told. Several events may be told
// by one sentence (new challenges, a claim altered and so failed, a card
// played and what came of it: "bob placed Glitchy (Junior) in their Lab"
// tells "bob plays Glitchy (Junior)" too).
func (t Table) NewsTelling(seat int, events []Event) (news []string, telling []int) {
	if t.cat == nil {
		return nil, nil // the zero Table: no game
	}
	n := newsroom{t: t, seat: seat, alter: -1, market: -1}
	telling = make([]int, len(events))
	played := map[string]int{} // a card instance played, and its event's index
	for i, e := range events {
		n.told = -1
		if v, ok := e.For(seat); ok {
			n.read(v)
			if j, ok := played[v.Inst]; ok && v.Inst != "" && n.told >= 0 {
				telling[j] = n.told
			}
			if v.Kind == KindPlayed && v.Inst != "" {
				played[v.Inst] = i
			}
		}
		telling[i] = n.told
	}
	return n.out, telling
}

// name is the name of seat, as State.name words it.
func (t Table) name(seat int) string {
	if seat < 0 || seat >= len(t.names) {
		return "the game"
	}
	return t.names[seat]
}

// cardName is the name of card id; "a card" for one the set lacks.
func (t Table) cardName(id string) string {
	if c := t.cat.Card(id); c != nil {
		return c.Name
	}
	return "a card"
}

// cardList names cards: "Krol, Krol and Data Lake".
func (t Table) cardList(ids []string) string {
	if len(ids) == 0 {
		return "no cards"
	}
	return joinNames(len(ids), func(i int) string { return t.cardName(ids[i]) }, "and")
}

// newsroom words one seat's news, event by event.
type newsroom struct {
	t    Table
	seat int
	out  []string
	// alter is the index in out of the last alteration of a claim by the
	// seat in altered (-1: none), which a failure of that claim completes.
	alter, altered int
	// market is the index in out of the sentence of new challenges that
	// the next reveal adds to; -1 for none (something else came between).
	market   int
	revealed []string
	// told is the index in out of the sentence the event being read gave
	// or completed (-1: none).
	told int
	// dealing says that the game has begun and its first turn not yet:
	// the cards drawn then are the opening hands.
	dealing bool
}

func (n *newsroom) read(v Event) {
	s := n.t
	if v.Kind != KindChallengeRevealed {
		n.market = -1
	}
	switch v.Kind {
	case KindGameStarted:
		n.dealing = true
	case KindTurnStarted:
		n.dealing = false
	case KindDrew:
		switch {
		case v.Seat != n.seat || len(v.Cards) == 0:
		case n.dealing:
			n.say("Your opening hand: " + n.namedList(v.Cards) + ".")
		default:
			n.say("You drew " + n.namedList(v.Cards) + ".")
		}
	case KindDiscarded:
		if v.Seat == n.seat && len(v.Cards) > 0 && !v.Chosen() {
			how := ""
			if strings.HasSuffix(v.Text, " at random.") {
				how = " at random"
			}
			n.say("You discarded " + n.namedList(v.Cards) + how + ".")
		}
	case KindRecovered:
		if v.Seat == n.seat && len(v.Cards) > 0 && !v.Chosen() {
			n.say("You took " + n.namedList(v.Cards) + " from your Recycle Bin.")
		}
	case KindLooked:
		if v.Seat == n.seat && v.Card != "" && !v.Chosen() {
			n.say("You took " + n.named(v.Card) + " from the top of your Laboratory Deck.")
		}
	case KindPlaced:
		if v.Seat != n.seat {
			replacing := ""
			if len(v.Cards) == 1 { // the card it replaced (none in events stored before they said)
				replacing = ", replacing " + n.named(v.Cards[0])
			}
			n.say(s.name(v.Seat) + " placed " + n.named(v.Card) + " in their Lab" + replacing + ".")
		}
	case KindKept:
		if c := s.cat.Card(v.Card); c != nil && v.Seat != n.seat {
			n.say(s.name(v.Seat) + " kept the " + c.Name + " already in their Lab; the new " + n.named(v.Card) +
				" went to their Recycle Bin.")
		}
	case KindPlaceFailed:
		if v.Seat == n.seat {
			n.say("Your " + n.named(v.Card) + " could not be placed any more and went back to your hand.")
		}
	case KindBuildCompleted:
		won := s.cardList(v.Cards) + " (" + plural(v.N, "Big Data Point") + ")"
		if v.Seat == n.seat {
			n.say("You won " + won + ".")
		} else {
			n.say(s.name(v.Seat) + " won " + won + ".")
		}
	case KindHackResolved:
		if c := s.cat.Card(v.Card); c != nil && c.Has(KwGlobal) && v.Seat != n.seat {
			n.say(s.name(v.Seat) + " played " + c.Name + ": it stays in the Global zone until their next turn.")
		}
	case KindCancelled:
		if v.Seat == n.seat || v.Target == n.seat || n.seat < 0 {
			n.say(n.interrupter(v) + ": " + n.whose(v.Target) + " " + n.object(v) + " was cancelled.")
		}
	case KindAltered:
		if v.Seat == n.seat || v.Target == n.seat || n.seat < 0 {
			n.say(n.interrupter(v) + " on " + n.whose(v.Target) + " " + n.object(v) + ": " + n.alteration(v) + ".")
			if v.On == EvClaim {
				n.alter, n.altered = len(n.out)-1, v.Target
			}
		}
	case KindClaimFailed:
		if i := n.alter; i >= 0 && n.altered == v.Seat {
			n.out[i] = strings.TrimSuffix(n.out[i], ".") + ", so the claim failed; the build stays open."
			n.told = i
			n.alter = -1
		} else if v.Seat == n.seat {
			n.say("Your claim of " + s.cardList(v.Cards) + " failed: your build no longer covers it, and it stays open.")
		}
	case KindBounce, KindScrap:
		if v.Seat == n.seat || v.Target == n.seat {
			who, their := s.name(v.Seat), "their"
			if v.Seat == n.seat {
				who = "You"
			}
			if v.Target == n.seat {
				their = "your"
			}
			where := " back to " + their + " hand"
			if v.Kind == KindScrap {
				where = " to " + their + " Recycle Bin"
			}
			n.say(who + " sent " + n.whose(v.Target) + " " + n.named(v.Card) + where + ".")
		}
	case KindChallengeRevealed:
		if n.market < 0 {
			n.revealed = n.revealed[:0]
			n.say("")
			n.market = len(n.out) - 1
		}
		n.revealed = append(n.revealed, v.Card)
		n.out[n.market] = "New in the Market: " + s.cardList(n.revealed) + "."
		n.told = n.market
	case KindTimeout:
		if slices.Contains(v.Seats, n.seat) {
			n.say("Time ran out for you.")
		} else {
			n.say("Time ran out for " + joinNames(len(v.Seats), func(i int) string { return s.name(v.Seats[i]) }, "and") + ".")
		}
		n.told = -1 // the log also says what came of it (the turn ended, the default answers)
	case KindResigned:
		if v.Seat != n.seat {
			n.say(s.name(v.Seat) + " resigned.")
		}
	case KindVotedEnd:
		if v.Seat != n.seat {
			n.say(s.name(v.Seat) + " voted to end the game as it stands.")
		}
	case KindGameOver:
		n.say(n.ending(v))
	}
	if v.Kind != KindAltered && v.Kind != KindClaimFailed && v.Kind != KindWindowClosed && v.Kind != KindHackResolved &&
		v.Kind != KindAnswered && v.Kind != KindPlayed {
		n.alter = -1 // a failure of the claim must follow its alteration closely
	}
}

func (n *newsroom) say(sentence string) {
	n.out = append(n.out, sentence)
	n.told = len(n.out) - 1
}

// whose is the possessive of seat for the reader: "your", "bob's".
func (n *newsroom) whose(seat int) string {
	if seat == n.seat {
		return "your"
	}
	return n.t.name(seat) + "'s"
}

// named is the card id named as the board shows it: "Glitchy (Senior)".
func (n *newsroom) named(id string) string {
	if c := n.t.cat.Card(id); c != nil {
		return c.words().named
	}
	return "a card"
}

// namedList names cards as named does: "Glitchy (Senior) and Data Lake
// (TECH 0, SCI 2)".
func (n *newsroom) namedList(ids []string) string {
	return joinNames(len(ids), func(i int) string { return n.named(ids[i]) }, "and")
}

// interrupter opens a sentence about an interrupt: "bot-1 played Red
// Tape", "You played Red Tape".
func (n *newsroom) interrupter(v Event) string {
	who := n.t.name(v.Seat)
	if v.Seat == n.seat {
		who = "You"
	}
	return who + " played " + n.t.cardName(v.Card)
}

// object names what an interrupt acted on, after its owner's possessive:
// "Scrum Planning", "draw", "claim of Spam Filter".
func (n *newsroom) object(v Event) string {
	switch v.On {
	case EvDraw:
		return "draw"
	case EvClaim:
		return "claim of " + n.t.cardList(v.Cards)
	}
	if len(v.Cards) > 0 {
		return n.named(v.Cards[0])
	}
	return "card"
}

// alteration says what an interrupt changed: the card's own words for it
// ("the challenges need 2 more TECH"); for a draw, the cards drawn.
func (n *newsroom) alteration(v Event) string {
	if v.On == EvDraw {
		return "the draw has " + strconv.Itoa(abs(v.N)) + " " + moreFewer(v.N, "card", "cards")
	}
	if c := n.t.cat.Card(v.Card); c != nil {
		if t := c.words().answerText(v.On); t != "" {
			return t
		}
	}
	return "it changed by " + strconv.Itoa(v.N)
}

// ending says who won a game_over event v, with their points.
func (n *newsroom) ending(v Event) string {
	if len(v.Seats) == 0 {
		return "The game is over, with no winner."
	}
	names := make([]string, len(v.Seats))
	you := false
	for i, w := range v.Seats {
		names[i] = n.t.name(w)
		if w == n.seat {
			names[i], you = "you", true
		}
	}
	if you && len(names) > 1 { // "you and bob", the reader first
		k := slices.Index(names, "you")
		names = append(append([]string{"you"}, names[:k]...), names[k+1:]...)
	}
	points := ""
	if w := v.Seats[0]; w >= 0 && w < len(v.Scores) {
		points = " with " + plural(v.Scores[w], "Big Data Point")
	}
	if len(names) > 1 {
		return "The game is over: " + joinAnd(names) + " share the win" + points + "."
	}
	return "The game is over: " + names[0] + " won" + points + "."
}

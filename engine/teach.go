package engine

import (
	"slices"
	"strconv"
)

// What the engine says to teach the game: the glossary of the words
// printed on cards, why a card of the hand cannot be played now, what a
// move costs, and what the seat can do this turn.

// Term is an entry of the glossary: a keyword or marker printed on cards,
// or a word of the rules, with what it means for a player.
type Term struct {
	ID   string // the anchor of the entry: "limit", "software-build"
	Word string // as cards and pages print it: "Limit", "Software Build"
	Text string // what it means, in one or two sentences
}

// Glossary is every word a card or the board prints that a new player
// may not know, the cards' keywords and markers first.
var Glossary = []Term{
	{"interrupt", "Interrupt", "An interrupt Hack is played from your hand when an opponent is about to do what it answers (draw, place, play a Tool or a Hack, or claim), even on their turn: the game asks you in an interrupt window. It can cancel or change that event. You cannot play it on your own."},
	{"limit", "Limit", "After you play a limit card, you can play no other limit card until the start of your next turn."},
	{"global", "Global", "The card goes face up to the Global zone and affects every player it names until the start of your next turn; then it goes to your Recycle Bin."},
	{"component", "Component", "A Tool that combines with other Tools: some Tools get an extra effect when a component is already in the build, and stack Tools name components in their recipe."},
	{"stack", "Stack", "A Tool with a recipe of components: its extra effect applies once every component of the recipe is in the same Software Build, played in any order."},
	{"unique", "Unique", "A Lab holds only one Lab Equipment card of this name: placing a second one asks which stays."},
	{"one", "One", "A deck may hold only 1 copy of this card (other cards: up to 2)."},
	{"many", "Many", "A deck may hold more than 2 copies of this card, as many as the card says."},
	{"recipe", "Recipe", "The components a stack Tool needs in the same Software Build for its effect."},
	{"requires", "Requires", "What you need in your Lab (or your build) to play the card at all."},
	{"once-per-turn", "Once per turn", "An ability of a card in your Lab that you activate in your Action phase, at most once each turn, paying its cost first."},
	{"tech", "TECH", "Technology points. A Tool adds its TECH to your Software Build; a challenge needs at least its TECH."},
	{"sci", "SCI", "Science points. A Tool adds its SCI to your Software Build; a challenge needs at least its SCI."},
	{"bdp", "Big Data Points (BDP)", "What a challenge is worth. The player with the most at the end wins."},
	{"software-build", "Software Build", "The Tools you play in one turn, one by one. When their TECH and SCI cover a Market challenge (or several together), claim it: the Tools go to your Recycle Bin and the challenge to your Ranking. A build still open at the end of your turn is abandoned."},
	{"lab", "Lab", "Your Monsters and Lab Equipment in play. Each Monster name appears once: a higher level replaces a lower one."},
	{"levels", "Junior, Senior, Chief", "A Monster's levels. A Junior can always be placed; a Senior needs a Monster of the same name in your Lab, a Chief a Senior or Chief. Placing a lower level over a higher one is a downgrade."},
	{"market", "Market", "The open challenges anyone may claim: 3 with 2 players, 4 with 3, 5 with 4. A challenge won is replaced from the Challenge Deck."},
	{"hard", "Hard", "A hard challenge: more TECH and SCI, more Big Data Points."},
	{"ranking", "Ranking", "The challenges you have won, face up: their Big Data Points are your score."},
	{"laboratory-deck", "Laboratory Deck", "Your own deck of Monsters, Lab Equipment, Tools and Hacks, face down. When it runs out, your Recycle Bin is shuffled into a new one."},
	{"recycle-bin", "Recycle Bin", "Your discard pile, face down: played Hacks, Tools of finished builds, replaced Monsters and discarded cards. Only you see what is in it."},
	{"global-zone", "Global zone", "Where Global Hacks lie face up while they last."},
	{"hand-limit", "Hand limit", "At the end of your Draw phase you keep at most 6 cards: you choose which to discard to your Recycle Bin."},
}

// GlossaryTerm returns the entry with id, and false if there is none.
func GlossaryTerm(id string) (Term, bool) {
	for _, t := range Glossary {
		if t.ID == id {
			return t, true
		}
	}
	return Term{}, false
}

// Terms are the glossary entries of the keywords and markers card c
// prints, in the order of its text: hard (on a Challenge's type line),
// its keywords, recipe, requires, once per turn (an activated ability),
// then unique, one or many. A card without any has none.
func (c *Card) Terms() []Term {
	var ids []string
	if c.Hard {
		ids = append(ids, "hard")
	}
	for _, k := range c.Keywords {
		ids = append(ids, string(k))
	}
	if len(c.Recipe) > 0 {
		ids = append(ids, "recipe")
	}
	if slices.ContainsFunc(c.Requires, func(r Condition) bool { return conditionText(r, textCtx{card: c, name: standardName}) != "" }) {
		ids = append(ids, "requires") // printed as rulesLines prints it: a requirement that says something
	}
	if slices.ContainsFunc(c.Effects, func(e Effect) bool { return e.Trigger == Activated }) {
		ids = append(ids, "once-per-turn")
	}
	if c.Unique {
		ids = append(ids, "unique")
	}
	switch {
	case c.One:
		ids = append(ids, "one")
	case c.Many > 0:
		ids = append(ids, "many")
	}
	var out []Term
	for _, id := range ids {
		if t, ok := GlossaryTerm(id); ok {
			out = append(out, t)
		}
	}
	return out
}

// Describe is what a prebuilt deck plays like, for a player choosing one:
// its Description, then the count of each card type and its Monsters.
func (d Deck) Describe(cat *Catalog) string {
	counts := map[CardType]int{}
	var monsters []string
	seen := map[string]bool{}
	for _, e := range d.Cards {
		c := cat.Card(e.Card)
		if c == nil {
			continue
		}
		counts[c.Type] += e.Count
		if c.Type == Monster && !seen[c.Name] {
			seen[c.Name] = true
			monsters = append(monsters, c.Name)
		}
	}
	var parts []string
	for _, t := range []CardType{Tool, Monster, LabEquipment, Hack} {
		if n := counts[t]; n > 0 {
			w := t.Title()
			if n != 1 && t != LabEquipment {
				w += "s"
			}
			parts = append(parts, strconv.Itoa(n)+" "+w)
		}
	}
	text := strconv.Itoa(d.Size()) + " cards: " + andList(parts)
	if len(monsters) > 0 {
		text += "; Monsters: " + andList(monsters)
	}
	text += "."
	if d.Description != "" {
		text = d.Description + " " + text
	}
	return text
}

// Blocked is a card of a seat's hand that it cannot play now, and why.
type Blocked struct {
	Card   string // the card's instance id
	Reason string // the rule that stops it: "a Senior Glitchy needs a Glitchy already in your Lab"
}

// BlockedCards lists the cards of seat's hand that no action plays now,
// each with the reason the rules give, while the seat is in its own
// Action phase with nothing to answer: the moments a player looks for
// what to do. At any other moment it lists none.
func BlockedCards(s *State, seat int) []Blocked {
	if s.Over() || !s.live(seat) || seat != s.Active || !s.idle() || s.Phase != PhaseAction {
		return nil
	}
	var out []Blocked
	for _, in := range s.Players[seat].Hand {
		c := s.card(in.Card)
		var t ActionType
		switch c.Type {
		case Monster, LabEquipment:
			t = ActPlace
		case Tool:
			t = ActPlayTool
		case Hack:
			t = ActPlayHack
		}
		if c.Has(KwInterrupt) {
			out = append(out, Blocked{in.ID, "an interrupt: you play it when an opponent is about to " + answersWords(c) + ", and the game asks you"})
			continue
		}
		var ill *IllegalActionError
		if err := check(s, seat, Action{Type: t, Card: in.ID}, explain); err != nil && asIllegal(err, &ill) {
			out = append(out, Blocked{in.ID, ill.Reason})
		}
	}
	return out
}

// asIllegal is errors.As for an *IllegalActionError, without the reflection.
func asIllegal(err error, out **IllegalActionError) bool {
	e, ok := err.(*IllegalActionError)
	*out = e
	return ok
}

// answersWords says what an interrupt answers: "play a Hack", "place a
// Monster or Lab Equipment or claim challenges".
func answersWords(c *Card) string {
	var ws []string
	for _, e := range c.Effects {
		if e.Trigger == OnInterrupt {
			if w := eventVerb[e.Answers]; w != "" {
				ws = append(ws, w)
			}
		}
	}
	return joinOr(ws)
}

// eventVerb words what an opponent does in an event an interrupt answers.
var eventVerb = map[EventKind]string{
	EvDraw: "draw in their Draw phase", EvPlace: "place a Monster or Lab Equipment", EvPlayTool: "play a Tool",
	EvPlayHack: "play a Hack", EvClaim: "claim challenges",
}

// warning says what move m, of the view's seat, loses beyond the move
// itself: a Monster downgraded, the Tools of a build given up, a card
// discarded for an ability that takes from an empty Recycle Bin; "" for a
// move that loses nothing.
func (v *View) warning(m Move) string {
	switch m.Type {
	case ActPlace:
		c, w := v.cardIn(v.Hand, m.Card)
		if c == nil || c.Type != Monster {
			return ""
		}
		for _, in := range v.ownLab() {
			if old := v.catalog().Card(in.Card); old != nil && labTwins(c, old) && old.Level.Rank() > c.Level.Rank() {
				return "A downgrade: your " + old.words().named + " goes to your Recycle Bin and " + w.named + " takes its place."
			}
		}
	case ActAbandon:
		if v.Build != nil {
			return "You give up the build: " + itsTools(len(v.Build.Tools)) + " to your Recycle Bin."
		}
	case ActEndTurn:
		if v.Build != nil && v.Active == v.Seat {
			return "Your open build is abandoned: " + itsTools(len(v.Build.Tools)) + " to your Recycle Bin."
		}
	case ActActivate:
		c, _ := v.cardIn(v.ownLab(), m.Card)
		if c == nil || len(v.Bin) > 0 || v.Office {
			return ""
		}
		e, ok := c.effect(Activated)
		if !ok || !allRecover(e.Do) {
			return ""
		}
		if e.Cost > 0 {
			return "Your Recycle Bin is empty: you would discard " + plural(e.Cost, "card") + " and take nothing."
		}
		return "Your Recycle Bin is empty: there is nothing to take."
	}
	return ""
}

// allRecover reports whether every operation of ops takes cards from the
// Recycle Bin (so none does anything while it is empty).
func allRecover(ops []Op) bool {
	for _, op := range ops {
		if op.Verb != VRecover {
			return false
		}
	}
	return len(ops) > 0
}

// name is the name of seat in the view; "the game" for none.
func (v *View) name(seat int) string {
	if seat < 0 || seat >= len(v.Players) {
		return "the game"
	}
	return v.Players[seat].Name
}

// CardOf is the card id of the view's card set as a view shows it, with no
// instance id: for an option that names a card, or a card in a glossary;
// false for an id the card set does not have.
func (v *View) CardOf(id string) (CardView, bool) {
	c := v.catalog().Card(id)
	if c == nil {
		return CardView{}, false
	}
	return CardView{Card: c.ID, Name: c.Name, Type: c.Type, Level: c.Level, Classes: c.Classes, Tech: c.Tech, Sci: c.Sci,
		Points: c.Points, Hard: c.Hard, Unique: c.Unique, Text: c.words().rules}, true
}

// Hint is one line on how the view's seat plays now, given its moves (as
// Moves lists them): what it can do in this phase and how the turn goes
// on, or whom the game waits for. A spectator and a finished game get "".
func (v *View) Hint(moves []Move) string {
	if v.Seat < 0 || v.Seat >= len(v.Players) || v.Phase == PhaseOver || v.Players[v.Seat].Resigned {
		return ""
	}
	for _, p := range v.Prompts {
		switch p.Kind {
		case PromptInterrupt:
			return "An opponent is about to act: answer with an interrupt Hack from your hand, or pass. Your answer stays sealed until everyone asked has answered."
		case PromptDiscard:
			if p.Source == "hand_limit" {
				return "Your hand is over the limit of 6 after the draw: choose the cards to discard, then your Action phase begins."
			}
		}
		return "Answer the question below: the game goes on once you have."
	}
	if v.Active != v.Seat {
		who := v.Players[v.Active].Name
		return "It is " + who + "’s turn. You may be asked to answer with an interrupt; this page shows what happens as it happens."
	}
	if v.Window != nil || len(moves) == 0 && len(v.Awaiting) > 0 && !slices.Contains(v.Awaiting, v.Seat) {
		return "Your turn waits for " + joinNames(len(v.Awaiting), func(i int) string { return v.name(v.Awaiting[i]) }, "and") +
			" to answer; it goes on once they have."
	}
	if v.Phase != PhaseAction || len(moves) == 0 {
		return "Your turn is starting: the game draws your cards."
	}
	if v.Build != nil {
		return "Your Software Build has " + strconv.Itoa(v.Build.Tech) + " TECH and " + strconv.Itoa(v.Build.Sci) +
			" SCI: play more Tools into it, or claim the Market challenges it covers. Ending your turn abandons it."
	}
	if len(moves) == 1 && moves[0].Type == ActEndTurn {
		return "Nothing in your hand can be played now: end your turn; the next one brings new cards."
	}
	return "Your Action phase: place Monsters and Lab Equipment, play Hacks, and play Tools one by one into a Software Build to claim a Market challenge, in any order. The turn ends when you end it."
}

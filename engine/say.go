package engine

import (
	"slices"
	"strconv"
	"strings"
)

// What the engine says to a seat: the text of every legal action and
// prompt option, worded from the card data and what the seat may know. The
// API lists it, and clients show it as buttons or numbered lines.

// cardWords is what action and option texts say of a card, worded once
// when its card set loads.
type cardWords struct {
	rules   string        // how the card plays: rulesLines, one per line
	named   string        // the name with what tells it apart in play: "Glitchy (Senior)", "Data Lake (TECH 0, SCI 2)", "Landing Page (TECH 4, SCI 2, 1 BDP)"
	play    string        // what playing a Hack does, as a clause ("draw 1 card")
	ability string        // the activated ability, its cost first ("discard 1 card, then draw 2 cards")
	answers []answerWords // what an interrupt does to each event it answers
}

type answerWords struct {
	on   EventKind
	text string // "cancel it"
}

// wordCard words card c, naming the cards it names with name.
func wordCard(c *Card, name func(string) string) *cardWords {
	w := &cardWords{rules: strings.Join(rulesLines(c, name), "\n"), named: namedCard(c)}
	ctx := textCtx{card: c, name: name}
	var play []string
	for _, e := range c.Effects {
		switch e.Trigger {
		case OnInterrupt:
			ctx.trigger, ctx.event = e.Trigger, e.Answers
			w.answers = append(w.answers, answerWords{on: e.Answers, text: opsText(e.Do, ctx, ", then ")})
		case Activated:
			if w.ability != "" {
				continue // only the first activated ability is used
			}
			ctx.trigger, ctx.event = e.Trigger, ""
			w.ability = opsText(e.Do, ctx, ", then ")
			if e.Cost > 0 {
				w.ability = "discard " + countNoun(e.Cost, "card", "cards") + ", then " + w.ability
			}
		case OnPlay, Static:
			if c.Type != Hack {
				continue
			}
			ctx.trigger, ctx.event = e.Trigger, ""
			clause := opsText(e.Do, ctx, ", then ")
			if e.If != nil {
				clause = "if you have " + conditionText(*e.If, ctx) + ", " + clause
			}
			if e.Trigger == Static {
				clause = "until your next turn, " + clause // a global Hack
			}
			play = append(play, clause)
		}
	}
	w.play = strings.Join(play, "; ")
	return w
}

// namedCard is a card's name with its level (a Monster) or its TECH, SCI
// and Big Data Points (a Tool, a Challenge).
func namedCard(c *Card) string {
	switch c.Type {
	case Monster:
		return c.Name + " (" + Capitalize(string(c.Level)) + ")"
	case Tool:
		return c.Name + " (" + techSci(c.Tech, c.Sci) + ")"
	case Challenge:
		return c.Name + " (" + techSci(c.Tech, c.Sci) + ", " + strconv.Itoa(c.Points) + " BDP)"
	}
	return c.Name
}

func techSci(tech, sci int) string {
	return "TECH " + strconv.Itoa(tech) + ", SCI " + strconv.Itoa(sci)
}

// words returns what texts say of c: worded when its card set loaded, or
// now for a card that belongs to no card set.
func (c *Card) words() *cardWords {
	if c.said != nil {
		return c.said
	}
	return wordCard(c, standardName)
}

// answerText is what interrupt c does to an event of kind k.
func (w *cardWords) answerText(k EventKind) string {
	for _, a := range w.answers {
		if a.on == k {
			return a.text
		}
	}
	return ""
}

// cardOptions lists cards as prompt options, each worded prefix, the card
// named (namedCard), mid, then tail(card) if tail is not nil; the texts
// share one allocation.
func (s *State) cardOptions(cs []Inst, prefix, mid string, tail func(*Card) string) []Option {
	out := make([]Option, len(cs))
	n := 0
	for _, in := range cs {
		c := s.card(in.Card)
		n += len(prefix) + len(c.words().named) + len(mid)
		if tail != nil {
			n += len(tail(c))
		}
	}
	var b strings.Builder
	b.Grow(n)
	var buf [32]int
	ends := buf[:0]
	for _, in := range cs {
		c := s.card(in.Card)
		b.WriteString(prefix)
		b.WriteString(c.words().named)
		b.WriteString(mid)
		if tail != nil {
			b.WriteString(tail(c))
		}
		ends = append(ends, b.Len())
	}
	all, start := b.String(), 0
	for i, in := range cs {
		out[i] = Option{ID: in.ID, Card: in.Card, Text: all[start:ends[i]]}
		start = ends[i]
	}
	return out
}

// Move is one thing a seat may do now, in words: an action of Legal with
// its text and, for an open prompt, the prompt's description.
type Move struct {
	// Action is what to submit. An answer names its prompt and no choices:
	// the seat fills Choices with Min to Max distinct ids of Options.
	Action
	Text    string     // what the action does, worded for the seat
	Kind    PromptKind // answer: the prompt's kind
	Min     int        // answer: the fewest choices
	Max     int        // answer: the most choices
	Options []Option   // answer: the prompt's options, each with its text
	// Warning says what the move loses beyond itself ("A downgrade: your
	// Glitchy (Senior) goes to your Recycle Bin..."), for a door to ask
	// before it sends the move; "" for a move that loses nothing.
	Warning string
}

// Moves is Legal(s, seat) in words for the seat, with each open prompt's
// options: what a person sees as buttons or numbered lines. The texts come
// from the seat's view (View.Text), so they tell the seat nothing it may
// not know. A seat outside the game, or one with nothing to do, has none.
func Moves(s *State, seat int) []Move {
	legal := Legal(s, seat)
	if len(legal) == 0 {
		return nil
	}
	return s.View(seat).Moves(legal)
}

// Moves words legal, the legal actions of the view's seat (Legal), for a
// caller that has the view already.
func (v *View) Moves(legal []Action) []Move {
	if len(legal) == 0 {
		return nil
	}
	out := make([]Move, len(legal))
	for i, a := range legal {
		out[i] = Move{Action: a, Text: v.Text(a)}
		out[i].Warning = v.warning(out[i])
		if a.Type == ActAnswer {
			if p := v.prompt(a.Prompt); p != nil {
				out[i].Kind, out[i].Min, out[i].Max, out[i].Options = p.Kind, p.Min, p.Max, p.Options
			}
		}
	}
	return out
}

// Distinct is moves without each turn action worded as an earlier one:
// two copies of a card in hand place alike, so a person is offered one.
// Of a prompt that takes one card of the hand, to discard or to play as an
// interrupt, an option worded as an earlier one goes too. Which copy
// stays is the first one Legal lists. Other prompts keep every option:
// two copies may both be discarded; which of two copies a look takes sets
// the order the rest go under the deck; of two copies in a Lab, one may
// have used its ability this turn. moves is not changed.
func Distinct(moves []Move) []Move {
	out := withoutTwins(moves, func(a, b Move) bool { return a.Type != ActAnswer && a.Type == b.Type && a.Text == b.Text })
	own := len(out) < len(moves) // out is a new slice
	for i, m := range out {
		if m.Type != ActAnswer || m.Max != 1 || !m.Kind.copiesAlike() {
			continue
		}
		opts := withoutTwins(m.Options, func(a, b Option) bool { return a.Text == b.Text })
		if len(opts) == len(m.Options) {
			continue
		}
		if !own {
			out, own = slices.Clone(moves), true // moves is not changed
		}
		out[i].Options = opts
	}
	return out
}

// copiesAlike reports whether, in a prompt of kind k that takes one
// option, two copies of a card are one choice (see Distinct).
func (k PromptKind) copiesAlike() bool {
	return k == PromptDiscard || k == PromptInterrupt
}

// withoutTwins is xs without each element alike (twin(later, earlier))
// to an earlier one: xs itself when none is, else a new slice.
func withoutTwins[T any](xs []T, twin func(later, earlier T) bool) []T {
	var out []T
	for i, x := range xs {
		dup := slices.ContainsFunc(xs[:i], func(e T) bool { return twin(x, e) })
		switch {
		case dup && out == nil:
			out = append(make([]T, 0, len(xs)-1), xs[:i]...)
		case !dup && out != nil:
			out = append(out, x)
		}
	}
	if out == nil {
		return xs
	}
	return out
}

// Text says what action a does, in words for the view's seat ("Place
// Glitchy (Senior): replaces your Glitchy (Junior)", "End your turn"): the
// text of a legal action, of a queued action, of a bot's choice in a log.
// An answer with no choices is worded as its prompt asks; with choices, as
// the options chosen. Text reads only the view and the card data, so it
// never says what the seat may not know; a card the view does not show is
// named by its instance id.
func (v *View) Text(a Action) string {
	switch a.Type {
	case ActPlace:
		return v.placeText(a.Card)
	case ActPlayTool:
		c, w := v.cardIn(v.Hand, a.Card)
		if c == nil {
			return "Play the Tool " + a.Card
		}
		if v.Build == nil || v.Active != v.Seat {
			return "Play " + w.named + ", starting a Software Build"
		}
		return "Play " + w.named + " into your build (" + techSci(v.Build.Tech, v.Build.Sci) + " so far)"
	case ActPlayHack:
		return v.doText("Play", v.Hand, a.Card, func(w *cardWords) string { return w.play })
	case ActActivate:
		return v.doText("Activate", v.ownLab(), a.Card, func(w *cardWords) string { return w.ability })
	case ActClaim:
		names := make([]string, len(a.Challenges))
		for i, id := range a.Challenges {
			names[i] = id
			if _, w := v.cardIn(v.Market, id); w != nil {
				names[i] = w.named
			}
		}
		text := "Claim " + joinAnd(names)
		if v.Build != nil {
			text += " with your build (" + techSci(v.Build.Tech, v.Build.Sci) + ")"
		}
		return text
	case ActAbandon:
		if v.Build == nil {
			return "Abandon your build"
		}
		return "Abandon your build (" + techSci(v.Build.Tech, v.Build.Sci) + "): " + itsTools(len(v.Build.Tools)) + " to your Recycle Bin"
	case ActEndTurn:
		if v.Build != nil && v.Active == v.Seat {
			return "End your turn, abandoning your build of " + plural(len(v.Build.Tools), "Tool")
		}
		return "End your turn"
	case ActAnswer:
		return v.answerText(a)
	case ActStanding:
		return "Set your standing interrupt answers"
	case ActVoteEnd:
		return "Vote to end the game as it stands"
	case ActResign:
		return "Resign from the game"
	case ActTimeout:
		return "Time runs out"
	}
	return string(a.Type)
}

// itsTools is the subject and verb of a build's Tools going somewhere:
// "its Tool goes", "its 2 Tools go".
func itsTools(n int) string {
	if n == 1 {
		return "its Tool goes"
	}
	return "its " + plural(n, "Tool") + " go"
}

// doText words using the card id of pile: "Verb Name: what it does".
func (v *View) doText(verb string, pile []CardView, id string, what func(*cardWords) string) string {
	c, w := v.cardIn(pile, id)
	switch {
	case c == nil:
		return verb + " " + id
	case what(w) == "":
		return verb + " " + c.Name
	}
	return verb + " " + c.Name + ": " + what(w)
}

// placeText words placing the hand card id in the seat's Lab: what it
// replaces, or that the seat will choose which of two cards stays.
func (v *View) placeText(id string) string {
	c, w := v.cardIn(v.Hand, id)
	if c == nil {
		return "Place " + id + " in your Lab"
	}
	for _, in := range v.ownLab() {
		old := v.catalog().Card(in.Card)
		if old == nil || !labTwins(c, old) {
			continue
		}
		if c.Type == Monster && c.Level.Rank() != old.Level.Rank() {
			return "Place " + w.named + ": replaces your " + old.words().named
		}
		return "Place " + w.named + ": you choose which " + c.Name + " stays"
	}
	return "Place " + w.named + " in your Lab"
}

// answerText words an answer: the prompt's question without choices, the
// options chosen with them.
func (v *View) answerText(a Action) string {
	p := v.prompt(a.Prompt)
	if p == nil {
		return "Answer prompt " + a.Prompt
	}
	if a.Choices == nil {
		return strings.TrimSuffix(p.Text, ".")
	}
	if len(a.Choices) == 0 {
		return "Choose none"
	}
	return p.ChoiceText(a.Choices)
}

// ChoiceText words the options ids of p as one answer, in their order:
// options that open with one verb say it once ("Discard Data Lake and
// Doodle", not "Discard Data Lake and Discard Doodle"). An id p lacks
// stands as itself; no ids word as "".
func (p *Prompt) ChoiceText(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	texts := make([]string, len(ids))
	for i, id := range ids {
		if texts[i] = p.optionText(id); texts[i] == "" {
			texts[i] = id
		}
	}
	verb, _, ok := strings.Cut(texts[0], " ")
	if ok && !slices.ContainsFunc(texts[1:], func(t string) bool { return !strings.HasPrefix(t, verb+" ") }) {
		for i := 1; i < len(texts); i++ {
			texts[i] = strings.TrimPrefix(texts[i], verb+" ")
		}
	}
	return joinAnd(texts)
}

// cardIn finds the card with instance id in pile and its card data; nil if
// the pile does not hold it.
func (v *View) cardIn(pile []CardView, id string) (*Card, *cardWords) {
	for i := range pile {
		if pile[i].ID == id {
			if c := v.catalog().Card(pile[i].Card); c != nil {
				return c, c.words()
			}
		}
	}
	return nil, nil
}

// ownLab is the seat's Lab; a spectator has none.
func (v *View) ownLab() []CardView {
	if v.Seat < 0 || v.Seat >= len(v.Players) {
		return nil
	}
	return v.Players[v.Seat].Lab
}

func (v *View) prompt(id string) *Prompt {
	for i := range v.Prompts {
		if v.Prompts[i].ID == id {
			return &v.Prompts[i]
		}
	}
	return nil
}

// catalog is the card set of the game viewed; the standard one for a view
// built by hand.
func (v *View) catalog() *Catalog {
	if v.cat != nil {
		return v.cat
	}
	return Standard()
}

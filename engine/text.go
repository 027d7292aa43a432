package engine

import (
	"fmt"
	"strings"
)

// CardText returns the text printed on a card, generated from its data
// alone: the name, the type line (level and classes for a Monster, TECH and
// SCI for a Tool, Big Data Points for a Challenge), keywords, recipe,
// requirements, one line per effect and the deck marker, separated by
// newlines. Flavor text is not part of it. Card ids named by the card (a
// recipe, an equipment condition) are shown by name when the standard card
// set has them, otherwise as the id in title case; Catalog.Text resolves
// them in another card set. A nil card has no text.
func CardText(c *Card) string {
	return cardText(c, standardName)
}

// Text is CardText with card names looked up in cat, for card sets that add
// cards to the standard one.
func (cat *Catalog) Text(c *Card) string {
	return cardText(c, func(id string) string {
		if cat != nil {
			if k := cat.Card(id); k != nil {
				return k.Name
			}
		}
		return standardName(id)
	})
}

// OpText returns one operation in plain English, as a lower-case clause
// without a final period ("draw 2 cards", "each opponent discards 1 card"),
// for use in prompt labels. An operation on a chosen opponent is worded as
// what that opponent does, in the base form ("discard 1 card at random"), so
// that it completes "choose an opponent to ..."; CardText and OpsText say
// "an opponent of your choice discards 1 card at random". Interrupt
// operations are worded without their event ("cancel the event"); CardText
// words them for the event answered.
func OpText(op Op) string {
	if op.Who == Chosen {
		per := op.Per
		op.Who, op.Per = Self, ""
		t := strings.NewReplacer("your ", "their ").Replace(opText(op, textCtx{name: standardName}))
		if per != "" {
			t += " for each " + string(per) + " Monster in your Lab"
		}
		return t
	}
	return opText(op, textCtx{name: standardName})
}

// OpsText words a list of operations the way a card does ("look at ...,
// then draw 1 card"), without a final period: for example the label of one
// option of a choose operation.
func OpsText(ops []Op) string {
	return opsText(ops, textCtx{name: standardName}, ", then ")
}

// ConditionText returns a requirement or effect condition as a noun phrase
// ("an Engineer Monster in your Lab", "Cloud Credits in your Lab"), so that it
// reads after "Requires" or "if you have". An empty condition gives "".
func ConditionText(c Condition) string {
	return conditionText(c, textCtx{name: standardName})
}

// textCtx is what wording an operation needs to know about its card.
type textCtx struct {
	card    *Card
	trigger Trigger
	event   EventKind
	name    func(id string) string
}

func cardText(c *Card, name func(string) string) string {
	if c == nil {
		return ""
	}
	lines := append([]string{c.Name, typeLine(c)}, rulesLines(c, name)...)
	switch {
	case c.One:
		lines = append(lines, "One: at most 1 copy in a deck.")
	case c.Many > 0:
		lines = append(lines, fmt.Sprintf("Many: up to %d copies in a deck.", c.Many))
	}
	return strings.Join(lines, "\n")
}

// rulesLines are the lines of a card's text that say how it plays: keywords,
// recipe, requirements, one line per effect and the unique marker; not the
// name, the type line or the deck marker.
func rulesLines(c *Card, name func(string) string) []string {
	ctx := textCtx{card: c, name: name}
	var lines []string
	if len(c.Keywords) > 0 {
		kw := make([]string, len(c.Keywords))
		for i, k := range c.Keywords {
			kw[i] = Capitalize(string(k)) + "."
		}
		lines = append(lines, strings.Join(kw, " "))
	}
	if len(c.Recipe) > 0 {
		names := make([]string, len(c.Recipe))
		for i, id := range c.Recipe {
			names[i] = name(id)
		}
		lines = append(lines, "Recipe: "+strings.Join(names, " + ")+".")
	}
	if len(c.Requires) > 0 {
		reqs := make([]string, 0, len(c.Requires))
		for _, r := range c.Requires {
			if t := conditionText(r, ctx); t != "" {
				reqs = append(reqs, t)
			}
		}
		if len(reqs) > 0 {
			lines = append(lines, "Requires "+andList(reqs)+".")
		}
	}
	for _, e := range c.Effects {
		lines = append(lines, effectText(e, ctx))
	}
	if c.Unique {
		lines = append(lines, "Unique: only one in a Lab.")
	}
	return lines
}

// typeLine is the second line of a card: its type with level and classes,
// TECH and SCI, or a Challenge's Big Data Points.
func typeLine(c *Card) string {
	switch c.Type {
	case Monster:
		classes := make([]string, len(c.Classes))
		for i, cl := range c.Classes {
			classes[i] = string(cl)
		}
		return fmt.Sprintf("%s Monster — %s", Capitalize(string(c.Level)), strings.Join(classes, " / "))
	case Tool:
		return fmt.Sprintf("Tool — TECH %d · SCI %d", c.Tech, c.Sci)
	case Challenge:
		kind := "Challenge"
		if c.Hard {
			kind = "Hard Challenge"
		}
		return fmt.Sprintf("%s — TECH %d · SCI %d — %s", kind, c.Tech, c.Sci, countNoun(c.Points, "Big Data Point", "Big Data Points"))
	}
	return c.Type.Title()
}

// eventPhrase says when an interrupt answering k may be played.
var eventPhrase = map[EventKind]string{
	EvDraw:     "when an opponent draws cards in their Draw phase",
	EvPlace:    "when an opponent places a Monster or Lab Equipment",
	EvPlayTool: "when an opponent plays a Tool",
	EvPlayHack: "when an opponent plays a Hack",
	EvClaim:    "when an opponent claims challenges",
}

// effectText is one effect as a sentence: when, if, cost, then what.
func effectText(e Effect, ctx textCtx) string {
	ctx.trigger, ctx.event = e.Trigger, e.Answers
	cond := ""
	if e.If != nil {
		cond = conditionText(*e.If, ctx)
	}
	var head string
	switch e.Trigger {
	case OnPlay:
		switch ctx.card.Type {
		case Tool:
			head = "When played"
		case Monster, LabEquipment:
			head = "When placed"
		}
		if cond != "" {
			head = joinHead(head, "if you have "+cond)
		}
	case OnTurnStart:
		head = "At the beginning of your turn"
		if cond != "" {
			head += ", if you have " + cond
		}
	case OnTurnEnd:
		head = "At the end of your turn"
		if cond != "" {
			head += ", if you have " + cond
		}
	case Activated:
		head = "Once per turn"
		if cond != "" {
			head += ", if you have " + cond
		}
		if e.Cost > 0 {
			head += ", discard " + countNoun(e.Cost, "card", "cards")
		}
	case Static:
		if ctx.card.Has(KwGlobal) {
			head = "Until your next turn"
		}
		if cond != "" {
			head = joinHead(head, "while you have "+cond)
		}
	case OnInterrupt:
		phrase := eventPhrase[e.Answers]
		if phrase == "" {
			phrase = fmt.Sprintf("when an opponent's %q event happens", e.Answers)
		}
		head = "Interrupt — " + phrase
		if cond != "" {
			head += ", if you have " + cond
		}
	default:
		head = Capitalize(string(e.Trigger))
	}
	body := opsText(e.Do, ctx, ", then ")
	if head == "" {
		return Capitalize(body) + "."
	}
	return head + ": " + body + "."
}

// joinHead adds a clause to an effect's opening, capitalizing it when it
// comes first.
func joinHead(head, clause string) string {
	if head == "" {
		return Capitalize(clause)
	}
	return head + ", " + clause
}

// opsText words a list of operations, merging neighbouring boosts and
// modifications of TECH and SCI ("add 2 TECH and 1 SCI to your Software
// Build").
func opsText(ops []Op, ctx textCtx, sep string) string {
	var parts []string
	others := false // an earlier clause was about other players
	for i := 0; i < len(ops); i++ {
		op := ops[i]
		if i+1 < len(ops) && mergeable(op, ops[i+1]) {
			parts = append(parts, mergedText(op, ops[i+1]))
			i++
			continue
		}
		t := opText(op, ctx)
		if others && who(op.Who) == Self && selfSubject[op.Verb] {
			t = "you " + t
		}
		others = others || who(op.Who) != Self
		parts = append(parts, t)
	}
	return strings.Join(parts, sep)
}

// selfSubject lists the verbs whose clause for yourself starts with a bare
// verb, which needs "you" after a clause about other players.
var selfSubject = map[Verb]bool{VDraw: true, VDiscard: true, VDiscardRandom: true, VLook: true, VRecover: true, VRecycle: true}

// mergeable reports whether a and b are a TECH and a SCI change of the same
// kind for the same players, worded together.
func mergeable(a, b Op) bool {
	if a.Verb != b.Verb || (a.Verb != VBoost && a.Verb != VModify) || a.Per != "" || b.Per != "" {
		return false
	}
	if who(a.Who) != who(b.Who) {
		return false
	}
	return (a.Stat == StatTech && b.Stat == StatSci) || (a.Stat == StatSci && b.Stat == StatTech)
}

func mergedText(a, b Op) string {
	if a.Verb == VBoost {
		return fmt.Sprintf("add %d %s and %d %s to your Software Build", a.N, statWord(a.Stat), b.N, statWord(b.Stat))
	}
	return fmt.Sprintf("%s Software Builds get %s and %s", possessive(a.Who), signed(a.N, a.Stat), signed(b.N, b.Stat))
}

// opText words one operation.
func opText(op Op, ctx textCtx) string {
	per := ""
	if op.Per != "" {
		per = " for each " + string(op.Per) + " Monster in your Lab"
	}
	w := who(op.Who)
	switch op.Verb {
	case VLook, VRecover, VRecycle, VBoost, VRefresh:
		w = Self // these always act for the card's controller
	}
	switch op.Verb {
	case VDraw:
		return subject(w, "draw", "draws") + " " + countNoun(op.N, "card", "cards") + per
	case VDiscard:
		return subject(w, "discard", "discards") + " " + countNoun(op.N, "card", "cards") + per
	case VDiscardRandom:
		return subject(w, "discard", "discards") + " " + countNoun(op.N, "card", "cards") + " at random" + per
	case VLook:
		their := ownerOf(w)
		if op.N == 1 {
			return fmt.Sprintf("%s at the top card of %s Laboratory Deck and %s it into %s hand",
				subject(w, "look", "looks"), their, verb(w, "put", "puts"), their)
		}
		return fmt.Sprintf("%s at the top %d cards of %s Laboratory Deck, %s one into %s hand and the rest on the bottom",
			subject(w, "look", "looks"), op.N, their, verb(w, "put", "puts"), their)
	case VRecover:
		their := ownerOf(w)
		return fmt.Sprintf("%s %s from %s Recycle Bin into %s hand",
			subject(w, "take", "takes"), countNoun(op.N, "card", "cards"), their, their) + per
	case VRecycle:
		their := ownerOf(w)
		return fmt.Sprintf("%s %s Recycle Bin into %s Laboratory Deck", subject(w, "shuffle", "shuffles"), their, their)
	case VBoost:
		return fmt.Sprintf("add %d %s to your Software Build", op.N, statWord(op.Stat)) + per
	case VModify:
		return modifyText(op, w) + per
	case VCancel:
		if ctx.trigger == OnInterrupt {
			return "cancel it"
		}
		return "cancel the event"
	case VAlter:
		return alterText(op, ctx.event)
	case VRefresh:
		return fmt.Sprintf("put up to %d Market %s of your choice under the Challenge Deck and refill the Market",
			op.N, pluralWord(op.N, "challenge", "challenges"))
	case VBounce:
		if w == Self {
			return fmt.Sprintf("return %s from your Lab to your hand", targetName(op.Target))
		}
		return fmt.Sprintf("return %s from %s to its owner's hand", targetName(op.Target), labOf(w))
	case VScrap:
		if w == Self {
			return fmt.Sprintf("put %s from your Lab into your Recycle Bin", targetName(op.Target))
		}
		return fmt.Sprintf("put %s from %s into its owner's Recycle Bin", targetName(op.Target), labOf(w))
	case VChoose:
		opts := make([]string, len(op.Options))
		for i, o := range op.Options {
			opts[i] = opsText(o, ctx, " and ")
		}
		return "choose one: " + strings.Join(opts, "; or ")
	}
	return string(op.Verb)
}

// modifyText words a static change of a stat.
func modifyText(op Op, w Who) string {
	switch op.Stat {
	case StatTech, StatSci:
		return fmt.Sprintf("%s Software Builds get %s", possessive(w), signed(op.N, op.Stat))
	case StatDraw:
		return fmt.Sprintf("%s %s %s in %s Draw phase", subject(w, "you draw", "draws"), countNoun(abs(op.N), "", ""),
			moreFewer(op.N, "card", "cards"), ownerOf(w))
	case StatPoints:
		return fmt.Sprintf("%s %s %s at the end of the game", subject(w, "you score", "scores"), countNoun(abs(op.N), "", ""),
			moreFewer(op.N, "Big Data Point", "Big Data Points"))
	}
	return fmt.Sprintf("%s %s changes by %+d", possessive(w), op.Stat, op.N)
}

// alterText words an interrupt's change to the event it answers.
func alterText(op Op, ev EventKind) string {
	n := abs(op.N)
	switch {
	case ev == EvDraw && op.Stat == StatDraw:
		return fmt.Sprintf("they draw %d %s", n, moreFewer(op.N, "card", "cards"))
	case ev == EvPlayTool && (op.Stat == StatTech || op.Stat == StatSci):
		return fmt.Sprintf("that Tool gives %d %s %s", n, moreLess(op.N), statWord(op.Stat))
	case ev == EvClaim && (op.Stat == StatTech || op.Stat == StatSci):
		return fmt.Sprintf("the challenges need %d %s %s", n, moreLess(op.N), statWord(op.Stat))
	}
	return fmt.Sprintf("change the event's %s by %+d", statWord(op.Stat), op.N)
}

// conditionText words a condition as a noun phrase.
func conditionText(c Condition, ctx textCtx) string {
	var parts []string
	if c.Class != "" || c.Level != "" || c.Count > 1 {
		kind := "Monster"
		if c.Class != "" {
			kind = string(c.Class) + " " + kind
		}
		switch c.Level {
		case Senior:
			kind = "Senior or Chief " + kind
		case Chief:
			kind = "Chief " + kind
		}
		if c.Count > 1 {
			parts = append(parts, fmt.Sprintf("at least %d %ss in your Lab", c.Count, kind))
		} else {
			parts = append(parts, article(kind)+" "+kind+" in your Lab")
		}
	}
	if c.Equipment != "" {
		parts = append(parts, ctx.name(c.Equipment)+" in your Lab")
	}
	if c.Recipe {
		recipe := "the recipe"
		if ctx.card != nil && len(ctx.card.Recipe) > 0 {
			names := make([]string, len(ctx.card.Recipe))
			for i, id := range ctx.card.Recipe {
				names[i] = ctx.name(id)
			}
			recipe = andList(names)
		}
		parts = append(parts, recipe+" in your Software Build")
	}
	switch {
	case c.Components == 1:
		parts = append(parts, "another component Tool in your Software Build")
	case c.Components > 1:
		parts = append(parts, fmt.Sprintf("at least %d other component Tools in your Software Build", c.Components))
	}
	return andList(parts)
}

// who returns w, with the zero value meaning Self.
func who(w Who) Who {
	if w == "" {
		return Self
	}
	return w
}

// subject words the subject and verb of a clause: "draw" for yourself,
// "each opponent draws" for others.
func subject(w Who, base, third string) string {
	switch w {
	case Opponents:
		return "each opponent " + third
	case All:
		return "each player " + third
	case Chosen:
		return "an opponent of your choice " + third
	case Actor:
		return "that player " + third
	}
	return base
}

// verb is a second verb of a clause that subject started.
func verb(w Who, base, third string) string {
	if w == Self {
		return base
	}
	return third
}

// ownerOf is the possessive for the players a clause is about.
func ownerOf(w Who) string {
	if w == Self {
		return "your"
	}
	return "their"
}

// labOf names the Labs a bounce or scrap takes a card from.
func labOf(w Who) string {
	switch w {
	case Opponents:
		return "each opponent's Lab"
	case All:
		return "each player's Lab"
	case Chosen:
		return "the Lab of an opponent of your choice"
	case Actor:
		return "that player's Lab"
	}
	return "your Lab"
}

// possessive names whose Software Builds a modification changes.
func possessive(w Who) string {
	switch who(w) {
	case Opponents:
		return "opponents'"
	case All:
		return "all players'"
	case Chosen:
		return "the chosen opponent's"
	case Actor:
		return "that player's"
	}
	return "your"
}

func statWord(s Stat) string {
	switch s {
	case StatTech, StatSci:
		return strings.ToUpper(string(s))
	case StatPoints:
		return "Big Data Points"
	case StatDraw:
		return "cards drawn"
	}
	return string(s)
}

func signed(n int, s Stat) string { return fmt.Sprintf("%+d %s", n, statWord(s)) }

func targetName(t CardType) string {
	if t == LabEquipment {
		return "a Lab Equipment card"
	}
	return "a Monster"
}

// plural is "1 card" or "2 cards"; with empty words it is just the number.
func countNoun(n int, one, many string) string {
	w := many
	if n == 1 {
		w = one
	}
	if w == "" {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d %s", n, w)
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// moreFewer is "more card", "more cards" or "fewer cards" after a number.
func moreFewer(n int, one, many string) string {
	w := pluralWord(abs(n), one, many)
	if n < 0 {
		return "fewer " + w
	}
	return "more " + w
}

func moreLess(n int) string {
	if n < 0 {
		return "less"
	}
	return "more"
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func article(word string) string {
	if word != "" && strings.ContainsRune("AEIOU", rune(word[0])) {
		return "an"
	}
	return "a"
}

// joinAnd joins phrases as "a", "a and b", "a, b and c".
func andList(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// Capitalize returns s with its first letter upper-case ("" stays "").
func Capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// standardName is the name of a card id in the standard card set, or the id
// in title case ("cloud-credits" → "Cloud Credits") if it is not there.
func standardName(id string) string {
	if cat := standardOrNil(); cat != nil {
		if c := cat.Card(id); c != nil {
			return c.Name
		}
	}
	words := strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '_' })
	for i, w := range words {
		words[i] = Capitalize(w)
	}
	return strings.Join(words, " ")
}

// standardOrNil is the standard card set, or nil if it does not load.
func standardOrNil() (cat *Catalog) {
	defer func() {
		if recover() != nil {
			cat = nil
		}
	}()
	return Standard()
}

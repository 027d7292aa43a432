package engine

import (
	"fmt"
	"slices"
	"strings"
)

// CardType is the kind of a card: the four Laboratory Deck types and Challenge.
type CardType string

// The card types of the rulebook.
const (
	Monster      CardType = "monster"
	LabEquipment CardType = "lab_equipment"
	Tool         CardType = "tool"
	Hack         CardType = "hack"
	Challenge    CardType = "challenge"
)

func (t CardType) String() string { return string(t) }

// Title is the card type as printed on a card.
func (t CardType) Title() string {
	switch t {
	case LabEquipment:
		return "Lab Equipment"
	}
	return Capitalize(string(t))
}

// Level is a Monster's grade. The zero value means "not a Monster".
type Level string

// The three Monster levels, lowest first.
const (
	Junior Level = "junior"
	Senior Level = "senior"
	Chief  Level = "chief"
)

func (l Level) String() string { return string(l) }

// Title is the level as printed on a card ("Senior"; "" for none).
func (l Level) Title() string { return Capitalize(string(l)) }

// Rank orders levels: Junior 1, Senior 2, Chief 3, anything else 0.
func (l Level) Rank() int {
	switch l {
	case Junior:
		return 1
	case Senior:
		return 2
	case Chief:
		return 3
	}
	return 0
}

// Class is a Monster class such as Engineer or Scientist.
type Class string

func (c Class) String() string { return string(c) }

// Classes lists the Monster classes the engine knows. A card naming another
// class is rejected when the card set is loaded.
var Classes = []Class{"Engineer", "Designer", "Scientist", "Analyst", "Manager"}

// Keyword is a special keyword printed on a card.
type Keyword string

// The keywords of the rulebook.
const (
	KwInterrupt Keyword = "interrupt" // a Hack that answers a proposed event, even on another player's turn
	KwLimit     Keyword = "limit"     // after playing one, no other limit card until your next turn
	KwGlobal    Keyword = "global"    // sits in the Global zone, affecting all, until your next turn
	KwComponent Keyword = "component" // a Tool that stack recipes can name
	KwStack     Keyword = "stack"     // a Tool whose recipe of components must be in the same build
)

func (k Keyword) String() string { return string(k) }

// Trigger says when an Effect happens.
type Trigger string

// Triggers of the effect vocabulary.
const (
	OnPlay      Trigger = "play"       // when the card is played or placed
	OnTurnStart Trigger = "turn_start" // at the beginning of your turn, while in your Lab
	OnTurnEnd   Trigger = "turn_end"   // at the end of your turn, while in your Lab
	Activated   Trigger = "activated"  // once per turn, from your Lab, as an action
	Static      Trigger = "static"     // always, while in your Lab or in the Global zone
	OnInterrupt Trigger = "interrupt"  // an interrupt Hack answering a proposed event
)

func (t Trigger) String() string { return string(t) }

// EventKind names an event that is proposed before it happens, so that
// interrupt Hacks can answer it.
type EventKind string

// The proposable events.
const (
	EvDraw     EventKind = "draw"      // the active player's Draw phase draw
	EvPlace    EventKind = "place"     // a Monster or Lab Equipment placed in a Lab
	EvPlayTool EventKind = "play_tool" // a Tool played into a Software Build
	EvPlayHack EventKind = "play_hack" // a Hack played (interrupts included)
	EvClaim    EventKind = "claim"     // a Software Build claiming Market challenges
)

func (k EventKind) String() string { return string(k) }

// Verb is an operation of the effect vocabulary.
type Verb string

// The verbs. docs/cards.md describes each one.
const (
	VDraw          Verb = "draw"           // who draws n cards
	VDiscard       Verb = "discard"        // who discards n cards of their choice
	VDiscardRandom Verb = "discard_random" // who discards n cards at random
	VLook          Verb = "look"           // look at the top n cards of your deck, take one, the rest to the bottom
	VRecover       Verb = "recover"        // take n cards of your choice from your Recycle Bin into your hand (all if it holds fewer)
	VRecycle       Verb = "recycle"        // shuffle your Recycle Bin into your Laboratory Deck
	VBoost         Verb = "boost"          // add n TECH or SCI (stat) to your open Software Build
	VModify        Verb = "modify"         // static: change a stat of who by n
	VCancel        Verb = "cancel"         // interrupt: the proposed event does not happen
	VAlter         Verb = "alter"          // interrupt: change the proposed event's stat by n
	VRefresh       Verb = "refresh"        // put up to n Market challenges of your choice under the Challenge Deck
	VBounce        Verb = "bounce"         // return a card from an opponent's Lab to their hand
	VScrap         Verb = "scrap"          // put a card from an opponent's Lab into their Recycle Bin
	VChoose        Verb = "choose"         // choose one of the options
)

// Who says which players an operation affects, from the controller's side.
type Who string

// Targets of an operation. The zero value means Self.
const (
	Self      Who = "self"      // the card's controller
	Opponents Who = "opponents" // every other player still in the game
	All       Who = "all"       // every player still in the game
	Chosen    Who = "chosen"    // one opponent chosen by the controller
	Actor     Who = "actor"     // the player whose proposed event is being answered
)

// Stat is a number an operation changes.
type Stat string

// Stats that modify, boost and alter work on.
const (
	StatTech   Stat = "tech"   // TECH of a Software Build, Tool or claim
	StatSci    Stat = "sci"    // SCI of a Software Build, Tool or claim
	StatDraw   Stat = "draw"   // cards drawn in the Draw phase
	StatPoints Stat = "points" // Big Data Points at scoring
)

// Condition is a test on the controller's position. Empty fields are not
// tested; an empty Condition always holds. It is used both for requirements
// (a card cannot be played unless they hold) and for effect conditions (the
// effect is skipped unless it holds).
type Condition struct {
	Class      Class  `yaml:"class,omitempty" json:"class,omitempty"`           // Monsters of this class in your Lab...
	Count      int    `yaml:"count,omitempty" json:"count,omitempty"`           // ...at least this many (0 means 1)
	Level      Level  `yaml:"level,omitempty" json:"level,omitempty"`           // a Monster of at least this level (with Class: of that class)
	Equipment  string `yaml:"equipment,omitempty" json:"equipment,omitempty"`   // this Lab Equipment card (by id) in your Lab
	Recipe     bool   `yaml:"recipe,omitempty" json:"recipe,omitempty"`         // every component of the card's recipe is in the open build
	Components int    `yaml:"components,omitempty" json:"components,omitempty"` // at least this many other component Tools in the open build
}

// Op is one operation of an effect.
type Op struct {
	Verb    Verb     `yaml:"op" json:"op"`
	N       int      `yaml:"n,omitempty" json:"n,omitempty"`
	Who     Who      `yaml:"who,omitempty" json:"who,omitempty"`
	Stat    Stat     `yaml:"stat,omitempty" json:"stat,omitempty"`
	Per     Class    `yaml:"per,omitempty" json:"per,omitempty"`       // multiply n by your Monsters of this class
	Target  CardType `yaml:"target,omitempty" json:"target,omitempty"` // bounce/scrap: which kind of Lab card
	Options [][]Op   `yaml:"options,omitempty" json:"options,omitempty"`
}

// Effect is what a card does: a trigger, an optional condition and the
// operations, run in order.
type Effect struct {
	Trigger Trigger    `yaml:"trigger" json:"trigger"`
	Answers EventKind  `yaml:"answers,omitempty" json:"answers,omitempty"` // OnInterrupt: the event answered
	If      *Condition `yaml:"if,omitempty" json:"if,omitempty"`
	Cost    int        `yaml:"cost,omitempty" json:"cost,omitempty"` // Activated: cards to discard first
	Do      []Op       `yaml:"do" json:"do"`
}

// Card is one card definition. Cards are data: see docs/cards.md.
type Card struct {
	ID       string      `yaml:"id" json:"id"`
	Name     string      `yaml:"name" json:"name"`
	Type     CardType    `yaml:"type" json:"type"`
	Level    Level       `yaml:"level,omitempty" json:"level,omitempty"`
	Classes  []Class     `yaml:"classes,omitempty" json:"classes,omitempty"`
	Tech     int         `yaml:"tech,omitempty" json:"tech,omitempty"`
	Sci      int         `yaml:"sci,omitempty" json:"sci,omitempty"`
	Points   int         `yaml:"points,omitempty" json:"points,omitempty"` // Challenge: Big Data Points
	Hard     bool        `yaml:"hard,omitempty" json:"hard,omitempty"`
	Keywords []Keyword   `yaml:"keywords,omitempty" json:"keywords,omitempty"`
	One      bool        `yaml:"one,omitempty" json:"one,omitempty"`
	Unique   bool        `yaml:"unique,omitempty" json:"unique,omitempty"` // Lab Equipment: one card of this name in a Lab
	Many     int         `yaml:"many,omitempty" json:"many,omitempty"`     // copies allowed in a personal deck
	Requires []Condition `yaml:"requires,omitempty" json:"requires,omitempty"`
	Recipe   []string    `yaml:"recipe,omitempty" json:"recipe,omitempty"` // stack: component card ids
	Effects  []Effect    `yaml:"effects,omitempty" json:"effects,omitempty"`
	Flavor   string      `yaml:"flavor,omitempty" json:"flavor,omitempty"`

	said *cardWords // what the engine says of the card, worded when its card set loads
}

// Has reports whether the card carries keyword k.
func (c *Card) Has(k Keyword) bool { return slices.Contains(c.Keywords, k) }

// HasClass reports whether a Monster card has class cl.
func (c *Card) HasClass(cl Class) bool { return slices.Contains(c.Classes, cl) }

// effects returns the card's effects with trigger t.
// The result may share the card's own slice: callers must not modify it.
func (c *Card) effects(t Trigger) []Effect {
	n := 0
	for i := range c.Effects {
		if c.Effects[i].Trigger == t {
			n++
		}
	}
	switch n {
	case 0:
		return nil
	case len(c.Effects):
		return c.Effects
	}
	out := make([]Effect, 0, n)
	for _, e := range c.Effects {
		if e.Trigger == t {
			out = append(out, e)
		}
	}
	return out
}

// effect returns the card's first effect with trigger t, if it has one.
func (c *Card) effect(t Trigger) (Effect, bool) {
	for _, e := range c.Effects {
		if e.Trigger == t {
			return e, true
		}
	}
	return Effect{}, false
}

// answers reports whether c is an interrupt Hack answering events of kind k.
func (c *Card) answers(k EventKind) bool {
	if c.Type != Hack || !c.Has(KwInterrupt) {
		return false
	}
	for _, e := range c.Effects {
		if e.Trigger == OnInterrupt && e.Answers == k {
			return true
		}
	}
	return false
}

// CardError says which card is wrong and why.
type CardError struct {
	Card   string // card id (or name if it has no id)
	Reason string
}

func (e *CardError) Error() string { return fmt.Sprintf("card %q: %s", e.Card, e.Reason) }

var validVerbs = map[Verb]bool{VDraw: true, VDiscard: true, VDiscardRandom: true, VLook: true, VRecover: true,
	VRecycle: true, VBoost: true, VModify: true, VCancel: true, VAlter: true, VRefresh: true, VBounce: true,
	VScrap: true, VChoose: true}

// validate checks one card on its own; lookup resolves the ids it names.
func (c *Card) validate(lookup func(string) *Card) error {
	bad := func(format string, a ...any) error {
		id := c.ID
		if id == "" {
			id = c.Name
		}
		return &CardError{Card: id, Reason: fmt.Sprintf(format, a...)}
	}
	if c.ID == "" || strings.ContainsAny(c.ID, " \t\n") {
		return bad("id must be a non-empty slug without spaces")
	}
	if c.Name == "" {
		return bad("name is missing")
	}
	switch c.Type {
	case Monster:
		if c.Level.Rank() == 0 {
			return bad("a Monster needs level junior, senior or chief, not %q", c.Level)
		}
		if len(c.Classes) != 2 || c.Classes[0] == c.Classes[1] {
			return bad("a Monster has exactly two different classes")
		}
	case LabEquipment, Tool, Hack:
		if c.Level != "" || len(c.Classes) > 0 {
			return bad("only Monsters have a level and classes")
		}
	case Challenge:
		if c.Points <= 0 || c.Tech < 0 || c.Sci < 0 || c.Tech+c.Sci == 0 {
			return bad("a Challenge needs Big Data Points and some TECH or SCI")
		}
		if len(c.Effects) > 0 || len(c.Keywords) > 0 {
			return bad("a Challenge has no effects or keywords")
		}
	default:
		return bad("unknown type %q", c.Type)
	}
	for _, cl := range c.Classes {
		if !slices.Contains(Classes, cl) {
			return bad("unknown class %q", cl)
		}
	}
	if c.Type != Challenge && c.Type != Tool && (c.Tech != 0 || c.Sci != 0) {
		return bad("only Tools and Challenges have TECH and SCI")
	}
	if c.Tech < 0 || c.Sci < 0 {
		return bad("TECH and SCI cannot be negative")
	}
	if c.Type != Challenge && c.Points != 0 {
		return bad("only Challenges have printed Big Data Points (use a static modify points effect)")
	}
	if c.Hard && c.Type != Challenge {
		return bad("only Challenges can be hard")
	}
	if c.One && c.Many > 0 {
		return bad("a card cannot be marked both one and many")
	}
	if c.Unique && c.Type != LabEquipment {
		if c.Type == Monster {
			return bad("unique is for Lab Equipment: a Lab holds one Monster of each name anyway")
		}
		return bad("unique is for Lab Equipment, which stays in a Lab")
	}
	if c.Many != 0 && c.Many < 3 {
		return bad("a many card allows at least 3 copies, not %d", c.Many)
	}
	for _, k := range c.Keywords {
		switch k {
		case KwInterrupt, KwGlobal:
			if c.Type != Hack {
				return bad("keyword %s is for Hacks", k)
			}
		case KwComponent, KwStack:
			if c.Type != Tool {
				return bad("keyword %s is for Tools", k)
			}
		case KwLimit:
		default:
			return bad("unknown keyword %q", k)
		}
	}
	if c.Has(KwStack) != (len(c.Recipe) > 0) {
		return bad("a stack Tool needs a recipe, and only stack Tools have one")
	}
	for _, r := range c.Recipe {
		comp := lookup(r)
		if comp == nil || !comp.Has(KwComponent) {
			return bad("recipe names %q, which is not a component Tool", r)
		}
	}
	for _, cond := range c.Requires {
		if err := c.validateCondition(cond, lookup); err != nil {
			return bad("requirement: %s", err)
		}
	}
	interrupts := 0
	for i, e := range c.Effects {
		if err := c.validateEffect(e, lookup); err != nil {
			return bad("effect %d: %s", i+1, err)
		}
		if e.Trigger == OnInterrupt {
			interrupts++
		}
	}
	if c.Has(KwInterrupt) != (interrupts > 0) {
		return bad("an interrupt Hack needs exactly the interrupt effects, and only it has them")
	}
	if c.Has(KwInterrupt) && c.Has(KwGlobal) {
		return bad("an interrupt Hack cannot be global")
	}
	return nil
}

func (c *Card) validateCondition(cond Condition, lookup func(string) *Card) error {
	if cond.Class != "" && !slices.Contains(Classes, cond.Class) {
		return fmt.Errorf("unknown class %q", cond.Class)
	}
	if cond.Level != "" && cond.Level.Rank() == 0 {
		return fmt.Errorf("unknown level %q", cond.Level)
	}
	if cond.Count < 0 || cond.Components < 0 {
		return fmt.Errorf("counts cannot be negative")
	}
	if cond.Count > 0 && cond.Class == "" && cond.Level == "" {
		return fmt.Errorf("count needs a class or a level to count")
	}
	if cond.Equipment != "" {
		eq := lookup(cond.Equipment)
		if eq == nil || eq.Type != LabEquipment {
			return fmt.Errorf("%q is not a Lab Equipment card", cond.Equipment)
		}
	}
	if (cond.Recipe || cond.Components > 0) && c.Type != Tool {
		return fmt.Errorf("recipe and components conditions are for Tools")
	}
	if cond.Recipe && !c.Has(KwStack) {
		return fmt.Errorf("a recipe condition needs the stack keyword")
	}
	return nil
}

func (c *Card) validateEffect(e Effect, lookup func(string) *Card) error {
	switch e.Trigger {
	case OnPlay:
	case OnTurnStart, OnTurnEnd, Activated:
		if c.Type != Monster && c.Type != LabEquipment {
			return fmt.Errorf("trigger %s is for cards in a Lab", e.Trigger)
		}
	case Static:
		if c.Type != Monster && c.Type != LabEquipment && !c.Has(KwGlobal) {
			return fmt.Errorf("static effects are for Lab cards and global Hacks")
		}
	case OnInterrupt:
		switch e.Answers {
		case EvDraw, EvPlace, EvPlayTool, EvPlayHack, EvClaim:
		default:
			return fmt.Errorf("an interrupt answers draw, place, play_tool, play_hack or claim, not %q", e.Answers)
		}
	default:
		return fmt.Errorf("unknown trigger %q", e.Trigger)
	}
	if e.Trigger != OnInterrupt && e.Answers != "" {
		return fmt.Errorf("only interrupt effects answer events")
	}
	if e.Cost < 0 || (e.Cost > 0 && e.Trigger != Activated) {
		return fmt.Errorf("only activated effects have a cost")
	}
	if e.If != nil {
		if err := c.validateCondition(*e.If, lookup); err != nil {
			return err
		}
	}
	if len(e.Do) == 0 {
		return fmt.Errorf("no operations")
	}
	return validateOps(e, e.Do, 0)
}

func validateOps(e Effect, ops []Op, depth int) error {
	for _, op := range ops {
		if !validVerbs[op.Verb] {
			return fmt.Errorf("unknown op %q", op.Verb)
		}
		if op.Per != "" && !slices.Contains(Classes, op.Per) {
			return fmt.Errorf("%s: unknown class %q", op.Verb, op.Per)
		}
		switch op.Who {
		case "", Self, Opponents, All, Chosen:
		case Actor:
			if e.Trigger != OnInterrupt {
				return fmt.Errorf("%s: who actor is only for interrupt effects", op.Verb)
			}
		default:
			return fmt.Errorf("%s: unknown who %q", op.Verb, op.Who)
		}
		static := op.Verb == VModify
		if static != (e.Trigger == Static) {
			return fmt.Errorf("modify is the only op of static effects, and only there")
		}
		switch op.Verb {
		case VLook, VRecover, VRecycle, VBoost, VRefresh, VCancel, VAlter, VChoose:
			if op.Who != "" && op.Who != Self {
				return fmt.Errorf("%s always acts for the card's controller; remove who", op.Verb)
			}
		case VBounce, VScrap:
			if op.Who == "" || op.Who == Self || op.Who == All {
				return fmt.Errorf("%s needs who: opponents, chosen or actor", op.Verb)
			}
		}
		needN := true
		switch op.Verb {
		case VModify:
			if op.Stat == "" || op.N == 0 {
				return fmt.Errorf("modify needs a stat and a non-zero n")
			}
			needN = false
		case VBoost:
			if op.Stat != StatTech && op.Stat != StatSci {
				return fmt.Errorf("boost needs stat tech or sci")
			}
		case VAlter:
			if e.Trigger != OnInterrupt {
				return fmt.Errorf("alter is for interrupt effects")
			}
			if op.N == 0 {
				return fmt.Errorf("alter needs a non-zero n")
			}
			needN = false
			if !alterable(e.Answers, op.Stat) {
				return fmt.Errorf("alter cannot change %q of a %s event", op.Stat, e.Answers)
			}
		case VCancel:
			if e.Trigger != OnInterrupt {
				return fmt.Errorf("cancel is for interrupt effects")
			}
			needN = false
		case VRecycle:
			needN = false
		case VBounce, VScrap:
			if op.Target != Monster && op.Target != LabEquipment {
				return fmt.Errorf("%s needs target monster or lab_equipment", op.Verb)
			}
			needN = false
		case VChoose:
			if len(op.Options) < 2 {
				return fmt.Errorf("choose needs at least two options")
			}
			if depth > 0 {
				return fmt.Errorf("choose cannot nest")
			}
			for _, o := range op.Options {
				if len(o) == 0 {
					return fmt.Errorf("an option of choose is empty")
				}
				if err := validateOps(e, o, depth+1); err != nil {
					return err
				}
			}
			needN = false
		}
		if needN && op.N <= 0 {
			return fmt.Errorf("%s needs a positive n", op.Verb)
		}
		if op.Stat != "" {
			switch op.Stat {
			case StatTech, StatSci, StatDraw, StatPoints:
			default:
				return fmt.Errorf("%s: unknown stat %q", op.Verb, op.Stat)
			}
		}
	}
	return nil
}

// alterable reports whether an interrupt answering k may alter stat s.
func alterable(k EventKind, s Stat) bool {
	switch k {
	case EvDraw:
		return s == StatDraw
	case EvPlayTool, EvClaim:
		return s == StatTech || s == StatSci
	}
	return false
}

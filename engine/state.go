package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
)

// Game-size constants of the rulebook.
const (
	MinPlayers = 2
	MaxPlayers = 4
	HandLimit  = 6
	// MaxDepth is how deep interrupt windows nest: an interrupt played into a
	// window may itself be answered once more, no further.
	MaxDepth = 2
)

// Mode selects how the Challenge Deck is formed.
type Mode string

// Game modes.
const (
	ModeStandard Mode = "standard" // basic and hard challenges by player count
	ModeFast     Mode = "fast"     // the 8 basic challenges only (fast or tutorial game)
)

func (m Mode) String() string { return string(m) }

// Policy says which seats an interrupt window prompts.
type Policy string

// Interrupt policies. See docs/rules.md for the trade-off.
const (
	// Holders prompts only seats holding a playable matching interrupt. Fast,
	// but being prompted tells the table you hold one.
	Holders Policy = "holders"
	// Conceal prompts every seat whose deck list contains a matching
	// interrupt, so a prompt reveals nothing about the hand.
	Conceal Policy = "conceal"
)

func (p Policy) String() string { return string(p) }

// Phase is a turn phase, or Over once the game has ended.
type Phase string

// The four turn phases, and the end of the game.
const (
	PhaseBeginning Phase = "beginning"
	PhaseDraw      Phase = "draw"
	PhaseAction    Phase = "action"
	PhaseEnd       Phase = "end"
	PhaseOver      Phase = "over"
)

func (p Phase) String() string { return string(p) }

// Title is the phase as a player names it ("Action").
func (p Phase) Title() string { return Capitalize(string(p)) }

// Inst is one physical card: an opaque instance id and the card it is. The id
// changes whenever the card enters a hidden zone, so it cannot be followed.
type Inst struct {
	ID   string `json:"id"`
	Card string `json:"card"`
}

// Player is one seat's private and public zones.
type Player struct {
	Name     string   `json:"name,omitempty"`
	Deck     []Inst   `json:"deck,omitempty"` // Laboratory Deck, top first (unused in the office variant)
	Hand     []Inst   `json:"hand,omitempty"`
	Bin      []Inst   `json:"bin,omitempty"` // Recycle Bin (unused in the office variant)
	Lab      []Inst   `json:"lab,omitempty"`
	Ranking  []Inst   `json:"ranking,omitempty"`
	DeckList []string `json:"deck_list,omitempty"` // distinct card ids the deck was built from (for the conceal policy)
	Limited  bool     `json:"limited,omitempty"`   // played a limit card since the start of their last turn
	Used     []string `json:"used,omitempty"`      // Lab instances whose activated ability was used this turn
	Resigned bool     `json:"resigned,omitempty"`
	VotedEnd bool     `json:"voted_end,omitempty"`
	Standing Standing `json:"standing,omitzero"`
	// StandingUsed: the seat has set standing answers in this game, also
	// if it cleared them since (the play path then checks whether a batch
	// that is stale was moved on by standing answers alone). Hidden, as
	// Standing is.
	StandingUsed bool `json:"standing_used,omitempty"`
}

// Standing is a seat's standing answers to interrupt windows, applied when a
// window opens: play a listed card when holding it for that event, otherwise
// pass if Pass is set, otherwise prompt.
type Standing struct {
	Pass  bool           `json:"pass,omitempty"`
	Plays []StandingPlay `json:"plays,omitempty"`
}

// StandingPlay plays Card (a card id) whenever an event of kind On is proposed.
type StandingPlay struct {
	On   EventKind `json:"on"`
	Card string    `json:"card"`
}

// Global is a global Hack in the Global zone.
type Global struct {
	Inst
	Owner int `json:"owner"`
}

// Build is the open Software Build of the active player.
type Build struct {
	Tools []Inst `json:"tools"`
	Tech  int    `json:"tech"` // printed TECH of the Tools, plus boosts and alterations
	Sci   int    `json:"sci"`
}

// Queued holds the rest of a batch of actions waiting for an interrupt
// window to close.
type Queued struct {
	Seat    int      `json:"seat"`
	Actions []Action `json:"actions"`
	// Texts words each action for the seat as it was queued (View.Text):
	// the events that resume or drop them name them so, not by their ids.
	// Empty in a queue stored before texts.
	Texts []string `json:"texts,omitempty"`
}

// State is a whole game. It is plain data: it serializes to JSON and back
// without loss. Only the engine should read it; players see Views.
type State struct {
	// Secret keys every random choice and instance id of the game (see
	// random and newID); it never leaves the engine while the game runs.
	// Zero only in a game stored before secrets, which has a Seed instead.
	Secret Secret `json:"secret,omitzero"`
	// Salt is mixed into the commitment to Secret that the game publishes
	// (Commitment); the engine uses it for nothing else.
	Salt Secret `json:"salt,omitzero"`
	// Seed is the 64-bit seed of a game stored before secrets (0 for the
	// others). Such a game draws from a PCG stream that its public ids give
	// away, until Reseal gives it a secret.
	Seed uint64 `json:"seed,omitempty"`
	// Resealed is the version at which Reseal gave a game stored before
	// secrets its secret; 0 for a game that had one from the start.
	Resealed      int      `json:"resealed,omitempty"`
	Version       int      `json:"version"`
	Mode          Mode     `json:"mode"`
	Office        bool     `json:"office,omitempty"`
	Policy        Policy   `json:"policy"`
	Extra         []Card   `json:"extra,omitempty"` // cards defined inline (scenarios)
	Players       []Player `json:"players"`
	SharedDeck    []Inst   `json:"shared_deck,omitempty"` // office variant
	SharedBin     []Inst   `json:"shared_bin,omitempty"`  // office variant
	ChallengeDeck []Inst   `json:"challenge_deck,omitempty"`
	Market        []Inst   `json:"market,omitempty"`
	Global        []Global `json:"global,omitempty"`
	Turn          int      `json:"turn"`
	Active        int      `json:"active"`
	Phase         Phase    `json:"phase"`
	Build         *Build   `json:"build,omitempty"`
	Stack         []Task   `json:"stack,omitempty"`
	Prompts       []Prompt `json:"prompts,omitempty"`
	Queue         *Queued  `json:"queue,omitempty"`
	Serial        int      `json:"serial"` // prompt numbering
	Winners       []int    `json:"winners,omitempty"`

	cat *Catalog
	rnd *sources // the random sources of the action in progress
}

// Over reports whether the game has ended.
func (s *State) Over() bool { return s.Phase == PhaseOver }

// catalog is the standard card set plus the state's inline cards.
func (s *State) catalog() *Catalog {
	if s.cat == nil {
		s.loadCatalog()
	}
	return s.cat
}

func (s *State) loadCatalog() {
	cat, err := Standard().with(s.Extra)
	if err != nil {
		// Extra was validated when the state was created.
		panic("engine: inline cards: " + err.Error())
	}
	s.cat = cat
}

func (s *State) card(id string) *Card {
	c := s.catalog().Card(id)
	if c == nil {
		panic("engine: unknown card " + id)
	}
	return c
}

// seats is the number of seats, resigned ones included.
func (s *State) seats() int { return len(s.Players) }

// live reports whether seat is still in the game.
func (s *State) live(seat int) bool {
	return seat >= 0 && seat < len(s.Players) && !s.Players[seat].Resigned
}

// order returns the live seats in turn order starting after from (from last).
func (s *State) order(from int) []int { return s.appendOrder(nil, from) }

// appendOrder appends order(from) to out.
func (s *State) appendOrder(out []int, from int) []int {
	n := s.seats()
	for i := 1; i <= n; i++ {
		seat := (from + i) % n
		if s.live(seat) {
			out = append(out, seat)
		}
	}
	return out
}

// deck and bin return the Laboratory Deck and Recycle Bin a seat uses.
func (s *State) deck(seat int) *[]Inst {
	if s.Office {
		return &s.SharedDeck
	}
	return &s.Players[seat].Deck
}

func (s *State) bin(seat int) *[]Inst {
	if s.Office {
		return &s.SharedBin
	}
	return &s.Players[seat].Bin
}

const (
	idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	idLen      = 10
)

// appendID appends the instance id spelled by the random number v.
func appendID(b []byte, v uint64) []byte {
	for range idLen {
		b = append(b, idAlphabet[v&31])
		v >>= 5
	}
	return b
}

// newID returns a fresh opaque instance id.
func (s *State) newID() string {
	var b [idLen]byte
	return string(appendID(b[:0], s.ids().Uint64()))
}

// rekey gives the card a new id as it enters a hidden zone.
func (s *State) rekey(c Inst) Inst {
	c.ID = s.newID()
	return c
}

// rekeyAll gives every card of cs a new id, drawing from the id stream as
// rekey would card by card, with one allocation for all the ids.
func (s *State) rekeyAll(cs []Inst) {
	if len(cs) == 0 {
		return
	}
	r := s.ids()
	var b strings.Builder
	b.Grow(idLen * len(cs))
	var id [idLen]byte
	for range cs {
		b.Write(appendID(id[:0], r.Uint64()))
	}
	ids := b.String()
	for i := range cs {
		cs[i].ID = ids[i*idLen : (i+1)*idLen]
	}
}

// shuffle shuffles a pile in place and re-keys every card in it.
func (s *State) shuffle(pile []Inst) {
	r := s.random()
	r.Shuffle(len(pile), func(i, j int) { pile[i], pile[j] = pile[j], pile[i] })
	s.rekeyAll(pile)
}

// Clone returns a deep copy of the state: no slice or pointer is shared
// with s, except the read-only card data. TestCloneCoversFields makes sure
// a new field of the state's types is not forgotten here.
func (s *State) Clone() *State {
	out := *s
	out.rnd = nil
	out.Extra = slices.Clone(s.Extra)
	out.Players = slices.Clone(s.Players)
	for i := range out.Players {
		p := &out.Players[i]
		p.Deck, p.Hand, p.Bin = slices.Clone(p.Deck), slices.Clone(p.Hand), slices.Clone(p.Bin)
		p.Lab, p.Ranking = slices.Clone(p.Lab), slices.Clone(p.Ranking)
		p.DeckList, p.Used = slices.Clone(p.DeckList), slices.Clone(p.Used)
		p.Standing.Plays = slices.Clone(p.Standing.Plays)
	}
	out.SharedDeck, out.SharedBin = slices.Clone(s.SharedDeck), slices.Clone(s.SharedBin)
	out.ChallengeDeck, out.Market = slices.Clone(s.ChallengeDeck), slices.Clone(s.Market)
	out.Global = slices.Clone(s.Global)
	if s.Build != nil {
		b := *s.Build
		b.Tools = slices.Clone(b.Tools)
		out.Build = &b
	}
	out.Stack = slices.Clone(s.Stack)
	for i := range out.Stack {
		t := &out.Stack[i]
		t.Ops, t.Who, t.Answer, t.Held = slices.Clone(t.Ops), slices.Clone(t.Who), slices.Clone(t.Answer), slices.Clone(t.Held)
		if t.Ev != nil {
			t.Ev = t.Ev.clone()
		}
	}
	out.Prompts = slices.Clone(s.Prompts)
	for i := range out.Prompts {
		out.Prompts[i].Options = slices.Clone(out.Prompts[i].Options)
	}
	if s.Queue != nil {
		q := *s.Queue
		q.Actions, q.Texts = cloneActions(q.Actions), slices.Clone(q.Texts)
		out.Queue = &q
	}
	out.Winners = slices.Clone(s.Winners)
	return &out
}

func (p *Proposal) clone() *Proposal {
	c := *p
	if p.Card != nil {
		in := *p.Card
		c.Card = &in
	}
	c.Challenges = slices.Clone(p.Challenges)
	if p.Window != nil {
		w := *p.Window
		w.Seats, w.Prompts, w.Plays = slices.Clone(w.Seats), slices.Clone(w.Prompts), slices.Clone(w.Plays)
		c.Window = &w
	}
	return &c
}

func cloneActions(as []Action) []Action {
	out := slices.Clone(as)
	for i := range out {
		a := &out[i]
		a.Challenges, a.Choices = slices.Clone(a.Challenges), slices.Clone(a.Choices)
		if a.Standing != nil {
			st := *a.Standing
			st.Plays = slices.Clone(st.Plays)
			a.Standing = &st
		}
	}
	return out
}

// Marshal serializes the state.
func (s *State) Marshal() ([]byte, error) { return json.Marshal(s) }

// Unmarshal restores a state serialized by Marshal.
func Unmarshal(data []byte) (*State, error) {
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	if _, err := Standard().with(s.Extra); err != nil {
		return nil, err
	}
	return &s, nil
}

// Hash is a digest of the whole state, for replay checks.
func (s *State) Hash() string {
	data, err := json.Marshal(s)
	if err != nil {
		panic("engine: hash: " + err.Error())
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// remove takes the card with id out of pile, reporting whether it was there.
func remove(pile *[]Inst, id string) (Inst, bool) {
	i := slices.IndexFunc(*pile, func(c Inst) bool { return c.ID == id })
	if i < 0 {
		return Inst{}, false
	}
	c := (*pile)[i]
	*pile = slices.Delete(*pile, i, i+1)
	return c, true
}

// find returns the card with id in pile.
func find(pile []Inst, id string) (Inst, bool) {
	for _, c := range pile {
		if c.ID == id {
			return c, true
		}
	}
	return Inst{}, false
}

// Cards returns every card instance of the game, wherever it is: decks,
// hands, Recycle Bins, Labs, Rankings, the Market, the Challenge Deck, the
// Global zone, the open build, and cards held by pending events. Each card
// is in exactly one place, so the total never changes.
func (s *State) Cards() []Inst {
	n := len(s.SharedDeck) + len(s.SharedBin) + len(s.ChallengeDeck) + len(s.Market) + len(s.Global)
	for i := range s.Players {
		p := &s.Players[i]
		n += len(p.Deck) + len(p.Hand) + len(p.Bin) + len(p.Lab) + len(p.Ranking)
	}
	if s.Build != nil {
		n += len(s.Build.Tools)
	}
	for _, t := range s.Stack {
		n += len(t.Held) + 1
	}
	out := make([]Inst, 0, n)
	for i := range s.Players {
		p := &s.Players[i]
		out = append(append(append(append(append(out, p.Deck...), p.Hand...), p.Bin...), p.Lab...), p.Ranking...)
	}
	out = append(append(append(append(out, s.SharedDeck...), s.SharedBin...), s.ChallengeDeck...), s.Market...)
	for _, g := range s.Global {
		out = append(out, g.Inst)
	}
	if s.Build != nil {
		out = append(out, s.Build.Tools...)
	}
	for _, t := range s.Stack {
		out = append(out, t.Held...)
		if t.Ev != nil && t.Ev.Card != nil {
			out = append(out, *t.Ev.Card)
		}
	}
	return out
}

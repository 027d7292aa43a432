package engine

import (
	"errors"
	"fmt"
	"slices"
)

// SeatSetup is one player at game creation.
type SeatSetup struct {
	Name string `json:"name"`
	Deck Deck   `json:"deck"` // personal Laboratory Deck; ignored in the office variant
}

// Setup is everything needed to create a game.
type Setup struct {
	// Secret keys the game's shuffles, random choices and instance ids
	// (see docs/fairness.md). A served game draws it from a cryptographic
	// source. Zero: SeedSecret(Seed), for tests, simulations and scenarios.
	Secret Secret `json:"secret,omitzero"`
	// Salt goes into the game's commitment to its secret (Commitment).
	Salt Secret `json:"salt,omitzero"`
	// Seed stands for the secret when Secret is zero.
	Seed       uint64      `json:"seed,omitempty"`
	Mode       Mode        `json:"mode"`   // ModeStandard (default) or ModeFast
	Office     bool        `json:"office"` // one shared Laboratory Deck and Recycle Bin
	OfficeDeck Deck        `json:"office_deck"`
	Policy     Policy      `json:"policy"` // Holders (default) or Conceal
	Players    []SeatSetup `json:"players"`
	Cards      []Card      `json:"cards,omitempty"` // extra card definitions (scenarios)
}

// Market size and challenge counts by number of players (index = players).
var (
	marketSize = [MaxPlayers + 1]int{2: 3, 3: 4, 4: 5}
	basicCount = [MaxPlayers + 1]int{2: 6, 3: 7, 4: 8}
	hardCount  = [MaxPlayers + 1]int{2: 4, 3: 6, 4: 7}
	drawCount  = [MaxPlayers + 1]int{2: 2, 3: 3, 4: 3}
)

// ErrSetup is returned (wrapped) for an invalid Setup.
var ErrSetup = errors.New("invalid setup")

// NewGame creates a game: it forms the Challenge Deck and the Market,
// shuffles the Laboratory Decks, picks the first player at random, deals
// opening hands and runs the first turn up to the first decision. Every
// random choice comes from the setup's secret (Setup.Secret).
func NewGame(setup Setup) (*State, []Event, error) {
	if setup.Secret.IsZero() {
		setup.Secret = SeedSecret(setup.Seed)
	}
	return newGame(setup)
}

// newGame is NewGame with the secret as given: a zero one makes a game as
// the engine made them before secrets, on setup.Seed alone (for the tests
// of games stored then).
func newGame(setup Setup) (*State, []Event, error) {
	n := len(setup.Players)
	if n < MinPlayers || n > MaxPlayers {
		return nil, nil, fmt.Errorf("%w: %d players, the game takes %d to %d", ErrSetup, n, MinPlayers, MaxPlayers)
	}
	if setup.Mode == "" {
		setup.Mode = ModeStandard
	}
	if setup.Policy == "" {
		setup.Policy = Holders
	}
	if setup.Mode != ModeStandard && setup.Mode != ModeFast {
		return nil, nil, fmt.Errorf("%w: mode %q (standard or fast)", ErrSetup, setup.Mode)
	}
	if setup.Policy != Holders && setup.Policy != Conceal {
		return nil, nil, fmt.Errorf("%w: interrupt policy %q (holders or conceal)", ErrSetup, setup.Policy)
	}
	cat, err := Standard().with(setup.Cards)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	s := &State{Secret: setup.Secret, Salt: setup.Salt, Mode: setup.Mode, Office: setup.Office, Policy: setup.Policy,
		Extra: setup.Cards, Players: make([]Player, n), cat: cat}
	if s.Secret.IsZero() {
		s.Seed = setup.Seed
	}
	if setup.Office {
		if err := ValidateDeck(cat, setup.OfficeDeck, true, n); err != nil {
			return nil, nil, fmt.Errorf("%w: office deck: %w", ErrSetup, err)
		}
		s.SharedDeck = s.instances(setup.OfficeDeck.CardIDs())
		s.shuffle(s.SharedDeck)
	}
	for i, p := range setup.Players {
		s.Players[i].Name = p.Name
		if setup.Office {
			s.Players[i].DeckList = setup.OfficeDeck.distinctIDs()
			continue
		}
		if err := ValidateDeck(cat, p.Deck, false, 0); err != nil {
			return nil, nil, fmt.Errorf("%w: seat %d deck: %w", ErrSetup, i, err)
		}
		s.Players[i].DeckList = p.Deck.distinctIDs()
		s.Players[i].Deck = s.instances(p.Deck.CardIDs())
		s.shuffle(s.Players[i].Deck)
	}
	basic, hard := cat.Challenges()
	r := s.random()
	pick := func(ids []string, k int) []string {
		ids = slices.Clone(ids)
		r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		return ids[:min(k, len(ids))]
	}
	var challenges []string
	if setup.Mode == ModeFast {
		challenges = basic
	} else {
		challenges = append(pick(basic, basicCount[n]), pick(hard, hardCount[n])...)
	}
	s.ChallengeDeck = s.instances(challenges)
	s.shuffle(s.ChallengeDeck)
	s.Active = r.IntN(n)
	g := &game{s: s}
	g.emit(func() Event {
		return Event{Kind: KindGameStarted, Seat: -1, Seats: []int{s.Active}, N: n,
			Text: fmt.Sprintf("The game begins with %d players; %s goes first.", n, s.name(s.Active))}
	})
	g.refillMarket()
	for _, seat := range append([]int{s.Active}, s.order(s.Active)[:n-1]...) {
		k := 4
		if seat == s.Active {
			k = 3
		}
		g.draw(seat, k)
	}
	s.Turn = 1
	g.push(Task{Kind: TaskAction, Seat: s.Active}, Task{Kind: TaskHandLimit, Seat: s.Active}, Task{Kind: TaskDraw, Seat: s.Active}, Task{Kind: TaskBegin, Seat: s.Active})
	g.loop()
	s.Version = 1
	return s, g.events, nil
}

// OfficeDeck is the office variant's shared deck made of the seats' decks:
// their entries in seat order, each card once, where it first appears,
// with the counts of all the decks summed and, as the rulebook builds an
// office deck from packs, the superfluous copies removed: each card of
// the catalogue at most its office copy limit (CopyLimit), so that three
// or four seats bringing one prebuilt deck make a legal one. A card the
// catalogue lacks keeps its sum. Check it with ValidateDeck (office true).
func (c *Catalog) OfficeDeck(decks []Deck) Deck {
	out := Deck{ID: "office", Name: "Office deck"}
	at := map[string]int{}
	for _, d := range decks {
		for _, e := range d.Cards {
			if i, ok := at[e.Card]; ok {
				out.Cards[i].Count += e.Count
				continue
			}
			at[e.Card] = len(out.Cards)
			out.Cards = append(out.Cards, e)
		}
	}
	for i, e := range out.Cards {
		if card := c.Card(e.Card); card != nil {
			out.Cards[i].Count = min(e.Count, CopyLimit(card, true))
		}
	}
	return out
}

// instances makes one instance per card id.
func (s *State) instances(ids []string) []Inst {
	out := make([]Inst, len(ids))
	for i, id := range ids {
		// The catalogue's own string, so that card lookups compare equal
		// strings by pointer.
		out[i] = Inst{Card: s.card(id).ID}
	}
	s.rekeyAll(out)
	return out
}

// distinctIDs is distinct(d.CardIDs()), from the entries of the list.
func (d Deck) distinctIDs() []string {
	ids := make([]string, len(d.Cards))
	for i, e := range d.Cards {
		ids[i] = e.Card
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func distinct(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

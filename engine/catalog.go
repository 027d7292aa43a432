package engine

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"slices"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed cards/*.yaml
var cardFiles embed.FS

// DeckEntry is a number of copies of one card in a deck list.
type DeckEntry struct {
	Card  string `yaml:"card" json:"card"`
	Count int    `yaml:"count" json:"count"`
}

// Deck is a named deck list, such as a prebuilt Adventure Pack.
type Deck struct {
	ID    string      `yaml:"id" json:"id"`
	Name  string      `yaml:"name" json:"name"`
	Cards []DeckEntry `yaml:"cards" json:"cards"`
	// Description says how a prebuilt deck plays, for a player choosing
	// one (Describe adds its counts); "" for other decks. It is not part
	// of a deck list's JSON.
	Description string `yaml:"description" json:"-"`
}

// Size is the number of cards in the deck: the sum of its positive
// counts, saturating at math.MaxInt (a list ValidateDeck refuses may say
// anything).
func (d Deck) Size() int {
	n := 0
	for _, e := range d.Cards {
		n = addCount(n, max(e.Count, 0))
	}
	return n
}

// CardIDs expands the deck list into one card id per copy, in list order.
// It is meant for a list ValidateDeck accepted; of any other, a count below
// 1 expands to nothing and one above MaxCardCopies (more than any copy rule
// allows) to MaxCardCopies copies, so that no list expands into more than
// MaxCardCopies ids per entry.
func (d Deck) CardIDs() []string {
	n := 0
	for _, e := range d.Cards {
		n += min(max(e.Count, 0), MaxCardCopies)
	}
	out := make([]string, 0, n)
	for _, e := range d.Cards {
		for range min(e.Count, MaxCardCopies) {
			out = append(out, e.Card)
		}
	}
	return out
}

// Catalog is a validated card set: card definitions and prebuilt decks.
// A Catalog is read-only once loaded and safe for concurrent use.
type Catalog struct {
	cards map[string]*Card
	fast  *[fastSlots]*Card // a lookup table in front of cards; see index
	mul   uint64            // the table's hash multiplier
	order []string
	decks []Deck
}

// cardFile is the layout of one card data file.
type cardFile struct {
	Cards []Card `yaml:"cards"`
	Decks []Deck `yaml:"decks"`
}

// LoadCatalog reads card data files (YAML) into a Catalog, validating every
// card and deck. The first bad card or deck is reported by name.
func LoadCatalog(files ...[]byte) (*Catalog, error) {
	cat := &Catalog{cards: map[string]*Card{}}
	for _, data := range files {
		var f cardFile
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&f); err != nil && err != io.EOF {
			return nil, fmt.Errorf("card data: %w", err)
		}
		for i := range f.Cards {
			c := f.Cards[i]
			if _, dup := cat.cards[c.ID]; dup {
				return nil, &CardError{Card: c.ID, Reason: "defined twice"}
			}
			cat.cards[c.ID] = &c
			cat.order = append(cat.order, c.ID)
		}
		cat.decks = append(cat.decks, f.Decks...)
	}
	if err := cat.validate(); err != nil {
		return nil, err
	}
	cat.index()
	for _, id := range cat.order {
		cat.word(cat.cards[id])
	}
	return cat, nil
}

// word words card c of the set (see cardWords), naming the cards it names
// from the set.
func (cat *Catalog) word(c *Card) {
	c.said = wordCard(c, func(id string) string {
		if k := cat.Card(id); k != nil {
			return k.Name
		}
		return standardName(id)
	})
}

// fastSlots is the size of the lookup table in front of a Catalog's map.
const (
	fastBits  = 11
	fastSlots = 1 << fastBits
)

// fastKey packs a card id into 64 bits: its length and six of its bytes
// (ids of one Monster differ at the level: "-junior", "-senior").
func fastKey(id string) uint64 {
	n := len(id)
	if n < 8 {
		var k uint64
		for i := range n {
			k = k<<8 | uint64(id[i])
		}
		return k
	}
	return uint64(n) | uint64(id[0])<<8 | uint64(id[1])<<16 | uint64(id[n/2])<<24 |
		uint64(id[n-6])<<32 | uint64(id[n-2])<<40 | uint64(id[n-1])<<48
}

// index fills the lookup table, choosing a multiplier for which the ids
// do not collide if it can. An id that still collides stays out of the
// table; Card finds it in the map.
func (cat *Catalog) index() {
	best, bestMul := -1, uint64(0)
	for try := range uint64(256) {
		mul := 0x9e3779b97f4a7c15 + try*0x5851f42d4c957f2e
		var used [fastSlots]bool
		n := 0
		for _, id := range cat.order {
			if id == "" {
				continue
			}
			if k := (fastKey(id) * mul) >> (64 - fastBits); !used[k] {
				used[k] = true
				n++
			}
		}
		if n > best {
			best, bestMul = n, mul
		}
		if n == len(cat.order) {
			break
		}
	}
	cat.mul = bestMul
	cat.fast = new([fastSlots]*Card)
	for _, id := range cat.order {
		if id == "" {
			continue
		}
		if k := (fastKey(id) * cat.mul) >> (64 - fastBits); cat.fast[k] == nil {
			cat.fast[k] = cat.cards[id]
		}
	}
}

func (cat *Catalog) validate() error {
	for _, id := range cat.order {
		if err := cat.cards[id].validate(cat.Card); err != nil {
			return err
		}
	}
	for _, d := range cat.decks {
		if err := ValidateDeck(cat, d, false, 0); err != nil {
			return fmt.Errorf("deck %q: %w", d.Name, err)
		}
	}
	return nil
}

// Card returns the card with that id, or nil.
func (cat *Catalog) Card(id string) *Card {
	if cat.fast != nil && id != "" {
		if c := cat.fast[(fastKey(id)*cat.mul)>>(64-fastBits)]; c != nil && c.ID == id {
			return c
		}
	}
	return cat.cards[id]
}

// Cards returns every card in file order.
func (cat *Catalog) Cards() []*Card {
	out := make([]*Card, len(cat.order))
	for i, id := range cat.order {
		out[i] = cat.cards[id]
	}
	return out
}

// Decks returns the prebuilt decks.
func (cat *Catalog) Decks() []Deck { return slices.Clone(cat.decks) }

// Deck returns the prebuilt deck with that id.
func (cat *Catalog) Deck(id string) (Deck, bool) {
	for _, d := range cat.decks {
		if d.ID == id {
			return d, true
		}
	}
	return Deck{}, false
}

// Challenges returns the standard challenges, basic ones first, each in file order.
func (cat *Catalog) Challenges() (basic, hard []string) {
	for _, id := range cat.order {
		c := cat.cards[id]
		if c.Type != Challenge {
			continue
		}
		if c.Hard {
			hard = append(hard, id)
		} else {
			basic = append(basic, id)
		}
	}
	return basic, hard
}

// with returns a catalog that also holds extra cards (for scenarios).
func (cat *Catalog) with(extra []Card) (*Catalog, error) {
	if len(extra) == 0 {
		return cat, nil
	}
	out := &Catalog{cards: make(map[string]*Card, len(cat.cards)+len(extra)), order: slices.Clone(cat.order), decks: cat.decks}
	for id, c := range cat.cards {
		out.cards[id] = c
	}
	for i := range extra {
		c := extra[i]
		if _, dup := out.cards[c.ID]; dup {
			return nil, &CardError{Card: c.ID, Reason: "defined twice"}
		}
		out.cards[c.ID] = &c
		out.order = append(out.order, c.ID)
	}
	for i := range extra {
		if err := out.cards[extra[i].ID].validate(out.Card); err != nil {
			return nil, err
		}
	}
	out.index()
	// The standard cards are worded already, and name only standard cards.
	for i := range extra {
		out.word(out.cards[extra[i].ID])
	}
	return out, nil
}

var (
	standardOnce sync.Once
	standard     *Catalog
	standardErr  error
)

// Standard returns the embedded starter card set. It panics if the embedded
// data is invalid, which the package's tests rule out.
func Standard() *Catalog {
	standardOnce.Do(func() {
		entries, err := cardFiles.ReadDir("cards")
		if err != nil {
			standardErr = err
			return
		}
		var files [][]byte
		for _, e := range entries {
			data, err := cardFiles.ReadFile("cards/" + e.Name())
			if err != nil {
				standardErr = err
				return
			}
			files = append(files, data)
		}
		standard, standardErr = LoadCatalog(files...)
	})
	if standardErr != nil {
		panic("engine: embedded card set: " + standardErr.Error())
	}
	return standard
}

package engine

import (
	"fmt"
	"math"
)

// Deck-building limits of the rulebook.
const (
	MinDeck       = 20 // cards in a personal Laboratory Deck, at least
	MaxDeck       = 30 // cards in a personal Laboratory Deck, at most
	MaxCopies     = 2  // copies of one card in a personal deck
	OfficePerSeat = 20 // cards per player in an office deck, at least
	OfficeCopies  = 4  // copies of one card in an office deck
	// MaxCardCopies is the most copies of one card any deck may hold,
	// whatever a card's many marker says: the bound that keeps every deck
	// list, valid or not, from expanding into more than MaxCardCopies
	// cards per entry (see CopyLimit and Deck.CardIDs).
	MaxCardCopies = 64
)

// DeckRule names the deck-building rule a deck breaks.
type DeckRule string

// Deck-building rules.
const (
	RuleDeckSize   DeckRule = "deck_size"
	RuleCardType   DeckRule = "card_type"
	RuleCopies     DeckRule = "copies"
	RuleOneCopy    DeckRule = "one_copy"
	RuleManyCopies DeckRule = "many_copies"
	RuleUnknown    DeckRule = "unknown_card"
)

// DeckError says which card breaks which deck-building rule. Card is empty
// for rules about the whole deck (its size).
type DeckError struct {
	Card   string
	Rule   DeckRule
	Reason string
}

func (e *DeckError) Error() string {
	if e.Card == "" {
		return fmt.Sprintf("%s: %s", e.Rule, e.Reason)
	}
	return fmt.Sprintf("card %q: %s: %s", e.Card, e.Rule, e.Reason)
}

// CopyLimit is the number of copies of c allowed in a personal deck, or in
// an office deck when office is true; never more than MaxCardCopies.
func CopyLimit(c *Card, office bool) int {
	n := MaxCopies
	switch {
	case c.One:
		n = 1
	case c.Many > 0:
		n = min(c.Many, MaxCardCopies)
	}
	if office {
		if c.One || c.Many > 0 {
			return min(2*n, MaxCardCopies)
		}
		return OfficeCopies
	}
	return n
}

// copiesError is the error of card c, of which a deck has more than limit
// copies (have, at least).
func copiesError(c *Card, limit, have int) *DeckError {
	copies := fmt.Sprintf("%d copies", limit)
	if limit == 1 {
		copies = "1 copy"
	}
	rule, why := RuleCopies, "at most "+copies+" of a card"
	switch {
	case c.One:
		rule, why = RuleOneCopy, "a card marked one allows "+copies
	case c.Many > 0:
		rule, why = RuleManyCopies, "a card marked many allows "+copies
	}
	return &DeckError{Card: c.ID, Rule: rule, Reason: fmt.Sprintf("%s, the deck has %d", why, have)}
}

// addCount is a + b for counts (both >= 0), saturating at math.MaxInt
// instead of wrapping.
func addCount(a, b int) int {
	if b > math.MaxInt-a {
		return math.MaxInt
	}
	return a + b
}

// ValidateDeck checks a deck list against the deck-building rules: a
// personal deck (office false) or an office deck for players players. Each
// entry's count is held to the card's copy limit before it is added to
// anything, so no list, however large its counts, can wrap a sum: a count
// near math.MaxInt is a copies error naming its card.
func ValidateDeck(cat *Catalog, d Deck, office bool, players int) error {
	counts := map[string]int{}
	total := 0
	for _, e := range d.Cards {
		c := cat.Card(e.Card)
		if c == nil {
			return &DeckError{Card: e.Card, Rule: RuleUnknown, Reason: "no such card"}
		}
		if c.Type == Challenge {
			return &DeckError{Card: e.Card, Rule: RuleCardType, Reason: "Challenge cards belong to the Challenge Deck, not a Laboratory Deck"}
		}
		if e.Count <= 0 {
			return &DeckError{Card: e.Card, Rule: RuleCopies, Reason: "count must be positive"}
		}
		limit, have := CopyLimit(c, office), counts[e.Card]
		if e.Count > limit-have {
			return copiesError(c, limit, addCount(have, e.Count))
		}
		// Both are within the copy limits now: the sums stay small.
		counts[e.Card] = have + e.Count
		total += e.Count
	}
	if office {
		if min := OfficePerSeat * max(players, 1); total < min {
			return &DeckError{Rule: RuleDeckSize, Reason: fmt.Sprintf("an office deck for %d players needs at least %d cards, it has %d", players, min, total)}
		}
		return nil
	}
	if total < MinDeck || total > MaxDeck {
		return &DeckError{Rule: RuleDeckSize, Reason: fmt.Sprintf("a Laboratory Deck has %d to %d cards, this one has %d", MinDeck, MaxDeck, total)}
	}
	return nil
}

package engine

import "fmt"

// Deck-building limits of the rulebook.
const (
	MinDeck       = 20 // cards in a personal Laboratory Deck, at least
	MaxDeck       = 30 // cards in a personal Laboratory Deck, at most
	MaxCopies     = 2  // copies of one card in a personal deck
	OfficePerSeat = 20 // cards per player in an office deck, at least
	OfficeCopies  = 4  // copies of one card in an office deck
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
// an office deck when office is true.
func CopyLimit(c *Card, office bool) int {
	n := MaxCopies
	switch {
	case c.One:
		n = 1
	case c.Many > 0:
		n = c.Many
	}
	if office {
		if c.One || c.Many > 0 {
			return 2 * n
		}
		return OfficeCopies
	}
	return n
}

// ValidateDeck checks a deck list against the deck-building rules: a
// personal deck (office false) or an office deck for players players.
func ValidateDeck(cat *Catalog, d Deck, office bool, players int) error {
	counts := map[string]int{}
	var order []string
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
		if counts[e.Card] == 0 {
			order = append(order, e.Card)
		}
		counts[e.Card] += e.Count
		total += e.Count
	}
	for _, id := range order {
		c := cat.Card(id)
		limit := CopyLimit(c, office)
		if counts[id] <= limit {
			continue
		}
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
		return &DeckError{Card: id, Rule: rule, Reason: fmt.Sprintf("%s, the deck has %d", why, counts[id])}
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

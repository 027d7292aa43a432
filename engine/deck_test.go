package engine

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// TestValidateDeckHugeCounts: counts that wrap a sum (four times 2^62 of
// one card is 2^64, which is 0 in an int) are refused as too many copies
// of that card, for personal and office decks, and no list expands into
// more than MaxCardCopies ids per entry.
func TestValidateDeckHugeCounts(t *testing.T) {
	cat := Standard()
	var filler []DeckEntry
	for _, c := range cat.Cards() {
		if c.Type != Challenge && !c.One && c.Many == 0 && c.ID != "rapid-prototype" && len(filler) < 60 {
			filler = append(filler, DeckEntry{Card: c.ID, Count: 1})
		}
	}
	huge := func(counts ...int) []DeckEntry {
		var out []DeckEntry
		for _, n := range counts {
			out = append(out, DeckEntry{Card: "rapid-prototype", Count: n})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		entries []DeckEntry
		office  bool
	}{
		{"four times 2^62 beside 28 cards", slices.Concat(filler[:28], huge(1<<62, 1<<62, 1<<62, 1<<62)), false},
		{"2^62 first", slices.Concat(huge(1<<62, 1<<62, 1<<62, 1<<62), filler[:28]), false},
		{"MaxInt twice", slices.Concat(filler[:28], huge(math.MaxInt, math.MaxInt)), false},
		{"MaxInt after a legal count", slices.Concat(filler[:28], huge(1, math.MaxInt)), false},
		{"office four times 2^62", slices.Concat(filler[:40], huge(1<<62, 1<<62, 1<<62, 1<<62)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Deck{Name: "huge", Cards: tc.entries}
			err := ValidateDeck(cat, d, tc.office, 2)
			var de *DeckError
			if !errors.As(err, &de) || de.Card != "rapid-prototype" || de.Rule != RuleCopies {
				t.Fatalf("got %v, want a copies error naming rapid-prototype", err)
			}
			if n := len(d.CardIDs()); n > len(d.Cards)*MaxCardCopies {
				t.Fatalf("CardIDs gave %d ids for %d entries", n, len(d.Cards))
			}
			if n := d.Size(); n < 0 {
				t.Fatalf("Size wrapped to %d", n)
			}
		})
	}
	// A card whose many marker is absurd still allows MaxCardCopies at most.
	absurd := &Card{ID: "x", Many: math.MaxInt}
	if n, m := CopyLimit(absurd, false), CopyLimit(absurd, true); n != MaxCardCopies || m != MaxCardCopies {
		t.Fatalf("CopyLimit of many: MaxInt = %d, office %d; want %d", n, m, MaxCardCopies)
	}
}

package engine

import "testing"

// TestCatalogLookupTable checks the lookup table in front of the catalog
// map: every standard card is in it, and lookups agree with the map for
// known, unknown, short and inline cards.
func TestCatalogLookupTable(t *testing.T) {
	cat := Standard()
	n := 0
	for _, c := range cat.fast {
		if c != nil {
			n++
		}
	}
	if n != len(cat.order) {
		t.Errorf("the lookup table holds %d of %d cards; the rest fall back to the map", n, len(cat.order))
	}
	for _, id := range cat.order {
		if c := cat.Card(id); c == nil || c.ID != id {
			t.Fatalf("Card(%q) = %v", id, c)
		}
	}
	for _, id := range []string{"", "x", "glitchy-junio", "glitchy-juniorx", "open-source-librarz"} {
		if c := cat.Card(id); c != nil {
			t.Errorf("Card(%q) = %s, want nil", id, c.ID)
		}
	}
	extra := []Card{{ID: "ab", Name: "Ab", Type: Hack, Effects: []Effect{{Trigger: OnPlay, Do: []Op{{Verb: VDraw, N: 1}}}}}}
	with, err := cat.with(extra)
	if err != nil {
		t.Fatal(err)
	}
	if c := with.Card("ab"); c == nil || c.Name != "Ab" {
		t.Fatalf("inline card not found: %v", c)
	}
	if with.Card("scrum-planning") == nil || cat.Card("ab") != nil {
		t.Fatal("inline catalog mixes up cards")
	}
	empty := &Catalog{cards: map[string]*Card{"z": {ID: "z"}}}
	if empty.Card("z") == nil {
		t.Fatal("a catalog without a table must use its map")
	}
}

package engine_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
)

// TestCloneCoversFields is a tripwire for State.Clone, which copies field by
// field: when one of these types gains or loses a field, check that Clone
// deep-copies it, then update the list here.
func TestCloneCoversFields(t *testing.T) {
	want := []struct {
		v any
		n int
	}{
		{engine.State{}, 26},
		{engine.Player{}, 13},
		{engine.Standing{}, 2},
		{engine.StandingPlay{}, 2},
		{engine.Global{}, 2},
		{engine.Inst{}, 2},
		{engine.Build{}, 3},
		{engine.Queued{}, 3},
		{engine.Task{}, 14},
		{engine.Proposal{}, 13},
		{engine.Window{}, 3},
		{engine.WindowPlay{}, 2},
		{engine.Prompt{}, 10},
		{engine.Option{}, 3},
		{engine.Action{}, 6},
	}
	for _, w := range want {
		typ, n := reflect.TypeOf(w.v), w.n
		if typ.NumField() != n {
			t.Errorf("%s has %d fields, the Clone tripwire knows %d: make Clone copy the new field, then update this test", typ, typ.NumField(), n)
		}
	}
}

// TestCloneIsDeep clones states from bot games: the clone serializes like
// the original, shares no slice or pointer with it (card data aside), and
// playing on in the clone leaves the original as it was.
func TestCloneIsDeep(t *testing.T) {
	a, b := propDecks(t)
	for seed := range uint64(12) {
		players := 2 + int(seed%3)
		setup := engine.Setup{Seed: seed, Office: seed%4 == 3, Policy: []engine.Policy{engine.Holders, engine.Conceal}[seed%2]}
		for i := range players {
			setup.Players = append(setup.Players, engine.SeatSetup{Name: "P", Deck: []engine.Deck{a, b}[i%2]})
		}
		if setup.Office {
			setup.OfficeDeck = propOfficeDeck(a, b)
		}
		s, _, err := engine.NewGame(setup)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 3))
		bots := []bot.Bot{bot.NewRandom(r), bot.NewGreedy(r), bot.NewRandom(r), bot.NewGreedy(r)}
		for step := 0; !s.Over() && step < 2000; step++ {
			seat := engine.Awaiting(s)[0]
			legal := engine.Legal(s, seat)
			a := bots[seat].Choose(s.View(seat), legal)
			if step%5 == 0 {
				before, err := s.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				c := s.Clone()
				after, _ := c.Marshal()
				if string(before) != string(after) {
					t.Fatalf("seed %d step %d: the clone serializes differently", seed, step)
				}
				if path := shared(reflect.ValueOf(s).Elem(), reflect.ValueOf(c).Elem(), "State"); path != "" {
					t.Fatalf("seed %d step %d: the clone shares %s with the original", seed, step, path)
				}
				if _, err := engine.Apply(c, seat, a); err != nil {
					t.Fatalf("seed %d step %d: the clone rejects %v: %v", seed, step, a, err)
				}
				if now, _ := s.Marshal(); string(now) != string(before) {
					t.Fatalf("seed %d step %d: playing in the clone changed the original", seed, step)
				}
			}
			if _, err := engine.Apply(s, seat, a); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// shared returns the path of the first slice or pointer that x and y share,
// or "". It does not look into card data (Card, Op), which is read-only.
func shared(x, y reflect.Value, path string) string {
	switch x.Kind() {
	case reflect.Pointer:
		if x.IsNil() || y.IsNil() {
			return ""
		}
		if x.Pointer() == y.Pointer() {
			return path
		}
		return shared(x.Elem(), y.Elem(), path)
	case reflect.Slice:
		if x.Len() == 0 || y.Len() == 0 {
			return ""
		}
		if slices.Contains([]reflect.Type{reflect.TypeOf(engine.Card{}), reflect.TypeOf(engine.Op{})}, x.Type().Elem()) {
			return ""
		}
		if x.Pointer() == y.Pointer() {
			return path
		}
		for i := range x.Len() {
			if p := shared(x.Index(i), y.Index(i), path+"[]"); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := range x.NumField() {
			if !x.Type().Field(i).IsExported() {
				continue
			}
			if p := shared(x.Field(i), y.Field(i), path+"."+x.Type().Field(i).Name); p != "" {
				return p
			}
		}
	}
	return ""
}

// BenchmarkClone clones a mid-game 4-player state.
func BenchmarkClone(b *testing.B) {
	a, d := propDecks(b)
	setup := engine.Setup{Seed: 7}
	for i := range 4 {
		setup.Players = append(setup.Players, engine.SeatSetup{Name: "P", Deck: []engine.Deck{a, d}[i%2]})
	}
	s, _, err := engine.NewGame(setup)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	g := bot.NewGreedy(r)
	for s.Turn < 10 && !s.Over() {
		seat := engine.Awaiting(s)[0]
		if _, err := engine.Apply(s, seat, g.Choose(s.View(seat), engine.Legal(s, seat))); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Clone()
	}
}

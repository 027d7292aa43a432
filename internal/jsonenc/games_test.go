package jsonenc

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
)

// TestGamesEncodeAlike: through whole bot games of each kind, the state
// (the stored snapshot), every seat's view, the legal actions and the
// events encode as encoding/json encodes them.
func TestGamesEncodeAlike(t *testing.T) {
	cat := engine.Standard()
	startup, _ := cat.Deck("running-a-startup")
	enterprise, _ := cat.Deck("working-for-the-enterprise")
	values, over := 0, 0
	same := func(what string, v any) {
		t.Helper()
		values++
		got, err := fast(v) // unchecked: the comparison is this test's
		want, wantErr := json.Marshal(v)
		if err != nil || wantErr != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %s (%v)\nwhere encoding/json gives\n%s (%v)", what, got, err, want, wantErr)
		}
	}
	for seed := range uint64(9) {
		setup := engine.Setup{Seed: seed + 1, Mode: []engine.Mode{engine.ModeStandard, engine.ModeFast}[seed%2],
			Policy: []engine.Policy{engine.Holders, engine.Conceal}[seed/2%2]}
		for i := range 2 + int(seed%3) {
			setup.Players = append(setup.Players, engine.SeatSetup{Name: string(rune('a' + i)), Deck: []engine.Deck{startup, enterprise}[i%2]})
		}
		s, events, err := engine.NewGame(setup)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 1))
		bots := bot.NewRandom(r)
		for step := 0; !s.Over() && step < 3000; step++ {
			same("state", s)
			same("events", events)
			aw := engine.AppendAwaiting(nil, s)
			for seat := range s.Players {
				same("view", s.View(seat))
			}
			if len(aw) == 0 {
				t.Fatalf("seed %d: nobody awaited", seed)
			}
			legal := engine.AppendLegal(nil, s, aw[0])
			same("legal", legal)
			a := bots.Choose(s.View(aw[0]), legal)
			same("action", a)
			if events, err = engine.Apply(s, aw[0], a); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
		same("final state", s)
		if s.Over() {
			over++
		}
	}
	t.Logf("%d values alike, %d of 9 games to their end", values, over)
}

// BenchmarkMarshal encodes a 2-player game's state after 60 actions, and
// a seat's view of it, with this package and with encoding/json:
//
//	go test -run XXX -bench Marshal ./internal/jsonenc
func BenchmarkMarshal(b *testing.B) {
	startup, _ := engine.Standard().Deck("running-a-startup")
	s, _, err := engine.NewGame(engine.Setup{Seed: 3, Players: []engine.SeatSetup{{Name: "a", Deck: startup}, {Name: "b", Deck: startup}}})
	if err != nil {
		b.Fatal(err)
	}
	bots := bot.NewRandom(rand.New(rand.NewPCG(3, 1)))
	for range 60 {
		seat := engine.AppendAwaiting(nil, s)[0]
		if err := engine.ApplyQuiet(s, seat, bots.Choose(s.View(seat), engine.AppendLegal(nil, s, seat))); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		v    any
	}{{"state", s}, {"view", s.View(0)}} {
		for _, enc := range []struct {
			name string
			f    func(any) ([]byte, error)
		}{{"jsonenc", Marshal}, {"encoding-json", json.Marshal}} {
			b.Run(c.name+"/"+enc.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					enc.f(c.v)
				}
			})
		}
	}
}

package engine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// packs returns the two prebuilt decks.
func packs(t testing.TB) (Deck, Deck) {
	t.Helper()
	a, ok1 := Standard().Deck("running-a-startup")
	b, ok2 := Standard().Deck("working-for-the-enterprise")
	if !ok1 || !ok2 {
		t.Fatal("prebuilt decks missing")
	}
	return a, b
}

func newTestGame(t testing.TB, seed uint64, players int, mode Mode, office bool, policy Policy) *State {
	t.Helper()
	a, b := packs(t)
	setup := Setup{Seed: seed, Mode: mode, Office: office, Policy: policy}
	for i := range players {
		d := a
		if i%2 == 1 {
			d = b
		}
		setup.Players = append(setup.Players, SeatSetup{Name: string(rune('A' + i)), Deck: d})
	}
	if office {
		setup.OfficeDeck = fourPackOffice(a, b)
	}
	s, _, err := NewGame(setup)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// filled completes a listed answer (a prompt and no choices) with a random
// selection of Min to Max of its prompt's options; any other action is
// returned as it is.
func filled(s *State, a Action, r *rand.Rand) Action {
	if a.Type != ActAnswer || a.Choices != nil {
		return a
	}
	for _, p := range s.Prompts {
		if p.ID == a.Prompt {
			k := p.Min + r.IntN(p.Max-p.Min+1)
			a.Choices = []string{}
			for _, i := range r.Perm(len(p.Options))[:k] {
				a.Choices = append(a.Choices, p.Options[i].ID)
			}
		}
	}
	return a
}

// TestRandomPlayouts plays 300 games (100 under -short: seeds 0-99 still
// cover every mix of player count, mode, variant and policy) with random
// legal actions, in four parallel shares.
func TestRandomPlayouts(t *testing.T) {
	games := uint64(300)
	if testing.Short() {
		games = 100
	}
	for share := range uint64(4) {
		t.Run(fmt.Sprintf("share%d", share), func(t *testing.T) {
			t.Parallel()
			for seed := share; seed < games; seed += 4 {
				randomPlayout(t, seed)
			}
		})
	}
}

// randomPlayout plays the game of seed with random legal actions, checking
// that someone is always awaited with a legal action, that every legal
// action applies, that no card appears or vanishes, and that it ends.
func randomPlayout(t *testing.T, seed uint64) {
	players := 2 + int(seed%3)
	s := newTestGame(t, seed, players, []Mode{ModeStandard, ModeFast}[seed%2], seed%5 == 0, []Policy{Holders, Conceal}[seed/2%2])
	total := len(s.Cards())
	r := rand.New(rand.NewPCG(seed, 7))
	for step := 0; !s.Over(); step++ {
		if step > 5000 {
			t.Fatalf("seed %d: game did not finish (turn %d)", seed, s.Turn)
		}
		aw := Awaiting(s)
		if len(aw) == 0 {
			t.Fatalf("seed %d: nobody awaited, phase %s stack %d", seed, s.Phase, len(s.Stack))
		}
		seat := aw[r.IntN(len(aw))]
		legal := Legal(s, seat)
		if len(legal) == 0 {
			t.Fatalf("seed %d: seat %d awaited with no legal action", seed, seat)
		}
		a := filled(s, legal[r.IntN(len(legal))], r)
		if s.Turn > 60 && seat == s.Active && len(s.Prompts) == 0 {
			a = Action{Type: ActEndTurn}
		}
		if _, err := Apply(s, seat, a); err != nil {
			t.Fatalf("seed %d: legal action %v rejected: %v", seed, a, err)
		}
		if n := len(s.Cards()); n != total {
			t.Fatalf("seed %d: %d cards, want %d after %v", seed, n, total, a)
		}
		if s.Turn > 400 {
			break
		}
	}
}

// TestReuseMatches plays games with one Viewer for every seat and a
// spectator, one slice of legal actions and one slice of events, each
// holding something already, and checks that they give what State.View,
// Legal and Apply give, and that ApplyQuiet leaves the state Apply leaves.
func TestReuseMatches(t *testing.T) {
	var vb Viewer
	legal := []Action{{Type: ActEndTurn}}
	events := []Event{{Kind: "earlier"}}
	for seed := range uint64(20) {
		players := 2 + int(seed%3)
		s := newTestGame(t, seed, players, []Mode{ModeStandard, ModeFast}[seed%2], seed%5 == 0, []Policy{Holders, Conceal}[seed/2%2])
		r := rand.New(rand.NewPCG(seed, 9))
		for step := 0; !s.Over() && step < 300; step++ {
			for seat := Spectator; seat < players; seat++ {
				if got, want := vb.View(s, seat), s.View(seat); !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d step %d seat %d: Viewer built\n%+v\nState.View gives\n%+v", seed, step, seat, got, want)
				}
				if got, want := AppendLegal(legal[:1], s, seat)[1:], Legal(s, seat); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
					t.Fatalf("seed %d step %d seat %d: AppendLegal lists %v, Legal %v", seed, step, seat, got, want)
				}
			}
			seat := Awaiting(s)[0]
			want := Legal(s, seat)
			a := filled(s, want[r.IntN(len(want))], r)
			wantEvents, err := Apply(s.Clone(), seat, a)
			if err != nil {
				t.Fatal(err)
			}
			quiet := s.Clone()
			if err := ApplyQuiet(quiet, seat, a); err != nil {
				t.Fatal(err)
			}
			if events, err = AppendApply(events[:1], s, seat, a); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(events[1:], wantEvents) {
				t.Fatalf("seed %d step %d: AppendApply emits %v, Apply %v", seed, step, events[1:], wantEvents)
			}
			if quiet.Hash() != s.Hash() {
				t.Fatalf("seed %d step %d: ApplyQuiet of %v leaves another state than Apply", seed, step, a)
			}
		}
	}
	s := newTestGame(t, 1, 2, ModeStandard, false, Holders)
	if got, err := AppendApply(events[:1], s, 0, Action{Type: "bogus"}); err == nil || len(got) != 1 {
		t.Errorf("an illegal action: AppendApply returns %d events and error %v", len(got), err)
	}
	if err := ApplyQuiet(s, 0, Action{Type: "bogus"}); err == nil {
		t.Error("an illegal action: ApplyQuiet returns no error")
	}
}

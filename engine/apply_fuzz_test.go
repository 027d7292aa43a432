package engine_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
)

// fuzzReader hands out the fuzz input a byte at a time; past the end it
// gives zeros.
type fuzzReader struct {
	data []byte
	i    int
}

func (r *fuzzReader) byte() byte {
	if r.i >= len(r.data) {
		return 0
	}
	r.i++
	return r.data[r.i-1]
}

func (r *fuzzReader) intn(n int) int {
	if n <= 0 {
		return 0
	}
	return int(r.byte()) % n
}

func (r *fuzzReader) more() bool { return r.i < len(r.data) }

// fuzzState builds a game from the first bytes: setup, then a number of
// bot actions to reach a position somewhere in the game.
func fuzzState(t *testing.T, r *fuzzReader) *engine.State {
	a, b := propDecks(t)
	players := 2 + r.intn(3)
	setup := engine.Setup{
		Seed:   uint64(r.byte()) | uint64(r.byte())<<8,
		Mode:   []engine.Mode{engine.ModeStandard, engine.ModeFast}[r.intn(2)],
		Office: r.intn(2) == 1,
		Policy: []engine.Policy{engine.Holders, engine.Conceal}[r.intn(2)],
	}
	for i := range players {
		d := a
		if i%2 == 1 {
			d = b
		}
		setup.Players = append(setup.Players, engine.SeatSetup{Name: "P" + strconv.Itoa(i), Deck: d})
	}
	if setup.Office {
		setup.OfficeDeck = propOfficeDeck(a, b)
	}
	s, _, err := engine.NewGame(setup)
	if err != nil {
		t.Fatal(err)
	}
	steps := int(r.byte()) * 2
	rng := rand.New(rand.NewPCG(setup.Seed, 1))
	var bots []bot.Bot
	for range players {
		if r.intn(2) == 0 {
			bots = append(bots, bot.NewGreedy(rng))
		} else {
			bots = append(bots, bot.NewRandom(rng))
		}
	}
	for range steps {
		if s.Over() {
			break
		}
		seat := engine.Awaiting(s)[0]
		if _, err := engine.Apply(s, seat, bots[seat].Choose(s.View(seat), engine.Legal(s, seat))); err != nil {
			t.Fatalf("bot action rejected: %v", err)
		}
	}
	return s
}

// fuzzIDs lists strings an action could name: every instance id, prompt
// id and option id in the game, and some that name nothing.
func fuzzIDs(s *engine.State) []string {
	ids := []string{"", "x", "p0", "p1", "p999", engine.Pass, "0", "1", "2", "-1", "scrum-planning"}
	for _, c := range s.Cards() {
		ids = append(ids, c.ID)
	}
	for _, p := range s.Prompts {
		ids = append(ids, p.ID)
		for _, o := range p.Options {
			ids = append(ids, o.ID)
		}
	}
	return ids
}

var fuzzTypes = []engine.ActionType{engine.ActPlace, engine.ActPlayTool, engine.ActPlayHack, engine.ActClaim,
	engine.ActAbandon, engine.ActActivate, engine.ActEndTurn, engine.ActAnswer, engine.ActStanding,
	engine.ActVoteEnd, engine.ActResign, engine.ActTimeout, "", "fly"}

// fuzzAction decodes one action and the seat submitting it.
func fuzzAction(r *fuzzReader, s *engine.State) (int, engine.Action) {
	ids := fuzzIDs(s)
	pick := func() string { return ids[r.intn(len(ids))] }
	many := func() []string {
		n := r.intn(5)
		if n == 4 {
			return nil
		}
		out := make([]string, n)
		for i := range out {
			out[i] = pick()
		}
		return out
	}
	seat := r.intn(len(s.Players)+3) - 2 // -2 .. players
	if r.intn(4) > 0 {
		if aw := engine.Awaiting(s); len(aw) > 0 {
			seat = aw[r.intn(len(aw))]
		}
	}
	a := engine.Action{Type: fuzzTypes[r.intn(len(fuzzTypes))]}
	switch a.Type {
	case engine.ActAnswer:
		a.Prompt = pick()
		a.Choices = many()
	case engine.ActClaim:
		a.Challenges = many()
	case engine.ActStanding:
		if r.intn(4) > 0 {
			a.Standing = &engine.Standing{Pass: r.intn(2) == 0}
			for range r.intn(3) {
				a.Standing.Plays = append(a.Standing.Plays, engine.StandingPlay{
					On:   []engine.EventKind{engine.EvDraw, engine.EvPlace, engine.EvPlayTool, engine.EvPlayHack, engine.EvClaim, "nap"}[r.intn(6)],
					Card: []string{"merge-conflict", "hiring-freeze", "scope-creep", "red-tape", "scrum-planning", "nothing"}[r.intn(6)]})
			}
		}
	default:
		a.Card = pick()
	}
	if r.intn(8) == 0 {
		// Fields that the action type does not use.
		a.Prompt, a.Challenges = pick(), many()
	}
	return seat, a
}

// sameSet reports whether two claims name the same challenges.
func sameSet(x, y []string) bool {
	if len(x) != len(y) {
		return false
	}
	x, y = slices.Clone(x), slices.Clone(y)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// listed reports whether Legal offered action a, comparing the fields its
// type uses (claims in any order).
func listed(legal []engine.Action, a engine.Action) bool {
	return slices.ContainsFunc(legal, func(l engine.Action) bool {
		if l.Type != a.Type {
			return false
		}
		switch a.Type {
		case engine.ActPlace, engine.ActPlayTool, engine.ActPlayHack, engine.ActActivate:
			return l.Card == a.Card
		case engine.ActClaim:
			return sameSet(l.Challenges, a.Challenges)
		case engine.ActAnswer:
			return l.Prompt == a.Prompt && slices.Equal(l.Choices, a.Choices)
		}
		return true
	})
}

// FuzzApply feeds arbitrary actions to Apply in positions reached by bot
// play: Apply must return an error or succeed, never panic; on error the
// state is unchanged; on success every card is still in exactly one place,
// and a turn action that succeeded was listed by Legal.
func FuzzApply(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 0, 10, 0, 3, 0, 7})
	f.Add([]byte{1, 2, 0, 1, 1, 1, 40, 1, 0, 1, 5, 9, 2, 8})
	f.Add([]byte{2, 3, 1, 0, 1, 0, 90, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{2, 9, 9, 1, 0, 1, 200, 1, 7, 7, 7, 3, 3, 1, 1})
	f.Add([]byte{0, 5, 5, 0, 0, 0, 0, 0, 2, 3, 11, 0, 3, 2, 1, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{data: data}
		s := fuzzState(t, r)
		total := len(s.Cards())
		for k := 0; k < 4 && (k == 0 || r.more()); k++ {
			seat, a := fuzzAction(r, s)
			before := s.Hash()
			var legal []engine.Action
			if seat >= 0 && seat < len(s.Players) {
				legal = engine.Legal(s, seat)
			}
			_, err := engine.Apply(s, seat, a)
			if err != nil {
				if s.Hash() != before {
					t.Fatalf("rejected %v by seat %d changed the state: %v", a, seat, err)
				}
				if listed(legal, a) && a.Type != engine.ActAnswer {
					t.Fatalf("Legal listed %v for seat %d but Apply rejects it: %v", a, seat, err)
				}
				continue
			}
			switch a.Type {
			case engine.ActPlace, engine.ActPlayTool, engine.ActPlayHack, engine.ActClaim, engine.ActAbandon, engine.ActActivate, engine.ActEndTurn:
				if !listed(legal, a) {
					t.Fatalf("Apply accepted %v by seat %d, which Legal did not list", a, seat)
				}
			}
			cards := s.Cards()
			if len(cards) != total {
				t.Fatalf("after %v: %d cards, want %d", a, len(cards), total)
			}
			seen := map[string]bool{}
			for _, c := range cards {
				if seen[c.ID] {
					t.Fatalf("after %v: instance %s in two places", a, c.ID)
				}
				seen[c.ID] = true
			}
		}
	})
}

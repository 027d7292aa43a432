package play_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/play"
)

// The attacks here read what the command language (Resolve, which turns
// the words of an email reply or an API batch into moves) tells a seat
// when it refuses a plan: the step, the reason, and the moves of that
// step in words. Resolve plays the plan forward on a copy of the game,
// through draws and looks the seat has not seen, so its answer must not
// depend on those cards: "what a plan is refused for tells nothing
// hidden" (Resolve's documentation), and no hidden card can be computed
// from what a seat sees (docs/security.md).

// atkResolved is what Resolve tells the seat: the plan in words, or the
// refusal with the moves it lists.
func atkResolved(t *testing.T, st *engine.State, seat int, text string) string {
	t.Helper()
	rd, err := play.ReadCommands(text)
	if err != nil {
		return "unread: " + err.Error()
	}
	plan, err := play.Resolve(st, seat, engine.Numbered(engine.Moves(st, seat)), rd)
	var out any = plan
	if err != nil {
		var ce *play.CommandError
		if !errors.As(err, &ce) {
			return "error: " + err.Error()
		}
		out = ce
	}
	data, jerr := json.Marshal(out)
	if jerr != nil {
		t.Fatal(jerr)
	}
	return string(data)
}

// TestAttackHiddenResolveTopCard: Ana writes a reply that draws a card
// (Growth Hacking Script) and then names a move that is not there. Two
// games that Ana cannot tell apart (same hand, Lab, Market, counts, ids)
// differ only in the top card of her Laboratory Deck, which she has not
// seen: Data Lake, a Tool she could play at once; Doodle (Senior), which
// needs a Doodle in her Lab; or a second Rapid Prototype, a copy of a Tool
// in her hand. The refusal must read the same in all three, or Ana learns
// something of her deck's order from it, nothing applied and nothing
// drawn, and can then decide whether to draw.
func TestAttackHiddenResolveTopCard(t *testing.T) {
	t.Parallel()
	position := func(top string) *engine.State {
		res, err := engine.RunScenario([]byte(`
players:
  - name: Ana
    hand: [growth-hacking-script, rapid-prototype]
    lab: [glitchy-junior]
    deck: [` + top + `, proof-of-concept]
    deck_list: [growth-hacking-script, rapid-prototype, glitchy-junior, data-lake, doodle-senior, proof-of-concept]
  - {name: Ben}
market: [landing-page]
challenge_deck: [spam-filter]
`))
		if err != nil || res.Failed() {
			t.Fatalf("position: %v %v", err, res)
		}
		return res.State
	}
	tops := []string{"data-lake", "doodle-senior", "rapid-prototype"}
	var seen []string
	for _, top := range tops {
		st := position(top)
		v, _ := json.Marshal(st.View(0))
		seen = append(seen, string(v))
	}
	if seen[0] != seen[1] || seen[0] != seen[2] {
		t.Fatalf("the three games are not alike to Ana")
	}
	for _, text := range []string{"play growth hacking\nplay data lake", "play growth hacking\nplay rapid\nplay zzz"} {
		var told []string
		for _, top := range tops {
			told = append(told, atkResolved(t, position(top), 0, text))
		}
		for i := 1; i < len(told); i++ {
			if told[i] != told[0] {
				t.Errorf("%q: Resolve tells Ana whether the top card of her deck is %s or %s:\n  %s\n  %s",
					text, tops[0], tops[i], told[0], told[i])
			}
		}
	}
}

// atkPlayDecks are the two prebuilt packs.
func atkPlayDecks(t *testing.T) []engine.Deck {
	t.Helper()
	var out []engine.Deck
	for _, id := range []string{"running-a-startup", "working-for-the-enterprise"} {
		d, ok := engine.Standard().Deck(id)
		if !ok {
			t.Fatalf("no deck %s", id)
		}
		out = append(out, d)
	}
	return out
}

// atkDealHidden returns a copy of st in which the cards seat has not seen
// are dealt differently: its own Laboratory Deck, and the decks, Recycle
// Bins and hands of the others (a hand with an open prompt keeps its
// cards, which the prompt names). Under the holders policy, where a
// window tells that its seat holds an interrupt, interrupt Hacks keep
// their places.
func atkDealHidden(st *engine.State, seat int, r *rand.Rand) *engine.State {
	c := st.Clone()
	var at []*engine.Inst
	add := func(pile []engine.Inst) {
		for i := range pile {
			if k := engine.Standard().Card(pile[i].Card); c.Policy == engine.Holders && k.Has(engine.KwInterrupt) {
				continue
			}
			at = append(at, &pile[i])
		}
	}
	deal := func() {
		cards := make([]string, len(at))
		for i, in := range at {
			cards[i] = in.Card
		}
		r.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
		for i, in := range at {
			in.Card = cards[i]
		}
		at = at[:0]
	}
	add(c.Players[seat].Deck)
	deal()
	for o := range c.Players {
		if o == seat {
			continue
		}
		add(c.Players[o].Deck)
		add(c.Players[o].Bin)
		if len(engine.PromptsFor(st, o)) == 0 {
			add(c.Players[o].Hand)
		}
		deal()
	}
	return c
}

// atkReplies writes replies for seat at st: the first words of moves
// listed now, names of cards of the whole set after a verb (cards the
// seat may hold, may draw, or that no one has), and "end".
func atkReplies(st *engine.State, seat int, r *rand.Rand) []string {
	var words []string
	for _, l := range engine.Numbered(engine.Moves(st, seat)) {
		w := strings.Fields(strings.ToLower(strings.NewReplacer(",", " ", "(", " ", ")", " ", ":", " ").Replace(l.Text)))
		words = append(words, strings.Join(w[:min(len(w), 3)], " "))
	}
	cards := engine.Standard().Cards()
	name := func() string {
		c := cards[r.IntN(len(cards))]
		return strings.ToLower(c.Name)
	}
	verbs := []string{"play", "place", "take", "discard", "activate", "claim"}
	var out []string
	for range 4 {
		var cmds []string
		for range 1 + r.IntN(4) {
			switch k := r.IntN(5); {
			case k < 2 && len(words) > 0:
				cmds = append(cmds, words[r.IntN(len(words))])
			case k < 4:
				cmds = append(cmds, verbs[r.IntN(len(verbs))]+" "+name())
			default:
				cmds = append(cmds, "end")
			}
		}
		out = append(out, strings.Join(cmds, "\n"))
	}
	return out
}

// TestAttackHiddenResolveNonInterference: at positions of seeded bot
// games, replies written for the awaited seat (moves it may make now,
// then plays, places, takes and discards of any card of the set, and
// "end") are resolved in the game and in a copy where the cards the seat
// has not seen are dealt differently (its own deck's order, the others'
// decks, Recycle Bins and hands). The plan or the refusal, with its step,
// reason and listed moves, must be the same in both.
func TestAttackHiddenResolveNonInterference(t *testing.T) {
	t.Parallel()
	games, every := 8, 4
	if testing.Short() {
		games, every = 3, 6
	}
	decks := atkPlayDecks(t)
	r := rand.New(rand.NewPCG(3, 5))
	compared := 0
	for g := range games {
		players := 2 + g%3
		setup := engine.Setup{Seed: uint64(900 + g), Mode: engine.ModeFast, Policy: []engine.Policy{engine.Conceal, engine.Holders}[g%2]}
		for i := range players {
			setup.Players = append(setup.Players, engine.SeatSetup{Name: fmt.Sprintf("P%d", i), Deck: decks[i%2]})
		}
		st, _, err := engine.NewGame(setup)
		if err != nil {
			t.Fatal(err)
		}
		bots := make([]bot.Bot, players)
		for i := range bots {
			bots[i] = bot.NewRandom(rand.New(rand.NewPCG(uint64(g), uint64(i))))
		}
		for step := 0; !st.Over() && st.Turn <= 60; step++ {
			aw := engine.Awaiting(st)
			seat := aw[0]
			if step%every == 0 && !slices.ContainsFunc(st.Players, func(p engine.Player) bool { return len(p.Standing.Plays) > 0 }) {
				for _, text := range atkReplies(st, seat, r) {
					other := atkDealHidden(st, seat, r)
					x, y := atkResolved(t, st, seat, text), atkResolved(t, other, seat, text)
					if x != y {
						t.Fatalf("game %d step %d, seat %d writes %q: Resolve's answer depends on cards the seat has not seen:\n  game:       %s\n  redealt:    %s",
							g, step, seat, text, x, y)
					}
					compared++
				}
			}
			if _, err := engine.Apply(st, seat, bots[seat].Choose(st.View(seat), engine.Legal(st, seat))); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d replies resolved in both deals", compared)
}

package engine_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
)

// playPositions plays seeded bot games in every setup mode (2 to 4 players,
// standard and fast, office or not, holders or conceal; random and greedy
// bots) and calls f with each position before its next action.
func playPositions(t *testing.T, games int, f func(s *engine.State)) {
	t.Helper()
	a, b := propDecks(t)
	for g := range games {
		seed := uint64(1000 + g)
		players := 2 + g%3
		setup := engine.Setup{Seed: seed, Mode: []engine.Mode{engine.ModeStandard, engine.ModeFast}[g/3%2],
			Office: g%5 == 4, Policy: []engine.Policy{engine.Holders, engine.Conceal}[g/2%2]}
		for i := range players {
			setup.Players = append(setup.Players, engine.SeatSetup{Name: "Seat " + string(rune('A'+i)), Deck: []engine.Deck{a, b}[i%2]})
		}
		if setup.Office {
			setup.OfficeDeck = propOfficeDeck(a, b)
		}
		s, _, err := engine.NewGame(setup)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 5))
		bots := make([]bot.Bot, players)
		for i := range bots {
			if (g+i)%2 == 0 {
				bots[i] = bot.NewRandom(r)
			} else {
				bots[i] = bot.NewGreedy(r)
			}
		}
		for step := 0; !s.Over() && s.Turn <= 200; step++ {
			f(s)
			aw := engine.Awaiting(s)
			seat := aw[r.IntN(len(aw))]
			if _, err := engine.Apply(s, seat, bots[seat].Choose(s.View(seat), engine.Legal(s, seat))); err != nil {
				t.Fatalf("game %d step %d: %v", g, step, err)
			}
		}
	}
}

// Positions set up to reach the largest prompts the starter set can make.
var largePrompts = []string{
	// Recover 2 of 29: a 30-card deck's every other card in the Recycle
	// Bin, Boss Blob's ability paid with the last card in hand.
	`
players:
  - name: Ana
    lab: [boss-blob-senior]
    hand: [data-lake]
    bin: [open-source-library, open-source-library, open-source-library, open-source-library, frontend-framework,
      frontend-framework, rapid-prototype, rapid-prototype, serverless-functions, serverless-functions,
      growth-hacking-script, full-stack-app, rust-rewrite, analytics-sdk, cloud-credits, hackathon-trophy,
      mechanical-keyboard, scrum-planning, scrum-planning, merge-conflict, hiring-freeze, cloud-outage,
      glitchy-junior, glitchy-junior, glitchy-senior, glitchy-chief, doodle-junior, doodle-senior]
  - {name: Ben}
market: [landing-page]
steps:
  - {do: activate, card: boss-blob-senior, expect: {seats: {0: {prompts: [{kind: recover, min: 2, max: 2}]}}}}
`,
	// Discard 23 of 29 to the hand limit.
	`
phase: draw
players:
  - name: Ana
    hand: [open-source-library, open-source-library, open-source-library, open-source-library, frontend-framework,
      frontend-framework, rapid-prototype, rapid-prototype, serverless-functions, serverless-functions,
      growth-hacking-script, full-stack-app, rust-rewrite, analytics-sdk, cloud-credits, hackathon-trophy,
      mechanical-keyboard, scrum-planning, scrum-planning, merge-conflict, hiring-freeze, cloud-outage,
      glitchy-junior, glitchy-junior, glitchy-senior, glitchy-chief, doodle-junior]
    deck: [doodle-senior, boss-blob-senior]
  - {name: Ben}
market: [landing-page]
expect: {seats: {0: {prompts: [{kind: discard, min: 23, max: 23}]}}}
`,
	// Put up to 2 of a 4-player Market of 5 away (none is an answer too).
	`
players:
  - {name: Ana, lab: [kanbo-senior]}
  - {name: Ben}
  - {name: Cy}
  - {name: Di}
market: [landing-page, spam-filter, social-network, delivery-robots, todo-app]
challenge_deck: [landing-page]
steps:
  - {do: activate, card: kanbo-senior, expect: {seats: {0: {prompts: [{kind: refresh, min: 0, max: 2}]}}}}
`,
	// An interrupt window: two Merge Conflicts to play, or pass.
	`
players:
  - {name: Ana, hand: [rapid-prototype]}
  - {name: Ben, hand: [merge-conflict, merge-conflict, red-tape]}
market: [landing-page]
steps:
  - {do: play_tool, card: rapid-prototype, expect: {seats: {1: {prompts: [{kind: interrupt, min: 1, max: 1}]}}}}
`,
}

// TestPromptDescriptionsAgreeWithApply checks, at thousands of positions
// with an open prompt reached by bot games and at the largest prompts the
// starter set can make, that what Moves lists for the prompt (one entry,
// its Min, Max and Options) admits exactly the answers Apply accepts:
// selections of every size from none to one past the most, in and out of
// [Min, Max], with a repeated option or an unknown one. A refused answer
// names the prompt, and the option at fault.
func TestPromptDescriptionsAgreeWithApply(t *testing.T) {
	games := 60
	if testing.Short() {
		games = 16
	}
	r := rand.New(rand.NewPCG(7, 7))
	positions, answers := 0, 0
	check := func(s *engine.State) {
		for _, p := range s.Prompts {
			positions++
			answers += checkPromptAgrees(t, s, p.Seat, p.ID, r)
		}
	}
	playPositions(t, games, check)
	largest := 0
	for _, doc := range largePrompts {
		res, err := engine.RunScenario([]byte("cards: []\n" + doc))
		if err != nil || res.Failed() {
			t.Fatalf("set-up: %v %v", err, res.Failures)
		}
		for _, p := range res.State.Prompts {
			largest = max(largest, len(p.Options))
		}
		for range 20 {
			check(res.State)
		}
	}
	if largest < 29 {
		t.Fatalf("the largest prompt set up has %d options, want 29", largest)
	}
	if !testing.Short() && positions < 2000 {
		t.Fatalf("only %d positions with a prompt", positions)
	}
	t.Logf("%d prompts checked with %d answers; the largest has %d options", positions, answers, largest)
}

// checkPromptAgrees checks one open prompt of seat (see
// TestPromptDescriptionsAgreeWithApply) and returns how many answers it tried.
func checkPromptAgrees(t *testing.T, s *engine.State, seat int, id string, r *rand.Rand) int {
	t.Helper()
	var desc *engine.Move
	moves := engine.Moves(s, seat)
	for i := range moves {
		m := &moves[i]
		if m.Type != engine.ActAnswer || m.Prompt != id {
			continue
		}
		if desc != nil {
			t.Fatalf("prompt %s is listed twice", id)
		}
		if m.Choices != nil {
			t.Fatalf("prompt %s is listed with the choices %v", id, m.Choices)
		}
		desc = m
	}
	if desc == nil {
		t.Fatalf("seat %d's prompt %s is not listed: %v", seat, id, moves)
	}
	n := len(desc.Options)
	ids := make([]string, n)
	for i, o := range desc.Options {
		ids[i] = o.ID
		if o.Text == "" {
			t.Fatalf("prompt %s: option %s has no text", id, o.ID)
		}
	}
	subset := func(k int) []string {
		out := []string{}
		for _, i := range r.Perm(n)[:min(k, n)] {
			out = append(out, ids[i])
		}
		return out
	}
	var tries [][]string
	for _, k := range []int{0, desc.Min - 1, desc.Min, (desc.Min + desc.Max) / 2, desc.Max, desc.Max + 1, n, r.IntN(n + 2)} {
		if k >= 0 && k <= n {
			tries = append(tries, subset(k))
		}
	}
	if n > 0 {
		ok := subset(max(desc.Max, 1))
		tries = append(tries,
			append(slices.Clone(ok[:len(ok)-1]), ok[0]), // an option twice
			append(slices.Clone(ok[:len(ok)-1]), "no-such-option"),
			nil, // no choices at all, as listed
		)
	}
	before := s.Hash()
	for _, pick := range tries {
		c := s.Clone()
		_, err := engine.Apply(c, seat, engine.Action{Type: engine.ActAnswer, Prompt: id, Choices: pick})
		want := admits(desc, pick)
		if want != (err == nil) {
			t.Fatalf("prompt %s (%s, %d to %d of %d options): %v: described as admitted %v, Apply says %v", id, desc.Text, desc.Min, desc.Max, n, pick, want, err)
		}
		if err == nil {
			continue
		}
		if !strings.Contains(err.Error(), id) {
			t.Fatalf("the refusal of %v does not name prompt %s: %v", pick, id, err)
		}
		for k, ch := range pick {
			if bad := !slices.Contains(ids, ch) || slices.Contains(pick[:k], ch); bad && len(pick) >= desc.Min && len(pick) <= desc.Max && !strings.Contains(err.Error(), ch) {
				t.Fatalf("the refusal of %v does not name option %s: %v", pick, ch, err)
			}
		}
	}
	if s.Hash() != before {
		t.Fatal("checking answers changed the state")
	}
	return len(tries)
}

// admits says whether a listed prompt admits pick, as a client reads the
// description: Min to Max distinct ids of its options.
func admits(m *engine.Move, pick []string) bool {
	if len(pick) < m.Min || len(pick) > m.Max {
		return false
	}
	for k, ch := range pick {
		if slices.Contains(pick[:k], ch) || !slices.ContainsFunc(m.Options, func(o engine.Option) bool { return o.ID == ch }) {
			return false
		}
	}
	return true
}

// TestTextsHideHiddenCards reads every text of every legal action and
// prompt option of every seat, at every position of seeded games, and fails
// if one names a card hidden from that seat (in another seat's hand or
// Recycle Bin, in any deck, or a sealed interrupt answer, which is still in
// its player's hand) and shown to it nowhere, or holds a hidden instance id.
func TestTextsHideHiddenCards(t *testing.T) {
	games := 40
	if testing.Short() {
		games = 12
	}
	texts := 0
	playPositions(t, games, func(s *engine.State) {
		for seat := range s.Players {
			hidden, shown := cardNames(s, seat)
			ids := hiddenFrom(s, seat)
			for _, m := range engine.Moves(s, seat) {
				all := []string{m.Text}
				for _, o := range m.Options {
					all = append(all, o.Text)
				}
				for _, text := range all {
					texts++
					if name, ok := names(text, hidden, shown); ok {
						t.Fatalf("seat %d is told %q, which names %s, a card hidden from it", seat, text, name)
					}
					for _, id := range ids {
						if strings.Contains(text, id) {
							t.Fatalf("seat %d is told %q, which holds the hidden instance %s", seat, text, id)
						}
					}
				}
			}
		}
	})
	if !testing.Short() && texts < 10000 {
		t.Fatalf("only %d texts read", texts)
	}
	t.Logf("%d texts read", texts)
}

// cardNames returns the names of the cards hidden from seat and of those
// shown to it (a name may be both: two copies of a card).
func cardNames(s *engine.State, seat int) (hidden, shown map[string]bool) {
	hidden, shown = map[string]bool{}, map[string]bool{}
	cat := engine.Standard()
	add := func(to map[string]bool, pile []engine.Inst) {
		for _, in := range pile {
			to[cat.Card(in.Card).Name] = true
		}
	}
	for i := range s.Players {
		p := &s.Players[i]
		add(hidden, p.Deck)
		add(shown, p.Lab)
		add(shown, p.Ranking)
		if i == seat {
			add(shown, p.Hand)
			add(shown, p.Bin)
		} else {
			add(hidden, p.Hand)
			add(hidden, p.Bin)
		}
	}
	add(hidden, s.SharedDeck)
	add(hidden, s.SharedBin)
	add(hidden, s.ChallengeDeck)
	add(shown, s.Market)
	for _, g := range s.Global {
		add(shown, []engine.Inst{g.Inst})
	}
	if s.Build != nil {
		add(shown, s.Build.Tools)
	}
	for _, t := range s.Stack {
		if t.Seat == seat {
			add(shown, t.Held) // the cards the seat looks at
		} else {
			add(hidden, t.Held)
		}
		if t.Ev != nil && t.Ev.Card != nil {
			add(shown, []engine.Inst{*t.Ev.Card}) // a proposed card is named to all
		}
	}
	for n := range shown {
		delete(hidden, n)
	}
	return hidden, shown
}

// names reports a name of hidden that text holds once the names of shown
// are taken out of it (so that a shown name that contains a hidden one is
// not taken for it).
func names(text string, hidden, shown map[string]bool) (string, bool) {
	var long []string
	for n := range shown {
		long = append(long, n)
	}
	slices.SortFunc(long, func(a, b string) int { return len(b) - len(a) })
	for _, n := range long {
		text = strings.ReplaceAll(text, n, "\x00")
	}
	for n := range hidden {
		if strings.Contains(text, n) {
			return n, true
		}
	}
	return "", false
}

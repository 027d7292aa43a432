package engine_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
)

// The tests of this file attack the game's randomness as a player would:
// from the instance ids a seat sees. Before secrets, ids were outputs of
// the PCG stream that shuffled, seeded by the 64-bit game seed and the
// public version, and three Market ids gave the seed (crack).

const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// idValue is the 50-bit number an instance id spells (5 bits a character,
// the first character lowest), and false for a string that is not an id.
func idValue(id string) (uint64, bool) {
	if len(id) != 10 {
		return 0, false
	}
	var v uint64
	for i := len(id) - 1; i >= 0; i-- {
		k := strings.IndexByte(idAlphabet, id[i])
		if k < 0 {
			return 0, false
		}
		v = v<<5 | uint64(k)
	}
	return v, true
}

// idsSeen lists every instance id in a view and in events: cards in every
// zone shown (an interrupt window's too), prompt options that are cards,
// and the ids events name.
func idsSeen(v *engine.View, events []engine.Event) []string {
	var out []string
	cards := func(cs []engine.CardView) {
		for _, c := range cs {
			out = append(out, c.ID)
		}
	}
	cards(v.Market)
	cards(v.Hand)
	cards(v.Bin)
	for _, p := range v.Players {
		cards(p.Lab)
		cards(p.Ranking)
	}
	for _, g := range v.Global {
		out = append(out, g.ID)
	}
	if v.Build != nil {
		cards(v.Build.Tools)
	}
	if v.Window != nil {
		if v.Window.Card != nil {
			out = append(out, v.Window.Card.ID)
		}
		cards(v.Window.Challenges)
	}
	for _, p := range v.Prompts {
		for _, o := range p.Options {
			if o.Card != "" {
				out = append(out, o.ID)
			}
		}
	}
	for _, e := range events {
		if e.Inst != "" {
			out = append(out, e.Inst)
		}
		out = append(out, e.Insts...)
	}
	return out
}

// sightings are the ids a seat saw, by the version of the action that
// showed each one first (0 for the setup), in the order seen.
type sightings map[int][]uint64

// watcher records what one seat sees.
type watcher struct {
	seat   int
	known  map[uint64]bool
	byVers sightings
}

func newWatcher(seat int) *watcher {
	return &watcher{seat: seat, known: map[uint64]bool{}, byVers: sightings{}}
}

// see records the ids of seat's view of s and of events that are new, as
// shown by the action at version.
func (w *watcher) see(s *engine.State, events []engine.Event, version int) {
	for _, id := range idsSeen(s.View(w.seat), engine.EventsFor(events, w.seat)) {
		v, ok := idValue(id)
		if ok && !w.known[v] {
			w.known[v] = true
			w.byVers[version] = append(w.byVers[version], v)
		}
	}
}

// playWatched plays s to its end with greedy bots seeded by seed, calling
// see after every action with the events and the version it was applied
// at, and returns the number of actions.
func playWatched(t *testing.T, s *engine.State, seed uint64, see func(events []engine.Event, version int)) int {
	t.Helper()
	bots := make([]bot.Bot, len(s.Players))
	for i := range bots {
		bots[i] = bot.NewGreedy(rand.New(rand.NewPCG(seed, uint64(i))))
	}
	n := 0
	for ; !s.Over(); n++ {
		if n == 3000 {
			t.Fatal("the game did not end in 3000 actions")
		}
		seat := engine.Awaiting(s)[0]
		version := s.Version
		events, err := engine.Apply(s, seat, bots[seat].Choose(s.View(seat), engine.Legal(s, seat)))
		if err != nil {
			t.Fatal(err)
		}
		see(events, version)
	}
	return n
}

func twoSeats(t *testing.T) engine.Setup {
	a, b := propDecks(t)
	return engine.Setup{Players: []engine.SeatSetup{{Name: "Ana", Deck: a}, {Name: "Ben", Deck: b}}}
}

// The legacy PCG of math/rand/v2: a 128-bit LCG state (hi, lo) seeded with
// (game seed, version*0x9e3779b97f4a7c15+1), and the DXSM output.
const (
	pcgMulHi = 2549297995355413924
	pcgMulLo = 4865540595714422341
	pcgIncHi = 6364136223846793005
	pcgIncLo = 1442695040888963407
	dxsmMul  = 0xda942042e4dd58b5
	idBits   = 50
	idMask   = 1<<idBits - 1
)

// inverse is the inverse of the odd number x modulo 2^64.
func inverse(x uint64) uint64 {
	y := x
	for range 6 {
		y *= 2 - x*y
	}
	return y
}

func dxsm(hi, lo uint64) uint64 {
	hi ^= hi >> 32
	hi *= dxsmMul
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// legacyStream is the public part of the PCG stream of one version: the
// low state halves lo[j] after j steps (they do not depend on the seed),
// and c[j] and b[j] with hi[j] = hi[j-1]*mulLo + c[j] = mulLo^j*seed + b[j].
type legacyStream struct{ lo, c, b, a []uint64 }

func newLegacyStream(version, n int) legacyStream {
	s := legacyStream{lo: make([]uint64, n+1), c: make([]uint64, n+1), b: make([]uint64, n+1), a: make([]uint64, n+1)}
	s.lo[0], s.a[0] = uint64(version)*0x9e3779b97f4a7c15+1, 1
	for j := 1; j <= n; j++ {
		h, l := bits.Mul64(s.lo[j-1], pcgMulLo)
		l, carry := bits.Add64(l, pcgIncLo, 0)
		s.lo[j], s.c[j] = l, h+s.lo[j-1]*pcgMulHi+pcgIncHi+carry
		s.b[j] = s.b[j-1]*pcgMulLo + s.c[j]
		s.a[j] = s.a[j-1] * pcgMulLo
	}
	return s
}

// crack is the old attack's search: it looks for a 64-bit seed that
// explains the ids seen at one version. Each id, taken as the output at
// each stream position 1..maxPos with each of the 2^14 values of the 14
// bits an id does not show, gives one candidate generator state; the
// candidate stands when one of the next span outputs shows another id seen
// at that version. It returns the seeds of the candidates that stood.
func crack(version int, ids []uint64, maxPos, span int) []uint64 {
	if len(ids) < 2 {
		return nil
	}
	st := newLegacyStream(version, maxPos+span)
	var filter [1 << 10]uint64 // a bit per value of the ids' low 16 bits
	for _, v := range ids {
		filter[v&0xffff>>6] |= 1 << (v & 63)
	}
	invCheap := inverse(dxsmMul)
	var found []uint64
	for _, anchor := range ids {
		for j := 1; j <= maxPos; j++ {
			invLo := inverse(st.lo[j] | 1)
			for top := range uint64(1) << (64 - idBits) {
				x := (top<<idBits | anchor) * invLo
				x ^= x >> 48
				x *= invCheap
				hi := x ^ x>>32 // the state's high half at position j
				h := hi
				for k := j + 1; k <= j+span; k++ {
					h = h*pcgMulLo + st.c[k]
					out := dxsm(h, st.lo[k]) & idMask
					if filter[out&0xffff>>6]&(1<<(out&63)) == 0 || out == anchor || !slices.Contains(ids, out) {
						continue
					}
					seed := (hi - st.b[j]) * inverse(st.a[j])
					if !slices.Contains(found, seed) {
						found = append(found, seed)
					}
				}
			}
		}
	}
	return found
}

// TestOldAttackWorksOnLegacyGames is the sanity check of the attack: on a
// game made as before secrets, the Market and opening hand one seat sees
// give the seed, and the seed gives the opponent's hand and deck order.
func TestOldAttackWorksOnLegacyGames(t *testing.T) {
	setup := twoSeats(t)
	setup.Seed = 0x9a3c_51e7_0d24_b68f
	s, events, err := engine.NewLegacyGame(setup)
	if err != nil {
		t.Fatal(err)
	}
	w := newWatcher(0)
	w.see(s, events, 0)
	seeds := crack(0, w.byVers[0], 512, 2)
	if !slices.Contains(seeds, setup.Seed) {
		t.Fatalf("the attack did not find the seed %#x from %d ids (found %#x)", setup.Seed, len(w.byVers[0]), seeds)
	}
	guess := setup
	guess.Seed = seeds[0]
	g, _, err := engine.NewLegacyGame(guess)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Players[1].Hand, s.Players[1].Hand) || !slices.Equal(g.Players[1].Deck, s.Players[1].Deck) {
		t.Fatal("the recovered seed does not give the opponent's hand and deck")
	}
}

// TestAttackRecoversNothing plays a whole game and runs the old attack on
// everything seat 0 sees, ids included: the setup's ids over 512 stream
// positions, and every later version that showed two ids or more over 64
// positions. No seed explains what was seen.
func TestAttackRecoversNothing(t *testing.T) {
	setup := twoSeats(t)
	setup.Seed = 0x9a3c_51e7_0d24_b68f // as above: the seed plays no part
	setup.Secret = sha256.Sum256([]byte("attack test secret"))
	s, events, err := engine.NewGame(setup)
	if err != nil {
		t.Fatal(err)
	}
	w := newWatcher(0)
	w.see(s, events, 0)
	playWatched(t, s, 5, func(events []engine.Event, version int) { w.see(s, events, version) })
	if seeds := crack(0, w.byVers[0], 512, 2); len(seeds) > 0 {
		t.Fatalf("the setup's %d ids gave seeds %#x", len(w.byVers[0]), seeds)
	}
	versions, ids := 0, 0
	for v := 1; v <= s.Version; v++ {
		if len(w.byVers[v]) < 2 {
			continue
		}
		if testing.Short() && versions == 8 {
			break
		}
		versions++
		ids += len(w.byVers[v])
		if seeds := crack(v, w.byVers[v], 64, 4); len(seeds) > 0 {
			t.Fatalf("the ids of version %d gave seeds %#x", v, seeds)
		}
	}
	if versions < 5 {
		t.Fatalf("only %d versions showed two ids: the test sees too little", versions)
	}
	t.Logf("%d ids of the setup and %d ids of %d later versions: no seed", len(w.byVers[0]), ids, versions)
}

// gameIDs plays a game of setup with secret to its end with greedy bots
// and returns the ids of its cards, in the order they were made: after the
// setup and after every action, the ids of the game not seen before.
func gameIDs(t *testing.T, setup engine.Setup, secret engine.Secret) []uint64 {
	setup.Secret = secret
	s, _, err := engine.NewGame(setup)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	var out []uint64
	collect := func() {
		for _, c := range s.Cards() {
			if !known[c.ID] {
				known[c.ID] = true
				v, _ := idValue(c.ID)
				out = append(out, v)
			}
		}
	}
	collect()
	playWatched(t, s, 11, func([]engine.Event, int) { collect() })
	return out
}

// structure says what the ids of two series of games share, or "" for
// nothing: bits of a series that are not balanced, bits of a's ids xor
// b's (paired in order) that are not, and equal ids beyond chance. A
// bound is 8 standard deviations, so a fair generator fails it with
// probability below 1e-14 (and the secrets are fixed, so a run repeats).
func structure(a, b []uint64) string {
	n := min(len(a), len(b))
	balanced := func(name string, bit func(i int) uint64) string {
		for k := range idBits {
			ones := 0
			for i := range n {
				ones += int(bit(i) >> k & 1)
			}
			if math.Abs(float64(ones)-float64(n)/2) > 8*math.Sqrt(float64(n))/2 {
				return fmt.Sprintf("%s: bit %d is set in %d of %d ids", name, k, ones, n)
			}
		}
		return ""
	}
	if r := balanced("first series", func(i int) uint64 { return a[i] }); r != "" {
		return r
	}
	if r := balanced("second series", func(i int) uint64 { return b[i] }); r != "" {
		return r
	}
	if r := balanced("xor of the two", func(i int) uint64 { return a[i] ^ b[i] }); r != "" {
		return r
	}
	all := slices.Concat(a[:n], b[:n])
	slices.Sort(all)
	equal := 0
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			equal++
		}
	}
	// Expected: (2n)^2/2 pairs over 2^50 values, about 2e-5 for 2n=2e5.
	if equal > 2 {
		return "ids repeat"
	}
	return ""
}

// TestIDsOfTwoSecretsShareNothing plays games with the same setup and two
// series of secrets, the second differing from the first in one bit, and
// checks that their 10^5 ids each share no structure. The same test on two
// series with the same secrets finds the structure.
func TestIDsOfTwoSecretsShareNothing(t *testing.T) {
	setup := twoSeats(t)
	const want = 100_000
	var a, b []uint64
	for k := 0; len(a) < want || len(b) < want; k++ {
		sa := engine.Secret(sha256.Sum256([]byte{byte(k), byte(k >> 8), 'A'}))
		sb := sa
		sb[k/8%32] ^= 1 << (k % 8)
		a = append(a, gameIDs(t, setup, sa)...)
		b = append(b, gameIDs(t, setup, sb)...)
	}
	if r := structure(a, b); r != "" {
		t.Fatalf("%d ids: %s", min(len(a), len(b)), r)
	}
	same := gameIDs(t, setup, engine.Secret(sha256.Sum256([]byte("same"))))
	if structure(same, gameIDs(t, setup, engine.Secret(sha256.Sum256([]byte("same"))))) == "" {
		t.Fatal("two games with the same secret show no structure: the test cannot fail")
	}
}

// TestLegacyStateLoadsAndPlaysOn loads a state stored before secrets
// (testdata/legacy: made by the engine of that time, with the actions that
// led to it): the engine still makes it byte for byte from its seed; it
// plays on; and once Reseal gave it a secret, its hidden piles and its
// future draws are no longer those its seed gives.
func TestLegacyStateLoadsAndPlaysOn(t *testing.T) {
	stored, err := os.ReadFile("testdata/legacy/state.json")
	if err != nil {
		t.Fatal(err)
	}
	var steps []struct {
		Seat   int           `json:"seat"`
		Action engine.Action `json:"action"`
	}
	data, err := os.ReadFile("testdata/legacy/steps.json")
	if err == nil {
		err = json.Unmarshal(data, &steps)
	}
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := engine.Unmarshal(stored)
	if err != nil {
		t.Fatal(err)
	}
	if !engine.NeedsSecret(legacy) || legacy.Commitment() != "" {
		t.Fatal("a stored state with only a seed is not taken for one stored before secrets")
	}
	setup := twoSeats(t)
	setup.Seed = legacy.Seed
	remade, _, err := engine.NewLegacyGame(setup)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if _, err := engine.Apply(remade, st.Seat, st.Action); err != nil {
			t.Fatal(err)
		}
	}
	// The options' texts are worded anew by every engine (the fixture's
	// engine wrote bare card names as "label"s): all else is byte for byte.
	if got, want := wordless(t, remade), wordless(t, legacy); got != want {
		t.Fatal("the engine no longer makes the stored legacy state from its seed and actions")
	}

	if len(legacy.Prompts) == 0 {
		t.Fatal("the fixture should wait for a prompt answer")
	}
	// What the seed predicts: the legacy game as it was.
	predicted := legacy.Clone()
	resealed := legacy.Clone()
	events := engine.Reseal(resealed, engine.Secret(sha256.Sum256([]byte("reseal"))))
	if len(events) != 1 || events[0].Kind != "resealed" || events[0].Only != nil {
		t.Fatalf("Reseal events: %+v", events)
	}
	if engine.NeedsSecret(resealed) || resealed.Commitment() != "" || resealed.Seed != 0 || resealed.Resealed != legacy.Version {
		t.Fatalf("resealed: needs %v, commitment %q, seed %d, resealed at %d", engine.NeedsSecret(resealed), resealed.Commitment(), resealed.Seed, resealed.Resealed)
	}
	if engine.Reseal(resealed, engine.Secret{1}) != nil {
		t.Fatal("a second Reseal changed the game")
	}
	// Only the hidden piles the seed ordered change, and the secret: every
	// prompt option and every card in a hand, bin, Lab or the Market keeps
	// its id.
	for _, s := range []*engine.State{predicted, resealed} {
		for i := range s.Players {
			slices.SortFunc(s.Players[i].Deck, func(a, b engine.Inst) int { return strings.Compare(a.Card, b.Card) })
		}
		slices.SortFunc(s.ChallengeDeck, func(a, b engine.Inst) int { return strings.Compare(a.Card, b.Card) })
	}
	strip := func(s *engine.State) string {
		c := s.Clone()
		c.Secret, c.Seed, c.Resealed = engine.Secret{}, 0, 0
		for i := range c.Players {
			for j := range c.Players[i].Deck {
				c.Players[i].Deck[j].ID = ""
			}
		}
		for j := range c.ChallengeDeck {
			c.ChallengeDeck[j].ID = ""
		}
		data, _ := c.Marshal()
		return string(data)
	}
	if strip(predicted) != strip(resealed) {
		t.Fatal("Reseal changed more than the order and ids of the Laboratory Decks and the Challenge Deck")
	}
	// The piles' orders, card by card, are not those the seed gave.
	predicted, resealed = legacy.Clone(), legacy.Clone()
	engine.Reseal(resealed, engine.Secret(sha256.Sum256([]byte("reseal"))))
	order := func(pile []engine.Inst) []string {
		out := make([]string, len(pile))
		for i, c := range pile {
			out[i] = c.Card
		}
		return out
	}
	for i := range legacy.Players {
		if slices.Equal(order(predicted.Players[i].Deck), order(resealed.Players[i].Deck)) {
			t.Fatalf("seat %d's deck is in the order its seed gave", i)
		}
	}
	if slices.Equal(order(predicted.ChallengeDeck), order(resealed.ChallengeDeck)) {
		t.Fatal("the Challenge Deck is in the order the seed gave")
	}
	if n := playWatched(t, resealed, 3, func([]engine.Event, int) {}); n == 0 || !resealed.Over() {
		t.Fatal("the resealed game did not play to its end")
	}
}

// TestSecretInNoViewOrEvent plays games and looks for the secret and the
// salt (in hex, base64 and as JSON byte lists) in every seat's view, legal
// actions and events, and a spectator's, after every action; the
// commitment is there for everyone from the start; the secret and salt
// come out (Reveal) only at the end.
func TestSecretInNoViewOrEvent(t *testing.T) {
	for k := range 3 {
		setup := twoSeats(t)
		if k == 2 {
			a, b := propDecks(t)
			setup.Players = append(setup.Players, engine.SeatSetup{Name: "Cy", Deck: a})
			setup.Office, setup.OfficeDeck, setup.Policy = true, propOfficeDeck(a, b), engine.Conceal
		}
		setup.Secret = sha256.Sum256([]byte{byte(k), 's'})
		setup.Salt = sha256.Sum256([]byte{byte(k), 'n'})
		s, events, err := engine.NewGame(setup)
		if err != nil {
			t.Fatal(err)
		}
		if s.Commitment() != engine.Commitment(setup.Secret, setup.Salt) {
			t.Fatal("the state's commitment is not that of its setup")
		}
		var forms []string
		for _, x := range []engine.Secret{setup.Secret, setup.Salt} {
			b64, _ := json.Marshal(x[:])
			list, _ := json.Marshal([32]byte(x))
			forms = append(forms, x.String(), strings.ToUpper(x.String()), strings.Trim(string(b64), `"`), strings.Trim(string(list), "[]"))
		}
		look := func(events []engine.Event, version int) {
			for seat := engine.Spectator; seat < len(s.Players); seat++ {
				data, _ := json.Marshal([]any{s.View(seat), engine.EventsFor(events, seat), engine.Legal(s, seat), engine.PromptsFor(s, seat)})
				for _, f := range forms {
					if strings.Contains(string(data), f) {
						t.Fatalf("game %d version %d: seat %d sees the secret or salt (%s)", k, version, seat, f)
					}
				}
				if strings.Contains(string(data), `"secret"`) || strings.Contains(string(data), `"salt"`) {
					t.Fatalf("game %d version %d: seat %d's view names a secret", k, version, seat)
				}
			}
			if _, _, ok := s.Reveal(); ok != s.Over() {
				t.Fatalf("game %d version %d: Reveal says %v while the game is over: %v", k, version, ok, s.Over())
			}
		}
		look(events, 0)
		playWatched(t, s, uint64(k), look)
		if secret, salt, ok := s.Reveal(); !ok || secret != setup.Secret || salt != setup.Salt {
			t.Fatalf("game %d: at the end Reveal gives %v %v %v", k, secret, salt, ok)
		}
	}
}

// wordless is st marshalled with its prompts' option texts left out.
func wordless(t *testing.T, st *engine.State) string {
	t.Helper()
	c := st.Clone()
	for i := range c.Prompts {
		for k := range c.Prompts[i].Options {
			c.Prompts[i].Options[k].Text = ""
		}
	}
	data, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
)

// The attacks on hidden information play seeded games in every setup
// (2 to 4 players, standard and fast, office or not, holders or conceal),
// with the prebuilt packs and with two custom decks made of the extra
// cards, which no other random game plays: random discards of another
// hand (Data Breach, Boss Blob), bounces and scraps out of a Lab, Market
// refreshes, Recycle Bin recycles, every player drawing (Team Offsite),
// interrupts on draws and claims (Rate Limit Exceeded, Bug Bounty), looks
// at the top of a deck (Sigmoid, Doodle). Some seats set standing answers,
// the service times decisions out now and then, and in games of 3 or more
// a seat may resign.

// atkChaosDecks are two legal 30-card decks made mostly of the extra cards.
func atkChaosDecks(t testing.TB) (engine.Deck, engine.Deck) {
	t.Helper()
	deck := func(id string, counts ...any) engine.Deck {
		d := engine.Deck{ID: id, Name: id}
		for i := 0; i < len(counts); i += 2 {
			d.Cards = append(d.Cards, engine.DeckEntry{Card: counts[i].(string), Count: counts[i+1].(int)})
		}
		if err := engine.ValidateDeck(engine.Standard(), d, false, 0); err != nil {
			t.Fatalf("deck %s: %v", id, err)
		}
		return d
	}
	x := deck("chaos-x",
		"open-source-library", 3, "frontend-framework", 2, "design-system", 2, "super-app", 1, "pair-programming", 2,
		"all-nighter-build", 1, "rapid-prototype", 2,
		"kanbo-junior", 1, "kanbo-senior", 1, "kanbo-chief", 1, "boss-blob-junior", 1, "boss-blob-senior", 1, "boss-blob-chief", 1,
		"data-breach", 1, "headhunter", 1, "hostile-takeover", 1, "team-offsite", 1, "market-research", 1, "bug-bounty", 1,
		"rate-limit-exceeded", 1, "merge-conflict", 1, "hiring-freeze", 1,
		"server-rack", 1, "whiteboard-wall", 1)
	y := deck("chaos-y",
		"open-source-library", 3, "data-lake", 2, "proof-of-concept", 2, "ab-test-harness", 1, "kubernetes-cluster", 1,
		"enterprise-service-bus", 1, "analytics-sdk", 2, "data-science-notebook", 1,
		"sigmoid-junior", 2, "sigmoid-senior", 1, "sigmoid-chief", 1, "doodle-junior", 1, "doodle-senior", 1, "doodle-chief", 1,
		"refactor-everything", 1, "hype-cycle", 1, "crunch-time", 1, "scope-creep", 1, "red-tape", 1, "scrum-planning", 1,
		"cloud-outage", 1,
		"mechanical-keyboard", 1, "hackathon-trophy", 1, "cloud-credits", 1)
	return x, y
}

// atkSetup is the setup of attack game g: every combination of players,
// mode, office, policy and decks comes up as g counts on.
func atkSetup(t testing.TB, g int) engine.Setup {
	t.Helper()
	a, b := propDecks(t)
	x, y := atkChaosDecks(t)
	players := 2 + g%3
	setup := engine.Setup{
		Seed:   uint64(7_000_000_000_000 + g*7919),
		Mode:   []engine.Mode{engine.ModeStandard, engine.ModeFast}[g/3%2],
		Policy: []engine.Policy{engine.Conceal, engine.Holders}[g/2%2],
		Office: g%5 == 3 || g%7 == 5,
	}
	var decks []engine.Deck
	switch g % 4 {
	case 0:
		decks = []engine.Deck{a, b}
	case 1:
		decks = []engine.Deck{x, y}
	default:
		decks = []engine.Deck{x, b, y, a}
	}
	for i := range players {
		setup.Players = append(setup.Players, engine.SeatSetup{Name: fmt.Sprintf("Seat%c", 'A'+i), Deck: decks[i%len(decks)]})
	}
	if setup.Office {
		setup.OfficeDeck = engine.Standard().OfficeDeck(append(slices.Clone(decks), decks...))
	}
	return setup
}

// atkDriver chooses the next move of a game: a bot's, sometimes any listed
// action (abandon_build included), a standing answer, a timeout by the
// service, a resignation or a vote to end.
type atkDriver struct {
	r    *rand.Rand
	bots []bot.Bot
}

func newAtkDriver(seed uint64, players int) *atkDriver {
	r := rand.New(rand.NewPCG(seed, 0xa77ac))
	d := &atkDriver{r: r}
	for i := range players {
		if (int(seed)+i)%2 == 0 {
			d.bots = append(d.bots, bot.NewRandom(r))
		} else {
			d.bots = append(d.bots, bot.NewGreedy(r))
		}
	}
	return d
}

// atkInterrupts are interrupt Hacks of the starter set and the event each
// answers.
var atkInterrupts = []engine.StandingPlay{
	{On: engine.EvDraw, Card: "rate-limit-exceeded"}, {On: engine.EvPlace, Card: "hiring-freeze"},
	{On: engine.EvPlayTool, Card: "merge-conflict"}, {On: engine.EvPlayHack, Card: "red-tape"},
	{On: engine.EvClaim, Card: "scope-creep"}, {On: engine.EvClaim, Card: "bug-bounty"},
}

// next returns the seat to act and its action.
func (d *atkDriver) next(s *engine.State) (int, engine.Action) {
	r := d.r
	live := 0
	for i := range s.Players {
		if !s.Players[i].Resigned {
			live++
		}
	}
	switch k := r.IntN(400); {
	case k < 8:
		return engine.System, engine.Action{Type: engine.ActTimeout}
	case k < 14:
		seat := r.IntN(len(s.Players))
		if !s.Players[seat].Resigned {
			st := &engine.Standing{Pass: r.IntN(2) == 0}
			for _, sp := range atkInterrupts {
				if r.IntN(3) == 0 {
					st.Plays = append(st.Plays, sp)
				}
			}
			return seat, engine.Action{Type: engine.ActStanding, Standing: st}
		}
	case k < 15 && live > 2:
		seat := r.IntN(len(s.Players))
		if !s.Players[seat].Resigned {
			return seat, engine.Action{Type: engine.ActResign}
		}
	case k < 16 && s.Turn > 40:
		for seat := range s.Players {
			if !s.Players[seat].Resigned && !s.Players[seat].VotedEnd {
				return seat, engine.Action{Type: engine.ActVoteEnd}
			}
		}
	}
	aw := engine.Awaiting(s)
	seat := aw[r.IntN(len(aw))]
	legal := engine.Legal(s, seat)
	v := s.View(seat)
	if r.IntN(6) == 0 {
		a := legal[r.IntN(len(legal))]
		for i := range v.Prompts {
			if a.Type == engine.ActAnswer && a.Prompt == v.Prompts[i].ID {
				a.Choices = bot.RandomAnswer(r, &v.Prompts[i])
			}
		}
		return seat, a
	}
	return seat, d.bots[seat].Choose(v, legal)
}

// atkPlay plays game g to its end (or maxTurns), calling before with each
// position and the move about to be applied, and after with the events it
// gave. It returns the number of actions applied.
func atkPlay(t *testing.T, g, maxTurns int, before func(s *engine.State, seat int, a engine.Action, step int),
	after func(s *engine.State, events []engine.Event)) int {
	t.Helper()
	setup := atkSetup(t, g)
	s, events, err := engine.NewGame(setup)
	if err != nil {
		t.Fatalf("game %d: %v", g, err)
	}
	if after != nil {
		after(s, events)
	}
	d := newAtkDriver(setup.Seed, len(setup.Players))
	step := 0
	for ; !s.Over() && s.Turn <= maxTurns; step++ {
		if step > 5000 {
			t.Fatalf("game %d: 5000 actions without the end", g)
		}
		seat, a := d.next(s)
		if before != nil {
			before(s, seat, a, step)
		}
		events, err := engine.Apply(s, seat, a)
		if err != nil {
			t.Fatalf("game %d step %d: seat %d %v refused: %v", g, step, seat, a, err)
		}
		if after != nil {
			after(s, events)
		}
	}
	return step
}

// atkObserved is everything a seat (or a spectator) is told about a game:
// its view, its events, its news, whom the game awaits, its legal moves
// with their words and options, and the cards it cannot play and why.
type atkObserved struct {
	View     *engine.View
	Events   []engine.Event
	News     []string
	Awaiting []int
	Moves    []engine.Move
	Blocked  []engine.Blocked
	Prompts  []engine.Prompt
}

// atkObserve is what seat obs is told of s after events, as JSON.
func atkObserve(t *testing.T, s *engine.State, obs int, events []engine.Event) string {
	t.Helper()
	o := atkObserved{View: s.View(obs), Events: engine.EventsFor(events, obs), News: engine.News(s, obs, events),
		Awaiting: engine.Awaiting(s), Moves: engine.Moves(s, obs), Blocked: engine.BlockedCards(s, obs), Prompts: engine.PromptsFor(s, obs)}
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// atkDiff shows the first lines where two JSON texts part.
func atkDiff(a, b string) string {
	indent := func(s string) []string {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return strings.Split(s, "\n")
		}
		data, _ := json.MarshalIndent(v, "", " ")
		return strings.Split(string(data), "\n")
	}
	x, y := indent(a), indent(b)
	for i := range min(len(x), len(y)) {
		if x[i] != y[i] {
			lo, hi := max(i-12, 0), min(i+4, len(x), len(y))
			return fmt.Sprintf("line %d:\n--- actual game:\n%s\n--- hidden cards permuted:\n%s",
				i, strings.Join(x[lo:hi], "\n"), strings.Join(y[lo:hi], "\n"))
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(x), len(y))
}

// atkIsInterrupt reports whether card id is an interrupt Hack.
func atkIsInterrupt(id string) bool {
	c := engine.Standard().Card(id)
	return c != nil && c.Has(engine.KwInterrupt)
}

// atkHandMayChange reports whether seat's hand may be permuted without
// changing a choice the seat already made: no prompt of its own is open
// (whose options name its cards), it has no queued actions, no sealed play
// in an open window.
func atkHandMayChange(s *engine.State, seat int) bool {
	if len(engine.PromptsFor(s, seat)) > 0 || (s.Queue != nil && s.Queue.Seat == seat) {
		return false
	}
	for _, t := range s.Stack {
		if t.Ev != nil && t.Ev.Window != nil && slices.ContainsFunc(t.Ev.Window.Plays, func(p engine.WindowPlay) bool { return p.Seat == seat }) {
			return false
		}
	}
	return true
}

// atkPermute returns a copy of s in which the cards hidden from obs are
// dealt differently, and whether any card moved. For every seat other than
// obs, the cards of its Laboratory Deck, Recycle Bin and hand (each pile
// keeping its size) are permuted among them, but for the actor's hand and
// a hand whose seat has made a choice that names its cards (an open
// prompt, queued actions, a sealed play in an open window). With secret
// set, the piles hidden from everyone are dealt again too: the Challenge
// Deck, obs's own deck, and the office variant's shared deck and Recycle
// Bin (the caller sets it only when the move shows obs none of them).
// Under the holders policy, where a prompt tells that its seat holds an
// interrupt (a documented trade-off), interrupt Hacks keep their places,
// and so do those of a seat with standing plays, which play an interrupt
// it holds (or draws during the move) as if the seat played it.
func atkPermute(s *engine.State, obs, actor int, secret bool, r *rand.Rand) (*engine.State, bool) {
	c := s.Clone()
	moved := false
	standing := slices.ContainsFunc(c.Players, func(p engine.Player) bool { return len(p.Standing.Plays) > 0 })
	deal := func(pin bool, piles ...[]engine.Inst) {
		var at []*engine.Inst
		for _, pile := range piles {
			for i := range pile {
				if (pin || c.Policy == engine.Holders) && atkIsInterrupt(pile[i].Card) {
					continue
				}
				at = append(at, &pile[i])
			}
		}
		cards := make([]string, len(at))
		for i, in := range at {
			cards[i] = in.Card
		}
		r.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
		for i, in := range at {
			if in.Card != cards[i] {
				in.Card, moved = cards[i], true
			}
		}
	}
	for o := range c.Players {
		if o == obs {
			continue
		}
		p := &c.Players[o]
		var piles [][]engine.Inst
		if !c.Office {
			piles = append(piles, p.Deck, p.Bin)
		}
		if o != actor && atkHandMayChange(s, o) {
			piles = append(piles, p.Hand)
		}
		deal(len(p.Standing.Plays) > 0, piles...)
	}
	if secret {
		deal(false, c.ChallengeDeck)
		if c.Office {
			deal(standing, c.SharedDeck)
			deal(standing, c.SharedBin)
		} else if obs >= 0 {
			deal(standing, c.Players[obs].Deck)
		}
	}
	return c, moved
}

// atkShows reports whether a move that led to s with events shows obs a
// card from a pile hidden from everyone: a challenge opening in the
// Market, or a card the seat draws, looks at (or is asked to choose among
// as it looks) or takes from a Recycle Bin.
func atkShows(s *engine.State, events []engine.Event, obs int) bool {
	if slices.ContainsFunc(engine.PromptsFor(s, obs), func(p engine.Prompt) bool { return p.Kind == engine.PromptLook }) {
		return true
	}
	for _, e := range events {
		v, ok := e.For(obs)
		switch {
		case !ok:
		case v.Kind == engine.KindChallengeRevealed:
			return true
		case obs >= 0 && v.Seat == obs && (v.Kind == engine.KindDrew || v.Kind == engine.KindLooked || v.Kind == engine.KindRecovered):
			return true
		}
	}
	return false
}

// TestAttackHiddenNonInterference attacks every channel at once: what a
// seat is told must not depend on cards hidden from it. At positions of
// seeded games, for each seat and a spectator, the cards hidden from that
// observer (the other seats' decks, Recycle Bins and hands; and when the
// move shows the observer none of them, the Challenge Deck and the
// observer's own deck) are dealt differently in a copy of the game
// (atkPermute); then the move the game was about to take is applied to
// both. The observer's view, events, news, awaited
// seats, legal moves with their texts and options, blocked cards and
// prompts must be the same, byte for byte, before and after the move; the
// mover's own legal actions must not change either, and the move must be
// accepted by both or refused by both with the same reason.
func TestAttackHiddenNonInterference(t *testing.T) {
	t.Parallel()
	games, every := 12, 4
	if testing.Short() {
		games, every = 6, 6
	}
	r := rand.New(rand.NewPCG(41, 43))
	checked := 0
	for g := range games {
		atkPlay(t, g, 120, func(s *engine.State, actor int, a engine.Action, step int) {
			if step%every != 0 {
				return
			}
			for obs := engine.Spectator; obs < len(s.Players); obs++ {
				c1 := s.Clone()
				ev1, err1 := engine.Apply(c1, actor, a)
				s2, ok := atkPermute(s, obs, actor, !atkShows(c1, ev1, obs), r)
				if !ok {
					continue
				}
				where := fmt.Sprintf("game %d step %d (turn %d, %s, %s, office %v): observer %d, move %v by seat %d",
					g, step, s.Turn, s.Policy, s.Mode, s.Office, obs, a, actor)
				// Before the move too, at every other position.
				if step%(2*every) == 0 {
					if x, y := atkObserve(t, s, obs, nil), atkObserve(t, s2, obs, nil); x != y {
						t.Fatalf("%s: before the move, the observer is told about hidden cards: %s", where, atkDiff(x, y))
					}
				}
				if actor >= 0 && !s.Players[actor].Resigned {
					x, _ := json.Marshal(engine.Legal(s, actor))
					y, _ := json.Marshal(engine.Legal(s2, actor))
					if string(x) != string(y) {
						t.Fatalf("%s: the mover's legal actions depend on cards hidden from it:\n%s\n%s", where, x, y)
					}
				}
				ev2, err2 := engine.Apply(s2, actor, a)
				if fmt.Sprint(err1) != fmt.Sprint(err2) {
					t.Fatalf("%s: refused %v in the game, %v with hidden cards permuted", where, err1, err2)
				}
				if x, y := atkObserve(t, c1, obs, ev1), atkObserve(t, s2, obs, ev2); x != y {
					t.Fatalf("%s: after the move, the observer is told about hidden cards: %s", where, atkDiff(x, y))
				}
				checked++
			}
		}, nil)
	}
	if checked < 50*games/every {
		t.Fatalf("only %d observations compared", checked)
	}
	t.Logf("%d games, %d observations compared with hidden cards permuted", games, checked)
}

// atkHiddenIDs maps each instance id that seat obs may not see now to the
// zone that hides it: the other seats' hands, decks and Recycle Bins,
// obs's own deck (its order is secret to its owner too), the office
// variant's shared deck and Recycle Bin, the Challenge Deck, and cards
// another seat is looking at on top of its deck.
func atkHiddenIDs(s *engine.State, obs int) map[string]string {
	out := map[string]string{}
	add := func(pile []engine.Inst, zone string) {
		for _, c := range pile {
			out[c.ID] = zone
		}
	}
	for i := range s.Players {
		p := &s.Players[i]
		add(p.Deck, fmt.Sprintf("seat %d's deck", i))
		if i != obs {
			add(p.Hand, fmt.Sprintf("seat %d's hand", i))
			add(p.Bin, fmt.Sprintf("seat %d's Recycle Bin", i))
		}
	}
	add(s.SharedDeck, "the shared deck")
	add(s.SharedBin, "the shared Recycle Bin")
	add(s.ChallengeDeck, "the Challenge Deck")
	for _, t := range s.Stack {
		if t.Seat != obs {
			add(t.Held, fmt.Sprintf("the cards seat %d looks at", t.Seat))
		}
	}
	return out
}

// atkSeenIDs lists every instance id seat obs is shown: in its view
// (window and prompts included), its events, and its legal actions.
func atkSeenIDs(s *engine.State, obs int, events []engine.Event) []string {
	out := idsSeen(s.View(obs), engine.EventsFor(events, obs))
	for _, a := range engine.Legal(s, obs) {
		out = append(append(out, a.Card), a.Challenges...)
	}
	return out
}

// TestAttackHiddenIDsNeverFollowed follows every instance id each seat
// (and a spectator) is ever shown, over whole games. A card that enters a
// zone hidden from an observer must get an id the observer has never
// seen, so it cannot be followed in (a Lab card bounced to a hand, a Tool
// to a Recycle Bin, a challenge under the Challenge Deck) nor out again (a
// draw, a look, a recover). It also checks that the counts a view shows
// are the state's, that when nothing is in flight the public counts add
// up to every card of the game, that the spectator's view is every seat's
// view without the seat's private parts, and that every event a spectator
// sees, every seat sees the same unless the event is private to it.
func TestAttackHiddenIDsNeverFollowed(t *testing.T) {
	t.Parallel()
	games := 8
	if testing.Short() {
		games = 4
	}
	actions, ids := 0, 0
	for g := range games {
		var seen []map[string]int // by observer (index obs+1): id -> the action that first showed it
		total, n := -1, 0
		actions += atkPlay(t, g, 150, nil, func(s *engine.State, events []engine.Event) {
			n++
			if seen == nil {
				seen = make([]map[string]int, len(s.Players)+1)
				for i := range seen {
					seen[i] = map[string]int{}
				}
				total = len(s.Cards())
			}
			for obs := engine.Spectator; obs < len(s.Players); obs++ {
				known := seen[obs+1]
				for _, id := range atkSeenIDs(s, obs, events) {
					if _, ok := known[id]; !ok && id != "" {
						known[id] = n
						ids++
					}
				}
				for id, zone := range atkHiddenIDs(s, obs) {
					if when, ok := known[id]; ok {
						t.Fatalf("game %d action %d: card %s (%s) in %s has the id %s that observer %d was shown at action %d",
							g, n, atkCardOf(s, id), id, zone, id, obs, when)
					}
				}
				atkCheckCounts(t, s, obs, total, fmt.Sprintf("game %d action %d observer %d", g, n, obs))
			}
			atkCheckSpectator(t, s, events, fmt.Sprintf("game %d action %d", g, n))
		})
	}
	t.Logf("%d games, %d actions, %d ids followed", games, actions, ids)
}

// atkCardOf is the card id of instance id in s.
func atkCardOf(s *engine.State, id string) string {
	for _, c := range s.Cards() {
		if c.ID == id {
			return c.Card
		}
	}
	return "?"
}

// atkCheckCounts checks the counts of obs's view against the state.
func atkCheckCounts(t *testing.T, s *engine.State, obs, total int, where string) {
	t.Helper()
	v := s.View(obs)
	sum := len(v.Market) + v.ChallengeDeck + v.SharedDeck + v.SharedBin + len(v.Global)
	if v.ChallengeDeck != len(s.ChallengeDeck) || v.SharedDeck != len(s.SharedDeck) || v.SharedBin != len(s.SharedBin) || len(v.Market) != len(s.Market) {
		t.Fatalf("%s: view counts (challenge deck %d, shared deck %d, shared bin %d, market %d) are not the state's", where,
			v.ChallengeDeck, v.SharedDeck, v.SharedBin, len(v.Market))
	}
	for i, p := range v.Players {
		sp := &s.Players[i]
		if p.HandCount != len(sp.Hand) || p.DeckCount != len(sp.Deck) || p.BinCount != len(sp.Bin) || len(p.Lab) != len(sp.Lab) || len(p.Ranking) != len(sp.Ranking) {
			t.Fatalf("%s: seat %d's counts in the view (%d %d %d %d %d) are not the state's (%d %d %d %d %d)", where, i,
				p.HandCount, p.DeckCount, p.BinCount, len(p.Lab), len(p.Ranking), len(sp.Hand), len(sp.Deck), len(sp.Bin), len(sp.Lab), len(sp.Ranking))
		}
		sum += p.HandCount + p.DeckCount + p.BinCount + len(p.Lab) + len(p.Ranking)
	}
	if obs >= 0 {
		if len(v.Hand) != v.Players[obs].HandCount || (!s.Office && len(v.Bin) != v.Players[obs].BinCount) || (s.Office && len(v.Bin) != 0) {
			t.Fatalf("%s: the seat's own hand (%d) or Recycle Bin (%d) is not what its counts say", where, len(v.Hand), len(v.Bin))
		}
	}
	if v.Build != nil {
		sum += len(v.Build.Tools)
	}
	if v.Window != nil && v.Window.Card != nil {
		sum++
	}
	if sum > total || (len(s.Stack) == 0 && sum != total) {
		t.Fatalf("%s: the view accounts for %d cards of %d (%d tasks in flight)", where, sum, total, len(s.Stack))
	}
}

// atkCheckSpectator checks that a spectator is told nothing a seat is not,
// and that each seat is told the public parts exactly as the spectator.
func atkCheckSpectator(t *testing.T, s *engine.State, events []engine.Event, where string) {
	t.Helper()
	pub, err := json.Marshal(s.View(engine.Spectator))
	if err != nil {
		t.Fatal(err)
	}
	for seat := range s.Players {
		v := *s.View(seat)
		v.Seat, v.Hand, v.Bin, v.Prompts, v.Queued, v.Standing = engine.Spectator, nil, nil, nil, nil, nil
		own, err := json.Marshal(&v)
		if err != nil {
			t.Fatal(err)
		}
		if string(own) != string(pub) {
			t.Fatalf("%s: seat %d's view without its private parts differs from the spectator's: %s",
				where, seat, atkDiff(string(pub), string(own)))
		}
		for _, e := range events {
			sv, sok := e.For(engine.Spectator)
			ov, ook := e.For(seat)
			if ook && (ov.Only != nil || ov.Public != nil) {
				t.Fatalf("%s: seat %d is given an event with its audience: %+v", where, seat, ov)
			}
			if slices.Contains(e.Only, seat) {
				if sok && !ook {
					t.Fatalf("%s: a spectator sees event %q that seat %d does not", where, e.Kind, seat)
				}
				continue
			}
			x, _ := json.Marshal(sv)
			y, _ := json.Marshal(ov)
			if sok != ook || string(x) != string(y) {
				t.Fatalf("%s: seat %d, not in its audience, sees event %s as %s, a spectator as %s", where, seat, e.Kind, y, x)
			}
		}
	}
}

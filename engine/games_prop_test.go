package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
)

// The property tests play seeded bot games in every setup mode. Each
// rapid check is one game; rapid runs 100 checks per property by default
// (20 with -short), so the suite plays 300 games per run. For the long run
// set RAPID_CHECKS, e.g. RAPID_CHECKS=1000 go test -run Prop ./engine/
// plays 3,000 games.

// propDecks returns the two prebuilt decks.
func propDecks(t interface{ Fatalf(string, ...any) }) (engine.Deck, engine.Deck) {
	a, ok1 := engine.Standard().Deck("running-a-startup")
	b, ok2 := engine.Standard().Deck("working-for-the-enterprise")
	if !ok1 || !ok2 {
		t.Fatalf("prebuilt decks missing")
	}
	return a, b
}

// propOfficeDeck is two copies of each pack within the office copy limits.
func propOfficeDeck(a, b engine.Deck) engine.Deck {
	return engine.Standard().OfficeDeck([]engine.Deck{a, a, b, b})
}

// drawSetup draws a game setup: players, mode, office variant and policy.
func drawSetup(t *rapid.T, players int) engine.Setup {
	a, b := propDecks(t)
	st := engine.Setup{
		// Large seeds, so that a seed written in decimal cannot appear in a
		// view by chance.
		Seed:   rapid.Uint64Range(1<<40, 1<<63).Draw(t, "seed"),
		Mode:   rapid.SampledFrom([]engine.Mode{engine.ModeStandard, engine.ModeFast}).Draw(t, "mode"),
		Office: rapid.Bool().Draw(t, "office"),
		Policy: rapid.SampledFrom([]engine.Policy{engine.Holders, engine.Conceal}).Draw(t, "policy"),
	}
	for i := range players {
		d := a
		if i%2 == 1 {
			d = b
		}
		st.Players = append(st.Players, engine.SeatSetup{Name: "Player " + strconv.Itoa(i), Deck: d})
	}
	if st.Office {
		st.OfficeDeck = propOfficeDeck(a, b)
	}
	return st
}

// chooser picks actions for a seat: a bot, or uniformly among all legal
// actions (abandon_build included; a prompt gets a random answer it admits).
type chooser func(v *engine.View, legal []engine.Action) engine.Action

func drawChoosers(t *rapid.T, players int, seed uint64) []chooser {
	kinds := rapid.SliceOfN(rapid.SampledFrom([]string{"greedy", "random", "mixed"}), players, players).Draw(t, "bots")
	out := make([]chooser, players)
	for i, k := range kinds {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		switch k {
		case "greedy":
			out[i] = bot.NewGreedy(r).Choose
		case "random":
			out[i] = bot.NewRandom(r).Choose
		default:
			// Mostly the Random bot, sometimes any legal action at all
			// (abandon_build included).
			rb := bot.NewRandom(r)
			out[i] = func(v *engine.View, legal []engine.Action) engine.Action {
				if r.IntN(5) == 0 {
					a := legal[r.IntN(len(legal))]
					for i := range v.Prompts {
						if a.Type == engine.ActAnswer && a.Prompt == v.Prompts[i].ID {
							a.Choices = bot.RandomAnswer(r, &v.Prompts[i])
						}
					}
					return a
				}
				return rb.Choose(v, legal)
			}
		}
	}
	return out
}

type logged struct {
	seat int
	a    engine.Action
}

// playChecked plays one game to its end, checking the invariants after
// every action. It returns the action log.
func playChecked(t *rapid.T, setup engine.Setup, choosers []chooser, maxTurns int) (*engine.State, []logged) {
	s, events, err := engine.NewGame(setup)
	if err != nil {
		t.Fatalf("NewGame: %v", err)
	}
	total := len(s.Cards())
	seen := make(map[string]bool, total)
	checkCards(t, s, total, seen)
	checkViews(t, s)
	checkHidden(t, s, events, setup.Seed)
	r := rand.New(rand.NewPCG(setup.Seed, 99))
	// fork is a copy made by Marshal and Unmarshal part-way through: it must
	// go on exactly like the original.
	var fork *engine.State
	forkAt := r.IntN(200)
	if setup.Seed%3 != 0 {
		forkAt = -1
	}
	var log []logged
	for step := 0; !s.Over(); step++ {
		if s.Turn > maxTurns {
			t.Fatalf("game not over after %d turns", maxTurns)
		}
		if step == forkAt {
			fork = roundTrip(t, s)
		}
		aw := engine.Awaiting(s)
		if len(aw) == 0 {
			t.Fatalf("step %d: the game waits for nobody (phase %s)", step, s.Phase)
		}
		seat := aw[r.IntN(len(aw))]
		legal := engine.Legal(s, seat)
		if len(legal) == 0 {
			t.Fatalf("step %d: seat %d is awaited with no legal action", step, seat)
		}
		if step%23 == 0 {
			checkRejected(t, s, seat, legal, r)
		}
		a := choosers[seat](s.View(seat), legal)
		events, err := engine.Apply(s, seat, a)
		if err != nil {
			t.Fatalf("step %d: seat %d: action %v rejected: %v (legal: %v)", step, seat, a, err, legal)
		}
		if fork != nil {
			fevents, err := engine.Apply(fork, seat, a)
			if err != nil {
				t.Fatalf("step %d: the unmarshalled copy rejects %v: %v", step, a, err)
			}
			if len(fevents) != len(events) || (step%16 == 0 && (fork.Hash() != s.Hash() || !sameJSON(events, fevents))) {
				t.Fatalf("step %d: the unmarshalled copy diverged after %v", step, a)
			}
		}
		if left := engine.ChosenLeft(s); len(left) > 0 {
			t.Fatalf("step %d: after %v a task still holds the chosen prompt %v, which storage drops", step, a, left)
		}
		log = append(log, logged{seat, a})
		checkCards(t, s, total, seen)
		checkEvents(t, s, events, setup.Seed)
		if step%8 == 0 || s.Over() {
			checkViews(t, s)
			checkHidden(t, s, events, setup.Seed)
		}
	}
	if len(s.Winners) == 0 {
		t.Fatalf("game over without winners")
	}
	if fork != nil && fork.Hash() != s.Hash() {
		t.Fatalf("the unmarshalled copy ended in another state")
	}
	return s, log
}

// checkRejected submits a few actions that are not legal and checks that
// Apply rejects them without touching the state.
func checkRejected(t *rapid.T, s *engine.State, seat int, legal []engine.Action, r *rand.Rand) {
	before := s.Hash()
	bad := []engine.Action{
		{Type: engine.ActPlayTool, Card: "no-such-card"},
		{Type: engine.ActClaim, Challenges: []string{"nothing"}},
		{Type: engine.ActAnswer, Prompt: "p0", Choices: []string{"x"}},
		{Type: engine.ActEndTurn},
		{Type: engine.ActionType("dance")},
	}
	other := (seat + 1 + r.IntN(len(s.Players)-1)) % len(s.Players)
	offered := map[int][]engine.Action{seat: legal, other: engine.Legal(s, other)}
	for _, a := range bad {
		for _, who := range []int{seat, other} {
			if listed(offered[who], a) {
				continue
			}
			if _, err := engine.Apply(s, who, a); err == nil {
				t.Fatalf("seat %d: %v accepted although not listed as legal", who, a)
			}
		}
	}
	if s.Hash() != before {
		t.Fatalf("rejected actions changed the state")
	}
}

// checkCards checks that every card is in exactly one place: the number of
// cards never changes and no instance id appears twice. seen is scratch space.
func checkCards(t *rapid.T, s *engine.State, total int, seen map[string]bool) {
	cards := s.Cards()
	if len(cards) != total {
		t.Fatalf("%d cards in the game, want %d", len(cards), total)
	}
	clear(seen)
	for _, c := range cards {
		if seen[c.ID] {
			t.Fatalf("instance id %s is in two places", c.ID)
		}
		seen[c.ID] = true
	}
}

// checkViews checks that views agree with the state.
func checkViews(t *rapid.T, s *engine.State) {
	v := s.View(engine.Spectator)
	for i, p := range v.Players {
		if p.Points != s.Score(i) {
			t.Fatalf("view shows %d points for seat %d, Score says %d", p.Points, i, s.Score(i))
		}
	}
	if (v.Build != nil) != (s.Build != nil) || (v.Build != nil && (v.Build.Tech != s.BuildTech() || v.Build.Sci != s.BuildSci())) {
		t.Fatalf("view build %+v, state build TECH %d SCI %d", v.Build, s.BuildTech(), s.BuildSci())
	}
}

// zones maps each instance id that some seat may not see to the seat
// that may (-1: nobody): every deck (the owner's too: the order is secret),
// the Challenge Deck, hands and Recycle Bins (their owner's only).
func zones(s *engine.State) map[string]int {
	out := make(map[string]int, 128)
	add := func(pile []engine.Inst, seat int) {
		for _, c := range pile {
			out[c.ID] = seat
		}
	}
	for i := range s.Players {
		p := &s.Players[i]
		add(p.Deck, -1)
		add(p.Hand, i)
		add(p.Bin, i)
	}
	add(s.SharedDeck, -1)
	add(s.ChallengeDeck, -1)
	return out
}

// hiddenFrom lists the instance ids seat may not see.
func hiddenFrom(s *engine.State, seat int) []string {
	var ids []string
	for id, who := range zones(s) {
		if who != seat {
			ids = append(ids, id)
		}
	}
	return ids
}

// sharedBinIDs lists the office variant's shared Recycle Bin. No view,
// prompt or event shows it: recovering from it takes cards at random.
func sharedBinIDs(s *engine.State) []string {
	ids := make([]string, len(s.SharedBin))
	for i, c := range s.SharedBin {
		ids[i] = c.ID
	}
	return ids
}

// checkHidden checks that no seat (nor a spectator) sees a hidden card or
// the seed in its view or its events.
func checkHidden(t *rapid.T, s *engine.State, events []engine.Event, seed uint64) {
	seedText := []byte(strconv.FormatUint(seed, 10))
	bin := map[string]int{}
	for _, id := range sharedBinIDs(s) {
		bin[id] = -1
	}
	zone := zones(s)
	for seat := engine.Spectator; seat < len(s.Players); seat++ {
		v := s.View(seat)
		view, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("view: %v", err)
		}
		evs, err := json.Marshal(engine.EventsFor(events, seat))
		if err != nil {
			t.Fatalf("events: %v", err)
		}
		for what, data := range map[string][]byte{"view": view, "events": evs} {
			if bytes.Contains(data, []byte(`"seed"`)) || bytes.Contains(data, seedText) {
				t.Fatalf("seat %d: the seed appears in its %s", seat, what)
			}
			if tok, ok := findQuoted(data, zone, seat); ok {
				t.Fatalf("seat %d: hidden card %s appears in its %s: %s", seat, tok, what, data)
			}
		}
		if len(bin) > 0 {
			if tok, ok := findQuoted(view, bin, seat); ok {
				t.Fatalf("seat %d: card %s of the shared Recycle Bin appears in its view: %s", seat, tok, view)
			}
		}
	}
}

// checkEvents checks, field by field, that no seat sees a hidden card or
// the seed in its events; checkHidden also checks them as JSON.
func checkEvents(t *rapid.T, s *engine.State, events []engine.Event, seed uint64) {
	seedText := strconv.FormatUint(seed, 10)
	var zone map[string]int
	for seat := engine.Spectator; seat < len(s.Players); seat++ {
		for _, e := range engine.EventsFor(events, seat) {
			if zone == nil && (e.Inst != "" || len(e.Insts) > 0) {
				zone = zones(s)
			}
			if strings.Contains(e.Text, seedText) {
				t.Fatalf("seat %d: the seed appears in event %q", seat, e.Text)
			}
			for _, id := range append([]string{e.Inst}, e.Insts...) {
				if who, ok := zone[id]; ok && who != seat {
					t.Fatalf("seat %d: hidden card %s appears in its event %+v", seat, id, e)
				}
			}
		}
	}
}

// findQuoted returns the first JSON string in data (raw, escapes not
// decoded) that zone hides from seat.
func findQuoted(data []byte, zone map[string]int, seat int) (string, bool) {
	for i := 0; i < len(data); i++ {
		if data[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(data) && data[j] != '"' {
			if data[j] == '\\' {
				j++
			}
			j++
		}
		tok := data[i+1 : min(j, len(data))]
		if who, ok := zone[string(tok)]; ok && who != seat {
			return string(tok), true
		}
		i = j
	}
	return "", false
}

// roundTrip checks that Marshal and Unmarshal lose nothing and returns the copy.
func roundTrip(t *rapid.T, s *engine.State) *engine.State {
	data, err := s.Marshal()
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	c, err := engine.Unmarshal(data)
	if err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	again, err := c.Marshal()
	if err != nil {
		t.Fatalf("marshal again: %v", err)
	}
	if !bytes.Equal(data, again) || c.Hash() != s.Hash() {
		t.Fatalf("round trip changed the state")
	}
	if cl := s.Clone(); cl.Hash() != s.Hash() {
		t.Fatalf("Clone changed the state")
	}
	return c
}

// replay plays the action log again from the setup and compares hashes.
func replay(t *rapid.T, setup engine.Setup, log []logged, want string) {
	s, _, err := engine.NewGame(setup)
	if err != nil {
		t.Fatalf("replay: NewGame: %v", err)
	}
	for i, l := range log {
		if _, err := engine.Apply(s, l.seat, l.a); err != nil {
			t.Fatalf("replay: action %d %v: %v", i, l.a, err)
		}
	}
	if got := s.Hash(); got != want {
		t.Fatalf("replay hash %s, want %s", got, want)
	}
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func propGames(players int) func(*rapid.T) {
	return func(t *rapid.T) {
		setup := drawSetup(t, players)
		choosers := drawChoosers(t, players, setup.Seed)
		s, log := playChecked(t, setup, choosers, 600)
		replay(t, setup, log, s.Hash())
	}
}

func TestPropGames2P(t *testing.T) { rapid.Check(t, propGames(2)) }
func TestPropGames3P(t *testing.T) { rapid.Check(t, propGames(3)) }
func TestPropGames4P(t *testing.T) { rapid.Check(t, propGames(4)) }

// TestStateSize checks that a mid-game 4-player state serializes to at most
// 32 KB: the largest state of each game, at any point before its end.
func TestStateSize(t *testing.T) {
	a, b := propDecks(t)
	largest := 0
	for seed := range uint64(20) {
		setup := engine.Setup{Seed: seed, Mode: engine.ModeStandard, Policy: engine.Conceal}
		for i := range 4 {
			d := a
			if i%2 == 1 {
				d = b
			}
			setup.Players = append(setup.Players, engine.SeatSetup{Name: fmt.Sprintf("A fairly long player name %d", i), Deck: d})
		}
		s, _, err := engine.NewGame(setup)
		if err != nil {
			t.Fatal(err)
		}
		bots := make([]bot.Bot, 4)
		for i := range bots {
			r := rand.New(rand.NewPCG(seed, uint64(i)))
			if seed%2 == 0 {
				bots[i] = bot.NewGreedy(r)
			} else {
				bots[i] = bot.NewRandom(r)
			}
		}
		for !s.Over() && s.Turn < 400 {
			seat := engine.Awaiting(s)[0]
			if _, err := engine.Apply(s, seat, bots[seat].Choose(s.View(seat), engine.Legal(s, seat))); err != nil {
				t.Fatal(err)
			}
			data, err := s.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			largest = max(largest, len(data))
		}
	}
	t.Logf("largest 4-player state: %d bytes", largest)
	if largest > 32<<10 {
		t.Fatalf("a 4-player state serialized to %d bytes, more than 32 KB", largest)
	}
}

// TestHiddenFromCoversZones makes sure the leak check looks at the zones it
// should: a fresh game has hidden cards for every seat.
func TestHiddenFromCoversZones(t *testing.T) {
	a, b := propDecks(t)
	s, _, err := engine.NewGame(engine.Setup{Seed: 1, Players: []engine.SeatSetup{{Name: "A", Deck: a}, {Name: "B", Deck: b}}})
	if err != nil {
		t.Fatal(err)
	}
	for seat := range 2 {
		hidden := hiddenFrom(s, seat)
		other := s.Players[1-seat].Hand[0].ID
		if !slices.Contains(hidden, other) || slices.Contains(hidden, s.Players[seat].Hand[0].ID) {
			t.Fatalf("seat %d: hidden set is wrong", seat)
		}
		view, _ := json.Marshal(s.View(seat))
		if !strings.Contains(string(view), s.Players[seat].Hand[0].ID) {
			t.Fatalf("seat %d does not see its own hand", seat)
		}
	}
}

package engine

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestNews reads the news of a seat after moves that changed its plans
// (an interrupt that cancels its card, one that makes its claim fail),
// its own draws, what the others did, and the end of the game: each row
// plays a position's steps and compares the news of every event since the
// setup, for the seat, with the sentences wanted, in order.
func TestNews(t *testing.T) {
	for _, tc := range []struct {
		name string
		seat int
		doc  string
		want []string
	}{
		{"my Hack cancelled", 0, "players:\n  - {name: ana, hand: [t-pizza]}\n  - {name: bot-1, hand: [t-veto]}\nsteps:\n  - {do: play_hack, card: t-pizza}\n  - {seat: 1, answer: t-veto}\n",
			[]string{"bot-1 played Veto: your Pizza was cancelled."}},
		{"I cancelled theirs", 1, "players:\n  - {name: ana, hand: [t-pizza]}\n  - {name: bot-1, hand: [t-veto]}\nsteps:\n  - {do: play_hack, card: t-pizza}\n  - {seat: 1, answer: t-veto}\n",
			[]string{"You played Veto: ana's Pizza was cancelled."}},
		{"a spectator", Spectator, "players:\n  - {name: ana, hand: [t-bob-j]}\n  - {name: bob, hand: [t-freeze]}\nsteps:\n  - {do: place, card: t-bob-j}\n  - {seat: 1, answer: t-freeze}\n",
			[]string{"bob played Freeze: ana's Bob (Junior) was cancelled."}},
		{"my claim failed", 0, "players:\n  - {name: ana, hand: [t-drill, t-wrench]}\n  - {name: bot-1, hand: [t-creep]}\nmarket: [t-big]\nchallenge_deck: [t-one]\nsteps:\n  - {do: play_tool, card: t-drill}\n  - {do: play_tool, card: t-wrench}\n  - {do: claim, challenges: t-big}\n  - {seat: 1, answer: t-creep}\n",
			[]string{"bot-1 played Creep on your claim of Big One: the challenges need 2 more TECH, so the claim failed; the build stays open."}},
		{"my claim held", 0, "players:\n  - {name: ana, hand: [t-drill, t-drill]}\n  - {name: bot-1, hand: [t-creep]}\nmarket: [t-big]\nchallenge_deck: [t-one]\nsteps:\n  - {do: play_tool, card: t-drill}\n  - {do: play_tool, card: t-drill}\n  - {do: claim, challenges: t-big}\n  - {seat: 1, answer: t-creep}\n",
			[]string{"bot-1 played Creep on your claim of Big One: the challenges need 2 more TECH.", "You won Big One (3 Big Data Points).", "New in the Market: One Point."}},
		{"my draw shortened", 0, "players:\n  - {name: ana, deck: [t-wrench, t-drill]}\n  - {name: ben, hand: [t-lag]}\nphase: end\nactive: 1\nsteps:\n  - {seat: 1, answer: t-lag}\n",
			[]string{"ben played Lag on your draw: the draw has 1 fewer card.", "You drew Wrench (TECH 1, SCI 0)."}},
		{"their turn", 0, "players:\n  - {name: ana, deck: [t-pizza, t-wrench, t-drill]}\n  - {name: ben, hand: [t-bob-j, t-wrench], deck: [t-drill]}\nmarket: [t-one]\nchallenge_deck: [t-two, t-big]\nactive: 1\nsteps:\n  - {do: place, card: t-bob-j}\n  - {do: play_tool, card: t-wrench}\n  - {do: claim, challenges: t-one}\n  - {do: end_turn}\n",
			[]string{"ben placed Bob (Junior) in their Lab.", "ben won One Point (1 Big Data Point).", "New in the Market: Two Points and Big One.", "You drew Pizza and Wrench (TECH 1, SCI 0)."}},
		{"their upgrade", 1, "players:\n  - {name: ana, hand: [t-bob-s], lab: [t-bob-j]}\n  - {name: ben}\nsteps:\n  - {do: place, card: t-bob-s}\n",
			[]string{"ana placed Bob (Senior) in their Lab, replacing Bob (Junior)."}},
		{"their keep", 1, "players:\n  - {name: ana, hand: [t-bob-j], lab: [t-bob-j]}\n  - {name: ben}\nsteps:\n  - {do: place, card: t-bob-j}\n  - {seat: 0, answer: \"in your Lab\"}\n",
			[]string{"ana kept the Bob already in their Lab; the new Bob (Junior) went to their Recycle Bin."}},
		{"the end", 1, "players:\n  - {name: ana, hand: [t-wrench]}\n  - {name: ben}\nmarket: [t-two]\nsteps:\n  - {do: play_tool, card: t-wrench}\n  - {do: claim, challenges: t-two}\n",
			[]string{"ana won Two Points (2 Big Data Points).", "The game is over: ana won with 2 Big Data Points."}},
		{"a shared win", 0, "players:\n  - {name: ana}\n  - {name: ben}\nsteps:\n  - {do: vote_end}\n  - {do: vote_end, seat: 1}\n",
			[]string{"ben voted to end the game as it stands.", "The game is over: you and ben share the win with 0 Big Data Points."}},
		{"nothing new", 0, "players:\n  - {name: ana, hand: [t-wrench]}\n  - {name: ben}\nsteps:\n  - {do: play_tool, card: t-wrench}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := scenarioRun(t, sentenceCards+tc.doc)
			events := stepEvents(res)
			if got := News(res.State, tc.seat, events); !slices.Equal(got, tc.want) {
				t.Errorf("news for seat %d:\n%s\nwant:\n%s", tc.seat, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestNewsTellsNoSecret: a seat's news names the cards it drew, and
// another seat's news names none of them.
func TestNewsTellsNoSecret(t *testing.T) {
	res, err := RunScenario([]byte(sentenceCards + "players:\n  - {name: ana, hand: [t-pizza], deck: [t-drill, t-wrench]}\n  - {name: ben, deck: [t-bob-j, t-bob-s]}\nsteps:\n  - {do: play_hack, card: t-pizza}\n  - {do: end_turn}\n"))
	if err != nil || res.Failed() {
		t.Fatal(err, res.Failures)
	}
	var events []Event
	for _, e := range res.Events {
		events = append(events, e.Event)
	}
	for _, tc := range []struct {
		seat         int
		want, secret string
	}{{0, "You drew Drill (TECH 3, SCI 3).", "Bob"}, {1, "You drew Bob (Junior) and Bob (Senior).", "Drill"}, {Spectator, "", "Drill"}} {
		got := News(res.State, tc.seat, events)
		if tc.want != "" && !slices.Contains(got, tc.want) {
			t.Errorf("seat %d: %q lacks %q", tc.seat, got, tc.want)
		}
		if all := strings.Join(got, " "); strings.Contains(all, tc.secret) || tc.seat == Spectator && all != "" {
			t.Errorf("seat %d's news tells too much: %q", tc.seat, all)
		}
	}
}

// TestWindowShowsTheCard: an interrupt window shows every seat the card
// about to be played, or the challenges about to be claimed, face up.
func TestWindowShowsTheCard(t *testing.T) {
	s := scenarioState(t, sentenceCards+"players:\n  - {name: ana, hand: [t-pizza, t-drill]}\n  - {name: ben, hand: [t-veto, t-creep]}\nmarket: [t-big, t-one]\nsteps:\n  - {do: play_hack, card: t-pizza}\n")
	for _, seat := range []int{0, 1, Spectator} {
		w := s.View(seat).Window
		if w == nil || w.Card == nil || w.Card.Card != "t-pizza" || w.Card.Text == "" || len(w.Challenges) != 0 {
			t.Errorf("seat %d: window %+v", seat, w)
		}
	}
	s = scenarioState(t, sentenceCards+"players:\n  - {name: ana, hand: [t-drill, t-wrench]}\n  - {name: ben, hand: [t-creep]}\nmarket: [t-big, t-one]\nsteps:\n  - {do: play_tool, card: t-drill}\n  - {do: play_tool, card: t-wrench}\n  - {do: claim, challenges: t-big}\n")
	w := s.View(Spectator).Window
	if w == nil || w.Card != nil || len(w.Challenges) != 1 || w.Challenges[0].Card != "t-big" || w.Challenges[0].Tech != 4 {
		t.Errorf("the claim's window: %+v", w)
	}
}

// TestZeroTable: the zero Table has no news.
func TestZeroTable(t *testing.T) {
	if got := (Table{}).News(0, []Event{{Kind: "drew", Seat: 0, Cards: []string{"data-lake"}}}); got != nil {
		t.Errorf("%q", got)
	}
}

// TestNewsTelling: NewsTelling names, for each event, the sentence of the
// news that tells it: both challenges revealed by one sentence of the
// Market, an alteration and the claim it made fail by one sentence, each
// draw and placement by its own (a card placed tells its play too), and no
// sentence for a turn that ends or begins or a Tool played as asked. An
// event is looked up by its kind and card ("played t-bob-j"), or by its
// kind alone.
func TestNewsTelling(t *testing.T) {
	for _, tc := range []struct {
		name string
		seat int
		doc  string
		want map[string]string // the sentence telling every event of a kind ("": none)
	}{
		{"their turn", 0, "players:\n  - {name: ana, deck: [t-pizza, t-wrench, t-drill]}\n  - {name: ben, hand: [t-bob-j, t-wrench], deck: [t-drill]}\nmarket: [t-one]\nchallenge_deck: [t-two, t-big]\nactive: 1\nsteps:\n  - {do: place, card: t-bob-j}\n  - {do: play_tool, card: t-wrench}\n  - {do: claim, challenges: t-one}\n  - {do: end_turn}\n",
			map[string]string{KindPlaced: "ben placed Bob (Junior) in their Lab.", KindBuildCompleted: "ben won One Point (1 Big Data Point).",
				KindChallengeRevealed: "New in the Market: Two Points and Big One.", KindDrew: "You drew Pizza and Wrench (TECH 1, SCI 0).",
				KindPlayed + " t-bob-j": "ben placed Bob (Junior) in their Lab.", KindPlayed + " t-wrench": "",
				KindTurnEnded: "", KindTurnStarted: "", KindToolPlayed: ""}},
		{"my claim failed", 0, "players:\n  - {name: ana, hand: [t-drill, t-wrench]}\n  - {name: bot-1, hand: [t-creep]}\nmarket: [t-big]\nchallenge_deck: [t-one]\nsteps:\n  - {do: play_tool, card: t-drill}\n  - {do: play_tool, card: t-wrench}\n  - {do: claim, challenges: t-big}\n  - {seat: 1, answer: t-creep}\n",
			map[string]string{KindAltered: "bot-1 played Creep on your claim of Big One: the challenges need 2 more TECH, so the claim failed; the build stays open.",
				KindClaimFailed: "bot-1 played Creep on your claim of Big One: the challenges need 2 more TECH, so the claim failed; the build stays open.",
				KindToolPlayed:  ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := RunScenario([]byte(sentenceCards + tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			var events []Event
			for _, e := range res.Events {
				if e.Step > 0 {
					events = append(events, e.Event)
				}
			}
			news, telling := res.State.Table().NewsTelling(tc.seat, events)
			if !slices.Equal(news, News(res.State, tc.seat, events)) || len(telling) != len(events) {
				t.Fatalf("NewsTelling's news %q (%d indexes for %d events) is not News's", news, len(telling), len(events))
			}
			seen := map[string]bool{}
			for i, e := range events {
				k := e.Kind + " " + e.Card
				want, ok := tc.want[k]
				if !ok {
					k = e.Kind
					want, ok = tc.want[k]
				}
				if !ok {
					continue
				}
				seen[k] = true
				got := ""
				if telling[i] >= 0 {
					got = news[telling[i]]
				}
				if got != want {
					t.Errorf("event %d (%s) is told by %q, want %q", i, k, got, want)
				}
			}
			for k := range tc.want {
				if !seen[k] {
					t.Errorf("no %s event in the scenario", k)
				}
			}
		})
	}
}

// TestNewsLeavesTimeoutsInTheLog: a timeout's sentence in the news says
// whose time ran out, not what came of it, so NewsTelling names no
// sentence for it and a list of the log keeps its line.
func TestNewsLeavesTimeoutsInTheLog(t *testing.T) {
	s := &State{Players: []Player{{Name: "ana"}, {Name: "ben"}}}
	ev := Event{Kind: KindTimeout, Seat: -1, Seats: []int{1}, Text: "Time ran out for ben: the turn ends."}
	news, telling := s.Table().NewsTelling(0, []Event{ev})
	if !slices.Equal(news, []string{"Time ran out for ben."}) || !slices.Equal(telling, []int{-1}) {
		t.Fatalf("news %q, telling %v", news, telling)
	}
}

// TestNewsCallsTheDealTheOpeningHand: the cards dealt before the first
// turn are the seat's opening hand, not a draw, so that the news of the
// second player's first turn does not open with two "You drew"
// sentences: its opening hand, then its first draw. The active player's
// first draw is a draw; a spectator hears of neither.
func TestNewsCallsTheDealTheOpeningHand(t *testing.T) {
	a, b := packs(t)
	s, events, err := NewGame(Setup{Seed: 7, Players: []SeatSetup{{Name: "Ana", Deck: a}, {Name: "Ben", Deck: b}}})
	if err != nil {
		t.Fatal(err)
	}
	first, second := s.Active, 1-s.Active
	count := func(news []string, prefix string) int {
		n := 0
		for _, l := range news {
			if strings.HasPrefix(l, prefix) {
				n++
			}
		}
		return n
	}
	if news := News(s, first, events); count(news, "Your opening hand: ") != 1 || count(news, "You drew ") != 1 {
		t.Errorf("the first player's news at the start: %q", news)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for steps := 0; s.Active == first; steps++ {
		seat := s.Active
		if len(s.Prompts) > 0 {
			seat = s.Prompts[0].Seat
		}
		legal := Legal(s, seat)
		if steps > 20 || len(legal) == 0 {
			t.Fatalf("the first turn does not end: seat %d, legal %+v", seat, legal)
		}
		a := legal[0]
		if i := slices.IndexFunc(legal, func(a Action) bool { return a.Type == ActEndTurn }); i >= 0 {
			a = legal[i]
		}
		more, err := Apply(s, seat, filled(s, a, r))
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, more...)
	}
	news := News(s, second, events)
	if count(news, "Your opening hand: ") != 1 || count(news, "You drew ") != 1 {
		t.Errorf("the second player's news on their first turn: %q", news)
	}
	dealt := slices.IndexFunc(events, func(e Event) bool { return e.Kind == KindDrew && e.Seat == second })
	v, _ := events[dealt].For(second)
	n := newsroom{t: s.Table()}
	if want := "Your opening hand: " + n.namedList(v.Cards) + "."; len(v.Cards) != 4 || !slices.Contains(news, want) {
		t.Errorf("the opening hand: %q, want %q", news, want)
	}
	if news := News(s, Spectator, events); count(news, "Your opening hand") != 0 || count(news, "You drew") != 0 {
		t.Errorf("a spectator's news: %q", news)
	}
}

// TestChosenAnswerIsNotNews: the cards a seat's own answer discards or
// takes (the hand limit, a look at its deck, its Recycle Bin) are its
// move, which its answer already words: the event names the question
// (Event.Chosen), echoes the move (Event.Echoes) and is no news to the
// seat. The same discard given at a timeout, by default, is news; and the
// other seats' copy names no question.
func TestChosenAnswerIsNotNews(t *testing.T) {
	const over = "players:\n  - {name: ana, hand: [t-wrench, t-wrench, t-wrench, t-wrench, t-wrench, t-wrench], deck: [t-drill, t-lag]}\n  - {name: ben}\nphase: draw\nsteps:\n"
	for _, tc := range []struct {
		name, doc, kind string
		chosen          bool
		news            string // the seat's news of that event ("" none)
	}{
		{"hand limit, answered", over + "  - {seat: 0, answer: [t-drill, t-lag]}\n", KindDiscarded, true, ""},
		{"hand limit, timed out", over + "  - {do: timeout}\n", KindDiscarded, false, "You discarded "},
		{"a look, answered", "players:\n  - {name: ana, hand: [t-peek], deck: [t-wrench, t-drill, t-bob-j]}\n  - {name: ben}\nsteps:\n  - {do: play_hack, card: t-peek}\n  - {seat: 0, answer: t-drill}\n", KindLooked, true, ""},
		{"a look of one card", "players:\n  - {name: ana, hand: [t-glance], deck: [t-wrench, t-drill]}\n  - {name: ben}\nsteps:\n  - {do: play_hack, card: t-glance}\n", KindLooked, false, "You took Wrench"},
		{"the bin, answered", "players:\n  - {name: ana, hand: [t-undo], bin: [t-wrench, t-drill]}\n  - {name: ben}\nsteps:\n  - {do: play_hack, card: t-undo}\n  - {seat: 0, answer: t-drill}\n", KindRecovered, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := scenarioRun(t, sentenceCards+tc.doc)
			events := stepEvents(res)
			found := 0
			for _, e := range events {
				if e.Kind != tc.kind {
					continue
				}
				found++
				own, _ := e.For(0)
				if own.Chosen() != tc.chosen || own.Echoes(0) != tc.chosen {
					t.Errorf("ana's %s event %+v: chosen %v, echoes %v, want %v", tc.kind, own, own.Chosen(), own.Echoes(0), tc.chosen)
				}
				if other, ok := e.For(1); ok && (other.Prompt != "" || other.Chosen() || other.Echoes(1)) {
					t.Errorf("ben's copy %+v names the question or echoes", other)
				}
			}
			if found != 1 {
				t.Fatalf("%d %s events in %+v", found, tc.kind, res.Events)
			}
			told := slices.ContainsFunc(News(res.State, 0, events), func(s string) bool { return tc.news != "" && strings.HasPrefix(s, tc.news) })
			if told != (tc.news != "") || (tc.news == "" && slices.ContainsFunc(News(res.State, 0, events), func(s string) bool {
				return strings.HasPrefix(s, "You discarded") || strings.HasPrefix(s, "You took")
			})) {
				t.Errorf("ana's news %q, want a sentence starting %q", News(res.State, 0, events), tc.news)
			}
		})
	}
}

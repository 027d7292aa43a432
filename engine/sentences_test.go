package engine

import (
	"strings"
	"testing"
)

// sentenceCards are the inline cards of the sentence table's positions.
const sentenceCards = `
cards:
  - {id: t-wrench, name: Wrench, type: tool, tech: 1}
  - {id: t-drill, name: Drill, type: tool, tech: 3, sci: 3}
  - {id: t-pizza, name: Pizza, type: hack, effects: [{trigger: play, do: [{op: draw, n: 1}]}]}
  - {id: t-veto, name: Veto, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: play_hack, do: [{op: cancel}]}]}
  - {id: t-freeze, name: Freeze, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: place, do: [{op: cancel}]}]}
  - {id: t-creep, name: Creep, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: claim, do: [{op: alter, stat: tech, n: 2}]}]}
  - {id: t-lag, name: Lag, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: draw, do: [{op: alter, stat: draw, n: -1}]}]}
  - {id: t-stop, name: Stop, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: draw, do: [{op: cancel}]}]}
  - {id: t-bob-j, name: Bob, type: monster, level: junior, classes: [Engineer, Designer]}
  - {id: t-bob-s, name: Bob, type: monster, level: senior, classes: [Engineer, Designer]}
  - {id: t-one, name: One Point, type: challenge, tech: 1, points: 1}
  - {id: t-two, name: Two Points, type: challenge, tech: 1, points: 2}
  - {id: t-big, name: Big One, type: challenge, tech: 4, sci: 3, points: 3}
`

// TestEventSentences reads the sentence of every kind of event the log,
// the pages and the emails show, as the seat it is for sees it: counts of
// one and of several, a player with a name and a seat without one, and
// the game itself (no seat). Each row sets up a position and plays its
// steps; the event of kind (the nth, counting from 1) as seat sees it must
// read want exactly.
func TestEventSentences(t *testing.T) {
	two := "players:\n  - {name: Ana, hand: [t-pizza, t-wrench, t-drill, t-bob-j, t-bob-s], deck: [t-pizza, t-wrench, t-drill]}\n  - {name: Ben, hand: [t-veto, t-freeze, t-creep], deck: [t-pizza, t-wrench]}\n"
	unnamed := "players:\n  - {hand: [t-pizza], deck: [t-wrench, t-drill]}\n  - {hand: [t-veto]}\n"
	for _, tc := range []struct {
		name, kind string
		nth        int // 0: the first
		seat       int // who reads it (Spectator: nobody's)
		doc        string
		want       string
	}{
		{"game started", "game_started", 0, Spectator, "setup:\n  seed: 1\n  players:\n    - {name: Ana, deck: running-a-startup}\n    - {name: Ben, deck: working-for-the-enterprise}\n",
			"The game begins with 2 players; Ana goes first."},
		{"turn started", "turn_started", 0, Spectator, two + "steps:\n  - do: end_turn\n", "Turn 2: Ben begins."},
		{"turn ended", "turn_ended", 0, Spectator, two + "steps:\n  - do: end_turn\n", "Ana ends their turn."},
		{"turn ended, no name", "turn_ended", 0, Spectator, unnamed + "steps:\n  - do: end_turn\n", "Seat 0 ends their turn."},
		{"drew one, own", "drew", 0, 1, "players:\n  - {name: Ana}\n  - {name: Ben, hand: [t-pizza], deck: [t-drill, t-wrench]}\nactive: 1\nsteps:\n  - {do: play_hack, card: t-pizza}\n", "You draw Drill."},
		{"drew several, own", "drew", 0, 1, two + "steps:\n  - do: end_turn\n", "You draw Pizza and Wrench."},
		{"drew several, other", "drew", 0, 0, two + "steps:\n  - do: end_turn\n", "Ben draws 2 cards."},
		{"drew one, other", "drew", 0, 0, "players:\n  - {name: Ana}\n  - {name: Ben, deck: [t-wrench]}\nsteps:\n  - do: end_turn\n", "Ben draws 1 card."},
		{"drew, no name", "drew", 0, 0, "players:\n  - {}\n  - {deck: [t-wrench, t-drill]}\nsteps:\n  - do: end_turn\n", "Seat 1 draws 2 cards."},
		{"played", "played", 0, Spectator, two + "steps:\n  - do: play_hack\n    card: t-pizza\n  - {seat: 1, answer: pass}\n", "Ana plays Pizza."},
		{"window opened, Hack", "window_opened", 0, Spectator, two + "steps:\n  - do: play_hack\n    card: t-pizza\n",
			"Ana is about to play the Hack Pizza; Ben may answer with an interrupt."},
		{"window opened, place", "window_opened", 0, Spectator, two + "steps:\n  - do: place\n    card: t-bob-j\n",
			"Ana is about to place Bob (Junior); Ben may answer with an interrupt."},
		{"window closed, none", "window_closed", 0, Spectator, two + "steps:\n  - do: play_hack\n    card: t-pizza\n  - {seat: 1, answer: pass}\n",
			"The interrupt window closes: nobody interrupts."},
		{"window closed, one", "window_closed", 0, Spectator, two + "steps:\n  - do: play_hack\n    card: t-pizza\n  - {seat: 1, answer: t-veto}\n",
			"The interrupt window closes with 1 interrupt."},
		{"answered", "answered", 0, Spectator, two + "steps:\n  - do: play_hack\n    card: t-pizza\n  - {seat: 1, answer: pass}\n", "Ben has answered."},
		{"waiting", "waiting", 0, 0, two + "steps:\n  - do: play_hack\n    card: t-pizza\n", "Waiting for Ben to decide."},
		{"prompt", "prompt", 0, 1, two + "steps:\n  - do: play_hack\n    card: t-pizza\n", "Ana is about to play the Hack Pizza. Play an interrupt Hack, or pass."},
		{"hack resolved", "hack_resolved", 0, Spectator, two + "steps:\n  - do: play_hack\n    card: t-pizza\n  - {seat: 1, answer: pass}\n", "Ana's Pizza takes effect."},
		{"cancelled Hack", "cancelled", 0, Spectator, two + "steps:\n  - do: play_hack\n    card: t-pizza\n  - {seat: 1, answer: t-veto}\n",
			"Veto cancels Ana's Pizza, which goes to the Recycle Bin."},
		{"cancelled placement", "cancelled", 0, Spectator, two + "steps:\n  - do: place\n    card: t-bob-j\n  - {seat: 1, answer: t-freeze}\n",
			"Freeze cancels Ana's Bob (Junior), which goes to the Recycle Bin."},
		{"cancelled draw", "cancelled", 0, Spectator, "players:\n  - {name: Ana}\n  - {name: Ben, hand: [t-stop]}\nphase: end\nactive: 1\nsteps:\n  - {seat: 1, answer: t-stop}\n",
			"Stop cancels Ana's draw of 2 cards."},
		{"altered draw", "altered", 0, Spectator, "players:\n  - {name: Ana, deck: [t-wrench, t-drill]}\n  - {name: Ben, hand: [t-lag]}\nphase: end\nactive: 1\nsteps:\n  - {seat: 1, answer: t-lag}\n",
			"Lag: Ana draws 1 fewer card."},
		{"altered claim", "altered", 0, Spectator, "players:\n  - {name: Ana, hand: [t-drill, t-wrench]}\n  - {name: Ben, hand: [t-creep]}\nmarket: [t-big]\nchallenge_deck: [t-one]\nsteps:\n  - {do: play_tool, card: t-drill}\n  - {do: play_tool, card: t-wrench}\n  - {do: claim, challenges: t-big}\n  - {seat: 1, answer: t-creep}\n",
			"Creep: Ana's claim of Big One needs 2 more TECH."},
		{"claim failed", "claim_failed", 0, Spectator, "players:\n  - {name: Ana, hand: [t-drill, t-wrench]}\n  - {name: Ben, hand: [t-creep]}\nmarket: [t-big]\nchallenge_deck: [t-one]\nsteps:\n  - {do: play_tool, card: t-drill}\n  - {do: play_tool, card: t-wrench}\n  - {do: claim, challenges: t-big}\n  - {seat: 1, answer: t-creep}\n",
			"Ana's claim of Big One fails: it needs 6 TECH and 3 SCI; the Software Build has 4 TECH and 3 SCI and stays open."},
		{"tool played", "tool_played", 0, Spectator, "players:\n  - {name: Ana, hand: [t-drill]}\n  - {name: Ben}\nsteps:\n  - {do: play_tool, card: t-drill}\n",
			"Ana adds Drill to the Software Build (now 3 TECH, 3 SCI)."},
		{"build completed, one point", "build_completed", 0, Spectator, "players:\n  - {name: Ana, hand: [t-wrench]}\n  - {name: Ben}\nmarket: [t-one]\nchallenge_deck: [t-two]\nsteps:\n  - {do: play_tool, card: t-wrench}\n  - {do: claim, challenges: t-one}\n",
			"Ana completes a Software Build of 1 Tool and wins One Point (1 Big Data Point)."},
		{"build completed, points", "build_completed", 0, Spectator, "players:\n  - {name: Ana, hand: [t-drill, t-wrench]}\n  - {name: Ben}\nmarket: [t-one, t-two]\nchallenge_deck: [t-big]\nsteps:\n  - {do: play_tool, card: t-drill}\n  - {do: play_tool, card: t-wrench}\n  - {do: claim, challenges: [t-one, t-two]}\n",
			"Ana completes a Software Build of 2 Tools and wins One Point and Two Points (3 Big Data Points)."},
		{"challenge revealed", "challenge_revealed", 0, Spectator, "players:\n  - {name: Ana, hand: [t-wrench]}\n  - {name: Ben}\nmarket: [t-one]\nchallenge_deck: [t-two]\nsteps:\n  - {do: play_tool, card: t-wrench}\n  - {do: claim, challenges: t-one}\n",
			"Two Points opens in the Market."},
		{"build abandoned", "build_abandoned", 0, Spectator, "players:\n  - {name: Ana, hand: [t-wrench]}\n  - {name: Ben}\nsteps:\n  - {do: play_tool, card: t-wrench}\n  - {do: abandon_build}\n",
			"Ana abandons a Software Build of 1 Tool."},
		{"placed", "placed", 0, Spectator, "players:\n  - {name: Ana, hand: [t-bob-j]}\n  - {name: Ben}\nsteps:\n  - {do: place, card: t-bob-j}\n", "Ana places Bob (Junior) in the Lab."},
		{"placed, upgrade", "placed", 0, Spectator, "players:\n  - {name: Ana, hand: [t-bob-s], lab: [t-bob-j]}\n  - {name: Ben}\nsteps:\n  - {do: place, card: t-bob-s}\n",
			"Ana places Bob (Senior) in the Lab, replacing Bob (Junior)."},
		{"kept", "kept", 0, Spectator, "players:\n  - {name: Ana, hand: [t-bob-j], lab: [t-bob-j]}\n  - {name: Ben}\nsteps:\n  - {do: place, card: t-bob-j}\n  - {seat: 0, answer: \"in your Lab\"}\n",
			"Ana keeps the Bob already in the Lab."},
		{"discarded, own", "discarded", 0, 0, "players:\n  - {name: Ana, hand: [t-wrench, t-wrench, t-wrench, t-wrench, t-wrench, t-wrench], deck: [t-drill, t-pizza]}\n  - {name: Ben}\nphase: draw\nsteps:\n  - {seat: 0, answer: [t-drill, t-pizza]}\n",
			"You discard Drill and Pizza."},
		{"discarded, other", "discarded", 0, 1, "players:\n  - {name: Ana, hand: [t-wrench, t-wrench, t-wrench, t-wrench, t-wrench, t-wrench], deck: [t-drill]}\n  - {name: Ben}\nphase: draw\nsteps:\n  - {seat: 0, answer: [t-drill]}\n",
			"Ana discards 1 card."},
		{"deck reshuffled", "deck_reshuffled", 0, Spectator, "players:\n  - {name: Ana, bin: [t-wrench, t-drill]}\n  - {name: Ben}\nphase: draw\n",
			"Ana shuffles the Recycle Bin into a new Laboratory Deck of 2 cards."},
		{"voted", "voted_end", 0, Spectator, two + "steps:\n  - do: vote_end\n", "Ana votes to end the game."},
		{"game over", "game_over", 0, Spectator, two + "steps:\n  - do: vote_end\n  - {do: vote_end, seat: 1}\n",
			"The game is over (all players agreed to end it). Winner: Ana and Ben."},
		{"resigned", "resigned", 0, Spectator, two + "steps:\n  - {do: resign, seat: 1}\n", "Ben resigns."},
		{"timeout, turn", "timeout", 0, Spectator, two + "steps:\n  - do: timeout\n", "Time ran out for Ana: the turn ends."},
		{"timeout, prompt", "timeout", 0, Spectator, two + "steps:\n  - do: play_hack\n    card: t-pizza\n  - do: timeout\n",
			"Time ran out for Ben: the default answers apply."},
		{"unnamed window", "window_opened", 0, Spectator, unnamed + "steps:\n  - do: play_hack\n    card: t-pizza\n",
			"Seat 0 is about to play the Hack Pizza; Seat 1 may answer with an interrupt."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := RunScenario([]byte(sentenceCards + tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed() {
				t.Fatal(res.Failures)
			}
			var seen []string
			n := 0
			for _, e := range res.Events {
				v, ok := e.For(tc.seat)
				if !ok {
					continue
				}
				seen = append(seen, v.Kind+": "+v.Text)
				if v.Kind != tc.kind {
					continue
				}
				if n == tc.nth {
					if v.Text != tc.want {
						t.Errorf("%s reads %q, want %q", tc.kind, v.Text, tc.want)
					}
					return
				}
				n++
			}
			t.Fatalf("no %s event for seat %d in:\n%s", tc.kind, tc.seat, strings.Join(seen, "\n"))
		})
	}
}

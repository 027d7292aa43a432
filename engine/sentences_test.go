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
  - {id: t-lag2, name: Slowdown, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: draw, do: [{op: alter, stat: draw, n: -2}]}]}
  - {id: t-lamp, name: Lamp, type: lab_equipment, effects: [{trigger: activated, do: [{op: draw, n: 1}]}]}
  - {id: t-turbo, name: Turbo, type: tool, tech: 1, effects: [{trigger: play, do: [{op: boost, stat: sci, n: 2}]}]}
  - {id: t-nudge, name: Nudge, type: tool, effects: [{trigger: play, do: [{op: boost, stat: tech, n: 1}]}]}
  - {id: t-peek, name: Peek, type: hack, effects: [{trigger: play, do: [{op: look, n: 3}]}]}
  - {id: t-glance, name: Glance, type: hack, effects: [{trigger: play, do: [{op: look, n: 1}]}]}
  - {id: t-undo, name: Undo, type: hack, effects: [{trigger: play, do: [{op: recover, n: 1}]}]}
  - {id: t-undo2, name: Undo Twice, type: hack, effects: [{trigger: play, do: [{op: recover, n: 2}]}]}
  - {id: t-gc, name: Garbage Collect, type: hack, effects: [{trigger: play, do: [{op: recycle}]}]}
  - {id: t-bolt, name: Bolt, type: tool, tech: 1, keywords: [component]}
  - {id: t-engine, name: Engine, type: tool, tech: 1, keywords: [stack], recipe: [t-bolt], effects: [{trigger: play, if: {recipe: true}, do: [{op: draw, n: 1}]}]}
  - {id: t-storm, name: Storm, type: hack, keywords: [global], effects: [{trigger: static, do: [{op: modify, stat: tech, n: -1, who: opponents}]}]}
  - {id: t-pivot, name: Pivot, type: hack, effects: [{trigger: play, do: [{op: refresh, n: 2}]}]}
  - {id: t-kick, name: Kick, type: hack, effects: [{trigger: play, do: [{op: bounce, target: monster, who: opponents}]}]}
  - {id: t-axe, name: Layoffs, type: hack, effects: [{trigger: play, do: [{op: scrap, target: monster, who: opponents}]}]}
  - {id: t-yank, name: Yank, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: place, do: [{op: bounce, target: monster, who: actor}]}]}
`

// TestEventSentences reads the sentence of every kind of event the log,
// the pages and the emails show, as the seat it is for sees it: counts of
// one and of several, a player with a name and a seat without one, and
// the game itself (no seat). Each row sets up a position and plays its
// steps; the event of kind (the nth, counting from 0) as seat sees it must
// read want exactly. Every kind the engine records (EventKinds) has a
// row: a new kind fails the test until its sentence is read here.
func TestEventSentences(t *testing.T) {
	covered := map[string]bool{}
	two := "players:\n  - {name: Ana, hand: [t-pizza, t-wrench, t-drill, t-bob-j, t-bob-s], deck: [t-pizza, t-wrench, t-drill]}\n  - {name: Ben, hand: [t-veto, t-freeze, t-creep], deck: [t-pizza, t-wrench]}\n"
	unnamed := "players:\n  - {hand: [t-pizza], deck: [t-wrench, t-drill]}\n  - {hand: [t-veto]}\n"
	three := "players:\n  - {name: Ana, hand: [t-pizza]}\n  - {name: Ben, hand: [t-veto]}\n  - {name: Cy, hand: [t-veto]}\n"
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
		{"played, a placement", "played", 0, Spectator, two + "steps:\n  - {do: place, card: t-bob-j}\n", "Ana plays Bob (Junior)."},
		{"played, a Tool", "played", 0, Spectator, two + "steps:\n  - {do: play_tool, card: t-drill}\n", "Ana plays Drill (TECH 3, SCI 3)."},
		{"played, no name", "played", 0, Spectator, unnamed + "steps:\n  - {do: play_hack, card: t-pizza}\n", "Seat 0 plays Pizza."},
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
			"The game is over (all players agreed to end it). Winners: Ana and Ben."},
		{"resigned", "resigned", 0, Spectator, two + "steps:\n  - {do: resign, seat: 1}\n", "Ben resigns."},
		{"timeout, turn", "timeout", 0, Spectator, two + "steps:\n  - do: timeout\n", "Time ran out for Ana: the turn ends."},
		{"timeout, prompt", "timeout", 0, Spectator, two + "steps:\n  - do: play_hack\n    card: t-pizza\n  - do: timeout\n",
			"Time ran out for Ben: the default answers apply."},
		{"unnamed window", "window_opened", 0, Spectator, unnamed + "steps:\n  - do: play_hack\n    card: t-pizza\n",
			"Seat 0 is about to play the Hack Pizza; Seat 1 may answer with an interrupt."},
		{"game started, three", "game_started", 0, Spectator, "setup:\n  seed: 1\n  players:\n    - {name: Ana, deck: running-a-startup}\n    - {name: Ben, deck: working-for-the-enterprise}\n    - {name: Cy, deck: running-a-startup}\n",
			"The game begins with 3 players; Ben goes first."},
		{"turn started, no name", "turn_started", 0, Spectator, unnamed + "steps:\n  - do: end_turn\n",
			"Turn 2: Seat 1 begins."},
		{"window closed, several", "window_closed", 0, Spectator, three + "steps:\n  - do: play_hack\n    card: t-pizza\n  - {seat: 1, answer: t-veto}\n  - {seat: 2, answer: t-veto}\n",
			"The interrupt window closes with 2 interrupts."},
		{"altered draw, several", "altered", 0, Spectator, "players:\n  - {name: Ana, deck: [t-wrench, t-drill]}\n  - {name: Ben, hand: [t-lag2]}\nphase: end\nactive: 1\nsteps:\n  - {seat: 1, answer: t-lag2}\n",
			"Slowdown: Ana draws 2 fewer cards."},
		{"claim failed, several", "claim_failed", 0, Spectator, "players:\n  - {name: Ana, hand: [t-drill]}\n  - {name: Ben, hand: [t-creep]}\nmarket: [t-one, t-two]\nchallenge_deck: [t-big]\nsteps:\n  - {do: play_tool, card: t-drill}\n  - {do: claim, challenges: [t-one, t-two]}\n  - {seat: 1, answer: t-creep}\n",
			"Ana's claim of One Point and Two Points fails: it needs 4 TECH and 0 SCI; the Software Build has 3 TECH and 3 SCI and stays open."},
		{"build abandoned, several", "build_abandoned", 0, Spectator, "players:\n  - {name: Ana, hand: [t-wrench, t-drill]}\n  - {name: Ben}\nsteps:\n  - {do: play_tool, card: t-wrench}\n  - {do: play_tool, card: t-drill}\n  - {do: abandon_build}\n",
			"Ana abandons a Software Build of 2 Tools."},
		{"discarded several, other", "discarded", 0, 1, "players:\n  - {name: Ana, hand: [t-wrench, t-wrench, t-wrench, t-wrench, t-wrench, t-wrench], deck: [t-drill, t-pizza]}\n  - {name: Ben}\nphase: draw\nsteps:\n  - {seat: 0, answer: [t-drill, t-pizza]}\n",
			"Ana discards 2 cards."},
		{"discarded one, own", "discarded", 0, 0, "players:\n  - {name: Ana, hand: [t-wrench, t-wrench, t-wrench, t-wrench, t-wrench, t-wrench], deck: [t-drill]}\n  - {name: Ben}\nphase: draw\nsteps:\n  - {seat: 0, answer: [t-drill]}\n",
			"You discard Drill."},
		{"deck reshuffled, one", "deck_reshuffled", 0, Spectator, "players:\n  - {name: Ana, bin: [t-wrench]}\n  - {name: Ben}\nphase: draw\n",
			"Ana shuffles the Recycle Bin into a new Laboratory Deck of 1 card."},
		{"timeout, several", "timeout", 0, Spectator, three + "steps:\n  - do: play_hack\n    card: t-pizza\n  - do: timeout\n",
			"Time ran out for Ben and Cy: the default answers apply."},
		{"game over, one winner", "game_over", 0, Spectator, two + "steps:\n  - {do: resign, seat: 1}\n",
			"The game is over (only one player is left). Winner: Ana."},
		{"resigned, no name", "resigned", 0, Spectator, unnamed + "steps:\n  - {do: resign, seat: 1}\n",
			"Seat 1 resigns."},
		{"activated", "activated", 0, Spectator, "players:\n  - {name: Ana, lab: [t-lamp], deck: [t-wrench]}\n  - {name: Ben}\nsteps:\n  - {do: activate, card: t-lamp}\n",
			"Ana activates Lamp."},
		{"activated, no name", "activated", 0, Spectator, "players:\n  - {lab: [t-lamp], deck: [t-wrench]}\n  - {}\nsteps:\n  - {do: activate, card: t-lamp}\n",
			"Seat 0 activates Lamp."},
		{"boosted, several", "boosted", 0, Spectator, "players:\n  - {name: Ana, hand: [t-turbo]}\n  - {name: Ben}\nsteps:\n  - {do: play_tool, card: t-turbo}\n",
			"Turbo adds 2 SCI to the Software Build."},
		{"boosted, one", "boosted", 0, Spectator, "players:\n  - {name: Ana, hand: [t-nudge]}\n  - {name: Ben}\nsteps:\n  - {do: play_tool, card: t-nudge}\n",
			"Nudge adds 1 TECH to the Software Build."},
		{"looked, own", "looked", 0, 0, "players:\n  - {name: Ana, hand: [t-peek], deck: [t-wrench, t-drill, t-pizza]}\n  - {name: Ben}\nsteps:\n  - {do: play_hack, card: t-peek}\n  - {seat: 0, answer: t-drill}\n",
			"You look at Drill, Wrench and Pizza and take Drill."},
		{"looked, other", "looked", 0, 1, "players:\n  - {name: Ana, hand: [t-peek], deck: [t-wrench, t-drill, t-pizza]}\n  - {name: Ben}\nsteps:\n  - {do: play_hack, card: t-peek}\n  - {seat: 0, answer: t-drill}\n",
			"Ana looks at 3 cards of their deck and takes one."},
		{"looked at one, own", "looked", 0, 0, "players:\n  - {name: Ana, hand: [t-glance], deck: [t-wrench, t-drill]}\n  - {name: Ben}\nsteps:\n  - {do: play_hack, card: t-glance}\n",
			"You take Wrench, the top card of your Laboratory Deck."},
		{"looked at one, other", "looked", 0, 1, "players:\n  - {name: Ana, hand: [t-glance], deck: [t-wrench, t-drill]}\n  - {name: Ben}\nsteps:\n  - {do: play_hack, card: t-glance}\n",
			"Ana takes the top card of their Laboratory Deck."},
		{"looked, no name", "looked", 0, 1, "players:\n  - {hand: [t-peek], deck: [t-wrench, t-drill, t-pizza]}\n  - {}\nsteps:\n  - {do: play_hack, card: t-peek}\n  - {seat: 0, answer: t-drill}\n",
			"Seat 0 looks at 3 cards of their deck and takes one."},
		{"recovered one, own", "recovered", 0, 0, "players:\n  - {name: Ana, hand: [t-undo], bin: [t-wrench, t-drill]}\n  - {name: Ben}\nsteps:\n  - {do: play_hack, card: t-undo}\n  - {seat: 0, answer: t-drill}\n",
			"You take Drill from your Recycle Bin."},
		{"recovered several, own", "recovered", 0, 0, "players:\n  - {name: Ana, hand: [t-undo2], bin: [t-wrench, t-drill, t-pizza]}\n  - {name: Ben}\nsteps:\n  - {do: play_hack, card: t-undo2}\n  - {seat: 0, answer: [t-wrench, t-drill]}\n",
			"You take Wrench and Drill from your Recycle Bin."},
		{"recovered one, other", "recovered", 0, 1, "players:\n  - {name: Ana, hand: [t-undo], bin: [t-wrench, t-drill]}\n  - {name: Ben}\nsteps:\n  - {do: play_hack, card: t-undo}\n  - {seat: 0, answer: t-drill}\n",
			"Ana takes 1 card from the Recycle Bin."},
		{"recovered several, other", "recovered", 0, 1, "players:\n  - {name: Ana, hand: [t-undo2], bin: [t-wrench, t-drill, t-pizza]}\n  - {name: Ben}\nsteps:\n  - {do: play_hack, card: t-undo2}\n  - {seat: 0, answer: [t-wrench, t-drill]}\n",
			"Ana takes 2 cards from the Recycle Bin."},
		{"recovered, no name", "recovered", 0, 1, "players:\n  - {hand: [t-undo], bin: [t-wrench]}\n  - {}\nsteps:\n  - {do: play_hack, card: t-undo}\n",
			"Seat 0 takes 1 card from the Recycle Bin."},
		{"recycled, several", "recycled", 0, Spectator, "players:\n  - {name: Ana, hand: [t-gc], bin: [t-wrench, t-drill]}\n  - {name: Ben}\nsteps:\n  - {do: play_hack, card: t-gc}\n",
			"Ana shuffles 2 cards from the Recycle Bin into the Laboratory Deck."},
		{"recycled, one", "recycled", 0, Spectator, "players:\n  - {name: Ana, hand: [t-gc], bin: [t-wrench]}\n  - {name: Ben}\nsteps:\n  - {do: play_hack, card: t-gc}\n",
			"Ana shuffles 1 card from the Recycle Bin into the Laboratory Deck."},
		{"recycled, none", "recycled", 0, Spectator, "players:\n  - {name: Ana, hand: [t-gc]}\n  - {name: Ben}\nsteps:\n  - {do: play_hack, card: t-gc}\n",
			"Ana has no card in the Recycle Bin to shuffle into the Laboratory Deck."},
		{"recipe completed", "recipe_completed", 0, Spectator, "players:\n  - {name: Ana, hand: [t-bolt, t-engine], deck: [t-wrench]}\n  - {name: Ben}\nsteps:\n  - {do: play_tool, card: t-bolt}\n  - {do: play_tool, card: t-engine}\n",
			"Ana's Software Build holds the recipe of Engine: its effect applies."},
		{"global expired", "global_expired", 0, Spectator, "players:\n  - {name: Ana}\n  - {name: Ben}\nglobal: [{card: t-storm, owner: 0}]\nactive: 1\nsteps:\n  - do: end_turn\n",
			"Ana's Storm leaves the Global zone."},
		{"global expired, no name", "global_expired", 0, Spectator, "players:\n  - {}\n  - {}\nglobal: [{card: t-storm, owner: 0}]\nactive: 1\nsteps:\n  - do: end_turn\n",
			"Seat 0's Storm leaves the Global zone."},
		{"challenge refreshed", "challenge_refreshed", 0, Spectator, "players:\n  - {name: Ana, hand: [t-pivot]}\n  - {name: Ben}\nmarket: [t-one, t-two]\nchallenge_deck: [t-big]\nsteps:\n  - {do: play_hack, card: t-pivot}\n  - {seat: 0, answer: [t-two]}\n",
			"Ana puts Two Points under the Challenge Deck."},
		{"place failed", "place_failed", 0, Spectator, "players:\n  - {name: Ana, hand: [t-bob-s], lab: [t-bob-j]}\n  - {name: Ben, hand: [t-yank]}\nsteps:\n  - {do: place, card: t-bob-s}\n  - {seat: 1, answer: t-yank}\n",
			"Bob (Senior) cannot be placed any more and returns to Ana's hand."},
		{"bounce", "bounce", 0, Spectator, "players:\n  - {name: Ana, hand: [t-kick]}\n  - {name: Ben, lab: [t-bob-j]}\nsteps:\n  - {do: play_hack, card: t-kick}\n",
			"Kick sends Ben's Bob (Junior) from the Lab to their hand."},
		{"scrap", "scrap", 0, Spectator, "players:\n  - {name: Ana, hand: [t-axe]}\n  - {name: Ben, lab: [t-bob-s]}\nsteps:\n  - {do: play_hack, card: t-axe}\n",
			"Layoffs sends Ben's Bob (Senior) from the Lab to their Recycle Bin."},
		{"standing set", "standing_set", 0, 1, two + "steps:\n  - {do: standing, seat: 1, standing: {pass: true}}\n",
			"Your standing interrupt answers are saved."},
		{"voted, no name", "voted_end", 0, Spectator, unnamed + "steps:\n  - do: vote_end\n",
			"Seat 0 votes to end the game."},
		{"queued, one", "queued", 0, 0, two + "steps:\n  - batch:\n      - {do: play_hack, card: t-pizza}\n      - {do: end_turn}\n",
			"1 planned move waits for the game to continue."},
		{"queued, several", "queued", 0, 0, two + "steps:\n  - batch:\n      - {do: play_hack, card: t-pizza}\n      - {do: play_tool, card: t-wrench}\n      - {do: end_turn}\n",
			"2 planned moves wait for the game to continue."},
		{"queue resumed, one", "queue_resumed", 0, 0, two + "steps:\n  - batch:\n      - {do: play_hack, card: t-pizza}\n      - {do: play_tool, card: t-wrench}\n  - {seat: 1, answer: pass}\n",
			"Your planned move goes on: Play Wrench (TECH 1, SCI 0), starting a Software Build."},
		{"queue resumed, several", "queue_resumed", 0, 0, two + "steps:\n  - batch:\n      - {do: play_hack, card: t-pizza}\n      - {do: play_tool, card: t-wrench}\n      - {do: end_turn}\n  - {seat: 1, answer: pass}\n",
			"Your planned moves go on: Play Wrench (TECH 1, SCI 0), starting a Software Build; End your turn."},
		{"queue dropped, one", "queue_dropped", 0, 0, two + "steps:\n  - batch:\n      - {do: place, card: t-bob-j}\n      - {do: place, card: t-bob-s}\n  - {seat: 1, answer: t-freeze}\n",
			"Your planned move \"Place Bob (Senior) in your Lab\" was not played: a Senior Bob needs a Bob already in your Lab."},
		{"queue dropped, several", "queue_dropped", 0, 0, two + "steps:\n  - batch:\n      - {do: place, card: t-bob-j}\n      - {do: place, card: t-bob-s}\n      - {do: end_turn}\n  - {seat: 1, answer: t-freeze}\n",
			"Your 2 planned moves were not played, since \"Place Bob (Senior) in your Lab\" no longer goes: a Senior Bob needs a Bob already in your Lab. They were: Place Bob (Senior) in your Lab; End your turn."},
	} {
		if !IsEventKind(tc.kind) {
			t.Errorf("row %q: the engine records no event of kind %q", tc.name, tc.kind)
		}
		covered[tc.kind] = true
		t.Run(tc.name, func(t *testing.T) {
			res := scenarioRun(t, sentenceCards+tc.doc)
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
	// A game stored before secrets gets one (Reseal): no step does that.
	covered[KindResealed] = true
	t.Run("resealed", func(t *testing.T) {
		res, err := RunScenario([]byte(sentenceCards + two))
		if err != nil || res.Failed() {
			t.Fatal(err, res.Failures)
		}
		s := res.State
		s.Secret = Secret{} // as a game stored before secrets
		events := Reseal(s, SeedSecret(9))
		if len(events) != 1 || events[0].Kind != KindResealed {
			t.Fatalf("Reseal: %+v", events)
		}
		v, ok := events[0].For(Spectator)
		if want := "The game gets a new random source: the Laboratory Decks and the Challenge Deck are reshuffled."; !ok || v.Text != want {
			t.Errorf("resealed reads %q, want %q", v.Text, want)
		}
	})
	for _, k := range EventKinds() {
		if !covered[k] {
			t.Errorf("no row reads an event of kind %s", k)
		}
	}
}

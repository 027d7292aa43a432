package engine

import (
	"fmt"
	"strings"
	"testing"
)

func TestCardText(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{"social-network", "Global Social Network\nHard Challenge — TECH 8 · SCI 8 — 7 Big Data Points"},
		{"landing-page", "Landing Page\nChallenge — TECH 4 · SCI 2 — 1 Big Data Point"},
		{"glitchy-senior", "Glitchy\nSenior Monster — Engineer / Designer\nYour Software Builds get +1 TECH and +1 SCI."},
		{"doodle-chief", "Doodle\nChief Monster — Designer / Analyst\n" +
			"At the beginning of your turn: look at the top 3 cards of your Laboratory Deck, put one into your hand and the rest on the bottom.\n" +
			"Once per turn, discard 1 card: choose one: draw 2 cards; or each opponent discards 1 card.\n" +
			"One: at most 1 copy in a deck."},
		{"boss-blob-senior", "Boss Blob\nSenior Monster — Manager / Scientist\n" +
			"At the end of your turn: draw 1 card.\n" +
			"Once per turn, discard 1 card: take 2 cards from your Recycle Bin into your hand."},
		{"kanbo-junior", "Kanbo\nJunior Monster — Manager / Designer\n" +
			"Once per turn: put up to 1 Market challenge of your choice under the Challenge Deck and refill the Market."},
		{"sigmoid-senior", "Sigmoid\nSenior Monster — Analyst / Engineer\n" +
			"You score 1 more Big Data Point at the end of the game.\n" +
			"At the beginning of your turn, if you have at least 2 Analyst Monsters in your Lab: draw 1 card."},
		{"hackathon-trophy", "Hackathon Trophy\nLab Equipment\nYou score 2 more Big Data Points at the end of the game.\nUnique: only one in a Lab.\nOne: at most 1 copy in a deck."},
		{"whiteboard-wall", "Whiteboard Wall\nLab Equipment\nYou draw 1 more card in your Draw phase.\nUnique: only one in a Lab.\nOne: at most 1 copy in a deck."},
		{"cloud-credits", "Cloud Credits\nLab Equipment\nWhen placed: draw 1 card."},
		{"server-rack", "Server Rack\nLab Equipment\nOnce per turn, discard 1 card: shuffle your Recycle Bin into your Laboratory Deck, then draw 1 card."},
		{"open-source-library", "Open Source Library\nTool — TECH 1 · SCI 1\nComponent.\nMany: up to 4 copies in a deck."},
		{"serverless-functions", "Serverless Functions\nTool — TECH 1 · SCI 2\n" +
			"When played, if you have Cloud Credits in your Lab: add 2 TECH to your Software Build."},
		{"frontend-framework", "Frontend Framework\nTool — TECH 2 · SCI 0\nComponent.\n" +
			"When played, if you have another component Tool in your Software Build: add 1 SCI to your Software Build."},
		{"full-stack-app", "Full-Stack Web App\nTool — TECH 2 · SCI 2\nStack.\nRecipe: Open Source Library + Frontend Framework.\n" +
			"When played, if you have Open Source Library and Frontend Framework in your Software Build: add 2 TECH and 2 SCI to your Software Build."},
		{"rust-rewrite", "Rewrite It in Rust\nTool — TECH 3 · SCI 2\nRequires a Senior or Chief Engineer Monster in your Lab."},
		{"kubernetes-cluster", "Kubernetes Cluster\nTool — TECH 4 · SCI 2\nRequires at least 2 Engineer Monsters in your Lab."},
		{"pair-programming", "Pair Programming\nTool — TECH 1 · SCI 1\nWhen played: add 1 TECH to your Software Build for each Engineer Monster in your Lab."},
		{"all-nighter-build", "All-Nighter Build\nTool — TECH 3 · SCI 3\nLimit."},
		{"scrum-planning", "Scrum Planning\nHack\nLimit.\n" +
			"Look at the top 3 cards of your Laboratory Deck, put one into your hand and the rest on the bottom, then draw 1 card."},
		{"merge-conflict", "Merge Conflict\nHack\nInterrupt.\nInterrupt — when an opponent plays a Tool: cancel it."},
		{"hiring-freeze", "Hiring Freeze\nHack\nInterrupt.\nInterrupt — when an opponent places a Monster or Lab Equipment: cancel it."},
		{"red-tape", "Red Tape\nHack\nInterrupt.\nInterrupt — when an opponent plays a Hack: cancel it, then draw 1 card."},
		{"scope-creep", "Scope Creep\nHack\nInterrupt.\nInterrupt — when an opponent claims challenges: the challenges need 2 more TECH."},
		{"rate-limit-exceeded", "Rate Limit Exceeded\nHack\nInterrupt.\nInterrupt — when an opponent draws cards in their Draw phase: they draw 1 fewer card."},
		{"bug-bounty", "Bug Bounty\nHack\nInterrupt.\nInterrupt — when an opponent claims challenges: that player discards 1 card, then you draw 1 card."},
		{"cloud-outage", "Cloud Outage\nHack\nGlobal.\nUntil your next turn: opponents' Software Builds get -1 TECH."},
		{"hype-cycle", "Hype Cycle\nHack\nGlobal. Limit.\nDraw 1 card.\nUntil your next turn: each opponent draws 1 fewer card in their Draw phase."},
		{"headhunter", "Headhunter\nHack\nRequires a Manager Monster in your Lab.\nReturn a Monster from the Lab of an opponent of your choice to its owner's hand."},
		{"hostile-takeover", "Hostile Takeover\nHack\nLimit.\nRequires a Senior or Chief Manager Monster in your Lab.\n" +
			"Put a Lab Equipment card from the Lab of an opponent of your choice into its owner's Recycle Bin."},
		{"data-breach", "Data Breach\nHack\nLimit.\nAn opponent of your choice discards 1 card at random."},
		{"team-offsite", "Team Offsite\nHack\nEach player draws 1 card, then you draw 1 card."},
		{"market-research", "Market Research\nHack\nPut up to 2 Market challenges of your choice under the Challenge Deck and refill the Market, then draw 1 card."},
		{"crunch-time", "Crunch Time\nHack\nChoose one: draw 1 card for each Engineer Monster in your Lab; " +
			"or take 1 card from your Recycle Bin into your hand and each opponent discards 1 card."},
	} {
		c := Standard().Card(tc.id)
		if c == nil {
			t.Errorf("no card %s", tc.id)
			continue
		}
		if got := CardText(c); got != tc.want {
			t.Errorf("CardText(%s) =\n%s\nwant\n%s", tc.id, got, tc.want)
		}
	}
}

// Every card of the standard set gets a clean text: its name first, one
// sentence per effect, no raw vocabulary or formatting errors.
func TestCardTextCoversEveryCard(t *testing.T) {
	raw := []string{"%!", "<nil>", "_", "op:", "self", "modify", "turn_start", "play_tool"}
	for _, c := range Standard().Cards() {
		text := CardText(c)
		lines := strings.Split(text, "\n")
		if lines[0] != c.Name {
			t.Errorf("%s: first line %q, want the name", c.ID, lines[0])
		}
		for _, r := range raw {
			if strings.Contains(text, r) {
				t.Errorf("%s: text contains %q:\n%s", c.ID, r, text)
			}
		}
		for _, l := range lines[2:] {
			if !strings.HasSuffix(l, ".") {
				t.Errorf("%s: line %q does not end a sentence", c.ID, l)
			}
		}
		if want := 2 + len(c.Effects); len(lines) < want {
			t.Errorf("%s: %d lines, want at least %d", c.ID, len(lines), want)
		}
	}
	if CardText(nil) != "" {
		t.Error("CardText(nil) should be empty")
	}
}

func TestOpText(t *testing.T) {
	for _, tc := range []struct {
		op   Op
		want string
	}{
		{Op{Verb: VDraw, N: 1}, "draw 1 card"},
		{Op{Verb: VDraw, N: 2, Who: Opponents}, "each opponent draws 2 cards"},
		{Op{Verb: VDraw, N: 1, Who: All}, "each player draws 1 card"},
		{Op{Verb: VDraw, N: 1, Per: "Designer"}, "draw 1 card for each Designer Monster in your Lab"},
		{Op{Verb: VDiscard, N: 1, Who: Actor}, "that player discards 1 card"},
		{Op{Verb: VDiscardRandom, N: 2, Who: Opponents}, "each opponent discards 2 cards at random"},
		// A chosen opponent is worded for "choose an opponent to ...".
		{Op{Verb: VDiscardRandom, N: 1, Who: Chosen}, "discard 1 card at random"},
		{Op{Verb: VDiscard, N: 1, Who: Chosen, Per: "Manager"}, "discard 1 card for each Manager Monster in your Lab"},
		{Op{Verb: VLook, N: 1}, "look at the top card of your Laboratory Deck and put it into your hand"},
		{Op{Verb: VLook, N: 3}, "look at the top 3 cards of your Laboratory Deck, put one into your hand and the rest on the bottom"},
		{Op{Verb: VRecover, N: 1}, "take 1 card from your Recycle Bin into your hand"},
		{Op{Verb: VRecycle}, "shuffle your Recycle Bin into your Laboratory Deck"},
		{Op{Verb: VBoost, Stat: StatSci, N: 3}, "add 3 SCI to your Software Build"},
		{Op{Verb: VModify, Stat: StatTech, N: 2}, "your Software Builds get +2 TECH"},
		{Op{Verb: VModify, Stat: StatSci, N: -1, Who: Opponents}, "opponents' Software Builds get -1 SCI"},
		{Op{Verb: VModify, Stat: StatTech, N: 1, Who: All}, "all players' Software Builds get +1 TECH"},
		{Op{Verb: VModify, Stat: StatDraw, N: -2, Who: Opponents}, "each opponent draws 2 fewer cards in their Draw phase"},
		{Op{Verb: VModify, Stat: StatPoints, N: 3}, "you score 3 more Big Data Points at the end of the game"},
		{Op{Verb: VModify, Stat: StatPoints, N: -1, Who: Opponents}, "each opponent scores 1 fewer Big Data Point at the end of the game"},
		{Op{Verb: VCancel}, "cancel the event"},
		{Op{Verb: VAlter, Stat: StatTech, N: 2}, "change the event's TECH by +2"},
		{Op{Verb: VRefresh, N: 2}, "put up to 2 Market challenges of your choice under the Challenge Deck and refill the Market"},
		{Op{Verb: VBounce, Target: Monster, Who: Opponents}, "return a Monster from each opponent's Lab to its owner's hand"},
		{Op{Verb: VScrap, Target: LabEquipment, Who: Actor}, "put a Lab Equipment card from that player's Lab into its owner's Recycle Bin"},
		{Op{Verb: VScrap, Target: Monster}, "put a Monster from your Lab into your Recycle Bin"},
		// A chosen opponent: the prompt reads "choose an opponent to return ...".
		{Op{Verb: VBounce, Target: Monster, Who: Chosen}, "return a Monster from their Lab to their hand"},
		// look, recover, recycle, boost and refresh always act for the controller.
		{Op{Verb: VRecover, N: 1, Who: Opponents}, "take 1 card from your Recycle Bin into your hand"},
		{Op{Verb: VChoose, Options: [][]Op{{{Verb: VDraw, N: 2}}, {{Verb: VRecover, N: 1}, {Verb: VDraw, N: 1}}}},
			"choose one: draw 2 cards; or take 1 card from your Recycle Bin into your hand and draw 1 card"},
	} {
		if got := OpText(tc.op); got != tc.want {
			t.Errorf("OpText(%+v) = %q, want %q", tc.op, got, tc.want)
		}
	}
	if got, want := OpsText([]Op{{Verb: VDiscardRandom, N: 1, Who: Chosen}, {Verb: VDraw, N: 1}}),
		"an opponent of your choice discards 1 card at random, then you draw 1 card"; got != want {
		t.Errorf("OpsText = %q, want %q", got, want)
	}
}

// Interrupt operations are worded for the event they answer.
func TestInterruptWording(t *testing.T) {
	for _, tc := range []struct {
		ev   EventKind
		op   Op
		want string
	}{
		{EvDraw, Op{Verb: VAlter, Stat: StatDraw, N: 1}, "Interrupt — when an opponent draws cards in their Draw phase: they draw 1 more card."},
		{EvPlayTool, Op{Verb: VAlter, Stat: StatTech, N: -2}, "Interrupt — when an opponent plays a Tool: that Tool gives 2 less TECH."},
		{EvPlayTool, Op{Verb: VAlter, Stat: StatSci, N: 1}, "Interrupt — when an opponent plays a Tool: that Tool gives 1 more SCI."},
		{EvClaim, Op{Verb: VAlter, Stat: StatSci, N: 3}, "Interrupt — when an opponent claims challenges: the challenges need 3 more SCI."},
		{EvPlayHack, Op{Verb: VCancel}, "Interrupt — when an opponent plays a Hack: cancel it."},
		{EvPlace, Op{Verb: VDraw, N: 1, Who: Actor}, "Interrupt — when an opponent places a Monster or Lab Equipment: that player draws 1 card."},
	} {
		c := &Card{ID: "x", Name: "X", Type: Hack, Keywords: []Keyword{KwInterrupt},
			Effects: []Effect{{Trigger: OnInterrupt, Answers: tc.ev, Do: []Op{tc.op}}}}
		if got := strings.Split(CardText(c), "\n")[3]; got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.ev, got, tc.want)
		}
	}
}

func TestConditionText(t *testing.T) {
	for _, tc := range []struct {
		c    Condition
		want string
	}{
		{Condition{}, ""},
		{Condition{Class: "Engineer"}, "an Engineer Monster in your Lab"},
		{Condition{Class: "Designer", Count: 1}, "a Designer Monster in your Lab"},
		{Condition{Class: "Scientist", Count: 3}, "at least 3 Scientist Monsters in your Lab"},
		{Condition{Count: 2}, "at least 2 Monsters in your Lab"},
		{Condition{Level: Junior}, "a Monster in your Lab"},
		{Condition{Level: Senior}, "a Senior or Chief Monster in your Lab"},
		{Condition{Level: Chief, Class: "Analyst"}, "a Chief Analyst Monster in your Lab"},
		{Condition{Level: Junior, Class: "Analyst"}, "an Analyst Monster in your Lab"},
		{Condition{Equipment: "data-warehouse"}, "Data Warehouse in your Lab"},
		{Condition{Equipment: "quantum-fridge"}, "Quantum Fridge in your Lab"}, // not in the set: the id in title case
		{Condition{Recipe: true}, "the recipe in your Software Build"},
		{Condition{Components: 1}, "another component Tool in your Software Build"},
		{Condition{Components: 2}, "at least 2 other component Tools in your Software Build"},
		{Condition{Class: "Manager", Equipment: "cloud-credits"}, "a Manager Monster in your Lab and Cloud Credits in your Lab"},
		{Condition{Class: "Engineer", Level: Senior, Count: 2}, "at least 2 Senior or Chief Engineer Monsters in your Lab"},
	} {
		if got := ConditionText(tc.c); got != tc.want {
			t.Errorf("ConditionText(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// Effect openings for each trigger, with conditions and costs.
func TestEffectOpenings(t *testing.T) {
	draw := []Op{{Verb: VDraw, N: 1}}
	eng := &Condition{Class: "Engineer"}
	for _, tc := range []struct {
		typ  CardType
		kw   []Keyword
		e    Effect
		want string
	}{
		{Tool, nil, Effect{Trigger: OnPlay, Do: draw}, "When played: draw 1 card."},
		{Monster, nil, Effect{Trigger: OnPlay, Do: draw}, "When placed: draw 1 card."},
		{Hack, nil, Effect{Trigger: OnPlay, Do: draw}, "Draw 1 card."},
		{Hack, nil, Effect{Trigger: OnPlay, If: eng, Do: draw}, "If you have an Engineer Monster in your Lab: draw 1 card."},
		{LabEquipment, nil, Effect{Trigger: OnTurnStart, Do: draw}, "At the beginning of your turn: draw 1 card."},
		{LabEquipment, nil, Effect{Trigger: OnTurnEnd, If: eng, Do: draw}, "At the end of your turn, if you have an Engineer Monster in your Lab: draw 1 card."},
		{Monster, nil, Effect{Trigger: Activated, Do: draw}, "Once per turn: draw 1 card."},
		{Monster, nil, Effect{Trigger: Activated, Cost: 2, If: eng, Do: draw}, "Once per turn, if you have an Engineer Monster in your Lab, discard 2 cards: draw 1 card."},
		{Monster, nil, Effect{Trigger: Static, If: eng, Do: []Op{{Verb: VModify, Stat: StatSci, N: 1}}}, "While you have an Engineer Monster in your Lab: your Software Builds get +1 SCI."},
		{Hack, []Keyword{KwGlobal}, Effect{Trigger: Static, Do: []Op{{Verb: VModify, Stat: StatTech, N: 1, Who: All}}}, "Until your next turn: all players' Software Builds get +1 TECH."},
	} {
		c := &Card{ID: "x", Name: "X", Type: tc.typ, Keywords: tc.kw, Effects: []Effect{tc.e}}
		lines := strings.Split(CardText(c), "\n")
		if got := lines[len(lines)-1]; got != tc.want {
			t.Errorf("%s %s: got %q, want %q", tc.typ, tc.e.Trigger, got, tc.want)
		}
	}
}

// Catalog.Text names cards that only that catalog holds.
func TestCatalogTextResolvesNames(t *testing.T) {
	cat, err := LoadCatalog([]byte(`cards:
  - {id: lava-lamp, name: Glowing Lava Lamp, type: lab_equipment}
  - {id: spark, name: Spark, type: tool, tech: 1, effects: [{trigger: play, if: {equipment: lava-lamp}, do: [{op: boost, stat: sci, n: 1}]}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := "Spark\nTool — TECH 1 · SCI 0\nWhen played, if you have Glowing Lava Lamp in your Lab: add 1 SCI to your Software Build."
	if got := cat.Text(cat.Card("spark")); got != want {
		t.Errorf("Catalog.Text = %q, want %q", got, want)
	}
	// Without the catalog the id is shown in title case.
	if got := CardText(cat.Card("spark")); !strings.Contains(got, "if you have Lava Lamp in your Lab") {
		t.Errorf("CardText = %q", got)
	}
}

func ExampleCardText() {
	fmt.Println(CardText(Standard().Card("serverless-functions")))
	fmt.Println()
	fmt.Println(CardText(Standard().Card("merge-conflict")))
	// Output:
	// Serverless Functions
	// Tool — TECH 1 · SCI 2
	// When played, if you have Cloud Credits in your Lab: add 2 TECH to your Software Build.
	//
	// Merge Conflict
	// Hack
	// Interrupt.
	// Interrupt — when an opponent plays a Tool: cancel it.
}

// Combinations that the vocabulary allows but the starter set does not use
// still read as English.
func TestUnusualWordings(t *testing.T) {
	for _, tc := range []struct {
		op   Op
		want string
	}{
		{Op{Verb: VModify, Stat: StatTech, N: 1, Who: Chosen}, "their Software Builds get +1 TECH"},
		{Op{Verb: VModify, Stat: StatSci, N: 2, Who: Actor}, "that player's Software Builds get +2 SCI"},
		{Op{Verb: VModify, Stat: StatDraw, N: 1, Who: All}, "each player draws 1 more card in their Draw phase"},
		{Op{Verb: VModify, Stat: StatPoints, N: 1, Per: "Analyst"}, "you score 1 more Big Data Point at the end of the game for each Analyst Monster in your Lab"},
		{Op{Verb: VBounce, Target: LabEquipment, Who: All}, "return a Lab Equipment card from each player's Lab to its owner's hand"},
		{Op{Verb: VAlter, Stat: StatDraw, N: -1}, "change the event's cards drawn by -1"},
		{Op{Verb: VAlter, Stat: StatPoints, N: 1}, "change the event's Big Data Points by +1"},
		{Op{Verb: VLook, N: 2, Who: Opponents}, "look at the top 2 cards of your Laboratory Deck, put one into your hand and the rest on the bottom"},
		{Op{Verb: VDraw, N: 1, Who: Actor}, "that player draws 1 card"},
	} {
		if got := OpText(tc.op); got != tc.want {
			t.Errorf("OpText(%+v) = %q, want %q", tc.op, got, tc.want)
		}
	}
	if got, want := OpsText([]Op{{Verb: VModify, Stat: StatTech, N: 1, Who: Chosen}}), "the chosen opponent's Software Builds get +1 TECH"; got != want {
		t.Errorf("OpsText = %q, want %q", got, want)
	}
	// Merged only when the players match and no per is involved.
	if got, want := OpsText([]Op{{Verb: VModify, Stat: StatTech, N: 1}, {Verb: VModify, Stat: StatSci, N: 1, Who: Opponents}}),
		"your Software Builds get +1 TECH, then opponents' Software Builds get +1 SCI"; got != want {
		t.Errorf("OpsText = %q, want %q", got, want)
	}
	if got, want := OpsText([]Op{{Verb: VBoost, Stat: StatSci, N: 1}, {Verb: VBoost, Stat: StatTech, N: 2}}),
		"add 1 SCI and 2 TECH to your Software Build"; got != want {
		t.Errorf("OpsText = %q, want %q", got, want)
	}
	// A Challenge worth 1 point, a Hack with a play effect and a condition.
	c := &Card{ID: "x", Name: "X", Type: Hack, Keywords: []Keyword{KwLimit}, Requires: []Condition{{Class: "Manager"}, {Level: Chief}},
		Effects: []Effect{{Trigger: OnPlay, If: &Condition{Equipment: "research-grant"}, Do: []Op{{Verb: VRecycle}}}}}
	want := "X\nHack\nLimit.\nRequires a Manager Monster in your Lab and a Chief Monster in your Lab.\n" +
		"If you have Research Grant in your Lab: shuffle your Recycle Bin into your Laboratory Deck."
	if got := CardText(c); got != want {
		t.Errorf("CardText = %q, want %q", got, want)
	}
	var nilCat *Catalog
	if got := nilCat.Text(Standard().Card("serverless-functions")); !strings.Contains(got, "Cloud Credits") {
		t.Errorf("a nil catalog should fall back to the standard names: %q", got)
	}
}

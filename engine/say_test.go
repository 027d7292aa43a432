package engine

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// scenarioState sets up a position written in the scenario format.
func scenarioState(t *testing.T, doc string) *State {
	t.Helper()
	return scenarioRun(t, doc).State
}

// scenarioRun runs the scenario doc, which must pass.
func scenarioRun(t *testing.T, doc string) *ScenarioResult {
	t.Helper()
	res, err := RunScenario([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() {
		t.Fatal(res.Failures)
	}
	return res
}

// stepEvents are the events of res's steps, after its setup.
func stepEvents(res *ScenarioResult) []Event {
	var events []Event
	for _, e := range res.Events {
		if e.Step > 0 {
			events = append(events, e.Event)
		}
	}
	return events
}

func moveTexts(s *State, seat int) []string {
	var out []string
	for _, m := range Moves(s, seat) {
		out = append(out, m.Text)
	}
	return out
}

// TestMoveTexts reads the text of every kind of turn action, worded from
// the card data and the seat's view.
func TestMoveTexts(t *testing.T) {
	s := scenarioState(t, `
players:
  - name: Ana
    hand: [glitchy-senior, data-lake, scrum-planning, mechanical-keyboard, glitchy-junior, cloud-outage, merge-conflict]
    lab: [glitchy-junior, boss-blob-senior]
    bin: [rapid-prototype]
  - {name: Ben, hand: [data-breach]}
market: [landing-page, todo-app]
challenge_deck: [spam-filter]
build: {tools: [proof-of-concept, rapid-prototype]}
`)
	got := moveTexts(s, 0)
	for _, want := range []string{
		"Place Glitchy (Senior): replaces your Glitchy (Junior)",
		"Place Glitchy (Junior): you choose which Glitchy stays",
		"Place Mechanical Keyboard in your Lab",
		"Play Data Lake (TECH 0, SCI 2) into your build (TECH 4, SCI 3 so far)",
		"Play Scrum Planning: look at the top 3 cards of your Laboratory Deck, put one into your hand and the rest on the bottom, then draw 1 card",
		"Play Cloud Outage: until your next turn, opponents' Software Builds get -1 TECH",
		"Activate Boss Blob: discard 1 card, then take 2 cards from your Recycle Bin into your hand",
		"Claim Landing Page (TECH 4, SCI 2, 1 BDP) with your build (TECH 4, SCI 3)",
		"Abandon your build (TECH 4, SCI 3): its 2 Tools go to your Recycle Bin",
		"End your turn, abandoning your build of 2 Tools",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no move %q in\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != len(Legal(s, 0)) {
		t.Errorf("%d texts for %d legal actions", len(got), len(Legal(s, 0)))
	}
	if m := Moves(s, 1); m != nil {
		t.Errorf("the waiting seat has moves %v", m)
	}
	if m := Moves(s, Spectator); m != nil {
		t.Errorf("a spectator has moves %v", m)
	}
	s.Build = nil
	if got := moveTexts(s, 0); !slices.Contains(got, "Play Data Lake (TECH 0, SCI 2), starting a Software Build") || !slices.Contains(got, "End your turn") {
		t.Errorf("without a build: %q", got)
	}
	v := s.View(0)
	for _, tc := range []struct {
		a    Action
		want string
	}{
		{Action{Type: ActVoteEnd}, "Vote to end the game as it stands"},
		{Action{Type: ActResign}, "Resign from the game"},
		{Action{Type: ActPlayTool, Card: "nothing"}, "Play the Tool nothing"},
		{Action{Type: ActAnswer, Prompt: "p9"}, "Answer prompt p9"},
	} {
		if got := v.Text(tc.a); got != tc.want {
			t.Errorf("Text(%v) = %q, want %q", tc.a, got, tc.want)
		}
	}
}

// TestOptionTexts reads the options of every kind of prompt: each says
// what choosing it does, and an answer's text names the options chosen.
func TestOptionTexts(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		seat      int
		text      string   // the prompt's move
		options   []string // the options' texts
	}{
		{"discard", `
phase: draw
players:
  - {name: Ana, hand: [data-lake, glitchy-junior, scrum-planning, cloud-credits, rapid-prototype, rapid-prototype], deck: [proof-of-concept]}
  - {name: Ben}
`, 0, "Hand limit: discard 1 card to keep 6",
			[]string{"Discard Data Lake (TECH 0, SCI 2)", "Discard Glitchy (Junior)", "Discard Scrum Planning", "Discard Cloud Credits",
				"Discard Rapid Prototype (TECH 1, SCI 2)", "Discard Rapid Prototype (TECH 1, SCI 2)", "Discard Proof of Concept (TECH 2, SCI 1)"}},
		{"keep", `
players:
  - {name: Ana, hand: [glitchy-junior], lab: [glitchy-junior]}
  - {name: Ben}
steps: [{do: place, card: glitchy-junior}]
`, 0, "You already have Glitchy in your Lab: choose which card stays", []string{"Keep Glitchy (new)", "Keep Glitchy (in your Lab)"}},
		{"interrupt", `
players:
  - {name: Ana, hand: [rapid-prototype]}
  - {name: Ben, hand: [merge-conflict]}
steps: [{do: play_tool, card: rapid-prototype}]
`, 1, "Ana is about to play the Tool Rapid Prototype (TECH 1, SCI 2). Play an interrupt Hack, or pass", []string{"Pass", "Play Merge Conflict: cancel it"}},
		{"target player", `
players:
  - {name: Ana, hand: [data-breach]}
  - {name: Ben, hand: [data-lake]}
  - {name: Cy, hand: [data-lake]}
steps: [{do: play_hack, card: data-breach}]
`, 0, "Data Breach: choose an opponent to discard 1 card at random", []string{"Ben", "Cy"}},
		{"target card", `
players:
  - {name: Ana, hand: [headhunter], lab: [boss-blob-junior]}
  - {name: Ben, lab: [glitchy-senior, doodle-junior]}
steps: [{do: play_hack, card: headhunter}]
`, 0, "Headhunter: choose a card in Ben's Lab to return to their hand", []string{"Return Ben's Glitchy (Senior) to their hand", "Return Ben's Doodle (Junior) to their hand"}},
		{"refresh", `
players:
  - {name: Ana, lab: [kanbo-junior]}
  - {name: Ben}
market: [landing-page, todo-app]
challenge_deck: [spam-filter]
steps: [{do: activate, card: kanbo-junior}]
`, 0, "Kanbo: put up to 1 challenge from the Market under the Challenge Deck", []string{
			"Put Landing Page (TECH 4, SCI 2, 1 BDP) under the Challenge Deck", "Put To-Do List App (TECH 3, SCI 3, 1 BDP) under the Challenge Deck"}},
		{"recover", `
players:
  - {name: Ana, lab: [boss-blob-senior], hand: [data-lake], bin: [rapid-prototype, glitchy-junior, cloud-credits]}
  - {name: Ben}
steps: [{do: activate, card: boss-blob-senior}]
`, 0, "Boss Blob: take 2 cards from your Recycle Bin", []string{
			"Take Rapid Prototype (TECH 1, SCI 2)", "Take Glitchy (Junior)", "Take Cloud Credits", "Take Data Lake (TECH 0, SCI 2)"}},
		{"look", `
players:
  - {name: Ana, hand: [scrum-planning], deck: [data-lake, glitchy-junior, cloud-credits, rapid-prototype]}
  - {name: Ben}
steps: [{do: play_hack, card: scrum-planning}]
`, 0, "Scrum Planning: take one of the top 3 cards of your Laboratory Deck; the rest go to the bottom", []string{
			"Take Data Lake (TECH 0, SCI 2)", "Take Glitchy (Junior)", "Take Cloud Credits"}},
		{"choose", `
players:
  - {name: Ana, hand: [crunch-time], bin: [data-lake]}
  - {name: Ben}
steps: [{do: play_hack, card: crunch-time}]
`, 0, "Crunch Time: choose one", []string{"Draw 1 card for each Engineer Monster in your Lab",
			"Take 1 card from your Recycle Bin into your hand, then each opponent discards 1 card"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scenarioState(t, tc.doc)
			moves := Moves(s, tc.seat)
			if len(moves) != 1 || moves[0].Type != ActAnswer || moves[0].Choices != nil {
				t.Fatalf("moves %+v, want one prompt", moves)
			}
			m := moves[0]
			if m.Text != tc.text {
				t.Errorf("prompt text %q, want %q", m.Text, tc.text)
			}
			var got []string
			for _, o := range m.Options {
				got = append(got, o.Text)
			}
			if !slices.Equal(got, tc.options) {
				t.Errorf("options\n%q\nwant\n%q", got, tc.options)
			}
			p := PromptsFor(s, tc.seat)[0]
			if m.Min != p.Min || m.Max != p.Max || !slices.Equal(m.Options, p.Options) {
				t.Errorf("move %+v does not describe prompt %+v", m, p)
			}
			// An answer's text names what it chooses, with the verb the
			// options share said once ("Take A and B").
			answer := Action{Type: ActAnswer, Prompt: p.ID, Choices: p.Default()}
			want := "Choose none"
			if len(answer.Choices) > 0 {
				var texts []string
				for i, id := range answer.Choices {
					text := p.optionText(id)
					if i > 0 {
						text = strings.TrimPrefix(text, strings.Fields(texts[0])[0]+" ")
					}
					texts = append(texts, text)
				}
				want = joinAnd(texts)
			}
			if got := s.View(tc.seat).Text(answer); got != want {
				t.Errorf("answer text %q, want %q", got, want)
			}
		})
	}
}

// TestViewCards checks that a view carries what a player needs to read
// each card it shows, without looking the card up.
func TestViewCards(t *testing.T) {
	s := scenarioState(t, `
players:
  - {name: Ana, hand: [data-lake, hackathon-trophy], lab: [glitchy-senior]}
  - {name: Ben}
market: [social-network]
`)
	v := s.View(0)
	lake, trophy, glitchy, network := v.Hand[0], v.Hand[1], v.Players[0].Lab[0], v.Market[0]
	if lake.Type != Tool || lake.Tech != 0 || lake.Sci != 2 || !strings.HasPrefix(lake.Text, "Component.\nWhen played, if you have another component Tool") {
		t.Errorf("Data Lake: %+v", lake)
	}
	if trophy.Type != LabEquipment || !trophy.Unique || trophy.Text != "You score 2 more Big Data Points at the end of the game.\nUnique: only one in a Lab." {
		t.Errorf("Hackathon Trophy: %+v", trophy)
	}
	if glitchy.Type != Monster || glitchy.Level != Senior || !slices.Equal(glitchy.Classes, []Class{"Engineer", "Designer"}) {
		t.Errorf("Glitchy: %+v", glitchy)
	}
	if network.Type != Challenge || network.Points != 7 || !network.Hard || network.Tech != 8 || network.Sci != 8 || network.Text != "" {
		t.Errorf("Global Social Network: %+v", network)
	}
	data, err := json.Marshal(v.Players[0].Lab[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := `"type":"monster","level":"senior","classes":["Engineer","Designer"],"text":"Your Software Builds get +1 TECH and +1 SCI."}`; !strings.HasSuffix(string(data), want) {
		t.Errorf("Glitchy as JSON: %s, want it to end %s", data, want)
	}
}

// TestOptionReadsLabel checks that an option stored before options had a
// text reads its label as the text, and that it is written as text.
func TestOptionReadsLabel(t *testing.T) {
	var o Option
	if err := json.Unmarshal([]byte(`{"id":"a1","card":"data-lake","label":"Data Lake"}`), &o); err != nil {
		t.Fatal(err)
	}
	if o != (Option{ID: "a1", Card: "data-lake", Text: "Data Lake"}) {
		t.Errorf("read %+v", o)
	}
	data, _ := json.Marshal(o)
	if string(data) != `{"id":"a1","card":"data-lake","text":"Data Lake"}` {
		t.Errorf("written as %s", data)
	}
	if err := json.Unmarshal([]byte(`{"id": 3}`), &o); err == nil {
		t.Error("a malformed option was read")
	}
}

// TestUniqueMarker checks the unique marker: only Lab Equipment may carry
// it, the starter set marks the cards it should, and the card text says so.
func TestUniqueMarker(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{`{id: t1, name: T1, type: tool, tech: 1, unique: true}`, "unique is for Lab Equipment"},
		{`{id: m1, name: M1, type: monster, level: junior, classes: [Engineer, Designer], unique: true}`, "a Lab holds one Monster of each name anyway"},
		{`{id: h1, name: H1, type: hack, unique: true, effects: [{trigger: play, do: [{op: draw, n: 1}]}]}`, "unique is for Lab Equipment"},
	} {
		_, err := LoadCatalog([]byte("cards:\n  - " + tc.yaml + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.yaml, err, tc.want)
		}
	}
	var unique []string
	for _, c := range Standard().Cards() {
		if c.Unique {
			unique = append(unique, c.ID)
			if !strings.Contains(CardText(c), "\nUnique: only one in a Lab.") {
				t.Errorf("%s: the text does not say it is unique:\n%s", c.ID, CardText(c))
			}
		}
	}
	if want := []string{"hackathon-trophy", "iso-certificate", "whiteboard-wall"}; !slices.Equal(unique, want) {
		t.Errorf("unique starter cards %v, want %v", unique, want)
	}
}

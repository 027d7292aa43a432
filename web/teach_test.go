package web_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"golang.org/x/net/html"
)

// The board teaches the game where a decision is made: these tests read
// the pages as HTML, without a browser.

// twoPlayers has ana and bob (web clients, signed in) play a private game
// of 2, ana in seat 0, and returns it.
func twoPlayers(t *testing.T) (s *site, ana, bob *client, id int64) {
	t.Helper()
	s = newSite(t, models.SQLite, siteOptions{})
	ana, bob = s.client(), s.client()
	ana.register("ana", "ana password")
	bob.register("bob", "bob password")
	id = s.startGame(s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password"))
	return s, ana, bob, id
}

// elements returns the elements of the page with the tag whose class
// attribute holds class ("" for any), in document order.
func elements(t *testing.T, body, tag, class string) []*html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return within(doc, tag, class)
}

// within is elements below n.
func within(n *html.Node, tag, class string) []*html.Node {
	var out []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == tag && (class == "" || slices.Contains(strings.Fields(attr(n, "class")), class)) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// cardWhole fails unless the card element n draws card id of the card set
// whole: its name, type, numbers and every line of its rules text.
func cardWhole(t *testing.T, n *html.Node, id string) {
	t.Helper()
	cv, ok := (&engine.State{}).View(engine.Spectator).CardOf(id)
	if !ok {
		t.Fatalf("%s: no such card", id)
	}
	got := textOf(n)
	want := []string{cv.Name}
	if cv.Type == engine.Tool || cv.Type == engine.Challenge {
		want = append(want, fmt.Sprintf("TECH %d · SCI %d", cv.Tech, cv.Sci))
	}
	for _, line := range strings.Split(cv.Text, "\n") {
		want = append(want, strings.Join(strings.Fields(line), " "))
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("the card beside the choice of %s does not say %q: %q", id, w, got)
		}
	}
}

// TestChoicesShowEachCard: a question that offers cards ("take" one of
// the top of the deck, "keep" one of two of a name, "discard" to the hand
// limit) shows each card whole beside its option, whether the options are
// buttons (one to choose) or boxes (several).
func TestChoicesShowEachCard(t *testing.T) {
	for _, tc := range []struct {
		name, kind, doc string
		cards           []string // the options' cards, in order
		boxes           bool
	}{
		{"take", "look", `
players:
  - name: ana
    hand: [scrum-planning]
    deck: [proof-of-concept, data-lake, analytics-sdk, frontend-framework]
  - name: bob
steps:
  - {do: play_hack, card: scrum-planning}
`, []string{"proof-of-concept", "data-lake", "analytics-sdk"}, false},
		{"keep", "keep", `
players:
  - name: ana
    hand: [whiteboard-wall]
    lab: [whiteboard-wall]
  - name: bob
steps:
  - {do: place, card: whiteboard-wall}
`, []string{"whiteboard-wall", "whiteboard-wall"}, false},
		{"discard", "discard", `
players:
  - name: ana
    hand: [data-lake, data-lake, data-lake, data-lake, data-lake, proof-of-concept]
    deck: [glitchy-senior, scrum-planning]
  - name: bob
phase: draw
`, []string{"data-lake", "data-lake", "data-lake", "data-lake", "data-lake", "proof-of-concept", "glitchy-senior", "scrum-planning"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ana, _, id := twoPlayers(t)
			s.stage(t, id, tc.doc)
			page := ana.get(gamePath(id)).mustSee(t, 200).Body
			var options []*html.Node // an option with its card
			if tc.boxes {
				options = elements(t, page, "div", "choice")
			} else {
				options = elements(t, page, "li", "choice-card")
			}
			if len(options) != len(tc.cards) {
				t.Fatalf("%d options with a card, want %d:\n%s", len(options), len(tc.cards), clip(page[strings.Index(page, `id="moves"`):]))
			}
			for i, o := range options {
				label := within(o, "button", "")
				if tc.boxes {
					label = within(o, "label", "")
				}
				cards := within(o, "div", "card")
				if len(label) != 1 || len(cards) != 1 {
					t.Fatalf("option %d: %d labels, %d cards", i, len(label), len(cards))
				}
				name := textOf(within(cards[0], "span", "card-name")[0])
				if !strings.Contains(textOf(label[0]), name) {
					t.Errorf("option %q shows the card %s", textOf(label[0]), name)
				}
				cardWhole(t, cards[0], tc.cards[i])
			}
			forms := formsOf(t, page)
			if !slices.ContainsFunc(forms, func(f pageForm) bool { return f.Kind == tc.kind }) {
				t.Errorf("no form of a %s question", tc.kind)
			}
		})
	}
}

// TestClaimWindowShowsTheBuild: the window of an opponent's claim says,
// where the answer is asked, what the challenges need and what the build
// that claims them has, and shows the challenges whole; the build's Tools
// are on the board.
func TestClaimWindowShowsTheBuild(t *testing.T) {
	s, ana, bob, id := twoPlayers(t)
	s.stage(t, id, `
players:
  - name: ana
  - name: bob
    hand: [scope-creep]
market: [landing-page, todo-app]
build: {tools: [enterprise-service-bus, rapid-prototype]}
steps:
  - {do: claim, challenges: landing-page}
`)
	cat := engine.Standard()
	tech, sci := 0, 0
	for _, c := range []string{"enterprise-service-bus", "rapid-prototype"} {
		tech, sci = tech+cat.Card(c).Tech, sci+cat.Card(c).Sci
	}
	lp := cat.Card("landing-page")
	page := bob.get(gamePath(id)).mustSee(t, 200, "Play Scope Creep").Body
	windows := elements(t, page, "section", "window")
	if len(windows) != 1 {
		t.Fatalf("%d interrupt windows on bob's board", len(windows))
	}
	w := textOf(windows[0])
	for _, want := range []string{"ana is about to claim Landing Page.", "Waiting for an answer from you.",
		fmt.Sprintf("The claim needs TECH %d, SCI %d; ana’s Software Build has TECH %d, SCI %d.", lp.Tech, lp.Sci, tech, sci)} {
		if !strings.Contains(w, want) {
			t.Errorf("the window does not say %q: %q", want, w)
		}
	}
	challenge := within(windows[0], "li", "card")
	if len(challenge) != 1 {
		t.Fatalf("the window shows %d cards, want the challenge", len(challenge))
	}
	cardWhole(t, challenge[0], "landing-page")
	board := textOf(elements(t, page, "section", "table")[0])
	for _, want := range []string{fmt.Sprintf("ana’s Software Build: TECH %d, SCI %d", tech, sci), "Enterprise Service Bus", "Rapid Prototype"} {
		if !strings.Contains(board, want) {
			t.Errorf("the board does not show %q: %q", want, board)
		}
	}
	// ana, whose claim waits, sees the same window in her words.
	mine := textOf(elements(t, ana.get(gamePath(id)).mustSee(t, 200).Body, "section", "window")[0])
	if !strings.Contains(mine, fmt.Sprintf("your Software Build has TECH %d, SCI %d", tech, sci)) {
		t.Errorf("ana's window: %q", mine)
	}
}

// TestBlockedCardSaysWhyOnce: in the player's Action phase a card of the
// hand that cannot be played says why, once for two copies; a card that
// can be played says nothing, and nobody else's board says anything.
func TestBlockedCardSaysWhyOnce(t *testing.T) {
	s, ana, bob, id := twoPlayers(t)
	s.stage(t, id, `
players:
  - name: ana
    hand: [glitchy-senior, data-lake, glitchy-senior]
  - name: bob
    hand: [glitchy-senior]
`)
	page := ana.get(gamePath(id)).mustSee(t, 200).Body
	notes := elements(t, page, "span", "card-note")
	if len(notes) != 1 || textOf(notes[0]) != "Not playable now: a Senior Glitchy needs a Glitchy already in your Lab." {
		var texts []string
		for _, n := range notes {
			texts = append(texts, textOf(n))
		}
		t.Fatalf("the hand's notes: %q", texts)
	}
	if note := notes[0].Parent; textOf(within(note, "span", "card-name")[0]) != "Glitchy" {
		t.Errorf("the note is on %q", textOf(note))
	}
	if n := len(elements(t, bob.get(gamePath(id)).mustSee(t, 200).Body, "span", "card-note")); n != 0 {
		t.Errorf("bob's board, on ana's turn, has %d notes", n)
	}
}

// TestVoteNoteWithABot: in a game with a seat the service's bot plays
// (it never votes), the board says a vote cannot end the game instead of
// offering one; a game of people offers the vote and says nothing of it.
func TestVoteNoteWithABot(t *testing.T) {
	s, ana, _, id := twoPlayers(t)
	page := ana.get(gamePath(id)).mustSee(t, 200).Body
	if _, ok := findForm(t, page, "Vote to end the game"); !ok || strings.Contains(page, "never votes") {
		t.Fatalf("a game of people: vote offered %v\n%s", ok, clip(page))
	}

	u := s.apiLogin("ana", "ana password")
	var g struct {
		ID int64 `json:"id"`
	}
	s.apiCall(http.MethodPost, "/v1/games", u.Access, map[string]any{"players": 2, "mode": "fast", "bots": 1,
		"deck": map[string]string{"prebuilt": "running-a-startup"}, "turn_deadline_seconds": 86400}, &g)
	if game, _ := s.store.GameNoState(context.Background(), g.ID); game.Status != models.StatusActive {
		s.apiCall(http.MethodPost, "/v1/games/"+itoa(g.ID)+"/start", u.Access, nil, nil)
	}
	game, err := s.store.GameNoState(context.Background(), g.ID)
	if err != nil || len(game.Seats) != 2 || game.Seats[1].Bot != models.BotFromStart {
		t.Fatalf("the game with a bot: %v %+v", err, game)
	}
	bot := game.Seats[1].Username
	page = ana.get(gamePath(g.ID)).mustSee(t, 200, bot+" is played by the service’s bot, which never votes: a vote cannot end this game.").Body
	if _, ok := findForm(t, page, "Vote to end the game"); ok {
		t.Fatal("a vote that cannot pass is offered")
	}
	if _, ok := findForm(t, page, "Resign"); !ok {
		t.Fatal("the game with a bot offers no way out")
	}
}

var turnHeading = regexp.MustCompile(`^Turn (\d+): (.+)$`)

// TestLogByTurnNewestFirst: the board's log is grouped by turn under a
// heading that names whose turn it was ("your turn" for the reader), the
// newest turn first; within a turn the events read in the order they
// happened, the end of the turn last.
func TestLogByTurnNewestFirst(t *testing.T) {
	s, ana, bob, id := twoPlayers(t)
	players := map[string]*client{"ana": ana, "bob": bob}
	var order []string // who played turns 1, 2, ...
	for len(order) < 4 {
		g, _ := s.gameState(id)
		who := g.Seats[slices.IndexFunc(g.Seats, func(st models.Seat) bool { return st.Awaited })].Username
		_, st := s.gameState(id)
		if len(order) < st.Turn {
			order = append(order, who)
		}
		if len(order) == 4 {
			break
		}
		// A turn's only move is its end, but for a discard to the hand
		// limit first.
		page := players[who].get(gamePath(id)).Body
		f, ok := findForm(t, page, "End your turn")
		if !ok {
			m, ok := pick(formsOf(t, page), 0)
			if !ok {
				t.Fatalf("%s has no move:\n%s", who, clip(page))
			}
			players[who].sendMove(formsOf(t, page)[m.Form], m).mustRedirect(t, gamePath(id))
			continue
		}
		players[who].send(f).mustRedirect(t, gamePath(id))
	}
	for reader, c := range players {
		page := c.get(gamePath(id)).mustSee(t, 200).Body
		log := elements(t, page, "div", "log")
		if len(log) != 1 {
			t.Fatalf("%d logs", len(log))
		}
		turns := within(log[0], "section", "log-turn")
		var headings []string
		for _, turn := range turns {
			headings = append(headings, textOf(within(turn, "h3", "")[0]))
		}
		var want []string
		for k := len(order); k >= 1; k-- {
			who := order[k-1] + "’s turn"
			if order[k-1] == reader {
				who = "your turn"
			}
			want = append(want, "Turn "+strconv.Itoa(k)+": "+who)
		}
		want = append(want, "The start")
		if !slices.Equal(headings, want) {
			t.Fatalf("%s's log is headed %q, want %q", reader, headings, want)
		}
		for i, turn := range turns[1 : len(turns)-1] { // the turns that ended
			items := within(turn, "li", "")
			last := textOf(items[len(items)-1])
			m := turnHeading.FindStringSubmatch(headings[i+1])
			if m == nil || !strings.HasSuffix(last, order[len(order)-2-i]+" ends their turn.") {
				t.Errorf("%s's log: %q ends with %q", reader, headings[i+1], last)
			}
		}
		if first := textOf(within(turns[len(turns)-1], "li", "")[0]); !strings.Contains(first, "The game begins with 2 players") {
			t.Errorf("%s's log: the start begins with %q", reader, first)
		}
	}
}

package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// testDeck is a legal deck (24 cards) that makes the situations the
// tests need come in any shuffle: Tools enough to claim every basic
// challenge, four Monsters in pairs (placing the second of a pair asks
// which stays) and two Hiring Freeze, which answers a placement (with
// the conceal policy every placement opens an interrupt window for the
// other seat).
var testDeck = []map[string]any{
	{"card": "all-nighter-build", "count": 2}, {"card": "full-stack-app", "count": 2}, {"card": "bi-suite", "count": 2},
	{"card": "super-app", "count": 2}, {"card": "enterprise-service-bus", "count": 2}, {"card": "analytics-sdk", "count": 2},
	{"card": "rapid-prototype", "count": 2}, {"card": "glitchy-junior", "count": 2}, {"card": "doodle-junior", "count": 2},
	{"card": "qubo-junior", "count": 2}, {"card": "boss-blob-junior", "count": 2}, {"card": "hiring-freeze", "count": 2},
}

// makeDeck stores testDeck as u's deck, through the JSON API (deck lists
// are setup, not play), and returns its id.
func (s *site) makeDeck(u apiUser) int64 {
	s.t.Helper()
	var d struct {
		ID int64 `json:"id"`
	}
	s.apiCall(http.MethodPost, "/v1/decks", u.Access, map[string]any{"name": "Pairs and freezes", "cards": testDeck}, &d)
	return d.ID
}

// move is what a player sends next: the form (by its index on the page)
// and the boxes to tick in it.
type move struct {
	Form  int
	Tick  []string // values of choice boxes
	Kind  string   // the prompt's kind, "" for a turn action
	Label string
}

var turnPattern = regexp.MustCompile(`· turn (\d+)`)

// turnOf is the turn number a board shows (0 before the start).
func turnOf(body string) int {
	m := turnPattern.FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// pick chooses a player's next move on a board of the game at turn,
// as a plain player would: a question first (pass an interrupt, keep the
// first card, tick the first options), then a claim (the most challenges
// at once), a Tool, and (from the fifth turn, so that hands grow past the
// limit first) a card placed in the Lab; else the end of the turn. ok is
// false when the board offers no move.
func pick(forms []pageForm, turn int) (m move, ok bool) {
	best, score := -1, 0
	for i, f := range forms {
		if !strings.HasSuffix(f.Action, "/play") {
			continue
		}
		typ := f.Fields.Get("type")
		s := 0
		switch {
		case typ == "answer" && f.Kind == "interrupt" && f.Fields.Get("choice") == "pass":
			s = 100
		case typ == "answer" && f.Kind == "interrupt":
			s = 0 // play no interrupt: pass
		case typ == "answer" && len(f.Boxes) > 0:
			s = 100
		case typ == "answer":
			s = 90 - i // the first option
		case typ == "claim":
			s = 50 + len(f.Fields["challenge"])
		case typ == "play_tool" && turn >= 5:
			s = 40
		case typ == "place" && turn >= 5:
			s = 30
		case typ == "end_turn":
			s = 10
		}
		if s > score {
			best, score = i, s
		}
	}
	if best < 0 {
		return m, false
	}
	f := forms[best]
	m = move{Form: best, Kind: f.Kind, Label: f.Button}
	if len(f.Boxes) > 0 {
		for _, b := range f.Boxes[:f.Min] {
			m.Tick = append(m.Tick, b.Value)
		}
		m.Label = f.Legend
	}
	return m, true
}

// sendMove posts form f with the boxes move m ticks.
func (c *client) sendMove(f pageForm, m move) resp {
	c.s.t.Helper()
	v := url.Values{}
	for k, vs := range f.Fields {
		v[k] = vs
	}
	if len(f.Boxes) > 0 {
		v["choice"] = m.Tick
	}
	return c.post(f.Action, v)
}

// happened records the situations a game went through.
type happened struct {
	discard, keep, window bool
	moves                 int
}

func (h *happened) saw(m move) {
	h.moves++
	switch m.Kind {
	case "discard":
		h.discard = true
	case "keep":
		h.keep = true
	case "interrupt":
		h.window = true
	}
}

func (h happened) all() bool { return h.discard && h.keep && h.window }

// TestPlayAGameByForms plays a whole 2-player game through the pages'
// forms alone, as a browser without script would: two users register,
// one opens a game from the new game form, the other joins it from the
// lobby, and they play to the end, one form per action, until each of a
// hand-limit discard, a "which Monster stays" choice and an interrupt
// window answered by the other player has happened. The final board shows
// the scores and the winner.
func TestPlayAGameByForms(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, bob := s.client(), s.client()
		ana.register("ana", "ana password")
		bob.register("bob", "bob password")
		decks := []int64{s.makeDeck(s.apiLogin("ana", "ana password")), s.makeDeck(s.apiLogin("bob", "bob password"))}
		var h happened
		for game := 1; game <= 3 && !h.all(); game++ {
			id := openGame(t, ana, bob, decks)
			spec := s.client().get(gamePath(id)).mustSee(t, 200, "You are watching", "The Market")
			if strings.Contains(spec.Body, "Your hand") || strings.Contains(spec.Body, "/play") {
				t.Fatal("a visitor's board shows a hand or a move")
			}
			playToEnd(t, []*client{ana, bob}, id, &h)
			end := ana.get(gamePath(id)).mustSee(t, 200, "Final scores", "Over")
			if !strings.Contains(end.Body, "The winner is") && !strings.Contains(end.Body, "A shared win") {
				t.Fatalf("the final board names no winner:\n%s", clip(end.Body))
			}
			t.Logf("game %d: %d moves, discard %v, keep %v, window %v", id, h.moves, h.discard, h.keep, h.window)
		}
		if !h.all() {
			t.Fatalf("after three games: discard %v, keep %v, interrupt window %v", h.discard, h.keep, h.window)
		}
	})
}

func gamePath(id int64) string { return "/games/" + itoa(id) }

// openGame has ana open a fast 2-player public game with the conceal
// policy from the new game form, bob join it from the lobby, and ana
// start it; it returns its id.
func openGame(t testing.TB, ana, bob *client, decks []int64) int64 {
	t.Helper()
	f := mustForm(t, ana.get("/new-game").mustSee(t, 200, "A new game").Body, "Open the game")
	loc := ana.send(f, "players", "2", "mode", "fast", "deck", "deck:"+itoa(decks[0]), "policy", "conceal",
		"turn_deadline", "86400").mustRedirect(t, "/games/")
	id := gameIDOf(t, loc)
	ana.get(loc).mustSee(t, 200, "Waiting for players", "Your game is open")
	lobby := bob.get("/").mustSee(t, 200, "Public games with an open seat", fmt.Sprintf("Game #%d", id))
	var join pageForm
	for _, f := range formsOf(t, lobby.Body) {
		if f.Action == fmt.Sprintf("/games/%d/join", id) {
			join = f
		}
	}
	if join.Action == "" {
		t.Fatalf("bob's lobby has no join form for game %d:\n%s", id, clip(lobby.Body))
	}
	bob.send(join, "deck", "deck:"+itoa(decks[1])).mustRedirect(t, gamePath(id)+"?done=joined")
	start := mustForm(t, ana.get(gamePath(id)).mustSee(t, 200, "ready").Body, "Start the game")
	ana.follow303(t, ana.send(start)).mustSee(t, 200, "In play", "The Market")
	return id
}

// playToEnd plays game id with the players' clients, each sending the
// move pick chooses whenever their board has one, until the game is over.
func playToEnd(t *testing.T, players []*client, id int64, h *happened) {
	t.Helper()
	for step := 0; step < 3000; step++ {
		acted := false
		for _, c := range players {
			page := c.get(gamePath(id)).mustSee(t, 200)
			if strings.Contains(page.Body, "Final scores") {
				return
			}
			forms := formsOf(t, page.Body)
			m, ok := pick(forms, turnOf(page.Body))
			if !ok {
				continue
			}
			r := c.sendMove(forms[m.Form], m)
			if r.Status != http.StatusSeeOther {
				t.Fatalf("%q: status %d\n%s", m.Label, r.Status, clip(r.Body))
			}
			h.saw(m)
			acted = true
		}
		if !acted {
			t.Fatalf("nobody has a move in game %d:\n%s", id, clip(players[0].get(gamePath(id)).Body))
		}
	}
	t.Fatalf("game %d did not end", id)
}

// TestBoardForms: the board's forms as a careless user, a flaky network
// or an attacker sends them. A form sent twice (a double click, a retry)
// acts once; a page the game has moved past gets "the game moved on" and
// the fresh board, and changes nothing; a choice of several with the wrong
// number of boxes is refused by the play path with its reason, and changes
// nothing; a form no page makes is refused; a visitor sees a public game's
// board, and a private one's asks them to sign in.
func TestBoardForms(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		webs := map[string]*client{"ana": s.client(), "bob": s.client()}
		for n, c := range webs {
			c.register(n, n+" password")
		}
		id := s.startGame(s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password"))
		version := func() int64 { g, _ := s.gameState(id); return g.Version }
		awaited := func() *client {
			g, _ := s.gameState(id)
			for _, st := range g.Seats {
				if st.Awaited {
					return webs[st.Username]
				}
			}
			t.Fatal("nobody is awaited")
			return nil
		}
		c := awaited()
		// The player card of the seat whose turn it is says so, in the
		// reader's words.
		for _, w := range webs {
			want, not := `class="badge">their turn<`, `class="badge">your turn<`
			if w == c {
				want, not = not, want
			}
			if page := w.get(gamePath(id)).mustSee(t, 200, want).Body; strings.Contains(page, not) {
				t.Fatalf("a board says both %q and %q", want, not)
			}
		}
		end := mustForm(t, c.get(gamePath(id)).mustSee(t, 200, "Your move").Body, "End your turn")
		v := version()
		c.send(end).mustRedirect(t, gamePath(id))
		c.send(end).mustRedirect(t, gamePath(id)) // the same form again: done already
		if version() != v+1 {
			t.Fatalf("a form sent twice moved the game from %d to %d", v, version())
		}
		if strings.Contains(c.get(gamePath(id)).Body, `datetime="0001-`) {
			t.Fatal("the log shows an event without its time")
		}
		c.send(end, "key", "another-key").mustSee(t, 409, "The game moved on", "The Market")
		if version() != v+1 {
			t.Fatal("a stale form changed the game")
		}
		for _, bad := range [][]string{{"type", "timeout"}, {"type", "nonsense"}, {"v", ""}, {"card", strings.Repeat("x", 100)}} {
			c.send(end, append([]string{"key", "k-" + bad[0] + bad[1]}, bad...)...).mustSee(t, 422)
		}
		// Turns pass until someone must discard several cards of a hand.
		// No two buttons of a turn, or of a discard of one card, say the
		// same: of two copies of a card in hand, the board offers one
		// (engine.Distinct).
		twins := 0
		for range 12 {
			c = awaited()
			page := c.get(gamePath(id)).Body
			labels := map[string]bool{}
			for _, f := range formsOf(t, page) {
				typ := f.Fields.Get("type")
				turn := typ != "" && typ != "answer"
				oneCard := typ == "answer" && len(f.Boxes) == 0 && (f.Kind == "discard" || f.Kind == "interrupt")
				if !strings.HasSuffix(f.Action, "/play") || !turn && !oneCard {
					continue
				}
				label := f.Fields.Get("prompt") + " " + f.Button
				if labels[label] {
					t.Fatalf("two buttons read %q:\n%s", f.Button, clip(page))
				}
				labels[label] = true
			}
			_, st := s.gameState(id)
			for _, seat := range engine.Awaiting(st) {
				twins += len(engine.Moves(st, seat)) - len(engine.Distinct(engine.Moves(st, seat)))
			}
			if strings.Contains(page, `class="prompt choose"`) {
				break
			}
			m, ok := pick(formsOf(t, page), 0)
			if !ok {
				t.Fatal("no move")
			}
			c.sendMove(formsOf(t, page)[m.Form], m).mustRedirect(t, gamePath(id))
		}
		page := c.get(gamePath(id)).Body
		var choose pageForm
		for _, f := range formsOf(t, page) {
			if len(f.Boxes) > 0 && f.Fields.Get("type") == "answer" {
				choose = f
			}
		}
		if choose.Action == "" {
			t.Fatalf("no choice of several came:\n%s", clip(page))
		}
		before := version()
		for _, n := range []int{choose.Min - 1, choose.Max + 1} {
			v := url.Values{}
			for k, vs := range choose.Fields {
				v[k] = vs
			}
			v.Set("key", "count-"+strconv.Itoa(n))
			for _, b := range choose.Boxes[:min(max(n, 0), len(choose.Boxes))] {
				v.Add("choice", b.Value)
			}
			c.post(choose.Action, v).mustSee(t, 422, "That move is not possible", "choices")
		}
		if version() != before {
			t.Fatal("a refused choice changed the game")
		}

		t.Logf("%d moves were a copy of another", twins)

		// Visitors: the game above is private.
		s.client().get(gamePath(id)).mustRedirect(t, "/login?next=")
	})
}

// TestReclaimSeat: after a timeout too many the service's bot plays a
// player's seat; the board says so, and its button gives the seat back
// (play.Service.Reclaim), once.
func TestReclaimSeat(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	webs := map[string]*client{"ana": s.client(), "bob": s.client()}
	for n, c := range webs {
		c.register(n, n+" password")
	}
	ana, bob := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
	deck := map[string]string{"prebuilt": "running-a-startup"}
	var g struct {
		ID int64 `json:"id"`
	}
	s.apiCall(http.MethodPost, "/v1/games", ana.Access, map[string]any{"players": 2, "mode": "fast", "deck": deck,
		"invite": []string{"bob"}, "turn_deadline_seconds": 3600, "timeout_limit": 1, "on_timeouts": "bot"}, &g)
	s.apiCall(http.MethodPost, "/v1/games/"+itoa(g.ID)+"/join", bob.Access, map[string]any{"deck": deck}, nil)
	s.apiCall(http.MethodPost, "/v1/games/"+itoa(g.ID)+"/start", ana.Access, nil, nil)
	game, _ := s.gameState(g.ID)
	late := game.Seats[slices.IndexFunc(game.Seats, func(st models.Seat) bool { return st.Awaited })].Username
	s.clock.Add(2 * time.Hour)
	if ok, err := s.play.Timeout(context.Background(), g.ID); err != nil || !ok {
		t.Fatalf("timeout: %v, %v", ok, err)
	}
	c := webs[late]
	page := c.get(gamePath(g.ID)).mustSee(t, 200, "A bot plays your seat", `id="reclaim"`)
	back := mustForm(t, page.Body, "Take my seat back")
	c.send(back).mustRedirect(t, gamePath(g.ID)+"?done=reclaimed")
	c.get(gamePath(g.ID)+"?done=reclaimed").mustSee(t, 200, "Your seat is yours again")
	game, _ = s.gameState(g.ID)
	if st := game.Seats[game.SeatOf(map[string]int64{"ana": ana.ID, "bob": bob.ID}[late])]; st.Bot != "" {
		t.Fatalf("the seat is still played by the bot: %+v", st)
	}
	c.send(back).mustRedirect(t, gamePath(g.ID)) // sent again: done already
	c.send(back, "key", "another").mustSee(t, 409, "the bot took nothing over")
}

// TestFinalScoresSayHowTheGameEnded: when a player resigns, the other's
// board says the game is over, why, and who won, each once.
func TestFinalScoresSayHowTheGameEnded(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	ana, bob := s.client(), s.client()
	ana.register("ana", "ana password")
	bob.register("bob", "bob password")
	id := s.startGame(s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password"))
	bob.send(mustForm(t, bob.get(gamePath(id)).Body, "Resign"), "confirm", "yes").mustRedirect(t, gamePath(id))
	page := ana.get(gamePath(id)).mustSee(t, 200, "Final scores", "It ended because only one player is left.").Body
	result := page[strings.Index(page, `id="result-title"`):]
	result = result[:strings.Index(result, "</section>")]
	if n := strings.Count(result, "ana"); n != 2 { // the winner line and the table
		t.Fatalf("the result box names ana %d times:\n%s", n, result)
	}
	if !strings.Contains(result, "The winner is <strong>ana</strong>") || strings.Contains(result, "Winner:") {
		t.Fatalf("the result box:\n%s", result)
	}
}

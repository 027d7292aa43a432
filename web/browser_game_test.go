package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/datamonsters/turns/engine"
)

// html is the page's whole HTML as the browser has it now (after any live
// update).
func (b *tab) html() string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
	if err != nil {
		b.t.Fatalf("%s: %v", b.name, err)
	}
	return s
}

// formXPath is the XPath of the page's post form number i (from 0).
func formXPath(i int) string { return fmt.Sprintf("(//form[@method='post'])[%d]", i+1) }

// play makes move m on the tab's page, by clicks: the boxes it ticks,
// then the form's button. It returns the status of the page that follows.
func (b *tab) play(m move) int64 {
	b.t.Helper()
	for _, v := range m.Tick {
		b.run(chromedp.Click(chromedp.Search(formXPath(m.Form) + fmt.Sprintf("//input[@name='choice'][@value='%s']", v))))
	}
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	r, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.Search(formXPath(m.Form)+"//button[@type='submit']")))
	if err != nil {
		b.t.Fatalf("%s: %q: %v", b.name, m.Label, err)
	}
	return r.Status
}

// boardVersion is the version of the board the tab shows, 0 for none.
func (b *tab) boardVersion() int64 {
	b.t.Helper()
	s, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(document.getElementById("board") || {getAttribute: () => "0"}).getAttribute("data-version") || "0"`))
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

var handPattern = regexp.MustCompile(`Your hand \((\d+)\)`)

// handOf is the number of cards of the hand a board shows.
func handOf(page string) int {
	m := handPattern.FindStringSubmatch(page)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// waitText waits up to 10 s for the page's text to have text.
func (b *tab) waitText(text string) {
	b.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(b.text(), text) {
		if time.Now().After(deadline) {
			b.t.Fatalf("%s: the page does not come to say %q:\n%s", b.name, text, b.text())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// registerInBrowser creates the account name through the register page.
func (b *tab) registerInBrowser(name string) {
	b.t.Helper()
	b.open("/register")
	b.fill("f-username", name)
	b.fill("f-email", name+"@example.com")
	b.fill("f-password", name+" password")
	b.choose("f-time_zone", "Europe/Paris")
	if st := b.press(submit); st != 200 {
		b.t.Fatalf("%s: registering: %d", b.name, st)
	}
	b.see("Your games")
}

// TestBrowserGame plays whole 2-player games in two browsers, by clicks
// only: both register through the pages, ana opens a game from the new
// game form, bob joins it from the lobby, ana starts it, and they play to
// its end until a hand-limit discard, a "which Monster stays" choice and
// an interrupt window answered from the other browser have all happened.
// Neither board is reloaded by the test: after the other player's move a
// board shows it by itself (the live stream), and the interrupt window
// comes to bob's open page. A spectator's board, signed out, shows no card
// from any hand, deck or Recycle Bin, checked against the engine's state
// in the store. The lobby, the new game form, the boards and the
// spectator's page pass axe-core.
func TestBrowserGame(t *testing.T) {
	root := browser(t)
	axe := needAxe(t)
	s := newSite(t, browserDialect(), siteOptions{outbox: true})
	tabs := s.tabs(t, root, "ana", "bob", "eve")
	ana, bob, eve := tabs[0], tabs[1], tabs[2]
	ana.registerInBrowser("ana")
	bob.registerInBrowser("bob")
	decks := []int64{s.makeDeck(s.apiLogin("ana", "ana password")), s.makeDeck(s.apiLogin("bob", "bob password"))}

	var h happened
	live, spectated, standing, shot := false, false, false, false
	var watching int64 // the game the spectator watches
	for game := 1; game <= 3 && !h.all(); game++ {
		id := openGameInBrowser(t, ana, bob, decks, game == 1, axe)
		players := []*tab{ana, bob}
		for step := 0; ; step++ {
			if step > 600 {
				t.Fatalf("game %d did not end", id)
			}
			who, m := waitMove(t, players, id)
			if who == nil {
				break // over
			}
			if m.Kind == "interrupt" && !live {
				// The window came to this open page without a reload.
				var mark bool
				mark, _ = chromedp.Run(who.ctx, chromedp.Evaluate[bool](`window.dmSameDocument === true`))
				if !mark {
					t.Fatalf("%s: the interrupt window came with a new page, not live", who.name)
				}
				who.axe(axe)
				who.look("interrupt")
				live = true
			}
			if m.Kind == "discard" && !h.discard {
				who.axe(axe)
				who.tabThrough()
				who.look("discard")
			}
			if m.Kind == "keep" && !h.keep {
				who.look("keep")
			}
			if !shot && h.keep && (strings.HasPrefix(m.Label, "Play") || strings.HasPrefix(m.Label, "Place")) && handOf(who.html()) >= 4 {
				docShots(t, who, id) // a board with its moves, for the README
				chromedp.Run(who.ctx, chromedp.Evaluate[chromedp.Void](`window.dmSameDocument = true`))
				shot = true
				continue
			}
			version := who.boardVersion()
			st := who.play(m)
			if st == 409 {
				who.see("The game moved on") // a live update raced the click: nothing was applied
				continue
			}
			if st != 200 {
				t.Fatalf("%s: %q: status %d:\n%s", who.name, m.Label, st, who.text())
			}
			if who.boardVersion() <= version {
				t.Fatalf("%s: %q: the board is still at version %d", who.name, m.Label, version)
			}
			h.saw(m)
			// Mark both pages: from now on they change without being loaded again.
			for _, p := range players {
				chromedp.Run(p.ctx, chromedp.Evaluate[chromedp.Void](`window.dmSameDocument = true`))
			}
			if h.window && !standing {
				// Both answer the windows ahead now: the game waits less.
				for _, p := range players {
					p.open(gamePath(id))
					p.run(chromedp.Click(chromedp.ID("st-pass")))
					if st := p.press("#standing button[type=submit]"); st != 200 {
						t.Fatalf("%s: saving the standing answers: %d\n%s", p.name, st, p.text())
					}
					if on, _ := chromedp.Run(p.ctx, chromedp.Evaluate[bool](`document.getElementById("st-pass").checked`)); !on {
						t.Fatalf("%s: the standing answer is not saved", p.name)
					}
					chromedp.Run(p.ctx, chromedp.Evaluate[chromedp.Void](`window.dmSameDocument = true`))
				}
				standing = true
			}
			if h.moves == 12 && !spectated {
				spectate(t, s, eve, id, axe)
				ana.look("board")
				chromedp.Run(eve.ctx, chromedp.Evaluate[chromedp.Void](`window.dmSameDocument = true`))
				spectated = true
				watching = id
			}
		}
		for _, p := range players {
			p.waitText("Final scores")
		}
		if watching == id {
			// The visitor's board followed the game to its end by itself.
			eve.waitText("Final scores")
			if same, _ := chromedp.Run(eve.ctx, chromedp.Evaluate[bool](`window.dmSameDocument === true`)); !same {
				t.Fatal("the spectator's board was loaded again, not live")
			}
		}
		ana.see("Over")
		ana.axe(axe)
		ana.look("over")
		t.Logf("game %d: %d moves; discard %v, keep %v, window %v", id, h.moves, h.discard, h.keep, h.window)
	}
	if !h.all() || !live || !spectated {
		t.Fatalf("discard %v, keep %v, interrupt window %v, live %v, spectator %v", h.discard, h.keep, h.window, live, spectated)
	}
}

// openGameInBrowser has ana open a fast public game with the conceal
// policy from the new game form, bob join it from the lobby, and ana
// start it, all by clicks; it returns the game's id. first: check the
// pages with axe-core on the way.
func openGameInBrowser(t *testing.T, ana, bob *tab, decks []int64, first bool, axe string) int64 {
	t.Helper()
	ana.open("/")
	ana.press("a.button[href='/new-game']")
	ana.see("A new game")
	if first {
		ana.axe(axe)
		ana.look("new-game")
	}
	ana.choose("f-players", "2")
	ana.run(chromedp.Click(chromedp.ID("mode-fast")), chromedp.Click(chromedp.ID("policy-conceal")))
	ana.choose("f-deck", "deck:"+itoa(decks[0]))
	ana.choose("f-turn_deadline", "86400")
	if st := ana.press("form[action='/games'] button[type=submit]"); st != 200 {
		t.Fatalf("opening the game: %d\n%s", st, ana.text())
	}
	ana.see("Waiting for players", "Your game is open")
	id := gameIDOf(t, ana.path())
	if first {
		ana.axe(axe)
		ana.look("open-game")
	}
	bob.open("/")
	bob.see("Public games with an open seat", fmt.Sprintf("Game #%d", id))
	if first {
		bob.axe(axe)
		bob.tabThrough()
		bob.look("lobby")
	}
	bob.choose(fmt.Sprintf("deck-p%d", id), "deck:"+itoa(decks[1]))
	if st := bob.press(fmt.Sprintf("form[action='/games/%d/join'] button", id)); st != 200 {
		t.Fatalf("joining: %d\n%s", st, bob.text())
	}
	bob.see("You have a seat")
	ana.open(gamePath(id))
	if st := ana.press(fmt.Sprintf("form[action='/games/%d/start'] button", id)); st != 200 {
		t.Fatalf("starting: %d\n%s", st, ana.text())
	}
	ana.see("In play", "The Market")
	bob.open(gamePath(id))
	chromedp.Run(bob.ctx, chromedp.Evaluate[chromedp.Void](`window.dmSameDocument = true`))
	return id
}

// waitMove waits up to 15 s for one of the players' boards to offer a
// move, as they show it now (nobody reloads them), and returns whose and
// which; nil when the game is over.
func waitMove(t *testing.T, players []*tab, id int64) (*tab, move) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		for _, p := range players {
			page := p.html()
			if strings.Contains(page, "Final scores") {
				return nil, move{}
			}
			if m, ok := pick(formsOf(t, page), turnOf(page)); ok {
				return p, m
			}
		}
		if time.Now().After(deadline) {
			g, _ := players[0].s.gameState(id)
			t.Fatalf("game %d at version %d: no board offers a move after 15 s (are the boards live?): %s shows version %d, %s %d:\n%s\n%s",
				id, g.Version, players[0].name, players[0].boardVersion(), players[1].name, players[1].boardVersion(), players[0].text(), players[1].text())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// spectate opens game id's board in eve's browser, signed out, and checks
// that it shows no card that is in a hand, a deck or a Recycle Bin (by
// instance id, and by name unless the card shows in a public zone or the
// public log), against the engine's state read from the store at the
// version the page shows.
func spectate(t *testing.T, s *site, eve *tab, id int64, axe string) {
	t.Helper()
	if st := eve.open(gamePath(id)); st != 200 {
		t.Fatalf("the spectator's page: %d", st)
	}
	eve.see("You are watching", "The Market", "Players")
	page, text := eve.html(), eve.text()
	g, err := s.store.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	data, err := g.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	st, err := engine.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if v := eve.boardVersion(); v != g.Version {
		t.Fatalf("the spectator's page shows version %d, the store has %d", v, g.Version)
	}
	public := map[string]bool{}
	spec := st.View(engine.Spectator)
	addAll := func(cs []engine.CardView) {
		for _, c := range cs {
			public[c.Name] = true
		}
	}
	addAll(spec.Market)
	for _, p := range spec.Players {
		addAll(p.Lab)
		addAll(p.Ranking)
	}
	if spec.Build != nil {
		addAll(spec.Build.Tools)
	}
	for _, gl := range spec.Global {
		public[gl.Name] = true
	}
	cat := engine.Standard()
	hidden := 0
	for i, p := range st.Players {
		for zone, insts := range map[string][]engine.Inst{"hand": p.Hand, "deck": p.Deck, "Recycle Bin": p.Bin} {
			for _, in := range insts {
				hidden++
				if strings.Contains(page, `"`+in.ID+`"`) || strings.Contains(page, ">"+in.ID+"<") {
					t.Errorf("the spectator's page shows the instance %s of seat %d's %s", in.ID, i, zone)
				}
				name := cat.Card(in.Card).Name
				if !public[name] && !logNames(text, name) {
					t.Errorf("the spectator's page names %s, in seat %d's %s and in no public zone", name, i, zone)
				}
			}
		}
	}
	if hidden == 0 {
		t.Fatal("no hidden card to look for")
	}
	eve.axe(axe)
	eve.look("spectator")
}

// logNames reports whether the page's text names name only as its public
// log does: true when name does not appear at all, or when the log names
// it (a card played, then returned to a hidden zone, is public knowledge).
func logNames(text, name string) bool {
	if !strings.Contains(text, name) {
		return true
	}
	_, log, _ := strings.Cut(text, "What happened")
	return strings.Contains(log, name)
}

// docShots keeps the board as the README shows it, at 1280 and 360 px
// wide, in the folder WEB_DOCS_SHOTS names (docs/ of the repository), when
// it is set.
func docShots(t *testing.T, b *tab, id int64) {
	dir := os.Getenv("WEB_DOCS_SHOTS")
	if dir == "" {
		return
	}
	b.open(gamePath(id))
	for _, size := range []struct {
		w, h int64
		name string
	}{{1280, 1100, "board-1280.png"}, {360, 1500, "board-360.png"}} {
		var png []byte
		err := chromedp.Do(b.ctx, chromedp.EmulateViewport(size.w, size.h))
		if err == nil {
			png, err = chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, size.name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b.restore()
}

// TestBrowserGameWithoutScript plays the first turns of a game (both
// players' first two turns, a hand-limit discard among them) in two
// browsers whose script is off: every action is a plain form post and a
// redirect, and each player loads their page to see the other's moves.
func TestBrowserGameWithoutScript(t *testing.T) {
	root := browser(t)
	s := newSite(t, browserDialect(), siteOptions{outbox: true})
	tabs := s.tabs(t, root, "ana", "bob")
	ana, bob := tabs[0], tabs[1]
	for _, p := range tabs {
		if _, err := chromedp.Call(p.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
	}
	ana.registerInBrowser("ana")
	bob.registerInBrowser("bob")
	decks := []int64{s.makeDeck(s.apiLogin("ana", "ana password")), s.makeDeck(s.apiLogin("bob", "bob password"))}
	id := openGameInBrowser(t, ana, bob, decks, false, "")
	var h happened
	turns, boxes := map[string]bool{}, false
	for step := 0; step < 200; step++ {
		acted := false
		for _, p := range tabs {
			p.open(gamePath(id)) // no live stream without script: the player loads the page
			page := p.html()
			turn := turnOf(page)
			if turn > 4 {
				break
			}
			m, ok := pick(formsOf(t, page), turn)
			if !ok {
				continue
			}
			if len(m.Tick) > 0 {
				// A choice of several: the boxes alone, no script to count them.
				count, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.querySelector("form.choose .count").textContent`))
				if count != "" {
					t.Fatalf("%s: the page's script ran: %q", p.name, count)
				}
				boxes = true
			}
			if st := p.play(m); st != 200 {
				t.Fatalf("%s: %q: %d\n%s", p.name, m.Label, st, p.text())
			}
			if m.Label == "End your turn" {
				turns[p.name] = true
			}
			h.saw(m)
			acted = true
		}
		if !acted {
			break
		}
	}
	if !turns["ana"] || !turns["bob"] || !h.discard || !boxes {
		t.Fatalf("turns ended %v, discard %v (with boxes %v), after %d moves", turns, h.discard, boxes, h.moves)
	}
	var events struct {
		Events []json.RawMessage `json:"events"`
	}
	s.apiCall("GET", fmt.Sprintf("/v1/games/%d/events", id), s.apiLogin("ana", "ana password").Access, nil, &events)
	if len(events.Events) < 4 {
		t.Fatalf("%d events", len(events.Events))
	}
}

// TestBrowserActionLink opens the action link of a decision email in a
// browser that is not signed in: the confirmation page shows the move on
// the public board and passes axe-core; opening it changed nothing; its
// button applies the move, and the page then says it is done, also when
// opened again.
func TestBrowserActionLink(t *testing.T) {
	root := browser(t)
	axe := needAxe(t)
	s := newSite(t, browserDialect(), siteOptions{})
	s.client().register("ana", "ana password")
	s.client().register("bob", "bob password")
	id := s.startGame(s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password"))
	link, _, name, v := s.actionLink(id, "End your turn")
	tab := s.tabs(t, root, "reader")[0]
	if st := tab.open(link); st != 200 {
		t.Fatalf("the link's page: %d", st)
	}
	tab.see("Confirm your move", "End your turn", "This link acts for "+name, "The Market")
	tab.axe(axe)
	tab.tabThrough()
	tab.look("act")
	if g, _ := s.gameState(id); g.Version != v {
		t.Fatalf("opening the link moved the game to version %d", g.Version)
	}
	if st := tab.press("form[action='/games/" + itoa(id) + "/act'] button"); st != 200 {
		t.Fatalf("confirming: %d\n%s", st, tab.text())
	}
	tab.see("Done", "it was applied once")
	tab.axe(axe)
	tab.look("act-done")
	tab.open(link)
	tab.see("Done")
	if g, _ := s.gameState(id); g.Version != v+1 {
		t.Fatalf("after the confirmation the game is at version %d, want %d", g.Version, v+1)
	}
}

package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/datamonsters/turns/models"
)

// endgame is the position a game against the bot is set to: the bot's
// turn ends and ana's begins. She draws Proof of Concept and Hiring
// Freeze; her Scrum Planning meets the bot's Red Tape, her first claim of
// Landing Page its Scope Creep; on its turn the bot places Qubo, which
// ana may answer with Hiring Freeze; then she wins To-Do List App, the
// last challenge.
const endgame = `
seed: 7
players:
  - name: ana
    hand: [scrum-planning, enterprise-service-bus, rapid-prototype]
    deck: [proof-of-concept, hiring-freeze, analytics-sdk, frontend-framework, open-source-library, data-lake]
  - name: bot-1
    hand: [red-tape, scope-creep, qubo-junior]
    deck: [data-lake, stored-procedures, data-lake, stored-procedures, data-lake]
market: [landing-page, todo-app]
active: 1
turn: 6
phase: end
`

// pressButton clicks the button whose text starts with text and waits
// for the page that follows; it returns that page's status.
func (b *tab) pressButton(text string) int64 {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	r, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.Search(fmt.Sprintf(`//button[starts-with(normalize-space(.), %q)]`, text))))
	if err != nil {
		b.t.Fatalf("%s: press %q: %v\n%s", b.name, text, err, b.text())
	}
	return r.Status
}

// inside is the visible text of the first element sel, "" for none.
func (b *tab) inside(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q) || {innerText: ""}).innerText`, sel)))
	if err != nil {
		b.t.Fatal(err)
	}
	return s
}

// waitIn waits up to 10 s for the element sel to say text (the board
// follows the game live: nobody reloads it).
func (b *tab) waitIn(sel, text string) {
	b.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(b.inside(sel), text) {
		if time.Now().After(deadline) {
			b.t.Fatalf("%s: %s does not come to say %q; it says %q\nthe page:\n%s", b.name, sel, text, b.inside(sel), b.text())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// seen fails unless the element sel shows, at least in part, in the
// viewport as the page stands (nobody scrolled it).
func (b *tab) seen(sel string) {
	b.t.Helper()
	in, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
		const e = document.querySelector(%q); if (!e) return false;
		const r = e.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })()`, sel)))
	if err != nil || !in {
		b.t.Fatalf("%s: %s is not in view (%v)", b.name, sel, err)
	}
}

// width sets the tab's viewport width (800 px high), for the rest of
// the test.
func (b *tab) width(w int64) {
	b.t.Helper()
	b.vw, b.vh = w, 800
	b.run(chromedp.EmulateViewport(w, 800))
}

// docShot keeps the top of the page as docs/NAME-WIDTH.png, when
// WEB_DOCS_SHOTS names the folder (docs/ of the repository); the viewport
// is the test's again after.
func (b *tab) docShot(name string, w, h int64) {
	b.t.Helper()
	dir := os.Getenv("WEB_DOCS_SHOTS")
	if dir == "" {
		return
	}
	b.run(chromedp.EmulateViewport(w, h), chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, w)), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	if err := b.restore(); err != nil {
		b.t.Fatal(err)
	}
}

// TestBrowserTeaches plays a game against the service's bot by clicks,
// once at 1280 px and, as its rematch, once at 360 px, from a position
// where the bot's interrupts meet the player's moves. On the page she
// sees right after each move, the banner at the top names what happened
// to it: her draw, the Red Tape that cancelled her Scrum Planning, the
// Scope Creep that made her claim fail. The interrupt window of the bot's
// placement shows the card placed, whole. A move that loses something
// says so beside its button, and asks before it is sent. The final board
// ranks the scores and shows the fairness check; the rematch starts a new
// game with the same players. The rules page, the board with a banner and
// a window, and the final board pass axe-core at both widths, and the
// README's screenshots of them are taken (WEB_DOCS_SHOTS).
func TestBrowserTeaches(t *testing.T) {
	root := browser(t)
	axe := needAxe(t)
	s := newSite(t, browserDialect(), siteOptions{outbox: true})
	ana := s.tabs(t, root, "ana")[0]
	ana.registerInBrowser("ana")

	// The rules, reachable from every page.
	ana.open("/")
	if st := ana.press("a[href='/rules']"); st != 200 {
		t.Fatalf("the rules page: %d", st)
	}
	ana.see("How to play Data Monsters", "A turn", "The end and the tie-break", "Glossary", "Limit", "Interrupt", "Fair play")
	for _, w := range []int64{1280, 360} {
		ana.docShot("rules", w, 900)
	}
	ana.axe(axe)
	ana.look("rules")

	// A new game against the bot, from the new game form, which describes
	// the prebuilt decks.
	ana.open("/new-game")
	ana.see("New to the game? Take a prebuilt deck", "Running a Startup", "Working for the Enterprise", "28 cards")
	ana.choose("f-bots", "1")
	ana.choose("f-deck", "prebuilt:running-a-startup")
	ana.run(chromedp.Click(chromedp.ID("mode-fast")))
	if st := ana.press("form[action='/games'] button[type=submit]"); st != 200 {
		t.Fatalf("opening the game: %d\n%s", st, ana.text())
	}
	id := gameIDOf(t, ana.path())
	if st := ana.press(fmt.Sprintf("form[action='/games/%d/start'] button", id)); st != 200 {
		t.Fatalf("starting: %d\n%s", st, ana.text())
	}
	for round, w := range []int64{1280, 360} {
		playEndgame(t, s, ana, id, w, axe)
		if round == 1 {
			break
		}
		// The rematch: one click, the same players, a new game in play.
		if st := ana.pressButton("Rematch"); st != 200 {
			t.Fatalf("the rematch: %d\n%s", st, ana.text())
		}
		again := gameIDOf(t, ana.path())
		ana.see("Your rematch has started.", "In play", "bot-1")
		if again == id {
			t.Fatal("the rematch is the same game")
		}
		g, err := s.store.GameNoState(context.Background(), again)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != models.StatusActive || len(g.Seats) != 2 || g.Seats[0].Username != "ana" || g.Seats[1].Username != "bot-1" ||
			g.Seats[1].Bot != models.BotFromStart || g.Mode != "fast" {
			t.Fatalf("the rematch: %+v %+v", g, g.Seats)
		}
		id = again
	}
}

// playEndgame sets game id to the endgame and plays it to its end by
// clicks in ana's tab at width w, checking what each page says.
func playEndgame(t *testing.T, s *site, ana *tab, id int64, w int64, axe string) {
	t.Helper()
	ana.width(w)
	ana.open(gamePath(id)) // the browser has seen the game: the banner starts from here
	s.stage(t, id, endgame)
	ana.open(gamePath(id))
	ana.waitIn("#news", "You drew Proof of Concept (TECH 2, SCI 1) and Hiring Freeze.")
	ana.atWidth(w)
	ana.seen("#news")
	ana.see("Your Action phase", "Hiring Freeze", "What Interrupt means",
		"bot-1 is played by the service’s bot, which never votes: a vote cannot end this game.")
	if strings.Contains(ana.inside("#end"), "Vote to end the game") {
		t.Fatal("a vote that cannot pass is offered")
	}
	chromedp.Run(ana.ctx, chromedp.Evaluate[chromedp.Void](`window.dmSameDocument = true`))

	// Scrum Planning, cancelled by the bot's Red Tape.
	if st := ana.pressButton("Play Scrum Planning"); st != 200 {
		t.Fatalf("playing Scrum Planning: %d", st)
	}
	ana.waitIn("#news", "bot-1 played Red Tape: your Scrum Planning was cancelled.")
	ana.atWidth(w)
	ana.seen("#news")
	ana.waitIn(".log", "Red Tape cancels ana's Scrum Planning, which goes to the Recycle Bin.")

	// A claim that fails: the bot's Scope Creep wants 2 more TECH.
	for _, b := range []string{"Play Enterprise Service Bus", "Play Rapid Prototype"} {
		if st := ana.pressButton(b); st != 200 {
			t.Fatalf("%s: %d", b, st)
		}
	}
	ana.waitIn("#moves", "Claim Landing Page")
	if st := ana.pressButton("Claim Landing Page"); st != 200 {
		t.Fatalf("the claim: %d", st)
	}
	ana.waitIn("#news", "bot-1 played Scope Creep on your claim of Landing Page: the challenges need 2 more TECH, so the claim failed; the build stays open.")
	ana.atWidth(w)
	ana.seen("#news")
	// Ending the turn now would give the build up: the page says so, and
	// the button asks before it acts.
	ana.waitIn("#moves", "End your turn, abandoning your build of 2 Tools")
	if confirm, _ := chromedp.Run(ana.ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#moves form")].map(f => f.getAttribute("data-confirm") || "").join("|")`)); !strings.Contains(confirm, "Your open build is abandoned: its 2 Tools go to your Recycle Bin.") {
		t.Fatalf("the end of the turn asks nothing: %q", confirm)
	}
	// Giving the build up asks first; a player who says no keeps it.
	before := ana.boardVersion()
	ana.mu.Lock()
	ana.dismiss = true
	ana.mu.Unlock()
	ana.run(chromedp.Click(chromedp.Search(`//button[starts-with(normalize-space(.), "Abandon your build")]`)))
	var got []string
	for deadline := time.Now().Add(5 * time.Second); len(got) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		got = ana.asked()
	}
	ana.mu.Lock()
	ana.dismiss = false
	ana.mu.Unlock()
	if len(got) != 1 || !strings.HasPrefix(got[0], "You give up the build: its 2 Tools go to your Recycle Bin.") {
		t.Fatalf("abandoning the build asked %q", got)
	}
	time.Sleep(300 * time.Millisecond)
	if v := ana.boardVersion(); v != before || !strings.Contains(ana.inside("#moves"), "Claim Landing Page") {
		t.Fatalf("a dismissed abandon moved the board from version %d to %d", before, v)
	}
	ana.docShot("banner", w, 1000)
	ana.axe(axe)
	ana.look("banner")

	// More TECH, and the claim holds.
	ana.atWidth(w)
	if st := ana.pressButton("Play Proof of Concept"); st != 200 {
		t.Fatalf("Proof of Concept: %d", st)
	}
	ana.waitIn("#moves", "Claim Landing Page")
	ana.pressButton("Claim Landing Page")
	ana.waitIn(".log", "ana completes a Software Build of 3 Tools and wins Landing Page (1 Big Data Point).")
	if got := ana.asked(); len(got) != 0 {
		t.Fatalf("a move that loses nothing asked %q", got)
	}
	ana.pressButton("End your turn")

	// The bot's turn: it places Qubo, and the window shows the card.
	ana.waitIn("#board .window", "bot-1 is about to place Qubo (Junior)")
	ana.waitIn("#board .window .window-card", "Your Software Builds get +1 SCI.")
	ana.atWidth(w)
	ana.seen("#board .window")
	ana.see("Play Hiring Freeze: cancel it")
	ana.docShot("window", w, 1000)
	ana.axe(axe)
	ana.look("window")
	ana.atWidth(w)
	ana.pressButton("Pass")

	// Ana's turn: the last challenge. The page she sees after "Pass" says
	// at its top what she drew.
	ana.waitIn("#news", "You drew User Analytics SDK (TECH 1, SCI 3) and Frontend Framework (TECH 2, SCI 0).")
	ana.waitIn("#news", "bot-1 placed Qubo (Junior) in their Lab.")
	ana.atWidth(w)
	ana.seen("#news")
	for _, b := range []string{"Play User Analytics SDK", "Play Frontend Framework"} {
		ana.waitIn("#moves", b)
		ana.pressButton(b)
	}
	ana.waitIn("#moves", "Claim To-Do List App")
	ana.pressButton("Claim To-Do List App")
	ana.waitIn("#board", "Final scores")
	ana.atWidth(w)
	ana.seen(".result")
	ana.see("The winner is ana.", "Rank", "Check that the shuffles were fair", "datamonsters replay --url "+s.url+" "+itoa(id),
		"The game is over: you won with 2 Big Data Points.", "Rematch")
	if rows := ana.inside(".result tbody"); !strings.HasPrefix(rows, "1\tana") {
		t.Fatalf("the scores in rank order: %q", rows)
	}
	ana.docShot("final", w, 1100)
	ana.axe(axe)
	ana.look("final")
}

// TestBrowserLobbyIsLive: the pages where a player waits follow the game
// by themselves: bob's lobby shows ana's new invitation, ana's open game
// shows bob's seat once he joins, and bob's page of that game becomes its
// board when ana starts it; neither page is loaded again by the test.
// The favicon is the site's.
func TestBrowserLobbyIsLive(t *testing.T) {
	root := browser(t)
	s := newSite(t, browserDialect(), siteOptions{outbox: true})
	tabs := s.tabs(t, root, "ana", "bob")
	ana, bob := tabs[0], tabs[1]
	ana.registerInBrowser("ana")
	bob.registerInBrowser("bob")
	mark := func(b *tab) { chromedp.Run(b.ctx, chromedp.Evaluate[chromedp.Void](`window.dmSameDocument = true`)) }
	same := func(b *tab) bool {
		v, _ := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`window.dmSameDocument === true`))
		return v
	}
	bob.open("/")
	if href, _ := chromedp.Run(bob.ctx, chromedp.Evaluate[string](`document.querySelector("link[rel=icon]").getAttribute("href")`)); !strings.HasPrefix(href, "/assets/favicon.svg?v=") {
		t.Fatalf("the favicon: %q", href)
	}
	mark(bob)

	// ana opens a game that invites bob: his lobby shows it.
	ana.open("/new-game")
	ana.fill("f-invite", "bob")
	ana.choose("f-deck", "prebuilt:running-a-startup")
	if st := ana.press("form[action='/games'] button[type=submit]"); st != 200 {
		t.Fatalf("opening the game: %d\n%s", st, ana.text())
	}
	id := gameIDOf(t, ana.path())
	mark(ana)
	bob.waitIn("#lobby", "Invitations")
	bob.waitIn("#lobby", "Decline")
	if !same(bob) {
		t.Fatal("bob's lobby was loaded again, not updated in place")
	}

	// bob takes the seat from his lobby: ana's page shows him ready.
	bob.choose(fmt.Sprintf("deck-i%d", id), "prebuilt:working-for-the-enterprise")
	if st := bob.press(fmt.Sprintf("form[action='/games/%d/join'] button", id)); st != 200 {
		t.Fatalf("joining: %d\n%s", st, bob.text())
	}
	mark(bob)
	ana.waitIn("#open-game", "Start the game")
	if !same(ana) {
		t.Fatal("ana's open game was loaded again, not updated in place")
	}
	// ana starts it: bob's page becomes the board.
	if st := ana.pressButton("Start the game"); st != 200 {
		t.Fatalf("starting: %d", st)
	}
	bob.waitIn("main", "The Market")
	title, _ := chromedp.Run(bob.ctx, chromedp.Evaluate[string](`document.title`))
	board, _ := chromedp.Run(ana.ctx, chromedp.Evaluate[string](`document.title`))
	if strings.HasPrefix(title, "Your move") == strings.HasPrefix(board, "Your move") {
		t.Fatalf("exactly one of the titles should start with Your move: %q, %q", title, board)
	}
}

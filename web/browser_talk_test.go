package web_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
)

// TestBrowserTalk: ana writes on her board; bob's board, open in another
// browser, shows the message by itself (the live stream), without being
// loaded again, escaped, while what bob was writing stays in his form,
// and a screen reader is told. Then bob answers, and ana's open board
// shows it. The talk passes axe-core.
func TestBrowserTalk(t *testing.T) {
	// write types text into the message field, as a person would.
	write := func(b *tab, text string) {
		b.run(chromedp.Evaluate[chromedp.Void](`document.getElementById("talk-text").value = ""`),
			chromedp.SendKeys(chromedp.ID("talk-text"), text))
	}
	root := browser(t)
	axe := needAxe(t)
	s := newSite(t, browserDialect(), siteOptions{outbox: true})
	tabs := s.tabs(t, root, "ana", "bob")
	ana, bob := tabs[0], tabs[1]
	ana.registerInBrowser("ana")
	bob.registerInBrowser("bob")
	id := s.startGame(s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password"))
	ana.open(gamePath(id))
	bob.open(gamePath(id))
	bob.see("At the table", "No message yet.")
	bob.run(chromedp.Evaluate[chromedp.Void](`window.dmSameDocument = true`))
	write(bob, "half a thought")

	write(ana, `Good luck! <b>not bold</b>`)
	if st := ana.pressButton("Send the message"); st != 200 {
		t.Fatalf("sending: %d\n%s", st, ana.text())
	}
	ana.waitIn("#talk-messages", "Good luck! <b>not bold</b>")
	bob.waitIn("#talk-messages", "Good luck! <b>not bold</b>")
	if same, _ := chromedp.Run(bob.ctx, chromedp.Evaluate[bool](`window.dmSameDocument === true`)); !same {
		t.Fatal("bob's board was loaded again, not updated in place")
	}
	if bold, _ := chromedp.Run(bob.ctx, chromedp.Evaluate[int](`document.querySelectorAll("#talk b").length`)); bold != 0 {
		t.Fatal("the message's markup is shown as markup")
	}
	if typed, _ := chromedp.Run(bob.ctx, chromedp.Evaluate[string](`document.getElementById("talk-text").value`)); typed != "half a thought" {
		t.Fatalf("bob's unsent text is now %q", typed)
	}
	if said := bob.inside("[role=status]"); !strings.Contains(said, "A message from ana") {
		t.Errorf("the screen reader was told %q", said)
	}
	bob.axe(axe)

	ana.run(chromedp.Evaluate[chromedp.Void](`window.dmSameDocument = true`))
	write(bob, "Thanks, and to you")
	if st := bob.pressButton("Send the message"); st != 200 {
		t.Fatalf("bob sending: %d", st)
	}
	ana.waitIn("#talk-messages", "Thanks, and to you")
	if same, _ := chromedp.Run(ana.ctx, chromedp.Evaluate[bool](`window.dmSameDocument === true`)); !same {
		t.Fatal("ana's board was loaded again, not updated in place")
	}
	ana.look("talk")
}

// TestBrowserLiveAfterRefusal: a browser gives up on a live stream that a
// reconnection finds refused (as a proxy answers while the server
// restarts); the board opens a new one after a pause and follows the game
// again. Here ana may hold one stream: her board's ends (an event that
// shows her seat changed hands), her API client takes the stream before
// the browser reconnects, which is refused; it then lets go, and bob
// resigns. Her board, never loaded again, shows it.
func TestBrowserLiveAfterRefusal(t *testing.T) {
	root := browser(t)
	s := newSite(t, browserDialect(), siteOptions{outbox: true, streams: 1})
	ana := s.tabs(t, root, "ana")[0]
	ana.registerInBrowser("ana")
	s.client().register("bob", "bob password")
	anaAPI, bobAPI := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
	id := s.startGame(anaAPI, bobAPI)
	g, _ := s.gameState(id)
	seat := slices.IndexFunc(g.Seats, func(st models.Seat) bool { return st.Username == "ana" })
	topic := notifier.GameSeatTopic(id, seat)
	ana.open(gamePath(id))
	ana.run(chromedp.Evaluate[chromedp.Void](`window.dmSameDocument = true`))
	streams := func(n int) func() bool { return func() bool { return s.hub.Subscribers(topic) == n } }
	eventually(t, "the board's stream", streams(1))

	s.hub.Publish(topic, notifier.Event{ID: "1000000", Type: "event", Data: []byte("{}")}) // no seats: it ends the stream
	eventually(t, "the board's stream to end", streams(0))
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/v1/games/%d/stream", s.url, id), nil)
	req.Header.Set("Authorization", "Bearer "+anaAPI.Access)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusCode != http.StatusOK {
		t.Fatalf("ana's API stream: %d", r.StatusCode)
	}
	time.Sleep(4 * time.Second) // the browser reconnects after 2 s, and is refused
	cancel()
	r.Body.Close()

	s.apiCall(http.MethodPost, fmt.Sprintf("/v1/games/%d/resign", id), bobAPI.Access, nil, nil)
	ana.waitIn("#board", "bob resign")
	if same, _ := chromedp.Run(ana.ctx, chromedp.Evaluate[bool](`window.dmSameDocument === true`)); !same {
		t.Fatal("ana's board was loaded again, not updated in place")
	}
}

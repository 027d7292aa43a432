package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
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

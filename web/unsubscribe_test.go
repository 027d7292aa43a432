package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
)

// TestUnsubscribePage: the page of an email's unsubscribe link has the
// site's look (its header, style and sign-in), says which emails the link
// stops in the words of the settings, changes nothing when opened, and
// its button stops that kind only; after it the page says how to undo it.
func TestUnsubscribePage(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{outbox: true})
	c := s.client()
	c.register("ana", "ana password")
	ana := s.apiLogin("ana", "ana password")
	link := notifier.UnsubscribeURL(s.url, notifier.UnsubscribeToken(s.unsub, strconv.FormatInt(ana.ID, 10), string(notifier.KindYourTurn)))
	page := c.get(link).mustSee(t, 200, `<link rel="stylesheet" href="/assets/style.css`, `href="/rules"`, "Sign out",
		"The link in the email stops the emails “Your turn” to you", "Opening this page changed nothing",
		`name="List-Unsubscribe" value="One-Click"`)
	if r := page.Header.Get("Referrer-Policy"); r != "no-referrer" {
		t.Fatalf("Referrer-Policy %q", r)
	}
	enabled := func(kind string) bool {
		var prefs struct {
			Preferences []struct {
				Kind, Channel string
				Enabled       bool
			}
		}
		s.apiCall(http.MethodGet, "/v1/me/notification-preferences", ana.Access, nil, &prefs)
		for _, p := range prefs.Preferences {
			if p.Kind == kind && p.Channel == notifier.ChannelEmail {
				return p.Enabled
			}
		}
		t.Fatalf("no preference %s", kind)
		return false
	}
	if !enabled("your_turn") {
		t.Fatal("opening the page unsubscribed")
	}
	u, _ := url.Parse(link)
	req, _ := http.NewRequest(http.MethodPost, link, strings.NewReader("List-Unsubscribe=One-Click"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "text/html")
	req.Header.Set("Origin", s.url)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	done := c.do(req).mustSee(t, 200, `<link rel="stylesheet" href="/assets/style.css`, "Unsubscribed",
		"You will get no more of the emails “Your turn”", "stopped only this kind", `href="/settings#notifications"`)
	if strings.Contains(done.Body, "One-Click") || enabled("your_turn") || !enabled("game_over") {
		t.Fatalf("after the button (%s): your turn %v, game over %v", u.Path, enabled("your_turn"), enabled("game_over"))
	}
}

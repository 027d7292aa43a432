package web_test

import (
	"net/http"
	"testing"
)

// TestBrowserRatingsAndCalendar, in a real browser: a player's page after
// a rated game, the game's ratings under its final scores, and the
// settings' calendar turned on; each page passes axe-core.
func TestBrowserRatingsAndCalendar(t *testing.T) {
	root := browser(t)
	axe := needAxe(t)
	s := newSite(t, browserDialect(), siteOptions{})
	tabs := s.tabs(t, root, "ana", "bob")
	ana, bob := tabs[0], tabs[1]
	ana.registerInBrowser("ana")
	bob.registerInBrowser("bob")
	a, b := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
	id := s.startGame(a, b)
	s.apiCall(http.MethodPost, "/v1/games/"+itoa(id)+"/resign", a.Access, nil, nil)

	bob.open("/games/" + itoa(id))
	bob.see("Final scores", "Ratings", "bob: 1500 →")
	bob.axe(axe)
	bob.press("a[href='/users/bob']")
	bob.see("bob (you)", "1 rated game, 1 won.", "provisional")
	bob.axe(axe)
	bob.look("player")

	ana.open("/settings")
	ana.press("form[action='/settings/calendar'] button")
	ana.see("Your calendar feed has a new address", "Subscribe to this address in your calendar app", "Turn the calendar off")
	ana.axe(axe)
	ana.open("/")
	ana.see("Your rating is", "Only the games near your rating")
	ana.axe(axe)
}

package web_test

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/rating"
)

// TestPlayerPagesAndRatings: after a rated game, each player's page (open
// to anyone) shows their rating, rated games and wins, the game's page
// shows how it moved the ratings, and the lobby lists the open games near
// a rating.
func TestPlayerPagesAndRatings(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		anaC, bobC, cyC := s.client(), s.client(), s.client()
		anaC.register("ana", "ana password")
		bobC.register("bob", "bob password")
		cyC.register("cyd", "cyd password")
		visitor := s.client()
		visitor.get("/users/bob").mustSee(t, http.StatusOK, "<h1>bob</h1>", "1500", "± 350", "provisional", "No rated game finished yet.")

		ana, bob := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
		id := s.startGame(ana, bob)
		s.apiCall(http.MethodPost, "/v1/games/"+itoa(id)+"/resign", ana.Access, nil, nil)
		init := rating.Default.Initial
		want := rating.Default.Table([]rating.Rating{init, init}, []int{1, 0})
		r := func(x float64) string { return fmt.Sprint(int(math.Round(x))) }
		visitor.get("/users/bob").mustSee(t, http.StatusOK, "<strong>"+r(want[1].Rating)+"</strong>",
			"± "+r(want[1].Deviation), "1 rated game, 1 won.")
		visitor.get("/users/ana").mustSee(t, http.StatusOK, "<strong>"+r(want[0].Rating)+"</strong>", "1 rated game, 0 won.")
		for _, name := range []string{"nobody", "~deleted-1", "Bob"} {
			if got := visitor.get("/users/" + name); got.Status != http.StatusNotFound {
				t.Errorf("the page of %q: %d", name, got.Status)
			}
		}
		gain := int(math.Round(want[1].Rating)) - 1500
		anaC.get("/games/"+itoa(id)).mustSee(t, http.StatusOK, `<h2 id="ratings-title">Ratings</h2>`,
			`<a href="/users/bob">bob</a>: 1500 → <strong>`+r(want[1].Rating)+`</strong> (&#43;`+fmt.Sprint(gain)+`)`, // html/template writes + so
			`<a href="/users/ana">ana</a>: 1500 → <strong>`+r(want[0].Rating)+`</strong> (−`+fmt.Sprint(gain)+`)`)

		// Bob and Cy open public games; near Bob's rating, Cy sees Bob's.
		deck := map[string]string{"prebuilt": "running-a-startup"}
		cy := s.apiLogin("cyd", "cyd password")
		var bobs, cys struct {
			ID int64 `json:"id"`
		}
		s.apiCall(http.MethodPost, "/v1/games", bob.Access, map[string]any{"players": 2, "deck": deck}, &bobs)
		s.apiCall(http.MethodPost, "/v1/games", cy.Access, map[string]any{"players": 2, "deck": deck}, &cys)
		anaC.get("/").mustSee(t, http.StatusOK, "Your rating is", `href="/?near=`+r(want[0].Rating)+`#public"`,
			fmt.Sprintf(`href="/games/%d"`, bobs.ID), fmt.Sprintf(`href="/games/%d"`, cys.ID))
		above := r(want[1].Rating + 100) // Bob's game is 100 away, Cyd's more than 200
		near := anaC.get("/?near="+above).mustSee(t, http.StatusOK, "within 200 of "+above, fmt.Sprintf(`href="/games/%d"`, bobs.ID))
		if strings.Contains(near.Body, fmt.Sprintf(`href="/games/%d"`, cys.ID)) {
			t.Errorf("Cyd's game (1500) is listed near %s", above)
		}
		// A near that is no rating lists them all.
		anaC.get("/?near=high").mustSee(t, http.StatusOK, fmt.Sprintf(`href="/games/%d"`, cys.ID), "Only the games near your rating")
	})
}

// TestSettingsCalendar turns the calendar feed on from the settings, reads
// its address there, renews it and turns it off: each old address answers
// 404.
func TestSettingsCalendar(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, visitor := s.client(), s.client()
		ana.register("ana", "ana password")
		ana.get("/settings").mustSee(t, http.StatusOK, `id="calendar-title"`, "Turn the calendar on")
		address := func() string {
			t.Helper()
			page := ana.get("/settings").mustSee(t, http.StatusOK, "Subscribe to this address", "Turn the calendar off").Body
			_, rest, ok := strings.Cut(page, `id="calendar-url" type="text" value="`)
			if !ok {
				t.Fatalf("no address on the settings page:\n%s", clip(page))
			}
			u, _, _ := strings.Cut(rest, `"`)
			if !strings.HasPrefix(u, s.url+"/v1/calendar/dmc_") || !strings.HasSuffix(u, ".ics") {
				t.Fatalf("the feed's address %q", u)
			}
			if !strings.Contains(page, `href="webcal://`+strings.TrimPrefix(u, "http://")+`"`) {
				t.Errorf("no webcal link to %s", u)
			}
			return u
		}
		ana.post("/settings/calendar", nil).mustRedirect(t, "/settings?done=calendar")
		first := address()
		if r := visitor.get(first); r.Status != http.StatusOK || r.Header.Get("Content-Type") != "text/calendar; charset=utf-8" ||
			!strings.Contains(r.Body, "BEGIN:VCALENDAR\r\n") || !strings.Contains(r.Body, "NAME:Data Monsters: ana’s deadlines\r\n") {
			t.Fatalf("the feed: %d %s\n%s", r.Status, r.Header.Get("Content-Type"), clip(r.Body))
		}
		ana.post("/settings/calendar", nil).mustRedirect(t, "/settings?done=calendar")
		second := address()
		if second == first {
			t.Fatal("a new address was asked for, the old one came back")
		}
		if r := visitor.get(first); r.Status != http.StatusNotFound {
			t.Errorf("the old address after a new one: %d", r.Status)
		}
		ana.post("/settings/calendar/off", nil).mustRedirect(t, "/settings?done=calendar-off")
		ana.get("/settings?done=calendar-off").mustSee(t, http.StatusOK, "Your calendar feed is off", "Turn the calendar on")
		if r := visitor.get(second); r.Status != http.StatusNotFound {
			t.Errorf("the address after turning the feed off: %d", r.Status)
		}
		ana.post("/settings/calendar/off", nil).mustRedirect(t, "/settings?done=calendar-off")
		// Another site's form cannot renew it.
		if r := ana.postFrom("/settings/calendar", nil, "https://evil.example", "cross-site"); r.Status != http.StatusForbidden {
			t.Errorf("a cross-site post: %d", r.Status)
		}
	})
}

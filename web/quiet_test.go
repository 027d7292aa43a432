package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// quietHoursOf reads a player's quiet hours through the API.
func (s *site) quietHoursOf(u apiUser) (on bool, start, end string) {
	var q struct {
		Enabled    bool
		Start, End *string
	}
	s.apiCall(http.MethodGet, "/v1/me/quiet-hours", u.Access, nil, &q)
	if q.Start != nil {
		start, end = *q.Start, *q.End
	}
	return q.Enabled, start, end
}

// TestQuietHoursSettings: the settings page sets quiet hours, shows them
// in its form and its words, refuses a time that is none or an end that
// is the start (saying which field, and changing nothing), and turns
// them off; the API sees what the page set.
func TestQuietHoursSettings(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		c := s.client()
		c.register("ana", "ana password")
		ana := s.apiLogin("ana", "ana password")
		c.get("/settings").mustSee(t, 200, `<h2 id="quiet-title">Quiet hours</h2>`,
			"You have no quiet hours. Times are on the clock of your time zone, Europe/Paris.",
			`<label for="f-quiet_start">Quiet from</label>`, `<input id="f-quiet_start" name="quiet_start" type="time" value=""`,
			`<label for="f-quiet_end">Quiet until</label>`)
		f := mustForm(t, c.get("/settings").Body, "Save the quiet hours")
		c.send(f, "quiet_start", "22:00", "quiet_end", "07:00").mustRedirect(t, "/settings?done=quiet")
		if on, start, end := s.quietHoursOf(ana); !on || start != "22:00" || end != "07:00" {
			t.Fatalf("after the form: %v %s-%s", on, start, end)
		}
		page := c.get("/settings?done=quiet").mustSee(t, 200, "Your quiet hours are saved.",
			"Your quiet hours: from <strong>22:00</strong> to <strong>07:00</strong> every day, on the clock of Europe/Paris.",
			`name="quiet_start" type="time" value="22:00"`, `name="quiet_end" type="time" value="07:00"`, "Turn quiet hours off")
		f = mustForm(t, page.Body, "Save the quiet hours")
		for _, bad := range []struct{ start, end, field, words string }{
			{"25:00", "07:00", "quiet_start", "Enter when your quiet hours start"},
			{"", "07:00", "quiet_start", "Enter when your quiet hours start"},
			{"22:00", "soon", "quiet_end", "Enter when your quiet hours end"},
			{"06:00", "06:00", "quiet_end", "another time than the start"},
		} {
			c.send(f, "quiet_start", bad.start, "quiet_end", bad.end).mustSee(t, 422, bad.words,
				`id="f-`+bad.field+`" name="`+bad.field+`" type="time" value="`+map[bool]string{true: bad.start, false: bad.end}[bad.field == "quiet_start"]+`"`,
				`aria-describedby="f-`+bad.field+`-hint f-`+bad.field+`-error" aria-invalid="true"`)
			if on, start, end := s.quietHoursOf(ana); !on || start != "22:00" || end != "07:00" {
				t.Fatalf("a refused %+v changed them: %v %s-%s", bad, on, start, end)
			}
		}
		off := mustForm(t, page.Body, "Turn quiet hours off")
		c.send(off).mustRedirect(t, "/settings?done=quiet-off")
		if on, _, _ := s.quietHoursOf(ana); on {
			t.Fatal("still on after turning them off")
		}
		if body := c.get("/settings").mustSee(t, 200, "You have no quiet hours.").Body; strings.Contains(body, "Turn quiet hours off") {
			t.Fatal("the page offers to turn off quiet hours that are off")
		}
	})
}

// TestQuietHoursBoard: in a game that starts in both players' quiet
// hours, with a day a turn, the first turn's deadline is moved to their
// end, and both boards say whose quiet hours moved it; the new game form
// keeps deadlines out of quiet hours unless its box is unticked, which
// the open game's settings then say.
func TestQuietHoursBoard(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, bob := s.client(), s.client()
		ana.register("ana", "ana password")
		bob.register("bob", "bob password")
		au, bu := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
		paris, err := time.LoadLocation("Europe/Paris")
		if err != nil {
			t.Fatal(err)
		}
		now := s.clock.Now().In(paris)
		for _, u := range []apiUser{au, bu} {
			s.apiCall(http.MethodPut, "/v1/me/quiet-hours", u.Access,
				map[string]string{"start": now.Add(-time.Hour).Format("15:04"), "end": now.Add(2 * time.Hour).Format("15:04")}, nil)
		}
		id := s.startGame(au, bu)
		var g struct {
			Seats []struct {
				Username string
				Awaited  bool
			}
			QuietSeats []int `json:"deadline_quiet_seats"`
		}
		s.apiCall(http.MethodGet, "/v1/games/"+itoa(id), au.Access, nil, &g)
		if len(g.QuietSeats) != 1 {
			t.Fatalf("the first deadline was not moved: %+v", g)
		}
		first := g.Seats[g.QuietSeats[0]].Username
		clients := map[string]*client{"ana": ana, "bob": bob}
		clients[first].get(gamePath(id)).mustSee(t, 200, "Deadline: your turn ends", "(moved out of your quiet hours)")
		other := map[string]string{"ana": "bob", "bob": "ana"}[first]
		clients[other].get(gamePath(id)).mustSee(t, 200, "Deadline: the turn ends", "(moved out of "+first+"&#39;s quiet hours)")

		f := mustForm(t, ana.get("/new-game").mustSee(t, 200,
			`<input type="checkbox" id="f-respect_quiet_hours" name="respect_quiet_hours" value="on" checked>`).Body, "Open the game")
		f.Fields.Del("respect_quiet_hours")
		loc := ana.send(f, "players", "2", "mode", "fast", "deck", "prebuilt:running-a-startup").mustRedirect(t, "/games/")
		ana.get(loc).mustSee(t, 200, "deadlines may fall in the players’ quiet hours")
		var created struct {
			Respect bool `json:"respect_quiet_hours"`
		}
		s.apiCall(http.MethodGet, "/v1/games/"+itoa(gameIDOf(t, loc)), au.Access, nil, &created)
		if created.Respect {
			t.Fatal("a game made with the box unticked respects quiet hours")
		}
	})
}

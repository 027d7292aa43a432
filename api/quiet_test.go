package api_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

type quietHours struct {
	Enabled  bool    `json:"enabled"`
	Start    *string `json:"start"`
	End      *string `json:"end"`
	TimeZone string  `json:"time_zone"`
}

// TestQuietHoursAPI: a player's quiet hours are off until set, set on
// their clock, refused (naming the field) when a time is none or the
// end is the start, with nothing changed, and turned off.
func TestQuietHoursAPI(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		get := func() quietHours {
			var q quietHours
			e.must(200, req{Method: "GET", Path: "/v1/me/quiet-hours", Token: ana.Access}).decode(t, &q)
			return q
		}
		if q := get(); q.Enabled || q.Start != nil || q.End != nil || q.TimeZone != "UTC" {
			t.Fatalf("before any: %+v", q)
		}
		var q quietHours
		e.must(200, req{Method: "PUT", Path: "/v1/me/quiet-hours", Token: ana.Access,
			Body: map[string]string{"start": "22:00", "end": "7:00"}}).decode(t, &q)
		set := quietHours{Enabled: true, Start: ptr("22:00"), End: ptr("07:00"), TimeZone: "UTC"}
		if !sameQuiet(q, set) || !sameQuiet(get(), set) {
			t.Fatalf("set: %+v, read back %+v", q, get())
		}
		for _, c := range []struct {
			body  map[string]string
			field string
		}{
			{map[string]string{"start": "24:00", "end": "07:00"}, "start"},
			{map[string]string{"start": "22:00", "end": "7am"}, "end"},
			{map[string]string{"start": "", "end": "07:00"}, "start"},
			{map[string]string{"start": "22:60", "end": "07:00"}, "start"},
			{map[string]string{"start": "-1:00", "end": "07:00"}, "start"},
			{map[string]string{"start": "06:30", "end": "06:30"}, "end"},
		} {
			r := e.do(req{Method: "PUT", Path: "/v1/me/quiet-hours", Token: ana.Access, Body: c.body})
			if r.Status != 422 || r.code(t) != "invalid" || !strings.Contains(string(r.Body), `"detail":"`+c.field+":") {
				t.Errorf("%v: %d %s, want 422 naming %s", c.body, r.Status, r.Body, c.field)
			}
			if got := get(); !sameQuiet(got, set) {
				t.Fatalf("a refused %v changed them: %+v", c.body, got)
			}
		}
		e.must(204, req{Method: "DELETE", Path: "/v1/me/quiet-hours", Token: ana.Access})
		if q := get(); q.Enabled || q.Start != nil {
			t.Fatalf("after DELETE: %+v", q)
		}
		if r := e.do(req{Method: "GET", Path: "/v1/me/quiet-hours"}); r.Status != 401 {
			t.Errorf("without a token: %d", r.Status)
		}
	})
}

func ptr(s string) *string { return &s }

func sameQuiet(a, b quietHours) bool {
	str := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	return a.Enabled == b.Enabled && str(a.Start) == str(b.Start) && str(a.End) == str(b.End) && a.TimeZone == b.TimeZone
}

// TestQuietHoursGame: in a game started in its players' quiet hours, with
// a day a turn, the first turn's deadline moves to their end and the game
// says whose quiet hours moved it; with respect_quiet_hours false it
// stays where the clock set it.
func TestQuietHoursGame(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		now := e.clock.Now()
		start := now.Add(-time.Hour).Format("15:04")
		end := now.Add(2 * time.Hour).Truncate(time.Minute)
		for _, p := range []*player{ana, bob} {
			e.must(200, req{Method: "PUT", Path: "/v1/me/quiet-hours", Token: p.Access,
				Body: map[string]string{"start": start, "end": end.Format("15:04")}})
		}
		var quiet struct {
			RespectQuietHours bool  `json:"respect_quiet_hours"`
			QuietSeats        []int `json:"deadline_quiet_seats"`
		}
		for _, respect := range []bool{true, false} {
			body := map[string]any{"mode": "fast", "turn_deadline_seconds": 24 * 3600}
			if !respect {
				body["respect_quiet_hours"] = false
			}
			g := e.startGame(body, ana, bob)
			e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", g.ID), Token: ana.Access}).decode(t, &quiet)
			deadline, err := time.Parse(time.RFC3339Nano, *g.DeadlineAt)
			if err != nil {
				t.Fatal(err)
			}
			first := awaited(g, []*player{ana, bob})[0]
			seat := 0
			if first == bob {
				seat = 1
			}
			want, seats := end.Add(24*time.Hour), []int{seat}
			if !respect {
				want, seats = now.Add(24*time.Hour), []int{}
			}
			if !deadline.Equal(want.Truncate(time.Second)) || quiet.RespectQuietHours != respect || !slices.Equal(quiet.QuietSeats, seats) {
				t.Errorf("respect %v: deadline %v, %+v; want %v moved by %v", respect, deadline, quiet, want, seats)
			}
		}
	})
}

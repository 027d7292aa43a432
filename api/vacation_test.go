package api_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// TestVacationEndsEarly: a vacation can be ended early (DELETE, or PATCH
// with an earlier end) and a coming one cancelled or moved; the unused
// days go back to the allowance, which reads in whole days and exact
// seconds, also for a vacation that started at a fraction of a second.
func TestVacationEndsEarly(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.AccessTTL = 400 * day // the clock moves by months
	e := newEnv(t, models.SQLite, cfg)
	bob, cyd := e.register("bob"), e.register("cyd")
	now := e.clock.Now()
	jan10 := time.Date(now.Year()+1, 1, 10, 0, 0, 0, 0, time.UTC)
	e.clock.Add(jan10.Sub(now) + 700*time.Millisecond) // 10 January, 00:00:00.7
	at := func(d time.Duration) string { return jan10.Add(d).Format(time.RFC3339) }
	type list struct {
		Vacations []struct {
			ID       int64
			StartsAt string `json:"starts_at"`
			EndsAt   string `json:"ends_at"`
		} `json:"vacations"`
		DaysLeft    int64 `json:"days_left"`
		SecondsLeft int64 `json:"seconds_left"`
	}
	left := func(wantDays int64, wantSeconds time.Duration, wantListed int) list {
		t.Helper()
		var l list
		e.must(200, req{Method: "GET", Path: "/v1/me/vacations", Token: bob.Access}).decode(t, &l)
		if l.DaysLeft != wantDays || l.SecondsLeft != int64(wantSeconds/time.Second) || len(l.Vacations) != wantListed {
			t.Fatalf("want %d days (%v) left and %d vacations listed, got %+v", wantDays, wantSeconds, wantListed, l)
		}
		return l
	}
	path := func(id int64) string { return fmt.Sprintf("/v1/me/vacations/%d", id) }

	// Away from now to 13 January: three whole days, not 2.99999 of them.
	var v struct{ ID int64 }
	e.must(201, req{Method: "POST", Path: "/v1/me/vacations", Token: bob.Access, Body: map[string]any{"ends_at": at(3 * day)}}).decode(t, &v)
	left(18, 18*day, 1)

	// A day later bob is back and ends it: two days go back.
	e.clock.Add(day)
	e.must(204, req{Method: "DELETE", Path: path(v.ID), Token: bob.Access})
	left(20, 20*day, 0)
	if r := e.do(req{Method: "DELETE", Path: path(v.ID), Token: bob.Access}); r.Status != 409 || r.code(t) != "vacation_over" {
		t.Fatalf("ending an ended vacation: %d %s", r.Status, r.Body)
	}

	// A coming vacation, 1 to 11 February: moved earlier, later, past the
	// allowance (refused), then cancelled.
	feb1 := time.Date(jan10.Year(), 2, 1, 0, 0, 0, 0, time.UTC)
	e.must(201, req{Method: "POST", Path: "/v1/me/vacations", Token: bob.Access,
		Body: map[string]any{"starts_at": feb1.Format(time.RFC3339), "ends_at": feb1.Add(10 * day).Format(time.RFC3339)}}).decode(t, &v)
	left(10, 10*day, 1)
	var moved struct {
		EndsAt string `json:"ends_at"`
	}
	e.must(200, req{Method: "PATCH", Path: path(v.ID), Token: bob.Access, Body: map[string]any{"ends_at": feb1.Add(5 * day).Format(time.RFC3339)}}).decode(t, &moved)
	if moved.EndsAt != feb1.Add(5*day).Format(time.RFC3339) {
		t.Fatalf("moved to %s", moved.EndsAt)
	}
	left(15, 15*day, 1)
	e.must(200, req{Method: "PATCH", Path: path(v.ID), Token: bob.Access, Body: map[string]any{"ends_at": feb1.Add(20 * day).Format(time.RFC3339)}})
	left(0, 0, 1)
	if r := e.do(req{Method: "PATCH", Path: path(v.ID), Token: bob.Access, Body: map[string]any{"ends_at": feb1.Add(21 * day).Format(time.RFC3339)}}); r.Status != 422 {
		t.Fatalf("past the allowance: %d %s", r.Status, r.Body)
	}
	if r := e.do(req{Method: "PATCH", Path: path(v.ID), Token: bob.Access, Body: map[string]any{"ends_at": feb1.Format(time.RFC3339)}}); r.Status != 422 {
		t.Fatalf("an end at the start: %d %s", r.Status, r.Body)
	}
	if r := e.do(req{Method: "DELETE", Path: path(v.ID), Token: cyd.Access}); r.Status != 404 {
		t.Fatalf("another user's vacation: %d %s", r.Status, r.Body)
	}
	e.must(204, req{Method: "DELETE", Path: path(v.ID), Token: bob.Access})
	left(20, 20*day, 0)

	// A current vacation given an end in the past ends now.
	e.must(201, req{Method: "POST", Path: "/v1/me/vacations", Token: bob.Access, Body: map[string]any{"ends_at": at(10 * day)}}).decode(t, &v)
	e.clock.Add(36 * time.Hour)
	e.must(200, req{Method: "PATCH", Path: path(v.ID), Token: bob.Access, Body: map[string]any{"ends_at": at(day + time.Hour)}}).decode(t, &moved)
	if want := jan10.Add(day + 36*time.Hour).Format(time.RFC3339); moved.EndsAt != want {
		t.Fatalf("ended at %s, want now (%s)", moved.EndsAt, want)
	}
	left(18, 18*day+12*time.Hour, 0)
}

const day = 24 * time.Hour

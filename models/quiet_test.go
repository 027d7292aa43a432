package models_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestQuietHoursWithin: the end of quiet hours is an instant on the clock
// of the player's zone, across midnight and across a change of the
// zone's offset.
func TestQuietHoursWithin(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	night := models.QuietHours{Start: 22 * 60, End: 7 * 60, Zone: "Europe/Berlin"}
	lunch := models.QuietHours{Start: 12*60 + 30, End: 14 * 60, Zone: "Europe/Berlin"}
	at := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, berlin) }
	utc := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, time.UTC) }
	for _, c := range []struct {
		name string
		q    models.QuietHours
		t    time.Time
		in   bool
		end  time.Time
	}{
		{"before midnight", night, at(2026, 1, 9, 23, 0), true, utc(2026, 1, 10, 6, 0)},
		{"after midnight", night, at(2026, 1, 10, 3, 0), true, utc(2026, 1, 10, 6, 0)},
		{"at the start", night, at(2026, 1, 9, 22, 0), true, utc(2026, 1, 10, 6, 0)},
		{"at the end", night, at(2026, 1, 10, 7, 0), false, time.Time{}},
		{"a minute before the end", night, at(2026, 1, 10, 6, 59), true, utc(2026, 1, 10, 6, 0)},
		{"daytime", night, at(2026, 1, 10, 12, 0), false, time.Time{}},
		{"within a day", lunch, at(2026, 6, 1, 13, 0), true, utc(2026, 6, 1, 12, 0)},
		{"before a day's", lunch, at(2026, 6, 1, 12, 29), false, time.Time{}},
		// The last Sunday of March 2026 (the 29th), Berlin's clocks go from
		// 02:00 CET to 03:00 CEST: the night is an hour shorter, and 07:00
		// is 05:00 UTC, not 06:00.
		{"the night the clocks go forward", night, utc(2026, 3, 28, 22, 0), true, utc(2026, 3, 29, 5, 0)},
		{"in the skipped hour's wake", night, utc(2026, 3, 29, 1, 30), true, utc(2026, 3, 29, 5, 0)},
		// The last Sunday of October 2026 (the 25th): 03:00 CEST is 02:00
		// CET again; the night is an hour longer.
		{"the night the clocks go back", night, utc(2026, 10, 24, 21, 0), true, utc(2026, 10, 25, 6, 0)},
		{"UTC by default", models.QuietHours{Start: 60, End: 120}, utc(2026, 3, 29, 1, 15), true, utc(2026, 3, 29, 2, 0)},
	} {
		end, in := c.q.Within(c.t)
		if in != c.in || !end.Equal(c.end) {
			t.Errorf("%s: Within(%v) = %v, %v; want %v, %v", c.name, c.t, end.UTC(), in, c.end, c.in)
		}
	}
	// An end that the zone's clocks skip: the other side of the jump.
	skipped := models.QuietHours{Start: 60, End: 2*60 + 30, Zone: "Europe/Berlin"}
	if end, in := skipped.Within(utc(2026, 3, 29, 0, 30)); !in || !end.After(utc(2026, 3, 29, 0, 30)) || end.After(utc(2026, 3, 29, 1, 30)) {
		t.Errorf("an end in the skipped hour: %v %v", end, in)
	}
}

// TestOutOfQuiet: a time in the quiet hours of two players moves past
// both; one in nobody's stays.
func TestOutOfQuiet(t *testing.T) {
	utc := func(d, h, min int) time.Time { return time.Date(2026, 5, d, h, min, 0, 0, time.UTC) }
	hours := map[int]models.QuietHours{
		0: {Start: 22 * 60, End: 6 * 60},                    // UTC
		1: {Start: 5 * 60, End: 9 * 60, Zone: "Asia/Tokyo"}, // 20:00 to 00:00 UTC
	}
	if at, seats := models.OutOfQuiet(utc(1, 12, 0), hours); !at.Equal(utc(1, 12, 0)) || len(seats) != 0 {
		t.Errorf("noon: %v %v", at, seats)
	}
	if at, seats := models.OutOfQuiet(utc(1, 21, 0), hours); !at.Equal(utc(2, 6, 0)) || !slices.Equal(seats, []int{1, 0}) {
		t.Errorf("21:00: moved to %v by %v, want 06:00 the next day by seats 1 then 0", at, seats)
	}
	// Quiet hours that cover the whole day between them: it stops.
	all := map[int]models.QuietHours{0: {Start: 0, End: 13 * 60}, 1: {Start: 12 * 60, End: 60}}
	if at, seats := models.OutOfQuiet(utc(1, 3, 0), all); at.IsZero() || len(seats) != 2 {
		t.Errorf("whole day: %v %v", at, seats)
	}
}

// TestQuietHoursStored: quiet hours round-trip through the users row,
// with the user's time zone, and a game's seats moved by them through
// the game row.
func TestQuietHoursStored(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		ana := &models.User{Username: "ana"}
		ben := &models.User{Username: "ben"}
		for _, u := range []*models.User{ana, ben} {
			if err := st.CreateUser(ctx, u, "x"); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.SetTimeZone(ctx, ana.ID, "Europe/Berlin"); err != nil {
			t.Fatal(err)
		}
		if err := st.SetQuietHours(ctx, ana.ID, &models.QuietHours{Start: 1320, End: 420}); err != nil {
			t.Fatal(err)
		}
		hs, err := st.QuietHoursOf(ctx, ana.ID, ben.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) != 1 || hs[ana.ID] != (models.QuietHours{Start: 1320, End: 420, Zone: "Europe/Berlin"}) {
			t.Fatalf("quiet hours: %+v", hs)
		}
		if err := st.SetQuietHours(ctx, ana.ID, nil); err != nil {
			t.Fatal(err)
		}
		if hs, err = st.QuietHoursOf(ctx, ana.ID); err != nil || len(hs) != 0 {
			t.Fatalf("after turning them off: %+v %v", hs, err)
		}
		if err := st.SetQuietHours(ctx, 9999, nil); err == nil {
			t.Fatal("quiet hours of no user")
		}
	})
}

package notifier

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river/rivertype"
)

// snoozeOf runs waitQuiet for user uid and returns how long the job
// snoozes (0: it goes now), turning a panic into a test failure.
func snoozeOf(t *testing.T, o *Outbox, uid int64, what string) (d time.Duration, failed bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: waitQuiet panicked: %v", what, r)
			failed = true
		}
	}()
	err := o.waitQuiet(context.Background(), uid, time.Time{}, what)
	var snooze *rivertype.JobSnoozeError
	switch {
	case err == nil:
		return 0, false
	case errors.As(err, &snooze):
		return snooze.Duration, false
	}
	t.Errorf("%s: waitQuiet: %v", what, err)
	return 0, true
}

// TestAttackQuietHoursAcrossClockChanges: a notification that waits for
// the end of its recipient's quiet hours is delayed, never lost nor stuck:
// for quiet hours whose start or end the zone's clocks skip or repeat
// (a change of summer time, Lord Howe's half hour, the day Samoa skipped
// in 2011), short and nearly all-day ones, a job that runs at any time of
// the days around the change snoozes for a positive time, never more than
// a day and the hour a clock change adds, and once it has snoozed to the
// end it goes (at most one more wait, for quiet hours that begin again at
// once: 02:30 to 02:00). The quiet hours and the zone are the user's row,
// read by the outbox as a job runs.
func TestAttackQuietHoursAcrossClockChanges(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		var mu sync.Mutex
		now := e.clock.Now()
		e.cfg.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		set := func(t time.Time) { mu.Lock(); now = t; mu.Unlock() }
		o := e.outbox(t, false)
		ana := e.users[0]
		changes := []struct {
			zone string
			day  time.Time // a day of the zone's clock change (UTC midnight before it)
		}{
			{"America/New_York", time.Date(2026, 3, 8, 0, 0, 0, 0, time.UTC)},
			{"America/New_York", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
			{"Europe/Berlin", time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC)},
			{"Europe/Berlin", time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC)},
			{"Australia/Lord_Howe", time.Date(2026, 4, 4, 12, 0, 0, 0, time.UTC)},
			{"Pacific/Apia", time.Date(2011, 12, 29, 0, 0, 0, 0, time.UTC)},
		}
		hours := [][2]int{{60, 180}, {150, 120}, {22 * 60, 150}, {0, 23*60 + 59}, {23*60 + 59, 0}, {120, 150}}
		for _, c := range changes {
			if err := e.st.SetTimeZone(ctx, ana.ID, c.zone); err != nil {
				t.Fatal(err)
			}
			for _, h := range hours {
				if err := e.st.SetQuietHours(ctx, ana.ID, &models.QuietHours{Start: h[0], End: h[1]}); err != nil {
					t.Fatal(err)
				}
				for at := c.day.Add(-12 * time.Hour); at.Before(c.day.Add(60 * time.Hour)); at = at.Add(25 * time.Minute) {
					what := fmt.Sprintf("%s, quiet %02d:%02d-%02d:%02d, a job at %s", c.zone, h[0]/60, h[0]%60, h[1]/60, h[1]%60,
						at.In(models.Zone(c.zone)).Format(time.RFC3339))
					set(at)
					var waited time.Duration
					waits := 0
					for {
						d, failed := snoozeOf(t, o, ana.ID, what)
						if failed || d == 0 {
							break
						}
						if d < 0 || d > 25*time.Hour {
							t.Errorf("%s: snoozes %v", what, d)
							break
						}
						waits++
						waited += d
						set(at.Add(waited))
						if waits > 2 {
							t.Errorf("%s: still waiting after %d snoozes (%v)", what, waits, waited)
							break
						}
					}
					if waited > 49*time.Hour {
						t.Errorf("%s: delayed %v", what, waited)
					}
				}
			}
		}
	})
}

// TestAttackQuietHoursSnoozeAtTheEnd: the clock moves on between the
// outbox's two readings of it in one run of a job, as a real clock does.
// A job that runs a moment before its recipient's quiet hours end, and
// reads the clock again only once they have ended, must not ask River for
// a negative snooze (river.JobSnooze panics on one): it goes now, or
// snoozes for no time.
func TestAttackQuietHoursSnoozeAtTheEnd(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		ana := e.users[0]
		end := time.Date(2026, 6, 1, 7, 0, 0, 0, time.UTC)
		var mu sync.Mutex
		now, step := end.Add(-time.Hour), time.Duration(0)
		e.cfg.Now = func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			t := now
			now = now.Add(step)
			return t
		}
		o := e.outbox(t, false)
		if err := e.st.SetQuietHours(ctx, ana.ID, &models.QuietHours{Start: 22 * 60, End: 7 * 60}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		now, step = end.Add(-time.Millisecond), 2*time.Millisecond // each reading 2 ms after the last
		mu.Unlock()
		if d, failed := snoozeOf(t, o, ana.ID, "a job a moment before the end"); !failed && d < 0 {
			t.Errorf("snoozes %v", d)
		}
	})
}

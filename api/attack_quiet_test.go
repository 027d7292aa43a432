package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
)

// vacationItem is a vacation as GET /v1/me/vacations lists it.
type vacationItem struct {
	ID       int64  `json:"id"`
	StartsAt string `json:"starts_at"`
	EndsAt   string `json:"ends_at"`
}

// vacationsOf lists p's current and coming vacations.
func (e *env) vacationsOf(p *player) []vacationItem {
	e.t.Helper()
	var l struct {
		Vacations []vacationItem `json:"vacations"`
	}
	e.must(200, req{Method: "GET", Path: "/v1/me/vacations", Token: p.Access}).decode(e.t, &l)
	return l.Vacations
}

// nextFebruary is 1 February of next year, 00:00 UTC: far enough from the
// test clock that a vacation there is in the future, and from the turn
// of the year.
func nextFebruary(e *env) time.Time {
	return time.Date(e.clock.Now().Year()+1, 2, 1, 0, 0, 0, 0, time.UTC)
}

// TestAttackVacationConcurrentBookings: a careless client (a double
// click, a retry without an Idempotency-Key) sends the same 15-day
// vacation eight times at once. One is booked; the others overlap it and
// are refused. Between them the bookings never overlap nor pass the
// yearly allowance, whatever the database's isolation. On Postgres the
// test holds every insert into vacations back (a SHARE lock of the table,
// which reads pass) until all eight requests wait, so that each has read
// the vacations before any is stored: the race a double click may lose.
func TestAttackVacationConcurrentBookings(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		from := nextFebruary(e)
		body, _ := json.Marshal(map[string]string{"starts_at": from.Format(time.RFC3339), "ends_at": from.Add(15 * day).Format(time.RFC3339)})
		const n = 8
		release := func() {}
		if e.store.Dialect() == models.Postgres {
			db, err := e.store.SQLDB()
			if err != nil {
				t.Fatal(err)
			}
			hold, err := db.BeginTx(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := hold.Exec(`LOCK TABLE vacations IN SHARE MODE`); err != nil {
				t.Fatal(err)
			}
			release = func() {
				// Until the n requests wait on a lock (theirs or the table's), or a while.
				for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
					var waiting int
					if err := db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`).Scan(&waiting); err != nil {
						t.Error(err)
						break
					}
					if waiting >= n {
						break
					}
				}
				hold.Rollback()
			}
		}
		var wg sync.WaitGroup
		status := make([]int, n)
		ready := make(chan struct{})
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
		for i := range n {
			wg.Go(func() {
				r, _ := http.NewRequest("POST", e.srv.URL+"/v1/me/vacations", bytes.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Authorization", "Bearer "+ana.Access)
				<-ready // all at once
				res, err := client.Do(r)
				if err != nil {
					return
				}
				res.Body.Close()
				status[i] = res.StatusCode
			})
		}
		close(ready)
		release()
		wg.Wait()
		booked := 0
		for _, s := range status {
			switch s {
			case 201:
				booked++
			case 409, 422:
			default:
				t.Errorf("a booking answered %d", s)
			}
		}
		vs := e.vacationsOf(ana)
		var total time.Duration
		for _, v := range vs {
			a, _ := time.Parse(time.RFC3339, v.StartsAt)
			b, _ := time.Parse(time.RFC3339, v.EndsAt)
			total += b.Sub(a)
		}
		if booked != 1 || len(vs) != 1 || total > accounts.VacationDaysPerYear*day {
			t.Errorf("%d of %d identical bookings succeeded (%v); ana has %d vacations, %v in all", booked, n, status, len(vs), total)
		}
	})
}

// TestAttackVacationOddRanges: vacations that start in the past, end
// before they start or when they start, leave their year, pass the
// allowance, overlap one booked, or lie centuries ahead, and moves of a
// vacation that is not the caller's: each refused (4xx) or booked as
// asked, never a server error; touching vacations do not overlap.
func TestAttackVacationOddRanges(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		now := e.clock.Now().UTC()
		feb := nextFebruary(e)
		at := func(t time.Time) string { return t.Format(time.RFC3339) }
		post := func(body map[string]any) *resp {
			return e.do(req{Method: "POST", Path: "/v1/me/vacations", Token: ana.Access, Body: body})
		}
		for _, c := range []struct {
			name string
			body map[string]any
			want int
		}{
			{"started an hour ago", map[string]any{"starts_at": at(now.Add(-time.Hour)), "ends_at": at(now.Add(day))}, 422},
			{"ended yesterday", map[string]any{"ends_at": at(now.Add(-day))}, 422},
			{"ends as it starts", map[string]any{"starts_at": at(feb), "ends_at": at(feb)}, 422},
			{"ends before it starts", map[string]any{"starts_at": at(feb), "ends_at": at(feb.Add(-time.Second))}, 422},
			{"over new year", map[string]any{"starts_at": at(feb.AddDate(0, 10, 27)), "ends_at": at(feb.AddDate(1, -1, 3))}, 422},
			{"past the allowance", map[string]any{"starts_at": at(feb), "ends_at": at(feb.Add(22 * day))}, 422},
			{"a whole century", map[string]any{"starts_at": at(feb), "ends_at": at(feb.AddDate(100, 0, 0))}, 422},
			{"in 9999", map[string]any{"starts_at": "9999-03-01T00:00:00Z", "ends_at": "9999-03-02T00:00:00Z"}, 201},
			{"two weeks", map[string]any{"starts_at": at(feb), "ends_at": at(feb.Add(14 * day))}, 201},
			{"overlapping them", map[string]any{"starts_at": at(feb.Add(13 * day)), "ends_at": at(feb.Add(15 * day))}, 409},
			{"inside them", map[string]any{"starts_at": at(feb.Add(day)), "ends_at": at(feb.Add(2 * day))}, 409},
			{"right after them", map[string]any{"starts_at": at(feb.Add(14 * day)), "ends_at": at(feb.Add(15 * day))}, 201},
			{"in another zone, overlapping", map[string]any{"starts_at": feb.Add(14*day + 12*time.Hour).In(time.FixedZone("", 14*3600)).Format(time.RFC3339),
				"ends_at": at(feb.Add(16 * day))}, 409},
		} {
			if r := post(c.body); r.Status != c.want {
				t.Errorf("%s: %d %s, want %d", c.name, r.Status, trim(r.Body), c.want)
			}
		}
		for _, body := range []string{`{"ends_at":"10000-01-01T00:00:00Z"}`, `{"ends_at":"tomorrow"}`, `{"ends_at":null}`, `{}`, `{"ends_at":12}`} {
			r := e.do(req{Method: "POST", Path: "/v1/me/vacations", Token: ana.Access, Body: body, NoContract: true})
			if r.Status < 400 || r.Status >= 500 {
				t.Errorf("%s: %d %s", body, r.Status, trim(r.Body))
			}
		}
		vs := e.vacationsOf(ana)
		if len(vs) == 0 {
			t.Fatal("ana has no vacation")
		}
		id := vs[0].ID
		for _, r := range []req{
			{Method: "PATCH", Path: fmt.Sprintf("/v1/me/vacations/%d", id), Token: bob.Access, Body: map[string]any{"ends_at": at(feb.Add(20 * day))}},
			{Method: "DELETE", Path: fmt.Sprintf("/v1/me/vacations/%d", id), Token: bob.Access},
		} {
			if res := e.do(r); res.Status != 404 {
				t.Errorf("bob's %s of ana's vacation: %d %s", r.Method, res.Status, res.Body)
			}
		}
		if got := e.vacationsOf(ana); len(got) != len(vs) || got[0] != vs[0] {
			t.Errorf("bob's attempts changed ana's vacations: %+v, were %+v", got, vs)
		}
	})
}

// TestAttackQuietHoursOddTimes: times that are no 24-hour clock reading
// are refused naming their field, and change nothing; those a browser or
// a person may send for a valid time are read as that time; every time
// of day from 00:00 to 23:59 may start or end them, the shortest quiet
// hours (one minute) and the longest (23 hours 59) included.
func TestAttackQuietHoursOddTimes(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		put := func(body any) *resp {
			return e.do(req{Method: "PUT", Path: "/v1/me/quiet-hours", Token: ana.Access, Body: body, NoContract: true})
		}
		e.must(200, req{Method: "PUT", Path: "/v1/me/quiet-hours", Token: ana.Access, Body: map[string]string{"start": "22:00", "end": "07:00"}})
		for _, start := range []string{"07:00:30", "０７:００", "7:5", "+7:00", "07:+5", "0x7:00", "007:00", "07h00", "7", "07:00 am",
			"-0:00", "23:59:59", "24:00", "99:99", strings.Repeat("1", 10000) + ":00", "07\x00:00", "07:\n00", "٠٧:٠٠"} {
			r := put(map[string]string{"start": start, "end": "08:00"})
			if r.Status != 422 || !strings.Contains(string(r.Body), `"detail":"start:`) {
				t.Errorf("start %q: %d %s", start, r.Status, trim(r.Body))
			}
		}
		for _, body := range []string{`{"start":null,"end":"07:00"}`, `{"end":"07:00"}`, `{"start":7,"end":"07:00"}`, `{"start":"22:00"}`, `[]`, `null`} {
			if r := put(body); r.Status != 400 && r.Status != 422 {
				t.Errorf("%s: %d %s", body, r.Status, trim(r.Body))
			}
		}
		var q quietHours
		e.must(200, req{Method: "GET", Path: "/v1/me/quiet-hours", Token: ana.Access}).decode(t, &q)
		if !sameQuiet(q, quietHours{Enabled: true, Start: ptr("22:00"), End: ptr("07:00"), TimeZone: "UTC"}) {
			t.Errorf("refused times changed the quiet hours: %+v", q)
		}
		for _, c := range [][3]string{{"7:00:00", "08:00", "07:00"}, {" 7:00 ", "08:00", "07:00"}, {"00:00", "23:59", "00:00"},
			{"23:59", "00:00", "23:59"}, {"12:00", "12:01", "12:00"}, {"12:01", "12:00", "12:01"}} {
			var got quietHours
			e.must(200, req{Method: "PUT", Path: "/v1/me/quiet-hours", Token: ana.Access, Body: map[string]string{"start": c[0], "end": c[1]}}).decode(t, &got)
			if !got.Enabled || got.Start == nil || *got.Start != c[2] {
				t.Errorf("%q to %q: %+v", c[0], c[1], got)
			}
		}
	})
}

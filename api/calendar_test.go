package api_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	arran "github.com/arran4/golang-ical"
	emersion "github.com/emersion/go-ical"
)

type feedAddress struct {
	URL       string `json:"url"`
	WebcalURL string `json:"webcal_url"`
	CreatedAt string `json:"created_at"`
}

// feedEvent is what a test reads of one VEVENT.
type feedEvent struct {
	UID, Summary, Description, URL string
	Sequence                       int
	Start, Stamp                   time.Time
}

// feedPath is the path of a feed's address.
func (e *env) feedPath(a feedAddress) string {
	e.t.Helper()
	_, path, ok := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a.URL, "http://"), "https://"), "/")
	if !ok {
		e.t.Fatalf("feed address %q", a.URL)
	}
	return "/" + path
}

// feed fetches the feed at path without authentication and reads it with
// two maintained parsers, which must agree; go-ical's encoder must take it
// again (it checks the properties each component must have).
func (e *env) feed(path string) []feedEvent {
	e.t.Helper()
	r := e.must(200, req{Method: "GET", Path: path})
	if ct := r.Header.Get("Content-Type"); ct != "text/calendar; charset=utf-8" {
		e.t.Fatalf("feed content type %q", ct)
	}
	cal, err := emersion.NewDecoder(bytes.NewReader(r.Body)).Decode()
	if err != nil {
		e.t.Fatalf("go-ical: %v\n%s", err, r.Body)
	}
	var again bytes.Buffer
	if err := emersion.NewEncoder(&again).Encode(cal); err != nil {
		e.t.Fatalf("go-ical's encoder: %v\n%s", err, r.Body)
	}
	var out []feedEvent
	for _, ev := range cal.Events() {
		var fe feedEvent
		fe.UID, _ = ev.Props.Text("UID")
		fe.Summary, _ = ev.Props.Text("SUMMARY")
		fe.Description, _ = ev.Props.Text("DESCRIPTION")
		if u := ev.Props.Get("URL"); u != nil {
			fe.URL = u.Value
		}
		if seq := ev.Props.Get("SEQUENCE"); seq != nil {
			fe.Sequence, _ = seq.Int()
		}
		fe.Start, _ = ev.Props.DateTime("DTSTART", time.UTC)
		fe.Stamp, _ = ev.Props.DateTime("DTSTAMP", time.UTC)
		out = append(out, fe)
	}
	acal, err := arran.ParseCalendar(bytes.NewReader(r.Body))
	if err != nil {
		e.t.Fatalf("golang-ical: %v", err)
	}
	aevs := acal.Events()
	if len(aevs) != len(out) {
		e.t.Fatalf("golang-ical reads %d events, go-ical %d", len(aevs), len(out))
	}
	for i, ev := range aevs {
		start, err := ev.GetStartAt()
		if ev.Id() != out[i].UID || err != nil || !start.Equal(out[i].Start) {
			e.t.Errorf("golang-ical reads event %d as %s at %v (%v), go-ical as %s at %v", i, ev.Id(), start, err, out[i].UID, out[i].Start)
		}
	}
	return out
}

// TestCalendarFeed: a player's private feed has one event per deadline
// they owe, with a UID that stays and a SEQUENCE that grows when the
// deadline moves (a vacation, here, through the outbox's timeout job);
// it follows the turn to the other player; a renewed or revoked address
// answers 404.
func TestCalendarFeed(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ctx := context.Background()
		ana, bob := e.register("ana"), e.register("bob")
		players := []*player{ana, bob}
		if r := e.do(req{Method: "GET", Path: "/v1/me/calendar", Token: ana.Access}); r.Status != 404 || r.code(t) != "not_found" {
			t.Fatalf("no feed yet: %d %s", r.Status, r.Body)
		}
		g := e.startGame(map[string]any{"mode": "fast", "turn_deadline_seconds": 3600}, ana, bob)
		first := awaited(g, players)[0]
		other := ana
		if first == ana {
			other = bob
		}
		e.drain(t)
		var fa, oa feedAddress
		e.must(201, req{Method: "POST", Path: "/v1/me/calendar", Token: first.Access}).decode(t, &fa)
		e.must(201, req{Method: "POST", Path: "/v1/me/calendar", Token: other.Access}).decode(t, &oa)
		var shown feedAddress
		e.must(200, req{Method: "GET", Path: "/v1/me/calendar", Token: first.Access}).decode(t, &shown)
		if shown != fa || !strings.HasPrefix(fa.WebcalURL, "webcal://") || fa.URL == oa.URL {
			t.Fatalf("addresses: made %+v, shown %+v, the other's %+v", fa, shown, oa)
		}

		deadline, err := time.Parse(time.RFC3339, *g.DeadlineAt)
		if err != nil {
			t.Fatal(err)
		}
		evs := e.feed(e.feedPath(fa))
		if len(evs) != 1 {
			t.Fatalf("%s's feed: %d events, want 1: %+v", first.Name, len(evs), evs)
		}
		ev := evs[0]
		board := fmt.Sprintf("/games/%d", g.ID)
		if want := fmt.Sprintf("Data Monsters: your turn in Game #%d ends", g.ID); ev.Summary != want {
			t.Errorf("summary %q, want %q", ev.Summary, want)
		}
		if !ev.Start.Equal(deadline.Truncate(time.Second)) || !strings.HasSuffix(ev.URL, board) ||
			!strings.Contains(ev.Description, "With "+other.Name+".") || !strings.Contains(ev.Description, "If time runs out, your turn ends.") {
			t.Errorf("event %+v, deadline %v", ev, deadline)
		}
		if got := e.feed(e.feedPath(oa)); len(got) != 0 {
			t.Errorf("%s's feed holds the deadline %s owes: %+v", other.Name, first.Name, got)
		}

		// A vacation of half an hour: at the deadline the timeout job moves
		// it by the time away. The event stays the same one, revised.
		e.must(201, req{Method: "POST", Path: "/v1/me/vacations", Token: first.Access,
			Body: map[string]any{"ends_at": e.clock.Now().Add(30 * time.Minute).UTC().Format(time.RFC3339)}})
		e.clock.Add(deadline.Sub(e.clock.Now()) + time.Second)
		if _, err := e.ob.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the deadline to move", func() bool {
			d := e.getGame(g.ID, first).DeadlineAt
			return d != nil && *d != *g.DeadlineAt
		})
		moved := e.feed(e.feedPath(fa))
		if len(moved) != 1 {
			t.Fatalf("after the deadline moved: %+v", moved)
		}
		m := moved[0]
		if m.UID != ev.UID || m.Sequence != ev.Sequence+1 || !m.Start.After(ev.Start.Add(29*time.Minute)) || !m.Stamp.After(ev.Stamp) {
			t.Fatalf("the moved deadline's event %+v; before it was %+v", m, ev)
		}

		// The turn passes: the event goes to the other player's feed.
		e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: first.Access,
			Body: map[string]any{"expected_version": e.getGame(g.ID, first).Version, "actions": []map[string]string{{"type": "end_turn"}}}})
		if got := e.feed(e.feedPath(fa)); len(got) != 0 {
			t.Errorf("%s's feed after their turn: %+v", first.Name, got)
		}
		theirs := e.feed(e.feedPath(oa))
		if len(theirs) != 1 || theirs[0].UID == ev.UID || !strings.Contains(theirs[0].Summary, "your turn") ||
			theirs[0].Sequence <= m.Sequence || theirs[0].Stamp.Before(m.Stamp) {
			t.Errorf("%s's feed once it is their turn: %+v", other.Name, theirs)
		}

		// Renewed, the old address is gone; revoked, so is the new one.
		var renewed feedAddress
		e.must(201, req{Method: "POST", Path: "/v1/me/calendar", Token: first.Access}).decode(t, &renewed)
		if renewed.URL == fa.URL {
			t.Fatal("renewing kept the address")
		}
		for _, c := range []struct {
			path string
			want int
		}{{e.feedPath(fa), 404}, {e.feedPath(renewed), 200}, {e.feedPath(oa), 200}} {
			if r := e.do(req{Method: "GET", Path: c.path}); r.Status != c.want {
				t.Errorf("GET %s: %d, want %d", c.path, r.Status, c.want)
			}
		}
		e.must(204, req{Method: "DELETE", Path: "/v1/me/calendar", Token: first.Access})
		if r := e.do(req{Method: "GET", Path: e.feedPath(renewed)}); r.Status != 404 || r.code(t) != "not_found" {
			t.Errorf("a revoked feed: %d %s", r.Status, r.Body)
		}
		if r := e.do(req{Method: "DELETE", Path: "/v1/me/calendar", Token: first.Access}); r.Status != 404 {
			t.Errorf("revoking twice: %d", r.Status)
		}
		if r := e.do(req{Method: "GET", Path: "/v1/me/calendar", Token: first.Access}); r.Status != 404 {
			t.Errorf("the address of a revoked feed: %d %s", r.Status, r.Body)
		}
		tok := strings.TrimSuffix(strings.TrimPrefix(e.feedPath(oa), "/v1/calendar/"), ".ics")
		for _, p := range []string{"/v1/calendar/nothing.ics", "/v1/calendar/" + tok, "/v1/calendar/" + tok + "x.ics",
			"/v1/calendar/dmc_" + strings.Repeat("A", 43) + ".ics"} {
			if r := e.do(req{Method: "GET", Path: p}); r.Status != 404 {
				t.Errorf("GET %s: %d", p, r.Status)
			}
		}
	})
}

package ical_test

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	arran "github.com/arran4/golang-ical"
	emersion "github.com/emersion/go-ical"

	"github.com/datamonsters/turns/internal/ical"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"Ana, Bob; Cyd", `Ana\, Bob\; Cyd`},
		{`C:\path`, `C:\\path`},
		{"one\ntwo\r\nthree\rfour", `one\ntwo\nthree\nfour`},
		{"bell\x07 and tab\t", "bell and tab\t"},
		{"Game #12: “your turn” é🃏", "Game #12: “your turn” é🃏"},
	} {
		if got := ical.Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		want string
	}{{15 * time.Minute, "PT15M"}, {26 * time.Hour, "P1DT2H"}, {48 * time.Hour, "P2D"}, {0, "PT0S"}, {90 * time.Second, "PT1M30S"}, {-time.Hour, "PT0S"}} {
		if got := ical.Duration(c.in); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// tricky is a calendar whose texts need escaping and whose lines need
// folding, some in the middle of characters of several octets.
func tricky() *ical.Calendar {
	at := time.Date(2026, 5, 4, 9, 30, 0, 0, time.FixedZone("CEST", 2*3600))
	long := strings.Repeat("Deadline, sürely; “quoted” \\ 🃏 ", 12)
	return &ical.Calendar{ProdID: "-//Data Monsters//Turn service//EN", Name: "Data Monsters: ana’s deadlines", Refresh: 15 * time.Minute,
		Events: []ical.Event{
			{UID: "g12-turn-3-s0@dm.example", Sequence: 4, Stamp: at.Add(-time.Hour), Start: at, Summary: "Data Monsters: your turn in Game #12 ends",
				Description: "Against bob, cyd.\nPlay: https://dm.example/games/12", URL: "https://dm.example/games/12", Transparent: true},
			{UID: "g13-prompt-p7-s1@dm.example", Stamp: at, Start: at.Add(24 * time.Hour), Summary: long, Description: long + "\n" + long},
		}}
}

// TestLines: CRLF ends, no line over 75 octets, folds never inside a
// character, and unfolding gives the lines back.
func TestLines(t *testing.T) {
	data := tricky().Marshal()
	if !bytes.HasSuffix(data, []byte("END:VCALENDAR\r\n")) || bytes.Contains(bytes.ReplaceAll(data, []byte("\r\n"), nil), []byte("\n")) {
		t.Fatalf("lines must end with CRLF, and only there:\n%q", data)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\r\n"), "\r\n")
	folded := 0
	for _, l := range lines {
		if len(l) > 75 {
			t.Errorf("a line of %d octets: %q", len(l), l)
		}
		if !utf8.ValidString(l) {
			t.Errorf("a fold split a character: %q", l)
		}
		if strings.HasPrefix(l, " ") {
			folded++
		}
	}
	if folded < 10 {
		t.Fatalf("only %d folded lines", folded)
	}
	unfolded := strings.ReplaceAll(string(data), "\r\n ", "")
	if !strings.Contains(unfolded, "\r\nSUMMARY:"+ical.Text(tricky().Events[1].Summary)+"\r\n") {
		t.Error("unfolding does not give the summary back")
	}
	for _, want := range []string{"BEGIN:VCALENDAR\r\nVERSION:2.0\r\n", "DTSTART:20260504T073000Z\r\n", "SEQUENCE:4\r\n",
		"DTSTAMP:20260504T063000Z\r\n", "TRANSP:TRANSPARENT\r\n", "REFRESH-INTERVAL;VALUE=DURATION:PT15M\r\n",
		`SUMMARY:Data Monsters: your turn in Game #12 ends`, `DESCRIPTION:Against bob\, cyd.\nPlay: https://dm.example/games/12`} {
		if !strings.Contains(unfolded, want) {
			t.Errorf("no %q in\n%s", want, unfolded)
		}
	}
}

// TestParsers reads the calendar with two maintained parsers: each gets
// the events back with their texts unescaped and their times; emersion's
// encoder, which checks the properties each component must have once,
// writes it again.
func TestParsers(t *testing.T) {
	c := tricky()
	data := c.Marshal()

	cal, err := emersion.NewDecoder(bytes.NewReader(data)).Decode()
	if err != nil {
		t.Fatalf("go-ical: %v", err)
	}
	evs := cal.Events()
	if len(evs) != len(c.Events) {
		t.Fatalf("go-ical: %d events, want %d", len(evs), len(c.Events))
	}
	for i, e := range evs {
		want := c.Events[i]
		for prop, v := range map[string]string{"UID": want.UID, "SUMMARY": want.Summary, "DESCRIPTION": want.Description} {
			if got, err := e.Props.Text(prop); err != nil || got != v {
				t.Errorf("go-ical: event %d %s = %q %v, want %q", i, prop, got, err, v)
			}
		}
		if got, err := e.Props.DateTime("DTSTART", time.UTC); err != nil || !got.Equal(want.Start) {
			t.Errorf("go-ical: event %d starts %v %v, want %v", i, got, err, want.Start)
		}
		if seq, err := e.Props.Get("SEQUENCE").Int(); err != nil || int64(seq) != want.Sequence {
			t.Errorf("go-ical: event %d SEQUENCE %d %v", i, seq, err)
		}
	}
	if name, _ := cal.Props.Text("NAME"); name != c.Name {
		t.Errorf("go-ical: calendar name %q", name)
	}
	var again bytes.Buffer
	if err := emersion.NewEncoder(&again).Encode(cal); err != nil {
		t.Errorf("go-ical's encoder refuses the calendar: %v", err)
	}

	acal, err := arran.ParseCalendar(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("golang-ical: %v", err)
	}
	aevs := acal.Events()
	if len(aevs) != len(c.Events) {
		t.Fatalf("golang-ical: %d events", len(aevs))
	}
	for i, e := range aevs {
		want := c.Events[i]
		if got := arran.FromText(e.GetProperty(arran.ComponentPropertySummary).Value); got != want.Summary {
			t.Errorf("golang-ical: event %d summary %q, want %q", i, got, want.Summary)
		}
		if got := e.Id(); got != want.UID {
			t.Errorf("golang-ical: event %d UID %q", i, got)
		}
		if got, err := e.GetStartAt(); err != nil || !got.Equal(want.Start) {
			t.Errorf("golang-ical: event %d starts %v %v", i, got, err)
		}
	}

	// A feed without events is a calendar still.
	empty := (&ical.Calendar{ProdID: "-//x//y//EN"}).Marshal()
	ecal, err := emersion.NewDecoder(bytes.NewReader(empty)).Decode()
	if err != nil {
		t.Fatalf("go-ical, no events: %v", err)
	}
	if err := emersion.NewEncoder(&again).Encode(ecal); err != nil || len(ecal.Events()) != 0 {
		t.Errorf("go-ical, no events: %v, %d events", err, len(ecal.Events()))
	}
	if _, err := arran.ParseCalendar(bytes.NewReader(empty)); err != nil {
		t.Errorf("golang-ical, no events: %v", err)
	}
}

package ical

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Calendar is one VCALENDAR.
type Calendar struct {
	ProdID string // who made it: "-//Data Monsters//Turn service//EN"
	Name   string // the calendar's name (NAME, RFC 7986, and X-WR-CALNAME); "" for none
	// Refresh is how often a subscriber should fetch the calendar again
	// (REFRESH-INTERVAL, RFC 7986, and X-PUBLISHED-TTL); 0 leaves it to
	// the subscriber.
	Refresh time.Duration
	Events  []Event
}

// Event is one VEVENT: a moment (a DTSTART with no end or duration is an
// instant, RFC 5545 section 3.6.1).
type Event struct {
	UID string // unique and stable: the same event keeps it as it changes
	// Sequence is the event's revision; it grows whenever the event
	// changes in a way that matters (its time).
	Sequence int64
	Stamp    time.Time // DTSTAMP: when the event's information last changed
	Start    time.Time // DTSTART, written in UTC
	Summary  string
	// Description is the event's longer text ("" for none); it may hold
	// several lines.
	Description string
	URL         string // a link to what the event is about; "" for none
	// Transparent marks the event as taking no time in the calendar (it
	// does not make its owner busy).
	Transparent bool
}

// Marshal writes c as an iCalendar stream: the calendar's properties, a
// VTIMEZONE of UTC (so that a calendar without events still holds the one
// component RFC 5545's grammar requires), then the events.
func (c *Calendar) Marshal() []byte {
	var w writer
	w.line("BEGIN", "VCALENDAR")
	w.line("VERSION", "2.0")
	w.line("PRODID", Text(c.ProdID))
	w.line("CALSCALE", "GREGORIAN")
	if c.Name != "" {
		w.line("NAME", Text(c.Name))
		w.line("X-WR-CALNAME", Text(c.Name))
	}
	if c.Refresh > 0 {
		w.line("REFRESH-INTERVAL;VALUE=DURATION", Duration(c.Refresh))
		w.line("X-PUBLISHED-TTL", Duration(c.Refresh))
	}
	// The grammar wants one component at least, and a feed may have no
	// event: the UTC time zone, which every time here is in, is always one.
	w.line("BEGIN", "VTIMEZONE")
	w.line("TZID", "UTC")
	w.line("BEGIN", "STANDARD")
	w.line("DTSTART", "19700101T000000")
	w.line("TZOFFSETFROM", "+0000")
	w.line("TZOFFSETTO", "+0000")
	w.line("TZNAME", "UTC")
	w.line("END", "STANDARD")
	w.line("END", "VTIMEZONE")
	for _, e := range c.Events {
		w.line("BEGIN", "VEVENT")
		w.line("UID", Text(e.UID))
		w.line("DTSTAMP", Time(e.Stamp))
		w.line("SEQUENCE", strconv.FormatInt(e.Sequence, 10))
		w.line("DTSTART", Time(e.Start))
		w.line("SUMMARY", Text(e.Summary))
		if e.Description != "" {
			w.line("DESCRIPTION", Text(e.Description))
		}
		if e.URL != "" {
			w.line("URL", e.URL)
		}
		if e.Transparent {
			w.line("TRANSP", "TRANSPARENT")
		}
		w.line("END", "VEVENT")
	}
	w.line("END", "VCALENDAR")
	return w.buf.Bytes()
}

// Text escapes s as a TEXT value (RFC 5545 section 3.3.11): a backslash,
// a semicolon and a comma get a backslash before them, and a line break
// (CRLF, LF or CR) is written \n. Other control characters, which TEXT
// may not hold, are dropped.
func Text(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\\', ';', ',':
			b.WriteByte('\\')
			b.WriteByte(ch)
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			b.WriteString(`\n`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteByte(ch)
		default:
			if ch < 0x20 || ch == 0x7f {
				continue
			}
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// Time writes t as a UTC DATE-TIME ("20260504T090000Z"), to the second.
func Time(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// Duration writes d as a DURATION ("PT15M", "P1DT2H"), to the second;
// a negative d is written as zero.
func Duration(d time.Duration) string {
	s := int64(max(d, 0) / time.Second)
	days, s := s/86400, s%86400
	h, s := s/3600, s%3600
	m, s := s/60, s%60
	out := "P"
	if days > 0 {
		out += strconv.FormatInt(days, 10) + "D"
	}
	if h > 0 || m > 0 || s > 0 || days == 0 {
		out += "T"
		if h > 0 {
			out += strconv.FormatInt(h, 10) + "H"
		}
		if m > 0 {
			out += strconv.FormatInt(m, 10) + "M"
		}
		if s > 0 || h == 0 && m == 0 {
			out += strconv.FormatInt(s, 10) + "S"
		}
	}
	return out
}

// maxLine is the most octets of a content line, its CRLF aside (RFC 5545
// section 3.1): a longer one is folded.
const maxLine = 75

// writer writes content lines.
type writer struct{ buf bytes.Buffer }

// line writes "name:value", folded: after 75 octets a CRLF and a space
// continue it on the next line (the space counts in that line's 75), never
// inside a UTF-8 sequence.
func (w *writer) line(name, value string) {
	s := name + ":" + value
	room := maxLine
	for len(s) > room {
		cut := room
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		w.buf.WriteString(s[:cut])
		w.buf.WriteString("\r\n ")
		s = s[cut:]
		room = maxLine - 1
	}
	w.buf.WriteString(s)
	w.buf.WriteString("\r\n")
}

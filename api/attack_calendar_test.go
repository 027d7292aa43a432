package api_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/datamonsters/turns/models"
)

// feedToken is the token of a feed's address (between /v1/calendar/ and
// .ics).
func feedToken(t *testing.T, a feedAddress) string {
	t.Helper()
	i := strings.Index(a.URL, "/v1/calendar/")
	if i < 0 || !strings.HasSuffix(a.URL, ".ics") {
		t.Fatalf("feed address %q", a.URL)
	}
	return strings.TrimSuffix(a.URL[i+len("/v1/calendar/"):], ".ics")
}

// rawFeed fetches the feed at path as a calendar app does, with host as
// the Host header ("" for the server's own), and returns status and body.
func (e *env) rawFeed(path, host string) (int, string) {
	e.t.Helper()
	r, err := http.NewRequest("GET", e.srv.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if host != "" {
		r.Host = host
	}
	res, err := e.http.Do(r)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

// checkContentLines holds a raw iCalendar stream to RFC 5545 section 3.1:
// every line ends in CRLF and nowhere else, no line is longer than 75
// octets, no fold splits a UTF-8 character, and no control character but
// HTAB is in it. It returns the unfolded content lines.
func checkContentLines(t *testing.T, body string) []string {
	t.Helper()
	if !strings.HasSuffix(body, "\r\n") {
		t.Fatalf("the feed does not end with CRLF: %q", body[max(0, len(body)-40):])
	}
	lines := strings.Split(strings.TrimSuffix(body, "\r\n"), "\r\n")
	for _, l := range lines {
		if len(l) > 75 {
			t.Errorf("a line of %d octets: %q", len(l), l)
		}
		if !utf8.ValidString(l) {
			t.Errorf("a fold splits a character: %q", l)
		}
		for _, r := range l {
			if r < 0x20 && r != '\t' || r == 0x7f {
				t.Errorf("control character %U in line %q", r, l)
			}
		}
	}
	return strings.Split(strings.ReplaceAll(strings.TrimSuffix(body, "\r\n"), "\r\n ", ""), "\r\n")
}

// TestAttackCalendarTokens attacks the feed's address, the only credential
// of the feed. What must hold: an address is unguessable (a random token of
// 256 bits, new at every renewal, different for every player and never the
// same as any other credential of theirs); an address that was renewed,
// revoked, altered in any way, or made of another credential answers 404
// with nothing of the feed; renewing many times at once leaves exactly one
// working address, the one the settings show; a personal API token can
// neither read nor make nor revoke the address (login session only); a
// deleted account's address is dead; and one player's feed never holds
// another's deadline or a card of the owner's hand.
func TestAttackCalendarTokens(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast", "turn_deadline_seconds": 3600}, ana, bob)
		first := awaited(g, []*player{ana, bob})[0]
		other := ana
		if first == ana {
			other = bob
		}

		var fa, oa feedAddress
		e.must(201, req{Method: "POST", Path: "/v1/me/calendar", Token: first.Access}).decode(t, &fa)
		e.must(201, req{Method: "POST", Path: "/v1/me/calendar", Token: other.Access}).decode(t, &oa)
		tok, otok := feedToken(t, fa), feedToken(t, oa)
		shape := regexp.MustCompile(`^dmc_[A-Za-z0-9_-]{43}$`)
		for _, k := range []string{tok, otok} {
			if !shape.MatchString(k) {
				t.Fatalf("feed token %q is not 256 bits of base64url", k)
			}
		}
		if tok == otok || strings.Contains(tok, first.Access) || strings.Contains(first.Access, strings.TrimPrefix(tok, "dmc_")) ||
			strings.Contains(first.Refresh, strings.TrimPrefix(tok, "dmc_")) {
			t.Fatalf("feed tokens %q and %q, and the session's tokens", tok, otok)
		}

		// Only the owner's deadline; no card of their hand; no other
		// player's deadline.
		code, body := e.rawFeed(e.feedPath(fa), "")
		if code != 200 || strings.Count(body, "BEGIN:VEVENT") != 1 {
			t.Fatalf("the feed of the player whose turn it is: %d\n%s", code, body)
		}
		for _, p := range []*player{first, other} {
			for _, c := range e.getGame(g.ID, p).View.Hand {
				for _, s := range []string{c.ID, c.Name} {
					if s != "" && strings.Contains(body, s) {
						t.Errorf("the feed of %s holds %q, of %s's hand:\n%s", first.Name, s, p.Name, body)
					}
				}
			}
		}
		if code, body := e.rawFeed(e.feedPath(oa), ""); code != 200 || strings.Contains(body, "BEGIN:VEVENT") {
			t.Fatalf("%s's feed holds the deadline %s owes: %d\n%s", other.Name, first.Name, code, body)
		}

		// Altered addresses, and other credentials in their place.
		flip := func(s string, i int) string {
			b := []byte(s)
			if b[i] == 'A' {
				b[i] = 'B'
			} else {
				b[i] = 'A'
			}
			return string(b)
		}
		for _, bad := range []string{
			flip(tok, len(tok)-1), flip(tok, 4), strings.ToUpper(tok), strings.ToLower(tok), tok[:len(tok)-1],
			tok + "A", "DMC_" + tok[4:], tok[4:], tok + ".ics", tok + "%00", " " + tok, tok + " ",
			first.Access, first.Refresh, "dmc_", "dmc_" + strings.Repeat("A", 200),
		} {
			p := "/v1/calendar/" + strings.ReplaceAll(bad, " ", "%20") + ".ics"
			code, body := e.rawFeed(p, "")
			if code != 404 || strings.Contains(body, "VCALENDAR") {
				t.Errorf("GET %s: %d %s", p, code, trim([]byte(body)))
			}
		}
		for _, p := range []string{"/v1/calendar/" + tok + ".ICS", "/v1/calendar/" + tok} {
			if code, body := e.rawFeed(p, ""); code == 200 || strings.Contains(body, "VCALENDAR") {
				t.Errorf("GET %s: %d", p, code)
			}
		}

		// A personal API token, even one with every scope, is no login
		// session: the address is not its to see, make or revoke.
		var api struct {
			Token string `json:"token"`
		}
		e.must(201, req{Method: "POST", Path: "/v1/tokens", Token: first.Access,
			Body: map[string]any{"name": "bot", "scopes": []string{"read", "play"}}}).decode(t, &api)
		for _, m := range []string{"GET", "POST", "DELETE"} {
			if r := e.do(req{Method: m, Path: "/v1/me/calendar", Token: api.Token}); r.Status != 403 {
				t.Errorf("%s /v1/me/calendar with an API token: %d %s", m, r.Status, r.Body)
			}
		}
		if code, _ := e.rawFeed(e.feedPath(fa), ""); code != 200 {
			t.Fatalf("the address after the API token's tries: %d", code)
		}

		// Renewals at once: exactly one address works, the one shown.
		const n = 8
		made := make([]feedAddress, n)
		var wg sync.WaitGroup
		for i := range made {
			wg.Go(func() {
				r := e.must(201, req{Method: "POST", Path: "/v1/me/calendar", Token: first.Access})
				r.decode(t, &made[i])
			})
		}
		wg.Wait()
		var shown feedAddress
		e.must(200, req{Method: "GET", Path: "/v1/me/calendar", Token: first.Access}).decode(t, &shown)
		working := 0
		seen := map[string]bool{tok: true}
		for _, a := range made {
			k := feedToken(t, a)
			if seen[k] {
				t.Errorf("a renewal gave an address given before: %s", k)
			}
			seen[k] = true
			code, _ := e.rawFeed(e.feedPath(a), "")
			switch code {
			case 200:
				working++
				if a.URL != shown.URL {
					t.Errorf("address %s works, but the settings show %s", a.URL, shown.URL)
				}
			case 404:
			default:
				t.Errorf("a renewed address: %d", code)
			}
		}
		if working != 1 {
			t.Fatalf("%d of %d addresses renewed at once work, want 1", working, n)
		}
		if code, _ := e.rawFeed(e.feedPath(fa), ""); code != 404 {
			t.Errorf("the first address after renewals: %d", code)
		}

		// Revoked, then made again: only the newest works.
		e.must(204, req{Method: "DELETE", Path: "/v1/me/calendar", Token: first.Access})
		if code, _ := e.rawFeed(e.feedPath(shown), ""); code != 404 {
			t.Errorf("a revoked address: %d", code)
		}
		var again feedAddress
		e.must(201, req{Method: "POST", Path: "/v1/me/calendar", Token: first.Access}).decode(t, &again)
		if again.URL == shown.URL || again.URL == fa.URL {
			t.Fatalf("made again after a revocation, the address is an old one: %s", again.URL)
		}
		for path, want := range map[string]int{e.feedPath(shown): 404, e.feedPath(again): 200, e.feedPath(fa): 404, e.feedPath(oa): 200} {
			if code, _ := e.rawFeed(path, ""); code != want {
				t.Errorf("GET %s: %d, want %d", path, code, want)
			}
		}

		// A deleted account's feed is gone; the other player's stays.
		if err := e.store.DeleteAccount(ctx, other.ID); err != nil {
			t.Fatal(err)
		}
		if code, body := e.rawFeed(e.feedPath(oa), ""); code != 404 || strings.Contains(body, "VCALENDAR") {
			t.Errorf("a deleted account's feed: %d", code)
		}
		if code, _ := e.rawFeed(e.feedPath(again), ""); code != 200 {
			t.Errorf("the other player's feed after the deletion: %d", code)
		}
	})
}

// TestAttackCalendarContentLines attacks the feed's text: players' names
// as long as a name may be, four to a game, in a game whose number and
// names make the description's lines long; names with the characters
// that iCalendar's TEXT must escape (a comma, a semicolon, a line break)
// which registration must refuse; and a request whose Host header, the
// feed's base address when none is configured, holds a comma and a
// semicolon. What must hold: the feed is CRLF lines of 75 octets at most,
// folded, with no bare CR or LF, so that no text can start a property of
// its own; both parsers read one event with the names escaped back; the
// Host's characters cannot add a property or an event.
func TestAttackCalendarContentLines(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		for _, name := range []string{"ana\r\nX-EVIL:1", "ana,bob", "ana;x", "ana\\n", "aña-üñí"} {
			r := e.do(req{Method: "POST", Path: "/v1/auth/register", NoContract: true,
				Body: map[string]string{"username": name, "password": "password-long-enough", "email": "x@example.com"}})
			if r.Status < 400 || r.Status >= 500 {
				t.Errorf("registering %q: %d", name, r.Status)
			}
		}
		// The longest names there are (32 characters), with the
		// punctuation a name may hold.
		names := []string{"a" + strings.Repeat("n-a_", 7) + "nna", "b" + strings.Repeat("o_b-", 7) + "bbo",
			"c" + strings.Repeat("y-d_", 7) + "ccy", "d" + strings.Repeat("a_n-", 7) + "ddn"}
		var ps []*player
		for _, n := range names {
			if len(n) != 32 {
				t.Fatalf("name %q of %d", n, len(n))
			}
			ps = append(ps, e.register(n))
		}
		g := e.startGame(map[string]any{"mode": "fast", "turn_deadline_seconds": 3600}, ps...)
		owner := awaited(g, ps)[0]
		var fa feedAddress
		e.must(201, req{Method: "POST", Path: "/v1/me/calendar", Token: owner.Access}).decode(t, &fa)

		code, body := e.rawFeed(e.feedPath(fa), "")
		if code != 200 {
			t.Fatalf("feed: %d %s", code, body)
		}
		lines := checkContentLines(t, body)
		folded := strings.Count(body, "\r\n ")
		if folded == 0 {
			t.Errorf("no folded line in a feed of long names:\n%s", body)
		}
		evs := e.feed(e.feedPath(fa))
		if len(evs) != 1 {
			t.Fatalf("events: %+v", evs)
		}
		for _, p := range ps {
			if p != owner && !strings.Contains(evs[0].Description, p.Name) {
				t.Errorf("the description lacks %s: %q", p.Name, evs[0].Description)
			}
		}
		if !strings.Contains(evs[0].Description, ", ") {
			t.Errorf("the names' commas did not come back: %q", evs[0].Description)
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "DESCRIPTION:") && strings.Contains(strings.ReplaceAll(l, `\,`, ""), ",") {
				t.Errorf("an unescaped comma in %q", l)
			}
		}

		// A Host header with TEXT's special characters.
		for _, host := range []string{"dm.example,evil;x=1", "dm.example:8080"} {
			code, body := e.rawFeed(e.feedPath(fa), host)
			if code != 200 {
				t.Fatalf("feed for Host %q: %d %s", host, code, body)
			}
			lines := checkContentLines(t, body)
			props := map[string]int{}
			for _, l := range lines {
				name := l
				if i := strings.IndexAny(l, ":;"); i >= 0 {
					name = l[:i]
				}
				props[name]++
			}
			if props["BEGIN"] != 4 || props["UID"] != 1 || props["URL"] != 1 || props["SUMMARY"] != 1 || props["DESCRIPTION"] != 1 {
				t.Errorf("Host %q: properties %v\n%s", host, props, body)
			}
		}
	})
}

// TestAttackCalendarTimeZones: a player far from UTC (UTC+14) whose quiet
// hours move their deadline. What must hold: every time in the feed is
// UTC with a Z (no TZID, no floating time a calendar would read in the
// reader's own zone), and the event is at the very instant the game's
// deadline is, the move out of quiet hours included; a game that is over
// leaves the feed.
func TestAttackCalendarTimeZones(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ana, bob := e.register("ana"), e.register("bob")
		const zone = "Pacific/Kiritimati"
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Skip(err)
		}
		local := e.clock.Now().In(loc)
		for _, p := range []*player{ana, bob} {
			if err := e.store.SetTimeZone(ctx, p.ID, zone); err != nil {
				t.Fatal(err)
			}
			// Quiet from an hour ago to two hours from now, on the
			// player's clock: a deadline an hour from now moves.
			e.must(200, req{Method: "PUT", Path: "/v1/me/quiet-hours", Token: p.Access, Body: map[string]string{
				"start": local.Add(-time.Hour).Format("15:04"), "end": local.Add(2 * time.Hour).Format("15:04")}})
		}
		g := e.startGame(map[string]any{"mode": "fast", "turn_deadline_seconds": 3600}, ana, bob)
		owner := awaited(g, []*player{ana, bob})[0]
		if g.DeadlineAt == nil {
			t.Fatal("no deadline")
		}
		deadline, err := time.Parse(time.RFC3339, *g.DeadlineAt)
		if err != nil {
			t.Fatal(err)
		}
		var fa feedAddress
		e.must(201, req{Method: "POST", Path: "/v1/me/calendar", Token: owner.Access}).decode(t, &fa)
		code, body := e.rawFeed(e.feedPath(fa), "")
		if code != 200 {
			t.Fatalf("feed: %d", code)
		}
		inEvent := false
		for _, l := range checkContentLines(t, body) {
			switch l {
			case "BEGIN:VEVENT":
				inEvent = true
			case "END:VEVENT":
				inEvent = false
			}
			// The VTIMEZONE's own DTSTART is local time by RFC 5545's
			// rule for it; the events' times must be UTC.
			if inEvent && (strings.HasPrefix(l, "DTSTART") || strings.HasPrefix(l, "DTSTAMP")) {
				if !regexp.MustCompile(`^DT(START|STAMP):\d{8}T\d{6}Z$`).MatchString(l) {
					t.Errorf("a time that is not UTC: %q", l)
				}
			}
		}
		want := "DTSTART:" + deadline.UTC().Format("20060102T150405Z")
		if !strings.Contains(body, "\r\n"+want+"\r\n") {
			t.Errorf("no %q in the feed (deadline %s):\n%s", want, *g.DeadlineAt, body)
		}
		evs := e.feed(e.feedPath(fa))
		if len(evs) != 1 || !evs[0].Start.Equal(deadline.Truncate(time.Second)) {
			t.Fatalf("events %+v, deadline %v", evs, deadline)
		}
		if d := deadline.Sub(e.clock.Now()); d < time.Hour+50*time.Minute || !strings.Contains(evs[0].Description, "quiet hours") {
			t.Errorf("the deadline, %v away, was to move out of quiet hours and the description say so: %q", d, evs[0].Description)
		}

		// Over, the game leaves the feed.
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/resign", g.ID), Token: owner.Access})
		if evs := e.feed(e.feedPath(fa)); len(evs) != 0 {
			t.Errorf("a game that is over is in the feed: %+v", evs)
		}
		if g := e.getGame(g.ID, owner); g.Status != models.StatusOver {
			t.Errorf("the game is %s", g.Status)
		}
	})
}

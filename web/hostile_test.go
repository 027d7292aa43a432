package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
)

// hostileFields are the names of every field a form of the pages sends.
var hostileFields = []string{"v", "key", "type", "card", "challenge", "prompt", "choice", "confirm", "username", "email",
	"password", "time_zone", "next", "n", "t", "who", "pass", "play", "pref", "scope", "replies", "fixed", "deck",
	"players", "mode", "office", "invite", "bots", "turn_deadline", "prompt_deadline", "on_timeouts", "timeout_limit",
	"public", "policy", "first_day", "last_day", "name", "since", "done"}

// hostileValues are what a careless user, a broken client or an attacker
// puts in a field: nothing, bytes no database stores, numbers out of any
// range, paths and addresses elsewhere, markup, and a lot of it.
var hostileValues = []string{"", " ", "\x00", "a\x00b", "\xff\xfe", "\xed\xa0\x80", "-1", "0", "9223372036854775808",
	"-9223372036854775809", "1e400", "NaN", "../../../etc/passwd", "//evil.example", "https://evil.example/x",
	"javascript:alert(1)", "<script>alert(1)</script>", "\u202e\u0000", strings.Repeat("x", 64<<10)}

// TestHostileForms: every form of the pages, and every page that reads a
// query, gets hostile input from a signed-in player and from a visitor:
// each field set to each hostile value, each field sent a thousand
// times, a body that is no form, and ids that name nothing. Nothing
// answers 5xx; what is not a redirect is a page; the game in play does
// not move; the player stays signed in; and the service still answers.
func TestHostileForms(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, bob, visitor := s.client(), s.client(), s.client()
		ana.register("ana", "ana password")
		bob.register("bob", "bob password")
		id := s.startGame(s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password"))
		before, _ := s.gameState(id)
		game := gamePath(id)

		// The routes that end a sign-in come last, so that the others
		// are tried signed in.
		posts := []string{"/register", "/login", "/verify", "/reset", "/reset/new", "/signin", game + "/act",
			"/games", game + "/join", game + "/leave", game + "/start", game + "/cancel", game + "/invite", game + "/play",
			game + "/reclaim", game + "/rematch", game + "/decline", "/invite", "/join", "/settings/email", "/settings/verify", "/settings/time-zone",
			"/settings/notifications", "/settings/email-replies", "/settings/vacations", "/settings/vacations/1/end",
			"/settings/tokens", "/settings/tokens/1/revoke",
			"/games/abc/play", "/games/99999999999999999999/play", "/games/-1/join", "/games/0/start",
			"/settings/vacations/abc/end", "/settings/tokens/-5/revoke",
			"/settings/delete", "/settings/sessions/end", "/logout"}
		gets := []string{"/", "/login", "/register", "/verify", "/reset", "/reset/new", "/signin", game, game + "/log",
			game + "/act", "/invite", "/join", "/new-game", "/settings", "/games/abc", "/games/99999999999999999999",
			"/games/-1/log", "/rules"}
		// The scripts' polls answer plain text, never 5xx.
		polls := []string{"/lobby/state", game + "/state", "/games/abc/state", "/games/99999999999999999999/state"}

		check := func(what, method, path string, r resp) {
			t.Helper()
			if r.Status >= 500 || r.Status < 200 {
				t.Errorf("%s %s with %s answered %d", method, path, what, r.Status)
			}
			if r.Status < 300 || r.Status >= 400 {
				if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
					t.Errorf("%s %s with %s answered %d as %q", method, path, what, r.Status, ct)
				}
			}
		}
		raw := func(c *client, path, contentType, body string) resp {
			t.Helper()
			req, err := http.NewRequest(http.MethodPost, c.abs(path), strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", contentType)
			req.Header.Set("Origin", s.url)
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			return c.do(req)
		}

		// The forms are the same for every path: each is encoded once (the
		// largest is 2.5 MB) and its bytes are sent as c.post sends a form.
		const formType = "application/x-www-form-urlencoded"
		everyField := make([]string, len(hostileValues))
		for i, v := range hostileValues {
			form := url.Values{}
			for _, f := range hostileFields {
				form.Set(f, v)
			}
			everyField[i] = form.Encode()
		}
		many := url.Values{}
		for _, f := range hostileFields {
			for range 1000 {
				many.Add(f, "1")
			}
		}
		manyBody := many.Encode()

		requests := 0
		for _, c := range []*client{ana, visitor} {
			for _, path := range posts {
				for i, v := range hostileValues {
					check(fmt.Sprintf("every field %.20q", v), "POST", path, raw(c, path, formType, everyField[i]))
					requests++
				}
				check("every field 1000 times", "POST", path, raw(c, path, formType, manyBody))
				for _, b := range []struct{ ct, body string }{
					{formType, "%zz%=&;;=%"},
					{formType, strings.Repeat("&", 100000)},
					{"multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"v\"\r\n\r\n1"},
					{"multipart/form-data", "garbage"},
					{"application/json", `{"type":"end_turn","v":1}`},
					{"text/plain", "\x00\xff"},
				} {
					check(fmt.Sprintf("a %s body %.20q", b.ct, b.body), "POST", path, raw(c, path, b.ct, b.body))
				}
				requests += 7
				if c == ana && !strings.Contains(path, "sessions/end") && path != "/logout" && path != "/settings/delete" && !ana.signedIn() {
					t.Fatalf("hostile input to %s signed ana out", path)
				}
			}
			for _, path := range gets {
				for _, v := range hostileValues[:len(hostileValues)-1] {
					q := url.Values{}
					for _, f := range hostileFields {
						q.Set(f, v)
					}
					check(fmt.Sprintf("every query field %.20q", v), "GET", path, c.get(path+"?"+q.Encode()))
					requests++
				}
			}
		}
		for _, c := range []*client{ana, visitor} {
			for _, path := range polls {
				for _, v := range hostileValues[:len(hostileValues)-1] {
					if r := c.get(path + "?since=" + url.QueryEscape(v)); r.Status >= 500 || r.Status < 200 {
						t.Errorf("GET %s with %.20q answered %d", path, v, r.Status)
					}
					requests++
				}
			}
		}
		after, _ := s.gameState(id)
		if after.Version != before.Version || after.Status != before.Status {
			t.Fatalf("hostile input moved the game from version %d (%s) to %d (%s)", before.Version, before.Status, after.Version, after.Status)
		}
		if _, err := s.store.UserByUsername(t.Context(), "ana"); err != nil {
			t.Fatalf("ana's account: %v", err)
		}
		// A refusal names the field and keeps nothing, on both databases.
		bob.post("/settings/tokens", url.Values{"name": {"zqxj\x00token"}, "scope": {"read"}}).mustSee(t, 422, "The field “name”", `<span class="who">(bob)</span>`)
		bob.post("/login", url.Values{"username": {"bob\xff"}, "password": {"bob password"}}).mustSee(t, 422, "The field “username”")
		if strings.Contains(bob.get("/settings").mustSee(t, 200).Body, "zqxj") {
			t.Fatal("a refused token was made")
		}
		t.Logf("%d hostile requests", requests)
	})
}

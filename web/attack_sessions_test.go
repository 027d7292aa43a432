package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
)

// cookie is the value of the session cookie c holds ("" for none).
func (c *client) cookie() string {
	u, _ := url.Parse(c.s.url)
	for _, k := range c.http.Jar.Cookies(u) {
		if k.Name == "dm_session" {
			return k.Value
		}
	}
	return ""
}

// plant sets the session cookie of c to value, as a script of a sibling
// site or someone at the keyboard could.
func (c *client) plant(value string) {
	u, _ := url.Parse(c.s.url)
	c.http.Jar.SetCookies(u, []*http.Cookie{{Name: "dm_session", Value: value, Path: "/"}})
}

// TestAttackSessionFixation: a session cookie set in a browser before its
// user signs in (a made-up value, or the attacker's own live session) is
// not the session the user gets: signing in, by password or by a sign-in
// link, gives a fresh value, and the planted value never reads as the
// user's account; the attacker's own session planted is ended.
func TestAttackSessionFixation(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		eve := s.client()
		eve.register("eve", "eve password")
		ana, _, id := s.anaAndBob()
		planted := eve.cookie()
		if planted == "" {
			t.Fatal("eve has no session cookie")
		}
		for _, tc := range []struct{ name, value string }{
			{"made up", strings.Repeat("A", 43)},
			{"the attacker's own session", planted},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, how := range []string{"password", "link"} {
					victim := s.client()
					victim.plant(tc.value)
					switch how {
					case "password":
						victim.login("ana", "ana password")
					case "link":
						now := s.clock.Now()
						link := notifier.SignInURL(s.url, s.secret, ana.ID, id, now.Add(time.Hour), now)
						page := victim.get(link)
						if tok := hiddenValue(t, page.Body, "t"); tok != "" {
							victim.post("/signin", url.Values{"t": {tok}})
						}
					}
					got := victim.cookie()
					if got == "" || got == tc.value {
						t.Fatalf("%s: the session cookie after signing in is %q (planted %q)", how, got, tc.value)
					}
					victim.get("/").mustSee(t, 200, "(ana)")
					thief := s.client()
					thief.plant(tc.value)
					if r := thief.get("/"); strings.Contains(r.Body, "(ana)") {
						t.Fatalf("%s: the planted cookie reads as ana's session", how)
					}
					if tc.value == planted && thief.signedIn() {
						t.Fatalf("%s: the attacker's session planted in ana's browser lives on", how)
					}
				}
			})
		}
	})
}

// TestAttackSessionCookieAltered: a session cookie altered (one character
// changed, cut, lengthened, another user's value glued on, bytes a cookie
// should not hold, 4 KB long) signs nobody in, is cleared, and gives no
// server error, on a page and on a form; the genuine cookie still works.
func TestAttackSessionCookieAltered(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	ana, bob := s.client(), s.client()
	ana.register("ana", "ana password")
	bob.register("bob", "bob password")
	good, other := ana.cookie(), bob.cookie()
	flip := func(v string, i int) string {
		b := []byte(v)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	for _, v := range []string{flip(good, 0), flip(good, len(good)-1), good[:len(good)-1], good + "A", good[:20] + other[20:],
		strings.ToUpper(good), "%00" + good, good + "%00", strings.Repeat("x", 4000), " ", "=="} {
		c := s.client()
		c.plant(v)
		r := c.get("/settings")
		if r.Status >= 500 || r.Status == http.StatusOK {
			t.Fatalf("cookie %q: GET /settings %d", clip(v), r.Status)
		}
		if p := c.post("/settings/time-zone", url.Values{"time_zone": {"Asia/Tokyo"}}); p.Status >= 500 || p.Status == http.StatusOK ||
			p.Status == http.StatusSeeOther && !strings.HasPrefix(p.Header.Get("Location"), "/login") {
			t.Fatalf("cookie %q: POST %d to %q", clip(v), p.Status, p.Header.Get("Location"))
		}
	}
	if tz := s.account("ana").TimeZone; tz != "Europe/Paris" {
		t.Fatalf("an altered cookie changed ana's time zone to %s", tz)
	}
	if tz := s.account("bob").TimeZone; tz != "Europe/Paris" {
		t.Fatalf("an altered cookie changed bob's time zone to %s", tz)
	}
	// An unknown value is cleared from the browser at once.
	c := s.client()
	c.plant(flip(good, 5))
	r := c.get("/")
	cleared := false
	for _, sc := range r.Header.Values("Set-Cookie") {
		if k, err := http.ParseSetCookie(sc); err == nil && k.Name == "dm_session" && k.MaxAge < 0 {
			cleared = true
		}
	}
	if !cleared {
		t.Fatalf("an unknown session cookie is not cleared: %q", r.Header.Values("Set-Cookie"))
	}
	if !ana.signedIn() || !bob.signedIn() {
		t.Fatal("the genuine cookies stopped working")
	}
}

// TestAttackSessionSignOutOnlyThis: signing out ends this browser's
// session and no other; the signed-out cookie, sent again at once from
// anywhere (on a board read just before, which this process remembers),
// reads as nobody; the cookie that clears it keeps the session cookie's
// flags (HttpOnly, SameSite, Secure over https, Path /).
func TestAttackSessionSignOutOnlyThis(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		laptop, phone := s.client(), s.client()
		laptop.register("ana", "ana password")
		phone.login("ana", "ana password")
		s.client().register("bob", "bob password")
		ana, bob := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
		id := s.startGame(ana, bob)
		path := "/games/" + itoa(id)
		for range 2 {
			laptop.get(path).mustSee(t, 200, "ana (you)")
			phone.get(path).mustSee(t, 200, "ana (you)")
		}
		old := laptop.cookie()
		laptop.post("/logout", nil).mustRedirect(t, "/login")
		if laptop.cookie() != "" {
			t.Fatal("the browser kept the cookie after signing out")
		}
		thief := s.client()
		thief.plant(old)
		if r := thief.get(path); r.Status != http.StatusSeeOther || strings.Contains(r.Body, "(you)") {
			t.Fatalf("the signed-out cookie read the board: %d", r.Status)
		}
		if r := thief.get(path + "/state"); r.Status == http.StatusOK {
			t.Fatalf("the signed-out cookie polled the game: %q", r.Body)
		}
		if thief.signedIn() {
			t.Fatal("the signed-out cookie still signs in")
		}
		phone.get(path).mustSee(t, 200, "ana (you)")
		if !phone.signedIn() {
			t.Fatal("signing out on the laptop ended the phone's session")
		}
	})
	s := newSite(t, models.SQLite, siteOptions{base: "https://dm.example"})
	r := s.client().post("/register", url.Values{"username": {"ana"}, "email": {"ana@example.com"}, "password": {"ana password"},
		"time_zone": {"UTC"}})
	set, err := http.ParseSetCookie(r.Header.Get("Set-Cookie"))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, s.url+"/logout", nil)
	req.Header.Set("Origin", "https://dm.example")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(&http.Cookie{Name: set.Name, Value: set.Value})
	out := s.client().do(req)
	k, err := http.ParseSetCookie(out.Header.Get("Set-Cookie"))
	if err != nil || k.Name != "__Host-dm_session" || k.MaxAge >= 0 || !k.HttpOnly || !k.Secure || k.Path != "/" ||
		k.SameSite != http.SameSiteLaxMode || k.Domain != "" {
		t.Fatalf("the cookie that signs out: %q (%v)", out.Header.Get("Set-Cookie"), err)
	}
	if _, _, err := s.store.SessionAccount(t.Context(), models.HashToken(set.Value)); err == nil {
		t.Fatal("the session lives on after signing out")
	}
}

// TestAttackSessionReplacedEnds: a browser signed in as eve registers a
// new account, or signs in as another. What must hold: the browser holds
// the new session only, and eve's session, whose cookie it no longer
// has, ends with it rather than living on until it expires.
func TestAttackSessionReplacedEnds(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		s.client().register("ana", "ana password")
		for _, how := range []string{"register", "login"} {
			b := s.client()
			b.register("eve"+how, "eve password")
			old := b.cookie()
			switch how {
			case "register":
				b.register("zed", "zed password")
			case "login":
				b.login("ana", "ana password")
			}
			if got := b.cookie(); got == "" || got == old {
				t.Fatalf("%s: the cookie after is %q", how, got)
			}
			thief := s.client()
			thief.plant(old)
			if thief.signedIn() {
				t.Fatalf("%s: the session the browser had lives on", how)
			}
			if !b.signedIn() {
				t.Fatalf("%s: the browser is not signed in", how)
			}
		}
	})
}

// TestAttackSessionLinkUsedAtOnce: one sign-in link posted by eight
// browsers at once (a mail scanner and the user, a forwarded mail) signs
// exactly one in; the others are told it was used, and none of them
// holds a session.
func TestAttackSessionLinkUsedAtOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, _, id := s.anaAndBob()
		for round := range 3 {
			now := s.clock.Now()
			link := notifier.SignInURL(s.url, s.secret, ana.ID, id, now.Add(time.Hour), now)
			tok := mustParseToken(t, link)
			clients := make([]*client, 8)
			codes := make([]int, len(clients))
			var wg sync.WaitGroup
			for i := range clients {
				clients[i] = s.client()
				wg.Add(1)
				go func() {
					defer wg.Done()
					codes[i] = clients[i].post("/signin", url.Values{"t": {tok}}).Status
				}()
			}
			wg.Wait()
			in := 0
			for i, c := range clients {
				switch {
				case codes[i] == http.StatusSeeOther && c.cookie() != "":
					in++
				case codes[i] == http.StatusSeeOther || codes[i] >= 500:
					t.Fatalf("round %d: a post of the link got %d", round, codes[i])
				}
			}
			if in != 1 {
				t.Fatalf("round %d: %d browsers signed in with one link (%v)", round, in, codes)
			}
			live := 0
			for _, c := range clients {
				if c.signedIn() {
					live++
				}
			}
			if live != 1 {
				t.Fatalf("round %d: %d sessions live", round, live)
			}
		}
	})
}

// TestAttackSessionLoginLimitAtOnce: wrong passwords for one account
// sent all at once, through the sign-in form and the API's login from
// many clients, get no more attempts than the limit (3) between them,
// and the right password is then refused too until the limit refills.
func TestAttackSessionLoginLimitAtOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{logins: 3, proxy: true})
		s.client().register("ana", "ana password")
		const n = 16
		codes := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				addr := "198.51.100." + itoa(int64(i+1)) // a client of its own: only the account's limit is shared
				if i%2 == 0 {
					req, _ := http.NewRequest(http.MethodPost, s.url+"/login", strings.NewReader(url.Values{"username": {"ana"},
						"password": {"wrong password"}}.Encode()))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					req.Header.Set("Sec-Fetch-Site", "same-origin")
					req.Header.Set("X-Forwarded-For", addr)
					r, err := http.DefaultClient.Do(req)
					if err == nil {
						codes[i] = r.StatusCode
						r.Body.Close()
					}
					return
				}
				req, _ := http.NewRequest(http.MethodPost, s.url+"/v1/auth/login", strings.NewReader(`{"username":"ana","password":"wrong password"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Forwarded-For", addr)
				r, err := http.DefaultClient.Do(req)
				if err == nil {
					codes[i] = r.StatusCode
					r.Body.Close()
				}
			}()
		}
		wg.Wait()
		tried := 0
		for _, c := range codes {
			switch c {
			case http.StatusUnauthorized:
				tried++
			case http.StatusTooManyRequests:
			default:
				t.Fatalf("codes %v", codes)
			}
		}
		if tried > 3 {
			t.Fatalf("%d wrong passwords were checked at once, over a limit of 3 (%v)", tried, codes)
		}
		if tried < 3 {
			t.Fatalf("only %d of the limit's 3 attempts were taken (%v)", tried, codes)
		}
		s.client().post("/login", url.Values{"username": {"ana"}, "password": {"ana password"}}).mustSee(t, http.StatusTooManyRequests)
		s.clock.Add(time.Minute)
		s.client().login("ana", "ana password")
	})
}

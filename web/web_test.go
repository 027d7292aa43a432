package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
)

// account reads name's account from the store.
func (s *site) account(name string) *models.Account {
	s.t.Helper()
	ctx := context.Background()
	u, err := s.store.UserByUsername(ctx, name)
	if err != nil {
		s.t.Fatal(err)
	}
	a, err := s.store.AccountByID(ctx, u.ID)
	if err != nil {
		s.t.Fatal(err)
	}
	return a
}

func TestRegisterVerifySignOutSignIn(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		c := s.client()
		c.get("/register").mustSee(t, 200, `name="username"`, `<option selected>UTC</option>`, "Europe/Paris")
		c.register("ana", "correct horse")
		c.get("/").mustSee(t, 200, "Your games", "Sign out", "ana")
		a := s.account("ana")
		if a.TimeZone != "Europe/Paris" || a.Email != "ana@example.com" || a.Verified() {
			t.Fatalf("account %+v", a)
		}

		// The verification link: its GET shows a button and changes nothing.
		link := s.waitMail("ana@example.com", "Verify your address").link(t, "/verify")
		anon := s.client()
		page := anon.get(link).mustSee(t, 200, "ana@example.com", `action="/verify"`)
		if s.account("ana").Verified() {
			t.Fatal("opening the link verified the address")
		}
		tok := hiddenValue(t, page.Body, "t")
		anon.post("/verify", url.Values{"t": {tok}}).mustRedirect(t, "/?done=verified")
		if !s.account("ana").Verified() {
			t.Fatal("the address is not verified")
		}
		anon.get(link).mustSee(t, 200, "verified already")

		// Out and in again.
		c.post("/logout", nil).mustRedirect(t, "/login?done=signedout")
		if c.signedIn() {
			t.Fatal("still signed in after signing out")
		}
		c.post("/login", url.Values{"username": {"ana"}, "password": {"wrong password"}}).mustSee(t, 401, "Unknown username or wrong password")
		c.post("/login", url.Values{"username": {"nobody"}, "password": {"wrong password"}}).mustSee(t, 401, "Unknown username or wrong password")
		c.post("/login", url.Values{"username": {"ana"}, "password": {"correct horse"}, "next": {"/settings"}}).mustRedirect(t, "/settings")
		if !c.signedIn() {
			t.Fatal("not signed in")
		}
		// A sign-in never sends anyone to another site.
		c.post("/login", url.Values{"username": {"ana"}, "password": {"correct horse"}, "next": {"//evil.example/x"}}).mustRedirect(t, "/")
		if loc := c.post("/login", url.Values{"username": {"ana"}, "password": {"correct horse"}, "next": {"https://evil.example"}}).Header.Get("Location"); loc != "/" {
			t.Fatalf("next to another site: %q", loc)
		}
	})
}

func TestRegisterRejectsBadInput(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) { testRegisterRejectsBadInput(t, d) })
}

func testRegisterRejectsBadInput(t *testing.T, d models.Dialect) {
	s := newSite(t, d, siteOptions{})
	c := s.client()
	c.register("bob", "correct horse")
	anon := s.client()
	for _, tc := range []struct {
		form   url.Values
		status int
		says   string
	}{
		{url.Values{"username": {"B!"}, "email": {"b@example.com"}, "password": {"long enough"}, "time_zone": {"UTC"}}, 422, "Use 3 to 32 characters"},
		{url.Values{"username": {"carl"}, "email": {"not an address"}, "password": {"long enough"}, "time_zone": {"UTC"}}, 422, "Enter an email address"},
		{url.Values{"username": {"carl"}, "email": {"c@example.com"}, "password": {"short"}, "time_zone": {"UTC"}}, 422, "Use 8 to 256 characters"},
		{url.Values{"username": {"carl"}, "email": {"c@example.com"}, "password": {"long enough"}, "time_zone": {"Mars/Olympus"}}, 422, "Choose a time zone"},
		{url.Values{"username": {"carl"}, "email": {"c@example.com"}, "password": {"long enough"}, "time_zone": {"Local"}}, 422, "Choose a time zone"},
		{url.Values{"username": {"bob"}, "email": {"b@example.com"}, "password": {"long enough"}, "time_zone": {"UTC"}}, 409, "This username is taken"},
	} {
		r := anon.post("/register", tc.form).mustSee(t, tc.status, tc.says, `aria-invalid="true"`)
		if strings.Contains(r.Body, "long enough") {
			t.Fatal("the page shows the password again")
		}
	}
	// Every field wrong: the page says all of it at once, each beside its
	// field and in the list at the top.
	r := anon.post("/register", url.Values{"username": {"B!"}, "email": {"nope"}, "password": {"short"}, "time_zone": {"Mars/Olympus"}})
	r.mustSee(t, 422, "Use 3 to 32 characters", "Enter an email address", "Use 8 to 256 characters", "Choose a time zone",
		`href="#f-username"`, `href="#f-email"`, `href="#f-password"`, `href="#f-time_zone"`, "these fields need a change")
	if n := strings.Count(r.Body, `aria-invalid="true"`); n != 4 {
		t.Fatalf("%d fields marked invalid, want 4", n)
	}
	if anon.signedIn() {
		t.Fatal("a refused registration signed in")
	}
}

func TestSessionCookieFlags(t *testing.T) {
	for _, tc := range []struct {
		base, name string
		secure     bool
	}{{"", "dm_session", false}, {"https://dm.example", "__Host-dm_session", true}} {
		s := newSite(t, models.SQLite, siteOptions{base: tc.base})
		r := s.client().post("/register", url.Values{"username": {"ana"}, "email": {"ana@example.com"}, "password": {"correct horse"},
			"time_zone": {"UTC"}})
		r.mustRedirect(t, "/")
		sc := r.Header.Values("Set-Cookie")
		if len(sc) != 1 {
			t.Fatalf("Set-Cookie: %q", sc)
		}
		c, err := http.ParseSetCookie(sc[0])
		if err != nil {
			t.Fatal(err)
		}
		if c.Name != tc.name || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure != tc.secure || c.Path != "/" ||
			c.Domain != "" || c.MaxAge < 7*24*3600 || len(c.Value) < 40 {
			t.Fatalf("base %q: cookie %q", tc.base, sc[0])
		}
		// The database holds the value's hash, not the value.
		if _, _, err := s.store.SessionAccount(context.Background(), []byte(c.Value)); err == nil {
			t.Fatal("the session is found by the cookie's value itself")
		}
		if a, _, err := s.store.SessionAccount(context.Background(), models.HashToken(c.Value)); err != nil || a.Username != "ana" {
			t.Fatalf("session by hash: %v, %v", a, err)
		}
	}
}

func TestCrossSitePostsRefused(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	c := s.client()
	c.register("ana", "correct horse")
	tz := func() string { return s.account("ana").TimeZone }
	form := url.Values{"time_zone": {"Asia/Tokyo"}}
	for _, tc := range []struct{ origin, site string }{
		{"", "cross-site"},
		{"https://evil.example", "cross-site"},
		{"https://evil.example", ""}, // an older browser: Origin only
		{"", "same-site"},            // a sibling subdomain
	} {
		c.postFrom("/settings/time-zone", form, tc.origin, tc.site).mustSee(t, 403, "Request refused")
		if tz() != "Europe/Paris" {
			t.Fatalf("a cross-site post (%+v) changed the time zone", tc)
		}
	}
	c.postFrom("/logout", nil, "https://evil.example", "cross-site").mustSee(t, 403)
	c.postFrom("/login", url.Values{"username": {"ana"}, "password": {"correct horse"}}, "https://evil.example", "cross-site").mustSee(t, 403)
	if !c.signedIn() {
		t.Fatal("a cross-site log-out ended the session")
	}
	// The same form from the site itself goes through.
	c.postFrom("/settings/time-zone", form, s.url, "same-origin").mustRedirect(t, "/settings?done=time-zone")
	if tz() != "Asia/Tokyo" {
		t.Fatal("a same-origin post did not change the time zone")
	}
	// So does one from a client that is no browser (no Origin, no
	// Sec-Fetch-Site): it carries no one's cookie by accident.
	c.postFrom("/settings/time-zone", url.Values{"time_zone": {"UTC"}}, "", "").mustRedirect(t, "/settings")
}

func TestPasswordResetEndsEverySession(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		laptop, phone := s.client(), s.client()
		laptop.register("ana", "old password")
		verify(t, s, "ana")
		phone.login("ana", "old password")
		var refresh struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
		}
		s.apiCall(http.MethodPost, "/v1/auth/login", "", map[string]string{"username": "ana", "password": "old password"}, &refresh)

		// A third browser asks for a link by address.
		other := s.client()
		other.get("/reset").mustSee(t, 200, `name="who"`)
		other.post("/reset", url.Values{"who": {"ana@example.com"}}).mustSee(t, 200, "Check your mail")
		link := s.waitMail("ana@example.com", "Set a new password").link(t, "/reset/new")
		page := other.get(link).mustSee(t, 200, "Choose a new password", "ana")
		if !laptop.signedIn() {
			t.Fatal("opening the reset link ended a session")
		}
		tok := hiddenValue(t, page.Body, "t")
		other.post("/reset/new", url.Values{"t": {tok}, "password": {"new password"}, "confirm": {"other"}}).mustSee(t, 422, "The two passwords differ")
		other.post("/reset/new", url.Values{"t": {tok}, "password": {"new password"}, "confirm": {"new password"}}).mustRedirect(t, "/?done=reset")

		if !other.signedIn() {
			t.Fatal("the browser that set the password is not signed in")
		}
		if laptop.signedIn() || phone.signedIn() {
			t.Fatal("a session from before the reset is still signed in")
		}
		req, _ := http.NewRequest(http.MethodPost, s.url+"/v1/auth/refresh", strings.NewReader(`{"refresh_token":"`+refresh.RefreshToken+`"}`))
		req.Header.Set("Content-Type", "application/json")
		if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 401 {
			t.Fatalf("the API's refresh token after the reset: %v %v", r.Status, err)
		}
		if code := apiStatus(t, s, refresh.AccessToken); code != 401 {
			t.Fatalf("the API's access token after the reset: %d", code)
		}
		// The link worked once.
		other.get(link).mustSee(t, 400, "This link is not valid")
		other.post("/reset/new", url.Values{"t": {tok}, "password": {"third password"}, "confirm": {"third password"}}).mustSee(t, 400)
		laptop.post("/login", url.Values{"username": {"ana"}, "password": {"old password"}}).mustSee(t, 401)
		laptop.login("ana", "new password")
	})
}

// TestAPIPasswordChangeEndsBrowserSessions: a password changed through the
// API ends the browser sessions of the account too.
func TestAPIPasswordChangeEndsBrowserSessions(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		laptop := s.client()
		laptop.register("ana", "old password")
		ana := s.apiLogin("ana", "old password")
		if code := s.apiCall(http.MethodPost, "/v1/me/password", ana.Access,
			map[string]string{"current_password": "old password", "new_password": "new password"}, nil); code != http.StatusOK {
			t.Fatalf("the password change: %d", code)
		}
		if laptop.signedIn() {
			t.Fatal("a browser session from before the API's password change is still signed in")
		}
		laptop.login("ana", "new password")
	})
}

// TestSignOutEverywhereEndsAPISessions: "sign out everywhere" on the
// settings page ends the account's API sessions too (access and refresh
// tokens), not only its browser sessions.
func TestSignOutEverywhereEndsAPISessions(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		laptop, phone := s.client(), s.client()
		laptop.register("ana", "a password")
		phone.login("ana", "a password")
		var api struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
		}
		s.apiCall(http.MethodPost, "/v1/auth/login", "", map[string]string{"username": "ana", "password": "a password"}, &api)
		laptop.post("/settings/sessions/end", url.Values{}).mustRedirect(t, "/login?done=ended")
		if phone.signedIn() || laptop.signedIn() {
			t.Fatal("a browser is still signed in")
		}
		if code := apiStatus(t, s, api.AccessToken); code != 401 {
			t.Fatalf("the API's access token: %d", code)
		}
		req, _ := http.NewRequest(http.MethodPost, s.url+"/v1/auth/refresh", strings.NewReader(`{"refresh_token":"`+api.RefreshToken+`"}`))
		req.Header.Set("Content-Type", "application/json")
		if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 401 {
			t.Fatalf("the API's refresh token: %v %v", r.Status, err)
		}
	})
}

func TestResetLinksGoOnlyToVerifiedAddresses(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	s.client().register("ana", "old password")
	s.client().register("bob", "old password")
	verify(t, s, "bob")
	before := len(s.mails())
	anon := s.client()
	for _, who := range []string{"ana", "ana@example.com", "nobody", "nobody@example.com"} {
		anon.post("/reset", url.Values{"who": {who}}).mustSee(t, 200, "Check your mail")
	}
	if n := len(s.mails()); n != before {
		t.Fatalf("%d reset mails to unverified or unknown accounts", n-before)
	}
	anon.post("/reset", url.Values{"who": {"bob"}}).mustSee(t, 200, "Check your mail")
	l := s.waitMail("bob@example.com", "Set a new password")
	// A reset link expires after an hour.
	link := l.link(t, "/reset/new")
	s.clock.Add(61 * time.Minute)
	anon.get(link).mustSee(t, 410, "This link expired")
}

// verify verifies name's address through the link of the newest
// verification mail.
func verify(t *testing.T, s *site, name string) {
	t.Helper()
	c := s.client()
	page := c.get(s.waitMail(name+"@example.com", "Verify your address").link(t, "/verify")).mustSee(t, 200)
	c.post("/verify", url.Values{"t": {hiddenValue(t, page.Body, "t")}}).mustRedirect(t, "/?done=verified")
}

// hiddenValue returns the value of the page's hidden input name.
func hiddenValue(t testing.TB, body, name string) string {
	t.Helper()
	marker := `<input type="hidden" name="` + name + `" value="`
	i := strings.Index(body, marker)
	if i < 0 {
		t.Fatalf("no hidden %q in:\n%s", name, clip(body))
	}
	rest := body[i+len(marker):]
	v := rest[:strings.IndexByte(rest, '"')]
	return strings.ReplaceAll(v, "&#43;", "+")
}

func TestSignInLinks(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, _, id := s.anaAndBob()
		now := s.clock.Now()
		link := notifier.SignInURL(s.url, s.secret, ana.ID, id, now.Add(48*time.Hour), now)

		// Opening the link changes nothing: a mail scanner may open it.
		first := s.client()
		page := first.get(link).mustSee(t, 200, "Open Game #"+itoa(id), "ana", `action="/signin"`)
		if page.Header.Get("Set-Cookie") != "" || first.signedIn() {
			t.Fatal("opening a sign-in link signed in")
		}
		first.get(link).mustSee(t, 200, "Open Game #")
		tok := hiddenValue(t, page.Body, "t")
		first.post("/signin", url.Values{"t": {tok}}).mustRedirect(t, "/games/"+itoa(id))
		first.get("/games/"+itoa(id)).mustSee(t, 200, "Game #"+itoa(id), "In play", "ana (you)")
		// Signed in already, the link goes straight to the game.
		first.get(link).mustRedirect(t, "/games/"+itoa(id))

		// A second use, here or forwarded, asks for the password and signs
		// nobody in.
		second := s.client()
		second.get(link).mustSee(t, 200, "This link was used already", `name="password"`, `value="ana"`, `value="/games/`+itoa(id)+`"`)
		second.post("/signin", url.Values{"t": {tok}}).mustSee(t, 200, "This link was used already")
		if second.signedIn() {
			t.Fatal("a used link signed in")
		}
		second.post("/login", url.Values{"username": {"ana"}, "password": {"ana password"}, "next": {"/games/" + itoa(id)}, "fixed": {"1"}}).
			mustRedirect(t, "/games/"+itoa(id))

		// Someone signed in as another user is asked for the recipient's
		// password, even for a fresh link.
		fresh := notifier.SignInURL(s.url, s.secret, ana.ID, id, time.Time{}, now)
		asBob := s.client()
		asBob.login("bob", "bob password")
		page = asBob.get(fresh).mustSee(t, 200, "This link is for ana", "You are signed in as <strong>bob</strong>")
		asBob.post("/signin", url.Values{"t": {mustParseToken(t, fresh)}}).mustSee(t, 200, "This link is for ana")
		asBob.get("/").mustSee(t, 200, "(bob)")
		if used, _ := s.store.LinkUsed(context.Background(), mustParse(t, fresh).Nonce); used {
			t.Fatal("the page for another user used the link")
		}

		// Forged, cut or misused links are not valid.
		anon := s.client()
		for _, bad := range []string{tok[:len(tok)-2] + "AA", tok[:10], "", "x" + tok, strings.Repeat("A", 300)} {
			anon.get("/signin?t="+url.QueryEscape(bad)).mustSee(t, 400, "This link is not valid")
		}
		verifyTok := notifier.Link{Purpose: notifier.LinkVerify, UserID: ana.ID, GameID: id, Expires: now.Add(time.Hour), Nonce: notifier.NewNonce()}.Sign(s.secret, nil)
		anon.get("/signin?t="+verifyTok).mustSee(t, 400, "This link is not valid")
		other := notifier.SignInURL(s.url, []byte("another secret, not the site's one"), ana.ID, id, time.Time{}, now)
		anon.post("/signin", url.Values{"t": {mustParseToken(t, other)}}).mustSee(t, 400)
		if anon.signedIn() {
			t.Fatal("a bad link signed in")
		}
	})
}

func TestSignInLinkExpires(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	ana, _, id := s.anaAndBob()
	now := s.clock.Now()
	deadline := notifier.SignInURL(s.url, s.secret, ana.ID, id, now.Add(time.Hour), now)
	week := notifier.SignInURL(s.url, s.secret, ana.ID, id, now.Add(30*24*time.Hour), now)
	if l := mustParse(t, deadline); l.Expires.Before(now.Add(time.Hour)) || l.Expires.After(now.Add(time.Hour+time.Second)) {
		t.Fatalf("a link before the deadline expires at %v", l.Expires)
	}
	if l := mustParse(t, week); l.Expires.After(now.Add(notifier.SignInTTL + time.Second)) {
		t.Fatalf("a link expires after %v", l.Expires.Sub(now))
	}
	c := s.client()
	tok := mustParseToken(t, deadline)
	s.clock.Add(time.Hour + 2*time.Second)
	c.get(deadline).mustSee(t, 410, "This link expired", `name="password"`, `value="ana"`)
	c.post("/signin", url.Values{"t": {tok}}).mustSee(t, 410, "This link expired")
	if c.signedIn() {
		t.Fatal("an expired link signed in")
	}
	c.get(week).mustSee(t, 200, "Open Game #")
	s.clock.Add(notifier.SignInTTL)
	c.get(week).mustSee(t, 410, "This link expired")
}

func mustParseToken(t testing.TB, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("t")
}

func mustParse(t testing.TB, link string) notifier.Link {
	t.Helper()
	l, err := notifier.ParseLink(mustParseToken(t, link))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestGamePages(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	for _, n := range []string{"ana", "bob", "eve"} {
		s.client().register(n, n+" password")
	}
	ana, bob := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
	id := s.startGame(ana, bob)
	path := "/games/" + itoa(id)
	s.client().get(path).mustRedirect(t, "/login?next=%2Fgames%2F"+itoa(id))
	eve := s.client()
	eve.login("eve", "eve password")
	eve.get(path).mustSee(t, 404, "Page not found")
	a := s.client()
	a.login("ana", "ana password")
	a.get(path).mustSee(t, 200, "In play", "ana (you)", "bob", "Deadline:")
	home := a.get("/").mustSee(t, 200, `href="/games/`+itoa(id)+`"`)
	if strings.Count(home.Body, `href="/games/`) != 1 {
		t.Fatalf("the home page lists the game %d times", strings.Count(home.Body, `href="/games/`))
	}
	a.get("/games/999999").mustSee(t, 404)
	a.get("/games/x").mustSee(t, 404)
}

func TestNotFound(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	r := s.client().get("/no/such/page").mustSee(t, 404, "Page not found", "<html")
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("content type %q", r.Header.Get("Content-Type"))
	}
	r = s.client().get("/v1/no/such/route")
	if r.Status != 404 || r.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("the API's not found: %d %q", r.Status, r.Header.Get("Content-Type"))
	}
	s.client().get("/assets/nothing.css").mustSee(t, 404)
}

// TestFormsAreRateLimited: the sign-in form shares the API's login budget
// per client and username, and registrations and reset requests have
// budgets of their own.
func TestFormsAreRateLimited(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{logins: 3})
	c := s.client()
	c.register("ana", "ana password")
	bad := url.Values{"username": {"ana"}, "password": {"wrong password"}}
	// Two attempts through the API, one through the page: the budget of 3
	// is spent.
	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, s.url+"/v1/auth/login", strings.NewReader(`{"username":"ana","password":"wrong password"}`))
		req.Header.Set("Content-Type", "application/json")
		r, err := http.DefaultClient.Do(req)
		if err != nil || r.StatusCode != 401 {
			t.Fatalf("API login: %v %v", r, err)
		}
		r.Body.Close()
	}
	c.post("/login", bad).mustSee(t, 401)
	r := c.post("/login", url.Values{"username": {"ana"}, "password": {"ana password"}}).mustSee(t, 429, "Too many attempts")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	// Another username from the same client still has its budget.
	c.post("/login", url.Values{"username": {"bob"}, "password": {"x"}}).mustSee(t, 401)

	for i := range 2 { // one registration above
		s.client().post("/register", url.Values{"username": {"user" + itoa(int64(i))}, "email": {"u@example.com"}, "password": {"long enough"},
			"time_zone": {"UTC"}}).mustRedirect(t, "/")
	}
	s.client().post("/register", url.Values{"username": {"user9"}, "email": {"u@example.com"}, "password": {"long enough"},
		"time_zone": {"UTC"}}).mustSee(t, 429)
	for range 3 {
		s.client().post("/reset", url.Values{"who": {"ana"}}).mustSee(t, 200)
	}
	s.client().post("/reset", url.Values{"who": {"bob"}}).mustSee(t, 429) // this client's budget is spent
	// After a minute the right password goes through.
	s.clock.Add(time.Minute)
	c.post("/login", url.Values{"username": {"ana"}, "password": {"ana password"}}).mustRedirect(t, "/")
}

// TestResetRequestsAreLimitedPerAccount: reset requests for one account
// from many clients are limited too, so nobody fills its mailbox.
func TestResetRequestsAreLimitedPerAccount(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{logins: 3, proxy: true})
	from := func(ip, who string) int {
		req, _ := http.NewRequest(http.MethodPost, s.url+"/reset", strings.NewReader("who="+who))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", ip)
		return s.client().do(req).Status
	}
	for i := range 3 {
		if st := from(fmt.Sprintf("203.0.113.%d", i), "ana"); st != 200 {
			t.Fatalf("reset %d: %d", i, st)
		}
	}
	if st := from("203.0.113.50", "ana"); st != 429 {
		t.Fatalf("a fourth reset for ana, from a fourth client: %d", st)
	}
	if st := from("203.0.113.50", "bob"); st != 200 {
		t.Fatalf("a reset for bob from that client: %d", st)
	}
}

// TestSettings changes every setting through the forms, and checks each
// change where the API and the store see it.
func TestSettings(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		c := s.client()
		c.register("ana", "ana password")
		ana := s.apiLogin("ana", "ana password")
		s.client().get("/settings").mustRedirect(t, "/login?next=%2Fsettings")
		page := c.get("/settings").mustSee(t, 200, `value="ana@example.com"`, "is not verified yet", "<option selected>Europe/Paris</option>",
			`value="your_turn/email" checked`, `value="digest/email">`, "You have no API tokens.")
		key := hiddenValue(t, page.Body, "key")
		// Every row of the notifications has a name; the switch of
		// playing by reply is not offered where replies cannot come in.
		if rows := regexp.MustCompile(`<tr><th scope="row">([^<]*)</th>`).FindAllStringSubmatch(page.Body, -1); len(rows) != len(notifier.Kinds) {
			t.Fatalf("%d named rows for %d kinds", len(rows), len(notifier.Kinds))
		} else {
			for _, r := range rows {
				if strings.TrimSpace(r[1]) == "" {
					t.Fatalf("a row without a name: %q", r[0])
				}
			}
		}
		if strings.Contains(page.Body, "email-replies") {
			t.Fatal("the settings offer playing by reply on a server that takes no replies")
		}
		replies := newSite(t, d, siteOptions{replies: true})
		rc := replies.client()
		rc.register("ana", "ana password")
		rc.get("/settings").mustSee(t, 200, `action="/settings/email-replies"`, "Play by replying to emails")

		// Time zone.
		c.post("/settings/time-zone", url.Values{"time_zone": {"Nowhere/Else"}}).mustSee(t, 422, "Choose a time zone from the list")
		c.post("/settings/time-zone", url.Values{"time_zone": {"Asia/Tokyo"}}).mustRedirect(t, "/settings?done=time-zone")
		c.get("/settings?done=time-zone").mustSee(t, 200, "Your time zone is saved.", "<option selected>Asia/Tokyo</option>")

		// Notifications: the boxes sent are on, the others off, as the API
		// says.
		on := url.Values{"pref": {"your_turn/email", "digest/email", "game_over/webhook"}}
		c.post("/settings/notifications", on).mustRedirect(t, "/settings?done=notify")
		var prefs struct {
			Preferences []struct {
				Kind, Channel string
				Enabled       bool
			}
		}
		s.apiCall(http.MethodGet, "/v1/me/notification-preferences", ana.Access, nil, &prefs)
		for _, p := range prefs.Preferences {
			want := on.Has("pref") && strings.Contains(strings.Join(on["pref"], " "), p.Kind+"/"+p.Channel)
			if p.Enabled != want {
				t.Fatalf("%s by %s: enabled %v", p.Kind, p.Channel, p.Enabled)
			}
		}
		c.post("/settings/notifications", url.Values{"pref": {"nonsense/email"}}).mustSee(t, 303)

		// A vacation, in whole days of the user's zone.
		tokyo := mustZone(t, "Asia/Tokyo")
		today := s.clock.Now().In(tokyo)
		first, last := today.AddDate(0, 0, 1), today.AddDate(0, 0, 2)
		if last.Year() != today.Year() {
			first, last = today, today
		}
		c.post("/settings/vacations", url.Values{"key": {key}, "first_day": {last.Format(time.DateOnly)}, "last_day": {first.Format(time.DateOnly)}}).
			mustSee(t, 422, "The last day comes before the first")
		form := url.Values{"key": {key}, "first_day": {first.Format(time.DateOnly)}, "last_day": {last.Format(time.DateOnly)}}
		c.post("/settings/vacations", form).mustRedirect(t, "/settings?done=vacation")
		c.post("/settings/vacations", form).mustRedirect(t, "/settings?done=vacation") // sent twice: booked once
		var vs struct {
			Vacations []struct {
				StartsAt time.Time `json:"starts_at"`
			}
		}
		s.apiCall(http.MethodGet, "/v1/me/vacations", ana.Access, nil, &vs)
		if len(vs.Vacations) != 1 {
			t.Fatalf("%d vacations", len(vs.Vacations))
		}
		wantStart := time.Date(first.Year(), first.Month(), first.Day(), 0, 0, 0, 0, tokyo)
		if first.Equal(today) {
			wantStart = vs.Vacations[0].StartsAt
		}
		if got := vs.Vacations[0].StartsAt; !got.Equal(wantStart) {
			t.Fatalf("the vacation starts %v, want %v", got, wantStart)
		}
		c.get("/settings").mustSee(t, 200, "From ", "to the end of "+last.Format("Mon 2 Jan 2006"))
		// Ended (here: cancelled, it has not begun) from the page.
		var booked struct {
			Vacations []struct {
				ID int64 `json:"id"`
			}
		}
		s.apiCall(http.MethodGet, "/v1/me/vacations", ana.Access, nil, &booked)
		c.post("/settings/vacations/"+itoa(booked.Vacations[0].ID)+"/end", url.Values{}).mustRedirect(t, "/settings?done=vacation-ended")
		s.apiCall(http.MethodGet, "/v1/me/vacations", ana.Access, nil, &vs)
		if len(vs.Vacations) != 0 {
			t.Fatalf("%d vacations after ending it", len(vs.Vacations))
		}
		c.get("/settings?done=vacation-ended").mustSee(t, 200, "Your vacation is over")

		// API tokens: the secret is shown once.
		c.post("/settings/tokens", url.Values{"key": {key}, "name": {""}, "scope": {"read"}}).mustSee(t, 422, "Name the token")
		c.post("/settings/tokens", url.Values{"key": {key}, "name": {"bot"}}).mustSee(t, 422, "Tick at least one")
		r := c.post("/settings/tokens", url.Values{"key": {"t" + key}, "name": {"bot"}, "scope": {"read", "play"}}).mustSee(t, 201, "Your new API token")
		if !strings.Contains(r.Header.Get("Cache-Control"), "no-store") {
			t.Fatal("the page with the token may be cached")
		}
		secret := r.Body[strings.Index(r.Body, "dmp_"):]
		secret = secret[:strings.IndexByte(secret, '"')]
		if code := apiStatus(t, s, secret); code != 200 {
			t.Fatalf("the new token: %d", code)
		}
		list := c.get("/settings").mustSee(t, 200, "bot", "play, read")
		if strings.Contains(list.Body, secret) {
			t.Fatal("the settings show the secret again")
		}
		var toks struct {
			Tokens []struct{ ID int64 }
		}
		s.apiCall(http.MethodGet, "/v1/tokens", ana.Access, nil, &toks)
		c.post("/settings/tokens/"+itoa(toks.Tokens[0].ID)+"/revoke", nil).mustRedirect(t, "/settings?done=revoked")
		c.post("/settings/tokens/"+itoa(toks.Tokens[0].ID)+"/revoke", nil).mustSee(t, 404)
		if code := apiStatus(t, s, secret); code != 401 {
			t.Fatalf("the revoked token: %d", code)
		}

		// The address: a new one is not verified, and gets a link.
		verify(t, s, "ana")
		c.get("/settings").mustSee(t, 200, "ana@example.com is verified.")
		c.post("/settings/email", url.Values{"email": {"not an address"}}).mustSee(t, 422, "Enter an email address", `value="not an address"`)
		c.post("/settings/email", url.Values{"email": {"ana@new.example"}}).mustRedirect(t, "/settings?done=email")
		if a := s.account("ana"); a.Email != "ana@new.example" || a.Verified() {
			t.Fatalf("account after the change %+v", a)
		}
		s.waitMail("ana@new.example", "Verify your address")
		c.post("/settings/verify", nil).mustRedirect(t, "/settings?done=sent")
	})
}

func TestWrongMethodPage(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	r := s.client().get("/logout").mustSee(t, 405, "Not here", "<html")
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("content type %q", r.Header.Get("Content-Type"))
	}
	req, _ := http.NewRequest(http.MethodDelete, s.url+"/v1/auth/login", nil)
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != 405 || r.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("the API's wrong method: %v %v", r, err)
	}
}

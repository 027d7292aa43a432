package web_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// browserDialect is Postgres when TEST_DATABASE_URL is set (as in CI),
// else SQLite.
func browserDialect() models.Dialect {
	ds := modelstest.Dialects()
	return ds[len(ds)-1]
}

const submit = "main form button[type=submit]"

// TestBrowserAccounts is a new user's first visit, in a real browser: they
// register, verify their address from the mail, sign out and in, change
// their settings, and set a new password from another browser, which
// signs the first one out. Every page passes axe-core and can be worked
// with the keyboard.
func TestBrowserAccounts(t *testing.T) {
	root := browser(t)
	axe := needAxe(t)
	s := newSite(t, browserDialect(), siteOptions{})
	tabs := s.tabs(t, root, "ana", "other")
	ana, other := tabs[0], tabs[1]

	ana.open("/")
	ana.see("Data Monsters", "Create an account")
	ana.axe(axe)
	ana.look("home")
	ana.press("a.button[href='/register']")
	ana.axe(axe)
	ana.tabThrough()
	ana.look("register")
	ana.fill("f-username", "ana")
	ana.fill("f-email", "ana@example.com")
	ana.fill("f-password", "correct horse")
	ana.choose("f-time_zone", "Europe/Paris")
	if st := ana.press(submit); st != 200 || ana.path() != "/?done=registered" {
		t.Fatalf("after registering: %d %s", st, ana.path())
	}
	ana.see("Welcome!", "Your games", "Sign out")
	ana.axe(axe)

	// A mistake shows the form again, the field marked.
	other.open("/register")
	other.fill("f-username", "ana")
	other.fill("f-email", "x@example.com")
	other.fill("f-password", "long enough")
	if st := other.press(submit); st != 409 {
		t.Fatalf("a taken username: %d", st)
	}
	other.see("This username is taken")
	other.axe(axe)
	other.look("register-error")

	// The address, verified from the mail.
	ana.open(s.waitMail("ana@example.com", "Verify your address").link(t, "/verify"))
	ana.see("Confirm that ana@example.com is the address of ana")
	ana.axe(axe)
	ana.look("verify")
	ana.press(submit)
	ana.see("Your address is verified.")

	// Out and in.
	ana.press("header form button")
	if ana.path() != "/login?done=signedout" {
		t.Fatalf("after signing out: %s", ana.path())
	}
	ana.see("You are signed out.", "Sign in")
	ana.axe(axe)
	ana.tabThrough()
	ana.look("login")
	ana.fill("f-username", "ana")
	ana.fill("f-password", "wrong password")
	if st := ana.press(submit); st != 401 {
		t.Fatalf("a wrong password: %d", st)
	}
	ana.see("Unknown username or wrong password.")
	ana.fill("f-password", "correct horse")
	ana.press(submit)
	ana.see("Your games")

	// Settings.
	ana.press("nav a[href='/settings']")
	ana.see("Settings", "ana@example.com is verified.", "Europe/Paris")
	ana.axe(axe)
	ana.tabThrough()
	ana.look("settings")
	id := s.account("ana").ID

	ana.choose("f-time_zone", "America/New_York")
	ana.press("form[action='/settings/time-zone'] button")
	ana.see("Your time zone is saved.")
	if z := s.account("ana").TimeZone; z != "America/New_York" {
		t.Fatalf("time zone %q", z)
	}

	ana.run(chromedp.Click(chromedp.CSS("input[value='your_turn/email']")))
	ana.press("form[action='/settings/notifications'] button")
	ana.see("Your notification preferences are saved.")
	prefs, err := s.store.Preferences(context.Background(), []int64{id})
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(prefs, func(p models.Preference) bool { return p.Kind == "your_turn" && p.Channel == "email" }); i < 0 || prefs[i].Enabled {
		t.Fatalf("your_turn by email is not off: %+v", prefs)
	}
	if checked, _ := chromedp.Run(ana.ctx, chromedp.Evaluate[bool](`document.querySelector("input[value='your_turn/email']").checked`)); checked {
		t.Fatal("the box shows your_turn by email on")
	}

	now := s.clock.Now().In(mustZone(t, "America/New_York"))
	last := now.AddDate(0, 0, 2)
	if last.Year() != now.Year() {
		last = now
	}
	ana.run(chromedp.SetValue(chromedp.ID("f-last_day"), last.Format(time.DateOnly)))
	ana.press("form[action='/settings/vacations'] button")
	ana.see("Your vacation is booked.", "From ")
	ana.look("vacation")

	ana.fill("f-name", "my bot")
	ana.run(chromedp.Click(chromedp.ID("scope-play")))
	if st := ana.press("form[action='/settings/tokens'] button"); st != 201 {
		t.Fatalf("creating a token: %d", st)
	}
	ana.see("Your new API token", "my bot")
	ana.axe(axe)
	ana.look("token")
	secret, err := chromedp.Run(ana.ctx, chromedp.Value(chromedp.ID("token-value")))
	if err != nil || !strings.HasPrefix(secret, "dmp_") {
		t.Fatalf("token %q, %v", secret, err)
	}
	if code := apiStatus(t, s, secret); code != 200 {
		t.Fatalf("the new token: GET /v1/me answers %d", code)
	}
	ana.open("/settings")
	if strings.Contains(ana.text(), secret) {
		t.Fatal("the token is shown again")
	}
	ana.press("button[aria-label='Revoke the token my bot']")
	ana.see("The API token is revoked.", "You have no API tokens.")
	if code := apiStatus(t, s, secret); code != 401 {
		t.Fatalf("the revoked token: GET /v1/me answers %d", code)
	}

	// A new password, set from another browser, signs ana out here.
	other.open("/login")
	other.press("a[href='/reset']")
	other.axe(axe)
	other.look("reset")
	other.fill("f-who", "ana")
	other.press(submit)
	other.see("Check your mail")
	other.axe(axe)
	other.open(s.waitMail("ana@example.com", "Set a new password").link(t, "/reset/new"))
	other.see("Choose a new password", "ana")
	other.axe(axe)
	other.look("new-password")
	other.fill("f-password", "battery staple")
	other.fill("f-confirm", "battery staple")
	other.press(submit)
	other.see("Your new password is set. Every other sign-in has ended.")

	ana.open("/settings")
	if p := ana.path(); p != "/login?next=%2Fsettings" {
		t.Fatalf("after the reset elsewhere, /settings shows %s", p)
	}
	ana.fill("f-username", "ana")
	ana.fill("f-password", "battery staple")
	ana.press(submit)
	if ana.path() != "/settings" {
		t.Fatalf("signing in came back to %s", ana.path())
	}

	// A new address needs verifying again.
	ana.fill("f-email", "ana.new@example.com")
	ana.press("form[action='/settings/email'] button")
	ana.see("Your address is changed.", "ana.new@example.com is not verified yet.")
	s.waitMail("ana.new@example.com", "Verify your address")

	// Signing out everywhere ends the other browser's session too.
	ana.press("form[action='/settings/sessions/end'] button")
	ana.see("You are signed out everywhere.")
	other.open("/settings")
	if !strings.HasPrefix(other.path(), "/login") {
		t.Fatalf("the other browser is still signed in: %s", other.path())
	}

	if st := ana.open("/no/such/page"); st != 404 {
		t.Fatalf("a missing page: %d", st)
	}
	ana.see("Page not found")
	ana.axe(axe)
}

// apiStatus is the status of GET /v1/me with the bearer token tok.
func apiStatus(t *testing.T, s *site, tok string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.url+"/v1/me", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	return r.StatusCode
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestBrowserSignInLink follows the sign-in link of a real email: the
// first player's "the game has started, you play first" mail, made by the
// outbox. It opens the game once; opened again in another browser it asks
// for the password and signs nobody in until it is given.
func TestBrowserSignInLink(t *testing.T) {
	root := browser(t)
	axe := needAxe(t)
	s := newSite(t, browserDialect(), siteOptions{outbox: true})
	_, _, id := s.anaAndBob()

	var link, who string
	for _, name := range []string{"ana", "bob"} {
		m := s.waitMail(name+"@example.com", "The game has started")
		for _, l := range m.links() {
			if strings.Contains(l, "/signin?") {
				link, who = l, name
			}
		}
	}
	if link == "" {
		t.Fatal("no game-started mail has a sign-in link")
	}
	tabs := s.tabs(t, root, "first", "second")
	first, second := tabs[0], tabs[1]

	if st := first.open(link); st != 200 {
		t.Fatalf("the link's page: %d", st)
	}
	first.see(fmt.Sprintf("Open Game #%d", id), "This link signs you in as "+who)
	first.axe(axe)
	first.look("signin-link")
	first.press(submit)
	if first.path() != fmt.Sprintf("/games/%d", id) {
		t.Fatalf("the link landed on %s", first.path())
	}
	first.see(fmt.Sprintf("Game #%d", id), who+" (you)")
	first.axe(axe)
	first.look("game")

	// The session cookie: HttpOnly (no script sees it), SameSite=Lax, not
	// Secure on http.
	var found bool
	for _, c := range first.cookies() {
		if c.Name == "dm_session" {
			found = true
			if !c.HTTPOnly || c.SameSite != "Lax" || c.Secure || c.Path != "/" {
				t.Fatalf("session cookie %+v", c)
			}
		}
	}
	if !found {
		t.Fatal("no session cookie")
	}
	if js, _ := chromedp.Run(first.ctx, chromedp.Evaluate[string](`document.cookie`)); strings.Contains(js, "dm_session") {
		t.Fatalf("a script sees the session cookie: %q", js)
	}

	second.open(link)
	second.see("This link was used already", "Enter the password of "+who)
	second.axe(axe)
	second.look("signin-used")
	second.open("/settings")
	if !strings.HasPrefix(second.path(), "/login") {
		t.Fatalf("the used link signed the second browser in: %s", second.path())
	}
	second.open(link)
	second.fill("f-password", who+" password")
	second.press(submit)
	if second.path() != fmt.Sprintf("/games/%d", id) {
		t.Fatalf("after the password, the link landed on %s", second.path())
	}
	second.see(who + " (you)")
}

// TestBrowserCrossSiteForm has a page of another origin post a form to
// the site. The browser sends it; the site refuses it, whether the other
// origin is of the same site (a sibling on another port, whose post
// carries the session cookie) or of another site.
func TestBrowserCrossSiteForm(t *testing.T) {
	root := browser(t)
	s := newSite(t, browserDialect(), siteOptions{})
	tab := s.tabs(t, root, "ana")[0]
	tab.open("/register")
	tab.fill("f-username", "ana")
	tab.fill("f-email", "ana@example.com")
	tab.fill("f-password", "correct horse")
	tab.choose("f-time_zone", "Europe/Paris")
	tab.press(submit)
	tab.see("Your games")

	evil := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><title>Win a prize</title><form method="post" action="%s/settings/time-zone">
			<input type="hidden" name="time_zone" value="Asia/Tokyo"><button id="go">Claim</button></form>`, s.url)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go evil.Serve(ln)
	t.Cleanup(func() { evil.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	for _, origin := range []string{fmt.Sprintf("http://127.0.0.1:%d", port), fmt.Sprintf("http://localhost:%d", port)} {
		tab.open(origin + "/")
		if st := tab.press("#go"); st != 403 {
			t.Fatalf("a form from %s: %d", origin, st)
		}
		tab.see("Request refused")
		if z := s.account("ana").TimeZone; z != "Europe/Paris" {
			t.Fatalf("a form from %s changed the time zone to %s", origin, z)
		}
	}
	// The site's own form does it.
	tab.open("/settings")
	tab.choose("f-time_zone", "Asia/Tokyo")
	tab.press("form[action='/settings/time-zone'] button")
	tab.see("Your time zone is saved.")
	if z := s.account("ana").TimeZone; z != "Asia/Tokyo" {
		t.Fatalf("the site's own form: time zone %s", z)
	}
}

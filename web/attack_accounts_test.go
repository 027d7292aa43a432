package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
)

// resetMails are the reset mails in the folder, oldest first.
func (s *site) resetMails() []letter {
	var out []letter
	for _, m := range s.mails() {
		if strings.Contains(m.Subject, "Set a new password") || strings.Contains(m.Text, "Set a new password") {
			out = append(out, m)
		}
	}
	return out
}

// requestReset asks for a reset link for who through the form, and
// returns the link it mailed to addr.
func (s *site) requestReset(who, addr string) string {
	s.t.Helper()
	// The mails' dates are to the second, so the new mail is found by
	// its link: the one that is there once more than before (two links
	// asked for in one second are the same link).
	seen := map[string]int{}
	for _, m := range s.resetMails() {
		seen[m.link(s.t, "/reset/new")]++
	}
	s.client().post("/reset", url.Values{"who": {who}}).mustSee(s.t, 200, "Check your mail")
	var fresh []letter
	for _, m := range s.resetMails() {
		if l := m.link(s.t, "/reset/new"); seen[l] > 0 {
			seen[l]--
		} else {
			fresh = append(fresh, m)
		}
	}
	if len(fresh) != 1 || !strings.Contains(fresh[0].To, addr) {
		s.t.Fatalf("a reset request for %s mailed %d new letters, want one to %s", who, len(fresh), addr)
	}
	return fresh[0].link(s.t, "/reset/new")
}

// setPassword posts a new password through the page of the reset link.
func (c *client) setPassword(link, password string) resp {
	c.s.t.Helper()
	return c.post("/reset/new", url.Values{"t": {mustParseToken(c.s.t, link)}, "password": {password}, "confirm": {password}})
}

// apiWorks reports whether password signs name in through the API.
func (s *site) apiWorks(name, password string) bool {
	s.t.Helper()
	code, _ := s.apiTry(http.MethodPost, "/v1/auth/login", "", map[string]string{"username": name, "password": password})
	return code == http.StatusOK
}

// TestAttackAccountRegisterFormLookalikes: with ana registered, the
// register form is sent names that read as hers: other cases, spaces
// around (an ideographic and a no-break space too), fullwidth and
// Cyrillic letters, zero-width characters, a byte-order mark, a name too
// long. What must hold: a name that is ana's once trimmed is 409 "taken",
// any other is 422; no account is created and no browser signed in; the
// sign-in form takes ana's name with spaces around as hers, and no
// look-alike.
func TestAttackAccountRegisterFormLookalikes(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		s.client().register("ana", "ana password")
		for _, tc := range []struct {
			name   string
			status int
		}{
			{"ana", 409}, {" ana ", 409}, {"ana\u00a0", 409}, {"\u3000ana", 409}, {"\tana\n", 409},
			{"Ana", 422}, {"ANA", 422}, {"\uff41\uff4e\uff41", 422}, {"\u0430na", 422}, {"ana\u200b", 422}, {"a\u200dna", 422},
			{"\ufeffana", 422}, {"ana\u0301", 422}, {strings.Repeat("a", 33), 422},
		} {
			c := s.client()
			r := c.post("/register", url.Values{"username": {tc.name}, "email": {"eve@evil.example"}, "password": {"eve password"},
				"time_zone": {"UTC"}})
			if r.Status != tc.status {
				t.Errorf("register %q: %d, want %d", tc.name, r.Status, tc.status)
			}
			if c.cookie() != "" {
				t.Errorf("register %q: the browser got a session", tc.name)
			}
		}
		if n := modelstest.Count(s.t, s.store, `SELECT COUNT(*) FROM users`); n != 1 {
			t.Fatalf("%d accounts after the look-alikes, want ana's alone", n)
		}
		s.client().login(" ana ", "ana password")
		s.client().post("/login", url.Values{"username": {"Ana"}, "password": {"ana password"}}).mustSee(t, 401)
	})
}

// TestAttackAccountVerifyAfterAddressChange: ana registers (a link to
// verify ana@example.com), changes her address on the settings page (a
// link for the new one), then through the API to a third. What must hold:
// the first link, posted after the change, verifies nothing; the second,
// posted by bob's signed-in browser, verifies at most ana's address of
// that link, never bob's, and leaves bob's browser bob's; once the
// address changed again it verifies nothing either; and no reset link is
// mailed to any of ana's addresses while the current one is not
// verified, by her name or by an old verified address.
func TestAttackAccountVerifyAfterAddressChange(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		anaWeb, bobWeb := s.client(), s.client()
		anaWeb.register("ana", "ana password")
		bobWeb.register("bob", "bob password")
		first := s.waitMail("ana@example.com", "Verify your address").link(t, "/verify")
		anaWeb.post("/settings/email", url.Values{"email": {"ana@new.example"}}).mustRedirect(t, "/settings?done=email")
		second := s.waitMail("ana@new.example", "Verify your address").link(t, "/verify")

		anon := s.client()
		anon.get(first).mustSee(t, 400, "This link is not valid")
		anon.post("/verify", url.Values{"t": {mustParseToken(t, first)}}).mustSee(t, 400, "This link is not valid")
		if a := s.account("ana"); a.Verified() || a.VerifiedEmail != "" {
			t.Fatalf("the link of the old address verified %+v", a)
		}

		r := bobWeb.post("/verify", url.Values{"t": {mustParseToken(t, second)}})
		if r.Status >= 500 {
			t.Fatalf("bob posting ana's link: %d", r.Status)
		}
		if b := s.account("bob"); b.Verified() || b.VerifiedEmail != "" {
			t.Fatalf("ana's link verified bob's account: %+v", b)
		}
		if a := s.account("ana"); a.VerifiedEmail != "" && a.VerifiedEmail != "ana@new.example" {
			t.Fatalf("ana's verified address is %q", a.VerifiedEmail)
		}
		bobWeb.get("/").mustSee(t, 200, "(bob)")
		if s.account("ana").VerifiedEmail == "" { // bob's post was refused: ana verifies it herself
			anaWeb.post("/verify", url.Values{"t": {mustParseToken(t, second)}}).mustRedirect(t, "/?done=verified")
		}
		if a := s.account("ana"); !a.Verified() {
			t.Fatalf("ana's own link did not verify her address: %+v", a)
		}

		ana := s.apiLogin("ana", "ana password")
		code, body := s.apiTry(http.MethodPatch, "/v1/me", ana.Access, map[string]string{"email": "ana@third.example"})
		if code != http.StatusOK {
			t.Fatalf("PATCH /v1/me: %d %s", code, body)
		}
		anon.post("/verify", url.Values{"t": {mustParseToken(t, second)}}).mustSee(t, 400, "This link is not valid")
		anon.post("/verify", url.Values{"t": {mustParseToken(t, first)}}).mustSee(t, 400)
		if a := s.account("ana"); a.Verified() {
			t.Fatalf("an old link verified the third address: %+v", a)
		}
		before := len(s.resetMails())
		for _, who := range []string{"ana", "ana@new.example", "ana@third.example", "ana@example.com"} {
			s.client().post("/reset", url.Values{"who": {who}}).mustSee(t, 200, "Check your mail")
		}
		if n := len(s.resetMails()) - before; n != 0 {
			t.Fatalf("%d reset links mailed for an account whose address is not verified", n)
		}
	})
}

// TestAttackAccountAddressOfAnother: ana verified ana@example.com; eve
// sets the same address on her account through the settings page, and
// mallory through the API's PATCH /v1/me; then they ask for reset links
// by that address, by their names, and by variants of it that smuggle a
// second recipient. What must hold: neither account counts as verified;
// a reset by the address mails one link, to ana@example.com, for ana's
// account alone; by eve's or mallory's name, nothing; an address that
// smuggles a header or a second recipient is refused by the settings
// form; no mail goes to any other address.
func TestAttackAccountAddressOfAnother(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		s.client().register("ana", "ana password")
		verify(t, s, "ana")
		eve := s.client()
		eve.register("eve", "eve password")
		eve.post("/settings/email", url.Values{"email": {" ana@example.com "}}).mustRedirect(t, "/settings?done=email")
		s.client().register("mallory", "mallory password")
		mallory := s.apiLogin("mallory", "mallory password")
		if code, body := s.apiTry(http.MethodPatch, "/v1/me", mallory.Access, map[string]string{"email": "ana@example.com"}); code != 200 {
			t.Fatalf("PATCH /v1/me: %d %s", code, body)
		}
		for _, bad := range []string{"ana@example.com\r\nBcc: eve@evil.example", "ana@example.com, eve@evil.example",
			"Ana <eve@evil.example>", "ana@example.com\neve@evil.example"} {
			eve.post("/settings/email", url.Values{"email": {bad}}).mustSee(t, 422, "Enter an email address")
		}
		for _, name := range []string{"eve", "mallory"} {
			if a := s.account(name); a.Email != "ana@example.com" || a.Verified() {
				t.Fatalf("%s's account: %+v", name, a)
			}
		}
		before := len(s.resetMails())
		link := s.requestReset("ana@example.com", "ana@example.com")
		if l := mustParse(t, link); l.UserID != s.account("ana").ID {
			t.Fatalf("the reset link is for user %d, not ana", l.UserID)
		}
		s.client().get(link).mustSee(t, 200, "Choose a new password", "ana")
		for _, who := range []string{"eve", "mallory", "ANA@EXAMPLE.COM", "ana@example.com\r\nBcc: eve@evil.example",
			"ana@example.com,eve@evil.example", "ana@example.com eve@evil.example", "eve@evil.example", "ana@example.com\u200b"} {
			if r := s.client().post("/reset", url.Values{"who": {who}}); r.Status != 200 {
				t.Fatalf("reset for %q: %d", who, r.Status)
			}
		}
		all := s.resetMails()
		if n := len(all) - before; n != 1 {
			t.Fatalf("%d reset mails, want the one to ana", n)
		}
		for _, m := range all[before:] {
			if m.To != "ana@example.com" && !strings.HasSuffix(m.To, "<ana@example.com>") {
				t.Fatalf("a reset mail went to %q", m.To)
			}
		}
		for _, m := range s.mails() {
			if strings.Contains(m.To, "evil") {
				t.Fatalf("a mail %q went to %q", m.Subject, m.To)
			}
		}
		// The link sets ana's password, not eve's or mallory's.
		s.client().setPassword(link, "ana new password").mustRedirect(t, "/?done=reset")
		if !s.apiWorks("ana", "ana new password") || !s.apiWorks("eve", "eve password") || !s.apiWorks("mallory", "mallory password") {
			t.Fatal("the reset changed the wrong password")
		}
	})
}

// TestAttackAccountResetLinkSuperseded: ana asks for two reset links (a
// slow mail, asked again) and uses the second; then asks for a third and
// changes her password through the API before using it. What must hold:
// once a newer password is set, by a link or by a change, every earlier
// link is void (400 on its page and on its post) and sets nothing; and
// the reset ends what docs/security.md says it ends (browser sessions,
// access and refresh tokens of the API) and keeps what it says it keeps:
// the personal API token works on and is listed in the settings, where
// ana can revoke it.
func TestAttackAccountResetLinkSuperseded(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		laptop := s.client()
		laptop.register("ana", "ana password")
		verify(t, s, "ana")
		var login struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
		}
		s.apiCall(http.MethodPost, "/v1/auth/login", "", map[string]string{"username": "ana", "password": "ana password"}, &login)
		var tok struct {
			Token string `json:"token"`
		}
		s.apiCall(http.MethodPost, "/v1/tokens", login.AccessToken, map[string]any{"name": "ana's bot", "scopes": []string{"read"}}, &tok)

		one := s.requestReset("ana", "ana@example.com")
		two := s.requestReset("ana@example.com", "ana@example.com")
		s.client().setPassword(two, "second password").mustRedirect(t, "/?done=reset")
		c := s.client()
		c.get(one).mustSee(t, 400, "This link is not valid")
		c.setPassword(one, "attacker password").mustSee(t, 400, "This link is not valid")
		c.setPassword(two, "attacker password").mustSee(t, 400, "This link is not valid")
		if c.signedIn() {
			t.Fatal("a void reset link signed a browser in")
		}
		if s.apiWorks("ana", "attacker password") || !s.apiWorks("ana", "second password") {
			t.Fatal("a void link set the password")
		}
		if laptop.signedIn() {
			t.Fatal("the reset left a browser session")
		}
		if code := apiStatus(t, s, login.AccessToken); code != 401 {
			t.Fatalf("an access token from before the reset: %d", code)
		}
		if code, body := s.apiTry(http.MethodPost, "/v1/auth/refresh", "", map[string]string{"refresh_token": login.RefreshToken}); code != 401 {
			t.Fatalf("a refresh token from before the reset: %d %s", code, body)
		}
		if code := apiStatus(t, s, tok.Token); code != 200 {
			t.Fatalf("the personal API token after the reset: %d (docs/security.md: reset keeps them)", code)
		}
		owner := s.client()
		owner.login("ana", "second password")
		owner.get("/settings").mustSee(t, 200, "ana&#39;s bot", "Revoke")

		three := s.requestReset("ana", "ana@example.com")
		fresh := s.apiLogin("ana", "second password")
		if code, body := s.apiTry(http.MethodPost, "/v1/me/password", fresh.Access,
			map[string]string{"current_password": "second password", "new_password": "third password"}); code != 200 {
			t.Fatalf("the password change: %d %s", code, body)
		}
		c.get(three).mustSee(t, 400, "This link is not valid")
		c.setPassword(three, "attacker password").mustSee(t, 400)
		if s.apiWorks("ana", "attacker password") || !s.apiWorks("ana", "third password") {
			t.Fatal("a link from before the password change set the password")
		}
	})
}

// TestAttackAccountResetLinkExpiredPost: a reset link's page opened at
// 59 minutes is posted at 61 (the form left open, or a link found in an
// old mail). What must hold: the post is refused as expired (410) and
// changes nothing: the old password signs in, the browser that posted is
// not signed in, and ana's sessions go on.
func TestAttackAccountResetLinkExpiredPost(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		laptop := s.client()
		laptop.register("ana", "ana password")
		verify(t, s, "ana")
		link := s.requestReset("ana", "ana@example.com")
		c := s.client()
		s.clock.Add(59 * time.Minute)
		c.get(link).mustSee(t, 200, "Choose a new password")
		s.clock.Add(2 * time.Minute)
		c.setPassword(link, "late password").mustSee(t, 410, "This link expired")
		if c.signedIn() {
			t.Fatal("an expired link signed a browser in")
		}
		if s.apiWorks("ana", "late password") || !s.apiWorks("ana", "ana password") {
			t.Fatal("an expired link set the password")
		}
		if !laptop.signedIn() {
			t.Fatal("an expired link ended ana's session")
		}
	})
}

// TestAttackAccountResetInAnotherBrowser: ana's reset link is opened and
// used in a browser where bob is signed in (a shared computer), while bob
// is signed in on his phone too. What must hold: the browser ends up
// ana's alone; bob's session of that browser ends with it (its cookie,
// sent again, reads as nobody); bob's phone is not touched; ana's other
// browser is signed out by the reset.
func TestAttackAccountResetInAnotherBrowser(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		laptop, shared, phone := s.client(), s.client(), s.client()
		laptop.register("ana", "ana password")
		verify(t, s, "ana")
		shared.register("bob", "bob password")
		phone.login("bob", "bob password")
		bobs := shared.cookie()
		link := s.requestReset("ana", "ana@example.com")
		shared.get(link).mustSee(t, 200, "Choose a new password", "ana")
		shared.setPassword(link, "ana new password").mustRedirect(t, "/?done=reset")
		shared.get("/").mustSee(t, 200, "(ana)")
		thief := s.client()
		thief.plant(bobs)
		if thief.signedIn() {
			t.Fatal("bob's session of the shared browser lives on after ana's reset there")
		}
		phone.get("/").mustSee(t, 200, "(bob)")
		if laptop.signedIn() {
			t.Fatal("ana's laptop is still signed in after the reset")
		}
	})
}

// TestAttackAccountResetLinkPostedAtOnce: one reset link is posted by
// eight browsers at the same moment, each with a password of its own (a
// double click, a mail forwarded, an attacker racing the owner). What
// must hold, as for a sign-in link (TestAttackSessionLinkUsedAtOnce):
// the link is used once: one post sets a password and signs its browser
// in, every other is refused and signs nobody in; the password that
// signs in is the winner's; and one browser session of ana's is live.
func TestAttackAccountResetLinkPostedAtOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		s.client().register("ana", "ana password")
		verify(t, s, "ana")
		for round := range 3 {
			link := s.requestReset("ana", "ana@example.com")
			clients := make([]*client, 8)
			codes := make([]int, len(clients))
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range clients {
				clients[i] = s.client()
				wg.Go(func() {
					<-start
					codes[i] = clients[i].setPassword(link, fmt.Sprintf("password %d of round %d", i, round)).Status
				})
			}
			close(start)
			wg.Wait()
			var won []int
			for i, code := range codes {
				switch {
				case code == http.StatusSeeOther:
					won = append(won, i)
				case code >= 500:
					t.Fatalf("round %d: a post of the link got %d", round, code)
				}
			}
			live := 0
			for _, c := range clients {
				if c.signedIn() {
					live++
				}
			}
			works := 0
			for i := range clients {
				if s.apiWorks("ana", fmt.Sprintf("password %d of round %d", i, round)) {
					works++
				}
			}
			if len(won) != 1 || live != 1 || works != 1 {
				t.Fatalf("round %d: one reset link posted 8 times at once set a password %d times (%v), left %d browsers signed in; "+
					"%d of the passwords sent sign in", round, len(won), codes, live, works)
			}
			if !s.apiWorks("ana", fmt.Sprintf("password %d of round %d", won[0], round)) {
				t.Fatalf("round %d: the winner's password does not sign in", round)
			}
		}
	})
}

// deleted is what an attacker kept of ana's account before she deleted
// it: her tokens, her feed's address, and links of her emails.
type deleted struct {
	id                    int64
	game                  int64 // the game she played, resigned by the deletion
	access, refresh, api  string
	feed                  string // the calendar feed's path
	signIn, verify, reset string // links of emails, not used
	unsubscribe           string // the path of an unsubscribe link (all emails)
}

// deleteAna registers ana and bob, gives ana a game with bob, tokens, a
// feed and links of every kind, deletes ana's account from the settings
// page, and returns what was kept of it.
func deleteAna(t *testing.T, s *site) deleted {
	t.Helper()
	anaWeb := s.client()
	anaWeb.register("ana", "ana password")
	s.client().register("bob", "bob password")
	verifyLink := s.waitMail("ana@example.com", "Verify your address").link(t, "/verify")
	verify(t, s, "ana")
	ana, bob := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
	k := deleted{id: ana.ID, game: s.startGame(ana, bob), verify: verifyLink, reset: s.requestReset("ana", "ana@example.com")}
	var login struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	s.apiCall(http.MethodPost, "/v1/auth/login", "", map[string]string{"username": "ana", "password": "ana password"}, &login)
	k.access, k.refresh = login.AccessToken, login.RefreshToken
	var tok struct {
		Token string `json:"token"`
	}
	s.apiCall(http.MethodPost, "/v1/tokens", ana.Access, map[string]any{"name": "bot", "scopes": []string{"read", "play"}}, &tok)
	k.api = tok.Token
	var feed struct {
		URL string `json:"url"`
	}
	s.apiCall(http.MethodPost, "/v1/me/calendar", ana.Access, nil, &feed)
	u, err := url.Parse(feed.URL)
	if err != nil {
		t.Fatal(err)
	}
	k.feed = u.Path
	now := s.clock.Now()
	k.signIn = notifier.SignInURL(s.url, s.secret, ana.ID, k.game, now.Add(24*time.Hour), now)
	k.unsubscribe = notifier.UnsubscribePath + "?token=" + url.QueryEscape(notifier.UnsubscribeToken(s.unsub, itoa(ana.ID), "all"))
	for _, tok := range []string{k.access, k.api} {
		if code := apiStatus(t, s, tok); code != 200 {
			t.Fatalf("a token of ana's before the deletion: %d", code)
		}
	}
	if r := s.client().get(k.feed); r.Status != 200 {
		t.Fatalf("the feed before the deletion: %d", r.Status)
	}
	del := mustForm(t, anaWeb.get("/settings").mustSee(t, 200, "Delete your account").Body, "Delete my account")
	anaWeb.send(del, "password", "ana password", "confirm", "yes").mustRedirect(t, "/?done=deleted")
	return k
}

// TestAttackAccountDeletedAnswersNothing: after ana deleted her account,
// whoever kept something of it tries it all: her access, refresh and API
// tokens, the address of her calendar feed, the sign-in link of a game's
// email, her verification and reset links, the unsubscribe link of her
// emails, a reset request by her name and her address, a login to the
// renamed row, her public profile. What must hold: nothing answers for the
// account: every token is 401, the feed 404, the profile 404; no link
// signs a browser in (no session row of hers appears), verifies an
// address or sets a password (no credential row appears); no reset mail
// goes out; and no row of hers comes back in the tables the deletion
// emptied (notification preferences by an unsubscribe, sessions). No
// answer is a 5xx.
func TestAttackAccountDeletedAnswersNothing(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{outbox: true})
		k := deleteAna(t, s)
		for _, tok := range []string{k.access, k.api} {
			for _, path := range []string{"/v1/me", "/v1/games/" + itoa(k.game), "/v1/games"} {
				if code, body := s.apiTry(http.MethodGet, path, tok, nil); code != 401 {
					t.Errorf("GET %s with a token of the deleted account: %d %s", path, code, body)
				}
			}
		}
		if code, body := s.apiTry(http.MethodPost, "/v1/auth/refresh", "", map[string]string{"refresh_token": k.refresh}); code != 401 {
			t.Errorf("the refresh token of the deleted account: %d %s", code, body)
		}
		if code, body := s.apiTry(http.MethodPost, "/v1/auth/login", "", map[string]string{"username": models.DeletedUsername(k.id),
			"password": "ana password"}); code != 401 {
			t.Errorf("a login to the deleted row: %d %s", code, body)
		}
		if r := s.client().get(k.feed); r.Status != 404 {
			t.Errorf("the calendar feed of the deleted account: %d", r.Status)
		}
		if code, _ := s.apiTry(http.MethodGet, "/v1/users/ana", "", nil); code != 404 {
			t.Errorf("the profile of the deleted name: %d", code)
		}
		s.client().get("/users/ana").mustSee(t, 404)
		before := len(s.resetMails())
		for _, who := range []string{"ana", "ana@example.com", models.DeletedUsername(k.id)} {
			if r := s.client().post("/reset", url.Values{"who": {who}}); r.Status != 200 {
				t.Errorf("a reset request for %s: %d", who, r.Status)
			}
		}
		if n := len(s.resetMails()) - before; n != 0 {
			t.Errorf("%d reset mails for the deleted account", n)
		}

		// The links of her emails.
		c := s.client()
		if r := c.get(k.verify); r.Status >= 500 {
			t.Errorf("the verification link: %d", r.Status)
		}
		if r := c.post("/verify", url.Values{"t": {mustParseToken(t, k.verify)}}); r.Status == http.StatusSeeOther || r.Status >= 500 {
			t.Errorf("posting the verification link: %d %s", r.Status, r.Header.Get("Location"))
		}
		if r := c.get(k.reset); r.Status >= 500 || strings.Contains(r.Body, `name="password"`) {
			t.Errorf("the reset link's page: %d, offers a password: %v", r.Status, strings.Contains(r.Body, `name="password"`))
		}
		if r := c.setPassword(k.reset, "new ana password"); r.Status == http.StatusSeeOther || r.Status >= 500 {
			t.Errorf("posting the reset link: %d %s", r.Status, r.Header.Get("Location"))
		}
		if n := modelstest.Count(s.t, s.store, fmt.Sprintf(`SELECT COUNT(*) FROM credentials WHERE user_id = %d`, k.id)); n != 0 {
			t.Errorf("the deleted account has a password again")
		}
		if r := c.get(k.signIn); r.Status >= 500 {
			t.Errorf("the sign-in link's page: %d", r.Status)
		}
		if r := c.post("/signin", url.Values{"t": {mustParseToken(t, k.signIn)}}); r.Status >= 500 {
			t.Errorf("posting the sign-in link: %d", r.Status)
		}
		if c.signedIn() {
			page := c.get("/settings")
			t.Errorf("the sign-in link of an email signed a browser in to the deleted account; its settings page: %d, names %q: %v",
				page.Status, models.DeletedUsername(k.id), strings.Contains(page.Body, models.DeletedUsername(k.id)))
			// What the revived session can do: make an API token.
			r := c.post("/settings/tokens", url.Values{"key": {hiddenValue(t, page.Body, "key")}, "name": {"revived"}, "scope": {"read"}})
			if i := strings.Index(r.Body, "dmp_"); r.Status == http.StatusCreated && i >= 0 {
				secret := r.Body[i:]
				secret = secret[:strings.IndexByte(secret, '"')]
				if code := apiStatus(t, s, secret); code == 200 {
					t.Errorf("the revived session made an API token of the deleted account, which answers GET /v1/me")
				}
			}
		}
		if n := modelstest.Count(s.t, s.store, fmt.Sprintf(`SELECT COUNT(*) FROM web_sessions WHERE user_id = %d`, k.id)); n != 0 {
			t.Errorf("%d browser sessions of the deleted account", n)
		}

		// The unsubscribe link: its page and its one-click post.
		if r := s.client().get(k.unsubscribe); r.Status >= 500 {
			t.Errorf("the unsubscribe page: %d", r.Status)
		}
		req, _ := http.NewRequest(http.MethodPost, s.url+k.unsubscribe, strings.NewReader("List-Unsubscribe=One-Click"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if r := s.client().do(req); r.Status >= 500 {
			t.Errorf("the one-click unsubscribe: %d", r.Status)
		}
		if n := modelstest.Count(s.t, s.store, fmt.Sprintf(`SELECT COUNT(*) FROM notification_prefs WHERE user_id = %d`, k.id)); n != 0 {
			t.Errorf("the unsubscribe link wrote %d notification preferences of the deleted account", n)
		}
	})
}

// TestAttackAccountReregisteredInheritsNothing: after ana deleted her
// account, someone registers the name ana again. What must hold: the new
// account is another (a new id) and starts empty: no game (her finished
// one lists her as nobody, and shows no seat of the new ana), no rating
// or games on the public profile, no API token, no calendar feed; and
// nothing the old account left opens the new one: the old tokens, the old
// feed's address, the old sign-in link (it signs no browser in as the new
// ana), the old unsubscribe link (it changes none of the new ana's
// preferences).
func TestAttackAccountReregisteredInheritsNothing(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{outbox: true})
		k := deleteAna(t, s)
		newWeb := s.client()
		newWeb.register("ana", "new ana password")
		ana := s.apiLogin("ana", "new ana password")
		if ana.ID == k.id {
			t.Fatalf("the new ana has the deleted account's id %d", k.id)
		}
		var games struct {
			Games []struct {
				ID int64 `json:"id"`
			} `json:"games"`
		}
		s.apiCall(http.MethodGet, "/v1/games", ana.Access, nil, &games)
		if len(games.Games) != 0 {
			t.Errorf("the new ana lists %d games", len(games.Games))
		}
		var g struct {
			YourSeat *int `json:"your_seat"`
			Seats    []struct {
				Username *string `json:"username"`
			} `json:"seats"`
		}
		if code, body := s.apiTry(http.MethodGet, "/v1/games/"+itoa(k.game), ana.Access, nil); code == 200 {
			if err := json.Unmarshal(body, &g); err != nil {
				t.Fatal(err)
			}
			if g.YourSeat != nil {
				t.Errorf("the new ana holds seat %d of the deleted account's game", *g.YourSeat)
			}
		} else if code >= 500 {
			t.Errorf("the old game for the new ana: %d", code)
		}
		if r := newWeb.get(gamePath(k.game)); strings.Contains(r.Body, "ana (you)") {
			t.Error("the old game's page shows the new ana as its player")
		}
		var p struct {
			Rating      int  `json:"rating"`
			Games       int  `json:"games"`
			Wins        int  `json:"wins"`
			Provisional bool `json:"provisional"`
		}
		s.apiCall(http.MethodGet, "/v1/users/ana", "", nil, &p)
		if p.Games != 0 || p.Wins != 0 || p.Rating != 1500 || !p.Provisional {
			t.Errorf("the new ana's profile: %+v", p)
		}
		var toks struct {
			Tokens []struct{ ID int64 } `json:"tokens"`
		}
		s.apiCall(http.MethodGet, "/v1/tokens", ana.Access, nil, &toks)
		if len(toks.Tokens) != 0 {
			t.Errorf("the new ana has %d API tokens", len(toks.Tokens))
		}
		if code, _ := s.apiTry(http.MethodGet, "/v1/me/calendar", ana.Access, nil); code != 404 {
			t.Errorf("the new ana's calendar feed: %d", code)
		}
		for _, tok := range []string{k.access, k.api} {
			if code, body := s.apiTry(http.MethodGet, "/v1/me", tok, nil); code != 401 {
				t.Errorf("an old token: %d %s", code, body)
			}
		}
		if code, _ := s.apiTry(http.MethodPost, "/v1/auth/refresh", "", map[string]string{"refresh_token": k.refresh}); code != 401 {
			t.Errorf("the old refresh token: %d", code)
		}
		if r := s.client().get(k.feed); r.Status != 404 {
			t.Errorf("the old feed's address: %d", r.Status)
		}
		c := s.client()
		c.post("/signin", url.Values{"t": {mustParseToken(t, k.signIn)}})
		if r := c.get("/"); strings.Contains(r.Body, "(ana)") {
			t.Error("the old sign-in link signed a browser in as the new ana")
		}
		prefsOf := func() string {
			_, body := s.apiTry(http.MethodGet, "/v1/me/notification-preferences", ana.Access, nil)
			return string(body)
		}
		want := prefsOf()
		req, _ := http.NewRequest(http.MethodPost, s.url+k.unsubscribe, strings.NewReader("List-Unsubscribe=One-Click"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		s.client().do(req)
		if got := prefsOf(); got != want {
			t.Errorf("the old unsubscribe link changed the new ana's preferences:\n%s\nwas\n%s", got, want)
		}
	})
}

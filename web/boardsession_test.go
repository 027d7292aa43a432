package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
)

// TestBoardChecksSessionAlong: a board read again costs one statement,
// the game's read, which checks the reader's session along, and so does a
// poll of the game's version; and what
// another replica does to the session or the account (ends the session,
// signs the user out everywhere, changes the time zone; here straight in
// the store, past this process's accounts) shows at the next read, as when
// every page read its session on its own.
func TestBoardChecksSessionAlong(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ctx := context.Background()
		ana, bob := s.client(), s.client()
		ana.register("ana", "ana password")
		bob.register("bob", "bob password")
		users := []apiUser{s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")}
		id := s.startGame(users[0], users[1]) // private: a visitor is sent to sign in
		path := gamePath(id)
		ana.get(path).mustSee(t, http.StatusOK, "Sign out", "(ana)", "CET")

		count := s.store.CountStatementsForTest()
		before := count()
		ana.get(path).mustSee(t, http.StatusOK, "Sign out", "(ana)")
		if n := count() - before; n != 1 {
			t.Fatalf("a board read again costs %d statements, want 1 (the game's read, with the session)", n)
		}
		before = count()
		version := ana.get(path+"/state").mustSee(t, http.StatusOK).Body
		if n := count() - before; n != 1 {
			t.Fatalf("a poll of the game's version costs %d statements, want 1 (the game's read, with the session)", n)
		}

		// The time zone changed elsewhere: the next read shows it.
		if err := s.store.SetTimeZone(ctx, users[0].ID, "Asia/Tokyo"); err != nil {
			t.Fatal(err)
		}
		page := ana.get(path).mustSee(t, http.StatusOK, "(ana)", "JST")
		if strings.Contains(page.Body, "CET") {
			t.Fatal("the board still shows the time zone of before")
		}
		before = count()
		ana.get(path).mustSee(t, http.StatusOK, "(ana)", "JST")
		if n := count() - before; n != 1 {
			t.Fatalf("after the change, a board read again costs %d statements, want 1", n)
		}

		// Signed out everywhere elsewhere: the next read is a visitor's,
		// sent to sign in, and the cookie is cleared.
		if err := s.store.EndSessions(ctx, users[0].ID); err != nil {
			t.Fatal(err)
		}
		if r := ana.get(path + "/state"); r.Status == http.StatusOK {
			t.Fatalf("an ended session polled a private game's version: %q (it was %q)", r.Body, version)
		}
		ana.get(path).mustRedirect(t, "/login")
		if ana.signedIn() {
			t.Fatal("the ended session's cookie was kept")
		}

		// Logged out here: the old cookie, sent again, signs nobody in.
		bob.get(path).mustSee(t, http.StatusOK, "(bob)")
		bob.get(path).mustSee(t, http.StatusOK, "(bob)")
		u, _ := url.Parse(s.url)
		old := bob.http.Jar.Cookies(u)
		bob.post("/logout", nil)
		thief := s.client()
		thief.http.Jar.SetCookies(u, old)
		thief.get(path).mustRedirect(t, "/login")
		// Nor after a log-out elsewhere (the session's row deleted).
		bob.login("bob", "bob password")
		bob.get(path).mustSee(t, http.StatusOK, "(bob)")
		bob.get(path).mustSee(t, http.StatusOK, "(bob)")
		old = bob.http.Jar.Cookies(u)
		for _, c := range old {
			if c.Name == "dm_session" {
				if err := s.store.EndSession(ctx, models.HashToken(c.Value)); err != nil {
					t.Fatal(err)
				}
			}
		}
		bob.get(path).mustRedirect(t, "/login")
	})
}

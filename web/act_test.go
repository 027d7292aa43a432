package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
)

// gameState reads game id and its engine state from the store.
func (s *site) gameState(id int64) (*models.Game, *engine.State) {
	s.t.Helper()
	g, err := s.store.Game(context.Background(), id)
	if err != nil {
		s.t.Fatal(err)
	}
	data, err := g.Snapshot()
	if err != nil {
		s.t.Fatal(err)
	}
	st, err := engine.Unmarshal(data)
	if err != nil {
		s.t.Fatal(err)
	}
	return g, st
}

// actionLink is the action link of the line of the awaited seat's moves
// whose text starts with prefix, as a decision email makes it, with the
// seat's user id and username.
func (s *site) actionLink(id int64, prefix string) (link string, uid int64, name string, version int64) {
	s.t.Helper()
	g, st := s.gameState(id)
	seat := engine.Awaiting(st)[0]
	lines := engine.Numbered(engine.Moves(st, seat))
	for _, l := range lines {
		if strings.HasPrefix(l.Text, prefix) {
			uid = *g.Seats[seat].UserID
			return notifier.ActionURL(s.url, s.secret, uid, id, g.Version, l.N, engine.Digest(lines), *g.DeadlineAt, s.clock.Now()),
				uid, g.Seats[seat].Username, g.Version
		}
	}
	s.t.Fatalf("seat %d has no move %q…", seat, prefix)
	return "", 0, "", 0
}

// TestActionLinks: the action link of a decision email. Its GET (a mail
// scanner, the recipient) shows the action and changes nothing; its
// confirmation applies it once, signed out, with the token alone; a second
// post, and two at once, replay without acting again; a link of a version
// the game has left says the game moved on and changes nothing; a forged
// link, one moved to another line or game, and an expired one are refused.
func TestActionLinks(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		_, _, id := s.anaAndBob()
		link, uid, name, v := s.actionLink(id, "End your turn")
		path := mustPathOf(t, link)
		version := func() int64 { g, _ := s.gameState(id); return g.Version }

		anon := s.client()
		for range 2 {
			page := anon.get(path).mustSee(t, 200, "Confirm your move", "End your turn", `action="/games/`+itoa(id)+`/act"`,
				"This link acts for "+name+", once; it does not sign you in.", "The Market")
			if strings.Contains(page.Body, "Your hand") {
				t.Fatal("a signed-out page of the link shows the recipient's hand")
			}
		}
		if version() != v {
			t.Fatalf("opening the link moved the game from version %d to %d", v, version())
		}
		confirm := mustForm(t, anon.get(path).Body, "Confirm: End your turn")
		anon.send(confirm).mustRedirect(t, gamePath(id)+"/act?")
		if version() != v+1 {
			t.Fatalf("after the confirmation the game is at version %d, want %d", version(), v+1)
		}
		anon.get(path).mustSee(t, 200, "Done", "it was applied once")
		anon.send(confirm).mustRedirect(t, gamePath(id)+"/act?")
		s.client().send(confirm).mustRedirect(t, gamePath(id)+"/act?")
		if version() != v+1 {
			t.Fatalf("a second confirmation moved the game to version %d", version())
		}
		if anon.signedIn() {
			t.Fatal("the link signed its user in")
		}

		// A link of the version before: the game moved on, and its
		// confirmation changes nothing.
		stale := mustPathOf(t, notifier.ActionURL(s.url, s.secret, uid, id, v, 1, 1, s.clock.Now().Add(time.Hour), s.clock.Now()))
		anon.get(stale).mustSee(t, 409, "The game moved on", "The Market")
		q, _ := url.ParseQuery(strings.SplitN(stale, "?", 2)[1])
		anon.post(gamePath(id)+"/act", url.Values{"t": {q.Get("t")}, "v": {q.Get("v")}, "n": {q.Get("n")}, "d": {q.Get("d")}}).mustSee(t, 409, "The game moved on")
		if version() != v+1 {
			t.Fatalf("a stale confirmation moved the game to version %d", version())
		}

		// Two confirmations at once: one acts, the other replays.
		link2, uid2, name2, v2 := s.actionLink(id, "End your turn")
		c2 := mustForm(t, anon.get(mustPathOf(t, link2)).Body, "Confirm")
		var wg sync.WaitGroup
		codes := make([]int, 2)
		for i := range codes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = s.client().send(c2).Status
			}()
		}
		wg.Wait()
		if codes[0] != http.StatusSeeOther || codes[1] != http.StatusSeeOther || version() != v2+1 {
			t.Fatalf("two confirmations at once: %v, version %d (want %d)", codes, version(), v2+1)
		}

		// The recipient, signed in, sees their own board with it.
		link3, _, name3, _ := s.actionLink(id, "") // whatever comes first
		me := s.client()
		me.login(name3, name3+" password")
		me.get(mustPathOf(t, link3)).mustSee(t, 200, "Your hand", "You are signed in as "+name3)
		_, _ = uid2, name2

		// Forged, moved and expired links are refused, and change nothing.
		p3 := mustPathOf(t, link3)
		q3, _ := url.ParseQuery(strings.SplitN(p3, "?", 2)[1])
		tok := q3.Get("t")
		forged := tok[:len(tok)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(tok, "AA")]
		before := version()
		for _, bad := range []string{
			gamePath(id) + "/act?v=" + q3.Get("v") + "&n=" + q3.Get("n") + "&t=" + url.QueryEscape(forged),
			gamePath(id) + "/act?v=" + q3.Get("v") + "&n=2&t=" + url.QueryEscape(tok), // another line
			gamePath(id+1) + "/act?v=" + q3.Get("v") + "&n=" + q3.Get("n") + "&t=" + url.QueryEscape(tok),
			gamePath(id) + "/act?v=x&n=1&t=" + url.QueryEscape(tok),
			gamePath(id) + "/act?v=1&n=1&t=nonsense",
			// The digest of its email's lines is signed too: neither
			// another one nor none at all passes.
			gamePath(id) + "/act?v=" + q3.Get("v") + "&n=" + q3.Get("n") + "&d=1&t=" + url.QueryEscape(tok),
			gamePath(id) + "/act?v=" + q3.Get("v") + "&n=" + q3.Get("n") + "&t=" + url.QueryEscape(tok),
			gamePath(id) + "/act?v=" + q3.Get("v") + "&n=" + q3.Get("n") + "&d=0&t=" + url.QueryEscape(tok),
			gamePath(id) + "/act?v=" + q3.Get("v") + "&n=" + q3.Get("n") + "&d=4294967296&t=" + url.QueryEscape(tok),
		} {
			if strings.HasSuffix(bad, "n=2&t="+url.QueryEscape(tok)) && q3.Get("n") == "2" {
				continue
			}
			anon.get(bad).mustSee(t, 400, "This link is not valid")
			bq, _ := url.ParseQuery(strings.SplitN(bad, "?", 2)[1])
			anon.post(strings.SplitN(bad, "?", 2)[0], url.Values{"t": {bq.Get("t")}, "v": {bq.Get("v")}, "n": {bq.Get("n")}, "d": {bq.Get("d")}}).
				mustSee(t, 400, "This link is not valid")
		}
		s.clock.Add(8 * 24 * time.Hour)
		anon.get(p3).mustSee(t, 410, "This link expired")
		anon.post(gamePath(id)+"/act", url.Values{"t": {tok}, "v": {q3.Get("v")}, "n": {q3.Get("n")}, "d": {q3.Get("d")}}).mustSee(t, 410, "This link expired")
		if version() != before {
			t.Fatalf("refused links moved the game from version %d to %d", before, version())
		}
	})
}

// mustPathOf is the path and query of an absolute link.
func mustPathOf(t testing.TB, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI()
}

// TestActionLinkOfAnotherList: an action link carries the digest of its
// email's lines. One whose digest is not that of the lines at its version
// (the service numbers them otherwise since) is refused with the reason,
// and so is its confirmation; one made before links carried a digest is
// taken only while the lines are numbered as they were then.
func TestActionLinkOfAnotherList(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	for _, n := range []string{"ana", "bob"} {
		s.client().register(n, n+" password")
	}
	id := s.startGame(s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password"))
	g, st := s.gameState(id)
	seat := engine.Awaiting(st)[0]
	moves := engine.Moves(st, seat)
	lines := engine.Numbered(moves)
	link := func(d uint32) string {
		return mustPathOf(t, notifier.ActionURL(s.url, s.secret, *g.Seats[seat].UserID, id, g.Version, 1, d, *g.DeadlineAt, s.clock.Now()))
	}
	anon := s.client()
	other := max(engine.Digest(lines)+1, 1)
	anon.get(link(other)).mustSee(t, 409, "This email’s list is out of date", "Nothing was played")
	q, _ := url.ParseQuery(strings.SplitN(link(other), "?", 2)[1])
	anon.post(gamePath(id)+"/act", url.Values{"t": {q.Get("t")}, "v": {q.Get("v")}, "n": {q.Get("n")}, "d": {q.Get("d")}}).
		mustSee(t, 409, "This email’s list is out of date")
	if _, same := engine.NumberedFor(moves, 0); same {
		anon.get(link(0)).mustSee(t, 200, "Confirm your move")
	} else {
		anon.get(link(0)).mustSee(t, 409, "This email’s list is out of date")
	}
	anon.get(link(engine.Digest(lines))).mustSee(t, 200, "Confirm your move")
	if now, _ := s.gameState(id); now.Version != g.Version {
		t.Fatalf("refused links moved the game from version %d to %d", g.Version, now.Version)
	}
}

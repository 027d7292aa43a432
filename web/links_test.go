package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
)

// sampleData returns data of kind as the outbox fills it in for a
// recipient of game id: every link it sets, pointing at base.
func sampleData(t *testing.T, kind notifier.Kind, base string, id int64, unsub string) notifier.Data {
	t.Helper()
	now := time.Now()
	c := notifier.Common{Recipient: "ana", GameID: itoa(id), GameTitle: "Game #" + itoa(id), GameURL: notifier.GameURL(base, id),
		SettingsURL: notifier.PreferencesURL(base), UnsubscribeURL: unsub, Now: now}
	deadline := now.Add(24 * time.Hour)
	prompts := []notifier.Prompt{{Text: "Play an interrupt?", Options: []string{"pass"}, Deadline: deadline}}
	switch kind {
	case notifier.KindInvitation:
		return notifier.Invitation{Common: c, Inviter: "bob", Players: []string{"bob"}, Seats: 2, Mode: "fast"}
	case notifier.KindGameStarted:
		return notifier.GameStarted{Common: c, Players: []string{"ana", "bob"}, FirstPlayer: "ana", YourTurn: true, Deadline: deadline}
	case notifier.KindYourTurn:
		return notifier.YourTurn{Common: c, Turn: 3, Since: []string{"bob drew 2 cards"}, Prompts: prompts, Deadline: deadline}
	case notifier.KindPromptWaiting:
		return notifier.PromptWaiting{Common: c, TurnOf: "bob", Prompts: prompts, Deadline: deadline}
	case notifier.KindQueuedActions:
		return notifier.QueuedActions{Common: c, Actions: []string{"end the turn"}}
	case notifier.KindDeadlineReminder:
		return notifier.DeadlineReminder{Common: c, Deadline: deadline}
	case notifier.KindTimeoutApplied:
		return notifier.TimeoutApplied{Common: c, Player: "ana", You: true, Applied: []string{"ana passed"}, Consecutive: 3, Limit: 3,
			TakeOver: "bot", ReclaimURL: notifier.GameURL(base, id) + "#reclaim"}
	case notifier.KindSeatReclaimed:
		return notifier.SeatReclaimed{Common: c, BotDid: []string{"ana ends their turn."}, YourTurn: true, Deadline: deadline}
	case notifier.KindGameOver:
		return notifier.GameOver{Common: c, Reason: "the last challenge was won", Scores: []notifier.Score{{Player: "ana", Points: 9, Winner: true, You: true}}}
	case notifier.KindVacation:
		return notifier.VacationNotice{Common: c, Player: "bob", From: now, Until: deadline}
	case notifier.KindMessage:
		c.Talk = []notifier.TalkLine{{From: "bob", At: now, Text: "good game"}}
		return notifier.TableTalk{Common: c, MessageID: 1, From: "bob", Text: "good game", At: now}
	case notifier.KindDigest:
		d := notifier.Digest{Day: now, Games: []notifier.DigestGame{{Title: "Game #" + itoa(id), URL: notifier.GameURL(base, id), YourTurn: true,
			Deadline: deadline, Lines: []string{"bob played"}}}}
		d.Recipient, d.SettingsURL, d.UnsubscribeURL = "ana", notifier.PreferencesURL(base), unsub
		return d
	}
	t.Fatalf("no sample data for the kind %q: add it here", kind)
	return nil
}

// TestEveryEmailLinkOpensAPage renders every kind of notification as the
// outbox renders it for its recipient (the sign-in link of those that ask
// them to act included), takes the mail the pages send (verification,
// reset) and the mail a started game sends through the real outbox, and
// follows every link: each opens a page that answers 200 for the
// recipient, in a browser signed in or not, and none is a /v1 route. The
// unsubscribe link is left alone: its GET unsubscribes (another change
// turns it into a confirmation page).
func TestEveryEmailLinkOpensAPage(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{outbox: true})
		anaWeb := s.client()
		anaWeb.register("ana", "ana password")
		s.client().register("bob", "bob password")
		ana, bob := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
		id := s.startGame(ana, bob)
		unsub := notifier.UnsubscribeURL(s.url, notifier.UnsubscribeToken(s.unsub, itoa(ana.ID), "all"))

		var mails []letter
		for _, k := range notifier.Kinds {
			data := notifier.WithSignIn(sampleData(t, k, s.url, id, unsub), s.url, s.secret, ana.ID, s.clock.Now())
			subject, text, html, err := notifier.Render(data)
			if err != nil {
				t.Fatal(err)
			}
			mails = append(mails, letter{To: "ana@example.com", Subject: subject, Text: text, HTML: html})
		}
		mails = append(mails, s.waitMail("ana@example.com", "Verify your address"))
		verify(t, s, "ana")
		s.client().post("/reset", url.Values{"who": {"ana"}}).mustSee(t, 200)
		mails = append(mails, s.waitMail("ana@example.com", "Set a new password"))
		mails = append(mails, s.waitMail("ana@example.com", "The game has started"), s.waitMail("bob@example.com", "The game has started"))

		signIns := 0
		for _, m := range mails {
			links := m.links()
			if len(links) == 0 {
				t.Fatalf("%q has no link", m.Subject)
			}
			for _, l := range links {
				u, err := url.Parse(l)
				if err != nil || u.Scheme+"://"+u.Host != s.url {
					t.Fatalf("%q links to %q, not to the site", m.Subject, l)
				}
				if u.Path == notifier.UnsubscribePath {
					continue
				}
				if strings.HasPrefix(u.Path, "/v1/") {
					t.Errorf("%q links to the API route %s", m.Subject, u.Path)
					continue
				}
				if u.Path == notifier.SignInPath {
					signIns++
				}
				// The recipient, signed in (ana's browser; bob's mail is
				// opened in a fresh one, as is every link).
				if strings.Contains(m.To, "ana") {
					if st, end := follow(t, anaWeb, l); st != http.StatusOK || strings.HasPrefix(end, "/login") {
						t.Errorf("%q: %s ends at %s with %d for its recipient", m.Subject, l, end, st)
					}
				}
				fresh := s.client()
				st, end := follow(t, fresh, l)
				if st != http.StatusOK {
					t.Errorf("%q: %s ends at %s with %d in a fresh browser", m.Subject, l, end, st)
				}
			}
		}
		// your_turn, prompt_waiting, deadline_reminder, game_started (the
		// sample, and the first player's real one): in text and HTML alike.
		if signIns < 5 {
			t.Fatalf("%d sign-in links, want one in each mail that asks its recipient to act", signIns)
		}
	})
}

// follow gets link as c, following redirects, and returns the last
// status and path.
func follow(t *testing.T, c *client, link string) (int, string) {
	t.Helper()
	for range 5 {
		r := c.get(link)
		if r.Status != http.StatusSeeOther && r.Status != http.StatusFound {
			u, _ := url.Parse(link)
			return r.Status, u.RequestURI()
		}
		link = r.Header.Get("Location")
	}
	t.Fatalf("too many redirects from %s", link)
	return 0, ""
}

// TestAssetBudget sums the style and scripts every page loads: at most
// 100 KB uncompressed in all, every one embedded and served from the site.
func TestAssetBudget(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	c := s.client()
	c.register("ana", "ana password")
	ref := regexp.MustCompile(`<(?:link[^>]+href|script[^>]+src)="([^"]+)"`)
	seen := map[string]int{}
	for _, path := range []string{"/", "/settings", "/games/1", "/login?x", "/register", "/reset"} {
		if path == "/login?x" || path == "/register" || path == "/reset" {
			c = s.client()
		}
		body := c.get(path).Body
		for _, m := range ref.FindAllStringSubmatch(body, -1) {
			if !strings.HasPrefix(m[1], "/assets/") {
				t.Fatalf("%s loads %s, not an embedded asset", path, m[1])
			}
			if _, ok := seen[m[1]]; ok {
				continue
			}
			r := c.get(m[1]).mustSee(t, 200)
			if !strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
				t.Errorf("%s: Cache-Control %q", m[1], r.Header.Get("Cache-Control"))
			}
			seen[m[1]] = len(r.Body)
		}
	}
	total := 0
	for _, n := range seen {
		total += n
	}
	t.Logf("the pages load %d bytes of style and script: %v", total, seen)
	if len(seen) < 2 || total > 100*1024 {
		t.Fatalf("the pages load %d bytes of style and script (%d files), budget 102400", total, len(seen))
	}
}

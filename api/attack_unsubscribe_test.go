package api_test

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/datamonsters/turns/notifier"
)

// harnessUnsubscribeSecret is the unsubscribe secret of a notifyEnv
// (startNotifyEnv).
var harnessUnsubscribeSecret = []byte("unsubscribe-secret")

// prefsOf is p's notification preferences, by "kind/channel".
func (e *notifyEnv) prefsOf(p *player) map[string]bool {
	e.t.Helper()
	var prefs struct {
		Preferences []struct {
			Kind, Channel string
			Enabled       bool
		} `json:"preferences"`
	}
	e.must(200, req{Method: "GET", Path: "/v1/me/notification-preferences", Token: p.Access}).decode(e.t, &prefs)
	out := map[string]bool{}
	for _, pr := range prefs.Preferences {
		out[pr.Kind+"/"+pr.Channel] = pr.Enabled
	}
	return out
}

// unsubscribePath is the path of p's unsubscribe link for scope, with a
// token made with secret.
func unsubscribePath(secret []byte, uid, scope string) string {
	return notifier.UnsubscribePath + "?token=" + url.QueryEscape(notifier.UnsubscribeToken(secret, uid, scope))
}

// oneClick is the RFC 8058 POST to path.
func oneClick(path string) req {
	return req{Method: "POST", Path: path, Body: "List-Unsubscribe=One-Click", NoContract: true,
		Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}
}

// samePrefs fails unless a and b are the same preferences.
func samePrefs(t *testing.T, what string, a, b map[string]bool) {
	t.Helper()
	for k, v := range a {
		if b[k] != v {
			t.Errorf("%s changed %s from %v to %v", what, k, v, b[k])
		}
	}
}

// TestAttackUnsubscribeForgedTokens: a one-click POST whose token is not
// one the server made for that user and scope is refused (400) and
// changes nobody's preferences: ana's token with the user part swapped
// for bob's id (re-encoded), with the scope swapped, made with another
// secret, truncated, padded, doubled, with a scope that is no kind, for
// a user id that is not a number; nor does a token in the body or the
// one-click field in the address stand for the real thing.
func TestAttackUnsubscribeForgedTokens(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ana, bob := e.register("ana"), e.register("bob")
		anaID, bobID := strconv.FormatInt(ana.ID, 10), strconv.FormatInt(bob.ID, 10)
		anaBefore, bobBefore := e.prefsOf(ana), e.prefsOf(bob)
		good := notifier.UnsubscribeToken(harnessUnsubscribeSecret, anaID, "your_turn")
		parts := strings.Split(good, ".")
		bobPart := strings.Split(notifier.UnsubscribeToken(harnessUnsubscribeSecret, bobID, "all"), ".")
		for name, tok := range map[string]string{
			"user swapped for bob's":  bobPart[0] + "." + parts[1] + "." + parts[2],
			"scope swapped for all":   parts[0] + "." + bobPart[1] + "." + parts[2],
			"other secret":            notifier.UnsubscribeToken([]byte("guessed"), bobID, "all"),
			"truncated mac":           good[:len(good)-1],
			"padded mac":              good + "A",
			"two tokens":              good + "." + good,
			"padded base64":           parts[0] + "=." + parts[1] + "." + parts[2],
			"unknown scope":           notifier.UnsubscribeToken(harnessUnsubscribeSecret, bobID, "everything"),
			"empty scope":             notifier.UnsubscribeToken(harnessUnsubscribeSecret, bobID, ""),
			"user not a number":       notifier.UnsubscribeToken(harnessUnsubscribeSecret, "bob", "all"),
			"user with a sign":        notifier.UnsubscribeToken(harnessUnsubscribeSecret, "+"+bobID+" ", "all"),
			"empty":                   "",
			"long":                    strings.Repeat(parts[0]+".", 200),
			"dots only":               "..",
			"scope with a path":       notifier.UnsubscribeToken(harnessUnsubscribeSecret, bobID, "../all"),
			"mac of the empty string": parts[0] + "." + parts[1] + ".",
		} {
			path := notifier.UnsubscribePath + "?token=" + url.QueryEscape(tok)
			if r := e.do(oneClick(path)); r.Status != 400 {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
			if r := e.do(req{Method: "GET", Path: path, NoContract: true, Header: map[string]string{"Accept": "text/html"}}); r.Status != 400 {
				t.Errorf("%s: the page: %d %s", name, r.Status, trim(r.Body))
			}
		}
		// The token where the server does not read it.
		if r := e.do(req{Method: "POST", Path: notifier.UnsubscribePath, Body: "token=" + url.QueryEscape(good) + "&List-Unsubscribe=One-Click",
			NoContract: true, Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}); r.Status != 400 {
			t.Errorf("the token in the body: %d %s", r.Status, r.Body)
		}
		// The one-click field in the address, an empty body: RFC 8058 wants it in the body.
		goodPath := unsubscribePath(harnessUnsubscribeSecret, anaID, "your_turn")
		if r := e.do(req{Method: "POST", Path: goodPath + "&List-Unsubscribe=One-Click", NoContract: true,
			Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}); r.Status != 400 {
			t.Errorf("the one-click field in the address: %d %s", r.Status, r.Body)
		}
		// A body that is not a form.
		if r := e.do(req{Method: "POST", Path: goodPath, Body: "List-Unsubscribe=One-Click", NoContract: true,
			Header: map[string]string{"Content-Type": "text/plain"}}); r.Status != 400 {
			t.Errorf("a text/plain body: %d %s", r.Status, r.Body)
		}
		if r := e.do(req{Method: "POST", Path: goodPath, Body: `{"List-Unsubscribe":"One-Click"}`, NoContract: true}); r.Status != 400 {
			t.Errorf("a JSON body: %d %s", r.Status, r.Body)
		}
		// A forged token first, the real one after: the first is the one read.
		bad := notifier.UnsubscribeToken([]byte("guessed"), bobID, "all")
		if r := e.do(oneClick(notifier.UnsubscribePath + "?token=" + url.QueryEscape(bad) + "&token=" + url.QueryEscape(good))); r.Status != 400 {
			t.Errorf("a forged token before a good one: %d %s", r.Status, r.Body)
		}
		samePrefs(t, "a refused unsubscribe, ana's", anaBefore, e.prefsOf(ana))
		samePrefs(t, "a refused unsubscribe, bob's", bobBefore, e.prefsOf(bob))
	})
}

// TestAttackUnsubscribeDoesWhatTheLinkSays: ana's link for one kind turns
// off that kind's emails for ana only: not her other kinds, not her push,
// webhook or stream notifications of that kind, and nothing of bob's.
// Opening the link (GET, HEAD) changes nothing however often. Links do not
// expire (old mail keeps working, as notifier.UnsubscribeToken says):
// after ana turns the emails on again the same link turns them off again,
// and a repeat is no error. A token for a user id that does not exist is
// no server error.
func TestAttackUnsubscribeDoesWhatTheLinkSays(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ana, bob := e.register("ana"), e.register("bob")
		anaID := strconv.FormatInt(ana.ID, 10)
		before, bobBefore := e.prefsOf(ana), e.prefsOf(bob)
		path := unsubscribePath(harnessUnsubscribeSecret, anaID, "game_over")
		for range 3 {
			e.must(200, req{Method: "GET", Path: path, Header: map[string]string{"Accept": "text/html"}})
			head, err := e.http.Head(e.srv.URL + path) // not in the contract: sent as a client would
			if err != nil {
				t.Fatal(err)
			}
			head.Body.Close()
			if head.StatusCode >= 500 {
				t.Errorf("HEAD: %d", head.StatusCode)
			}
		}
		samePrefs(t, "opening the link", before, e.prefsOf(ana))

		e.must(200, oneClick(path))
		after := e.prefsOf(ana)
		for k, v := range before {
			want := v
			if k == "game_over/email" {
				want = false
			}
			if after[k] != want {
				t.Errorf("after the one-click POST %s is %v, want %v", k, after[k], want)
			}
		}
		samePrefs(t, "ana's link, bob's", bobBefore, e.prefsOf(bob))

		e.must(200, oneClick(path)) // a repeat
		e.must(200, req{Method: "PUT", Path: "/v1/me/notification-preferences", Token: ana.Access,
			Body: map[string]any{"preferences": []map[string]any{{"kind": "game_over", "channel": "email", "enabled": true}}}})
		if !e.prefsOf(ana)["game_over/email"] {
			t.Fatal("ana could not turn the emails on again")
		}
		e.must(200, oneClick(path))
		if e.prefsOf(ana)["game_over/email"] {
			t.Error("the old link no longer works after ana turned the emails on again")
		}

		// "all" stops every kind of email, and only email.
		e.must(200, oneClick(unsubscribePath(harnessUnsubscribeSecret, anaID, "all")))
		for k, v := range e.prefsOf(ana) {
			if strings.HasSuffix(k, "/email") && v {
				t.Errorf("after the link for all emails, %s is on", k)
			}
			if !strings.HasSuffix(k, "/email") && v != before[k] {
				t.Errorf("the link for all emails changed %s", k)
			}
		}
		samePrefs(t, "ana's link for all, bob's", bobBefore, e.prefsOf(bob))

		// A user that is not there: the link does nothing, and says so without a server error.
		for _, uid := range []string{"999999999", "0", "-1", "9223372036854775807"} {
			if r := e.do(oneClick(unsubscribePath(harnessUnsubscribeSecret, uid, "all"))); r.Status >= 500 {
				t.Errorf("a token for user %s: %d %s", uid, r.Status, r.Body)
			}
		}
	})
}

// TestAttackUnsubscribePageEscapes: the confirmation page writes the
// request's address into its form; whatever else the address carries
// stays text (escaped), never markup, and the page keeps its no-referrer
// and no-store headers.
func TestAttackUnsubscribePageEscapes(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ana := e.register("ana")
		path := unsubscribePath(harnessUnsubscribeSecret, strconv.FormatInt(ana.ID, 10), "your_turn") +
			`&x="><script>alert(1)</script>&y='onmouseover='alert(2)`
		page := e.do(req{Method: "GET", Path: path, NoContract: true, Header: map[string]string{"Accept": "text/html"}})
		body := string(page.Body)
		if page.Status != 200 || strings.Contains(body, "<script>") || strings.Contains(body, "'onmouseover='") {
			t.Errorf("the page: %d\n%s", page.Status, body)
		}
		if page.Header.Get("Referrer-Policy") != "no-referrer" || page.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("the page's headers: %v", page.Header)
		}
	})
}

// TestAttackUnsubscribeLinkIsTheRecipients: the emails of one change go
// to several players at once; each email's List-Unsubscribe link, and the
// link in its text, carry a token of its own recipient, never another
// player's (which would let one player unsubscribe another).
func TestAttackUnsubscribeLinkIsTheRecipients(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ana, bob, cyd := e.register("ana"), e.register("bob"), e.register("cyd")
		ids := map[string]int64{}
		for _, p := range []*player{ana, bob, cyd} {
			ids[p.Name+"@example.com"] = p.ID
		}
		e.startGame(map[string]any{"mode": "fast"}, ana, bob, cyd)
		e.drain(t)
		mails := e.mail.all()
		if len(mails) < 3 {
			t.Fatalf("%d emails", len(mails))
		}
		for _, m := range mails {
			want, ok := ids[m.To[0]]
			if !ok {
				t.Fatalf("an email to %v", m.To)
			}
			links := []string{strings.Trim(m.Header.Get("List-Unsubscribe"), "<>")}
			text, _ := mailText(t, m)
			for _, line := range strings.Split(text, "\n") {
				if i := strings.Index(line, "https://dm.example"+notifier.UnsubscribePath); i >= 0 {
					links = append(links, strings.TrimSpace(line[i:]))
				}
			}
			for _, link := range links {
				u, err := url.Parse(link)
				if err != nil {
					t.Fatalf("%s: %v", link, err)
				}
				uid, _, err := notifier.VerifyUnsubscribeToken(harnessUnsubscribeSecret, u.Query().Get("token"))
				if err != nil || uid != strconv.FormatInt(want, 10) {
					t.Errorf("the email to %s links %s, a token of user %q (%v)", m.To[0], link, uid, err)
				}
			}
		}
	})
}

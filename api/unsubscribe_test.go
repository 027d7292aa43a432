package api_test

import (
	"bytes"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
	"github.com/getkin/kin-openapi/openapi3filter"
)

func init() {
	// The unsubscribe pages are HTML; the contract checks them as text.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	// So is the calendar feed (calendar_test.go reads it with iCalendar parsers).
	openapi3filter.RegisterBodyDecoder("text/calendar", openapi3filter.PlainBodyDecoder)
}

// TestUnsubscribeNeedsOneClickPost: opening the List-Unsubscribe link (a
// person, or a mail scanner that opens every link) shows a confirmation
// page and changes nothing; a POST without the RFC 8058 body changes
// nothing; the page's button (a form POST of List-Unsubscribe=One-Click)
// and a mailbox provider's multipart POST unsubscribe.
func TestUnsubscribeNeedsOneClickPost(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, false)
	ana, bob := e.register("ana"), e.register("bob")
	e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access,
		Body: map[string]any{"players": 2, "mode": "fast", "invite": []string{"bob"}, "deck": deck(0)}})
	waitFor(t, "the invitation", func() bool { return len(e.mail.all()) == 1 })
	m := e.mail.all()[0]
	if got := m.Header.Get("List-Unsubscribe-Post"); got != "List-Unsubscribe=One-Click" {
		t.Fatalf("List-Unsubscribe-Post %q", got)
	}
	path := strings.TrimPrefix(strings.Trim(m.Header.Get("List-Unsubscribe"), "<>"), "https://dm.example")
	invitationsOn := func() bool {
		t.Helper()
		var prefs struct {
			Preferences []struct {
				Kind, Channel string
				Enabled       bool
			} `json:"preferences"`
		}
		e.must(200, req{Method: "GET", Path: "/v1/me/notification-preferences", Token: bob.Access}).decode(t, &prefs)
		for _, p := range prefs.Preferences {
			if p.Kind == "invitation" && p.Channel == "email" {
				return p.Enabled
			}
		}
		t.Fatal("no invitation/email preference")
		return false
	}

	for range 2 { // a scanner opens the link, then the person does
		page := e.must(200, req{Method: "GET", Path: path, Header: map[string]string{"Accept": "text/html"}})
		body := string(page.Body)
		if !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") || page.Header.Get("Referrer-Policy") != "no-referrer" ||
			!strings.Contains(body, `<form method="post" action="`+strings.ReplaceAll(path, "&", "&amp;")+`">`) ||
			!strings.Contains(body, `name="List-Unsubscribe" value="One-Click"`) || !strings.Contains(body, "the invitation emails") {
			t.Fatalf("confirmation page %v:\n%s", page.Header, body)
		}
	}
	if !invitationsOn() {
		t.Fatal("opening the unsubscribe link unsubscribed")
	}
	if r := e.do(req{Method: "POST", Path: path, NoContract: true}); r.Status != 400 || !invitationsOn() {
		t.Fatalf("a POST without the one-click body: %d %s", r.Status, r.Body)
	}
	if r := e.do(req{Method: "POST", Path: path, Body: "List-Unsubscribe=Yes", NoContract: true,
		Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}); r.Status != 400 || !invitationsOn() {
		t.Fatalf("a POST with another value: %d %s", r.Status, r.Body)
	}

	// The page's button.
	done := e.must(200, req{Method: "POST", Path: path, Body: "List-Unsubscribe=One-Click",
		Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}})
	if !strings.HasPrefix(done.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(done.Body), "Unsubscribed") || invitationsOn() {
		t.Fatalf("after the button: %v %s", done.Header, done.Body)
	}

	// A mailbox provider's one-click POST, multipart, after bob turned them on again.
	e.must(200, req{Method: "PUT", Path: "/v1/me/notification-preferences", Token: bob.Access,
		Body: map[string]any{"preferences": []map[string]any{{"kind": "invitation", "channel": "email", "enabled": true}}}})
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	w.WriteField("List-Unsubscribe", "One-Click")
	w.Close()
	r := e.must(200, req{Method: "POST", Path: path, Body: form.Bytes(), Header: map[string]string{"Content-Type": w.FormDataContentType()}})
	if r.code(t) != "" || !strings.Contains(string(r.Body), `"unsubscribed"`) || invitationsOn() {
		t.Fatalf("one-click multipart: %s", r.Body)
	}
}

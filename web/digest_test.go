package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
)

// TestDigestHours: the notification settings offer the digest with its
// period, say it as it is (not "daily" when it is not), keep what the
// form chooses where the API sees it, offer a period chosen through the
// API, and refuse one out of 1 to 168 hours.
func TestDigestHours(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	c := s.client()
	c.register("ana", "ana password")
	ana := s.apiLogin("ana", "ana password")
	digest := func() (bool, int) {
		var prefs struct {
			Preferences []struct {
				Kind, Channel string
				Enabled       bool
				Hours         int
			}
		}
		s.apiCall(http.MethodGet, "/v1/me/notification-preferences", ana.Access, nil, &prefs)
		for _, p := range prefs.Preferences {
			if p.Kind == "digest" && p.Channel == "email" {
				return p.Enabled, p.Hours
			}
		}
		t.Fatal("no digest in the preferences")
		return false, 0
	}
	page := c.get("/settings").mustSee(t, 200, `<th scope="row">Digest every 24 hours (once a day)</th>`,
		`<label for="digest-hours">How often the digest comes</label>`, `<option value="24" selected>every 24 hours (once a day)</option>`,
		`<option value="8">every 8 hours</option>`)
	if strings.Contains(page.Body, "Daily digest") {
		t.Fatal("the digest is called daily")
	}
	c.post("/settings/notifications", url.Values{"pref": {"digest/email"}, "digest_hours": {"8"}}).mustRedirect(t, "/settings?done=notify")
	if on, hours := digest(); !on || hours != 8 {
		t.Fatalf("after the form: digest %v every %d hours", on, hours)
	}
	c.get("/settings").mustSee(t, 200, `<th scope="row">Digest every 8 hours</th>`, `<option value="8" selected>every 8 hours</option>`,
		`value="digest/email" checked`)
	// A period the page does not list, chosen through the API, is offered
	// as it is.
	s.apiCall(http.MethodPut, "/v1/me/notification-preferences", ana.Access,
		map[string]any{"preferences": []map[string]any{{"kind": "digest", "channel": "email", "enabled": true, "hours": 6}}}, nil)
	c.get("/settings").mustSee(t, 200, `<th scope="row">Digest every 6 hours</th>`, `<option value="6" selected>every 6 hours</option>`)
	for _, bad := range []string{"0", "169", "often"} {
		c.post("/settings/notifications", url.Values{"pref": {"digest/email"}, "digest_hours": {bad}}).
			mustSee(t, 422, "Choose how often the digest comes")
	}
	if _, hours := digest(); hours != 6 {
		t.Fatalf("a refused period changed the digest to every %d hours", hours)
	}
	// A form without the period leaves it as it is.
	c.post("/settings/notifications", url.Values{"pref": {"digest/email"}}).mustRedirect(t, "/settings?done=notify")
	if _, hours := digest(); hours != 6 {
		t.Fatalf("a form without a period made it %d hours", hours)
	}
}

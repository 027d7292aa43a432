package web_test

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// requests is a log handler that keeps the paths of the request lines the
// router logs, one per request it serves (the API's included).
type requests struct {
	mu    sync.Mutex
	paths []string
}

func (r *requests) Enabled(context.Context, slog.Level) bool { return true }
func (r *requests) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *requests) WithGroup(string) slog.Handler            { return r }

func (r *requests) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message != "request" {
		return nil
	}
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "path" {
			r.mu.Lock()
			r.paths = append(r.paths, a.Value.String())
			r.mu.Unlock()
			return false
		}
		return true
	})
	return nil
}

// since returns the paths logged after the first n, once the last is
// want (the log line is written as the handler returns, which may be after
// the client has the page).
func (r *requests) since(t *testing.T, n int, want string) []string {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		r.mu.Lock()
		got := append([]string(nil), r.paths[n:]...)
		r.mu.Unlock()
		if len(got) > 0 && got[len(got)-1] == want || time.Now().After(deadline) {
			return got
		}
	}
}

func (r *requests) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.paths)
}

// TestSettingsReadIsDirect: the settings page reads the accounts directly,
// as the API does, instead of asking the JSON API: a read of it is one
// request through the router (no JSON round trip under /v1 beside it) and
// mints no access token, with preferences, vacations, API tokens and a
// calendar feed to show.
func TestSettingsReadIsDirect(t *testing.T) {
	log := &requests{}
	s := newSite(t, models.SQLite, siteOptions{log: log})
	c := s.client()
	c.register("ana", "ana password")
	key := hiddenValue(t, c.get("/settings").mustSee(t, 200).Body, "key")
	day := s.clock.Now().AddDate(0, 0, 2).Format(time.DateOnly)
	c.post("/settings/vacations", url.Values{"key": {key}, "first_day": {day}, "last_day": {day}}).mustRedirect(t, "/settings?done=vacation")
	c.post("/settings/tokens", url.Values{"key": {"t" + key}, "name": {"bot"}, "scope": {"read"}}).mustSee(t, 201)
	c.post("/settings/calendar", nil).mustRedirect(t, "/settings?done=calendar")

	minted, n := s.accounts.AccessTokensIssued(), log.count()
	c.get("/settings").mustSee(t, 200, "bot", "End or cancel it", "Subscribe to this address")
	if got := s.accounts.AccessTokensIssued() - minted; got != 0 {
		t.Errorf("a read of the settings minted %d access tokens", got)
	}
	if paths := log.since(t, n, "/settings"); len(paths) != 1 || strings.HasPrefix(paths[0], "/v1/") {
		t.Errorf("a read of the settings made these requests: %q", paths)
	}
	// The counter counts: a sign-in of the API mints one.
	s.apiLogin("ana", "ana password")
	if got := s.accounts.AccessTokensIssued() - minted; got != 1 {
		t.Errorf("a sign-in of the API counted %d access tokens", got)
	}
}

package web

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

// TestSeenCookie: the versions a browser saw are read from its cookie
// whatever it holds (garbage is skipped), the game shown goes first, and
// the cookie keeps 20 games at most; a query's since comes before it.
func TestSeenCookie(t *testing.T) {
	p := &Pages{}
	var entries []string
	for g := range 30 {
		entries = append(entries, strconv.Itoa(g+1)+"."+strconv.Itoa(10*(g+1)))
	}
	for _, tc := range []struct {
		cookie, query string
		want          int64
	}{
		{"", "", 0},
		{"7.70", "", 70},
		{"x.1-7.-3-7.abc-.-7.70", "", 70},
		{"7.70", "since=5", 5},
		{"7.70", "since=-5", 70},
		{"7.70", "since=abc", 70},
		{strings.Join(entries, "-"), "", 70},
		{strings.Repeat("-", 5000) + "7.70", "", 70}, // empty entries are skipped
	} {
		rec := httptest.NewRecorder()
		c, _ := gin.CreateTestContext(rec)
		c.Request = httptest.NewRequest(http.MethodGet, "/games/7?"+tc.query, nil)
		if tc.cookie != "" {
			c.Request.AddCookie(&http.Cookie{Name: seenCookie, Value: tc.cookie})
		}
		if got := sinceOf(c, 7); got != tc.want {
			t.Errorf("cookie %.40q, query %q: since %d, want %d", tc.cookie, tc.query, got, tc.want)
		}
		p.markSeen(c, 7, 99)
		set := rec.Result().Cookies()
		if len(set) != 1 || !strings.HasPrefix(set[0].Value, "7.99") || strings.Count(set[0].Value, "-") >= seenGames || !set[0].HttpOnly {
			t.Errorf("cookie %.40q: set %v", tc.cookie, set)
		}
	}
}

// TestNewsBanner: the banner shows at most newsMax lines, the last one
// pointing to the log for the rest, or for what came before; none for no
// news; every sentence escaped.
func TestNewsBanner(t *testing.T) {
	if got := newsHTML(nil, true); got != "" {
		t.Errorf("no news: %q", got)
	}
	var many []string
	for i := range 12 {
		many = append(many, "News <"+strconv.Itoa(i)+">.")
	}
	got := string(newsHTML(many, false))
	if strings.Count(got, "<li>") != newsMax || !strings.Contains(got, "5 more in the log below") || strings.Contains(got, "<0>") ||
		!strings.Contains(got, "News &lt;0&gt;.") {
		t.Errorf("many news:\n%s", got)
	}
	if got := string(newsHTML(many[:2], true)); strings.Count(got, "<li>") != 3 || !strings.Contains(got, "More happened before") {
		t.Errorf("earlier news:\n%s", got)
	}
}

package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
)

// deprecation is a form of a request that still works but is going away
// (docs/api-changes.md, "Policy"): since when, and the sunset, after
// which it may stop working.
type deprecation struct {
	since, sunset time.Time
}

// descriptiveFieldsSunset: text, min, max and options in a submitted
// action, which a client sends when it sends a legal entry back as it was
// listed. The server ignores them.
var descriptiveFieldsSunset = deprecation{
	since:  time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
	sunset: time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC),
}

// changesURL is the changelog clients read, where every deprecation is
// listed with how to adapt.
const changesURL = "https://github.com/datamonsters/turns/blob/main/docs/api-changes.md"

// deprecated marks the response to a request that used d: Deprecation
// (RFC 9745, the date it was deprecated), Sunset (RFC 8594) and a Link to
// the changelog. It is set before the handler answers, so that a refusal
// carries it too.
func deprecated(c *gin.Context, d deprecation) {
	c.Header("Deprecation", "@"+strconv.FormatInt(d.since.Unix(), 10))
	c.Header("Sunset", d.sunset.UTC().Format(http.TimeFormat))
	c.Header("Link", "<"+changesURL+`>; rel="deprecation"`)
}

package router

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
)

// What a page of an allowed origin may send and read (CORS). The request
// headers are those the API reads; the exposed ones those it sets beyond
// the CORS-safelisted (Cache-Control, Content-Type, ...).
const (
	corsMethods = "GET, HEAD, POST, PUT, PATCH, DELETE"
	corsHeaders = "Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, Last-Event-ID, X-Request-ID"
	corsExposed = "ETag, Location, Retry-After, X-Request-ID, Idempotent-Replayed, WWW-Authenticate, Allow, " +
		"Deprecation, Sunset, Link, RateLimit, RateLimit-Policy"
	corsMaxAge = "600" // seconds a browser may keep a preflight's answer
)

// ParseCORSOrigins reads CORS_ORIGINS: comma-separated origins
// (scheme://host[:port], http or https, no path) or "*" for every origin.
// Blank entries are skipped; an empty list turns CORS off. Origins are
// lower-cased, as browsers send them.
func ParseCORSOrigins(list string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(list, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o != "*" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
				strings.TrimSuffix(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
				return nil, fmt.Errorf("CORS_ORIGINS: %q is not an origin such as https://play.example.org", o)
			}
			o = strings.ToLower(u.Scheme + "://" + u.Host)
		}
		out = append(out, o)
	}
	return out, nil
}

// cors lets the pages of the origins call the house: it names
// the origin in Access-Control-Allow-Origin (with credentials allowed;
// "*" for any other origin when "*" is configured, never with
// credentials), exposes the API's headers, and answers a preflight (an
// OPTIONS with Access-Control-Request-Method) with 204 and what may be
// sent. A request from another origin gets no CORS header, so the browser
// keeps the answer from the page; its preflight goes on to the router
// (405). Installed only when Config.CORSOrigins is not empty.
func cors(origins []string) gin.HandlerFunc {
	return func(c *gin.Context) { allowOrigin(c, origins) }
}

// allowOrigin is cors for the origins given.
func allowOrigin(c *gin.Context, origins []string) {
	h := c.Writer.Header()
	h.Add("Vary", "Origin")
	origin := c.GetHeader("Origin")
	switch {
	case origin == "":
		c.Next()
		return
	case slices.Contains(origins, strings.ToLower(origin)):
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
	case slices.Contains(origins, "*"):
		h.Set("Access-Control-Allow-Origin", "*")
	default:
		c.Next()
		return
	}
	if c.Request.Method == http.MethodOptions && c.GetHeader("Access-Control-Request-Method") != "" {
		h.Del("Allow") // the router's, for OPTIONS itself
		h.Set("Access-Control-Allow-Methods", corsMethods)
		h.Set("Access-Control-Allow-Headers", corsHeaders)
		h.Set("Access-Control-Max-Age", corsMaxAge)
		c.AbortWithStatus(http.StatusNoContent)
		return
	}
	h.Set("Access-Control-Expose-Headers", corsExposed)
	c.Next()
}

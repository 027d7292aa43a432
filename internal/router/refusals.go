package router

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/refusal"
	"github.com/gin-gonic/gin"
)

// KindOf is the kind of refusal err is (refusal.KindOf), and TooLarge
// for a request body past the limit: what the doors that answer HTTP map
// to their answer.
func KindOf(err error) refusal.Kind {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return refusal.TooLarge
	}
	return refusal.KindOf(err)
}

// RateHeaders says how the buckets an attempt was counted in stand, in the
// fields of the IETF draft draft-ietf-httpapi-ratelimit-headers:
// RateLimit-Policy (see RatePolicy) and RateLimit, what is left (r) and
// the seconds until the bucket is full again (t), one item per limit, in
// the order they are counted. A limit a refused attempt did not reach is
// in the policy alone. A tally of nothing says nothing.
func RateHeaders(c *gin.Context, t refusal.Tally) {
	if len(t.Limits) == 0 {
		return
	}
	var left []string
	for i, l := range t.Limits[:len(t.States)] {
		left = append(left, fmt.Sprintf("%s;r=%d;t=%d", item(l), t.States[i].Left, ceilSeconds(t.States[i].Full)))
	}
	c.Header("RateLimit-Policy", policyHeader(t.Limits))
	c.Header("RateLimit", strings.Join(left, ", "))
}

// RatePolicy marks every response of a route whose attempts count in
// limits with their RateLimit-Policy, a request refused before it is
// counted (a malformed one) too; RateHeaders adds RateLimit once it
// counts.
func RatePolicy(limits ...refusal.Limit) gin.HandlerFunc {
	policy := policyHeader(limits)
	return func(c *gin.Context) {
		c.Header("RateLimit-Policy", policy)
		c.Next()
	}
}

// policyHeader is the RateLimit-Policy of limits: each with its quota (q,
// the burst) and window (w, the seconds an empty bucket takes to fill).
func policyHeader(limits []refusal.Limit) string {
	var out []string
	for _, l := range limits {
		burst := max(l.Rate.Burst, 1)
		out = append(out, fmt.Sprintf("%s;q=%d;w=%d", item(l), burst, ceilSeconds(time.Duration(burst)*l.Rate.Every)))
	}
	return strings.Join(out, ", ")
}

// item is the limit's name as a RateLimit field names it: a quoted string,
// "login-account".
func item(l refusal.Limit) string { return strconv.Quote(strings.ReplaceAll(l.Name, " ", "-")) }

// ceilSeconds is d in whole seconds, rounded up.
func ceilSeconds(d time.Duration) int64 { return int64((d + time.Second - 1) / time.Second) }

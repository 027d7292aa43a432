// Package router is the one HTTP router of the house, on which main
// mounts the front doors that answer HTTP (the JSON API and the pages) as
// peers: each adds its routes, and the requests no route takes go to the
// door whose paths they are in (a 404 page outside /v1, a problem+json
// under it). What every request gets, whichever door answers it, is
// here too: request ids, the log line, HEAD answered as GET, a panic
// caught, CORS, the body limit, and the client address the rate limits
// count.
//
// It imports no door: the doors import it, and only main (and the tests
// that serve the whole house) mounts more than one.
package router

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/netip"
	"regexp"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// Config is the router's part of the configuration. Zero values take the
// defaults noted.
type Config struct {
	// MaxBodyBytes is the request body limit; 0 means 1 MiB.
	MaxBodyBytes int64
	// TrustedProxies are the addresses (IPs or CIDRs) whose X-Forwarded-For
	// names the client, for the rate limits and the logs. Empty: none, the
	// peer address is the client.
	TrustedProxies []string
	// CORSOrigins are the origins whose browser pages may call the house
	// (see ParseCORSOrigins; "*" is any origin, without credentials).
	// Empty: CORS is off, no response carries an Access-Control header.
	CORSOrigins []string
	// Log takes a line per request; nil is slog.Default().
	Log *slog.Logger
}

// Door is a front door served on the router.
type Door interface {
	// Routes adds the door's routes to r.
	Routes(r *gin.Engine)
	// NotFound answers a request of the door's paths that no route takes,
	// and MethodNotAllowed one whose method its route does not take.
	NotFound(c *gin.Context)
	MethodNotAllowed(c *gin.Context)
	// Failed answers a request of the door's paths whose handler
	// panicked (the panic is logged already), as a failure of the server.
	Failed(c *gin.Context)
}

// Mount is a door and the paths it answers for when no route takes a
// request: those that start with Prefix ("" is every path). The longest
// prefix that matches wins.
type Mount struct {
	Prefix string
	Door   Door
}

// Context keys every door may read.
const (
	CtxRequestID = "request_id" // string: the request's id (see requestID)
	CtxUserID    = "user_id"    // int64: the signed-in user, for the log line; set by a door
)

// New returns the router with every door's routes. A door mounted with no
// prefix answers the requests no other door's prefix takes.
func New(cfg Config, doors ...Mount) *gin.Engine {
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	if err := r.SetTrustedProxies(cfg.TrustedProxies); err != nil {
		cfg.Log.Error("TRUSTED_PROXIES ignored", "error", err)
		r.SetTrustedProxies(nil)
	}
	r.HandleMethodNotAllowed = true
	h := house{cfg: cfg, doors: doors}
	r.Use(answerHead(r), requestID, h.logRequests, h.recover)
	if len(cfg.CORSOrigins) > 0 {
		r.Use(cors(cfg.CORSOrigins))
	}
	r.Use(h.limitBody)
	r.NoRoute(func(c *gin.Context) { h.door(c).NotFound(c) })
	r.NoMethod(func(c *gin.Context) { h.door(c).MethodNotAllowed(c) })
	for _, d := range doors {
		d.Door.Routes(r)
	}
	return r
}

// house is the router's configuration and doors, for its middleware.
type house struct {
	cfg   Config
	doors []Mount
}

// door is the door of the request's path: the one of the longest prefix
// that matches (nil if none does, which New's doors rule out by mounting
// one with no prefix; see New).
func (h house) door(c *gin.Context) Door {
	var best *Mount
	for i, d := range h.doors {
		if strings.HasPrefix(c.Request.URL.Path, d.Prefix) && (best == nil || len(d.Prefix) > len(best.Prefix)) {
			best = &h.doors[i]
		}
	}
	if best == nil {
		return noDoor{}
	}
	return best.Door
}

// noDoor answers a path no door was mounted for with bare statuses.
type noDoor struct{}

func (noDoor) Routes(*gin.Engine)              {}
func (noDoor) NotFound(c *gin.Context)         { c.AbortWithStatus(http.StatusNotFound) }
func (noDoor) MethodNotAllowed(c *gin.Context) { c.AbortWithStatus(http.StatusMethodNotAllowed) }
func (noDoor) Failed(c *gin.Context)           { c.AbortWithStatus(http.StatusInternalServerError) }

// headKey marks the context of a HEAD request that answerHead routes as a
// GET.
type headKey struct{}

// IsHead reports whether r is a HEAD request answered as a GET. A handler
// that does not end by itself (a stream) returns after its headers.
func IsHead(r *http.Request) bool { return r.Context().Value(headKey{}) != nil }

// answerHead answers HEAD on every GET route, which gin does not do by
// itself: the request goes through the router again as a GET, with that
// route's middleware and handler, and net/http, which still sees a HEAD,
// sends the status and headers without the body. No HEAD route is
// registered, so none appears in the route table; a HEAD without a GET
// route gets what a GET would (404, or 405 with Allow).
func answerHead(r *gin.Engine) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.Method != http.MethodHead {
			c.Next()
			return
		}
		c.Writer.Header().Del("Allow") // the router's answer to HEAD itself
		c.Status(http.StatusOK)
		get := c.Request.WithContext(context.WithValue(c.Request.Context(), headKey{}, true))
		get.Method = http.MethodGet
		c.Request = get
		r.HandleContext(c)
		c.Abort()
	}
}

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// requestID takes the client's X-Request-ID when it is sane, else makes one,
// and echoes it in the response.
func requestID(c *gin.Context) {
	id := c.GetHeader("X-Request-ID")
	if !requestIDPattern.MatchString(id) {
		b := make([]byte, 8)
		rand.Read(b) // never fails (crypto/rand)
		id = hex.EncodeToString(b)
	}
	c.Set(CtxRequestID, id)
	c.Header("X-Request-ID", id)
	c.Next()
}

// logRequests writes one JSON log line per request.
func (h house) logRequests(c *gin.Context) {
	start := time.Now()
	c.Next()
	method := c.Request.Method
	if IsHead(c.Request) {
		method = http.MethodHead
	}
	attrs := make([]slog.Attr, 0, 9) // the seven below, a user and an error: one allocation
	attrs = append(attrs,
		slog.String("request_id", c.GetString(CtxRequestID)),
		slog.String("method", method),
		slog.String("route", c.FullPath()),
		slog.String("path", c.Request.URL.Path),
		slog.String("client_ip", c.ClientIP()),
		slog.Int("status", c.Writer.Status()),
		slog.Duration("duration", time.Since(start)),
	)
	if uid := c.GetInt64(CtxUserID); uid != 0 {
		attrs = append(attrs, slog.Int64("user_id", uid))
	}
	level := slog.LevelInfo
	if len(c.Errors) > 0 {
		level = slog.LevelError
		attrs = append(attrs, slog.String("error", c.Errors.String()))
	}
	h.cfg.Log.LogAttrs(c.Request.Context(), level, "request", attrs...)
}

// recover turns a panic into the door's answer of a failure.
func (h house) recover(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			h.cfg.Log.Error("panic", "request_id", c.GetString(CtxRequestID), "panic", v)
			h.door(c).Failed(c)
		}
	}()
	c.Next()
}

// limitBody caps request bodies at MaxBodyBytes.
func (h house) limitBody(c *gin.Context) {
	if c.Request.Body != nil {
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, h.cfg.MaxBodyBytes)
	}
	c.Next()
}

// ClientAddress is the request's client address as rate limits count it:
// an IPv4 address, or the /64 of an IPv6 address (one host often has a
// whole /64).
func ClientAddress(c *gin.Context) string {
	ip := c.ClientIP()
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

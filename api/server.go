package api

import (
	"context"
	"encoding/hex"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	turns "github.com/datamonsters/turns"
	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/bounded"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// Config is what the API needs to know. Secret, Issuer and Audience are
// required; zero durations and sizes take the defaults noted (and so do
// the rate limits' negative ones).
type Config struct {
	Secret       []byte        // HS256 key for access tokens
	Issuer       string        // iss of access tokens
	Audience     string        // aud of access tokens
	AccessTTL    time.Duration // access token lifetime; 0 means 15 minutes
	RefreshTTL   time.Duration // refresh token lifetime; 0 means 30 days
	MaxBodyBytes int64         // request body limit; 0 means 1 MiB
	BaseURL      string        // public address, for links
	// LoginBurst and LoginEvery limit the attempts to log in to one
	// account, from any address, and to change its password: LoginBurst
	// attempts at once, one more per LoginEvery. Zero means 10 and 1 minute
	// (at most 70 guesses an hour, under ASVS's 100).
	LoginBurst int
	LoginEvery time.Duration
	// LoginAddressBurst and LoginAddressEvery limit those attempts from one
	// client address (an IPv6 address by its /64), to any accounts. Zero
	// means 30 and 10 seconds.
	LoginAddressBurst int
	LoginAddressEvery time.Duration
	// RegisterBurst and RegisterEvery limit registrations from one client
	// address. Zero means 20 and 3 minutes.
	RegisterBurst int
	RegisterEvery time.Duration
	// TrustedProxies are the addresses (IPs or CIDRs) whose X-Forwarded-For
	// names the client, for the rate limits and the logs. Empty: none, the
	// peer address is the client.
	TrustedProxies []string
	// CORSOrigins are the origins whose browser pages may call the API
	// (see ParseCORSOrigins; "*" is any origin, without credentials).
	// Empty: CORS is off, no response carries an Access-Control header.
	CORSOrigins []string
}

// Server holds the API's dependencies. Build it with New.
type Server struct {
	cfg      Config
	store    *models.Store
	cat      *engine.Catalog
	log      *slog.Logger
	now      func() time.Time
	limits   limits                              // login and registration attempts, counted in the database
	hash     func(password string) string        // hashPassword; tests count its calls
	play     *play.Service                       // the play path: every change of a game goes through it
	bodies   *bounded.Map[bodyKey, []byte]       // encoded game details and legal actions by version and seat
	verified *bounded.Map[string, verifiedToken] // access tokens already verified (see parseAccess)
	notify   *Notifications                      // nil: streams and redelivery answer 503; see SetNotifications
	running  runningKeys                         // the Idempotency-Keys of requests running now (see idempotent)
	pages    Pages                               // the browser's pages; nil: none (see SetPages)
	router   *gin.Engine                         // the last router Handler built, for CallAs
	// inbound takes the messages mail providers post, authenticated by
	// inboundSecret; nil: POST /v1/inbound/email answers 503.
	inbound       Inbound
	inboundSecret string
	feedKey       []byte // the key of the calendar feeds' tokens (see calendar.go)
}

// New returns the API server. now is the clock (nil means time.Now).
func New(store *models.Store, cfg Config, log *slog.Logger, now func() time.Time) *Server {
	if now == nil {
		now = time.Now
	}
	if cfg.AccessTTL == 0 {
		cfg.AccessTTL = 15 * time.Minute
	}
	if cfg.RefreshTTL == 0 {
		cfg.RefreshTTL = 30 * 24 * time.Hour
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.LoginBurst <= 0 {
		cfg.LoginBurst = 10
	}
	if cfg.LoginEvery <= 0 {
		cfg.LoginEvery = time.Minute
	}
	if cfg.LoginAddressBurst <= 0 {
		cfg.LoginAddressBurst = 30
	}
	if cfg.LoginAddressEvery <= 0 {
		cfg.LoginAddressEvery = 10 * time.Second
	}
	if cfg.RegisterBurst <= 0 {
		cfg.RegisterBurst = 20
	}
	if cfg.RegisterEvery <= 0 {
		cfg.RegisterEvery = 3 * time.Minute
	}
	if log == nil {
		log = slog.Default()
	}
	return &Server{cfg: cfg, store: store, cat: engine.Standard(), log: log, now: now, limits: newLimits(cfg), hash: hashPassword,
		play: play.New(store, now, log), bodies: bounded.New[bodyKey, []byte](4096),
		verified: bounded.New[string, verifiedToken](16384), feedKey: feedKey(cfg.Secret)}
}

// Play is the play path the server's game routes call, for the other
// front doors and the notifier's clock and bot jobs to share (and with it
// the states it keeps).
func (s *Server) Play() *play.Service { return s.play }

// Handler returns the HTTP handler with every route.
func (s *Server) Handler() http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	if err := r.SetTrustedProxies(s.cfg.TrustedProxies); err != nil {
		s.log.Error("TRUSTED_PROXIES ignored", "error", err)
		r.SetTrustedProxies(nil)
	}
	r.HandleMethodNotAllowed = true
	r.Use(answerHead(r), s.requestID, s.logRequests, s.recover)
	if len(s.cfg.CORSOrigins) > 0 {
		r.Use(s.cors)
	}
	r.Use(s.limitBody)
	r.NoRoute(func(c *gin.Context) {
		if s.pages != nil && !strings.HasPrefix(c.Request.URL.Path, "/v1/") {
			s.pages.NotFound(c)
			return
		}
		writeError(c, errNotFound)
	})
	r.NoMethod(func(c *gin.Context) {
		if s.pages != nil && !strings.HasPrefix(c.Request.URL.Path, "/v1/") {
			s.pages.MethodNotAllowed(c)
			return
		}
		if allow := strings.Split(c.Writer.Header().Get("Allow"), ", "); slices.Contains(allow, http.MethodGet) {
			c.Header("Allow", strings.Join(append(allow, http.MethodHead), ", "))
		}
		writeError(c, newError(http.StatusMethodNotAllowed, "method_not_allowed", "Method not allowed", "this route does not take %s", c.Request.Method))
	})
	s.routes(r)
	if s.pages != nil {
		s.pages.Routes(r)
	}
	s.router = r
	return r
}

// routes is the route table: every route, grouped by the authentication it
// needs. It reads like openapi.yaml.
func (s *Server) routes(r *gin.Engine) {
	// Operations and the contract: no authentication.
	r.GET("/healthz", s.healthz)
	r.GET("/readyz", s.readyz)
	r.GET("/openapi.yaml", s.openapi)

	v1 := r.Group("/v1")

	// Public: accounts, players' profiles and the card catalogue.
	v1.POST("/auth/register", ratePolicy(s.limits.register), s.register)
	v1.POST("/auth/login", ratePolicy(s.limits.loginAddress, s.limits.loginAccount), s.login)
	v1.POST("/auth/refresh", s.refresh)
	v1.POST("/auth/logout", s.logout)
	v1.GET("/cards", s.listCards)
	v1.GET("/prebuilt-decks", s.listPrebuiltDecks)
	v1.GET("/users/:name", s.getUser)
	v1.GET("/calendar/:file", s.calendarFeed) // the token in the address is the credential
	v1.GET("/unsubscribe", s.unsubscribePage)
	v1.POST("/unsubscribe", s.unsubscribe)
	v1.POST("/inbound/email", s.inboundEmail) // authenticated by the inbound secret

	// Scope read: a login's access token or an API token with "read".
	read := v1.Group("", s.authenticate, s.require(ScopeRead))
	read.GET("/me", s.me)
	read.GET("/decks", s.listDecks)
	read.GET("/decks/:id", s.getDeck)
	read.GET("/games", s.listGames)
	// These two check an access token's generation with the one query they
	// start with (see visibleJSON), which reads it along.
	readRef := v1.Group("", s.authenticateLater, s.require(ScopeRead))
	readRef.GET("/games/:id", s.getGame)
	readRef.GET("/games/:id/legal", s.legalActions)
	read.GET("/games/:id/events", s.listEvents)
	read.GET("/games/:id/actions", s.actionLog)
	read.GET("/games/:id/stream", s.streamGame)
	read.GET("/games/:id/messages", s.listMessages)
	read.GET("/notifications/stream", s.streamNotifications)
	read.GET("/webhooks", s.listWebhooks)
	read.POST("/webhooks", s.createWebhook)
	read.DELETE("/webhooks/:id", s.deleteWebhook)
	read.POST("/webhooks/:id/enable", s.enableWebhook)
	read.GET("/webhooks/:id/deliveries", s.listDeliveries)
	read.POST("/webhooks/:id/deliveries/:delivery/redeliver", s.redeliver)

	// Scope play: a login's access token or an API token with "play".
	play := v1.Group("", s.authenticate, s.require(ScopePlay))
	play.POST("/decks", s.createDeck)
	play.PUT("/decks/:id", s.updateDeck)
	play.DELETE("/decks/:id", s.deleteDeck)
	play.POST("/games", s.createGame)
	play.POST("/games/:id/join", s.joinGame)
	play.POST("/games/:id/leave", s.leaveGame)
	play.POST("/games/:id/start", s.startGame)
	play.POST("/games/:id/cancel", s.cancelGame)
	play.POST("/games/:id/resign", s.resign)
	play.POST("/games/:id/vote-end", s.voteEnd)
	play.POST("/games/:id/reclaim", s.reclaim)
	play.POST("/games/:id/actions", s.submitActions)
	play.PUT("/games/:id/email-replies", s.setGameReplies)
	play.POST("/games/:id/messages", s.postMessage)
	play.PUT("/games/:id/messages/mute", s.muteMessages)

	// Session only: a login's access token, never an API token.
	session := v1.Group("", s.authenticate, s.require(scopeAccount))
	session.PATCH("/me", s.updateMe)
	session.POST("/me/logout-everywhere", s.logoutEverywhere)
	session.GET("/me/notification-preferences", s.getPreferences)
	session.PUT("/me/notification-preferences", s.updatePreferences)
	session.GET("/me/vacations", s.listVacations)
	session.POST("/me/vacations", s.createVacation)
	session.PATCH("/me/vacations/:id", s.endVacation)
	session.DELETE("/me/vacations/:id", s.cancelVacation)
	session.GET("/me/calendar", s.getCalendar)
	session.POST("/me/calendar", s.createCalendar)
	session.DELETE("/me/calendar", s.deleteCalendar)
	session.GET("/tokens", s.listTokens)
	// Counted as a login is, with the login's RateLimit-Policy on every
	// response, those refused for their credentials too.
	limitedSession := v1.Group("", ratePolicy(s.limits.loginAddress, s.limits.loginAccount), s.authenticate, s.require(scopeAccount))
	limitedSession.POST("/me/password", s.changePassword)
	session.POST("/tokens", s.createToken)
	session.DELETE("/tokens/:id", s.revokeToken)
}

// Context keys.
const (
	ctxRequestID = "request_id"
	ctxUserID    = "user_id"
	ctxScopes    = "scopes"
	ctxTokenID   = "token_id" // the API token's id; unset for a login session
	// ctxAccess is the verifiedToken of a request authenticated with
	// authenticateLater by an access token, for checkLater; and
	// ctxAccessChecked says that checkLater ran.
	ctxAccess        = "access"
	ctxAccessChecked = "access_checked"
)

// scopeAccount is held only by login access tokens: managing the account
// and its API tokens.
const scopeAccount = "account"

// headKey marks the context of a HEAD request that answerHead routes as a
// GET.
type headKey struct{}

// isHead reports whether r is a HEAD request answered as a GET. A handler
// that does not end by itself (a stream) returns after its headers.
func isHead(r *http.Request) bool { return r.Context().Value(headKey{}) != nil }

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
func (s *Server) requestID(c *gin.Context) {
	id := c.GetHeader("X-Request-ID")
	if !requestIDPattern.MatchString(id) {
		id = hex.EncodeToString(randomBytes(8))
	}
	c.Set(ctxRequestID, id)
	c.Header("X-Request-ID", id)
	c.Next()
}

// logRequests writes one JSON log line per request.
func (s *Server) logRequests(c *gin.Context) {
	start := time.Now()
	c.Next()
	method := c.Request.Method
	if isHead(c.Request) {
		method = http.MethodHead
	}
	attrs := []slog.Attr{
		slog.String("request_id", c.GetString(ctxRequestID)),
		slog.String("method", method),
		slog.String("route", c.FullPath()),
		slog.String("path", c.Request.URL.Path),
		slog.String("client_ip", c.ClientIP()),
		slog.Int("status", c.Writer.Status()),
		slog.Duration("duration", time.Since(start)),
	}
	if uid := c.GetInt64(ctxUserID); uid != 0 {
		attrs = append(attrs, slog.Int64("user_id", uid))
	}
	level := slog.LevelInfo
	if len(c.Errors) > 0 {
		level = slog.LevelError
		attrs = append(attrs, slog.String("error", c.Errors.String()))
	}
	s.log.LogAttrs(c.Request.Context(), level, "request", attrs...)
}

// recover turns a panic into a 500 problem.
func (s *Server) recover(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic", "request_id", c.GetString(ctxRequestID), "panic", v)
			writeError(c, newError(http.StatusInternalServerError, "internal", "Internal error", "the server failed to handle the request; it has been logged"))
		}
	}()
	c.Next()
}

// limitBody caps request bodies at MaxBodyBytes.
func (s *Server) limitBody(c *gin.Context) {
	if c.Request.Body != nil {
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, s.cfg.MaxBodyBytes)
	}
	c.Next()
}

// authenticate accepts "Authorization: Bearer" with a login access token
// (JWT) or a personal API token, and records the user and scopes.
func (s *Server) authenticate(c *gin.Context) { s.authenticateToken(c, false) }

// authenticateLater is authenticate for a route whose first query reads the
// user's token generation along (models.GameRef): it verifies an access
// token but leaves the check of its generation to the route (checkLater),
// sparing a query of its own. A route that does not call checkLater must
// not use it; a request that ends without the check is logged as an error.
func (s *Server) authenticateLater(c *gin.Context) {
	s.authenticateToken(c, true)
	if _, ok := c.Get(ctxAccess); ok && !c.GetBool(ctxAccessChecked) && !c.IsAborted() {
		s.log.Error("a route authenticated with authenticateLater did not check the token generation", "route", c.FullPath())
	}
}

// authenticateToken is authenticate, and authenticateLater when later.
func (s *Server) authenticateToken(c *gin.Context, later bool) {
	tok, ok := strings.CutPrefix(c.GetHeader("Authorization"), "Bearer ")
	if !ok || tok == "" {
		writeError(c, errUnauthorized)
		return
	}
	if strings.HasPrefix(tok, apiTokenPrefix) {
		t, err := s.store.APITokenByHash(c.Request.Context(), models.HashToken(tok))
		if err != nil {
			writeError(c, err)
			return
		}
		c.Set(ctxUserID, t.UserID)
		c.Set(ctxTokenID, t.ID)
		c.Set(ctxScopes, t.ScopeList())
		c.Next()
		return
	}
	var uid int64
	if later {
		v, err := s.verifyAccess(tok)
		if err != nil {
			writeError(c, errUnauthorized)
			return
		}
		uid = v.userID
		c.Set(ctxAccess, v)
	} else {
		var err error
		if uid, err = s.parseAccess(c.Request.Context(), tok); err != nil {
			writeError(c, err)
			return
		}
	}
	c.Set(ctxUserID, uid)
	c.Set(ctxScopes, []string{ScopeRead, ScopePlay, scopeAccount})
	c.Next()
}

// require lets the request through only if the token carries scope.
func (s *Server) require(scope string) gin.HandlerFunc {
	return func(c *gin.Context) {
		for _, have := range c.GetStringSlice(ctxScopes) {
			if have == scope {
				c.Next()
				return
			}
		}
		if scope == scopeAccount {
			writeError(c, forbidden("insufficient_scope", "this route needs a login session, not an API token"))
			return
		}
		writeError(c, forbidden("insufficient_scope", "this route needs the %q scope", scope))
	}
}

func userID(c *gin.Context) int64 { return c.GetInt64(ctxUserID) }

// healthz says the process is up.
func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, statusResponse{Status: "ok"})
}

// readyz says the database answers.
func (s *Server) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.Warn("readyz", "error", err)
		writeError(c, newError(http.StatusServiceUnavailable, "not_ready", "Not ready", "the database does not answer"))
		return
	}
	c.JSON(http.StatusOK, statusResponse{Status: "ready"})
}

// openapi serves the contract.
func (s *Server) openapi(c *gin.Context) {
	c.Data(http.StatusOK, "application/yaml", turns.OpenAPI)
}

// rfc3339 formats t in UTC.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func rfc3339p(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := rfc3339(*t)
	return &s
}

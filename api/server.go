package api

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	turns "github.com/datamonsters/turns"
	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/bounded"
	"github.com/datamonsters/turns/internal/jsonenc"
	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// Config is what the API needs to know. Secret is required; zero sizes
// take the defaults noted. The accounts have their own (accounts.Config).
type Config struct {
	// Secret keys the hashes and seals of idempotency records.
	Secret       []byte
	MaxBodyBytes int64  // request body limit (Handler's router); 0 means 1 MiB
	BaseURL      string // public address, for links
	// TrustedProxies and CORSOrigins are those of Handler's router (see
	// router.Config); main mounts the API on the house's router instead.
	TrustedProxies []string
	CORSOrigins    []string
}

// Server holds the API's dependencies. Build it with New.
type Server struct {
	cfg     Config
	store   *models.Store
	cat     *engine.Catalog
	log     *slog.Logger
	now     func() time.Time
	play    *play.Service                 // the play path: every change of a game goes through it
	acc     *accounts.Service             // the accounts: sign-ins, tokens, settings
	bodies  *bounded.Map[bodyKey, []byte] // encoded game details and legal actions by version and seat
	notify  *Notifications                // nil: streams and redelivery answer 503; see SetNotifications
	running runningKeys                   // the Idempotency-Keys of requests running now (see idempotent)
	// inbound takes the messages mail providers post, authenticated by
	// inboundSecret; nil: POST /v1/inbound/email answers 503.
	inbound       Inbound
	inboundSecret string
}

// New returns the API server over store, calling the play path pl and the
// accounts acc (main builds them; the API builds neither). now is the
// clock (nil means time.Now).
func New(store *models.Store, pl *play.Service, acc *accounts.Service, cfg Config, log *slog.Logger, now func() time.Time) *Server {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Server{cfg: cfg, store: store, cat: engine.Standard(), log: log, now: now, play: pl, acc: acc,
		bodies: bounded.New[bodyKey, []byte](4096)}
}

// Handler returns the API served alone: a router of its own (see package
// router) on which the API answers every path. main mounts it beside the
// pages instead (Routes).
func (s *Server) Handler() http.Handler {
	return router.New(router.Config{MaxBodyBytes: s.cfg.MaxBodyBytes, TrustedProxies: s.cfg.TrustedProxies,
		CORSOrigins: s.cfg.CORSOrigins, Log: s.log}, router.Mount{Door: s})
}

// NotFound answers a request that no route takes with a problem.
func (s *Server) NotFound(c *gin.Context) { writeError(c, errNotFound) }

// MethodNotAllowed answers a request whose method its route does not
// take, with Allow (and HEAD in it where GET is).
func (s *Server) MethodNotAllowed(c *gin.Context) {
	if allow := strings.Split(c.Writer.Header().Get("Allow"), ", "); slices.Contains(allow, http.MethodGet) {
		c.Header("Allow", strings.Join(append(allow, http.MethodHead), ", "))
	}
	writeError(c, newError(http.StatusMethodNotAllowed, "method_not_allowed", "Method not allowed", "this route does not take %s", c.Request.Method))
}

// Failed answers a request whose handler panicked with a 500 problem.
func (s *Server) Failed(c *gin.Context) {
	writeError(c, newError(http.StatusInternalServerError, "internal", "Internal error", "the server failed to handle the request; it has been logged"))
}

// Routes adds the route table to r: every route, grouped by the
// authentication it needs. It reads like openapi.yaml.
func (s *Server) Routes(r *gin.Engine) {
	// Operations and the contract: no authentication.
	r.GET("/healthz", s.healthz)
	r.GET("/readyz", handle(s.readyz))
	r.GET("/openapi.yaml", s.openapi)

	v1 := r.Group("/v1")

	// Public: accounts, players' profiles and the card catalogue.
	v1.POST("/auth/register", router.RatePolicy(s.acc.RegisterLimits()...), handle(s.register))
	v1.POST("/auth/login", router.RatePolicy(s.acc.LoginLimits()...), handle(s.login))
	v1.POST("/auth/refresh", handle(s.refresh))
	v1.POST("/auth/logout", handle(s.logout))
	v1.GET("/cards", s.listCards)
	v1.GET("/prebuilt-decks", s.listPrebuiltDecks)
	v1.GET("/users/:name", handle(s.getUser))
	v1.GET("/calendar/:file", handle(s.calendarFeed)) // the token in the address is the credential
	v1.GET("/push/vapid-key", handle(s.vapidKey))
	v1.GET("/unsubscribe", handle(s.unsubscribePage))
	v1.POST("/unsubscribe", handle(s.unsubscribe))
	v1.POST("/inbound/email", handle(s.inboundEmail)) // authenticated by the inbound secret

	// Scope read: a login's access token or an API token with "read".
	read := v1.Group("", s.authenticate, s.require(ScopeRead))
	read.GET("/me", handle(s.me))
	read.GET("/decks", handle(s.listDecks))
	read.GET("/decks/:id", handleID(s.getDeck))
	read.GET("/games", handle(s.listGames))
	// These two check an access token's generation with the one query they
	// start with (see visibleJSON), which reads it along.
	readRef := v1.Group("", s.authenticateLater, s.require(ScopeRead))
	readRef.GET("/games/:id", handle(s.getGame))
	readRef.GET("/games/:id/legal", handle(s.legalActions))
	read.GET("/games/:id/events", handle(s.listEvents))
	read.GET("/games/:id/actions", handleID(s.actionLog))
	read.GET("/games/:id/stream", handle(s.streamGame))
	read.GET("/games/:id/messages", handleID(s.listMessages))
	read.GET("/notifications/stream", handle(s.streamNotifications))
	read.GET("/webhooks", handle(s.listWebhooks))
	read.POST("/webhooks", handle(s.createWebhook))
	read.DELETE("/webhooks/:id", handleID(s.deleteWebhook))
	read.POST("/webhooks/:id/enable", handleID(s.enableWebhook))
	read.GET("/webhooks/:id/deliveries", handleID(s.listDeliveries))
	read.POST("/webhooks/:id/deliveries/:delivery/redeliver", handleID(s.redeliver))

	// Scope play: a login's access token or an API token with "play".
	play := v1.Group("", s.authenticate, s.require(ScopePlay))
	play.POST("/decks", handle(s.createDeck))
	play.PUT("/decks/:id", handleID(s.updateDeck))
	play.DELETE("/decks/:id", handleID(s.deleteDeck))
	play.POST("/games", handle(s.createGame))
	// These check an access token's generation along their lock of the
	// game (see mutateGame), or with a query of their own when they answer
	// without it.
	playRef := v1.Group("", s.authenticateLater, s.require(ScopePlay))
	playRef.POST("/games/:id/join", handle(s.joinGame))
	// The changes that take no body: leave gives up the caller's seat
	// before the start (an invitation stays open for the invitee); start
	// deals once every seat is taken and cancel ends a game not started,
	// both the creator's; resign and vote-end submit the one action they
	// name, at any version; reclaim takes the caller's seat back from the
	// bot that plays it after their timeouts.
	playRef.POST("/games/:id/leave", s.gameChange(s.play.Leave, s.lobbyOut))
	playRef.POST("/games/:id/start", s.gameChange(s.play.Start, s.submitOut))
	playRef.POST("/games/:id/cancel", s.gameChange(s.play.Cancel, s.lobbyOut))
	playRef.POST("/games/:id/resign", s.gameChange(s.play.Resign, s.submitOut))
	playRef.POST("/games/:id/vote-end", s.gameChange(s.play.VoteEnd, s.submitOut))
	playRef.POST("/games/:id/reclaim", s.gameChange(s.play.Reclaim, s.submitOut))
	playRef.POST("/games/:id/actions", handle(s.submitActions))
	play.PUT("/games/:id/email-replies", handleID(s.setGameReplies))
	play.PUT("/games/:id/messages/mute", handleID(s.muteMessages))
	// Counted in the limit of a player's messages, with its
	// RateLimit-Policy on every response.
	limitedPlay := v1.Group("", router.RatePolicy(messageLimit), s.authenticate, s.require(ScopePlay))
	limitedPlay.POST("/games/:id/messages", handle(s.postMessage))

	// Session only: a login's access token, never an API token.
	session := v1.Group("", s.authenticate, s.require(scopeAccount))
	session.PATCH("/me", handle(s.updateMe))
	session.POST("/me/logout-everywhere", handle(s.logoutEverywhere))
	session.GET("/me/notification-preferences", handle(s.getPreferences))
	session.PUT("/me/notification-preferences", handle(s.updatePreferences))
	session.GET("/me/vacations", handle(s.listVacations))
	session.POST("/me/vacations", handle(s.createVacation))
	session.PATCH("/me/vacations/:id", handleID(s.endVacation))
	session.DELETE("/me/vacations/:id", handleID(s.cancelVacation))
	session.GET("/me/quiet-hours", handle(s.getQuietHours))
	session.PUT("/me/quiet-hours", handle(s.setQuietHours))
	session.DELETE("/me/quiet-hours", handle(s.deleteQuietHours))
	session.GET("/me/calendar", handle(s.getCalendar))
	session.POST("/me/calendar", handle(s.createCalendar))
	session.DELETE("/me/calendar", handle(s.deleteCalendar))
	session.GET("/me/push-subscriptions", handle(s.listPushSubscriptions))
	session.POST("/me/push-subscriptions", handle(s.createPushSubscription))
	session.DELETE("/me/push-subscriptions", handle(s.deletePushEndpoint))
	session.DELETE("/me/push-subscriptions/:id", handleID(s.deletePushSubscription))
	session.GET("/tokens", handle(s.listTokens))
	// Counted as a login is, with the login's RateLimit-Policy on every
	// response, those refused for their credentials too.
	limitedSession := v1.Group("", router.RatePolicy(s.acc.LoginLimits()...), s.authenticate, s.require(scopeAccount))
	limitedSession.POST("/me/password", handle(s.changePassword))
	session.POST("/tokens", handle(s.createToken))
	session.DELETE("/tokens/:id", handleID(s.revokeToken))
}

// Context keys.
const (
	ctxRequestID = router.CtxRequestID
	ctxUserID    = router.CtxUserID
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
	if accounts.IsAPIToken(tok) {
		t, err := s.acc.APIToken(c.Request.Context(), tok)
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
		v, err := s.acc.VerifyAccess(tok)
		if err != nil {
			writeError(c, err)
			return
		}
		uid = v.UserID
		c.Set(ctxAccess, v)
	} else {
		var err error
		if uid, err = s.acc.AccessUser(c.Request.Context(), tok); err != nil {
			writeError(c, err)
			return
		}
	}
	c.Set(ctxUserID, uid)
	c.Set(ctxScopes, loginScopes)
	c.Next()
}

// loginScopes are the scopes of a login's access token: every scope. It
// is shared by every such request, read and never changed.
var loginScopes = []string{ScopeRead, ScopePlay, scopeAccount}

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
	writeJSON(c, http.StatusOK, statusResponse{Status: "ok"})
}

// readyz says the database answers.
func (s *Server) readyz(c *gin.Context) error {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.Warn("readyz", "error", err)
		return newError(http.StatusServiceUnavailable, "not_ready", "Not ready", "the database does not answer")
	}
	writeJSON(c, http.StatusOK, statusResponse{Status: "ready"})
	return nil
}

// openapi serves the contract.
func (s *Server) openapi(c *gin.Context) {
	c.Data(http.StatusOK, "application/yaml", turns.OpenAPI)
}

// listed puts each of xs in the API's words: an empty list, never null.
func listed[T, R any](xs []T, out func(T) R) []R {
	res := make([]R, 0, len(xs))
	for _, x := range xs {
		res = append(res, out(x))
	}
	return res
}

// writeJSON answers status with v encoded (jsonenc: encoding/json's
// bytes), as every JSON answer but a refusal's is written.
func writeJSON(c *gin.Context, status int, v any) {
	body, err := jsonenc.Marshal(v)
	if err != nil {
		writeError(c, err)
		return
	}
	c.Data(status, jsonType, body)
}

// jsonType is the Content-Type of a JSON answer.
const jsonType = "application/json; charset=utf-8"

// rfc3339 formats t in UTC.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// rfc3339p is rfc3339 of *t, nil for nil.
func rfc3339p(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := rfc3339(*t)
	return &s
}

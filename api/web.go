package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
)

// The browser's pages (package web) are served by the router Handler
// builds, beside the JSON routes, and reuse what this file exports of the
// API's account rules: the login rate limit, the password hashing, the
// username and address checks, and the JSON routes themselves for the
// account settings the API already has (CallAs). Nothing here decides
// anything of its own.

// Pages is a front door served by the API's router: the browser's pages.
type Pages interface {
	// Routes adds the pages' routes to r.
	Routes(r *gin.Engine)
	// NotFound answers a request outside /v1 that no route takes, and
	// MethodNotAllowed one whose method its route does not take.
	NotFound(c *gin.Context)
	MethodNotAllowed(c *gin.Context)
	// Unsubscribe draws the page of an unsubscribe link in the pages' look:
	// what it turns off (scope: a notification kind, or "all"), and,
	// before it is done, the button that posts the one-click request to
	// action.
	Unsubscribe(c *gin.Context, scope, action string, done bool)
}

// SetPages makes Handler serve p's routes beside the API's, and send p the
// requests outside /v1 that no route (or no method) takes. Call it before
// Handler.
func (s *Server) SetPages(p Pages) { s.pages = p }

// LoginAttempt counts one attempt to sign in to the account named
// username from c's client, in the buckets of the API's login (the
// client's address and the account, kept in the database for every
// replica), so that both doors share one budget. With none left it
// returns the seconds to wait. succeeded gives the attempt back, for a
// sign-in with the right password: only failed attempts count.
func (s *Server) LoginAttempt(c *gin.Context, username string) (retryAfter int, succeeded func(), err error) {
	took, err := s.take(c, s.loginAttempts(c, username)...)
	if err != nil {
		return waitOf(err)
	}
	return 0, func() { s.give(c, took) }, nil
}

// FormAttempt counts one attempt of a page's form that is not a sign-in,
// in a bucket of the form's own: per client address when subject is ""
// (with the numbers of the API's registration limit, which "register"
// shares), else per subject, an account or an address, from any client
// (with the numbers of the login's per-account limit). With none left it
// returns the seconds to wait.
func (s *Server) FormAttempt(c *gin.Context, form, subject string) (retryAfter int, err error) {
	a := attempt{limit{form + " account", s.limits.loginAccount.rate}, strings.ToLower(subject)}
	switch {
	case form == "register":
		a = attempt{s.limits.register, clientAddress(c)}
	case subject == "":
		a = attempt{limit{form + " address", s.limits.register.rate}, clientAddress(c)}
	}
	_, err = s.take(c, a)
	retryAfter, _, err = waitOf(err)
	return retryAfter, err
}

// waitOf turns a refused attempt into the seconds to wait.
func waitOf(err error) (int, func(), error) {
	var rl *RateLimitError
	if errors.As(err, &rl) {
		return rl.RetryAfter, nil, nil
	}
	return 0, nil, err
}

// HashPassword returns the argon2id hash the API stores for password.
func (s *Server) HashPassword(password string) string { return hashPassword(password) }

// CheckPassword reports whether password matches hash. An empty hash (no
// such user) is checked against a dummy hash and fails, so that an unknown
// username costs as long as a wrong password.
func (s *Server) CheckPassword(hash, password string) bool {
	if hash == "" {
		checkPassword(dummyHash, password)
		return false
	}
	return checkPassword(hash, password)
}

// ValidUsername reports whether name is a username the API accepts.
func (s *Server) ValidUsername(name string) bool { return usernamePattern.MatchString(name) }

// ValidEmail reports whether addr is an address the API accepts ("" is).
func (s *Server) ValidEmail(addr string) bool { return validEmail(addr) }

// CallAs serves r on the router Handler built, authenticated as userID's
// login session (a fresh access token; 0 sends r as it is), and writes the
// response to w: the API's answer, problem+json and all. r should carry
// the client's RemoteAddr, X-Forwarded-For and X-Request-ID, so that rate
// limits and logs see the client. Before Handler it answers 503.
func (s *Server) CallAs(w http.ResponseWriter, r *http.Request, userID int64) {
	if s.router == nil {
		http.Error(w, "the API is not mounted", http.StatusServiceUnavailable)
		return
	}
	if userID != 0 {
		u, err := s.store.UserByID(r.Context(), userID)
		var tok string
		if err == nil {
			tok, _, err = s.issueAccess(u, "")
		}
		if err != nil {
			http.Error(w, "access token", http.StatusInternalServerError)
			return
		}
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	s.router.ServeHTTP(w, r)
}

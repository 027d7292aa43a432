package api

import (
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
}

// SetPages makes Handler serve p's routes beside the API's, and send p the
// requests outside /v1 that no route (or no method) takes. Call it before
// Handler.
func (s *Server) SetPages(p Pages) { s.pages = p }

// Attempt takes one attempt of the login rate limit (LoginBurst at once,
// one more each LoginEvery) for the client IP and the subject. The API's
// login counts its attempts per client and lower-cased username, and the
// pages count their logins under the same key, so that both doors share one
// budget per account; the pages limit their other forms with subjects of
// their own. It returns the seconds to wait when there is no attempt left.
func (s *Server) Attempt(client, subject string) (ok bool, retryAfter int) {
	return s.logins.allow(client + "|" + strings.ToLower(subject))
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
		tok, _, err := s.issueAccess(userID, "")
		if err != nil {
			http.Error(w, "access token", http.StatusInternalServerError)
			return
		}
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	s.router.ServeHTTP(w, r)
}

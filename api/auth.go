package api

import (
	"crypto/rand"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

// Scopes of personal API tokens (accounts'). Access tokens from a login
// carry all of them and may also manage the account.
const (
	ScopeRead = accounts.ScopeRead
	ScopePlay = accounts.ScopePlay
)

// checkLater, for a route authenticated with authenticateLater, checks the
// generation of the request's access token against current, the user's
// generation as the route's first query read it (models.GameRef.TokenGen),
// and that its session is live (models.GameRef.SessionLive, read for
// laterSession): accounts.ErrTokenEnded if not. It is nil for a request
// made with an API token, which has no generation, and for one
// authenticate has checked.
func checkLater(c *gin.Context, current int64, live bool) error {
	v, ok := c.Get(ctxAccess)
	if !ok {
		return nil
	}
	c.Set(ctxAccessChecked, true)
	return v.(accounts.Access).Check(current, live)
}

// tokenCheck is the check of the access token of a request authenticated
// with authenticateLater, for a change to make along its lock of the game
// (play.Record's Token); nil when there is none to make (an API token, or
// a token checked already).
func tokenCheck(c *gin.Context) *models.TokenCheck {
	a, ok := unchecked(c)
	if !ok {
		return nil
	}
	return &models.TokenCheck{UserID: a.UserID, Session: a.Session,
		Verify: func(gen int64, live bool) error { return checkLater(c, gen, live) }}
}

// checkNow checks the access token of a request authenticated with
// authenticateLater with a query of its own, for a route that answers
// without the query that would have read it along (a stored response, a
// refusal before the change); nil when it is good or was checked already.
func (s *Server) checkNow(c *gin.Context) error {
	a, ok := unchecked(c)
	if !ok {
		return nil
	}
	c.Set(ctxAccessChecked, true)
	return s.acc.CheckAccess(c.Request.Context(), a)
}

// unchecked is the access token of a request authenticated with
// authenticateLater whose generation no one has checked yet.
func unchecked(c *gin.Context) (accounts.Access, bool) {
	v, ok := c.Get(ctxAccess)
	if !ok || c.GetBool(ctxAccessChecked) {
		return accounts.Access{}, false
	}
	return v.(accounts.Access), true
}

// laterSession is the session the access token of a request authenticated
// with authenticateLater names, for its first query to read along; "" for
// none (an API token, or a token of no session).
func laterSession(c *gin.Context) string {
	v, _ := c.Get(ctxAccess)
	a, _ := v.(accounts.Access)
	return a.Session
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return b
}

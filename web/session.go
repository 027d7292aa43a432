package web

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

// Sessions are the accounts' (accounts.Service.StartWebSession): the
// cookie holds the session's value, and a request's session is read with
// its account in one query, so a log-out, a password reset or "sign out
// everywhere" ends a session on every replica at once.

// Context keys.
const (
	ctxAccount = "web_account" // *models.Account of the request's session
	ctxSession = "web_session" // string: the session's cookie value
	ctxCheck   = "web_check"   // *models.SessionCheck: the session, to check along the board's read (boardSession)
)

// cookieName is the session cookie's name: with Secure, the __Host-
// prefix makes the browser refuse it unless it is Secure, host-only and
// for the path "/".
func (p *Pages) cookieName() string {
	if p.secure {
		return "__Host-dm_session"
	}
	return "dm_session"
}

// session reads the request's session, if any, for the handlers after it.
func (p *Pages) session(c *gin.Context) {
	p.loadSession(c)
	c.Next()
}

// boardSession is session for a game's board: a session read before in
// this process (accounts.Service.KnownWebSession) is taken as it was, and
// checked in the query that reads the game (Pages.board); the page
// confirms it before it is drawn (sessionConfirmed).
func (p *Pages) boardSession(c *gin.Context) {
	if raw := p.sessionCookie(c); raw != "" {
		if a, chk, ok := p.acc.KnownWebSession(raw); ok {
			c.Set(ctxAccount, a)
			c.Set(ctxSession, raw)
			c.Set(ctxCheck, chk)
			c.Next()
			return
		}
	}
	p.session(c)
}

// sessionCheck is the check of the request's session to make along the
// read of a game; nil for none.
func sessionCheck(c *gin.Context) *models.SessionCheck {
	v, _ := c.Get(ctxCheck)
	chk, _ := v.(*models.SessionCheck)
	return chk
}

// sessionConfirmed reports whether the session boardSession took as it
// was is confirmed by the check the board's read made of it (true for a
// request with nothing to check). When it is not (the session ended, its
// account changed, or the read made no check) the session is read as
// every page reads it (loadSession), and the result is false unless that
// read gives the same account as it was: the caller reads the board again
// for whoever the reader turned out to be.
func (p *Pages) sessionConfirmed(c *gin.Context) bool {
	chk := sessionCheck(c)
	if chk == nil {
		return true
	}
	c.Set(ctxCheck, (*models.SessionCheck)(nil))
	if p.acc.ConfirmWebSession(chk) {
		return true
	}
	assumed := account(c)
	c.Set(ctxAccount, (*models.Account)(nil))
	c.Set(ctxSession, "")
	p.loadSession(c)
	a := account(c)
	return a != nil && a.ID == assumed.ID && a.UpdatedAt.Equal(assumed.UpdatedAt)
}

// loadSession reads the session named by the cookie and records its
// account; a session used in the second half of its life is extended (and
// its cookie with it). An unknown or expired cookie is cleared.
func (p *Pages) loadSession(c *gin.Context) {
	raw := p.sessionCookie(c)
	if raw == "" {
		return
	}
	a, extended, err := p.acc.WebSession(c.Request.Context(), raw)
	if errors.Is(err, models.ErrNotFound) {
		p.clearCookie(c)
		return
	}
	if err != nil {
		p.log.Warn("read session", "error", err)
		return
	}
	c.Set(ctxAccount, a)
	c.Set(ctxSession, raw)
	if extended {
		p.setCookie(c, raw)
	}
}

// sessionCookie is the value of the request's session cookie; "" for
// none.
func (p *Pages) sessionCookie(c *gin.Context) string {
	raw, _ := c.Cookie(p.cookieName())
	return raw
}

// account returns the request's signed-in account, or nil.
func account(c *gin.Context) *models.Account {
	a, _ := c.Get(ctxAccount)
	acc, _ := a.(*models.Account)
	return acc
}

// requireAccount sends a request without a session to the sign-in page,
// which comes back here afterwards (a GET; a form post comes back to the
// page it was sent from, when that is on this site).
func (p *Pages) requireAccount(c *gin.Context) {
	if account(c) != nil {
		c.Next()
		return
	}
	next := c.Request.URL.RequestURI()
	if c.Request.Method != http.MethodGet {
		next = "/"
		if ref, err := url.Parse(c.GetHeader("Referer")); err == nil && ref.Path != "" {
			next = localPath(ref.Path)
		}
	}
	redirect(c, "/login?next="+url.QueryEscape(next))
}

// startSession stores a new session of userID and sets its cookie. The
// session the request came with, if any, ends first: a browser holds one
// session, and one it no longer has a cookie for should not stay live
// (signing in, or registering, over another account's session).
func (p *Pages) startSession(c *gin.Context, userID int64) error {
	p.dropSession(c)
	raw, err := p.acc.StartWebSession(c.Request.Context(), userID)
	if err != nil {
		return err
	}
	p.setCookie(c, raw)
	return nil
}

// dropSession ends the session the request came with, if any.
func (p *Pages) dropSession(c *gin.Context) {
	if raw := c.GetString(ctxSession); raw != "" {
		if err := p.acc.EndWebSession(c.Request.Context(), raw); err != nil {
			p.log.Warn("end session", "error", err)
		}
	}
}

// setCookie sets the session cookie: HttpOnly, SameSite=Lax, Secure when
// BASE_URL is https, for the whole site, lasting the accounts' SessionTTL.
func (p *Pages) setCookie(c *gin.Context, value string) {
	http.SetCookie(c.Writer, &http.Cookie{Name: p.cookieName(), Value: value, Path: "/", MaxAge: int(p.acc.SessionTTL().Seconds()),
		HttpOnly: true, Secure: p.secure, SameSite: http.SameSiteLaxMode})
}

// clearCookie removes the session cookie from the browser.
func (p *Pages) clearCookie(c *gin.Context) {
	http.SetCookie(c.Writer, &http.Cookie{Name: p.cookieName(), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: p.secure, SameSite: http.SameSiteLaxMode})
}

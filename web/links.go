package web

import (
	"errors"
	"net/url"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// How long the links the pages mail last.
const (
	verifyTTL = 72 * time.Hour
	resetTTL  = time.Hour
)

// linkState is what a link turned out to be.
type linkState int

const (
	linkOK      linkState = iota
	linkInvalid           // malformed, forged, or no longer bound to what it was made for
	linkExpired
	linkUsed // a single-use link used before
)

// checkedLink is a link of an email, checked: its claims, its account and
// what it turned out to be.
type checkedLink struct {
	notifier.Link
	Token   string
	Account *models.Account // nil when State is linkInvalid
	State   linkState
}

// checkLink checks token as a link for purpose. bound returns what the
// link must be bound to for its account (see notifier.Link.Sign). A
// database error is returned as it is; a bad link is a state, not an
// error.
func (p *Pages) checkLink(c *gin.Context, token string, purpose notifier.LinkPurpose, bound func(*models.Account) ([]byte, error)) (checkedLink, error) {
	out := checkedLink{Token: token, State: linkInvalid}
	l, err := notifier.ParseLink(token)
	if err != nil || l.Purpose != purpose {
		return out, nil
	}
	a, err := p.acc.Account(c.Request.Context(), l.UserID)
	if errors.Is(err, models.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	var b []byte
	if bound != nil {
		if b, err = bound(a); err != nil {
			return out, err
		}
	}
	if !l.Valid(p.cfg.Secret, purpose, b) {
		return out, nil
	}
	out.Link, out.Account, out.State = l, a, linkOK
	if l.Expired(p.now()) {
		out.State = linkExpired
	}
	return out, nil
}

// verifyURL returns a link that verifies a's current address.
func (p *Pages) verifyURL(a *models.Account) string {
	l := notifier.Link{Purpose: notifier.LinkVerify, UserID: a.ID, Expires: p.now().Add(verifyTTL)}
	return p.cfg.BaseURL + "/verify?t=" + url.QueryEscape(l.Sign(p.cfg.Secret, accounts.EmailBinding(a)))
}

// boundEmail binds a verification link to the address it verifies: a
// change of address voids it.
func boundEmail(a *models.Account) ([]byte, error) { return accounts.EmailBinding(a), nil }

// resetURL returns a link that sets a new password for a, bound to its
// current password (accounts.Service.PasswordBinding).
func (p *Pages) resetURL(a *models.Account, binding []byte) string {
	l := notifier.Link{Purpose: notifier.LinkReset, UserID: a.ID, Expires: p.now().Add(resetTTL)}
	return p.cfg.BaseURL + "/reset/new?t=" + url.QueryEscape(l.Sign(p.cfg.Secret, binding))
}

// boundPassword binds a reset link to the password it replaces, which
// makes it single-use without storing anything: once used (or once the
// password changes otherwise) the binding differs and the link is void.
func (p *Pages) boundPassword(c *gin.Context) func(a *models.Account) ([]byte, error) {
	return func(a *models.Account) ([]byte, error) { return p.acc.PasswordBinding(c.Request.Context(), a.ID) }
}

package web

import (
	"errors"
	"net/http"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// The sign-in link of an email that asks its recipient to act (made by
// the outbox as it renders the email; see notifier.SignInURL) opens a page
// with one button: "Open the game". The GET changes nothing, since mail
// scanners open links; the button posts, which records the link's nonce as
// used and signs the recipient in, in one transaction, and lands on the
// game. A link used before, or opened in a browser signed in as someone
// else (a forwarded mail), asks for the recipient's password instead, and
// then lands on the game; an expired one says so, and asks for it too.

// signInPage shows what a sign-in link does.
func (p *Pages) signInPage(c *gin.Context) error {
	l, err := p.checkSignIn(c, c.Query("t"))
	if err != nil {
		return err
	}
	if a := account(c); l.State != linkInvalid && a != nil && a.ID == l.UserID {
		redirect(c, gamePath(l.GameID)) // signed in already: nothing to use the link for
		return nil
	}
	p.render(c, linkOrOK(l.State), "signin", view{Data: p.signInView(c, l)})
	return nil
}

// signIn uses a sign-in link: once.
func (p *Pages) signIn(c *gin.Context) error {
	l, err := p.checkSignIn(c, c.PostForm("t"))
	if err != nil {
		return err
	}
	if l.State != linkOK || p.otherUser(c, l) {
		p.render(c, linkOrOK(l.State), "signin", view{Data: p.signInView(c, l)})
		return nil
	}
	raw, err := p.acc.SignInWithLink(c.Request.Context(), l.Nonce, l.Expires, l.UserID)
	if errors.Is(err, accounts.ErrLinkUsed) { // used meanwhile
		l.State = linkUsed
		p.render(c, http.StatusConflict, "signin", view{Data: p.signInView(c, l)})
		return nil
	}
	if err != nil {
		return err
	}
	p.endSession(c)
	p.setCookie(c, raw)
	redirect(c, gamePath(l.GameID))
	return nil
}

// checkSignIn checks a sign-in link, and whether it was used.
func (p *Pages) checkSignIn(c *gin.Context, token string) (checkedLink, error) {
	l, err := p.checkLink(c, token, notifier.LinkSignIn, nil)
	if err != nil || l.State != linkOK {
		return l, err
	}
	if len(l.Nonce) == 0 || l.GameID <= 0 {
		l.State = linkInvalid
		return l, nil
	}
	used, err := p.acc.LinkUsed(c.Request.Context(), l.Nonce)
	if used {
		l.State = linkUsed
	}
	return l, err
}

// otherUser reports whether the browser is signed in as someone other
// than the link's recipient.
func (p *Pages) otherUser(c *gin.Context, l checkedLink) bool {
	a := account(c)
	return a != nil && a.ID != l.UserID
}

// signInView is the sign-in link page's data: for a link that cannot be
// used here, the password form of its recipient, coming back to the game.
func (p *Pages) signInView(c *gin.Context, l checkedLink) linkView {
	v := linkView{State: l.State, Link: l}
	if l.State == linkInvalid {
		v.SignIn = signInForm{Next: "/"}
		return v
	}
	v.SignIn = signInForm{Username: l.Account.Username, Next: gamePath(l.GameID), Fixed: true}
	if l.State == linkOK && p.otherUser(c, l) {
		v.Other = account(c).Username // a forwarded mail: ask for the password
	}
	return v
}

// gamePath is the path of a game's page.
func gamePath(id int64) string { return notifier.GameURL("", id) }

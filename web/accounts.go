package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/refusal"
	"github.com/gin-gonic/gin"
)

// attempt counts one attempt of the form (see accounts.Service.CountForm):
// for the client when subject is "", else for subject from any client.
func (p *Pages) attempt(c *gin.Context, form, subject string) error {
	tally, err := p.acc.CountForm(c.Request.Context(), form, router.ClientAddress(c), subject)
	router.RateHeaders(c, tally)
	return err
}

// signInForm is what the "signin-form" partial draws: the username and
// password form that comes back to Next.
type signInForm struct {
	Username string
	Next     string
	Error    string
	Fixed    bool // the username is given (a link's recipient)
}

// registerView is the register page's data.
type registerView struct {
	Zones []zoneGroup
	Zone  string // the selected time zone
	Next  string // where the new account goes on to; "/" for its games
}

// registerPage shows the form of a new account (a signed-in user goes to
// their games).
func (p *Pages) registerPage(c *gin.Context) {
	if account(c) != nil {
		redirect(c, "/")
		return
	}
	f := form{Values: map[string]string{"email": c.Query("email")}}
	p.render(c, http.StatusOK, "register", view{Form: f, Data: registerView{Zones: zoneGroups, Zone: "UTC", Next: localPath(c.Query("next"))}})
}

// register creates an account (username, address, password, time zone),
// signs it in and mails the link that verifies the address.
func (p *Pages) register(c *gin.Context) error {
	f := formOf(c, "username", "email", "time_zone")
	name, addr, zone, pw := strings.TrimSpace(f.Values["username"]), strings.TrimSpace(f.Values["email"]), f.Values["time_zone"], c.PostForm("password")
	next := localPath(c.PostForm("next"))
	again := func(status int, f form) {
		p.render(c, status, "register", view{Form: f, Data: registerView{Zones: zoneGroups, Zone: zone, Next: next}})
	}
	if err := p.attempt(c, "register", ""); err != nil {
		return err
	}
	// Every field is checked, so that the form says all that is wrong at
	// once.
	if !accounts.ValidUsername(name) {
		f = f.invalid("username", "Use 3 to 32 characters: a-z, 0-9, _ and -, starting with a letter or digit.")
	}
	if addr == "" || !accounts.ValidEmail(addr) {
		f = f.invalid("email", "Enter an email address such as ana@example.com.")
	}
	if !accounts.ValidPassword(pw) {
		f = f.invalid("password", "Use 8 to 256 characters.")
	}
	if !accounts.ValidZone(zone) {
		f = f.invalid("time_zone", "Choose a time zone from the list.")
	}
	if len(f.Errors) > 0 {
		again(http.StatusUnprocessableEntity, f)
		return nil
	}
	u := &models.User{Username: name, Email: addr, NotifyEmail: true, NotifyTurns: true}
	ctx := c.Request.Context()
	hash := p.acc.Hash(pw) // before the transaction: argon2id takes a while
	err := p.acc.CreateUser(ctx, u, hash, zone)
	if refusal.KindOf(err) == refusal.Conflict {
		again(http.StatusConflict, f.invalid("username", "This username is taken; choose another."))
		return nil
	}
	if err == nil {
		err = p.startSession(c, u.ID)
	}
	if err != nil {
		return err
	}
	a := &models.Account{User: *u, TimeZone: zone}
	done := "registered"
	if err := p.sendMail(ctx, verifyWords(a.Email, verifyTTL), a, p.verifyURL(a)); err != nil {
		p.log.Warn("verification mail", "user_id", u.ID, "error", err)
		done = "registered-x"
	}
	redirect(c, withDone(next, done))
	return nil
}

// loginPage shows the sign-in form, which comes back to the local path
// next (a signed-in user goes there at once).
func (p *Pages) loginPage(c *gin.Context) {
	next := localPath(c.Query("next"))
	if account(c) != nil {
		redirect(c, next)
		return
	}
	p.render(c, http.StatusOK, "login", view{Data: signInForm{Next: next}})
}

// login signs a user in with their username and password, and goes on to
// the page the form names. Attempts are limited per client and username,
// in the buckets of the API's login (accounts.Service.SignIn).
func (p *Pages) login(c *gin.Context) error {
	name, pw := strings.TrimSpace(c.PostForm("username")), c.PostForm("password")
	sf := signInForm{Username: name, Next: localPath(c.PostForm("next")), Fixed: c.PostForm("fixed") != ""}
	u, tally, err := p.acc.SignIn(c.Request.Context(), router.ClientAddress(c), name, pw)
	router.RateHeaders(c, tally)
	if errors.Is(err, accounts.ErrBadCredentials) {
		sf.Error = "Unknown username or wrong password."
		p.render(c, http.StatusUnauthorized, "login", view{Data: sf})
		return nil
	}
	if err != nil {
		return err
	}
	if err := p.startSession(c, u.ID); err != nil {
		return err
	}
	redirect(c, sf.Next)
	return nil
}

// logout ends this browser's session.
func (p *Pages) logout(c *gin.Context) {
	p.endSession(c)
	redirect(c, "/login?done=signedout")
}

// endSession ends the request's session, if any, and clears its cookie.
func (p *Pages) endSession(c *gin.Context) {
	p.dropSession(c)
	p.clearCookie(c)
}

// endSessions signs the user out everywhere: every session of theirs
// ends, in browsers and in API clients (but their personal API tokens).
func (p *Pages) endSessions(c *gin.Context) error {
	if err := p.acc.EndSessions(c.Request.Context(), account(c).ID); err != nil {
		return err
	}
	p.clearCookie(c)
	redirect(c, "/login?done=ended")
	return nil
}

// linkView is the data of the pages a link of an email opens.
type linkView struct {
	State   linkState
	Link    checkedLink
	SignIn  signInForm // the password form, where the page asks for it
	Already bool       // verify: the address is verified already
	Other   string     // sign-in: the browser is signed in as this other user
}

// Link states, for the templates.
func (v linkView) Invalid() bool { return v.State == linkInvalid }
func (v linkView) Expired() bool { return v.State == linkExpired }
func (v linkView) Used() bool    { return v.State == linkUsed }

// verifyPage shows the address a verification link verifies, with the
// button that verifies it (a GET changes nothing: mail scanners open
// links).
func (p *Pages) verifyPage(c *gin.Context) error {
	return p.verifyStep(c, c.Query("t"), false)
}

// verify marks the link's address as verified.
func (p *Pages) verify(c *gin.Context) error {
	return p.verifyStep(c, c.PostForm("t"), true)
}

func (p *Pages) verifyStep(c *gin.Context, token string, post bool) error {
	l, err := p.checkLink(c, token, notifier.LinkVerify, boundEmail)
	if err != nil {
		return err
	}
	v := linkView{State: l.State, Link: l, Already: l.Account != nil && l.Account.Verified()}
	if l.State != linkOK {
		p.render(c, linkStatus(l.State), "verify", view{Data: v})
		return nil
	}
	if !post || v.Already {
		p.render(c, http.StatusOK, "verify", view{Data: v})
		return nil
	}
	if err := p.acc.VerifyEmail(c.Request.Context(), l.Account.ID, l.Account.Email); err != nil {
		return err
	}
	redirect(c, "/?done=verified")
	return nil
}

// linkStatus is the status of a page for a link that is not OK.
func linkStatus(s linkState) int {
	switch s {
	case linkExpired:
		return http.StatusGone
	case linkUsed:
		return http.StatusOK // the page asks for the password
	}
	return http.StatusBadRequest
}

// resendVerification mails a new verification link to the user's address.
func (p *Pages) resendVerification(c *gin.Context) error {
	a := account(c)
	if err := p.attempt(c, "verify", a.Username); err != nil { // mail to one address, from any client
		return err
	}
	if a.Email == "" {
		redirect(c, "/settings")
		return nil
	}
	if err := p.sendMail(c.Request.Context(), verifyWords(a.Email, verifyTTL), a, p.verifyURL(a)); err != nil {
		return err
	}
	redirect(c, "/settings?done=sent")
	return nil
}

// resetPage asks for the username or address of the account whose
// password is forgotten.
func (p *Pages) resetPage(c *gin.Context) {
	p.render(c, http.StatusOK, "reset", view{})
}

// resetRequest mails a reset link to each account with that username or
// verified address (a link goes only to a verified address). The page says
// the same whether or not one matched.
func (p *Pages) resetRequest(c *gin.Context) error {
	who := strings.TrimSpace(c.PostForm("who"))
	if who == "" {
		p.render(c, http.StatusUnprocessableEntity, "reset", view{Form: form{}.invalid("who", "Enter your username or your email address.")})
		return nil
	}
	// Per client, and per account from every client at once: nobody fills
	// someone's mailbox with links.
	ctx := c.Request.Context()
	accs, err := p.acc.ResetAccounts(ctx, router.ClientAddress(c), who)
	if err != nil {
		return err
	}
	for i := range accs {
		a := &accs[i]
		binding, err := p.acc.PasswordBinding(ctx, a.ID)
		if err == nil {
			err = p.sendMail(ctx, resetWords(resetTTL), a, p.resetURL(a, binding))
		}
		if err != nil {
			return err
		}
	}
	p.render(c, http.StatusOK, "reset-sent", view{Data: resetTTL})
	return nil
}

// newPasswordPage shows the form for a new password that a reset link
// opens.
func (p *Pages) newPasswordPage(c *gin.Context) error {
	l, err := p.checkLink(c, c.Query("t"), notifier.LinkReset, p.boundPassword(c))
	if err != nil {
		return err
	}
	p.render(c, linkOrOK(l.State), "new-password", view{Data: linkView{State: l.State, Link: l}})
	return nil
}

// linkOrOK is 200 for a good link, else linkStatus.
func linkOrOK(s linkState) int {
	if s == linkOK {
		return http.StatusOK
	}
	return linkStatus(s)
}

// newPassword sets the password a reset link allows, ends every session
// and API refresh token of the account, and signs this browser in.
func (p *Pages) newPassword(c *gin.Context) error {
	l, err := p.checkLink(c, c.PostForm("t"), notifier.LinkReset, p.boundPassword(c))
	if err != nil {
		return err
	}
	v := linkView{State: l.State, Link: l}
	if l.State != linkOK {
		p.render(c, linkStatus(l.State), "new-password", view{Data: v})
		return nil
	}
	pw, again := c.PostForm("password"), c.PostForm("confirm")
	var f form
	switch {
	case !accounts.ValidPassword(pw):
		f = f.invalid("password", "Use 8 to 256 characters.")
	case pw != again:
		f = f.invalid("confirm", "The two passwords differ.")
	}
	if len(f.Errors) > 0 {
		p.render(c, http.StatusUnprocessableEntity, "new-password", view{Form: f, Data: v})
		return nil
	}
	bound := func(b []byte) bool { return l.Link.Valid(p.cfg.Secret, notifier.LinkReset, b) }
	if err := p.acc.ResetPassword(c.Request.Context(), l.Account.ID, bound, pw); errors.Is(err, accounts.ErrLinkUsed) {
		v.State = linkInvalid // set meanwhile, by this link or another
		p.render(c, linkStatus(v.State), "new-password", view{Data: v})
		return nil
	} else if err != nil {
		return err
	}
	p.clearCookie(c)
	if err := p.startSession(c, l.Account.ID); err != nil {
		return err
	}
	redirect(c, "/?done=reset")
	return nil
}

// withDone adds the notice done (see notices) to the local path next.
func withDone(next, done string) string {
	u, err := url.Parse(next)
	if err != nil {
		return "/?done=" + done
	}
	q := u.Query()
	q.Set("done", done)
	u.RawQuery = q.Encode()
	return u.String()
}

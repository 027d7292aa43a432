package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

func userOut(u *models.User) userResponse {
	return userResponse{ID: u.ID, Username: u.Username, Email: u.Email, DisplayName: u.DisplayName,
		Notifications: notifications{Email: u.NotifyEmail, Turns: u.NotifyTurns}, CreatedAt: rfc3339(u.CreatedAt)}
}

// checkNewPassword applies the rules of a new password, given in the
// field named field: 8 to 256 bytes.
func checkNewPassword(field, password string) error {
	if !accounts.ValidPassword(password) {
		return invalid("%s: %d to %d characters", field, accounts.MinPassword, accounts.MaxPassword)
	}
	return nil
}

// register creates an account and logs it in. Registrations are limited
// per client address, before the password is hashed: a refused one costs
// no argon2id hash. With an Idempotency-Key (scoped by the username) a
// repeat gets the same tokens again.
func (s *Server) register(c *gin.Context) error {
	var req registerRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if !accounts.ValidUsername(req.Username) {
		return invalid("username: 3 to 32 characters of a-z, 0-9, _ and -, starting with a letter or digit")
	}
	if err := checkNewPassword("password", req.Password); err != nil {
		return err
	}
	switch {
	case !accounts.ValidEmail(req.Email):
		return invalid("email: not an address")
	case len(req.DisplayName) > accounts.MaxDisplayName:
		return invalid("display_name: at most %d characters", accounts.MaxDisplayName)
	}
	tally, err := s.acc.CountRegistration(c.Request.Context(), router.ClientAddress(c))
	router.RateHeaders(c, tally)
	if err != nil {
		return err
	}
	// Email notifications are on from the start: without an address there
	// is nothing to send, and adding one later turns them on unless the
	// user has turned them off (PATCH /v1/me).
	u := &models.User{Username: req.Username, Email: req.Email, DisplayName: req.DisplayName, NotifyEmail: true, NotifyTurns: true}
	hash := s.acc.Hash(req.Password) // before the transaction: argon2id takes a while
	return s.idempotent(c, idemScope{subject: "user:" + req.Username}, func(st *models.Store) (response, error) {
		acc := s.acc.In(st)
		if err := acc.CreateUser(c.Request.Context(), u, hash, ""); err != nil {
			return response{}, err
		}
		return session(c.Request.Context(), acc, http.StatusCreated, u)
	})
}

// login exchanges a username and password for tokens. Attempts are limited
// per client address and per account (whatever the address), in the
// database, and the password is checked (accounts.Service.SignIn), before
// an Idempotency-Key (scoped by the username) is looked at: a repeat gets
// the same tokens again only with the right password. A login with the
// right password gives its attempts back: only failed ones count.
func (s *Server) login(c *gin.Context) error {
	var req loginRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	u, tally, err := s.acc.SignIn(c.Request.Context(), router.ClientAddress(c), req.Username, req.Password)
	router.RateHeaders(c, tally)
	if err != nil {
		return err
	}
	return s.idempotent(c, idemScope{subject: "user:" + req.Username}, func(st *models.Store) (response, error) {
		return session(c.Request.Context(), s.acc.In(st), http.StatusOK, u)
	})
}

// session starts a sign-in session of u with acc and returns the response
// with its access and refresh token.
func session(ctx context.Context, acc *accounts.Service, status int, u *models.User) (response, error) {
	ses, err := acc.StartSession(ctx, u)
	if err != nil {
		return response{}, err
	}
	return tokensOut(status, ses), nil
}

// tokensOut is the response with the tokens of ses.
func tokensOut(status int, ses accounts.Session) response {
	return response{status: status, header: map[string]string{"Cache-Control": "no-store"},
		body: tokensResponse{AccessToken: ses.Access, TokenType: "Bearer", ExpiresAt: rfc3339(ses.AccessExpires),
			RefreshToken: ses.Refresh, RefreshExpiresAt: rfc3339(ses.RefreshExpires), User: userOut(ses.User)}}
}

// refresh rotates a refresh token (accounts.Service.Refresh). Presenting
// a rotated token again revokes its whole family. With an Idempotency-Key
// (scoped by the presented token) a repeat gets the same new tokens again
// instead, so a client that lost the response is not logged out; the
// rotation runs in its own transaction (idemScope.outside) so that a
// reuse's revocation is written although the request fails.
func (s *Server) refresh(c *gin.Context) error {
	var req refreshRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if !strings.HasPrefix(req.RefreshToken, accounts.RefreshTokenPrefix) {
		return models.ErrInvalidToken
	}
	old := models.HashToken(req.RefreshToken)
	return s.idempotent(c, idemScope{subject: "refresh:" + string(old), outside: true}, func(*models.Store) (response, error) {
		ses, err := s.acc.Refresh(c.Request.Context(), req.RefreshToken)
		if err != nil {
			return response{}, err
		}
		return tokensOut(http.StatusOK, ses), nil
	})
}

// logout ends the refresh token's session: its family is revoked, and
// with it the access tokens issued in it, on every replica at once (see
// models.Store.RevokeRefreshFamily). The account's other sessions and its
// personal API tokens go on. It takes no Idempotency-Key: a repeat changes
// nothing and answers 204 again.
func (s *Server) logout(c *gin.Context) error {
	var req refreshRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := s.acc.Logout(c.Request.Context(), req.RefreshToken); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// logoutEverywhere ends every session of the caller's account (login
// session only): browser sessions, and the API's refresh and access tokens,
// this request's too, as "sign out everywhere" on the pages does
// (models.Store.EndSessions). Personal API tokens go on. It takes no
// Idempotency-Key: a repeat is refused with 401, the token being ended.
func (s *Server) logoutEverywhere(c *gin.Context) error {
	if err := s.acc.EndSessions(c.Request.Context(), userID(c)); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

var errWrongPassword = forbidden("wrong_password", "current_password: not the account's password")

// changePassword replaces the caller's password (login session only). The
// new password follows registration's rules, checked first; then the
// attempt is counted as a login of the account is, and the current
// password checked. The change ends every access token of the account
// issued before it (this request's too) and revokes every refresh token,
// on every replica at once, and the response is a new session for the
// caller. It takes no Idempotency-Key: the request's access token is ended
// by its success, so a client that lost the response logs in with the new
// password.
func (s *Server) changePassword(c *gin.Context) error {
	var req changePasswordRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := checkNewPassword("new_password", req.NewPassword); err != nil {
		return err
	}
	ses, tally, err := s.acc.ChangePassword(c.Request.Context(), router.ClientAddress(c), userID(c), req.CurrentPassword, req.NewPassword)
	router.RateHeaders(c, tally)
	if errors.Is(err, accounts.ErrWrongPassword) {
		err = errWrongPassword
	}
	if err != nil {
		return err
	}
	resp := tokensOut(http.StatusOK, ses)
	for k, v := range resp.header {
		c.Header(k, v)
	}
	writeJSON(c, resp.status, resp.body)
	return nil
}

// me returns the caller's profile.
func (s *Server) me(c *gin.Context) error {
	p, err := s.acc.Profile(c.Request.Context(), userID(c))
	if err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, meOut(p))
	return nil
}

// meOut is the user of p with the reply-by-email choice.
func meOut(p accounts.Profile) userResponse {
	out := userOut(p.User)
	out.Notifications.Replies = &p.Replies
	return out
}

// updateMe changes the fields given of the caller's profile.
func (s *Server) updateMe(c *gin.Context) error {
	var req updateMeRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	ch := accounts.ProfileChange{Email: req.Email, DisplayName: req.DisplayName}
	if n := req.Notifications; n != nil {
		ch.Notify = &struct{ Email, Turns bool }{n.Email, n.Turns}
		ch.Replies = n.Replies
	}
	p, err := s.acc.UpdateProfile(c.Request.Context(), userID(c), ch)
	if err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, meOut(p))
	return nil
}

func tokenOut(t *models.APIToken) tokenResponse {
	return tokenResponse{ID: t.ID, Name: t.Name, Prefix: t.Prefix, Scopes: t.ScopeList(),
		CreatedAt: rfc3339(t.CreatedAt), LastUsedAt: rfc3339p(t.LastUsedAt)}
}

// listTokens lists the caller's live API tokens (never the secrets).
func (s *Server) listTokens(c *gin.Context) error {
	list, err := s.acc.Tokens(c.Request.Context(), userID(c))
	if err != nil {
		return err
	}
	out := tokenListResponse{Tokens: []tokenResponse{}}
	for i := range list {
		out.Tokens = append(out.Tokens, tokenOut(&list[i]))
	}
	writeJSON(c, http.StatusOK, out)
	return nil
}

// createToken makes a personal API token; its secret is shown only here
// (and in the sealed idempotency record, for a repeat with the key).
func (s *Server) createToken(c *gin.Context) error {
	var req createTokenRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	t, secret, err := accounts.NewToken(userID(c), req.Name, req.Scopes)
	if err != nil {
		return err
	}
	return s.idempotentCreate(c, func(st *models.Store) (response, error) {
		if err := s.acc.In(st).SaveToken(c.Request.Context(), t); err != nil {
			return response{}, err
		}
		out := tokenOut(t)
		out.Token = secret
		return response{status: http.StatusCreated, body: out, header: map[string]string{"Cache-Control": "no-store"}}, nil
	})
}

// revokeToken revokes one of the caller's API tokens.
func (s *Server) revokeToken(c *gin.Context, id int64) error {
	if err := s.acc.RevokeToken(c.Request.Context(), userID(c), id); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

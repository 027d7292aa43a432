package api

import (
	"context"
	"errors"
	"net/http"
	"net/mail"
	"regexp"
	"slices"
	"strings"

	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

var usernamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{2,31}$`)

func validEmail(s string) bool {
	if s == "" {
		return true
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && len(s) <= 254
}

func userOut(u *models.User) userResponse {
	return userResponse{ID: u.ID, Username: u.Username, Email: u.Email, DisplayName: u.DisplayName,
		Notifications: notifications{Email: u.NotifyEmail, Turns: u.NotifyTurns}, CreatedAt: rfc3339(u.CreatedAt)}
}

// checkNewPassword applies the rules of a new password, given in the
// field named field: 8 to 256 bytes.
func checkNewPassword(field, password string) error {
	if len(password) < 8 || len(password) > 256 {
		return invalid("%s: 8 to 256 characters", field)
	}
	return nil
}

// register creates an account and logs it in. Registrations are limited
// per client address, before the password is hashed: a refused one costs
// no argon2id hash. With an Idempotency-Key (scoped by the username) a
// repeat gets the same tokens again.
func (s *Server) register(c *gin.Context) {
	var req registerRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	if !usernamePattern.MatchString(req.Username) {
		writeError(c, invalid("username: 3 to 32 characters of a-z, 0-9, _ and -, starting with a letter or digit"))
		return
	}
	if err := checkNewPassword("password", req.Password); err != nil {
		writeError(c, err)
		return
	}
	switch {
	case !validEmail(req.Email):
		writeError(c, invalid("email: not an address"))
		return
	case len(req.DisplayName) > 64:
		writeError(c, invalid("display_name: at most 64 characters"))
		return
	}
	if _, err := s.take(c, attempt{s.limits.register, clientAddress(c)}); err != nil {
		writeError(c, err)
		return
	}
	// Email notifications are on from the start: without an address there
	// is nothing to send, and adding one later turns them on unless the
	// user has turned them off (PATCH /v1/me).
	u := &models.User{Username: req.Username, Email: req.Email, DisplayName: req.DisplayName, NotifyEmail: true, NotifyTurns: true}
	hash := s.hash(req.Password) // before the transaction: argon2id takes a while
	s.idempotent(c, idemScope{subject: "user:" + req.Username}, func(st *models.Store) (response, error) {
		if err := st.CreateUser(c.Request.Context(), u, hash); err != nil {
			if errors.Is(err, models.ErrConflict) {
				err = conflict("username_taken", "the username %q is taken", req.Username)
			}
			return response{}, err
		}
		return s.session(c.Request.Context(), st, http.StatusCreated, u)
	})
}

var errBadLogin = newError(http.StatusUnauthorized, "bad_credentials", "Unauthorized", "unknown username or wrong password")

// login exchanges a username and password for tokens. Attempts are limited
// per client address and per account (whatever the address), in the
// database, and the password is checked, before an Idempotency-Key (scoped
// by the username) is looked at: a repeat gets the same tokens again only
// with the right password. A login with the right password gives its
// attempts back: only failed ones count.
func (s *Server) login(c *gin.Context) {
	var req loginRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	ctx := c.Request.Context()
	took, err := s.take(c, s.loginAttempts(c, req.Username)...)
	if err != nil {
		writeError(c, err)
		return
	}
	u, err := s.store.UserByUsername(ctx, req.Username)
	if errors.Is(err, models.ErrNotFound) {
		checkPassword(dummyHash, req.Password)
		writeError(c, errBadLogin)
		return
	}
	if err != nil {
		writeError(c, err)
		return
	}
	_, ok, err := s.passwordOf(ctx, u.ID, req.Password)
	if err == nil && !ok {
		err = errBadLogin
	}
	if err != nil {
		writeError(c, err)
		return
	}
	s.give(c, took)
	s.idempotent(c, idemScope{subject: "user:" + req.Username}, func(st *models.Store) (response, error) {
		return s.session(c.Request.Context(), st, http.StatusOK, u)
	})
}

// passwordOf reads the user's password hash and checks password against
// it: the hash, and whether password is the user's.
func (s *Server) passwordOf(ctx context.Context, userID int64, password string) (hash string, ok bool, err error) {
	if hash, err = s.store.PasswordHash(ctx, userID); err != nil {
		return "", false, err
	}
	return hash, checkPassword(hash, password), nil
}

// session starts a refresh token family for u with st and returns the
// response with an access and a refresh token.
func (s *Server) session(ctx context.Context, st *models.Store, status int, u *models.User) (response, error) {
	refresh := randomToken(refreshTokenPrefix)
	family := randomToken("")
	if err := st.CreateRefreshToken(ctx, u.ID, family, models.HashToken(refresh), s.now().Add(s.cfg.RefreshTTL)); err != nil {
		return response{}, err
	}
	return s.tokens(status, u, refresh, family)
}

// tokens is the response with a new access token for u (of generation
// u.TokenGen, in the session family; see issueAccess) and the refresh
// token refresh.
func (s *Server) tokens(status int, u *models.User, refresh, family string) (response, error) {
	access, exp, err := s.issueAccess(u, family)
	if err != nil {
		return response{}, err
	}
	return response{status: status, header: map[string]string{"Cache-Control": "no-store"},
		body: tokensResponse{AccessToken: access, TokenType: "Bearer", ExpiresAt: rfc3339(exp),
			RefreshToken: refresh, RefreshExpiresAt: rfc3339(s.now().Add(s.cfg.RefreshTTL)), User: userOut(u)}}, nil
}

// refresh rotates a refresh token. Presenting a rotated token again revokes
// its whole family. With an Idempotency-Key (scoped by the presented
// token) a repeat gets the same new tokens again instead, so a client that
// lost the response is not logged out; the rotation runs in its own
// transaction (idemScope.outside) so that a reuse's revocation is written
// although the request fails.
func (s *Server) refresh(c *gin.Context) {
	var req refreshRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	if !strings.HasPrefix(req.RefreshToken, refreshTokenPrefix) {
		writeError(c, models.ErrInvalidToken)
		return
	}
	old := models.HashToken(req.RefreshToken)
	s.idempotent(c, idemScope{subject: "refresh:" + string(old), outside: true}, func(st *models.Store) (response, error) {
		// The user, and so the generation of the new access token, before
		// the rotation checks the refresh token (see issueAccess).
		u, family, err := st.RefreshTokenUser(c.Request.Context(), old)
		if err != nil {
			return response{}, err
		}
		next := randomToken(refreshTokenPrefix)
		_, err = st.RotateRefreshToken(c.Request.Context(), old, models.HashToken(next), s.now().Add(s.cfg.RefreshTTL))
		if errors.Is(err, models.ErrTokenReuse) {
			s.log.Warn("refresh token reuse; family revoked, access tokens ended", "request_id", c.GetString(ctxRequestID), "user_id", u.ID)
		}
		if err != nil {
			return response{}, err
		}
		return s.tokens(http.StatusOK, u, next, family)
	})
}

// logout ends the refresh token's session: its family is revoked, and
// with it the access tokens issued in it, on every replica at once (see
// models.Store.RevokeRefreshFamily). The account's other sessions and its
// personal API tokens go on. It takes no Idempotency-Key: a repeat changes
// nothing and answers 204 again.
func (s *Server) logout(c *gin.Context) {
	var req refreshRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	if _, err := s.store.RevokeRefreshFamily(c.Request.Context(), models.HashToken(req.RefreshToken)); err != nil {
		writeError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// logoutEverywhere ends every session of the caller's account (login
// session only): browser sessions, and the API's refresh and access tokens,
// this request's too, as "sign out everywhere" on the pages does
// (models.Store.EndSessions). Personal API tokens go on. It takes no
// Idempotency-Key: a repeat is refused with 401, the token being ended.
func (s *Server) logoutEverywhere(c *gin.Context) {
	if err := s.store.EndSessions(c.Request.Context(), userID(c)); err != nil {
		writeError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
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
func (s *Server) changePassword(c *gin.Context) {
	var req changePasswordRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	if err := checkNewPassword("new_password", req.NewPassword); err != nil {
		writeError(c, err)
		return
	}
	ctx := c.Request.Context()
	u, err := s.store.UserByID(ctx, userID(c))
	if err != nil {
		writeError(c, err)
		return
	}
	took, err := s.take(c, s.loginAttempts(c, u.Username)...)
	if err != nil {
		writeError(c, err)
		return
	}
	old, ok, err := s.passwordOf(ctx, u.ID, req.CurrentPassword)
	if err == nil && !ok {
		err = errWrongPassword
	}
	if err != nil {
		writeError(c, err)
		return
	}
	s.give(c, took)
	hash := s.hash(req.NewPassword)
	var resp response
	err = s.store.InTx(ctx, func(tx *models.Store) error {
		gen, err := tx.ChangePassword(ctx, u.ID, old, hash)
		if err != nil {
			return err
		}
		u.TokenGen = gen
		resp, err = s.session(ctx, tx, http.StatusOK, u)
		return err
	})
	if errors.Is(err, models.ErrConflict) {
		err = conflict("password_changed", "the password was changed meanwhile; log in again")
	}
	if err != nil {
		writeError(c, err)
		return
	}
	for k, v := range resp.header {
		c.Header(k, v)
	}
	c.JSON(resp.status, resp.body)
}

// me returns the caller's profile.
func (s *Server) me(c *gin.Context) {
	u, err := s.store.UserByID(c.Request.Context(), userID(c))
	if err != nil {
		writeError(c, err)
		return
	}
	out, err := s.withReplies(c.Request.Context(), u)
	if err != nil {
		writeError(c, err)
		return
	}
	c.JSON(http.StatusOK, out)
}

// withReplies is userOut with the user's reply-by-email choice.
func (s *Server) withReplies(ctx context.Context, u *models.User) (userResponse, error) {
	out := userOut(u)
	set, err := s.store.MailSettingsOf(ctx, u.ID, 0)
	if err != nil {
		return out, err
	}
	out.Notifications.Replies = &set.Replies
	return out, nil
}

// updateMe changes the fields given of the caller's profile.
func (s *Server) updateMe(c *gin.Context) {
	var req updateMeRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	if req.Email != nil && !validEmail(*req.Email) {
		writeError(c, invalid("email: not an address"))
		return
	}
	if req.DisplayName != nil && len(*req.DisplayName) > 64 {
		writeError(c, invalid("display_name: at most 64 characters"))
		return
	}
	u, err := s.store.UserByID(c.Request.Context(), userID(c))
	if err != nil {
		writeError(c, err)
		return
	}
	if req.Email != nil {
		u.Email = *req.Email
	}
	if req.DisplayName != nil {
		u.DisplayName = *req.DisplayName
	}
	if req.Notifications != nil {
		u.NotifyEmail, u.NotifyTurns = req.Notifications.Email, req.Notifications.Turns
	}
	if err := s.store.UpdateProfile(c.Request.Context(), u); err != nil {
		writeError(c, err)
		return
	}
	if req.Notifications != nil && req.Notifications.Replies != nil {
		if err := s.store.SetEmailReplies(c.Request.Context(), u.ID, *req.Notifications.Replies); err != nil {
			writeError(c, err)
			return
		}
	}
	out, err := s.withReplies(c.Request.Context(), u)
	if err != nil {
		writeError(c, err)
		return
	}
	c.JSON(http.StatusOK, out)
}

func tokenOut(t *models.APIToken) tokenResponse {
	return tokenResponse{ID: t.ID, Name: t.Name, Prefix: t.Prefix, Scopes: t.ScopeList(),
		CreatedAt: rfc3339(t.CreatedAt), LastUsedAt: rfc3339p(t.LastUsedAt)}
}

// listTokens lists the caller's live API tokens (never the secrets).
func (s *Server) listTokens(c *gin.Context) {
	list, err := s.store.APITokens(c.Request.Context(), userID(c))
	if err != nil {
		writeError(c, err)
		return
	}
	out := tokenListResponse{Tokens: []tokenResponse{}}
	for i := range list {
		out.Tokens = append(out.Tokens, tokenOut(&list[i]))
	}
	c.JSON(http.StatusOK, out)
}

// createToken makes a personal API token; its secret is shown only here
// (and in the sealed idempotency record, for a repeat with the key).
func (s *Server) createToken(c *gin.Context) {
	var req createTokenRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	if req.Name == "" || len(req.Name) > 64 {
		writeError(c, invalid("name: 1 to 64 characters"))
		return
	}
	if len(req.Scopes) == 0 {
		writeError(c, invalid("scopes: at least one of read, play"))
		return
	}
	for _, sc := range req.Scopes {
		if sc != ScopeRead && sc != ScopePlay {
			writeError(c, invalid("scopes: %q is not read or play", sc))
			return
		}
	}
	scopes := slices.Compact(slices.Sorted(slices.Values(req.Scopes)))
	secret := randomToken(apiTokenPrefix)
	t := &models.APIToken{UserID: userID(c), Name: req.Name, Prefix: secret[:len(apiTokenPrefix)+6],
		TokenHash: models.HashToken(secret), Scopes: strings.Join(scopes, ",")}
	s.idempotentCreate(c, func(st *models.Store) (response, error) {
		if err := st.CreateAPIToken(c.Request.Context(), t); err != nil {
			return response{}, err
		}
		out := tokenOut(t)
		out.Token = secret
		return response{status: http.StatusCreated, body: out, header: map[string]string{"Cache-Control": "no-store"}}, nil
	})
}

// revokeToken revokes one of the caller's API tokens.
func (s *Server) revokeToken(c *gin.Context) {
	id, err := pathID(c, "id")
	if err != nil {
		writeError(c, err)
		return
	}
	if err := s.store.RevokeAPIToken(c.Request.Context(), userID(c), id); err != nil {
		writeError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

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

// register creates an account and logs it in. With an Idempotency-Key
// (scoped by the username) a repeat gets the same tokens again.
func (s *Server) register(c *gin.Context) {
	var req registerRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	switch {
	case !usernamePattern.MatchString(req.Username):
		writeError(c, invalid("username: 3 to 32 characters of a-z, 0-9, _ and -, starting with a letter or digit"))
		return
	case len(req.Password) < 8 || len(req.Password) > 256:
		writeError(c, invalid("password: 8 to 256 characters"))
		return
	case !validEmail(req.Email):
		writeError(c, invalid("email: not an address"))
		return
	case len(req.DisplayName) > 64:
		writeError(c, invalid("display_name: at most 64 characters"))
		return
	}
	// Email notifications are on from the start: without an address there
	// is nothing to send, and adding one later turns them on unless the
	// user has turned them off (PATCH /v1/me).
	u := &models.User{Username: req.Username, Email: req.Email, DisplayName: req.DisplayName, NotifyEmail: true, NotifyTurns: true}
	hash := hashPassword(req.Password) // before the transaction: argon2id takes a while
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
// per client IP and username, and the password is checked, before an
// Idempotency-Key (scoped by the username) is looked at: a repeat gets the
// same tokens again only with the right password.
func (s *Server) login(c *gin.Context) {
	var req loginRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	if ok, wait := s.logins.allow(c.ClientIP() + "|" + strings.ToLower(req.Username)); !ok {
		writeError(c, &RateLimitError{RetryAfter: wait})
		return
	}
	u, err := s.store.UserByUsername(c.Request.Context(), req.Username)
	if errors.Is(err, models.ErrNotFound) {
		checkPassword(dummyHash, req.Password)
		writeError(c, errBadLogin)
		return
	}
	if err != nil {
		writeError(c, err)
		return
	}
	hash, err := s.store.PasswordHash(c.Request.Context(), u.ID)
	if err != nil {
		writeError(c, err)
		return
	}
	if !checkPassword(hash, req.Password) {
		writeError(c, errBadLogin)
		return
	}
	s.idempotent(c, idemScope{subject: "user:" + req.Username}, func(st *models.Store) (response, error) {
		return s.session(c.Request.Context(), st, http.StatusOK, u)
	})
}

// session starts a refresh token family for u with st and returns the
// response with an access and a refresh token.
func (s *Server) session(ctx context.Context, st *models.Store, status int, u *models.User) (response, error) {
	refresh := randomToken(refreshTokenPrefix)
	family := randomToken("")
	if err := st.CreateRefreshToken(ctx, u.ID, family, models.HashToken(refresh), s.now().Add(s.cfg.RefreshTTL)); err != nil {
		return response{}, err
	}
	return s.tokens(status, u, refresh)
}

// tokens is the response with a new access token for u and the refresh
// token refresh.
func (s *Server) tokens(status int, u *models.User, refresh string) (response, error) {
	access, exp, err := s.issueAccess(u.ID, u.Username)
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
		next := randomToken(refreshTokenPrefix)
		uid, err := st.RotateRefreshToken(c.Request.Context(), old, models.HashToken(next), s.now().Add(s.cfg.RefreshTTL))
		if errors.Is(err, models.ErrTokenReuse) {
			s.log.Warn("refresh token reuse; family revoked", "request_id", c.GetString(ctxRequestID))
		}
		if err != nil {
			return response{}, err
		}
		u, err := st.UserByID(c.Request.Context(), uid)
		if err != nil {
			return response{}, err
		}
		return s.tokens(http.StatusOK, u, next)
	})
}

// logout revokes the refresh token's family. Access tokens run out by
// themselves within their short lifetime. It takes no Idempotency-Key: a
// repeat changes nothing and answers 204 again.
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

// me returns the caller's profile.
func (s *Server) me(c *gin.Context) {
	u, err := s.store.UserByID(c.Request.Context(), userID(c))
	if err != nil {
		writeError(c, err)
		return
	}
	c.JSON(http.StatusOK, userOut(u))
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
	c.JSON(http.StatusOK, userOut(u))
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

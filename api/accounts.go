package api

import (
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

// register creates an account and logs it in.
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
	u := &models.User{Username: req.Username, Email: req.Email, DisplayName: req.DisplayName, NotifyEmail: req.Email != "", NotifyTurns: true}
	if err := s.store.CreateUser(c.Request.Context(), u, hashPassword(req.Password)); err != nil {
		if errors.Is(err, models.ErrConflict) {
			err = conflict("username_taken", "the username %q is taken", req.Username)
		}
		writeError(c, err)
		return
	}
	s.respondTokens(c, http.StatusCreated, u)
}

// login exchanges a username and password for tokens. Attempts are limited
// per client IP and username.
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
	badLogin := newError(http.StatusUnauthorized, "bad_credentials", "Unauthorized", "unknown username or wrong password")
	u, err := s.store.UserByUsername(c.Request.Context(), req.Username)
	if errors.Is(err, models.ErrNotFound) {
		checkPassword(dummyHash, req.Password)
		writeError(c, badLogin)
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
		writeError(c, badLogin)
		return
	}
	s.respondTokens(c, http.StatusOK, u)
}

// respondTokens starts a refresh token family for u and responds with an
// access and a refresh token.
func (s *Server) respondTokens(c *gin.Context, status int, u *models.User) {
	refresh := randomToken(refreshTokenPrefix)
	refreshExp := s.now().Add(s.cfg.RefreshTTL)
	family := randomToken("")
	if err := s.store.CreateRefreshToken(c.Request.Context(), u.ID, family, models.HashToken(refresh), refreshExp); err != nil {
		writeError(c, err)
		return
	}
	s.writeTokens(c, status, u, refresh)
}

func (s *Server) writeTokens(c *gin.Context, status int, u *models.User, refresh string) {
	access, exp, err := s.issueAccess(u.ID, u.Username)
	if err != nil {
		writeError(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(status, tokensResponse{AccessToken: access, TokenType: "Bearer", ExpiresAt: rfc3339(exp),
		RefreshToken: refresh, RefreshExpiresAt: rfc3339(s.now().Add(s.cfg.RefreshTTL)), User: userOut(u)})
}

// refresh rotates a refresh token. Presenting a rotated token again revokes
// its whole family.
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
	next := randomToken(refreshTokenPrefix)
	uid, err := s.store.RotateRefreshToken(c.Request.Context(), models.HashToken(req.RefreshToken), models.HashToken(next), s.now().Add(s.cfg.RefreshTTL))
	if err != nil {
		if errors.Is(err, models.ErrTokenReuse) {
			s.log.Warn("refresh token reuse; family revoked", "request_id", c.GetString(ctxRequestID))
		}
		writeError(c, err)
		return
	}
	u, err := s.store.UserByID(c.Request.Context(), uid)
	if err != nil {
		writeError(c, err)
		return
	}
	s.writeTokens(c, http.StatusOK, u, next)
}

// logout revokes the refresh token's family. Access tokens run out by
// themselves within their short lifetime.
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

// createToken makes a personal API token; its secret is shown only here.
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
	if err := s.store.CreateAPIToken(c.Request.Context(), t); err != nil {
		writeError(c, err)
		return
	}
	out := tokenOut(t)
	out.Token = secret
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusCreated, out)
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

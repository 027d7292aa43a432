package accounts

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
	"github.com/golang-jwt/jwt/v5"
)

// Token prefixes tell the kinds apart at a glance and in secret scanners.
const (
	APITokenPrefix     = "dmp_"
	RefreshTokenPrefix = "dmr_"
)

// Scopes of personal API tokens. Access tokens of a sign-in carry both and
// may also manage the account.
const (
	ScopeRead = "read"
	ScopePlay = "play"
)

// Refusals of a token.
var (
	// ErrBadToken is an access token that is no good: malformed, forged,
	// expired, or of no user.
	ErrBadToken = refusal.New(refusal.Unauthorized, "unauthorized", "a valid bearer token is required")
	// ErrTokenEnded is an access token of an earlier generation than its
	// user's (a password change, "sign out everywhere" or a refresh
	// token's reuse came after it), or of a session that has ended (a
	// logout).
	ErrTokenEnded = refusal.New(refusal.Unauthorized, "unauthorized",
		"the access token was ended by a logout or a password change; refresh it or log in again")
)

// claims are the access token's claims.
type claims struct {
	Username string `json:"name"`
	// Gen is the user's token generation when the token was issued (see
	// models.User.TokenGen); absent means 0.
	Gen int64 `json:"gen,omitempty"`
	// Session names the sign-in session the token was issued for: the
	// family of its refresh tokens, so that a logout ends this session's
	// access tokens and no other's (see models.Store.AccessCheck). Absent
	// for a token of no session (issued before sessions were named): the
	// generation alone ends it.
	Session string `json:"sid,omitempty"`
	jwt.RegisteredClaims
}

// Session is a sign-in session of the API as its client gets it: an
// access token and the refresh token that renews it, with their expiries,
// and its user.
type Session struct {
	Access         string
	AccessExpires  time.Time
	Refresh        string
	RefreshExpires time.Time
	User           *models.User
}

// IssueAccess returns a signed HS256 access token for the user, of the
// user's current token generation u.TokenGen, in the sign-in session
// session (its refresh token family; "" for none), and its expiry. The
// generation must have been read before the credential the token is
// issued for was checked: whatever ends the user's access tokens after
// that read ends this one too.
func (s *Service) IssueAccess(u *models.User, session string) (string, time.Time, error) {
	now := s.now()
	exp := now.Add(s.cfg.AccessTTL)
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims{
		Username: u.Username,
		Gen:      u.TokenGen,
		Session:  session,
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   strconv.FormatInt(u.ID, 10),
			Issuer:    s.cfg.Issuer,
			Audience:  jwt.ClaimStrings{s.cfg.Audience},
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(exp),
		},
	})
	signed, err := tok.SignedString(s.cfg.Secret)
	if err == nil {
		s.issued.Add(1)
	}
	return signed, exp, err
}

// Access is an access token VerifyAccess has verified: what it says.
type Access struct {
	UserID  int64
	Gen     int64  // the token generation it carries
	Session string // the session it names; "" for none
	Expires time.Time
}

// Check is ErrTokenEnded unless the token is of generation current, its
// user's, and its session is live; ErrBadToken if current is -1, for a
// user that does not exist.
func (a Access) Check(current int64, live bool) error {
	switch {
	case current < 0:
		return ErrBadToken
	case a.Gen != current || !live:
		return ErrTokenEnded
	}
	return nil
}

// AccessUser verifies an access token (VerifyAccess) and checks that it is
// of its user's current token generation and its session is live, both
// read from the database each time (models.Store.AccessCheck), so that a
// logout of its session, or a password change, on any replica ends it at
// once. It returns the user id; ErrBadToken or ErrTokenEnded for a token
// that is no good, or the store's error.
func (s *Service) AccessUser(ctx context.Context, token string) (int64, error) {
	v, err := s.VerifyAccess(token)
	if err != nil {
		return 0, err
	}
	return v.UserID, s.CheckAccess(ctx, v)
}

// CheckAccess checks a verified access token against its user's current
// token generation and the state of its session, read from the database
// (models.Store.AccessCheck): ErrBadToken, ErrTokenEnded, or the store's
// error. AccessUser calls it; a change that reads them along its lock of a
// game checks with Access.Check instead (models.TokenCheck).
func (s *Service) CheckAccess(ctx context.Context, a Access) error {
	gen, live, err := s.store.AccessCheck(ctx, a.UserID, a.Session)
	if errors.Is(err, models.ErrNotFound) {
		gen, err = -1, nil // no such user: no generation is current
	}
	if err != nil {
		return err
	}
	return a.Check(gen, live)
}

// VerifyAccess is AccessUser without the generation's check: what the
// token itself says, checked (HS256 only, signature, exp, iss and aud), or
// ErrBadToken. A token it has verified is remembered by its exact text
// until it expires: a client sends the same token with every request, and
// parsing and verifying it again took a tenth of the server's time for a
// GET answered from the cache. What is remembered spares the verification
// only, never the generation's check.
func (s *Service) VerifyAccess(token string) (Access, error) {
	now := s.now()
	if v, ok := s.verified.Get(token); ok && now.Before(v.Expires) { // as the parser checks exp
		return v, nil
	}
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return s.cfg.Secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(s.cfg.Issuer),
		jwt.WithAudience(s.cfg.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(func() time.Time { return now }),
	)
	if err != nil {
		return Access{}, ErrBadToken
	}
	id, err := strconv.ParseInt(c.Subject, 10, 64)
	if err != nil || id <= 0 || c.Gen < 0 {
		return Access{}, ErrBadToken
	}
	v := Access{UserID: id, Gen: c.Gen, Session: c.Session, Expires: c.ExpiresAt.Time}
	if c.NotBefore == nil { // a token good from some time on is verified each time
		s.verified.Put(token, v)
	}
	return v, nil
}

// StartSession starts a sign-in session of u: a new refresh token family,
// and an access token of u.TokenGen in it.
func (s *Service) StartSession(ctx context.Context, u *models.User) (Session, error) {
	refresh := randomToken(RefreshTokenPrefix)
	family := randomToken("")
	if err := s.store.CreateRefreshToken(ctx, u.ID, family, models.HashToken(refresh), s.now().Add(s.cfg.RefreshTTL)); err != nil {
		return Session{}, gone(err)
	}
	return s.session(u, refresh, family)
}

// session is the session of u with a new access token (see IssueAccess)
// in family, and the refresh token refresh.
func (s *Service) session(u *models.User, refresh, family string) (Session, error) {
	access, exp, err := s.IssueAccess(u, family)
	if err != nil {
		return Session{}, err
	}
	return Session{Access: access, AccessExpires: exp, Refresh: refresh, RefreshExpires: s.now().Add(s.cfg.RefreshTTL), User: u}, nil
}

// Refresh rotates a refresh token: its session goes on with a new access
// and refresh token. Presenting a rotated token again revokes its whole
// family and ends the user's access tokens (models.ErrTokenReuse, logged);
// an unknown, expired or revoked one is models.ErrInvalidToken.
func (s *Service) Refresh(ctx context.Context, token string) (Session, error) {
	if !strings.HasPrefix(token, RefreshTokenPrefix) {
		return Session{}, models.ErrInvalidToken
	}
	old := models.HashToken(token)
	// The user, and so the generation of the new access token, before the
	// rotation checks the refresh token (see IssueAccess).
	u, family, err := s.store.RefreshTokenUser(ctx, old)
	if err != nil {
		return Session{}, err
	}
	next := randomToken(RefreshTokenPrefix)
	_, err = s.store.RotateRefreshToken(ctx, old, models.HashToken(next), s.now().Add(s.cfg.RefreshTTL))
	if errors.Is(err, models.ErrTokenReuse) {
		s.log.WarnContext(ctx, "refresh token reuse; family revoked, access tokens ended", "user_id", u.ID)
	}
	if err != nil {
		return Session{}, err
	}
	return s.session(u, next, family)
}

// Logout ends the refresh token's session: its family is revoked, and
// with it the access tokens issued in it, on every replica at once. The
// account's other sessions and its personal API tokens go on. A repeat
// changes nothing; an unknown token is models.ErrInvalidToken.
func (s *Service) Logout(ctx context.Context, refreshToken string) error {
	_, err := s.store.RevokeRefreshFamily(ctx, models.HashToken(refreshToken))
	return err
}

// EndSessions signs user userID out everywhere: every browser session and
// every access and refresh token of the API ends. Personal API tokens go
// on.
func (s *Service) EndSessions(ctx context.Context, userID int64) error {
	return s.store.EndSessions(ctx, userID)
}

// IsAPIToken reports whether token is shaped as a personal API token (by
// its prefix), not an access token.
func IsAPIToken(token string) bool { return strings.HasPrefix(token, APITokenPrefix) }

// APIToken returns the live personal API token token and records its use;
// models.ErrInvalidToken for one unknown or revoked.
func (s *Service) APIToken(ctx context.Context, token string) (*models.APIToken, error) {
	return s.store.APITokenByHash(ctx, models.HashToken(token))
}

// MaxTokenName is the most bytes of a personal API token's name.
const MaxTokenName = 64

// NewToken makes a personal API token for user userID named name with
// scopes (read, play; each at least once, in any order), not yet stored
// (see SaveToken): the token as stored, and its secret, which is shown
// once and never kept. A name or scopes that will not do are refused
// (Invalid).
func NewToken(userID int64, name string, scopes []string) (*models.APIToken, string, error) {
	if name == "" || len(name) > MaxTokenName {
		return nil, "", refusal.New(refusal.Invalid, "invalid", "name: 1 to %d characters", MaxTokenName)
	}
	if len(scopes) == 0 {
		return nil, "", refusal.New(refusal.Invalid, "invalid", "scopes: at least one of read, play")
	}
	for _, sc := range scopes {
		if sc != ScopeRead && sc != ScopePlay {
			return nil, "", refusal.New(refusal.Invalid, "invalid", "scopes: %q is not read or play", sc)
		}
	}
	scopes = slices.Compact(slices.Sorted(slices.Values(scopes)))
	secret := randomToken(APITokenPrefix)
	return &models.APIToken{UserID: userID, Name: name, Prefix: secret[:len(APITokenPrefix)+6],
		TokenHash: models.HashToken(secret), Scopes: strings.Join(scopes, ",")}, secret, nil
}

// MaxAPITokens is how many live personal API tokens one account may hold:
// one more is refused (limit_reached) until one is revoked, so that the
// list of them, which has no pages, stays short.
const MaxAPITokens = 50

// SaveToken stores a token NewToken made, unless its user holds
// MaxAPITokens live tokens already (a Conflict refusal, limit_reached).
func (s *Service) SaveToken(ctx context.Context, t *models.APIToken) error {
	return s.store.InTx(ctx, func(tx *models.Store) error {
		ok, err := tx.Room(ctx, t.UserID, models.LiveAPITokens, MaxAPITokens)
		if err != nil {
			return err
		}
		if !ok {
			return refusal.LimitReached(MaxAPITokens, "live API tokens", "revoke one first")
		}
		return tx.CreateAPIToken(ctx, t)
	})
}

// Tokens lists user userID's live API tokens (never the secrets).
func (s *Service) Tokens(ctx context.Context, userID int64) ([]models.APIToken, error) {
	return s.store.APITokens(ctx, userID)
}

// RevokeToken revokes user userID's API token id; models.ErrNotFound if
// they have no such live token.
func (s *Service) RevokeToken(ctx context.Context, userID, id int64) error {
	return s.store.RevokeAPIToken(ctx, userID, id)
}

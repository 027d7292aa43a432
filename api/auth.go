package api

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/crypto/argon2"
)

// argon2id parameters (OWASP's minimum: 19 MiB, 2 passes, 1 lane).
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// hashPassword returns the argon2id hash of password in the PHC string
// format, with a random salt.
func hashPassword(password string) string {
	salt := randomBytes(16)
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// checkPassword reports whether password matches a hash made by
// hashPassword (with any parameters).
func checkPassword(hash, password string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return false
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// dummyHash is checked against when the username is unknown, so that a
// login takes as long whether or not the user exists.
var dummyHash = hashPassword("not a password")

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand: " + err.Error())
	}
	return b
}

// randomToken returns prefix followed by 32 random bytes in base64url.
func randomToken(prefix string) string {
	return prefix + base64.RawURLEncoding.EncodeToString(randomBytes(32))
}

// Token prefixes tell the kinds apart at a glance and in secret scanners.
const (
	apiTokenPrefix     = "dmp_"
	refreshTokenPrefix = "dmr_"
)

// Scopes of personal API tokens. Access tokens from a login carry all of
// them and may also manage the account.
const (
	ScopeRead = "read"
	ScopePlay = "play"
)

// claims are the access token's claims.
type claims struct {
	Username string `json:"name"`
	jwt.RegisteredClaims
}

// issueAccess returns a signed HS256 access token for the user.
func (s *Server) issueAccess(userID int64, username string) (string, time.Time, error) {
	now := s.now()
	exp := now.Add(s.cfg.AccessTTL)
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims{
		Username: username,
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   strconv.FormatInt(userID, 10),
			Issuer:    s.cfg.Issuer,
			Audience:  jwt.ClaimStrings{s.cfg.Audience},
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(exp),
		},
	})
	signed, err := tok.SignedString(s.cfg.Secret)
	return signed, exp, err
}

// parseAccess verifies an access token: HS256 only, signature, exp, iss and
// aud. It returns the user id. A token it has verified is remembered by its
// exact text, with its user and expiry, until it expires: a client sends
// the same token with every request, and parsing and verifying it again
// took a tenth of the server's time for a GET answered from the cache.
func (s *Server) parseAccess(token string) (int64, error) {
	now := s.now()
	if v, ok := s.verified.get(token); ok && now.Before(v.exp) { // as the parser checks exp
		return v.userID, nil
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
		return 0, err
	}
	id, err := strconv.ParseInt(c.Subject, 10, 64)
	if err != nil || id <= 0 {
		return 0, errors.New("bad subject")
	}
	if c.NotBefore == nil { // a token good from some time on is verified each time
		s.verified.put(token, verifiedToken{userID: id, exp: c.ExpiresAt.Time})
	}
	return id, nil
}

// verifiedToken is an access token parseAccess has verified.
type verifiedToken struct {
	userID int64
	exp    time.Time
}

// limiter is a token bucket per key: Burst attempts at once, refilled at one
// per Every. It forgets idle keys.
type limiter struct {
	mu      sync.Mutex
	burst   float64
	every   time.Duration
	now     func() time.Time
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(burst int, every time.Duration, now func() time.Time) *limiter {
	return &limiter{burst: float64(burst), every: every, now: now, buckets: map[string]*bucket{}}
}

// allow takes a token for key; if there is none it returns the seconds to
// wait.
func (l *limiter) allow(key string) (ok bool, retryAfter int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if len(l.buckets) > 100_000 {
		l.buckets = map[string]*bucket{} // bounded memory under a flood of keys
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+float64(now.Sub(b.at))/float64(l.every))
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) * float64(l.every))
	return false, int(wait/time.Second) + 1
}

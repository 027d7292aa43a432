package api

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
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
	// Gen is the user's token generation when the token was issued (see
	// models.User.TokenGen); absent means 0.
	Gen int64 `json:"gen,omitempty"`
	// Session names the login session the token was issued for: the
	// family of its refresh tokens, so that a logout ends this session's
	// access tokens and no other's (see models.Store.AccessCheck). Absent
	// for a token of no session (issued before sessions were named, or for
	// the pages' calls, CallAs): the generation alone ends it.
	Session string `json:"sid,omitempty"`
	jwt.RegisteredClaims
}

// issueAccess returns a signed HS256 access token for the user, of the
// user's current token generation u.TokenGen, in the login session
// session (its refresh token family; "" for none). The generation must
// have been read before the credential the token is issued for was
// checked: whatever ends the user's access tokens after that read ends
// this one too.
func (s *Server) issueAccess(u *models.User, session string) (string, time.Time, error) {
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
	return signed, exp, err
}

// errTokenEnded is an access token of an earlier generation than its
// user's (a password change, "sign out everywhere" or a refresh token's
// reuse came after it), or of a session that has ended (a logout).
var errTokenEnded = newError(http.StatusUnauthorized, "unauthorized", "Unauthorized",
	"the access token was ended by a logout or a password change; refresh it or log in again")

// parseAccess verifies an access token: HS256 only, signature, exp, iss and
// aud (verifyAccess), and that it is of its user's current token
// generation and its session is live, both read from the database each
// time (models.Store.AccessCheck), so that a logout of its session, or a
// password change, on any replica ends it at once. It returns the user id;
// errUnauthorized or errTokenEnded for a token that is no good, or the
// store's error.
func (s *Server) parseAccess(ctx context.Context, token string) (int64, error) {
	v, err := s.verifyAccess(token)
	if err != nil {
		return 0, errUnauthorized
	}
	gen, live, err := s.store.AccessCheck(ctx, v.userID, v.session)
	if errors.Is(err, models.ErrNotFound) {
		gen, err = -1, nil // no such user: no generation is current
	}
	if err != nil {
		return 0, err
	}
	return v.userID, v.check(gen, live)
}

// verifyAccess is parseAccess without the generation's check: what the
// token itself says, checked. A token it has verified is remembered by its
// exact text, with its user, generation and expiry, until it expires: a
// client sends the same token with every request, and parsing and
// verifying it again took a tenth of the server's time for a GET answered
// from the cache. What is remembered spares the verification only, never
// the generation's check.
func (s *Server) verifyAccess(token string) (verifiedToken, error) {
	now := s.now()
	if v, ok := s.verified.Get(token); ok && now.Before(v.exp) { // as the parser checks exp
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
		return verifiedToken{}, err
	}
	id, err := strconv.ParseInt(c.Subject, 10, 64)
	if err != nil || id <= 0 || c.Gen < 0 {
		return verifiedToken{}, errors.New("bad subject or generation")
	}
	v := verifiedToken{userID: id, gen: c.Gen, session: c.Session, exp: c.ExpiresAt.Time}
	if c.NotBefore == nil { // a token good from some time on is verified each time
		s.verified.Put(token, v)
	}
	return v, nil
}

// verifiedToken is an access token verifyAccess has verified.
type verifiedToken struct {
	userID  int64
	gen     int64  // the token generation it carries
	session string // the session it names; "" for none
	exp     time.Time
}

// check is errTokenEnded unless the token is of generation current, its
// user's, and its session is live; errUnauthorized if current is -1, for
// a user that does not exist.
func (v verifiedToken) check(current int64, live bool) error {
	switch {
	case current < 0:
		return errUnauthorized
	case v.gen != current || !live:
		return errTokenEnded
	}
	return nil
}

// checkLater, for a route authenticated with authenticateLater, checks the
// generation of the request's access token against current, the user's
// generation as the route's first query read it (models.GameRef.TokenGen),
// and that its session is live (models.GameRef.SessionLive, read for
// laterSession): errTokenEnded if not. It is nil for a request made with
// an API token, which has no generation, and for one authenticate has
// checked.
func checkLater(c *gin.Context, current int64, live bool) error {
	v, ok := c.Get(ctxAccess)
	if !ok {
		return nil
	}
	c.Set(ctxAccessChecked, true)
	return v.(verifiedToken).check(current, live)
}

// laterSession is the session the access token of a request authenticated
// with authenticateLater names, for its first query to read along; "" for
// none (an API token, or a token of no session).
func laterSession(c *gin.Context) string {
	v, _ := c.Get(ctxAccess)
	vt, _ := v.(verifiedToken)
	return vt.session
}

// limit is one of the server's attempt limits: its name, which keys its
// buckets apart from the other limits', and its rate.
type limit struct {
	name string
	rate models.RateLimit
}

// limits are the server's attempt limits (see Config), counted in the
// database so that every replica shares them.
type limits struct {
	loginAccount, loginAddress, register limit
}

func newLimits(cfg Config) limits {
	return limits{
		loginAccount: limit{"login account", models.RateLimit{Burst: cfg.LoginBurst, Every: cfg.LoginEvery}},
		loginAddress: limit{"login address", models.RateLimit{Burst: cfg.LoginAddressBurst, Every: cfg.LoginAddressEvery}},
		register:     limit{"register address", models.RateLimit{Burst: cfg.RegisterBurst, Every: cfg.RegisterEvery}},
	}
}

// attempt is one bucket an attempt is counted in: a limit and what it
// limits (an account's name or a client address).
type attempt struct {
	limit limit
	what  string
}

// key is the bucket's key in the database: a keyed hash of the limit and
// what it limits, so that the table names no account or address, and no one
// without the server's secret can tell which row is whose.
func (a attempt) key(s *Server) []byte {
	return s.mac("rate limit", []byte(a.limit.name), []byte{0}, []byte(a.what))[:16]
}

// taken is what take took: the attempts, and the states their buckets
// were left in.
type taken struct {
	attempts []attempt
	states   []models.RateState
}

// take takes an attempt from each bucket in order. When one has none left
// it gives back those taken before and returns a *RateLimitError: a refused
// attempt counts nowhere. Either way the response says how the buckets
// stand (rateHeaders).
func (s *Server) take(c *gin.Context, attempts ...attempt) (taken, error) {
	t := taken{attempts: attempts, states: make([]models.RateState, 0, len(attempts))}
	now := s.now()
	for i, a := range attempts {
		st, err := s.store.TakeRate(c.Request.Context(), a.key(s), a.limit.rate, now)
		if err == nil && st.Wait == 0 {
			t.states = append(t.states, st)
			continue
		}
		s.give(c, taken{attempts[:i], t.states})
		if err != nil {
			return taken{}, err
		}
		rateHeaders(c, attempts, append(t.states, st))
		return taken{}, &RateLimitError{RetryAfter: int(st.Wait/time.Second) + 1}
	}
	rateHeaders(c, attempts, t.states)
	return t, nil
}

// give gives back the attempts t took, for an attempt that turned out right
// (a login with the right password): only failed attempts count. A failure
// to give back is logged; the attempt then stays counted.
func (s *Server) give(c *gin.Context, t taken) {
	for i, a := range t.attempts {
		if err := s.store.GiveRate(c.Request.Context(), a.key(s), a.limit.rate); err != nil {
			s.log.Warn("give back a rate-limited attempt", "limit", a.limit.name, "error", err)
			continue
		}
		t.states[i] = t.states[i].Gave(a.limit.rate)
	}
	rateHeaders(c, t.attempts, t.states)
}

// rateHeaders says how the buckets of attempts stand, in the fields of the
// IETF draft draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy
// (policyHeader) and RateLimit, what is left (r) and the seconds until the
// bucket is full again (t), one item per limit, in the order they are
// counted. A limit a refused request did not reach is in the policy alone.
func rateHeaders(c *gin.Context, attempts []attempt, states []models.RateState) {
	if len(attempts) == 0 {
		return
	}
	var left []string
	for i, a := range attempts[:len(states)] {
		left = append(left, fmt.Sprintf("%s;r=%d;t=%d", a.limit.item(), states[i].Left, ceilSeconds(states[i].Full)))
	}
	limits := make([]limit, len(attempts))
	for i, a := range attempts {
		limits[i] = a.limit
	}
	c.Header("RateLimit-Policy", policyHeader(limits))
	c.Header("RateLimit", strings.Join(left, ", "))
}

// policyHeader is the RateLimit-Policy of limits: each with its quota (q,
// the burst) and window (w, the seconds an empty bucket takes to fill).
func policyHeader(limits []limit) string {
	var out []string
	for _, l := range limits {
		burst := max(l.rate.Burst, 1)
		out = append(out, fmt.Sprintf("%s;q=%d;w=%d", l.item(), burst, ceilSeconds(time.Duration(burst)*l.rate.Every)))
	}
	return strings.Join(out, ", ")
}

// item is the limit's name as a RateLimit field names it: a quoted string,
// "login-account".
func (l limit) item() string { return strconv.Quote(strings.ReplaceAll(l.name, " ", "-")) }

// ratePolicy marks every response of a route whose attempts count in
// limits with their RateLimit-Policy, a request refused before it is
// counted (a malformed one) too; take adds RateLimit once it counts.
func ratePolicy(limits ...limit) gin.HandlerFunc {
	policy := policyHeader(limits)
	return func(c *gin.Context) {
		c.Header("RateLimit-Policy", policy)
		c.Next()
	}
}

// ceilSeconds is d in whole seconds, rounded up.
func ceilSeconds(d time.Duration) int64 { return int64((d + time.Second - 1) / time.Second) }

// loginAttempts are the buckets a login, or a password change, of the
// account named username from the request's client counts in: the
// address's (first) and the account's, whatever the case of the name.
func (s *Server) loginAttempts(c *gin.Context, username string) []attempt {
	return []attempt{{s.limits.loginAddress, clientAddress(c)}, {s.limits.loginAccount, strings.ToLower(username)}}
}

// clientAddress is the request's client address as rate limits count it:
// an IPv4 address, or the /64 of an IPv6 address (one host often has a
// whole /64).
func clientAddress(c *gin.Context) string {
	ip := c.ClientIP()
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

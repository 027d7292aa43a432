package notifier

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// LinkPurpose says what a signed link in an email is for. A token made for
// one purpose never passes for another.
type LinkPurpose byte

// Link purposes.
const (
	LinkSignIn LinkPurpose = 1 + iota // signs the recipient in and opens a game (single use)
	LinkVerify                        // verifies the recipient's address
	LinkReset                         // sets a new password (single use)
	LinkAction                        // one numbered line of a decision email (see ActionURL)
)

// The pages that the links of emails open (the web pages serve them).
const (
	SignInPath   = "/signin"   // a sign-in link; the token is its "t" parameter
	GamesPath    = "/games/"   // followed by a game's id
	SettingsPath = "/settings" // the recipient's settings
	// NotificationsFragment is the fragment of the settings page's
	// notification preferences.
	NotificationsFragment = "#notifications"
	// ActionPath, after a game's page, is where an action link of a
	// decision email leads (see ActionURL).
	ActionPath = "/act"
)

// GameURL returns the address of the game's page.
func GameURL(baseURL string, gameID int64) string {
	return strings.TrimRight(baseURL, "/") + GamesPath + strconv.FormatInt(gameID, 10)
}

// PreferencesURL returns the address of the notification preferences.
func PreferencesURL(baseURL string) string {
	return strings.TrimRight(baseURL, "/") + SettingsPath + NotificationsFragment
}

// SignInTTL is the longest a sign-in link lasts; it lasts less when the
// game's deadline comes first.
const SignInTTL = 7 * 24 * time.Hour

// ErrBadLink is returned by ParseLink for a token that is malformed.
var ErrBadLink = errors.New("notifier: invalid link token")

// Link is what a signed link carries: its purpose, the user it is for, the
// game it opens (0: none), its expiry (to the second), and a nonce that
// makes it single-use (nil: none). The token also signs bytes it does not
// carry (see Sign), such as the address a verification link verifies.
type Link struct {
	Purpose LinkPurpose
	UserID  int64
	GameID  int64
	Expires time.Time
	Nonce   []byte

	mac []byte // as parsed; see Valid
}

// NewNonce returns 12 random bytes for a single-use link.
func NewNonce() []byte {
	b := make([]byte, 12)
	rand.Read(b) // never fails (crypto/rand)
	return b
}

// payload is the link's bytes: a version, the purpose, the numbers as
// varints, the nonce with its length.
func (l Link) payload() []byte {
	b := []byte{1, byte(l.Purpose)}
	b = binary.AppendUvarint(b, uint64(l.UserID))
	b = binary.AppendUvarint(b, uint64(l.GameID))
	b = binary.AppendUvarint(b, uint64(max(l.Expires.Unix(), 0)))
	b = append(b, byte(len(l.Nonce)))
	return append(b, l.Nonce...)
}

func linkMAC(secret, payload, bound []byte) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("dm-link-v1"))
	mac.Write(payload)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(bound)))
	mac.Write(n[:])
	mac.Write(bound)
	return mac.Sum(nil)[:16]
}

// Sign returns the link's token: its payload and a truncated HMAC-SHA256
// under secret of the payload and bound, in URL-safe base64. bound is
// what the link holds for without carrying it (the address to verify, a
// fingerprint of the password a reset replaces): the link is valid only
// while the same bytes are given to Valid. Nothing is stored.
func (l Link) Sign(secret, bound []byte) string {
	p := l.payload()
	return b64.EncodeToString(append(p, linkMAC(secret, p, bound)...))
}

// ParseLink decodes a token made by Sign without checking its signature
// (see Valid): the caller reads who it is for, finds what it is bound to,
// then checks it. A malformed token gives ErrBadLink.
func ParseLink(token string) (Link, error) {
	if len(token) > 256 {
		return Link{}, ErrBadLink
	}
	raw, err := b64.Strict().DecodeString(token) // strict: one token per byte string
	if err != nil || len(raw) < 2+3+1+16 || raw[0] != 1 {
		return Link{}, ErrBadLink
	}
	l := Link{Purpose: LinkPurpose(raw[1])}
	rest := raw[2 : len(raw)-16]
	var nums [3]uint64
	rest, ok := readUvarints(rest, nums[:])
	if !ok {
		return Link{}, ErrBadLink
	}
	if len(rest) < 1 || int(rest[0]) != len(rest)-1 {
		return Link{}, ErrBadLink
	}
	l.UserID, l.GameID, l.Expires = int64(nums[0]), int64(nums[1]), time.Unix(int64(nums[2]), 0).UTC()
	if len(rest) > 1 {
		l.Nonce = rest[1:]
	}
	l.mac = raw[len(raw)-16:]
	if l.UserID <= 0 {
		return Link{}, ErrBadLink
	}
	return l, nil
}

// Valid reports whether the parsed link was signed with secret for
// purpose and bound. It does not look at the expiry (see Expired), so
// that an expired link can be told apart from a forged one.
func (l Link) Valid(secret []byte, purpose LinkPurpose, bound []byte) bool {
	return l.Purpose == purpose && l.mac != nil && hmac.Equal(l.mac, linkMAC(secret, l.payload(), bound))
}

// Expired reports whether the link has expired at now.
func (l Link) Expired(now time.Time) bool { return !now.Before(l.Expires) }

// SignInURL returns the address of the sign-in link of user to game:
// baseURL + SignInPath + "?t=" + the token, expiring at the deadline or
// after SignInTTL, whichever comes first (a zero deadline: SignInTTL).
func SignInURL(baseURL string, secret []byte, userID, gameID int64, deadline, now time.Time) string {
	tok := Link{Purpose: LinkSignIn, UserID: userID, GameID: gameID, Expires: linkExpiry(deadline, now), Nonce: NewNonce()}.Sign(secret, nil)
	return strings.TrimRight(baseURL, "/") + SignInPath + "?t=" + url.QueryEscape(tok)
}

// linkExpiry is when a link of an email sent at now about a decision due
// at deadline expires (decisionExpiry with SignInTTL).
func linkExpiry(deadline, now time.Time) time.Time { return decisionExpiry(deadline, now, SignInTTL) }

// decisionExpiry is when something of an email sent at now about a
// decision due at deadline expires: at the deadline or after ttl,
// whichever comes first (a zero deadline: ttl), rounded up to the second a
// token keeps, so that it never expires before the deadline.
func decisionExpiry(deadline, now time.Time, ttl time.Duration) time.Time {
	exp := now.Add(ttl)
	if !deadline.IsZero() && deadline.Before(exp) {
		exp = deadline
	}
	if t := exp.Truncate(time.Second); t.Before(exp) {
		exp = t.Add(time.Second)
	}
	return exp
}

// ActionURL returns the link of line n of what user may do in game at
// version, as the email written for that version numbers it
// (engine.Numbered, whose lines have the digest digest): GameURL +
// ActionPath + "?v=" version + "&n=" n + "&d=" digest + "&t=" a token of
// purpose LinkAction bound to the three (ActionBound), with a nonce,
// expiring as a sign-in link does. The page it opens shows the action and
// changes nothing; only its confirmation, a POST, acts. Nothing is stored.
func ActionURL(baseURL string, secret []byte, userID, gameID, version int64, n int, digest uint32, deadline, now time.Time) string {
	tok := Link{Purpose: LinkAction, UserID: userID, GameID: gameID, Expires: linkExpiry(deadline, now), Nonce: NewNonce()}.
		Sign(secret, ActionBound(version, n, digest))
	return GameURL(baseURL, gameID) + ActionPath + ActionQuery(version, n, digest, tok)
}

// ActionQuery is the query of an action link: "?v=" version + "&n=" n +
// "&d=" digest (none for 0, a link made before digests) + "&t=" token.
func ActionQuery(version int64, n int, digest uint32, token string) string {
	q := "?v=" + strconv.FormatInt(version, 10) + "&n=" + strconv.Itoa(n)
	if digest != 0 {
		q += "&d=" + strconv.FormatUint(uint64(digest), 10)
	}
	return q + "&t=" + url.QueryEscape(token)
}

// ActionBound is what the token of an action link is bound to: the
// version of the game the email was written for, the line's number and
// the digest of the email's lines (0: a link made before digests, bound
// to the first two only), so that a token taken from one link cannot be
// put on another.
func ActionBound(version int64, n int, digest uint32) []byte {
	b := "v" + strconv.FormatInt(version, 10) + ".n" + strconv.Itoa(n)
	if digest != 0 {
		b += ".d" + strconv.FormatUint(uint64(digest), 10)
	}
	return []byte(b)
}

// WithSignIn returns d with its game link replaced by a sign-in link for
// the recipient userID (see SignInURL) when d asks them to act: your turn
// (a started game's first turn too), a decision, a reminder. Other data,
// data about no game, and a nil secret leave d as it is. The email worker
// calls it as it renders an email, so a link is made per email sent and
// nothing is stored until it is used.
func WithSignIn(d Data, baseURL string, secret []byte, userID int64, now time.Time) Data {
	gameID, err := strconv.ParseInt(d.base().GameID, 10, 64)
	if secret == nil || userID <= 0 || err != nil || gameID <= 0 {
		return d
	}
	link := func(deadline time.Time) string { return SignInURL(baseURL, secret, userID, gameID, deadline, now) }
	switch v := d.(type) {
	case GameStarted:
		if v.YourTurn {
			v.GameURL = link(v.Deadline)
		}
		return v
	case YourTurn:
		v.GameURL = link(v.Deadline)
		return v
	case PromptWaiting:
		v.GameURL = link(v.Deadline)
		return v
	case DeadlineReminder:
		v.GameURL = link(v.Deadline)
		return v
	}
	return d
}

// readUvarints reads len(nums) uvarints of at most 2^62 from b into nums and
// returns the bytes after them; ok is false when one is missing or larger
// (the numbers of link tokens and reply addresses).
func readUvarints(b []byte, nums []uint64) (rest []byte, ok bool) {
	for i := range nums {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > 1<<62 {
			return nil, false
		}
		nums[i], b = v, b[n:]
	}
	return b, true
}

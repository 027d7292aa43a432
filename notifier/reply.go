package notifier

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"strings"
	"time"
)

// ReplyTTL is the longest a reply address lasts; it lasts less when the
// decision's deadline comes first.
const ReplyTTL = 30 * 24 * time.Hour

// ReplyPrefix starts the local part of every reply address.
const ReplyPrefix = "play-"

// ErrBadReply is returned by ParseReplyAddress for an address that is not
// a reply address of this service, or whose token is malformed.
var ErrBadReply = errors.New("notifier: not a reply address")

// Reply is what a reply address names: the decision an email asked of one
// seat. It is carried by the address's local part, signed (see Sign).
type Reply struct {
	GameID  int64
	Seat    int
	UserID  int64
	Version int64     // the game's version the email was written for
	Expires time.Time // to the second
	// Lines is the digest of the email's numbered lines (engine.Digest);
	// 0 in an address made before digests, and in a General one.
	Lines uint32
	// General is the address of an email that numbers no moves (an
	// invitation, a game's news, an answer to a waiting player): a reply
	// to it may hold the commands that need no list (help, board, resign,
	// join, words of moves), never numbers.
	General bool
	// Talk is the address of a message's own email (General too): a reply
	// to it is a message, posted as written, to the table, or, when To is
	// a seat (0 or more), to that seat only: the author of the private
	// message it answers. To is -1 for the table, and unused otherwise.
	Talk bool
	To   int

	mac []byte // as parsed; see Valid
}

// b32 is the token's alphabet: lower-case letters and digits only, since
// the local part of an address may be folded to one case on its way.
var b32 = base32.NewEncoding(b32alphabet).WithPadding(base32.NoPadding)

const b32alphabet = "abcdefghijklmnopqrstuvwxyz234567"

// payload is the token without its MAC: a format byte, then the numbers
// as uvarints; format 2 ends with the 4 bytes of Lines, format 4 (a Talk
// address) with To+1 as one more uvarint, format 1 (an address made
// before digests) and format 3 (a General address) with nothing.
func (r Reply) payload() []byte {
	b := []byte{1}
	switch {
	case r.Talk:
		b[0] = 4
	case r.General:
		b[0] = 3
	case r.Lines != 0:
		b[0] = 2
	}
	b = binary.AppendUvarint(b, uint64(r.GameID))
	b = binary.AppendUvarint(b, uint64(r.Seat))
	b = binary.AppendUvarint(b, uint64(r.UserID))
	b = binary.AppendUvarint(b, uint64(r.Version))
	b = binary.AppendUvarint(b, uint64(max(r.Expires.Unix(), 0)))
	switch {
	case r.Talk:
		b = binary.AppendUvarint(b, uint64(max(r.To+1, 0)))
	case r.Lines != 0 && !r.General:
		b = binary.BigEndian.AppendUint32(b, r.Lines)
	}
	return b
}

// replyMACLen is the length of the token's truncated HMAC: 96 bits, so
// that the whole local part stays under RFC 5321's 64 octets.
const replyMACLen = 12

func replyMAC(secret, payload []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("dm-reply-v1"))
	m.Write(payload)
	return m.Sum(nil)[:replyMACLen]
}

// Token returns the reply's token: its payload and a truncated
// HMAC-SHA256 under secret, in lower-case base32.
func (r Reply) Token(secret []byte) string {
	p := r.payload()
	return b32.EncodeToString(append(p, replyMAC(secret, p)...))
}

// Address returns the reply address of r at domain:
// ReplyPrefix + Token + "@" + domain.
func (r Reply) Address(secret []byte, domain string) string {
	return ReplyPrefix + r.Token(secret) + "@" + idDomain(domain)
}

// ParseReplyAddress reads the reply an address names without checking its
// signature (see Valid); the domain is not looked at. Anything else than
// a well-formed reply address gives ErrBadReply.
func ParseReplyAddress(addr string) (Reply, error) {
	addr = strings.TrimSpace(strings.Trim(strings.TrimSpace(addr), "<>"))
	local := addr
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		local = addr[:i]
	}
	local = strings.ToLower(local)
	if !strings.HasPrefix(local, ReplyPrefix) || len(local) > 64 {
		return Reply{}, ErrBadReply
	}
	tok := local[len(ReplyPrefix):]
	raw, err := b32.DecodeString(tok)
	// Decoding ignores the last character's unused low bits, so that up to
	// 32 spellings read alike: only the one Token writes is taken.
	if err != nil || b32.EncodeToString(raw) != tok || len(raw) < 1+5+replyMACLen || raw[0] < 1 || raw[0] > 4 {
		return Reply{}, ErrBadReply
	}
	rest := raw[1 : len(raw)-replyMACLen]
	var nums [5]uint64
	rest, ok := readUvarints(rest, nums[:])
	if !ok {
		return Reply{}, ErrBadReply
	}
	var lines uint32
	to := [1]uint64{}
	switch raw[0] {
	case 2:
		if len(rest) != 4 {
			return Reply{}, ErrBadReply
		}
		lines, rest = binary.BigEndian.Uint32(rest), nil
	case 4:
		if rest, ok = readUvarints(rest, to[:]); !ok || to[0] > 64 {
			return Reply{}, ErrBadReply
		}
	}
	if len(rest) != 0 || nums[1] > 64 || raw[0] == 2 && lines == 0 {
		return Reply{}, ErrBadReply
	}
	r := Reply{GameID: int64(nums[0]), Seat: int(nums[1]), UserID: int64(nums[2]), Version: int64(nums[3]),
		Expires: time.Unix(int64(nums[4]), 0).UTC(), Lines: lines, General: raw[0] >= 3, Talk: raw[0] == 4, To: int(to[0]) - 1,
		mac: raw[len(raw)-replyMACLen:]}
	if r.GameID <= 0 || r.UserID <= 0 {
		return Reply{}, ErrBadReply
	}
	return r, nil
}

// Valid reports whether the parsed reply was signed with secret. It does
// not look at the expiry (see Expired), so that an expired address can be
// told apart from a forged one.
func (r Reply) Valid(secret []byte) bool {
	return r.mac != nil && hmac.Equal(r.mac, replyMAC(secret, r.payload()))
}

// Expired reports whether the reply address has expired at now.
func (r Reply) Expired(now time.Time) bool { return !now.Before(r.Expires) }

// ReplyExpiry is when the reply address of an email sent at now about a
// decision due at deadline expires: at the deadline or after ReplyTTL,
// whichever comes first (a zero deadline: ReplyTTL), rounded up to the
// second.
func ReplyExpiry(deadline, now time.Time) time.Time { return decisionExpiry(deadline, now, ReplyTTL) }

// ReplyConfig is how the decision emails take replies: Secret signs the
// reply addresses (nil: no email carries one), Domain is their domain.
type ReplyConfig struct {
	Secret []byte
	Domain string
}

// Enabled reports whether reply addresses are made.
func (c ReplyConfig) Enabled() bool { return c.Secret != nil && c.Domain != "" }

// EnvReplyDomain names the variable of the reply addresses' domain.
const EnvReplyDomain = "REPLY_DOMAIN"

// LoadReplyDomain reads REPLY_DOMAIN through getenv, defaulting to the
// domain of the email configuration's From address.
func LoadReplyDomain(getenv func(string) string, email EmailConfig) string {
	if d := strings.ToLower(strings.TrimSpace(getenv(EnvReplyDomain))); d != "" {
		return d
	}
	return email.Domain()
}

package accounts

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // time zones load on machines without a zoneinfo folder

	"golang.org/x/crypto/argon2"
)

// argon2id parameters (OWASP's minimum: 19 MiB, 2 passes, 1 lane).
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// HashPassword returns the argon2id hash of password in the PHC string
// format, with a random salt, at OWASP's minimum cost.
func HashPassword(password string) string {
	return HashPasswordCost(password, argonTime, argonMemory)
}

// HashPasswordCost is HashPassword with passes over memoryKiB KiB (at
// least 8). The hash records them, so any cost checks. A server stores
// HashPassword's; a test that registers hundreds of accounts may pass a
// cheaper one as Config.Hash, where the cost is most of its time.
func HashPasswordCost(password string, passes, memoryKiB uint32) string {
	salt := randomBytes(16)
	key := argon2.IDKey([]byte(password), salt, passes, memoryKiB, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, memoryKiB, passes, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// matches reports whether password is the password whose hash is hash.
// An empty hash (no such user) is checked against the service's dummy
// hash and fails, so that an unknown username costs as long as a wrong
// password: the dummy is made by Config.Hash, at the cost of every
// account's hash.
func (s *Service) matches(hash, password string) bool {
	if hash == "" {
		checkPassword(s.dummy(), password)
		return false
	}
	return checkPassword(hash, password)
}

// checkPassword reports whether password matches a hash made by
// HashPassword (with any parameters).
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

// The length of a new password, in bytes.
const (
	MinPassword = 8
	MaxPassword = 256
)

// ValidPassword reports whether password may be a new password: 8 to 256
// bytes.
func ValidPassword(password string) bool {
	return len(password) >= MinPassword && len(password) <= MaxPassword
}

var usernamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{2,31}$`)

// ValidUsername reports whether name may be a username: 3 to 32
// characters of a-z, 0-9, _ and -, starting with a letter or a digit.
func ValidUsername(name string) bool { return usernamePattern.MatchString(name) }

// ValidEmail reports whether addr may be an account's address: a plain
// address of at most 254 bytes, or "" for none.
func ValidEmail(addr string) bool {
	if addr == "" {
		return true
	}
	a, err := mail.ParseAddress(addr)
	return err == nil && a.Address == addr && len(addr) <= 254
}

// MaxDisplayName is the most bytes of a display name.
const MaxDisplayName = 64

// ValidZone reports whether name is a time zone the accounts keep: one
// time.LoadLocation knows ("Local", the server's, is none).
func ValidZone(name string) bool {
	if name == "" || name == "Local" {
		return false
	}
	_, err := time.LoadLocation(name)
	return err == nil
}

// fingerprint is the SHA-256 of a password hash (salted, so it changes
// with every new password, even the same one).
func fingerprint(hash string) []byte {
	sum := sha256.Sum256([]byte(hash))
	return sum[:]
}

package accounts

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/datamonsters/turns/internal/bounded"
	"github.com/datamonsters/turns/internal/mac"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
)

// Config is what the accounts need to know. Secret, Issuer and Audience
// are required; zero durations and sizes take the defaults noted (and so
// do the rate limits' negative ones).
type Config struct {
	// Secret signs access tokens (HS256) and keys the rate limits'
	// buckets and the calendar feeds' tokens.
	Secret     []byte
	Issuer     string        // iss of access tokens
	Audience   string        // aud of access tokens
	AccessTTL  time.Duration // access token lifetime; 0 means 15 minutes
	RefreshTTL time.Duration // refresh token lifetime; 0 means 30 days
	// SessionTTL is how long a browser session lasts without use; 0 means
	// 30 days. A session used in the second half of its life is extended.
	SessionTTL time.Duration
	// LoginBurst and LoginEvery limit the attempts to sign in to one
	// account, from any address, and to change its password: LoginBurst
	// attempts at once, one more per LoginEvery. Zero means 10 and 1 minute
	// (at most 70 guesses an hour, under ASVS's 100).
	LoginBurst int
	LoginEvery time.Duration
	// LoginAddressBurst and LoginAddressEvery limit those attempts from one
	// client address (an IPv6 address by its /64), to any accounts. Zero
	// means 30 and 10 seconds.
	LoginAddressBurst int
	LoginAddressEvery time.Duration
	// RegisterBurst and RegisterEvery limit registrations from one client
	// address. Zero means 20 and 3 minutes.
	RegisterBurst int
	RegisterEvery time.Duration
	// Kinds and Channels are the notifications a player chooses among, in
	// the order the preferences list them (notifier.Kinds and
	// notifier.Channels). The digest (models.DigestKind on
	// models.DigestChannel) is off until turned on, and has its hours.
	Kinds    []string
	Channels []string
	// Vacations tells the other players of a vacation booked (the outbox);
	// nil: nobody is told.
	Vacations VacationNotice
	// Push is Web Push: the key browsers subscribe with and the check of
	// a subscription; nil: the server sends no push.
	Push Pusher
	// Hash makes the stored hash of a password; nil is HashPassword
	// (argon2id). A test counts the hashes with it.
	Hash func(password string) string
}

// VacationNotice tells the other players of a player's active games that
// the player is away, in the transaction that books the vacation
// (*notifier.Outbox implements it).
type VacationNotice interface {
	VacationStarted(ctx context.Context, tx models.OutboxTx, v models.Vacation) error
}

// Service is the accounts over one store. Build it with New; it is safe
// for concurrent use.
type Service struct {
	cfg    Config
	store  *models.Store
	play   *play.Service
	log    *slog.Logger
	now    func() time.Time
	limits limits
	*shared
}

// shared is what the copies In makes share with their service.
type shared struct {
	verified *bounded.Map[string, Access]       // access tokens already verified (see VerifyAccess)
	sessions *bounded.Map[string, knownSession] // browser sessions read (see KnownWebSession)
	issued   atomic.Int64                       // access tokens signed
	feedKey  []byte                             // the key of the calendar feeds' tokens
	dummy    func() string                      // the hash an unknown username is checked against (see matches)
}

// New returns the accounts over store; pl takes a deleted account's
// player out of their games. now is the clock (nil means time.Now); log
// may be nil.
func New(store *models.Store, pl *play.Service, cfg Config, log *slog.Logger, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	if cfg.Hash == nil {
		cfg.Hash = HashPassword
	}
	defaults := []struct {
		d   *time.Duration
		def time.Duration
	}{{&cfg.AccessTTL, 15 * time.Minute}, {&cfg.RefreshTTL, 30 * 24 * time.Hour}, {&cfg.SessionTTL, 30 * 24 * time.Hour},
		{&cfg.LoginEvery, time.Minute}, {&cfg.LoginAddressEvery, 10 * time.Second}, {&cfg.RegisterEvery, 3 * time.Minute}}
	for _, d := range defaults {
		if *d.d <= 0 {
			*d.d = d.def
		}
	}
	for _, b := range []struct {
		n   *int
		def int
	}{{&cfg.LoginBurst, 10}, {&cfg.LoginAddressBurst, 30}, {&cfg.RegisterBurst, 20}} {
		if *b.n <= 0 {
			*b.n = b.def
		}
	}
	return &Service{cfg: cfg, store: store, play: pl, log: log, now: now, limits: newLimits(cfg),
		shared: &shared{verified: bounded.New[string, Access](16384),
			sessions: bounded.New[string, knownSession](16384), feedKey: feedKey(cfg.Secret),
			dummy: sync.OnceValue(func() string { return cfg.Hash("not a password") })}}
}

// In returns the service acting in st, a transaction of its store, so
// that what it changes commits or rolls back with what the caller does in
// st (a door's idempotency record).
func (s *Service) In(st *models.Store) *Service {
	c := *s
	c.store = st
	return &c
}

// SessionTTL is how long a browser session lasts without use.
func (s *Service) SessionTTL() time.Duration { return s.cfg.SessionTTL }

// AccessTokensIssued is how many access tokens the service has signed
// since it started (a figure for tests and metrics).
func (s *Service) AccessTokensIssued() int64 { return s.issued.Load() }

// mac is the HMAC-SHA256 of parts under the secret, for the use label
// names.
func (s *Service) mac(label string, parts ...[]byte) []byte {
	return mac.Sum(s.cfg.Secret, label, parts...)
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return b
}

// randomToken returns prefix followed by 32 random bytes in base64url.
func randomToken(prefix string) string {
	return prefix + base64.RawURLEncoding.EncodeToString(randomBytes(32))
}

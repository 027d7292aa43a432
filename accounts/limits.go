package accounts

import (
	"context"
	"strings"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
)

// Limit and Tally are the rate limits' (package refusal): the doors say
// how a tally stands to their clients.
type (
	Limit = refusal.Limit
	Tally = refusal.Tally
)

// limits are the attempt limits (see Config), counted in the database so
// that every replica shares them.
type limits struct {
	loginAccount, loginAddress, register Limit
}

func newLimits(cfg Config) limits {
	return limits{
		loginAccount: Limit{Name: "login account", Rate: models.RateLimit{Burst: cfg.LoginBurst, Every: cfg.LoginEvery}},
		loginAddress: Limit{Name: "login address", Rate: models.RateLimit{Burst: cfg.LoginAddressBurst, Every: cfg.LoginAddressEvery}},
		register:     Limit{Name: "register address", Rate: models.RateLimit{Burst: cfg.RegisterBurst, Every: cfg.RegisterEvery}},
	}
}

// LoginLimits are the limits a sign-in, and a password change, counts in:
// the client address's (first) and the account's.
func (s *Service) LoginLimits() []Limit { return []Limit{s.limits.loginAddress, s.limits.loginAccount} }

// RegisterLimits are the limits a registration counts in: the client
// address's.
func (s *Service) RegisterLimits() []Limit { return []Limit{s.limits.register} }

// attempt is one bucket an attempt is counted in: a limit and what it
// limits (an account's name or a client address).
type attempt struct {
	limit Limit
	what  string
}

// key is the bucket's key in the database: a keyed hash of the limit and
// what it limits, so that the table names no account or address, and no one
// without the secret can tell which row is whose.
func (s *Service) key(a attempt) []byte {
	return s.mac("rate limit", []byte(a.limit.Name), []byte{0}, []byte(a.what))[:16]
}

// taken is what take took: the attempts and the tally of their buckets.
type taken struct {
	attempts []attempt
	tally    Tally
}

// take takes an attempt from each bucket in order. When one has none left
// it gives back those taken before and returns a *refusal.RateLimitError:
// a refused attempt counts nowhere. Either way the tally says how the
// buckets stand.
func (s *Service) take(ctx context.Context, attempts ...attempt) (taken, error) {
	t := taken{attempts: attempts, tally: Tally{States: make([]models.RateState, 0, len(attempts))}}
	for _, a := range attempts {
		t.tally.Limits = append(t.tally.Limits, a.limit)
	}
	now := s.now()
	for i, a := range attempts {
		st, err := s.store.TakeRate(ctx, s.key(a), a.limit.Rate, now)
		if err == nil && st.Wait == 0 {
			t.tally.States = append(t.tally.States, st)
			continue
		}
		s.give(ctx, taken{attempts[:i], Tally{Limits: t.tally.Limits[:i], States: t.tally.States}})
		if err != nil {
			return taken{}, err
		}
		t.tally.States = append(t.tally.States, st)
		return taken{tally: t.tally}, &refusal.RateLimitError{Retry: st.Wait}
	}
	return t, nil
}

// give gives back the attempts t took, for an attempt that turned out
// right (a sign-in with the right password): only failed attempts count.
// A failure to give back is logged; the attempt then stays counted. It
// returns the tally after.
func (s *Service) give(ctx context.Context, t taken) Tally {
	for i, a := range t.attempts {
		if err := s.store.GiveRate(ctx, s.key(a), a.limit.Rate); err != nil {
			s.log.Warn("give back a rate-limited attempt", "limit", a.limit.Name, "error", err)
			continue
		}
		t.tally.States[i] = t.tally.States[i].Gave(a.limit.Rate)
	}
	return t.tally
}

// loginAttempts are the buckets a sign-in, or a password check, of the
// account named username from client counts in: the address's (first)
// and the account's, whatever the case of the name.
func (s *Service) loginAttempts(client, username string) []attempt {
	return []attempt{{s.limits.loginAddress, client}, {s.limits.loginAccount, strings.ToLower(username)}}
}

// CountRegistration counts a registration from client (an address as
// the doors count it: an IPv4 address, or the /64 of an IPv6 one) in the
// RegisterLimits, before anything is checked or hashed: a refused one
// costs nothing more. It is a *refusal.RateLimitError with none left.
func (s *Service) CountRegistration(ctx context.Context, client string) (Tally, error) {
	t, err := s.take(ctx, attempt{s.limits.register, client})
	return t.tally, err
}

// CountForm counts one attempt of a form that is not a sign-in, in a
// bucket of the form's own: per client address when subject is "" (with
// the numbers of the registration's limit, which the form "register"
// shares), else per subject, an account or an address, from any client
// (with the numbers of the sign-in's per-account limit). With none left
// it is a *refusal.RateLimitError; either way the tally says how the
// bucket stands.
func (s *Service) CountForm(ctx context.Context, form, client, subject string) (Tally, error) {
	a := attempt{Limit{Name: form + " account", Rate: s.limits.loginAccount.Rate}, strings.ToLower(subject)}
	switch {
	case form == "register":
		a = attempt{s.limits.register, client}
	case subject == "":
		a = attempt{Limit{Name: form + " address", Rate: s.limits.register.Rate}, client}
	}
	t, err := s.take(ctx, a)
	return t.tally, err
}

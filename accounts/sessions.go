package accounts

import (
	"context"
	"errors"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
)

// Browser sessions: the cookie holds 32 random bytes; the database holds
// only their SHA-256 (models.HashToken), the user and the expiry. A
// session is read with its account in one query, so a log-out, a password
// reset or "sign out everywhere" ends a session on every replica at once.

// StartWebSession stores a new browser session of user userID, lasting
// SessionTTL, and returns the cookie's value.
func (s *Service) StartWebSession(ctx context.Context, userID int64) (string, error) {
	raw := randomToken("")
	if err := s.store.CreateSession(ctx, userID, models.HashToken(raw), s.now().Add(s.cfg.SessionTTL)); err != nil {
		return "", err
	}
	return raw, nil
}

// WebSession reads the live browser session of the cookie value raw and
// returns its account; a session used in the second half of its life is
// extended by SessionTTL, and extended says so (the cookie should be set
// again). An unknown or expired session is models.ErrNotFound.
func (s *Service) WebSession(ctx context.Context, raw string) (a *models.Account, extended bool, err error) {
	hash := models.HashToken(raw)
	a, expires, err := s.store.SessionAccount(ctx, hash)
	if err != nil {
		return nil, false, err
	}
	if now := s.now(); expires.Sub(now) < s.cfg.SessionTTL/2 {
		extended = s.store.ExtendSession(ctx, hash, now.Add(s.cfg.SessionTTL)) == nil
	}
	return a, extended, nil
}

// EndWebSession ends the browser session of the cookie value raw.
func (s *Service) EndWebSession(ctx context.Context, raw string) error {
	return s.store.EndSession(ctx, models.HashToken(raw))
}

// SignInWithLink uses the single-use sign-in link of user userID whose
// nonce is nonce (valid until linkExpires): the nonce is recorded as used
// and a browser session starts, in one transaction; it returns the
// session's cookie value. A link used before, or meanwhile, is
// ErrLinkUsed, and starts no session.
func (s *Service) SignInWithLink(ctx context.Context, nonce []byte, linkExpires time.Time, userID int64) (string, error) {
	raw := randomToken("")
	err := s.store.SignInWithLink(ctx, nonce, linkExpires, userID, models.HashToken(raw), s.now().Add(s.cfg.SessionTTL))
	if errors.Is(err, models.ErrConflict) {
		return "", ErrLinkUsed
	}
	return raw, err
}

// ErrLinkUsed is a single-use link used before.
var ErrLinkUsed = refusal.New(refusal.Conflict, "link_used", "the link was used before")

// LinkUsed reports whether the sign-in link with nonce was used.
func (s *Service) LinkUsed(ctx context.Context, nonce []byte) (bool, error) {
	return s.store.LinkUsed(ctx, nonce)
}

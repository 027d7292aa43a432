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
// A game's board, the page read most, checks a session read before in the
// query that reads the game (KnownWebSession, ConfirmWebSession): its
// liveness at every read, and that its account is unchanged.

// StartWebSession stores a new browser session of user userID, lasting
// SessionTTL, and returns the cookie's value.
func (s *Service) StartWebSession(ctx context.Context, userID int64) (string, error) {
	raw := randomToken("")
	if err := s.store.CreateSession(ctx, userID, models.HashToken(raw), s.now().Add(s.cfg.SessionTTL)); err != nil {
		return "", gone(err)
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
		s.sessions.Take(string(hash))
		return nil, false, err
	}
	if now := s.now(); expires.Sub(now) < s.cfg.SessionTTL/2 {
		if extended = s.store.ExtendSession(ctx, hash, now.Add(s.cfg.SessionTTL)) == nil; extended {
			expires = now.Add(s.cfg.SessionTTL)
		}
	}
	s.sessions.Put(string(hash), knownSession{account: *a, expires: expires})
	return a, extended, nil
}

// knownSession is a browser session as WebSession last read it: its
// account, and when it expires.
type knownSession struct {
	account models.Account
	expires time.Time
}

// KnownWebSession returns the account of the browser session of the
// cookie value raw as WebSession last read it, and the check of it to
// make along the read of a game (models.SessionCheck): a read of a board
// that makes the check stands for the session's own read. ok is false
// when the session was not read here, or is in the second half of its
// life (WebSession extends it): then WebSession reads it.
func (s *Service) KnownWebSession(raw string) (a *models.Account, chk *models.SessionCheck, ok bool) {
	hash := models.HashToken(raw)
	k, ok := s.sessions.Get(string(hash))
	if !ok || k.expires.Sub(s.now()) < s.cfg.SessionTTL/2 {
		return nil, nil, false
	}
	acc := k.account
	return &acc, &models.SessionCheck{Hash: hash}, true
}

// ConfirmWebSession reports whether chk, made along a read, confirms the
// session KnownWebSession gave: it is live, and its account has not
// changed since it was read. A session found ended or changed is
// forgotten; one not checked (the read did not make the check) is not
// confirmed either, and WebSession reads it.
func (s *Service) ConfirmWebSession(chk *models.SessionCheck) bool {
	if !chk.Checked {
		return false
	}
	k, ok := s.sessions.Get(string(chk.Hash))
	if ok && chk.Live && chk.Updated.Equal(k.account.UpdatedAt) {
		return true
	}
	s.sessions.Take(string(chk.Hash))
	return false
}

// EndWebSession ends the browser session of the cookie value raw.
func (s *Service) EndWebSession(ctx context.Context, raw string) error {
	hash := models.HashToken(raw)
	s.sessions.Take(string(hash))
	return s.store.EndSession(ctx, hash)
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
	if err != nil {
		return "", gone(err)
	}
	return raw, nil
}

// ErrLinkUsed is a single-use link used before.
var ErrLinkUsed = refusal.New(refusal.Conflict, "link_used", "the link was used before")

// LinkUsed reports whether the sign-in link with nonce was used.
func (s *Service) LinkUsed(ctx context.Context, nonce []byte) (bool, error) {
	return s.store.LinkUsed(ctx, nonce)
}

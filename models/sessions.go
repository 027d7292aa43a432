package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Account is a user with what the browser's pages keep besides: the time
// zone and the address the user proved they read.
type Account struct {
	User
	// TimeZone is an IANA zone name ("Europe/Paris"); "" or "UTC" for UTC.
	TimeZone string
	// VerifiedEmail is the address the user verified, "" for none; see
	// Verified.
	VerifiedEmail string
}

// Verified reports whether the account's current address is verified: an
// address changed since, by any route, is not.
func (a *Account) Verified() bool { return a.Email != "" && a.VerifiedEmail == a.Email }

// accountColumns are the users columns of an Account, of the user u.
const accountColumns = `u.id, u.username, u.email, u.display_name, u.notify_email, u.notify_turns, u.created_at, u.updated_at,
  u.time_zone, u.verified_email`

// qSessionAccount reads a live session's account and expiry by the hash of
// the session's cookie value.
const qSessionAccount = `
SELECT ` + accountColumns + `, w.expires_at AS session_expires_at
FROM web_sessions w JOIN users u ON u.id = w.user_id
WHERE w.token_hash = ? AND w.expires_at > ?`

// qVerifiedAccounts reads the accounts whose verified address is the one
// given.
const qVerifiedAccounts = `
SELECT ` + accountColumns + ` FROM users u
WHERE u.email = ? AND u.verified_email = u.email ORDER BY u.id LIMIT 10`

// AccountByID returns the account of user id, or ErrNotFound.
func (s *Store) AccountByID(ctx context.Context, id int64) (*Account, error) {
	var a Account
	err := s.db.WithContext(ctx).Raw(`SELECT `+accountColumns+` FROM users u WHERE u.id = ?`, id).Scan(&a).Error
	if err != nil {
		return nil, err
	}
	if a.ID == 0 {
		return nil, fmt.Errorf("user %d: %w", id, ErrNotFound)
	}
	return &a, nil
}

// AccountsByVerifiedEmail returns the accounts (at most 10) that verified
// the address email, oldest first; none is no error.
func (s *Store) AccountsByVerifiedEmail(ctx context.Context, email string) ([]Account, error) {
	var out []Account
	err := s.db.WithContext(ctx).Raw(qVerifiedAccounts, email).Scan(&out).Error
	return out, err
}

// SetTimeZone stores the user's time zone (the caller has checked the
// name); ErrNotFound if there is no such user.
func (s *Store) SetTimeZone(ctx context.Context, userID int64, zone string) error {
	return s.updateUser(ctx, `UPDATE users SET time_zone = ?, updated_at = ? WHERE id = ?`, zone, s.Now(), userID)
}

// VerifyEmail marks email as the user's verified address if it is still
// their address; ErrNotFound if it is not (it changed since the link was
// mailed) or there is no such user.
func (s *Store) VerifyEmail(ctx context.Context, userID int64, email string) error {
	return s.updateUser(ctx, `UPDATE users SET verified_email = email, updated_at = ? WHERE id = ? AND email = ? AND email <> ''`,
		s.Now(), userID, email)
}

func (s *Store) updateUser(ctx context.Context, q string, args ...any) error {
	res := s.db.WithContext(ctx).Exec(q, args...)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// webSession is a row of web_sessions.
type webSession struct {
	TokenHash []byte
	UserID    int64
	CreatedAt time.Time
	ExpiresAt time.Time
}

func (webSession) TableName() string { return "web_sessions" }

// CreateSession stores a browser session of userID under hash, the
// SHA-256 of its cookie's value (see HashToken), until expires; a
// deleted account gets none (*UserGoneError, see holdUsers).
func (s *Store) CreateSession(ctx context.Context, userID int64, hash []byte, expires time.Time) error {
	return s.forLiveUser(ctx, userID, func(tx *gorm.DB) error {
		return tx.Create(&webSession{TokenHash: hash, UserID: userID, CreatedAt: s.Now(),
			ExpiresAt: expires.UTC().Truncate(time.Microsecond)}).Error
	})
}

// SessionAccount returns the account of the live session stored under
// hash, and when the session expires; ErrNotFound for an unknown, ended or
// expired session.
func (s *Store) SessionAccount(ctx context.Context, hash []byte) (*Account, time.Time, error) {
	// Every page read asks this: the row is scanned by hand, not through
	// GORM's reflection.
	var a Account
	var expires time.Time
	err := s.db.WithContext(ctx).Raw(qSessionAccount, hash, s.Now()).Row().Scan(&a.ID, &a.Username, &a.Email,
		&a.DisplayName, &a.NotifyEmail, &a.NotifyTurns, &a.CreatedAt, &a.UpdatedAt, &a.TimeZone, &a.VerifiedEmail, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, ErrNotFound
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	return &a, expires, nil
}

// ExtendSession moves the expiry of the session stored under hash.
func (s *Store) ExtendSession(ctx context.Context, hash []byte, expires time.Time) error {
	return s.db.WithContext(ctx).Exec(`UPDATE web_sessions SET expires_at = ? WHERE token_hash = ?`,
		expires.UTC().Truncate(time.Microsecond), hash).Error
}

// EndSession deletes the session stored under hash (log out); an unknown
// one is no error.
func (s *Store) EndSession(ctx context.Context, hash []byte) error {
	return s.db.WithContext(ctx).Exec(`DELETE FROM web_sessions WHERE token_hash = ?`, hash).Error
}

// EndSessions signs the user out everywhere: it ends every sign-in of
// theirs but their personal API tokens (endSignIns: browser sessions, the
// API's access and refresh tokens), in one transaction with the user's
// row locked, as a password change does.
func (s *Store) EndSessions(ctx context.Context, userID int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := s.lockedUser(tx, userID); err != nil {
			return err
		}
		return endSignIns(tx, userID, s.Now())
	})
}

// ResetPassword stores a new password hash for the user and ends all of
// their sign-ins, in one transaction, as ChangePassword does: every
// browser session, every access token (the token generation moves on) and
// every refresh token of the API; personal API tokens stay. The user's row
// is locked first, as a refresh rotation locks it, so that no rotation
// running meanwhile leaves a live refresh token. The hash is replaced
// only if it is still oldHash, the one the reset link was checked
// against: a link posted twice at once sets one password, and the other
// post gets ErrConflict. ErrNotFound if there is no such user.
func (s *Store) ResetPassword(ctx context.Context, userID int64, oldHash, passwordHash string) error {
	now := s.Now()
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		_, err := s.setPassword(tx, userID, oldHash, passwordHash, now)
		return err
	})
}

// endSignIns ends every sign-in of the user but their personal API
// tokens, in the caller's transaction: browser sessions, access tokens
// (the generation moves on) and refresh tokens.
func endSignIns(tx *gorm.DB, userID int64, now time.Time) error {
	if err := tx.Exec(`DELETE FROM web_sessions WHERE user_id = ?`, userID).Error; err != nil {
		return err
	}
	if err := tx.Exec(qEndAccessTokens, userID).Error; err != nil {
		return err
	}
	return tx.Exec(qRevokeUserRefresh, now, userID).Error
}

// usedLink is a row of used_links.
type usedLink struct {
	Nonce     []byte
	UserID    int64
	UsedAt    time.Time
	ExpiresAt time.Time
}

func (usedLink) TableName() string { return "used_links" }

// SignInWithLink records the nonce of a single-use sign-in link of userID
// as used (kept until the link's expiry, linkExpires) and stores a
// session of userID under sessionHash until sessionExpires, in one
// transaction. A nonce already used gives ErrConflict, and no session; a
// deleted account *UserGoneError (holdUsers).
func (s *Store) SignInWithLink(ctx context.Context, nonce []byte, linkExpires time.Time, userID int64, sessionHash []byte, sessionExpires time.Time) error {
	now := s.Now()
	err := s.forLiveUser(ctx, userID, func(tx *gorm.DB) error {
		if err := tx.Create(&usedLink{Nonce: nonce, UserID: userID, UsedAt: now, ExpiresAt: linkExpires.UTC().Truncate(time.Microsecond)}).Error; err != nil {
			return err
		}
		return tx.Create(&webSession{TokenHash: sessionHash, UserID: userID, CreatedAt: now,
			ExpiresAt: sessionExpires.UTC().Truncate(time.Microsecond)}).Error
	})
	if uniqueViolation(err) {
		return fmt.Errorf("sign-in link: %w", ErrConflict)
	}
	return err
}

// LinkUsed reports whether the nonce of a sign-in link was used.
func (s *Store) LinkUsed(ctx context.Context, nonce []byte) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) FROM used_links WHERE nonce = ?`, nonce).Scan(&n).Error
	return n > 0, err
}

// PurgeSessions deletes expired browser sessions and the used nonces of
// expired links, and returns how many rows it deleted.
func (s *Store) PurgeSessions(ctx context.Context) (int64, error) {
	now := s.Now()
	var n int64
	for _, q := range []string{`DELETE FROM web_sessions WHERE expires_at <= ?`, `DELETE FROM used_links WHERE expires_at <= ?`} {
		res := s.db.WithContext(ctx).Exec(q, now)
		if res.Error != nil {
			return n, res.Error
		}
		n += res.RowsAffected
	}
	return n, nil
}

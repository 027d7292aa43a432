package models

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// User is an account.
type User struct {
	ID          int64
	Username    string
	Email       string // "" when not given
	DisplayName string // "" when not given
	NotifyEmail bool   // send turn notifications by email
	NotifyTurns bool   // notify when it is the user's turn or a prompt waits
	// TokenGen is the generation of the user's access tokens: a token is
	// good only while it carries the user's current generation. 0 until the
	// first "sign out everywhere", password change or reset, or refresh
	// token reuse (each adds one); a logout ends one session instead.
	TokenGen  int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TableName is the users table.
func (User) TableName() string { return "users" }

// credential is a user's password hash (argon2id, PHC string format).
type credential struct {
	UserID       int64 `gorm:"primaryKey"`
	PasswordHash string
	UpdatedAt    time.Time
}

func (credential) TableName() string { return "credentials" }

// RefreshToken is a stored refresh token. Only its SHA-256 hash is kept.
type RefreshToken struct {
	ID        int64
	UserID    int64
	FamilyID  string
	TokenHash []byte
	CreatedAt time.Time
	ExpiresAt time.Time
	RotatedAt *time.Time // set once the token has been exchanged
	RevokedAt *time.Time
}

// TableName is the refresh_tokens table.
func (RefreshToken) TableName() string { return "refresh_tokens" }

// APIToken is a personal API token. Only its SHA-256 hash is kept; Prefix is
// the first characters of the token, shown in lists to tell tokens apart.
type APIToken struct {
	ID         int64
	UserID     int64
	Name       string
	Prefix     string
	TokenHash  []byte
	Scopes     string // comma-separated, e.g. "read,play"
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// TableName is the api_tokens table.
func (APIToken) TableName() string { return "api_tokens" }

// ScopeList returns the token's scopes.
func (t *APIToken) ScopeList() []string {
	if t.Scopes == "" {
		return nil
	}
	return strings.Split(t.Scopes, ",")
}

// HashToken is the hash under which refresh and API tokens are stored.
func HashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// CreateUser stores a new user with its password hash. A taken username
// gives ErrConflict.
func (s *Store) CreateUser(ctx context.Context, u *User, passwordHash string) error {
	now := s.Now()
	u.CreatedAt, u.UpdatedAt = now, now
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(u).Error; err != nil {
			return err
		}
		return tx.Create(&credential{UserID: u.ID, PasswordHash: passwordHash, UpdatedAt: now}).Error
	})
	if uniqueViolation(err) {
		return fmt.Errorf("username %q: %w", u.Username, ErrConflict)
	}
	return err
}

// UserByID returns the user with id, or ErrNotFound.
func (s *Store) UserByID(ctx context.Context, id int64) (*User, error) {
	var u User
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&u).Error; err != nil {
		return nil, notFound(err)
	}
	return &u, nil
}

// UserByUsername returns the user named username, or ErrNotFound.
func (s *Store) UserByUsername(ctx context.Context, username string) (*User, error) {
	var u User
	if err := s.db.WithContext(ctx).Where("username = ?", username).Take(&u).Error; err != nil {
		return nil, notFound(err)
	}
	return &u, nil
}

// PasswordHash returns the stored password hash of the user.
func (s *Store) PasswordHash(ctx context.Context, userID int64) (string, error) {
	var c credential
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Take(&c).Error; err != nil {
		return "", notFound(err)
	}
	return c.PasswordHash, nil
}

// qAccessCheck reads a user's token generation and whether the session an
// access token names is live (liveSession).
var qAccessCheck = `
SELECT u.token_gen, ` + liveSession("u.id") + `
FROM users u WHERE u.id = ?`

// liveSession is the SQL of whether the session an access token names is
// live, for the user whose id is the SQL user: the refresh token family of
// that id has a token that is not revoked. A token that names no session
// ("", issued before sessions were named, or for the pages' own calls) is
// live while its generation is. Its arguments: the session, twice (then
// the user's id, when user is "?"). Every check of a token reads this one.
func liveSession(user string) string {
	return `(? = '' OR EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = ? AND r.user_id = ` + user +
		` AND r.revoked_at IS NULL))`
}

// AccessCheck returns what an access token of userID naming session (its
// refresh token family, see RefreshTokenUser) is checked against: the
// user's token generation, and whether the session is live (not ended by
// a logout, by "sign out everywhere", a password change or reset, or a
// refresh token's reuse). ErrNotFound if there is no such user. One query:
// it runs for every request made with an access token.
func (s *Store) AccessCheck(ctx context.Context, userID int64, session string) (gen int64, live bool, err error) {
	if err := s.db.WithContext(ctx).Raw(qAccessCheck, session, session, userID).Row().Scan(&gen, &live); err != nil {
		return 0, false, notFound(err)
	}
	return gen, live, nil
}

// lockUser is the lock clause of a read of the user row that the
// transaction goes on to change the user's refresh tokens after: every such
// transaction (rotation, logout, password change) takes the user row first,
// so that one that revokes the user's refresh tokens waits for a rotation
// that is inserting one, and its UPDATE then sees the new token. (Under
// READ COMMITTED an UPDATE does not see rows committed after it started.)
// FOR NO KEY UPDATE, unlike FOR UPDATE, does not hold up the inserts of rows
// that refer to the user. SQLite runs one transaction at a time.
func (s *Store) lockUser() string {
	if s.dialect == Postgres {
		return " FOR NO KEY UPDATE"
	}
	return ""
}

// lockedUser reads user userID in transaction tx with its row locked
// (lockUser); ErrNotFound if there is no such user.
func (s *Store) lockedUser(tx *gorm.DB, userID int64) (User, error) {
	var u User
	if err := tx.Raw(`SELECT * FROM users WHERE id = ?`+s.lockUser(), userID).Scan(&u).Error; err != nil {
		return u, err
	}
	if u.ID == 0 {
		return u, ErrNotFound
	}
	return u, nil
}

// LockUser takes user userID's row (lockUser) for the rest of the
// store's transaction (a store of InTx), so that the transactions of one
// user that read what they go on to check run one after another;
// ErrNotFound if there is no such user.
func (s *Store) LockUser(ctx context.Context, userID int64) error {
	_, err := s.lockedUser(s.db.WithContext(ctx), userID)
	return err
}

// UpdateProfile writes the user's email, display name and notification
// preferences (all of them, zero values included).
func (s *Store) UpdateProfile(ctx context.Context, u *User) error {
	u.UpdatedAt = s.Now()
	res := s.db.WithContext(ctx).Exec(qUpdateProfile, u.Email, u.DisplayName, u.NotifyEmail, u.NotifyTurns, u.UpdatedAt, u.ID)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// CreateRefreshToken stores a refresh token hash for userID in family,
// the first of a new session; a deleted account gets none
// (*UserGoneError, see holdUsers).
func (s *Store) CreateRefreshToken(ctx context.Context, userID int64, family string, hash []byte, expires time.Time) error {
	return s.forLiveUser(ctx, userID, func(tx *gorm.DB) error {
		return tx.Create(&RefreshToken{
			UserID: userID, FamilyID: family, TokenHash: hash, CreatedAt: s.Now(), ExpiresAt: expires.UTC(),
		}).Error
	})
}

// RefreshTokenUser returns the user the refresh token with hash belongs to,
// whatever the token's state, and the token's family, the session it is of
// (access tokens issued from it name it); ErrInvalidToken for an unknown
// token. A refresh reads the user (and so the generation of its access
// tokens) before the rotation checks the token: whatever ends access tokens
// after this read ends the one issued from it too.
func (s *Store) RefreshTokenUser(ctx context.Context, hash []byte) (*User, string, error) {
	var u struct {
		User
		FamilyID string
	}
	if err := s.db.WithContext(ctx).Raw(qUserOfRefreshFamily, hash).Scan(&u).Error; err != nil {
		return nil, "", err
	}
	if u.ID == 0 {
		return nil, "", ErrInvalidToken
	}
	return &u.User, u.FamilyID, nil
}

// RotateRefreshToken exchanges the refresh token with oldHash for a new one
// with newHash in the same family, and returns the user id. An unknown,
// expired or revoked token gives ErrInvalidToken. A token that was already
// rotated gives ErrTokenReuse, revokes the whole family and ends the user's
// access tokens (see User.TokenGen), since either the client or a thief
// holds a copy.
func (s *Store) RotateRefreshToken(ctx context.Context, oldHash, newHash []byte, expires time.Time) (int64, error) {
	now := s.Now()
	var userID int64
	reused := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u User
		if err := tx.Raw(qUserOfRefresh+s.lockUser(), oldHash).Scan(&u).Error; err != nil {
			return err
		}
		var t RefreshToken
		if err := tx.Raw(qRefreshByHash+s.forUpdate(), oldHash).Scan(&t).Error; err != nil {
			return err
		}
		if u.ID == 0 || t.ID == 0 || t.RevokedAt != nil || !now.Before(t.ExpiresAt) {
			return ErrInvalidToken
		}
		if t.RotatedAt != nil {
			reused = true
			if err := tx.Exec(qEndAccessTokens, t.UserID).Error; err != nil {
				return err
			}
			return tx.Exec(qRevokeFamily, now, t.FamilyID).Error
		}
		if err := tx.Exec(`UPDATE refresh_tokens SET rotated_at = ? WHERE id = ?`, now, t.ID).Error; err != nil {
			return err
		}
		userID = t.UserID
		return tx.Create(&RefreshToken{UserID: t.UserID, FamilyID: t.FamilyID, TokenHash: newHash, CreatedAt: now, ExpiresAt: expires.UTC()}).Error
	})
	if err != nil {
		return 0, err
	}
	if reused {
		return 0, ErrTokenReuse
	}
	return userID, nil
}

// RevokeRefreshFamily revokes the family of the refresh token with hash
// (log out): that session ends, its refresh tokens and the access tokens
// issued from them (which name the family; see AccessCheck), on every
// replica at once. The user's other sessions go on. A repeat changes
// nothing. It gives ErrInvalidToken for an unknown token.
func (s *Store) RevokeRefreshFamily(ctx context.Context, hash []byte) (userID int64, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u User
		if err := tx.Raw(qUserOfRefresh+s.lockUser(), hash).Scan(&u).Error; err != nil {
			return err
		}
		var t RefreshToken
		if err := tx.Raw(qRefreshByHash, hash).Scan(&t).Error; err != nil {
			return err
		}
		if u.ID == 0 || t.ID == 0 {
			return ErrInvalidToken
		}
		userID = t.UserID
		return tx.Exec(qRevokeFamily, s.Now(), t.FamilyID).Error
	})
	if err != nil {
		return 0, err
	}
	return userID, nil
}

// ChangePassword replaces the user's password hash oldHash, the one the
// current password was checked against, with newHash; ends the user's
// browser sessions and access tokens issued so far and revokes all the
// user's refresh tokens (endSignIns); and returns the user's new token
// generation, for the caller's new session. A hash that is no longer oldHash (the password changed
// meanwhile) gives ErrConflict and changes nothing; an unknown user
// ErrNotFound.
func (s *Store) ChangePassword(ctx context.Context, userID int64, oldHash, newHash string) (gen int64, err error) {
	now := s.Now()
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		u, err := s.setPassword(tx, userID, oldHash, newHash, now)
		if err == nil {
			gen = u.TokenGen + 1
		}
		return err
	})
	return gen, err
}

// setPassword sets user userID's password hash to newHash in tx if it is
// still oldHash, and ends every sign-in of the user: the account's lock,
// the compare-and-set and the ending that ResetPassword and
// ChangePassword share. It returns the user as locked, before the change.
func (s *Store) setPassword(tx *gorm.DB, userID int64, oldHash, newHash string, now time.Time) (User, error) {
	u, err := s.lockedUser(tx, userID)
	if err != nil {
		return u, err
	}
	res := tx.Exec(qSetPassword, newHash, now, userID, oldHash)
	if res.Error != nil {
		return u, res.Error
	}
	if res.RowsAffected == 0 {
		return u, fmt.Errorf("password of user %d changed meanwhile: %w", userID, ErrConflict)
	}
	return u, endSignIns(tx, userID, now)
}

// CreateAPIToken stores a personal API token.
func (s *Store) CreateAPIToken(ctx context.Context, t *APIToken) error {
	t.CreatedAt = s.Now()
	return s.db.WithContext(ctx).Create(t).Error
}

// APITokens lists the user's tokens that are not revoked, oldest first.
func (s *Store) APITokens(ctx context.Context, userID int64) ([]APIToken, error) {
	var out []APIToken
	err := s.db.WithContext(ctx).Where("user_id = ? AND revoked_at IS NULL", userID).Order("id").Find(&out).Error
	return out, err
}

// RevokeAPIToken revokes the user's token id; ErrNotFound if the user has no
// such live token.
func (s *Store) RevokeAPIToken(ctx context.Context, userID, id int64) error {
	res := s.db.WithContext(ctx).Exec(`UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL`, s.Now(), id, userID)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// APITokenByHash returns the live token with hash and records its use.
// Unknown or revoked tokens give ErrInvalidToken.
func (s *Store) APITokenByHash(ctx context.Context, hash []byte) (*APIToken, error) {
	var t APIToken
	err := s.db.WithContext(ctx).Where("token_hash = ? AND revoked_at IS NULL", hash).Take(&t).Error
	if errors.Is(notFound(err), ErrNotFound) {
		return nil, ErrInvalidToken
	}
	if err != nil {
		return nil, err
	}
	now := s.Now()
	// Last use is advisory: recorded at most once a minute per token.
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) > time.Minute {
		if err := s.db.WithContext(ctx).Exec(`UPDATE api_tokens SET last_used_at = ? WHERE id = ?`, now, t.ID).Error; err != nil {
			return nil, err
		}
		t.LastUsedAt = &now
	}
	return &t, nil
}

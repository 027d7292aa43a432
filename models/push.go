package models

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// PushSubscription is one browser's Web Push subscription (RFC 8030): the
// push service's endpoint, unique, and the browser's P-256 public key
// (P256dh) and auth secret, base64url as the browser gives them, which
// every message to it is encrypted with (RFC 8291).
type PushSubscription struct {
	ID        int64
	UserID    int64
	Endpoint  string
	P256dh    string `gorm:"column:p256dh"`
	Auth      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TableName is the push_subscriptions table.
func (PushSubscription) TableName() string { return "push_subscriptions" }

// MaxPushSubscriptions is how many subscriptions (browsers) one user keeps:
// a new one past it replaces their oldest.
const MaxPushSubscriptions = 20

// SavePushSubscription stores p for p.UserID, keyed by its endpoint: an
// endpoint stored already (the browser subscribed again, or for another
// account) gets p's keys and user, and keeps its id. It sets p's ID and
// times and reports whether the row is new. A user's subscription past
// MaxPushSubscriptions deletes the one they saved longest ago. The user's
// row is taken first (lockUser), so that saves for one user run one after
// another and each trim sees the rows the others added.
func (s *Store) SavePushSubscription(ctx context.Context, p *PushSubscription) (created bool, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := s.lockedUser(tx, p.UserID); err != nil {
			return err
		}
		now := s.Now()
		p.CreatedAt, p.UpdatedAt = now, now
		res := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "endpoint"}}, DoNothing: true}).Create(p)
		if res.Error != nil {
			return res.Error
		}
		if created = res.RowsAffected == 1; !created {
			if err := tx.Exec(`UPDATE push_subscriptions SET user_id = ?, p256dh = ?, auth = ?, updated_at = ? WHERE endpoint = ?`,
				p.UserID, p.P256dh, p.Auth, now, p.Endpoint).Error; err != nil {
				return err
			}
			if err := tx.Where("endpoint = ?", p.Endpoint).Take(p).Error; err != nil {
				return err
			}
		}
		return tx.Exec(`DELETE FROM push_subscriptions WHERE user_id = ? AND id NOT IN (
  SELECT id FROM push_subscriptions WHERE user_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?)`, p.UserID, p.UserID, MaxPushSubscriptions).Error
	})
	return created, err
}

// PushSubscriptions returns the user's subscriptions, oldest first.
func (s *Store) PushSubscriptions(ctx context.Context, userID int64) ([]PushSubscription, error) {
	out := []PushSubscription{}
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("id").Find(&out).Error
	return out, err
}

// PushSubscriptionsOf returns the subscriptions of the given users, by id.
func (s *Store) PushSubscriptionsOf(ctx context.Context, userIDs []int64) ([]PushSubscription, error) {
	var out []PushSubscription
	if len(userIDs) == 0 {
		return out, nil
	}
	err := s.db.WithContext(ctx).Where("user_id IN ?", userIDs).Order("id").Find(&out).Error
	return out, err
}

// PushSubscriptionByID returns subscription id whoever holds it, or
// ErrNotFound.
func (s *Store) PushSubscriptionByID(ctx context.Context, id int64) (*PushSubscription, error) {
	var p PushSubscription
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&p).Error; err != nil {
		return nil, notFound(err)
	}
	return &p, nil
}

// DeletePushSubscription deletes the user's subscription id; ErrNotFound
// if they have no such subscription.
func (s *Store) DeletePushSubscription(ctx context.Context, userID, id int64) error {
	return affected(s.db.WithContext(ctx).Exec(`DELETE FROM push_subscriptions WHERE id = ? AND user_id = ?`, id, userID))
}

// DeletePushEndpoint deletes the user's subscription at endpoint;
// ErrNotFound if they have none there.
func (s *Store) DeletePushEndpoint(ctx context.Context, userID int64, endpoint string) error {
	return affected(s.db.WithContext(ctx).Exec(`DELETE FROM push_subscriptions WHERE endpoint = ? AND user_id = ?`, endpoint, userID))
}

// DeleteGonePushSubscription deletes subscription id, whoever holds it:
// its push service answered that it is gone. It reports whether a row
// went (none: it was deleted already).
func (s *Store) DeleteGonePushSubscription(ctx context.Context, id int64) (bool, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM push_subscriptions WHERE id = ?`, id)
	return res.RowsAffected > 0, res.Error
}

// affected is ErrNotFound for a statement that changed no row.
func affected(res *gorm.DB) error {
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

package models

import (
	"context"
	"strconv"

	"gorm.io/gorm"
)

// DeletedUsername is the username an account gets when it is deleted
// (DeleteAccount): "~deleted-" and its id. No one can register it, since
// a username starts with a letter or a digit.
func DeletedUsername(id int64) string { return "~deleted-" + strconv.FormatInt(id, 10) }

// Deleted reports whether u is a deleted account (its row renamed to
// DeletedUsername): nobody signs in to it again.
func (u *User) Deleted() bool { return u.Username == DeletedUsername(u.ID) }

// qDeleteAccount are the statements that delete what an account holds
// besides its games: its password, sign-ins (browser sessions, refresh
// tokens, API tokens, the calendar feed), webhooks and their deliveries, notification
// preferences and notifications, push subscriptions, vacations, decks, live-stream rows, the
// invitations it sent, its idempotency records, the used sign-in links
// and its table talk settings (the messages it wrote stay in their games'
// records). A table is deleted from by its user_id, but for the two named
// in the switch; webhook deliveries go before their webhooks.
var qDeleteAccount = func() []string {
	var out []string
	for _, table := range []string{"credentials", "web_sessions", "used_links", "refresh_tokens", "api_tokens",
		"calendar_feeds", "push_subscriptions", "webhook_deliveries", "webhooks", "notification_prefs",
		"notifications", "vacations", "decks", "stream_presence", "email_invitations", "idempotency_keys",
		"game_message_prefs"} {
		where := "user_id = ?"
		switch table {
		case "webhook_deliveries":
			where = "webhook_id IN (SELECT id FROM webhooks WHERE user_id = ?)"
		case "email_invitations":
			where = "invited_by = ?"
		}
		out = append(out, "DELETE FROM "+table+" WHERE "+where)
	}
	return out
}()

// qAnonymizeUser takes the name, address and settings off a user row and
// ends its access tokens (a new token generation). The row stays: the
// games the user played refer to it.
const qAnonymizeUser = `
UPDATE users SET username = ?, email = '', display_name = '', notify_email = FALSE, notify_turns = FALSE,
  time_zone = 'UTC', quiet_start = NULL, quiet_end = NULL, verified_email = '', token_gen = token_gen + 1, updated_at = ?
WHERE id = ?`

// DeleteAccount deletes the account of userID, in one transaction: what
// it holds besides its games (qDeleteAccount) goes, and the user row is
// anonymized (DeletedUsername, no address), so that nobody can sign in to
// it again by any route. The games keep their seats and records as they
// were played (the engine's snapshots and event texts name the player as
// they were then). The caller takes the user out of their games first
// (play.Service.ResignAll). ErrNotFound if there is no such user.
func (s *Store) DeleteAccount(ctx context.Context, userID int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The user row first, as every change of its sign-ins takes it
		// (lockUser, holdUsers): a sign-in or a rotation that committed
		// before is seen by the deletes below, one after sees the account
		// deleted. (Under READ COMMITTED a DELETE does not see rows
		// committed after it started; and taken last, the lock deadlocked
		// with a rotation.)
		if _, err := s.lockedUser(tx, userID); err != nil {
			return err
		}
		for _, q := range qDeleteAccount {
			if err := tx.Exec(q, userID).Error; err != nil {
				return err
			}
		}
		res := tx.Exec(qAnonymizeUser, DeletedUsername(userID), s.Now(), userID)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		return nil
	})
}

package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm/clause"
)

// MailSettings is what the email worker needs of a recipient to write a
// decision email: their time zone and whether their replies are moves in
// the game.
type MailSettings struct {
	TimeZone string // IANA name; "" or "UTC" for UTC
	// Replies is the user's choice for all their games; Game, when not nil,
	// their choice for this game, which wins.
	Replies bool
	Game    *bool
}

// RepliesOn reports whether the user answers the game's decisions by email.
func (m MailSettings) RepliesOn() bool {
	if m.Game != nil {
		return *m.Game
	}
	return m.Replies
}

// qMailSettings reads a user's time zone and reply choices, for one game.
const qMailSettings = `
SELECT u.time_zone, u.email_replies AS replies, r.enabled AS game
FROM users u LEFT JOIN game_email_replies r ON r.user_id = u.id AND r.game_id = ?
WHERE u.id = ?`

// MailSettingsOf returns user userID's mail settings for game gameID (0:
// no game), or ErrNotFound.
func (s *Store) MailSettingsOf(ctx context.Context, userID, gameID int64) (MailSettings, error) {
	var rows []struct {
		TimeZone string
		Replies  bool
		Game     *bool
	}
	if err := s.db.WithContext(ctx).Raw(qMailSettings, gameID, userID).Scan(&rows).Error; err != nil {
		return MailSettings{}, err
	}
	if len(rows) == 0 {
		return MailSettings{}, fmt.Errorf("user %d: %w", userID, ErrNotFound)
	}
	r := rows[0]
	return MailSettings{TimeZone: r.TimeZone, Replies: r.Replies, Game: r.Game}, nil
}

// SetEmailReplies records whether user userID answers decisions by email
// in all their games (a game's own choice still wins).
func (s *Store) SetEmailReplies(ctx context.Context, userID int64, on bool) error {
	return s.updateUser(ctx, `UPDATE users SET email_replies = ?, updated_at = ? WHERE id = ?`, on, s.Now(), userID)
}

// qSetGameReplies writes a user's reply choice for one game.
const qSetGameReplies = `
INSERT INTO game_email_replies (user_id, game_id, enabled) VALUES (?, ?, ?)
ON CONFLICT (user_id, game_id) DO UPDATE SET enabled = excluded.enabled`

// SetGameEmailReplies records whether user userID answers the decisions of
// game gameID by email; ErrNotFound when there is no such game.
func (s *Store) SetGameEmailReplies(ctx context.Context, userID, gameID int64, on bool) error {
	var n int64
	if err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) FROM games WHERE id = ?`, gameID).Scan(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("game %d: %w", gameID, ErrNotFound)
	}
	return s.db.WithContext(ctx).Exec(qSetGameReplies, userID, gameID, on).Error
}

// InboundMessage is a received message that was handled: by the SHA-256
// of its Message-ID, with the user and game it was for (0: unknown) and
// its outcome ("applied", "refused", "dropped").
type InboundMessage struct {
	IDHash     []byte
	UserID     int64
	GameID     int64
	Outcome    string
	ReceivedAt time.Time
}

// InboundSeen reports whether a message with the Message-ID hash was
// handled already.
func (s *Store) InboundSeen(ctx context.Context, hash []byte) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) FROM inbound_messages WHERE id_hash = ?`, hash).Scan(&n).Error
	return n > 0, err
}

// inboundRow is a row of inbound_messages.
type inboundRow struct {
	IDHash     []byte `gorm:"primaryKey"`
	UserID     *int64
	GameID     *int64
	Outcome    string
	ReceivedAt time.Time
}

func (inboundRow) TableName() string { return "inbound_messages" }

// RecordInbound stores m and reports whether it is new: false when a
// message with its Message-ID was recorded before (by another delivery
// of it), and then nothing is written. Run it in the transaction that
// writes the message's answer, so that a message is answered once.
func (s *Store) RecordInbound(ctx context.Context, m InboundMessage) (bool, error) {
	row := inboundRow{IDHash: m.IDHash, Outcome: m.Outcome, ReceivedAt: m.ReceivedAt.UTC().Truncate(time.Microsecond)}
	if m.UserID > 0 {
		row.UserID = &m.UserID
	}
	if m.GameID > 0 {
		row.GameID = &m.GameID
	}
	res := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&row)
	return res.RowsAffected > 0, res.Error
}

// PurgeInbound deletes the records of messages received before t.
func (s *Store) PurgeInbound(ctx context.Context, before time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM inbound_messages WHERE received_at < ?`, before.UTC())
	return res.RowsAffected, res.Error
}

package models

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// MessageKind is the notification kind of a message of the table talk.
// Its emails of their own are off until turned on (OptIn): the next email
// of the game shows it anyway.
const MessageKind = "message"

// OptIn reports whether notifications of kind on channel are off until a
// user turns them on: the digest, and the emails of the table talk's
// messages. Every other kind and channel is on until turned off.
func OptIn(kind, channel string) bool {
	return kind == DigestKind || kind == MessageKind && channel == "email"
}

// Message is one message of a game's table talk: written by UserID from
// Seat to the whole table (ToSeat nil) or to one seat. It is part of the
// game's record, never of its rules: posting one changes no version.
type Message struct {
	ID        int64
	GameID    int64
	UserID    int64
	Seat      int
	ToSeat    *int
	Body      string // as written: UTF-8 without NUL (see Storable)
	CreatedAt time.Time
}

// TableName is the game_messages table.
func (Message) TableName() string { return "game_messages" }

// Private reports whether the message goes to one seat only.
func (m *Message) Private() bool { return m.ToSeat != nil }

// For reports whether a reader at seat (-1: a spectator) may read the
// message: a public one, or a private one from or to seat.
func (m *Message) For(seat int) bool {
	return m.ToSeat == nil || seat >= 0 && (m.Seat == seat || *m.ToSeat == seat)
}

// MessageOutbox is an Outbox that is told of every message posted, in the
// transaction that stores it (see PostMessage), so that its notifications
// commit or roll back with it.
type MessageOutbox interface {
	MessagePosted(ctx context.Context, tx OutboxTx, g *Game, m *Message) error
}

// PostMessage stores m (its ID and CreatedAt are set) in one transaction
// with what the store's outbox writes of it, if it is a MessageOutbox.
// check is called first with the game as the transaction reads it, locked
// (its seats, without the snapshot), and its error refuses the message; after
// it, when not nil, runs in the same transaction (an idempotency record).
func (s *Store) PostMessage(ctx context.Context, m *Message, check func(g *Game) error, after func(tx *Store) error) error {
	return s.Begin(ctx, func(tx OutboxTx) error {
		// The game's row first: the messages of a game take their ids
		// under its lock, so that they commit in the order of their ids
		// and a reader after an id (a client's page, the emails' talk)
		// misses none. It also moves the talk's sequence.
		if err := tx.Store.db.WithContext(ctx).Exec(qTalkMoved, m.GameID).Error; err != nil {
			return err
		}
		g, err := tx.Store.GameNoState(ctx, m.GameID)
		if err != nil {
			return err
		}
		if check != nil {
			if err := check(g); err != nil {
				return err
			}
		}
		m.ID, m.CreatedAt = 0, tx.Store.Now()
		if err := tx.Store.db.WithContext(ctx).Create(m).Error; err != nil {
			return err
		}
		if mo, ok := s.outbox.(MessageOutbox); ok {
			if err := mo.MessagePosted(ctx, tx, g, m); err != nil {
				return err
			}
		}
		if after != nil {
			return after(tx.Store)
		}
		return nil
	})
}

// qMessages reads the messages of a game after an id that a seat may read
// (seat -1: the public ones), oldest first.
const qMessages = `
SELECT * FROM game_messages
WHERE game_id = ? AND id > ? AND (to_seat IS NULL OR seat = ? OR to_seat = ?)
ORDER BY id LIMIT ?`

// Messages returns up to limit messages of game gameID with an id after
// after that a reader at seat may read (-1: a spectator, the public ones
// only), oldest first. None is an empty list.
func (s *Store) Messages(ctx context.Context, gameID int64, seat int, after int64, limit int) ([]Message, error) {
	out := []Message{}
	err := s.db.WithContext(ctx).Raw(qMessages, gameID, after, seat, seat, limit).Scan(&out).Error
	return out, err
}

// qLatestMessages reads the last messages of a game that a seat may read,
// newest first, with whether the user muted the game's messages, in one
// statement: a row with no message (and the muted flag) when there is
// none.
const qLatestMessages = `
SELECT p.muted, m.id, m.game_id, m.user_id, m.seat, m.to_seat, m.body, m.created_at
FROM (SELECT CAST(? AS BIGINT) AS gid) q
LEFT JOIN game_message_prefs p ON p.game_id = q.gid AND p.user_id = ?
LEFT JOIN game_messages m ON m.game_id = q.gid AND (m.to_seat IS NULL OR m.seat = ? OR m.to_seat = ?)
ORDER BY m.id DESC LIMIT ?`

// LatestMessages returns the last limit messages of game gameID that a
// reader at seat may read (see Messages), oldest first, whether there
// are earlier ones, and whether user userID (0: nobody) muted the game's
// messages, with one statement.
func (s *Store) LatestMessages(ctx context.Context, gameID, userID int64, seat int, limit int) ([]Message, bool, bool, error) {
	rows, err := s.db.WithContext(ctx).Raw(qLatestMessages, gameID, userID, seat, seat, limit+1).Rows()
	if err != nil {
		return nil, false, false, err
	}
	defer rows.Close()
	out := []Message{}
	muted := false
	for rows.Next() {
		var m struct {
			Muted              *bool
			ID, GameID, UserID *int64
			Seat, ToSeat       *int
			Body               *string
			CreatedAt          *time.Time
		}
		if err := rows.Scan(&m.Muted, &m.ID, &m.GameID, &m.UserID, &m.Seat, &m.ToSeat, &m.Body, &m.CreatedAt); err != nil {
			return nil, false, false, err
		}
		muted = m.Muted != nil && *m.Muted
		if m.ID == nil {
			continue // no message: the row of the muted flag alone
		}
		out = append(out, Message{ID: *m.ID, GameID: *m.GameID, UserID: *m.UserID, Seat: *m.Seat, ToSeat: m.ToSeat,
			Body: *m.Body, CreatedAt: *m.CreatedAt})
	}
	if err := rows.Err(); err != nil {
		return nil, false, false, err
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	slices.Reverse(out)
	return out, more, muted, nil
}

// Message returns message id of game gameID, or ErrNotFound.
func (s *Store) Message(ctx context.Context, gameID, id int64) (*Message, error) {
	var m Message
	if err := s.db.WithContext(ctx).Where("id = ? AND game_id = ?", id, gameID).Take(&m).Error; err != nil {
		return nil, notFound(err)
	}
	return &m, nil
}

// AuthoredMessage is a message with its author's username.
type AuthoredMessage struct {
	Message
	Author string
}

// qUnemailed reads the messages of a game that its player has not been
// shown by an email of the game yet: after the last one shown, not
// theirs, that their seat may read, with their authors' names; none when
// they muted the game's messages. It counts them too.
const qUnemailed = `
SELECT m.*, a.username AS author, COUNT(*) OVER () AS total FROM game_messages m
JOIN seats r ON r.game_id = m.game_id AND r.user_id = ?
LEFT JOIN seats a ON a.game_id = m.game_id AND a.seat_no = m.seat
LEFT JOIN game_message_prefs p ON p.user_id = r.user_id AND p.game_id = m.game_id
WHERE m.game_id = ? AND m.id > COALESCE(p.emailed_id, 0) AND NOT COALESCE(p.muted, FALSE)
  AND m.user_id <> r.user_id AND (m.to_seat IS NULL OR m.seat = r.seat_no OR m.to_seat = r.seat_no)
ORDER BY m.id DESC LIMIT ?`

// Unemailed returns, oldest first, up to limit of the messages of game
// gameID that its player userID has not been shown by an email of the game
// (see MessagesEmailed): the last ones, and how many more came before
// them. Their own messages, and any of a game they muted, are not among
// them; a user with no seat in the game has none.
func (s *Store) Unemailed(ctx context.Context, userID, gameID int64, limit int) ([]AuthoredMessage, int, error) {
	var rows []struct {
		AuthoredMessage
		Total int
	}
	if err := s.db.WithContext(ctx).Raw(qUnemailed, userID, gameID, limit).Scan(&rows).Error; err != nil {
		return nil, 0, err
	}
	out := make([]AuthoredMessage, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = r.AuthoredMessage
	}
	if len(rows) == 0 {
		return out, 0, nil
	}
	return out, rows[0].Total - len(rows), nil
}

// MessagesEmailed records that an email of game gameID showed user userID
// the messages up to id: the next one shows only later ones. A mark
// already past id stays.
func (s *Store) MessagesEmailed(ctx context.Context, userID, gameID, id int64) error {
	return s.db.WithContext(ctx).Exec(`INSERT INTO game_message_prefs (user_id, game_id, muted, emailed_id) VALUES (?, ?, FALSE, ?)
ON CONFLICT (user_id, game_id) DO UPDATE SET emailed_id = CASE WHEN excluded.emailed_id > game_message_prefs.emailed_id
  THEN excluded.emailed_id ELSE game_message_prefs.emailed_id END`, userID, gameID, id).Error
}

// SetMessagesMuted records whether user userID muted the messages of game
// gameID: a muted game notifies them of none, on any channel. The game's
// talk moves on with it (Game.TalkSeq).
func (s *Store) SetMessagesMuted(ctx context.Context, userID, gameID int64, muted bool) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`INSERT INTO game_message_prefs (user_id, game_id, muted, emailed_id) VALUES (?, ?, ?, 0)
ON CONFLICT (user_id, game_id) DO UPDATE SET muted = excluded.muted`, userID, gameID, muted).Error; err != nil {
			return err
		}
		return tx.Exec(qTalkMoved, gameID).Error
	})
}

// qTalkMoved moves a game's table talk on (Game.TalkSeq).
const qTalkMoved = `UPDATE games SET talk_seq = talk_seq + 1 WHERE id = ?`

// MessagesMuted reports whether user userID muted the messages of game
// gameID.
func (s *Store) MessagesMuted(ctx context.Context, userID, gameID int64) (bool, error) {
	var muted []bool
	err := s.db.WithContext(ctx).Raw(`SELECT muted FROM game_message_prefs WHERE user_id = ? AND game_id = ?`, userID, gameID).
		Scan(&muted).Error
	return len(muted) > 0 && muted[0], err
}

// MutedUsers returns the users who muted the messages of game gameID.
func (s *Store) MutedUsers(ctx context.Context, gameID int64) ([]int64, error) {
	ids := []int64{}
	err := s.db.WithContext(ctx).Raw(`SELECT user_id FROM game_message_prefs WHERE game_id = ? AND muted ORDER BY user_id`, gameID).
		Scan(&ids).Error
	if err != nil {
		return nil, fmt.Errorf("muted users of game %d: %w", gameID, err)
	}
	return ids, nil
}

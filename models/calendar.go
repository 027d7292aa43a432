package models

import (
	"context"
	"time"
)

// CalendarFeed is a player's calendar feed: the SHA-256 of its token
// (HashToken) and the nonce the token was made from. A player has one
// feed at most.
type CalendarFeed struct {
	UserID    int64 `gorm:"primaryKey;autoIncrement:false"`
	TokenHash []byte
	Nonce     string
	CreatedAt time.Time
}

// TableName is the calendar_feeds table.
func (CalendarFeed) TableName() string { return "calendar_feeds" }

// SetCalendarFeed stores f as its user's feed, in place of the one they
// had: the old token stops working.
func (s *Store) SetCalendarFeed(ctx context.Context, f *CalendarFeed) error {
	f.CreatedAt = s.Now()
	return s.db.WithContext(ctx).Exec(`INSERT INTO calendar_feeds (user_id, token_hash, nonce, created_at) VALUES ( ?, ?, ?, ?)
ON CONFLICT (user_id) DO UPDATE SET token_hash = excluded.token_hash, nonce = excluded.nonce, created_at = excluded.created_at`,
		f.UserID, f.TokenHash, f.Nonce, f.CreatedAt).Error
}

// CalendarFeedOf returns the user's feed, or ErrNotFound for none.
func (s *Store) CalendarFeedOf(ctx context.Context, userID int64) (*CalendarFeed, error) {
	var f CalendarFeed
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Take(&f).Error; err != nil {
		return nil, notFound(err)
	}
	return &f, nil
}

// CalendarFeedUser returns the user whose feed's token has hash, or
// ErrNotFound (a revoked or renewed token, or none).
func (s *Store) CalendarFeedUser(ctx context.Context, hash []byte) (int64, error) {
	var f CalendarFeed
	if err := s.db.WithContext(ctx).Where("token_hash = ?", hash).Take(&f).Error; err != nil {
		return 0, notFound(err)
	}
	return f.UserID, nil
}

// DeleteCalendarFeed revokes the user's feed; ErrNotFound if they have
// none.
func (s *Store) DeleteCalendarFeed(ctx context.Context, userID int64) error {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM calendar_feeds WHERE user_id = ?`, userID)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// AwaitedDeadline is a running game that waits for a user's seat, with
// its deadline.
type AwaitedDeadline struct {
	GameID     int64
	Seat       int
	DeadlineAt time.Time
	// Seq counts the times the game's deadline was set or moved: it grows
	// whenever the deadline changes (see Store.writeGame, ExtendDeadline).
	Seq int64
	// SetAt is when the deadline was last set or moved (for a deadline
	// set before the count was kept, when its clock started, or the
	// game's last change).
	SetAt time.Time
}

// qAwaitedDeadlines reads the user's seats that a running game waits for
// with a deadline, played by the user (not by the bot after their
// timeouts), soonest first; by the partial index seats_awaiting.
const qAwaitedDeadlines = `
SELECT g.id, s.seat_no, g.deadline_at, g.deadline_seq, g.deadline_set_at, g.clock_from, g.updated_at
FROM seats s JOIN games g ON g.id = s.game_id
WHERE s.user_id = ? AND s.awaited AND s.bot = '' AND g.status = ? AND g.deadline_at IS NOT NULL
ORDER BY g.deadline_at, g.id`

// AwaitedDeadlines returns the deadlines of the running games that wait
// for the user, soonest first.
func (s *Store) AwaitedDeadlines(ctx context.Context, userID int64) ([]AwaitedDeadline, error) {
	rows, err := s.db.WithContext(ctx).Raw(qAwaitedDeadlines, userID, StatusActive).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []AwaitedDeadline{}
	for rows.Next() {
		var d AwaitedDeadline
		var setAt, clockFrom *time.Time
		if err := rows.Scan(&d.GameID, &d.Seat, &d.DeadlineAt, &d.Seq, &setAt, &clockFrom, &d.SetAt); err != nil {
			return nil, err
		}
		switch {
		case setAt != nil:
			d.SetAt = *setAt
		case clockFrom != nil:
			d.SetAt = *clockFrom
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

package models

import (
	"context"
	"time"
)

// Live-stream presence: one row per open stream connection, in any server
// process, until its expiry. Times are stored in UTC to the microsecond.

// EnterStream records that connection connID of process processID streams
// to userID until expires (or refreshes the row if it is there).
func (s *Store) EnterStream(ctx context.Context, connID, processID string, userID int64, expires time.Time) error {
	return s.db.WithContext(ctx).Exec(`
INSERT INTO stream_presence (conn_id, process_id, user_id, expires_at) VALUES (?, ?, ?, ?)
ON CONFLICT (conn_id) DO UPDATE SET expires_at = excluded.expires_at`,
		connID, processID, userID, presenceTime(expires)).Error
}

// RefreshStreams moves the expiry of every connection of processID to
// expires and returns how many rows it found.
func (s *Store) RefreshStreams(ctx context.Context, processID string, expires time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Exec(`UPDATE stream_presence SET expires_at = ? WHERE process_id = ?`,
		presenceTime(expires), processID)
	return res.RowsAffected, res.Error
}

// LeaveStream deletes the row of connection connID; LeaveStreams those of
// every connection of processID (at shutdown).
func (s *Store) LeaveStream(ctx context.Context, connID string) error {
	return s.db.WithContext(ctx).Exec(`DELETE FROM stream_presence WHERE conn_id = ?`, connID).Error
}

// LeaveStreams: see LeaveStream.
func (s *Store) LeaveStreams(ctx context.Context, processID string) error {
	return s.db.WithContext(ctx).Exec(`DELETE FROM stream_presence WHERE process_id = ?`, processID).Error
}

// OnStream reports whether userID has a stream connection whose row has
// not expired at now.
func (s *Store) OnStream(ctx context.Context, userID int64, now time.Time) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) FROM (SELECT 1 FROM stream_presence WHERE user_id = ? AND expires_at > ? LIMIT 1) p`,
		userID, presenceTime(now)).Scan(&n).Error
	return n > 0, err
}

// PurgeStreams deletes the rows that expired before before (those of
// processes that died) and returns how many.
func (s *Store) PurgeStreams(ctx context.Context, before time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM stream_presence WHERE expires_at < ?`, presenceTime(before))
	return res.RowsAffected, res.Error
}

func presenceTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

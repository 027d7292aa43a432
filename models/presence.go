package models

import (
	"context"
	"time"
)

// Live-stream presence: one row per open stream connection, in any server
// process, until its expiry. Times are stored in UTC to the microsecond.

// EnterStream records that connection connID of process processID streams
// to userID until expires (or refreshes the row if it is there): the
// user's notifications, or with a gameID the events of that game (userID 0:
// a spectator signed in nowhere, stored without a user).
func (s *Store) EnterStream(ctx context.Context, connID, processID string, userID int64, gameID *int64, expires time.Time) error {
	var user *int64 // none for a reader signed in nowhere (userID 0)
	if userID != 0 {
		user = &userID
	}
	return s.db.WithContext(ctx).Exec(`
INSERT INTO stream_presence (conn_id, process_id, user_id, game_id, expires_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (conn_id) DO UPDATE SET expires_at = excluded.expires_at`,
		connID, processID, user, gameID, presenceTime(expires)).Error
}

// AwaitRunning waits, up to limit, until every transaction of this
// database that was running when it was called has ended (on Postgres;
// SQLite runs one writer at a time). A live-stream connection calls it
// after writing its row and before reading the stored backlog: a change
// that did not see the row, and so announced nothing, has then committed
// or rolled back. Transactions of the server's other databases are set
// aside (see qOldestHere): one left running there for minutes made every
// stream here wait its whole limit.
func (s *Store) AwaitRunning(ctx context.Context, limit time.Duration) error {
	if s.dialect != Postgres {
		return nil
	}
	db := s.db.WithContext(ctx)
	// A transaction id of its own, newer than that of every transaction
	// already writing (a snapshot's xmax would not do: it is the newest
	// ended id plus one, and ids above it that are running are not listed).
	var mine int64
	if err := db.Raw(`SELECT pg_current_xact_id()::text::bigint`).Row().Scan(&mine); err != nil {
		return err
	}
	deadline := time.Now().Add(limit)
	for {
		var ended bool
		if err := db.Raw(qAwaited, mine, mine).Row().Scan(&ended); err != nil {
			return err
		}
		if ended || time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// qOldestHere is the oldest transaction id running in this database at
// the snapshot s.snap (a CTE the statement defines), or the snapshot's
// xmax when none runs: of the ids the snapshot lists as running, those
// that pg_stat_activity shows as another database's are set aside (one it
// does not show, a prepared transaction say, counts as this database's).
const qOldestHere = `COALESCE(
    (SELECT min(x) FROM s, pg_snapshot_xip(s.snap) x
     WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.backend_xid = x::xid
       AND a.datid <> (SELECT oid FROM pg_database WHERE datname = current_database()))),
    (SELECT pg_snapshot_xmax(snap) FROM s))`

// qAwaited says whether every transaction of this database with an id
// up to the one given (twice) has ended: the server's oldest running one
// is younger, or this database's is.
const qAwaited = `
WITH s AS MATERIALIZED (SELECT pg_current_snapshot() AS snap)
SELECT (SELECT pg_snapshot_xmin(snap) FROM s)::text::bigint > ?
  OR (SELECT ` + qOldestHere + `)::text::bigint > ?`

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

// OnStream reports whether userID has a notification stream connection
// whose row has not expired at now.
func (s *Store) OnStream(ctx context.Context, userID int64, now time.Time) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) FROM (SELECT 1 FROM stream_presence WHERE user_id = ? AND game_id IS NULL AND expires_at > ? LIMIT 1) p`,
		userID, presenceTime(now)).Scan(&n).Error
	return n > 0, err
}

// Follows reports whether userID follows game gameID live at now, in any
// process: a notification stream of theirs, or a stream of the game's
// events (its board's page, or GET /v1/games/{id}/stream), whose row has
// not expired.
func (s *Store) Follows(ctx context.Context, userID, gameID int64, now time.Time) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) FROM (SELECT 1 FROM stream_presence
WHERE user_id = ? AND (game_id IS NULL OR game_id = ?) AND expires_at > ? LIMIT 1) p`,
		userID, gameID, presenceTime(now)).Scan(&n).Error
	return n > 0, err
}

// PurgeStreams deletes the rows that expired before before (those of
// processes that died) and returns how many.
func (s *Store) PurgeStreams(ctx context.Context, before time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM stream_presence WHERE expires_at < ?`, presenceTime(before))
	return res.RowsAffected, res.Error
}

func presenceTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

package models

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
)

// storeTests is what tests set on a store.
type storeTests struct {
	// counted counts the reads sent straight to the connection, past
	// GORM (see direct), for CountStatementsForTest; nil when nothing
	// counts.
	counted atomic.Pointer[atomic.Int64]
	// holdNotes says which reads of a notification log report their last
	// row held back, and notesRead counts those reads (HoldNotesForTest).
	holdNotes atomic.Pointer[func(n int32) bool]
	notesRead atomic.Int32
	// timeout, when not 0, stands for the store's own deadlines
	// (BoundForTest).
	timeout atomic.Int64
}

// bound is d, the store's own deadline of some work, or the one a test
// set in its stead (BoundForTest).
func (t *storeTests) bound(d time.Duration) time.Duration {
	if v := t.timeout.Load(); v != 0 {
		return time.Duration(v)
	}
	return d
}

// BoundForTest makes d the store's own deadlines: a change's whose caller
// set none (30 s) and a batch of GameRef reads' (30 s).
func (s *Store) BoundForTest(d time.Duration) { s.tests.timeout.Store(int64(d)) }

// HoldNotesForTest makes the reads of a notification log
// (NotificationsFrom) that find more than one row, numbered n from 1 on,
// report the last row held back by a running transaction where hold(n),
// as a read on Postgres does when a transaction of another database ends
// between the statement's snapshot and its look at pg_stat_activity (see
// qOldestHere). It returns how many such reads were made.
func (s *Store) HoldNotesForTest(hold func(n int32) bool) (reads func() int32) {
	s.tests.notesRead.Store(0)
	s.tests.holdNotes.Store(&hold)
	return s.tests.notesRead.Load
}

// heldForTest reports whether a read of a notification log that found
// rows should report its last one held back (HoldNotesForTest).
func (s *Store) heldForTest(rows int) bool {
	if rows < 2 || s.tests == nil {
		return false
	}
	hold := s.tests.holdNotes.Load()
	return hold != nil && (*hold)(s.tests.notesRead.Add(1))
}

// ExecForTest runs one statement. It exists for tests that fill the
// database in bulk; the service never calls it.
func (s *Store) ExecForTest(ctx context.Context, query string, args ...any) error {
	return s.db.WithContext(ctx).Exec(query, args...).Error
}

// ExplainForTest returns the query plan of the ListGames query for f, for
// tests that check which index answers it.
func (s *Store) ExplainForTest(ctx context.Context, f GameFilter) (string, error) {
	q, args := listQuery(f)
	prefix := "EXPLAIN "
	if s.dialect == SQLite {
		prefix = "EXPLAIN QUERY PLAN "
	}
	rows, err := s.db.WithContext(ctx).Raw(prefix+q, args...).Rows()
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		for _, v := range vals {
			switch v := v.(type) {
			case string:
				lines = append(lines, v)
			case []byte:
				lines = append(lines, string(v))
			}
		}
	}
	return strings.Join(lines, "\n"), rows.Err()
}

// CheckArgForTest returns what a Postgres connection of the store hands
// pgx for the query argument v (see textArrayConn).
func CheckArgForTest(v any) (any, error) {
	nv := &driver.NamedValue{Ordinal: 1, Value: v}
	err := (&textArrayConn{}).CheckNamedValue(nv)
	return nv.Value, err
}

// ReadOnlyForTest reports whether a statement that failed on a broken
// connection may run again on another (see readOnly).
func ReadOnlyForTest(query string) bool { return readOnly(query) }

// CountStatementsForTest counts, from now on, the statements the store
// sends through GORM (queries, raw statements, creates, updates, deletes)
// and the reads it sends straight to the connection (a game's reference,
// GameRef), and returns a function that reads the count. A change's own
// write of the game (one statement on the transaction's connection) and
// the job queue's inserts are not counted. For tests that compare what two
// routes cost; the last call's counter counts the direct reads.
func (s *Store) CountStatementsForTest() func() int64 {
	var n atomic.Int64
	s.tests.counted.Store(&n)
	name := fmt.Sprintf("count_statements_%d", statementCounters.Add(1))
	count := func(*gorm.DB) { n.Add(1) }
	cb := s.db.Callback()
	cb.Create().After("gorm:create").Register(name, count)
	cb.Query().After("gorm:query").Register(name, count)
	cb.Update().After("gorm:update").Register(name, count)
	cb.Delete().After("gorm:delete").Register(name, count)
	cb.Row().After("gorm:row").Register(name, count)
	cb.Raw().After("gorm:raw").Register(name, count)
	return n.Load
}

var statementCounters atomic.Int64

// CommitWithForTest is ctx for a transaction's last statement, which
// commits it along on Postgres (commitWith).
func CommitWithForTest(ctx context.Context) context.Context { return commitWith(ctx) }

// CountRoundTripsForTest is ctx with a count of the round trips to
// Postgres made with it (a batch sent in one is one), and that count.
func CountRoundTripsForTest(ctx context.Context) (context.Context, func() int64) {
	n := &atomic.Int64{}
	return context.WithValue(ctx, tripsKey{}, n), n.Load
}

// GameRefOneForTest is GameRef read with a query of its own, never in a
// batch, for tests that compare a batch's answers with it.
func (s *Store) GameRefOneForTest(ctx context.Context, id, userID int64, session string) (GameRef, error) {
	return s.gameRef(ctx, qGameRef, []any{session, session, id, userID}, id, userID)
}

// HoldRefBatchesForTest makes every batch of GameRef reads call hold with
// its size before its query (an error from hold fails the batch instead
// of the query), and reads wait for each other at any pace (busy is
// their pace a second above which they do; 0 for any); it returns how
// many reads wait for a batch. It reports false when the store sends none
// in batches (SQLite). Call it before the reads, and again to change the
// pace while a batch is held.
func (s *Store) HoldRefBatchesForTest(hold func(n int) error, busy float64) (queued func() int, ok bool) {
	b := s.refs
	if b == nil {
		return nil, false
	}
	b.mu.Lock()
	b.hold, b.busy, b.batching = hold, busy, busy == 0
	b.window, b.reads = time.Now(), 0
	b.mu.Unlock()
	return func() int {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.queue)
	}, true
}

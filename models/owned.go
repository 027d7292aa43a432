package models

import (
	"context"
	"fmt"
)

// Owning is a kind of thing an account makes and may have only so many
// of at once (Room).
type Owning int

// The things an account has a limit of.
const (
	OpenGames     Owning = iota + 1 // games it created that have not started, nor been cancelled
	LiveAPITokens                   // personal API tokens it has not revoked
	Decks                           // saved decks
	Webhooks                        // registered webhooks, disabled ones too
)

// ownedCounts are the queries that count what a user has of each kind.
var ownedCounts = map[Owning]string{
	OpenGames:     `SELECT count(*) FROM games WHERE created_by = ? AND status = 'open'`,
	LiveAPITokens: `SELECT count(*) FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL`,
	Decks:         `SELECT count(*) FROM decks WHERE user_id = ?`,
	Webhooks:      `SELECT count(*) FROM webhooks WHERE user_id = ?`,
}

// Room says whether user userID has fewer than max things of kind what,
// for a transaction (a store of InTx) about to make one. On Postgres it
// first takes a lock of that user's and kind's own for the rest of the
// transaction (an advisory lock: no row lock waits for it, nor it for
// one, so it cannot deadlock with the seat and account locks a creation
// takes after it), so that makings of one kind by one user count one
// after another and none goes past max. SQLite runs one write transaction
// at a time.
func (s *Store) Room(ctx context.Context, userID int64, what Owning, max int) (bool, error) {
	q, ok := ownedCounts[what]
	if !ok {
		return false, fmt.Errorf("models: no count of owning %d", what)
	}
	db := s.db.WithContext(ctx)
	if s.dialect == Postgres {
		// The two-key form: its keys never meet the one-key locks of the
		// job queue. Ids past 2^31 share a key with a smaller one, which
		// makes them wait for each other, no more.
		if err := db.Exec(`SELECT pg_advisory_xact_lock(?, ?)`, ownedLockClass+int32(what), int32(userID)).Error; err != nil {
			return false, err
		}
	}
	var n int64
	if err := db.Raw(q, userID).Scan(&n).Error; err != nil {
		return false, err
	}
	return n < int64(max), nil
}

// ownedLockClass is the first key of Room's advisory locks ("DM" and a
// kind).
const ownedLockClass int32 = 0x444d0000

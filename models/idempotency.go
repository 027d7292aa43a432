package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// OutboxTx returns the transaction of a store from InTx as an OutboxTx,
// for a change that writes notification jobs and an idempotency record in
// one transaction. A store that is not in a transaction gives an error.
func (s *Store) OutboxTx() (OutboxTx, error) {
	return s.outboxTx(s.db)
}

// Key names the idempotency record of the request a change is made for: a
// user's Idempotency-Key (see Idempotency). The zero Key names none.
type Key struct {
	UserID int64
	Key    string
}

// ErrKeyStored means that while a change waited for the game's lock,
// another request with the change's Idempotency-Key stored its record
// (see MutateKeyed): that record is the answer. It is an ErrConflict.
var ErrKeyStored = fmt.Errorf("idempotency key stored by another request meanwhile: %w", ErrConflict)

// MutateKeyed is MutateCached for a request made with an Idempotency-Key
// (key; the zero Key is MutateCached itself), whose record the change stores
// (Change.Record). Copies of one request sent together all look for the
// record before any of them has stored it; the first to take the game's
// lock applies the change and stores the record with it, and each of the
// others then finds a game that has moved on, so that fn fails (a stale
// version, a seat already taken, a game already started). When fn fails and
// key's record exists by then, MutateKeyed gives ErrKeyStored instead of
// fn's error, and the caller answers with the record: the copy waited for
// the first and gets its response. (Were fn to succeed, storing the record
// would fail with ErrConflict and roll the change back.) The record is
// looked for only when fn fails, so that a change that succeeds costs
// nothing more. A non-nil tok is the request's access token, checked
// along the game's lock (TokenCheck).
func (s *Store) MutateKeyed(ctx context.Context, id, cached int64, key Key, tok *TokenCheck, fn func(g *Game) (*Change, error)) (*Game, error) {
	return s.mutate(ctx, id, &cached, key, tok, fn)
}

// keyStored reports whether key's record exists, as tx sees it now; an
// error reading it reports false (the caller returns its own error).
func keyStored(ctx context.Context, tx *gorm.DB, key Key, now time.Time) bool {
	var n int64
	err := tx.WithContext(ctx).Raw(qIdempotencyExists, key.UserID, key.Key, now.Add(-IdempotencyTTL)).Scan(&n).Error
	return err == nil && n > 0
}

package models

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"time"
)

// RateLimit is a token bucket: Burst attempts at once, and one more every
// Every. A Burst below 1 counts as 1; Every must be positive.
type RateLimit struct {
	Burst int
	Every time.Duration
}

// window is, in microseconds, how far past now a bucket's tat may be for
// one more attempt to be taken: (Burst - 1) * Every, capped so that it
// cannot overflow.
func (l RateLimit) window() int64 {
	w := float64(max(l.Burst, 1)-1) * float64(l.Every.Microseconds())
	return int64(min(w, math.MaxInt64/4))
}

// RateState is a token bucket as an attempt left it (TakeRate).
type RateState struct {
	// Wait is how long until an attempt can be taken: 0 when this one was
	// taken; positive when it was refused (and so changed nothing).
	Wait time.Duration
	// Left is how many attempts can be taken now, after this one.
	Left int
	// Full is how long until the bucket is full again: Burst attempts
	// left. 0 for a full bucket.
	Full time.Duration
}

// Gave is the state s after an attempt it counted was given back
// (GiveRate) on the bucket of l: one more left, full one Every sooner.
func (s RateState) Gave(l RateLimit) RateState {
	s.Left = min(s.Left+1, max(l.Burst, 1))
	s.Full = max(s.Full-l.Every, 0)
	return s
}

// TakeRate takes one attempt at now from the bucket key of limit l, which
// every server on the database shares: rate_limits (migration 0011) holds
// one row per key, the bucket's theoretical arrival time (GCRA), written by
// one statement. It returns the bucket's state: Wait 0 when the attempt was
// taken, or else how long until one can be; a refused attempt changes
// nothing. The key is the caller's: a keyed hash of what is limited, so
// that the table names no account or address.
func (s *Store) TakeRate(ctx context.Context, key []byte, l RateLimit, now time.Time) (RateState, error) {
	t, every := now.UnixMicro(), l.Every.Microseconds()
	var tat int64
	err := s.db.WithContext(ctx).Raw(qTakeRate, key, t+every, t, t, every, t+l.window()).Row().Scan(&tat)
	if err == nil {
		// Taken: tat + (n - 1) * every <= now + window for n more.
		left := 0
		if room := t + l.window() - tat; room >= 0 {
			left = min(int(room/every)+1, max(l.Burst, 1))
		}
		return RateState{Left: left, Full: time.Duration(tat-t) * time.Microsecond}, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return RateState{}, err
	}
	if err := s.db.WithContext(ctx).Raw(`SELECT tat FROM rate_limits WHERE key = ?`, key).Row().Scan(&tat); err != nil {
		return RateState{}, err
	}
	return RateState{Wait: max(time.Duration(tat-t-l.window())*time.Microsecond, time.Microsecond),
		Full: time.Duration(tat-t) * time.Microsecond}, nil
}

// GiveRate gives back to the bucket key of limit l an attempt TakeRate
// took (one that turned out to need no limit, such as a login with the
// right password). A bucket that is gone, or full, stays so.
func (s *Store) GiveRate(ctx context.Context, key []byte, l RateLimit) error {
	return s.db.WithContext(ctx).Exec(`UPDATE rate_limits SET tat = tat - ? WHERE key = ?`, l.Every.Microseconds(), key).Error
}

// PurgeRateLimits deletes the buckets that are full at now (a full bucket
// and no bucket are the same) and returns how many.
func (s *Store) PurgeRateLimits(ctx context.Context, now time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM rate_limits WHERE tat <= ?`, now.UnixMicro())
	return res.RowsAffected, res.Error
}

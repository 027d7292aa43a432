package models_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// TestRateLimit: a bucket gives Burst attempts at once, then one per
// Every; a refused attempt changes nothing and says how long to wait; an
// attempt given back can be taken again; buckets of other keys are apart;
// and a full bucket is purged.
func TestRateLimit(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		l := models.RateLimit{Burst: 3, Every: 10 * time.Second}
		now := time.Unix(1_700_000_000, 0)
		take := func(key string) time.Duration {
			t.Helper()
			rate, err := st.TakeRate(ctx, []byte(key), l, now)
			if err != nil {
				t.Fatal(err)
			}
			return rate.Wait
		}
		for i := range 3 {
			if w := take("a"); w != 0 {
				t.Fatalf("attempt %d refused (wait %v)", i, w)
			}
		}
		for range 2 { // refused twice: the second waits as long as the first
			if w := take("a"); w != 10*time.Second {
				t.Fatalf("4th attempt: wait %v, want 10s", w)
			}
		}
		if w := take("b"); w != 0 {
			t.Fatalf("another key: wait %v", w)
		}
		now = now.Add(4 * time.Second)
		if w := take("a"); w != 6*time.Second {
			t.Fatalf("4 s later: wait %v, want 6s", w)
		}
		if err := st.GiveRate(ctx, []byte("a"), l); err != nil {
			t.Fatal(err)
		}
		if w := take("a"); w != 0 {
			t.Fatalf("after one given back: wait %v", w)
		}
		now = now.Add(6 * time.Second)
		if w := take("a"); w != 0 {
			t.Fatalf("after Every: wait %v", w)
		}
		if w := take("a"); w == 0 {
			t.Fatal("a second attempt after Every was taken")
		}
		// At now "b" is full (one attempt, 10 s ago) and "a" is not.
		if n, err := st.PurgeRateLimits(ctx, now); err != nil || n != 1 {
			t.Fatalf("purge: %d %v, want 1", n, err)
		}
		if w := take("a"); w == 0 {
			t.Fatal(`"a" purged while not full`)
		}
	})
}

// TestRateLimitConcurrent: attempts taken at once from one bucket, through
// two stores on one database (two replicas), get exactly Burst through.
func TestRateLimitConcurrent(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		l := models.RateLimit{Burst: 5, Every: time.Hour}
		now := time.Now()
		var taken atomic.Int64
		var wg sync.WaitGroup
		for range 24 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rate, err := st.TakeRate(ctx, []byte("k"), l, now)
				if err != nil {
					t.Error(err)
				} else if rate.Wait == 0 {
					taken.Add(1)
				}
			}()
		}
		wg.Wait()
		if taken.Load() != 5 {
			t.Fatalf("%d of 24 taken, want 5", taken.Load())
		}
	})
}

// TestRateState: each attempt says how many are left and how long until
// the bucket is full again; a refused one has none left and says how long
// to wait; one given back is one more left.
func TestRateState(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		l := models.RateLimit{Burst: 3, Every: 10 * time.Second}
		now := time.Unix(1_700_000_000, 0)
		want := []models.RateState{
			{Left: 2, Full: 10 * time.Second}, {Left: 1, Full: 20 * time.Second}, {Left: 0, Full: 30 * time.Second},
			{Wait: 10 * time.Second, Left: 0, Full: 30 * time.Second},
		}
		var last models.RateState
		for i, w := range want {
			got, err := st.TakeRate(ctx, []byte("s"), l, now)
			if err != nil || got != w {
				t.Fatalf("attempt %d: %+v %v, want %+v", i, got, err, w)
			}
			last = got
		}
		if g := last.Gave(l); g.Left != 1 || g.Full != 20*time.Second {
			t.Fatalf("given back: %+v", g)
		}
		// Later, the bucket has filled up again in part.
		got, err := st.TakeRate(ctx, []byte("s"), l, now.Add(25*time.Second))
		if err != nil || got != (models.RateState{Left: 1, Full: 15 * time.Second}) {
			t.Fatalf("25 s later: %+v %v", got, err)
		}
	})
}

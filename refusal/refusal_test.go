package refusal_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
)

type stale struct{}

func (stale) Error() string             { return "stale" }
func (stale) RefusalKind() refusal.Kind { return refusal.Conflict }
func wrap(err error) error              { return fmt.Errorf("wrapped: %w", err) }
func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want refusal.Kind
	}{
		{nil, 0},
		{refusal.New(refusal.Forbidden, "not_creator", "only the creator"), refusal.Forbidden},
		{wrap(&refusal.RateLimitError{Retry: time.Second}), refusal.RateLimited},
		{wrap(stale{}), refusal.Conflict},
		{&engine.IllegalActionError{Code: "x", Reason: "no"}, refusal.Invalid},
		{&engine.DeckError{Reason: "too many"}, refusal.Invalid},
		{wrap(models.ErrUnavailable), refusal.Unavailable},
		{models.ErrUnstorableText, refusal.Invalid},
		{wrap(models.ErrNotFound), refusal.NotFound},
		{models.ErrTokenReuse, refusal.Unauthorized},
		{models.ErrInvalidToken, refusal.Unauthorized},
		{models.ErrKeyStored, refusal.Conflict},
		{errors.New("disk on fire"), refusal.Internal},
	} {
		if got := refusal.KindOf(c.err); got != c.want {
			t.Errorf("KindOf(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestTable: every kind has a name and a status of its own class, and the
// temporary ones are those a client retries.
func TestTable(t *testing.T) {
	seen := map[int]refusal.Kind{}
	for _, k := range refusal.Kinds {
		st := k.Status()
		if st < 400 || st > 599 || k.String() == fmt.Sprintf("kind(%d)", int(k)) {
			t.Errorf("%d: status %d, name %q", int(k), st, k)
		}
		if other, ok := seen[st]; ok {
			t.Errorf("%v and %v share the status %d", k, other, st)
		}
		seen[st] = k
		if want := st == 429 || st >= 500; k.Temporary() != want {
			t.Errorf("%v: temporary %v", k, k.Temporary())
		}
	}
	if refusal.Kind(99).Status() != 500 || !refusal.Kind(99).Temporary() {
		t.Error("an unknown kind is not a failure of the server")
	}
	if got := (&refusal.RateLimitError{Retry: 1500 * time.Millisecond}).RetryAfter(); got != 2 {
		t.Errorf("RetryAfter of 1.5s: %d", got)
	}
}

package accounts_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/refusal"
)

// TestAttackAccountSignInRacingDeletion: a sign-in checks the password
// (SignIn) and then starts the session, in two steps, as both doors do:
// the API's login (StartSession), the sign-in form (StartWebSession);
// and a sign-in link records its nonce and starts a browser session
// (SignInWithLink). Here ana deletes her account between the check and
// the session, as an attacker who knows her password and signs in again
// and again would have it happen. What must hold: the session that
// lands after the deletion is no session: its access token is refused,
// its refresh token refreshes nothing live, the browser session reads as
// no account; and the deleted account holds no refresh token or browser
// session afterwards.
func TestAttackAccountSignInRacingDeletion(t *testing.T) {
	eachDB(t, accounts.Config{}, func(t *testing.T, e *env) {
		u := e.user(t, "ana", "ana password")
		signedIn, _, err := e.acc.SignIn(e.ctx, "198.51.100.1", "ana", "ana password")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.acc.Delete(e.ctx, u.ID); err != nil {
			t.Fatal(err)
		}

		// The API's login goes on.
		if ses, err := e.acc.StartSession(e.ctx, signedIn); err == nil {
			if _, err := e.acc.AccessUser(e.ctx, ses.Access); err == nil {
				t.Error("the access token of a login that landed after the deletion works")
			}
			if next, err := e.acc.Refresh(e.ctx, ses.Refresh); err == nil {
				if uid, err := e.acc.AccessUser(e.ctx, next.Access); err == nil {
					t.Errorf("the refresh token of a login that landed after the deletion gives a live access token of user %d (%s)",
						uid, next.User.Username)
				}
			}
		}
		// The sign-in form goes on.
		if raw, err := e.acc.StartWebSession(e.ctx, signedIn.ID); err == nil {
			if a, _, err := e.acc.WebSession(e.ctx, raw); err == nil {
				t.Errorf("a browser session started after the deletion reads as the account %q", a.Username)
			}
		}
		// A sign-in link of an email.
		if raw, err := e.acc.SignInWithLink(e.ctx, notifier.NewNonce(), e.clock.Now().Add(time.Hour), u.ID); err == nil {
			if a, _, err := e.acc.WebSession(e.ctx, raw); err == nil {
				t.Errorf("a sign-in link used after the deletion starts a session of the account %q", a.Username)
			}
		}
		if _, _, err := e.acc.SignIn(e.ctx, "198.51.100.1", "ana", "ana password"); !errors.Is(err, accounts.ErrBadCredentials) {
			t.Errorf("a sign-in after the deletion: %v", err)
		}
	})
}

// TestAttackAccountDeleteWhileRefreshing: a client of ana's (or a thief
// with her refresh token) rotates its refresh token over and over while
// she deletes her account. What must hold, however the rotation and the
// deletion interleave: a rotation is either done or refused as an
// invalid token (no other error: a deadlock would be a 500 to the
// client), and once the deletion has returned the chain ends: the latest
// refresh token refreshes nothing, the latest access token is refused,
// and no refresh token of the account is left that may still be
// exchanged. (A password change has the same race, closed by taking the
// user's row first: TestPasswordChangeRevokesConcurrentRotation.) Up to
// 8 rounds, each with an account of its own; a round that leaves a live
// chain fails the test.
func TestAttackAccountDeleteWhileRefreshing(t *testing.T) {
	eachDB(t, accounts.Config{}, func(t *testing.T, e *env) {
		for round := range 8 {
			u := e.user(t, fmt.Sprintf("ana%d", round), "ana password")
			first, err := e.acc.StartSession(e.ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			var deleted atomic.Bool
			var after atomic.Int32 // rotations that succeeded once the deletion had returned
			var last accounts.Session
			var loopErr error
			started := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				ses := first
				for i := 0; ; i++ {
					if i == 3 {
						close(started)
					}
					next, err := e.acc.Refresh(e.ctx, ses.Refresh)
					if err != nil {
						if !errors.Is(err, models.ErrInvalidToken) && !errors.Is(err, models.ErrTokenReuse) {
							loopErr = err
						}
						if i < 3 {
							close(started)
						}
						return
					}
					ses, last = next, next
					if deleted.Load() && after.Add(1) >= 3 {
						return
					}
				}
			})
			<-started
			if err := e.acc.Delete(e.ctx, u.ID); err != nil {
				t.Fatal(err)
			}
			deleted.Store(true)
			wg.Wait()
			if loopErr != nil {
				t.Fatalf("round %d: a refresh failed with %v", round, loopErr)
			}
			// A rotation that ran before the deletion may return after it
			// (one success seen late); a second one began after it.
			live := modelstest.Count(t, e.st, fmt.Sprintf(`SELECT COUNT(*) FROM refresh_tokens WHERE user_id = %d AND revoked_at IS NULL AND rotated_at IS NULL`, u.ID))
			_, accessErr := e.acc.AccessUser(e.ctx, last.Access)
			if n := after.Load(); n > 1 || live > 0 || accessErr == nil {
				name := ""
				if last.User != nil {
					name = last.User.Username
				}
				t.Fatalf("round %d: after the deletion returned the refresh chain went on %d times, %d refresh tokens of the "+
					"deleted account may still be exchanged, and the latest access token (of %q) is refused: %v (%v)",
					round, n, live, name, accessErr != nil, accessErr)
			}
		}
	})
}

// TestAttackAccountCreateAtOnce: sixteen registrations of one name reach
// the accounts at the same moment (two servers, a double click), and
// sixteen of sixteen other names beside them. What must hold: one of each
// name is created, every other is the refusal username_taken (Conflict),
// and no other error comes back.
func TestAttackAccountCreateAtOnce(t *testing.T) {
	eachDB(t, accounts.Config{}, func(t *testing.T, e *env) {
		const n = 16
		errs := make([]error, 2*n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		hash := e.acc.Hash("a password")
		for i := range 2 * n {
			wg.Go(func() {
				<-start
				name := "dup"
				if i >= n {
					name = fmt.Sprintf("solo%d", i)
				}
				errs[i] = e.acc.CreateUser(e.ctx, &models.User{Username: name, Email: name + "@example.com"}, hash, "")
			})
		}
		close(start)
		wg.Wait()
		created := 0
		for i, err := range errs {
			var re *refusal.Error
			switch {
			case err == nil:
				created++
			case i < n && errors.As(err, &re) && re.Code == "username_taken" && refusal.KindOf(err) == refusal.Conflict:
			default:
				t.Fatalf("registration %d: %v", i, err)
			}
		}
		if created != n+1 {
			t.Fatalf("%d accounts created, want 1 dup and %d others", created, n)
		}
		if got := modelstest.Count(t, e.st, `SELECT COUNT(*) FROM users WHERE username = 'dup'`); got != 1 {
			t.Fatalf("%d accounts named dup", got)
		}
	})
}

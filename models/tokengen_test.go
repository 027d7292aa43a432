package models_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// TestTokenGeneration: a user's token generation moves on with a logout
// (once, not with its repeat), with the reuse of a rotated refresh token
// and with a password change, which also revokes every refresh token and
// refuses to replace a hash that is no longer the one checked.
func TestTokenGeneration(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		u := newUser(t, st, "ga")
		exp := time.Now().Add(time.Hour)
		h := func(s string) []byte { return models.HashToken(s) }
		gen := func() int64 {
			t.Helper()
			g, err := st.TokenGeneration(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		if g := gen(); g != 0 {
			t.Fatalf("new user: generation %d", g)
		}
		if _, err := st.TokenGeneration(ctx, u.ID+100); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("unknown user: %v", err)
		}
		st.CreateRefreshToken(ctx, u.ID, "f1", h("a1"), exp)
		if got, err := st.RefreshTokenUser(ctx, h("a1")); err != nil || got.ID != u.ID || got.TokenGen != 0 {
			t.Fatalf("refresh token's user: %+v %v", got, err)
		}
		if _, err := st.RefreshTokenUser(ctx, h("nope")); !errors.Is(err, models.ErrInvalidToken) {
			t.Fatalf("unknown refresh token's user: %v", err)
		}
		st.RevokeRefreshFamily(ctx, h("a1"))
		st.RevokeRefreshFamily(ctx, h("a1"))
		if g := gen(); g != 1 {
			t.Fatalf("after a logout and its repeat: generation %d, want 1", g)
		}
		st.CreateRefreshToken(ctx, u.ID, "f2", h("b1"), exp)
		st.RotateRefreshToken(ctx, h("b1"), h("b2"), exp)
		if g := gen(); g != 1 {
			t.Fatalf("after a rotation: generation %d, want 1", g)
		}
		if _, err := st.RotateRefreshToken(ctx, h("b1"), h("b3"), exp); !errors.Is(err, models.ErrTokenReuse) {
			t.Fatalf("reuse: %v", err)
		}
		if g := gen(); g != 2 {
			t.Fatalf("after a reuse: generation %d, want 2", g)
		}

		st.CreateRefreshToken(ctx, u.ID, "f3", h("c1"), exp)
		st.CreateRefreshToken(ctx, u.ID, "f4", h("d1"), exp)
		if _, err := st.ChangePassword(ctx, u.ID, "not-the-hash", "hash-2"); !errors.Is(err, models.ErrConflict) {
			t.Fatalf("change from another hash: %v", err)
		}
		if g, err := st.ChangePassword(ctx, u.ID, "hash-ga", "hash-2"); err != nil || g != 3 {
			t.Fatalf("change: generation %d, %v; want 3", g, err)
		}
		if g := gen(); g != 3 {
			t.Fatalf("stored generation %d, want 3", g)
		}
		if hash, _ := st.PasswordHash(ctx, u.ID); hash != "hash-2" {
			t.Fatalf("hash %q", hash)
		}
		for _, tok := range []string{"c1", "d1"} {
			if _, err := st.RotateRefreshToken(ctx, h(tok), h(tok+"'"), exp); !errors.Is(err, models.ErrInvalidToken) {
				t.Fatalf("refresh token %s after a password change: %v", tok, err)
			}
		}
		if _, err := st.ChangePassword(ctx, u.ID+100, "hash-2", "hash-3"); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("unknown user: %v", err)
		}
	})
}

// TestPasswordChangeRevokesConcurrentRotation: a rotation of a refresh
// token running with a password change of its user leaves no refresh token
// alive once both are done, whichever goes first: the one a rotation
// inserts while the change runs is revoked too.
func TestPasswordChangeRevokesConcurrentRotation(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		u := newUser(t, st, "ro")
		exp := time.Now().Add(time.Hour)
		db, err := st.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		hash := "hash-ro"
		for i := range 40 {
			old := models.HashToken(fmt.Sprintf("r%d", i))
			if err := st.CreateRefreshToken(ctx, u.ID, fmt.Sprintf("fam%d", i), old, exp); err != nil {
				t.Fatal(err)
			}
			next := fmt.Sprintf("hash-%d", i)
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				if _, err := st.RotateRefreshToken(ctx, old, models.HashToken(fmt.Sprintf("r%d'", i)), exp); err != nil && !errors.Is(err, models.ErrInvalidToken) {
					t.Error(err)
				}
			}()
			go func() {
				defer wg.Done()
				if _, err := st.ChangePassword(ctx, u.ID, hash, next); err != nil {
					t.Error(err)
				}
			}()
			wg.Wait()
			hash = next
			var live int
			if err := db.QueryRow(`SELECT COUNT(*) FROM refresh_tokens WHERE revoked_at IS NULL`).Scan(&live); err != nil {
				t.Fatal(err)
			}
			if live != 0 {
				t.Fatalf("round %d: %d refresh tokens alive after the password change", i, live)
			}
		}
	})
}

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

// TestTokenGeneration: a logout ends its session (its family's tokens are
// no longer live) and no other, and leaves the generation (a repeat too);
// the reuse of a rotated refresh token moves the generation on, and so
// does a password change, which also revokes every refresh token and
// refuses to replace a hash that is no longer the one checked.
func TestTokenGeneration(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		u := newUser(t, st, "ga")
		exp := time.Now().Add(time.Hour)
		h := func(s string) []byte { return models.HashToken(s) }
		check := func(session string) (int64, bool) {
			t.Helper()
			g, live, err := st.AccessCheck(ctx, u.ID, session)
			if err != nil {
				t.Fatal(err)
			}
			return g, live
		}
		gen := func() int64 {
			t.Helper()
			g, _ := check("")
			return g
		}
		if g, live := check(""); g != 0 || !live {
			t.Fatalf("new user: generation %d, live %v", g, live)
		}
		if _, _, err := st.AccessCheck(ctx, u.ID+100, ""); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("unknown user: %v", err)
		}
		st.CreateRefreshToken(ctx, u.ID, "f1", h("a1"), exp)
		st.CreateRefreshToken(ctx, u.ID, "f0", h("z1"), exp)
		if got, family, err := st.RefreshTokenUser(ctx, h("a1")); err != nil || got.ID != u.ID || got.TokenGen != 0 || family != "f1" {
			t.Fatalf("refresh token's user: %+v %q %v", got, family, err)
		}
		if _, _, err := st.RefreshTokenUser(ctx, h("nope")); !errors.Is(err, models.ErrInvalidToken) {
			t.Fatalf("unknown refresh token's user: %v", err)
		}
		if _, live := check("f1"); !live {
			t.Fatal("a session with a live refresh token is not live")
		}
		if _, live := check("no-such-family"); live {
			t.Fatal("a session of no refresh token is live")
		}
		st.RevokeRefreshFamily(ctx, h("a1"))
		st.RevokeRefreshFamily(ctx, h("a1"))
		if g, live := check("f1"); g != 0 || live {
			t.Fatalf("after a logout and its repeat: generation %d, session live %v; want 0, ended", g, live)
		}
		if g, live := check("f0"); g != 0 || !live {
			t.Fatalf("the other session after a logout: generation %d, live %v", g, live)
		}
		st.CreateRefreshToken(ctx, u.ID, "f2", h("b1"), exp)
		st.RotateRefreshToken(ctx, h("b1"), h("b2"), exp)
		if g, live := check("f2"); g != 0 || !live {
			t.Fatalf("after a rotation: generation %d, live %v; want 0, live", g, live)
		}
		if _, err := st.RotateRefreshToken(ctx, h("b1"), h("b3"), exp); !errors.Is(err, models.ErrTokenReuse) {
			t.Fatalf("reuse: %v", err)
		}
		if g := gen(); g != 1 {
			t.Fatalf("after a reuse: generation %d, want 1", g)
		}
		st.CreateRefreshToken(ctx, u.ID, "f3", h("c1"), exp)
		st.CreateRefreshToken(ctx, u.ID, "f4", h("d1"), exp)
		if _, err := st.ChangePassword(ctx, u.ID, "not-the-hash", "hash-2"); !errors.Is(err, models.ErrConflict) {
			t.Fatalf("change from another hash: %v", err)
		}
		if g, err := st.ChangePassword(ctx, u.ID, "hash-ga", "hash-2"); err != nil || g != 2 {
			t.Fatalf("change: generation %d, %v; want 2", g, err)
		}
		if g, live := check("f3"); g != 2 || live {
			t.Fatalf("after the change: generation %d, session live %v; want 2, ended", g, live)
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

// TestTokenCheckAlongTheLock: a change made for an access token
// (MutateKeyed with a TokenCheck) hands Verify what AccessCheck reads, the
// generation and the session's state, before the change runs: for a live
// session, a session logged out, a user that does not exist (-1) and a
// game that does not exist (then ErrNotFound after a good check). A
// refusal from Verify runs no change and writes nothing; a change with no
// check runs as before.
func TestTokenCheckAlongTheLock(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		for i, outbox := range []models.Outbox{nil, nopOutbox{}} { // the lock reads the seats' users with one
			st.SetOutbox(outbox)
			tokenCheckAlongTheLock(t, st, fmt.Sprintf("tess%d", i), fmt.Sprintf("otto%d", i))
		}
	})
}

func tokenCheckAlongTheLock(t *testing.T, st *models.Store, player, other string) {
	ctx := context.Background()
	u := newUser(t, st, player)
	g := newGame(t, st, u, newUser(t, st, other))
	st.CreateRefreshToken(ctx, u.ID, "live", models.HashToken(player+"1"), time.Now().Add(time.Hour))
	st.CreateRefreshToken(ctx, u.ID, "gone", models.HashToken(player+"2"), time.Now().Add(time.Hour))
	st.RevokeRefreshFamily(ctx, models.HashToken(player+"2"))
	refused := errors.New("refused")
	type read struct {
		gen  int64
		live bool
	}
	change := func(game, uid int64, session string) (got read, ran bool, err error) {
		t.Helper()
		tok := &models.TokenCheck{UserID: uid, Session: session, Verify: func(gen int64, live bool) error {
			got = read{gen, live}
			return refused
		}}
		_, err = st.MutateKeyed(ctx, game, -1, models.Key{}, tok, func(cur *models.Game) (*models.Change, error) {
			ran = true
			cur.Version++
			return nil, nil
		})
		return got, ran, err
	}
	for _, c := range []struct {
		what    string
		game    int64
		uid     int64
		session string
		want    read
	}{
		{"a token of no session", g.ID, u.ID, "", read{0, true}},
		{"a live session", g.ID, u.ID, "live", read{0, true}},
		{"a session logged out", g.ID, u.ID, "gone", read{0, false}},
		{"a session never opened", g.ID, u.ID, "none", read{0, false}},
		{"a user that does not exist", g.ID, u.ID + 1000, "", read{-1, true}},
		{"a game that does not exist", g.ID + 1000, u.ID, "live", read{0, true}},
	} {
		got, ran, err := change(c.game, c.uid, c.session)
		if got != c.want || ran || !errors.Is(err, refused) {
			t.Errorf("%s: Verify got %+v, want %+v; change ran %v; %v", c.what, got, c.want, ran, err)
		}
	}
	if cur, _ := st.GameNoState(ctx, g.ID); cur.Version != g.Version {
		t.Fatalf("a refused change wrote version %d", cur.Version)
	}
	ok := &models.TokenCheck{UserID: u.ID, Session: "live", Verify: func(int64, bool) error { return nil }}
	if _, err := st.MutateKeyed(ctx, g.ID+1000, -1, models.Key{}, ok, func(*models.Game) (*models.Change, error) { return nil, nil }); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("a good token, a game that does not exist: %v", err)
	}
	if _, err := st.MutateKeyed(ctx, g.ID, -1, models.Key{}, ok, func(cur *models.Game) (*models.Change, error) {
		cur.Version++
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if cur, _ := st.GameNoState(ctx, g.ID); cur.Version != g.Version+1 {
		t.Fatalf("a good token's change: version %d, want %d", cur.Version, g.Version+1)
	}
}

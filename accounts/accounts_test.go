package accounts_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/refusal"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is the accounts on a fresh store.
type env struct {
	ctx   context.Context
	st    *models.Store
	acc   *accounts.Service
	clock *clock
}

func newEnv(t *testing.T, d models.Dialect, cfg accounts.Config) *env {
	t.Helper()
	clk := &clock{t: time.Date(2031, 3, 10, 12, 0, 0, 0, time.UTC)}
	st := modelstest.Open(t, d, models.Options{Now: clk.Now})
	cfg.Secret, cfg.Issuer, cfg.Audience = []byte("accounts-test-secret-0123456789abcdef"), "dm", "dm-api"
	if cfg.Kinds == nil {
		cfg.Kinds, cfg.Channels = []string{"your_turn", "digest"}, []string{"email", "webhook"}
	}
	return &env{ctx: context.Background(), st: st, acc: accounts.New(st, play.New(st, clk.Now, nil), cfg, nil, clk.Now), clock: clk}
}

// eachDB runs f on SQLite and, with TEST_DATABASE_URL, on Postgres.
func eachDB(t *testing.T, cfg accounts.Config, f func(t *testing.T, e *env)) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		f(t, newEnv(t, d, cfg))
	})
}

// user registers name with password.
func (e *env) user(t *testing.T, name, password string) *models.User {
	t.Helper()
	u := &models.User{Username: name, Email: name + "@example.com"}
	if err := e.acc.CreateUser(e.ctx, u, e.acc.Hash(password), "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	return u
}

func kindOf(err error) refusal.Kind { return refusal.KindOf(err) }

// TestSignIn: failed sign-ins count against the account from any client
// and against the client for any account; a right password gives its
// attempts back; an unknown name is refused as a wrong password is.
func TestSignIn(t *testing.T) {
	eachDB(t, accounts.Config{LoginBurst: 3, LoginAddressBurst: 5}, func(t *testing.T, e *env) {
		e.user(t, "ana", "ana password")
		for range 5 {
			if _, _, err := e.acc.SignIn(e.ctx, "192.0.2.1", "ana", "ana password"); err != nil {
				t.Fatalf("right password: %v", err)
			}
		}
		for i := range 3 {
			_, tally, err := e.acc.SignIn(e.ctx, "192.0.2."+string(rune('2'+i)), "ana", "wrong")
			if !errors.Is(err, accounts.ErrBadCredentials) || len(tally.States) != 2 || tally.States[1].Left != 2-i {
				t.Fatalf("wrong password %d: %v %+v", i, err, tally)
			}
		}
		_, tally, err := e.acc.SignIn(e.ctx, "192.0.2.9", "ana", "ana password")
		var rl *refusal.RateLimitError
		if !errors.As(err, &rl) || rl.RetryAfter() < 1 || len(tally.Limits) != 2 || len(tally.States) != 2 || tally.States[1].Wait == 0 {
			t.Fatalf("a fourth attempt for ana: %v %+v", err, tally)
		}
		if tally.States[0].Left != 5 {
			t.Fatalf("the refused attempt still counts for its client: %+v", tally.States[0])
		}
		if _, _, err := e.acc.SignIn(e.ctx, "192.0.2.9", "nobody", "x"); !errors.Is(err, accounts.ErrBadCredentials) {
			t.Fatalf("an unknown name: %v", err)
		}
		e.clock.Add(time.Minute)
		if u, _, err := e.acc.SignIn(e.ctx, "192.0.2.9", "ana", "ana password"); err != nil || u.Username != "ana" {
			t.Fatalf("a minute later: %v %v", u, err)
		}
		if err := e.acc.CreateUser(e.ctx, &models.User{Username: "ana"}, "x", ""); kindOf(err) != refusal.Conflict {
			t.Fatalf("ana again: %v", err)
		}
	})
}

// TestPasswords: argon2id hashes check, and a wrong password or another
// hash do not.
func TestPasswords(t *testing.T) {
	e := newEnv(t, models.SQLite, accounts.Config{})
	u := e.user(t, "bob", "bob password")
	if _, _, err := e.acc.CheckPassword(e.ctx, "c", u, "bob password"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.acc.CheckPassword(e.ctx, "c", u, "Bob password"); !errors.Is(err, accounts.ErrWrongPassword) {
		t.Fatalf("wrong password: %v", err)
	}
	s, _, err := e.acc.ChangePassword(e.ctx, "c", u.ID, "bob password", "new password")
	if err != nil || s.Access == "" || s.Refresh == "" {
		t.Fatalf("change: %+v %v", s, err)
	}
	if _, _, err := e.acc.SignIn(e.ctx, "c", "bob", "bob password"); !errors.Is(err, accounts.ErrBadCredentials) {
		t.Fatalf("the old password: %v", err)
	}
	if _, _, err := e.acc.SignIn(e.ctx, "c", "bob", "new password"); err != nil {
		t.Fatalf("the new password: %v", err)
	}
	for pw, ok := range map[string]bool{"1234567": false, "12345678": true, string(make([]byte, 257)): false} {
		if accounts.ValidPassword(pw) != ok {
			t.Errorf("ValidPassword(%d bytes) = %v", len(pw), !ok)
		}
	}
}

// TestPasswordCost: a hash records its cost, so that one made cheaper
// (as the other packages' tests make theirs) checks, and a wrong password
// against it does not; a server's own hash is at OWASP's minimum.
func TestPasswordCost(t *testing.T) {
	if h := accounts.HashPassword("x"); !strings.Contains(h, "$m=19456,t=2,p=1$") {
		t.Errorf("HashPassword = %s, not OWASP's minimum", h)
	}
	e := newEnv(t, models.SQLite, accounts.Config{Hash: func(p string) string { return accounts.HashPasswordCost(p, 1, 64) }})
	u := e.user(t, "bob", "bob password")
	if _, _, err := e.acc.CheckPassword(e.ctx, "c", u, "bob password"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.acc.CheckPassword(e.ctx, "c", u, "bob passwore"); !errors.Is(err, accounts.ErrWrongPassword) {
		t.Fatalf("wrong password: %v", err)
	}
}

// TestUnknownNameCostsAsMuch: an unknown username is checked against a
// dummy hash that Config.Hash makes, once, at the cost of the accounts'
// hashes, so that it takes as long as a wrong password at any configured
// cost; sign-ins at once share that one dummy.
func TestUnknownNameCostsAsMuch(t *testing.T) {
	var mu sync.Mutex
	var made []string
	hash := func(p string) string {
		h := accounts.HashPasswordCost(p, 1, 64)
		mu.Lock()
		made = append(made, h)
		mu.Unlock()
		return h
	}
	e := newEnv(t, models.SQLite, accounts.Config{Hash: hash, LoginBurst: 100, LoginAddressBurst: 100})
	e.user(t, "ana", "ana password")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, _, err := e.acc.SignIn(e.ctx, "192.0.2.1", "nobody"+strconv.Itoa(i), "ana password"); !errors.Is(err, accounts.ErrBadCredentials) {
				t.Errorf("unknown name %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if _, _, err := e.acc.SignIn(e.ctx, "192.0.2.1", "", ""); !errors.Is(err, accounts.ErrBadCredentials) {
		t.Fatalf("an empty name: %v", err)
	}
	if len(made) != 2 {
		t.Fatalf("Config.Hash made %d hashes for one account and nine unknown names, want 2 (the account's and one dummy)", len(made))
	}
	cost := func(h string) string { return strings.Split(h, "$")[3] }
	if cost(made[1]) != cost(made[0]) || cost(made[0]) != "m=64,t=1,p=1" {
		t.Fatalf("the dummy's cost %s, the account's %s", cost(made[1]), cost(made[0]))
	}
}

// TestTokens: an access token names its user until a password change or
// "sign out everywhere" ends it; a refresh token rotates, and its reuse
// ends the session; every access token signed is counted.
func TestTokens(t *testing.T) {
	eachDB(t, accounts.Config{}, func(t *testing.T, e *env) {
		u := e.user(t, "ana", "ana password")
		s, err := e.acc.StartSession(e.ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if uid, err := e.acc.AccessUser(e.ctx, s.Access); err != nil || uid != u.ID {
			t.Fatalf("access: %d %v", uid, err)
		}
		if _, err := e.acc.AccessUser(e.ctx, s.Access+"x"); !errors.Is(err, accounts.ErrBadToken) {
			t.Fatalf("a forged token: %v", err)
		}
		next, err := e.acc.Refresh(e.ctx, s.Refresh)
		if err != nil || next.Refresh == s.Refresh {
			t.Fatalf("refresh: %+v %v", next, err)
		}
		if _, err := e.acc.Refresh(e.ctx, s.Refresh); !errors.Is(err, models.ErrTokenReuse) {
			t.Fatalf("reuse: %v", err)
		}
		if _, err := e.acc.AccessUser(e.ctx, next.Access); !errors.Is(err, accounts.ErrTokenEnded) {
			t.Fatalf("after a reuse: %v", err)
		}
		if e.acc.AccessTokensIssued() != 2 {
			t.Fatalf("%d access tokens counted", e.acc.AccessTokensIssued())
		}
		tok, secret, err := accounts.NewToken(u.ID, "bot", []string{"play", "read", "play"})
		if err != nil || tok.Scopes != "play,read" || !accounts.IsAPIToken(secret) {
			t.Fatalf("new token: %+v %q %v", tok, secret, err)
		}
		if err := e.acc.SaveToken(e.ctx, tok); err != nil {
			t.Fatal(err)
		}
		if got, err := e.acc.APIToken(e.ctx, secret); err != nil || got.ID != tok.ID {
			t.Fatalf("the token by its secret: %v %v", got, err)
		}
		if err := e.acc.RevokeToken(e.ctx, u.ID, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.acc.APIToken(e.ctx, secret); !errors.Is(err, models.ErrInvalidToken) {
			t.Fatalf("a revoked token: %v", err)
		}
		if _, _, err := accounts.NewToken(u.ID, "bot", []string{"admin"}); kindOf(err) != refusal.Invalid {
			t.Fatalf("scope admin: %v", err)
		}
	})
}

// TestWebSessions: a browser session is extended in the second half of
// its life, ends by itself after SessionTTL unused, and a sign-in link
// starts one once.
func TestWebSessions(t *testing.T) {
	e := newEnv(t, models.SQLite, accounts.Config{SessionTTL: 10 * time.Hour})
	u := e.user(t, "ana", "x")
	raw, err := e.acc.StartWebSession(e.ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a, ext, err := e.acc.WebSession(e.ctx, raw); err != nil || ext || a.ID != u.ID || a.TimeZone != "Europe/Paris" {
		t.Fatalf("fresh: %+v %v %v", a, ext, err)
	}
	e.clock.Add(6 * time.Hour)
	if _, ext, err := e.acc.WebSession(e.ctx, raw); err != nil || !ext {
		t.Fatalf("after 6 of 10 hours: %v %v", ext, err)
	}
	e.clock.Add(9 * time.Hour) // 15 hours in, 9 after the extension
	if _, _, err := e.acc.WebSession(e.ctx, raw); err != nil {
		t.Fatalf("extended: %v", err)
	}
	e.clock.Add(11 * time.Hour)
	if _, _, err := e.acc.WebSession(e.ctx, raw); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("unused for 11 hours: %v", err)
	}
	nonce := []byte("0123456789ab")
	if _, err := e.acc.SignInWithLink(e.ctx, nonce, e.clock.Now().Add(time.Hour), u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.acc.SignInWithLink(e.ctx, nonce, e.clock.Now().Add(time.Hour), u.ID); !errors.Is(err, accounts.ErrLinkUsed) {
		t.Fatalf("the link again: %v", err)
	}
}

// TestVacations: the allowance, overlaps and ends.
func TestVacations(t *testing.T) {
	eachDB(t, accounts.Config{}, func(t *testing.T, e *env) {
		u := e.user(t, "ana", "x")
		now := e.clock.Now()
		book := func(from, to time.Time) (models.Vacation, error) {
			v, err := e.acc.NewVacation(u.ID, &from, to)
			if err == nil {
				err = e.acc.BookVacation(e.ctx, &v)
			}
			return v, err
		}
		v, err := book(now.Add(24*time.Hour), now.Add(3*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := book(now.Add(2*24*time.Hour), now.Add(4*24*time.Hour)); kindOf(err) != refusal.Conflict {
			t.Fatalf("an overlap: %v", err)
		}
		if _, err := book(now.Add(5*24*time.Hour), now.Add(25*24*time.Hour)); kindOf(err) != refusal.Invalid {
			t.Fatalf("past the allowance: %v", err)
		}
		if _, err := e.acc.NewVacation(u.ID, nil, now.Add(-time.Hour)); kindOf(err) != refusal.Invalid {
			t.Fatalf("ending in the past: %v", err)
		}
		list, err := e.acc.Vacations(e.ctx, u.ID)
		if err != nil || len(list.Vacations) != 1 || list.Left != 19*24*time.Hour {
			t.Fatalf("list: %+v %v", list, err)
		}
		if moved, err := e.acc.MoveVacationEnd(e.ctx, u.ID, v.ID, now.Add(2*24*time.Hour)); err != nil || !moved.EndsAt.Equal(now.Add(2*24*time.Hour)) {
			t.Fatalf("moved: %+v %v", moved, err)
		}
		if err := e.acc.EndVacation(e.ctx, u.ID, v.ID); err != nil {
			t.Fatal(err)
		}
		if list, _ := e.acc.Vacations(e.ctx, u.ID); len(list.Vacations) != 0 || list.Left != 21*24*time.Hour {
			t.Fatalf("after ending the coming one: %+v", list)
		}
	})
}

// TestPreferences: every kind on every channel, on but for the digest,
// whose hours are kept; unknown names and hours off the digest are
// refused.
func TestPreferences(t *testing.T) {
	e := newEnv(t, models.SQLite, accounts.Config{})
	u := e.user(t, "ana", "x")
	ps, err := e.acc.Preferences(e.ctx, u.ID)
	if err != nil || len(ps) != 4 {
		t.Fatalf("%+v %v", ps, err)
	}
	for _, p := range ps {
		if p.Enabled != (p.Kind != "digest") || (p.Hours != 0) != (p.Kind == "digest" && p.Channel == "email") {
			t.Fatalf("default %+v", p)
		}
	}
	if err := e.acc.SetPreferences(e.ctx, u.ID, []accounts.Preference{{Kind: "digest", Channel: "email", Enabled: true, Hours: 8}}); err != nil {
		t.Fatal(err)
	}
	ps, _ = e.acc.Preferences(e.ctx, u.ID)
	if ps[2] != (accounts.Preference{Kind: "digest", Channel: "email", Enabled: true, Hours: 8}) {
		t.Fatalf("digest %+v", ps[2])
	}
	for _, bad := range []accounts.Preference{{Kind: "nonsense", Channel: "email"}, {Kind: "your_turn", Channel: "email", Hours: 3},
		{Kind: "digest", Channel: "email", Hours: 169}} {
		if err := e.acc.SetPreferences(e.ctx, u.ID, []accounts.Preference{bad}); kindOf(err) != refusal.Invalid {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
}

// TestCalendarFeed: the feed's token names its user until renewed or
// revoked, and is shown again as made.
func TestCalendarFeed(t *testing.T) {
	e := newEnv(t, models.SQLite, accounts.Config{})
	u := e.user(t, "ana", "x")
	if _, err := e.acc.CalendarFeed(e.ctx, u.ID); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("no feed: %v", err)
	}
	f, err := e.acc.NewCalendarFeed(e.ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := e.acc.CalendarFeed(e.ctx, u.ID); err != nil || again.Token != f.Token {
		t.Fatalf("shown again: %+v %v", again, err)
	}
	if got := f.WebcalURL("https://dm.example/"); got != "webcal://dm.example/v1/calendar/"+f.Token+".ics" {
		t.Fatalf("webcal %q", got)
	}
	if uid, err := e.acc.FeedUser(e.ctx, f.Token); err != nil || uid != u.ID {
		t.Fatalf("feed user: %d %v", uid, err)
	}
	renewed, _ := e.acc.NewCalendarFeed(e.ctx, u.ID)
	if _, err := e.acc.FeedUser(e.ctx, f.Token); !errors.Is(err, models.ErrNotFound) || renewed.Token == f.Token {
		t.Fatalf("the old address after a renewal: %v", err)
	}
}

// TestFormsAndDeletion: a form's budget per subject, and a deleted
// account that no one signs in to.
func TestFormsAndDeletion(t *testing.T) {
	e := newEnv(t, models.SQLite, accounts.Config{LoginBurst: 2})
	u := e.user(t, "ana", "ana password")
	for i := range 3 {
		_, err := e.acc.CountForm(e.ctx, "verify", "client "+string(rune('a'+i)), "ANA")
		if (err != nil) != (i == 2) {
			t.Fatalf("verify %d: %v", i, err)
		}
	}
	if _, err := e.acc.CountForm(e.ctx, "invite", "c", "ana"); err != nil {
		t.Fatalf("another form's budget: %v", err)
	}
	if err := e.acc.Delete(e.ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.acc.SignIn(e.ctx, "c", "ana", "ana password"); !errors.Is(err, accounts.ErrBadCredentials) {
		t.Fatalf("a deleted account: %v", err)
	}
}

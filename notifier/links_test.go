package notifier

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestLinkSignParseValid(t *testing.T) {
	t.Parallel()
	secret := []byte("link secret")
	exp := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	l := Link{Purpose: LinkSignIn, UserID: 42, GameID: 7, Expires: exp, Nonce: NewNonce()}
	tok := l.Sign(secret, nil)
	if strings.ContainsAny(tok, "+/=?&# ") || len(tok) > 80 {
		t.Fatalf("token %q is not short and URL-safe", tok)
	}
	p, err := ParseLink(tok)
	if err != nil || p.UserID != 42 || p.GameID != 7 || !p.Expires.Equal(exp) || !bytes.Equal(p.Nonce, l.Nonce) {
		t.Fatalf("ParseLink = %+v, %v", p, err)
	}
	if !p.Valid(secret, LinkSignIn, nil) {
		t.Fatal("a link made with the secret is not valid")
	}
	if p.Valid([]byte("other secret"), LinkSignIn, nil) || p.Valid(secret, LinkReset, nil) || p.Valid(secret, LinkSignIn, []byte("x")) {
		t.Fatal("a link is valid with another secret, purpose or binding")
	}
	if p.Expired(exp.Add(-time.Second)) || !p.Expired(exp) {
		t.Fatal("expiry")
	}
	// Changing any character makes it malformed or not valid.
	for i := range tok {
		for _, c := range []byte{'A', 'z', '-'} {
			if tok[i] == c {
				continue
			}
			bad := tok[:i] + string(c) + tok[i+1:]
			if q, err := ParseLink(bad); err == nil && q.Valid(secret, LinkSignIn, nil) {
				t.Fatalf("the token with %q at %d is still valid", c, i)
			}
		}
	}
	for _, bad := range []string{"", "x", tok[:len(tok)-1], tok + "A", strings.Repeat("A", 300), "!!!"} {
		if q, err := ParseLink(bad); err == nil && q.Valid(secret, LinkSignIn, nil) {
			t.Fatalf("%q is valid", bad)
		}
	}
	// A bound link holds only for the same bytes.
	v := Link{Purpose: LinkVerify, UserID: 42, Expires: exp}.Sign(secret, []byte("ana@example.com"))
	q, err := ParseLink(v)
	if err != nil || !q.Valid(secret, LinkVerify, []byte("ana@example.com")) || q.Valid(secret, LinkVerify, []byte("eve@example.com")) {
		t.Fatalf("bound link: %v", err)
	}
}

func TestSignInURLExpiry(t *testing.T) {
	t.Parallel()
	secret := []byte("link secret")
	now := time.Date(2026, 12, 1, 10, 0, 0, 500_000_000, time.UTC)
	for _, tc := range []struct {
		deadline, want time.Time
	}{
		{time.Time{}, now.Add(SignInTTL).Truncate(time.Second).Add(time.Second)},
		{now.Add(3 * time.Hour), now.Add(3 * time.Hour).Truncate(time.Second).Add(time.Second)},
		{now.Add(30 * 24 * time.Hour), now.Add(SignInTTL).Truncate(time.Second).Add(time.Second)},
		{now.Add(2 * time.Hour).Truncate(time.Second), now.Add(2 * time.Hour).Truncate(time.Second)},
	} {
		u, err := url.Parse(SignInURL("https://dm.example/", secret, 3, 9, tc.deadline, now))
		if err != nil || u.Host != "dm.example" || u.Path != SignInPath {
			t.Fatalf("URL %v, %v", u, err)
		}
		l, err := ParseLink(u.Query().Get("t"))
		if err != nil || !l.Valid(secret, LinkSignIn, nil) || l.UserID != 3 || l.GameID != 9 || len(l.Nonce) != 12 {
			t.Fatalf("link %+v, %v", l, err)
		}
		if !l.Expires.Equal(tc.want) {
			t.Errorf("deadline %v: expires %v, want %v", tc.deadline, l.Expires, tc.want)
		}
	}
	a := SignInURL("https://dm.example", secret, 3, 9, time.Time{}, now)
	b := SignInURL("https://dm.example", secret, 3, 9, time.Time{}, now)
	if a == b {
		t.Fatal("two links share a nonce")
	}
}

func TestWithSignIn(t *testing.T) {
	t.Parallel()
	secret := []byte("link secret")
	now := time.Now()
	common := Common{GameID: "9", GameURL: GameURL("https://dm.example", 9)}
	signs := func(d Data) bool {
		return strings.Contains(WithSignIn(d, "https://dm.example", secret, 3, now).base().GameURL, SignInPath+"?t=")
	}
	for _, tc := range []struct {
		d    Data
		want bool
	}{
		{YourTurn{Common: common}, true},
		{PromptWaiting{Common: common}, true},
		{DeadlineReminder{Common: common}, true},
		{GameStarted{Common: common, YourTurn: true}, true},
		{GameStarted{Common: common}, false},
		{GameOver{Common: common}, false},
		{Invitation{Common: common}, false},
		{TimeoutApplied{Common: common}, false},
		{YourTurn{Common: Common{GameURL: "https://dm.example/games/9"}}, false}, // no game id
	} {
		if got := signs(tc.d); got != tc.want {
			t.Errorf("%s: signs in %v, want %v", tc.d.Kind(), got, tc.want)
		}
	}
	if d := WithSignIn(YourTurn{Common: common}, "https://dm.example", nil, 3, now); d.base().GameURL != common.GameURL {
		t.Fatal("without a secret the link changed")
	}
}

// TestActionURL: an action link names its game, version, line and the
// digest of its email's lines; its token holds only for those three, for
// the link's purpose, and expires as a sign-in link does.
func TestActionURL(t *testing.T) {
	t.Parallel()
	secret := []byte("link secret")
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	deadline := now.Add(5 * time.Hour)
	u, err := url.Parse(ActionURL("https://dm.example/", secret, 3, 9, 41, 2, 77, deadline, now))
	if err != nil || u.Host != "dm.example" || u.Path != "/games/9"+ActionPath || u.Query().Get("v") != "41" || u.Query().Get("n") != "2" ||
		u.Query().Get("d") != "77" {
		t.Fatalf("URL %v, %v", u, err)
	}
	l, err := ParseLink(u.Query().Get("t"))
	if err != nil || l.UserID != 3 || l.GameID != 9 || !l.Expires.Equal(deadline) || len(l.Nonce) != 12 {
		t.Fatalf("link %+v, %v", l, err)
	}
	if !l.Valid(secret, LinkAction, ActionBound(41, 2, 77)) {
		t.Fatal("the link is not valid for its version and line")
	}
	for _, b := range [][]byte{ActionBound(41, 3, 77), ActionBound(42, 2, 77), ActionBound(4, 12, 77), ActionBound(41, 2, 78),
		ActionBound(41, 2, 0), ActionBound(41, 27, 7), nil} {
		if l.Valid(secret, LinkAction, b) {
			t.Fatalf("the link holds for %q too", b)
		}
	}
	if l.Valid(secret, LinkSignIn, ActionBound(41, 2, 77)) {
		t.Fatal("an action link passes for a sign-in link")
	}
}

// TestReplyExpiry: a reply address expires at the deadline or after
// ReplyTTL, whichever comes first, rounded up to the second.
func TestReplyExpiry(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 10, 0, 0, 500_000_000, time.UTC)
	for _, tc := range []struct {
		deadline, want time.Time
	}{
		{time.Time{}, now.Add(ReplyTTL).Truncate(time.Second).Add(time.Second)},
		{now.Add(3 * time.Hour), now.Add(3 * time.Hour).Truncate(time.Second).Add(time.Second)},
		{now.Add(90 * 24 * time.Hour), now.Add(ReplyTTL).Truncate(time.Second).Add(time.Second)},
		{now.Add(2 * time.Hour).Truncate(time.Second), now.Add(2 * time.Hour).Truncate(time.Second)},
	} {
		if got := ReplyExpiry(tc.deadline, now); !got.Equal(tc.want) {
			t.Errorf("deadline %v: expires %v, want %v", tc.deadline, got, tc.want)
		}
	}
}

package notifier

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/internal/pushtest"
	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river/rivertype"
)

// guardedPushSender is a sender as production runs it: private and
// loopback addresses refused.
func guardedPushSender(t *testing.T) (*PushSender, PushConfig) {
	t.Helper()
	cfg := testPushConfig(t)
	p, err := NewPushSender(cfg, WebhookOptions{Timeout: 2 * time.Second, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return p, cfg
}

// loopbackNames are host names of this machine that resolve to a loopback
// or private address without DNS (from /etc/hosts): the machine's own
// name, as an attacker would try.
func loopbackNames(t *testing.T) []string {
	var out []string
	host, err := os.Hostname()
	if err != nil || host == "" || strings.EqualFold(host, "localhost") {
		return out
	}
	addrs, err := net.LookupHost(host)
	if err != nil {
		return out
	}
	for _, a := range addrs {
		if ip, err := netip.ParseAddr(a); err == nil && ForbiddenIP(ip) {
			return append(out, host)
		}
	}
	return out
}

// TestAttackPushSSRFAtSend points subscriptions at a push service on
// 127.0.0.1, the way an attacker would reach an internal service from the
// server: the literal address, localhost, the machine's own name (which
// the registration cannot see through: it resolves names only when it
// dials), odd spellings of 127.0.0.1 (short, decimal, hexadecimal,
// octal), IPv4-mapped IPv6, 0.0.0.0 (which Linux connects to the local
// host), IPv6 loopback, and user info. What must hold, with the guard on:
// no request ever reaches the service, the attempt is not "sent", and one
// refused by the guard counts as a gone subscription (deleted, never
// retried); the registration check refuses every literal one.
func TestAttackPushSSRFAtSend(t *testing.T) {
	p, _ := guardedPushSender(t)
	ps := pushtest.NewService(t)
	b := pushtest.NewSubscriber(t, ps, "victim")
	u, err := url.Parse(ps.URL)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	literal := []string{
		ps.URL + b.Path,
		"https://127.0.0.1:" + port + b.Path,
		"https://localhost:" + port + b.Path,
		"https://LOCALHOST.:" + port + b.Path,
		"https://[::1]:" + port + b.Path,
		"https://[::ffff:127.0.0.1]:" + port + b.Path,
		"https://[::ffff:7f00:1]:" + port + b.Path,
		"https://[64:ff9b::7f00:1]:" + port + b.Path,
		"https://[2002:7f00:1::]:" + port + b.Path,
		"https://0.0.0.0:" + port + b.Path,
		"https://[::]:" + port + b.Path,
		"https://169.254.169.254/latest/meta-data/",
		"https://[fe80::1%25lo]:" + port + b.Path,
		"https://10.0.0.1" + b.Path,
		"https://push.example@127.0.0.1:" + port + b.Path,
		"https://127.0.0.1:" + port + "@push.example" + b.Path,
	}
	spelled := []string{
		"https://127.1:" + port + b.Path,
		"https://2130706433:" + port + b.Path,
		"https://0x7f000001:" + port + b.Path,
		"https://0177.0.0.1:" + port + b.Path,
		"https://0:" + port + b.Path,
	}
	for _, n := range loopbackNames(t) {
		spelled = append(spelled, "https://"+n+":"+port+b.Path, "http://"+n+":"+port+b.Path)
	}
	for _, ep := range literal {
		if err := CheckPushSubscription(ep, b.P256dh(), b.Auth(), false); err == nil {
			t.Errorf("registration takes %s", ep)
		}
	}
	for _, ep := range append(literal, spelled...) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res := p.Send(ctx, PushTarget{Endpoint: ep, P256dh: b.P256dh(), Auth: b.Auth()}, PushMessage{Title: "t", Body: "b", Kind: KindYourTurn}, true)
		cancel()
		t.Logf("%s: outcome %d, %v", ep, res.Outcome, res.Err)
		if res.Outcome == PushSent || res.Status != 0 {
			t.Errorf("%s: sent (%d %v)", ep, res.Status, res.Err)
		}
		if errors.Is(res.Err, ErrForbiddenTarget) && res.Outcome != PushGone {
			t.Errorf("%s: refused by the guard, but outcome %d (want gone)", ep, res.Outcome)
		}
	}
	if got := ps.Requests(""); len(got) != 0 {
		t.Fatalf("%d requests reached the internal service: %+v", len(got), got[0].Path)
	}
}

// TestAttackPushNameResolvingToLoopback registers, as the API would, a
// subscription whose endpoint is a host name that resolves to the
// loopback address (the registration takes it: it does not resolve
// names), and lets a game's invitation push to it through the outbox with
// the guard on. What must hold: nothing reaches the internal service, and
// the subscription is deleted after that one attempt rather than retried
// for a day.
func TestAttackPushNameResolvingToLoopback(t *testing.T) {
	names := loopbackNames(t)
	if len(names) == 0 {
		names = []string{"localhost"}
	}
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		p, _ := guardedPushSender(t)
		e.cfg.Push = p
		ps := pushtest.NewService(t)
		b := pushtest.NewSubscriber(t, ps, "ben")
		u, _ := url.Parse(ps.URL)
		sub := &models.PushSubscription{UserID: e.users[1].ID, Endpoint: "https://" + names[0] + ":" + u.Port() + b.Path,
			P256dh: b.P256dh(), Auth: b.Auth()}
		if names[0] != "localhost" {
			if err := p.CheckSubscription(sub.Endpoint, sub.P256dh, sub.Auth); err != nil {
				t.Logf("the registration refuses %s already: %v", sub.Endpoint, err)
			}
		}
		if _, err := e.st.SavePushSubscription(ctx, sub); err != nil {
			t.Fatal(err)
		}
		o := e.outbox(t, true)
		e.createGame(t) // invites ben
		waitFor(t, "the push job to end", func() bool {
			jobs := pushJobs(t, o)
			return len(jobs[rivertype.JobStateCancelled])+len(jobs[rivertype.JobStateCompleted])+len(jobs[rivertype.JobStateDiscarded]) == 1
		})
		if got := ps.Requests(""); len(got) != 0 {
			t.Fatalf("a push reached the internal service at %s", got[0].Path)
		}
		if _, err := e.st.PushSubscriptionByID(ctx, sub.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("a subscription that resolves to loopback is kept: %v", err)
		}
		if n := len(pushJobs(t, o)[rivertype.JobStateRetryable]); n != 0 {
			t.Errorf("%d pushes to loopback wait for a retry", n)
		}
	})
}

// TestAttackPushRedirects: a push service (here one the test runs, the
// guard lifted to reach it) that answers a push with a redirect to
// another server, or to a non-http scheme or a URL with user info. What
// must hold: a 301, 302 or 303 is not followed (following would turn the
// POST into a GET to wherever the service points); a 307 to a file:,
// gopher: or user-info URL is refused; the other server gets nothing; the
// push is not counted as sent.
func TestAttackPushRedirects(t *testing.T) {
	cfg := testPushConfig(t)
	p, err := NewPushSender(cfg, WebhookOptions{AllowPrivate: true, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	target := pushtest.NewService(t)
	tu, _ := url.Parse(target.URL)
	b := pushtest.NewSubscriber(t, target, "b")
	for _, c := range []struct {
		status   int
		location string
	}{
		{http.StatusMovedPermanently, target.URL + b.Path},
		{http.StatusFound, target.URL + b.Path},
		{http.StatusSeeOther, target.URL + b.Path},
		{http.StatusTemporaryRedirect, "file:///etc/passwd"},
		{http.StatusTemporaryRedirect, "gopher://" + tu.Host + b.Path},
		{http.StatusPermanentRedirect, "http://user:secret@" + tu.Host + b.Path},
	} {
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, c.location, c.status)
		}))
		res := p.Send(context.Background(), PushTarget{Endpoint: redirector.URL + "/push/x", P256dh: b.P256dh(), Auth: b.Auth()},
			PushMessage{Title: "t", Body: "b", Kind: KindYourTurn}, false)
		redirector.Close()
		if res.Outcome == PushSent {
			t.Errorf("%d to %s: counted as sent (%d)", c.status, c.location, res.Status)
		}
	}
	if got := target.Requests(""); len(got) != 0 {
		t.Fatalf("%d requests followed a redirect to the other server", len(got))
	}
}

// TestAttackPushKeysAsAccepted: what the registration accepts of a
// subscription's keys, a careless client may send in forms other than a
// browser's: base64url with its padding, standard base64, surrounding
// white space or a trailing newline (pasted). What must hold: a key form
// that CheckPushSubscription takes is one the sender can use, so that the
// subscription it lets in receives pushes its browser can decrypt (else
// the player is told "on" and never gets a push, and nothing ever removes
// the subscription).
func TestAttackPushKeysAsAccepted(t *testing.T) {
	cfg := testPushConfig(t)
	p, err := NewPushSender(cfg, WebhookOptions{AllowPrivate: true, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ps := pushtest.NewService(t)
	forms := map[string]func([]byte) string{
		"base64url":        base64.RawURLEncoding.EncodeToString,
		"padded base64url": base64.URLEncoding.EncodeToString,
		"standard base64":  base64.StdEncoding.EncodeToString,
		"raw standard":     base64.RawStdEncoding.EncodeToString,
		"trailing newline": func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) + "\n" },
		"surrounding space": func(b []byte) string {
			return " " + base64.RawURLEncoding.EncodeToString(b) + " "
		},
		"padded, newline": func(b []byte) string { return base64.URLEncoding.EncodeToString(b) + "\r\n" },
	}
	i := 0
	for name, enc := range forms {
		i++
		b := pushtest.NewSubscriber(t, ps, "form"+string(rune('a'+i)))
		key, auth := enc(b.Key.PublicKey().Bytes()), enc(b.Secret)
		if err := CheckPushSubscription(b.Endpoint, key, auth, true); err != nil {
			continue // refused at the door: fine
		}
		res := p.Send(context.Background(), PushTarget{Endpoint: b.Endpoint, P256dh: key, Auth: auth},
			PushMessage{Title: "Game #1: ana, ben", Body: "It is your turn.", Kind: KindYourTurn, GameID: 1}, true)
		if res.Outcome != PushSent {
			t.Errorf("%s: the registration takes the keys, the sender fails: %d %v", name, res.Status, res.Err)
			continue
		}
		got := ps.Requests(b.Path)
		if len(got) != 1 {
			t.Fatalf("%s: %d pushes", name, len(got))
		}
		plain, err := b.Decrypt(got[0].Body)
		var m PushMessage
		if err != nil || json.Unmarshal(plain, &m) != nil || m.Body != "It is your turn." {
			t.Errorf("%s: the browser cannot read its push: %v %q", name, err, plain)
		}
	}
}

// TestAttackPushMovedSubscription: ben's browser is signed in to ana's
// account (the endpoint posted again by ana moves to her, as designed)
// after a change of ben's game wrote his push jobs but before they ran.
// What must hold: ben's notifications (his game, his turn) never reach
// the browser that is now ana's, and ana's subscription stays.
func TestAttackPushMovedSubscription(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		e.withPush(t)
		ps := pushtest.NewService(t)
		b := pushtest.NewSubscriber(t, ps, "shared")
		ben, ana := e.users[1], e.users[0]
		sub := subscribe(t, e.st, b, ben)
		o := e.outbox(t, false)
		e.createGame(t) // invites ben: his push job is written
		if n := len(pushJobs(t, o)[rivertype.JobStateAvailable]); n != 1 {
			t.Fatalf("%d push jobs written, want ben's one", n)
		}
		moved := &models.PushSubscription{UserID: ana.ID, Endpoint: b.Endpoint, P256dh: b.P256dh(), Auth: b.Auth()}
		if created, err := e.st.SavePushSubscription(ctx, moved); err != nil || created || moved.ID != sub.ID {
			t.Fatalf("moving the endpoint: created %v, id %d (was %d), %v", created, moved.ID, sub.ID, err)
		}
		if err := o.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			o.Stop(sctx)
		})
		waitFor(t, "ben's push job to end", func() bool { return pushesPending(t, o) == 0 })
		if got := ps.Requests(b.Path); len(got) != 0 {
			t.Fatalf("ben's push reached the browser that is ana's now")
		}
		if s, err := e.st.PushSubscriptionByID(ctx, sub.ID); err != nil || s.UserID != ana.ID {
			t.Fatalf("ana's subscription after ben's job: %+v %v", s, err)
		}
	})
}

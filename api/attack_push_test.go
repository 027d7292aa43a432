package api_test

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestAttackPushRegistration posts subscriptions an attacker or a careless
// client would: endpoints that point the server at itself or its network
// (loopback, IPv6 and IPv4-mapped loopback, link-local and the cloud
// metadata address, private and carrier-grade NAT ranges, 0.0.0.0, NAT64
// and 6to4 forms, localhost by any spelling), user info that hides the
// real host, schemes other than https, no host at all, an endpoint past
// the size limit; keys that are no P-256 point, compressed, of the wrong
// size or not base64; fields of the wrong JSON type. What must hold: each
// is refused with a client error (422 or 400) and none is stored; the
// caller's list stays empty.
func TestAttackPushRegistration(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		e, _ := pushEnv(t, d)
		ana := e.register("ana")
		enc := base64.RawURLEncoding.EncodeToString
		k, _ := ecdh.P256().GenerateKey(rand.Reader)
		pub := k.PublicKey().Bytes()
		compressed := append([]byte{2 + pub[64]&1}, pub[1:33]...)
		for _, ep := range []string{
			"https://127.0.0.1/x", "https://127.255.255.254/x", "https://[::1]/x", "https://[::ffff:127.0.0.1]/x",
			"https://[::ffff:7f00:1]/x", "https://[0:0:0:0:0:ffff:127.0.0.1]/x", "https://169.254.169.254/latest/meta-data/",
			"https://[::ffff:169.254.169.254]/x", "https://[fe80::1%25eth0]/x", "https://10.1.2.3/x", "https://172.16.0.1/x",
			"https://192.168.1.1/x", "https://100.64.0.1/x", "https://0.0.0.0/x", "https://[::]/x", "https://[fd00::1]/x",
			"https://[64:ff9b::a9fe:a9fe]/x", "https://[2002:a9fe:a9fe::]/x", "https://224.0.0.1/x", "https://255.255.255.255/x",
			"https://localhost/x", "https://LocalHost/x", "https://localhost./x", "https://api.localhost/x",
			"https://push.example@127.0.0.1/x", "https://user:pw@push.example/x", "https://127.0.0.1:443@push.example/x",
			"http://push.example/x", "HTTP://push.example/x", "ftp://push.example/x", "file:///etc/passwd", "javascript:alert(1)",
			"data:text/plain,x", "wss://push.example/x", "//push.example/x", "/v1/me", "https:///x", "https://", "",
			"https://push.example/" + strings.Repeat("a", 2100), " https://127.0.0.1/x", "https://push.example/x\r\nX: y",
		} {
			b := browserSubscription(t, ep)
			if r := e.do(req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ana.Access, Body: b, NoContract: true}); r.Status != 422 && r.Status != 400 {
				t.Errorf("endpoint %q: %d %s", ep, r.Status, trim(r.Body))
			}
		}
		for _, keys := range []map[string]string{
			{"p256dh": enc(compressed), "auth": enc(make([]byte, 16))},
			{"p256dh": enc(make([]byte, 65)), "auth": enc(make([]byte, 16))},
			{"p256dh": enc(append(pub, 0)), "auth": enc(make([]byte, 16))},
			{"p256dh": enc(pub[:64]), "auth": enc(make([]byte, 16))},
			{"p256dh": enc(pub), "auth": enc(make([]byte, 15))},
			{"p256dh": enc(pub), "auth": enc(make([]byte, 17))},
			{"p256dh": enc(pub), "auth": ""},
			{"p256dh": "", "auth": enc(make([]byte, 16))},
			{"p256dh": "!!!" + enc(pub)[3:], "auth": enc(make([]byte, 16))},
			{"p256dh": enc(pub), "auth": "%%%%%%%%%%%%%%%%%%%%%%"},
			{"p256dh": strings.Repeat("A", 100000), "auth": enc(make([]byte, 16))},
		} {
			body := map[string]any{"endpoint": "https://push.example/keys", "keys": keys}
			if r := e.do(req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ana.Access, Body: body, NoContract: true}); r.Status < 400 || r.Status >= 500 {
				t.Errorf("keys %.40v: %d %s", keys, r.Status, trim(r.Body))
			}
		}
		for _, raw := range []string{
			`{"endpoint": 5, "keys": {"p256dh": "x", "auth": "y"}}`, `{"endpoint": ["https://push.example/a"]}`,
			`{"endpoint": "https://push.example/a", "keys": "x"}`, `{"endpoint": "https://push.example/a"}`, `null`, `[]`,
		} {
			if r := e.do(req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ana.Access, Body: raw, NoContract: true}); r.Status < 400 || r.Status >= 500 {
				t.Errorf("body %s: %d %s", raw, r.Status, trim(r.Body))
			}
		}
		if l := e.must(200, req{Method: "GET", Path: "/v1/me/push-subscriptions", Token: ana.Access}); string(l.Body) != `{"subscriptions":[]}` {
			t.Fatalf("refused subscriptions were stored: %s", l.Body)
		}
	})
}

// TestAttackPushOwnership: ben tries to see, delete or take over what is
// ana's by her subscription's id (and ids next to it) and by its endpoint,
// with a personal API token as well as a session. What must hold: only
// the holder lists or deletes a subscription; another player's id answers
// exactly as an id that does not exist (no way to tell them apart); an API
// token reaches none of the routes (login session only); nothing of ana's
// changes.
func TestAttackPushOwnership(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		e, _ := pushEnv(t, d)
		ana, ben := e.register("ana"), e.register("ben")
		const endpoint = "https://push.example/send/ana"
		var mine struct {
			ID int64 `json:"id"`
		}
		e.must(201, req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ana.Access, Body: browserSubscription(t, endpoint)}).decode(t, &mine)
		e.must(201, req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ben.Access, Body: browserSubscription(t, "https://push.example/send/ben")})
		if l := e.must(200, req{Method: "GET", Path: "/v1/me/push-subscriptions", Token: ben.Access}); strings.Contains(string(l.Body), endpoint) {
			t.Fatalf("ben's list shows ana's: %s", l.Body)
		}
		theirs := e.do(req{Method: "DELETE", Path: "/v1/me/push-subscriptions/" + itoa(mine.ID), Token: ben.Access})
		none := e.do(req{Method: "DELETE", Path: "/v1/me/push-subscriptions/999999", Token: ben.Access})
		if theirs.Status != 404 || none.Status != 404 || theirs.code(t) != none.code(t) {
			t.Errorf("ben deletes ana's id: %d %s; an id of nobody's: %d %s", theirs.Status, theirs.Body, none.Status, none.Body)
		}
		for _, p := range []string{
			"/v1/me/push-subscriptions?endpoint=" + url.QueryEscape(endpoint),
			"/v1/me/push-subscriptions?endpoint=" + url.QueryEscape(endpoint+"/"),
			"/v1/me/push-subscriptions?endpoint=" + url.QueryEscape(strings.ToUpper(endpoint)),
			"/v1/me/push-subscriptions?endpoint=" + url.QueryEscape("%"),
			"/v1/me/push-subscriptions?endpoint=" + url.QueryEscape("' OR 1=1 --"),
			"/v1/me/push-subscriptions/0", "/v1/me/push-subscriptions/-1", fmt.Sprintf("/v1/me/push-subscriptions/%d", mine.ID+1000),
		} {
			if r := e.do(req{Method: "DELETE", Path: p, Token: ben.Access, NoContract: true}); r.Status != 404 && r.Status != 400 {
				t.Errorf("ben: DELETE %s: %d %s", p, r.Status, r.Body)
			}
		}
		var api struct {
			Token string `json:"token"`
		}
		e.must(201, req{Method: "POST", Path: "/v1/tokens", Token: ana.Access,
			Body: map[string]any{"name": "bot", "scopes": []string{"read", "play"}}}).decode(t, &api)
		for _, r := range []req{
			{Method: "GET", Path: "/v1/me/push-subscriptions"},
			{Method: "POST", Path: "/v1/me/push-subscriptions", Body: browserSubscription(t, "https://push.example/send/token")},
			{Method: "DELETE", Path: "/v1/me/push-subscriptions/" + itoa(mine.ID)},
			{Method: "DELETE", Path: "/v1/me/push-subscriptions?endpoint=" + url.QueryEscape(endpoint)},
		} {
			r.Token = api.Token
			if got := e.do(r); got.Status != 403 {
				t.Errorf("%s %s with an API token: %d %s", r.Method, r.Path, got.Status, got.Body)
			}
		}
		subs, err := e.store.PushSubscriptions(t.Context(), ana.ID)
		if err != nil || len(subs) != 1 || subs[0].ID != mine.ID || subs[0].Endpoint != endpoint {
			t.Fatalf("ana's subscriptions after ben's tries: %+v %v", subs, err)
		}
		// The holder may, by id.
		e.must(204, req{Method: "DELETE", Path: "/v1/me/push-subscriptions/" + itoa(mine.ID), Token: ana.Access})
	})
}

// TestAttackPushBounded: a client registers far more browsers than a
// player has. What must hold: a player keeps MaxPushSubscriptions at most,
// each new one past it replacing the one saved longest ago (a browser
// that subscribes again counts as saved then); another player's are not
// touched.
func TestAttackPushBounded(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		e, _ := pushEnv(t, d)
		ana, ben := e.register("ana"), e.register("ben")
		e.must(201, req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ben.Access, Body: browserSubscription(t, "https://push.example/ben")})
		ep := func(i int) string { return fmt.Sprintf("https://push.example/ana/%d", i) }
		const n = models.MaxPushSubscriptions + 7
		for i := range n {
			e.clock.Add(time.Second)
			e.must(201, req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ana.Access, Body: browserSubscription(t, ep(i))})
			if i == models.MaxPushSubscriptions-1 {
				// The first browser subscribes again: it is the newest now.
				e.clock.Add(time.Second)
				e.must(200, req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ana.Access, Body: browserSubscription(t, ep(0))})
			}
		}
		subs, err := e.store.PushSubscriptions(t.Context(), ana.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(subs) != models.MaxPushSubscriptions {
			t.Fatalf("ana keeps %d subscriptions, want %d", len(subs), models.MaxPushSubscriptions)
		}
		kept := map[string]bool{}
		for _, s := range subs {
			kept[s.Endpoint] = true
		}
		// Kept: the first (subscribed again) and the newest 19.
		want := []string{ep(0)}
		for i := n - models.MaxPushSubscriptions + 1; i < n; i++ {
			want = append(want, ep(i))
		}
		for _, w := range want {
			if !kept[w] {
				t.Errorf("%s is gone; kept %v", w, kept)
			}
		}
		if b, err := e.store.PushSubscriptions(t.Context(), ben.ID); err != nil || len(b) != 1 {
			t.Errorf("ben's subscriptions: %+v %v", b, err)
		}
	})
}

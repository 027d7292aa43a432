package api_test

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
)

// testPushSender is a push sender with a fresh VAPID identity, and it.
func testPushSender(t *testing.T) (*notifier.PushSender, notifier.PushConfig) {
	t.Helper()
	priv, err := notifier.NewVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := notifier.VAPIDPublicKey(priv)
	cfg := notifier.PushConfig{PublicKey: pub, PrivateKey: priv, Subject: "mailto:push@dm.example"}
	sender, err := notifier.NewPushSender(cfg, notifier.WebhookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sender, cfg
}

// pushEnv is a server that sends Web Push with a fresh VAPID identity.
func pushEnv(t *testing.T, d models.Dialect) (*env, notifier.PushConfig) {
	t.Helper()
	sender, cfg := testPushSender(t)
	clk := &clock{t: time.Now().UTC()}
	st := modelstest.Open(t, d, models.Options{Now: clk.Now})
	sc := testConfig()
	sc.Push = sender
	hs := httptest.NewServer(newServer(st, nil, sc, slog.New(slog.NewJSONHandler(io.Discard, nil)), clk.Now).Handler())
	t.Cleanup(hs.Close)
	return &env{t: t, srv: hs, store: st, http: hs.Client(), clock: clk}, cfg
}

// browserSubscription is what a browser's PushSubscription.toJSON()
// gives, with fresh keys, for endpoint.
func browserSubscription(t *testing.T, endpoint string) map[string]any {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	enc := base64.RawURLEncoding.EncodeToString
	return map[string]any{"endpoint": endpoint, "expirationTime": nil,
		"keys": map[string]string{"p256dh": enc(k.PublicKey().Bytes()), "auth": enc(auth)}}
}

// TestPushSubscriptionsAPI: the VAPID key is public; a browser's
// subscription is registered once per endpoint (again: 200, the same id;
// from another account: it moves to that account), listed without its
// keys, checked (https, no internal address, real keys), deleted by id or
// endpoint by its holder only; the preferences have a push channel, on.
func TestPushSubscriptionsAPI(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		e, cfg := pushEnv(t, d)
		var key struct {
			PublicKey string `json:"public_key"`
		}
		e.must(http.StatusOK, req{Method: "GET", Path: "/v1/push/vapid-key"}).decode(t, &key)
		if key.PublicKey != cfg.PublicKey {
			t.Fatalf("vapid key %q, want %q", key.PublicKey, cfg.PublicKey)
		}
		ana, ben := e.register("ana"), e.register("ben")
		const endpoint = "https://push.example/send/abc"
		sub := browserSubscription(t, endpoint)
		e.must(http.StatusUnauthorized, req{Method: "POST", Path: "/v1/me/push-subscriptions", Body: sub})
		res := e.must(http.StatusCreated, req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ana.Access, Body: sub})
		var made struct {
			ID       int64  `json:"id"`
			Endpoint string `json:"endpoint"`
		}
		res.decode(t, &made)
		if made.Endpoint != endpoint || res.Header.Get("Location") != "/v1/me/push-subscriptions/"+itoa(made.ID) {
			t.Fatalf("created %s, Location %q", res.Body, res.Header.Get("Location"))
		}
		var again struct {
			ID int64 `json:"id"`
		}
		e.must(http.StatusOK, req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ana.Access,
			Body: browserSubscription(t, endpoint)}).decode(t, &again)
		if again.ID != made.ID {
			t.Fatalf("the same endpoint again: id %d, want %d", again.ID, made.ID)
		}
		list := e.must(http.StatusOK, req{Method: "GET", Path: "/v1/me/push-subscriptions", Token: ana.Access})
		if !strings.Contains(string(list.Body), endpoint) || strings.Contains(string(list.Body), "p256dh") ||
			strings.Contains(string(list.Body), "auth") {
			t.Fatalf("list: %s", list.Body)
		}

		for _, bad := range []struct {
			name     string
			endpoint string
			p256dh   string
			auth     string
		}{
			{"http", "http://push.example/x", "", ""},
			{"loopback", "https://127.0.0.1/x", "", ""},
			{"localhost", "https://localhost/x", "", ""},
			{"not a point", "https://push.example/y", base64.RawURLEncoding.EncodeToString(make([]byte, 65)), ""},
			{"short auth", "https://push.example/z", "", "AAAA"},
		} {
			b := browserSubscription(t, bad.endpoint)
			keys := b["keys"].(map[string]string)
			if bad.p256dh != "" {
				keys["p256dh"] = bad.p256dh
			}
			if bad.auth != "" {
				keys["auth"] = bad.auth
			}
			if r := e.do(req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ana.Access, Body: b}); r.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s: %d %s", bad.name, r.Status, r.Body)
			}
		}

		// The browser is ben's now.
		e.must(http.StatusOK, req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ben.Access, Body: sub})
		if l := e.must(http.StatusOK, req{Method: "GET", Path: "/v1/me/push-subscriptions", Token: ana.Access}); string(l.Body) != `{"subscriptions":[]}` {
			t.Fatalf("ana's after ben took the endpoint: %s", l.Body)
		}
		for _, v := range []string{"\x00", "\xff", strings.Repeat("x", 5000)} {
			e.must(http.StatusNotFound, req{Method: "DELETE", Path: "/v1/me/push-subscriptions?endpoint=" + url.QueryEscape(v),
				Token: ana.Access, NoContract: true})
		}
		q := "/v1/me/push-subscriptions?endpoint=" + url.QueryEscape(endpoint)
		e.must(http.StatusNotFound, req{Method: "DELETE", Path: q, Token: ana.Access})
		e.must(http.StatusNotFound, req{Method: "DELETE", Path: "/v1/me/push-subscriptions/" + itoa(made.ID), Token: ana.Access})
		e.must(http.StatusNoContent, req{Method: "DELETE", Path: q, Token: ben.Access})
		e.must(http.StatusNotFound, req{Method: "DELETE", Path: "/v1/me/push-subscriptions/" + itoa(made.ID), Token: ben.Access})
		other := e.must(http.StatusCreated, req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ben.Access,
			Body: browserSubscription(t, endpoint+"2")})
		other.decode(t, &made)
		e.must(http.StatusNoContent, req{Method: "DELETE", Path: "/v1/me/push-subscriptions/" + itoa(made.ID), Token: ben.Access})

		prefs := e.must(http.StatusOK, req{Method: "GET", Path: "/v1/me/notification-preferences", Token: ana.Access})
		if !strings.Contains(string(prefs.Body), `{"kind":"your_turn","channel":"push","enabled":true}`) {
			t.Fatalf("no push channel on: %s", prefs.Body)
		}
		e.must(http.StatusOK, req{Method: "PUT", Path: "/v1/me/notification-preferences", Token: ana.Access,
			Body: map[string]any{"preferences": []map[string]any{{"kind": "your_turn", "channel": "push", "enabled": false}}}})
		p, err := e.store.Preferences(t.Context(), []int64{ana.ID})
		if err != nil || len(p) != 1 || p[0].Channel != notifier.ChannelPush || p[0].Enabled {
			t.Fatalf("stored preferences %+v %v", p, err)
		}
	})
}

// TestPushOff: a server that sends no pushes says so (503) where a
// browser would subscribe.
func TestPushOff(t *testing.T) {
	e := newEnv(t, models.SQLite, testConfig())
	if r := e.must(http.StatusServiceUnavailable, req{Method: "GET", Path: "/v1/push/vapid-key"}); r.code(t) != "push_unavailable" {
		t.Fatalf("code %q", r.code(t))
	}
	ana := e.register("ana")
	e.must(http.StatusServiceUnavailable, req{Method: "POST", Path: "/v1/me/push-subscriptions", Token: ana.Access,
		Body: browserSubscription(t, "https://push.example/a")})
}

package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/datamonsters/turns/internal/pushtest"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
)

// testPush is a push sender with a fresh VAPID identity, and it.
func testPush(t testing.TB) (*notifier.PushSender, notifier.PushConfig) {
	t.Helper()
	priv, err := notifier.NewVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := notifier.VAPIDPublicKey(priv)
	cfg := notifier.PushConfig{PublicKey: pub, PrivateKey: priv, Subject: "mailto:push@dm.example"}
	p, err := notifier.NewPushSender(cfg, notifier.WebhookOptions{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	return p, cfg
}

// TestPushPage: the push settings page gives the script the server's
// VAPID key and the service worker's address (an embedded asset, served
// as JavaScript); a browser's subscription posted as the script posts it
// is stored and listed, and each browser can be turned off, by the form
// of the list or as the script does for its own; the settings link to it
// and have a Push column.
func TestPushPage(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		push, cfg := testPush(t)
		s := newSite(t, d, siteOptions{outbox: true, push: push})
		c := s.client()
		c.register("ana", "correct horse")
		settings := c.get("/settings").mustSee(t, http.StatusOK, `href="/settings/push"`)
		if !strings.Contains(settings.Body, `value="your_turn/push" checked`) || !strings.Contains(settings.Body, "Your turn by push") {
			t.Fatalf("the settings have no Push column ticked:\n%s", clip(settings.Body))
		}
		page := c.get("/settings/push").mustSee(t, http.StatusOK, `data-key="`+cfg.PublicKey+`"`, "Push notifications go to no browser yet.")
		worker := regexp.MustCompile(`data-worker="([^"]+)"`).FindStringSubmatch(page.Body)
		if worker == nil || !strings.HasPrefix(worker[1], "/assets/sw.js?v=") {
			t.Fatalf("no service worker on the page:\n%s", clip(page.Body))
		}
		sw := c.get(strings.ReplaceAll(worker[1], "&amp;", "&")).mustSee(t, http.StatusOK, `addEventListener("push"`, "showNotification")
		if ct := sw.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
			t.Fatalf("the service worker is served as %q", ct)
		}

		ps := pushtest.NewService(t)
		phone, laptop := pushtest.NewSubscriber(t, ps, "phone"), pushtest.NewSubscriber(t, ps, "laptop")
		for _, b := range []*pushtest.Subscriber{phone, laptop} {
			c.post("/settings/push", url.Values{"endpoint": {b.Endpoint}, "p256dh": {b.P256dh()}, "auth": {b.Auth()}}).
				mustRedirect(t, "/settings/push?done=push-on")
		}
		c.get("/settings/push?done=push-on").mustSee(t, http.StatusOK, "Push notifications are on in this browser.",
			`data-endpoint="`+phone.Endpoint+`"`, `data-endpoint="`+laptop.Endpoint+`"`, "A browser of 127.0.0.1")
		ana := s.account("ana")
		subs, err := s.store.PushSubscriptions(context.Background(), ana.ID)
		if err != nil || len(subs) != 2 || subs[0].P256dh != phone.P256dh() || subs[0].Auth != phone.Auth() {
			t.Fatalf("stored %+v %v", subs, err)
		}
		// A refused subscription says why, on the page.
		c.post("/settings/push", url.Values{"endpoint": {phone.Endpoint}, "p256dh": {"short"}, "auth": {phone.Auth()}}).
			mustSee(t, http.StatusUnprocessableEntity, "This browser&#39;s subscription was refused (keys.p256dh: ")

		// Off: the phone by the list's form, the laptop as its script does.
		c.post("/settings/push/"+itoa(subs[0].ID)+"/off", nil).mustRedirect(t, "/settings/push?done=push-off")
		c.post("/settings/push/off", url.Values{"endpoint": {laptop.Endpoint}}).mustRedirect(t, "/settings/push?done=push-off")
		c.post("/settings/push/off", url.Values{"endpoint": {laptop.Endpoint}}).mustRedirect(t, "/settings/push?done=push-off")
		if subs, _ := s.store.PushSubscriptions(context.Background(), ana.ID); len(subs) != 0 {
			t.Fatalf("still %+v", subs)
		}
		c.get("/settings/push?done=push-off").mustSee(t, http.StatusOK, "Push notifications are off there.",
			"Push notifications go to no browser yet.")

		// Hostile input answers no 5xx, and with a page or a redirect.
		for _, v := range hostileValues {
			form := url.Values{"endpoint": {v}, "p256dh": {v}, "auth": {v}}
			for _, path := range []string{"/settings/push", "/settings/push/off", "/settings/push/" + url.PathEscape(v) + "/off"} {
				r := c.post(path, form)
				if ct := r.Header.Get("Content-Type"); r.Status >= 500 || r.Status != http.StatusSeeOther && !strings.HasPrefix(ct, "text/html") {
					t.Errorf("POST %s with %.20q: %d %s", path, v, r.Status, ct)
				}
			}
		}
		s.client().post("/settings/push", url.Values{"endpoint": {phone.Endpoint}}).mustRedirect(t, "/login")

		// Someone else's subscription is not theirs to turn off.
		other := s.client()
		other.register("ben", "correct horse")
		other.post("/settings/push", url.Values{"endpoint": {phone.Endpoint}, "p256dh": {phone.P256dh()}, "auth": {phone.Auth()}}).
			mustRedirect(t, "/settings/push?done=push-on")
		bens, _ := s.store.PushSubscriptions(context.Background(), s.account("ben").ID)
		c.post("/settings/push/"+itoa(bens[0].ID)+"/off", nil).mustRedirect(t, "/settings/push?done=push-off")
		if after, _ := s.store.PushSubscriptions(context.Background(), s.account("ben").ID); len(after) != 1 {
			t.Fatal("ana turned off ben's browser")
		}
	})
}

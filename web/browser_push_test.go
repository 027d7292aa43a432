package web_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/datamonsters/turns/internal/pushtest"
	"github.com/datamonsters/turns/notifier"
)

// profileTab opens a tab in the browser's own profile, and not in a
// browser context of its own as tabs does: those are off the record, and
// Chromium refuses push there as in an incognito window.
func (s *site) profileTab(t *testing.T, root context.Context, name string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(root)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	tb := &tab{t: t, name: name, ctx: ctx, s: s}
	t.Cleanup(cancel)
	t.Cleanup(func() { // runs before cancel
		if t.Failed() {
			tb.keep(failureDir(t), "failed")
		}
	})
	return tb
}

// waitJS waits until the expression (a promise, or a value) is true on
// the tab's page.
func (b *tab) waitJS(what, expr string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](expr, chromedp.EvalAwaitPromise))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s: timed out waiting for %s (%v):\n%s", b.name, what, err, b.text())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stubPushManager is a script that replaces the page's
// PushManager.subscribe and getSubscription (the page's, not the service
// worker's): a headless Chromium without a network waits for ever on its
// push service (Google's) to subscribe. The stub answers at once with the
// subscription of sub, as Chromium would once that service answered: its
// endpoint (the test's push service) and keys, kept in localStorage with
// the applicationServerKey the page subscribed with. Like Chromium, it
// refuses without the notification permission.
func stubPushManager(sub *pushtest.Subscriber) string {
	return fmt.Sprintf(`(function () {
  if (!window.PushManager) { return; }
  var E = %q, P = %q, A = %q;
  function keyOf() {
    var k = localStorage.getItem("stub-push-key");
    if (!k) { return null; }
    var raw = atob(k), b = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { b[i] = raw.charCodeAt(i); }
    return b.buffer;
  }
  function subscription(key) {
    return { endpoint: E, expirationTime: null, options: { userVisibleOnly: true, applicationServerKey: key },
      toJSON: function () { return { endpoint: E, expirationTime: null, keys: { p256dh: P, auth: A } }; },
      unsubscribe: function () {
        localStorage.removeItem("stub-push-key");
        localStorage.setItem("stub-push-unsubscribed", "yes");
        return Promise.resolve(true);
      } };
  }
  PushManager.prototype.subscribe = function (opts) {
    if (Notification.permission !== "granted") {
      return Promise.reject(new DOMException("Registration failed - permission denied", "NotAllowedError"));
    }
    var k = new Uint8Array(opts.applicationServerKey), s = "";
    for (var i = 0; i < k.length; i++) { s += String.fromCharCode(k[i]); }
    localStorage.setItem("stub-push-key", btoa(s));
    return Promise.resolve(subscription(keyOf()));
  };
  PushManager.prototype.getSubscription = function () {
    var k = keyOf();
    return Promise.resolve(k ? subscription(k) : null);
  };
}());`, sub.Endpoint, sub.P256dh(), sub.Auth())
}

// TestBrowserPush turns push on in a real browser (Chromium), as far as a
// machine without a network allows: the test grants the site the
// notification permission, the page registers the service worker, which
// becomes active, asks the permission, subscribes (PushManager.subscribe
// stubbed, see stubPushManager) with the server's VAPID key, and the
// server stores the subscription. A notification for the player then
// reaches the test's push service signed and encrypted, and its payload,
// decrypted, delivered to the service worker as a push (DevTools'
// ServiceWorker.deliverPushMessage) is shown as a notification with the
// game and the headline. Turning it off unsubscribes and forgets it.
func TestBrowserPush(t *testing.T) {
	root := browser(t)
	axe := needAxe(t)
	push, cfg := testPush(t)
	s := newSite(t, browserDialect(), siteOptions{outbox: true, push: push})
	ps := pushtest.NewService(t)
	sub := pushtest.NewSubscriber(t, ps, "ana")
	ana := s.profileTab(t, root, "ana")
	if _, err := chromedp.Call(ana.ctx, page.AddScriptToEvaluateOnNewDocument,
		page.AddScriptToEvaluateOnNewDocumentParams{Source: stubPushManager(sub)}); err != nil {
		t.Fatal(err)
	}
	ana.open("/register")
	ana.fill("f-username", "ana")
	ana.fill("f-email", "ana@example.com")
	ana.fill("f-password", "correct horse")
	if st := ana.press(submit); st != 200 {
		t.Fatalf("register: %d", st)
	}
	c := chromedp.FromContext(ana.ctx)
	if _, err := cdp.Call(ana.ctx, c.Browser, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted,
		Origin: s.url, BrowserContextID: c.BrowserContextID}); err != nil {
		t.Fatal(err)
	}

	ana.press("nav a[href='/settings']")
	ana.press("a[href='/settings/push']")
	ana.waitJS("the page's script", `document.getElementById("push-state").textContent === "Push notifications are off in this browser."`)
	worker, err := chromedp.Run(ana.ctx, chromedp.Evaluate[string](
		`navigator.serviceWorker.getRegistration("/assets/").then(r => r && r.active ? r.active.scriptURL : "")`, chromedp.EvalAwaitPromise))
	if err != nil || !strings.HasPrefix(worker, s.url+"/assets/sw.js?v=") {
		t.Fatalf("active service worker %q, %v", worker, err)
	}
	ana.axe(axe)
	ana.look("push-off")

	ana.run(chromedp.Click(chromedp.ID("push-on")))
	ana.waitJS("the page after turning push on", `location.pathname + location.search === "/settings/push?done=push-on"`)
	ana.waitJS("the page's script", `document.getElementById("push-state").textContent === "This browser receives your push notifications."`)
	ana.see("Push notifications are on in this browser.", "A browser of 127.0.0.1", "(this browser)")
	ana.axe(axe)
	ana.look("push-on")
	key, err := chromedp.Run(ana.ctx, chromedp.Evaluate[string](`localStorage.getItem("stub-push-key")`))
	if raw, _ := base64.StdEncoding.DecodeString(key); err != nil || base64.RawURLEncoding.EncodeToString(raw) != cfg.PublicKey {
		t.Fatalf("the page subscribed with the key %q (%v), not the server's %s", key, err, cfg.PublicKey)
	}
	id := s.account("ana").ID
	subs, err := s.store.PushSubscriptions(context.Background(), id)
	if err != nil || len(subs) != 1 || subs[0].Endpoint != sub.Endpoint || subs[0].P256dh != sub.P256dh() || subs[0].Auth != sub.Auth() {
		t.Fatalf("stored %+v %v", subs, err)
	}

	// Ben invites ana: the push reaches the push service, for ana's
	// browser, and her service worker shows it.
	var ben struct {
		AccessToken string `json:"access_token"`
	}
	s.apiCall("POST", "/v1/auth/register", "", map[string]string{"username": "ben", "password": "correct horse", "email": "ben@example.com"}, &ben)
	var g struct {
		ID int64 `json:"id"`
	}
	s.apiCall("POST", "/v1/games", ben.AccessToken, map[string]any{"players": 2, "mode": "fast",
		"deck": map[string]string{"prebuilt": "running-a-startup"}, "invite": []string{"ana"}}, &g)
	deadline := time.Now().Add(20 * time.Second)
	for len(ps.Requests(sub.Path)) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	reqs := ps.Requests(sub.Path)
	if len(reqs) != 1 {
		t.Fatalf("%d pushes to ana's browser, want 1", len(reqs))
	}
	if err := pushtest.CheckVAPID(reqs[0], ps.URL, cfg.PublicKey, cfg.Subject); err != nil {
		t.Fatal(err)
	}
	plain, err := sub.Decrypt(reqs[0].Body)
	if err != nil {
		t.Fatal(err)
	}
	var msg notifier.PushMessage
	if err := json.Unmarshal(plain, &msg); err != nil || msg.Kind != notifier.KindInvitation || msg.URL != s.url+"/games/"+itoa(g.ID) {
		t.Fatalf("push %s: %v", plain, err)
	}

	// The service worker, attached to as DevTools does, keeps what it is
	// asked to show (headless Chromium shows a notification nowhere, and
	// drops some at once).
	var swTarget target.ID
	ts, err := chromedp.Targets(ana.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range ts {
		if ti.Type == "service_worker" && strings.HasPrefix(ti.URL, worker) {
			swTarget = ti.TargetID
		}
	}
	if swTarget == "" {
		t.Fatalf("no service worker among the targets %+v", ts)
	}
	sw, cancelSW := chromedp.NewContext(ana.ctx, chromedp.WithTargetID(swTarget), chromedp.WithDetachOnCancel())
	defer cancelSW()
	if _, err := chromedp.Run(sw, chromedp.Evaluate[bool](`self.shown = [];
		const show = self.registration.showNotification.bind(self.registration);
		self.registration.showNotification = (title, o) => {
			self.shown.push({title: title, body: o.body, tag: o.tag, url: o.data.url});
			return show(title, o);
		};
		true`)); err != nil {
		t.Fatal(err)
	}

	registrations := make(chan serviceworker.RegistrationID, 16)
	chromedp.Listen(ana.ctx, func(ev any) {
		if e, ok := ev.(*serviceworker.EventWorkerRegistrationUpdated); ok {
			for _, r := range e.Registrations {
				if strings.HasSuffix(r.ScopeURL, "/assets/") && !r.IsDeleted {
					select {
					case registrations <- r.RegistrationID:
					default:
					}
				}
			}
		}
	})
	if _, err := chromedp.Call(ana.ctx, serviceworker.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	var reg serviceworker.RegistrationID
	select {
	case reg = <-registrations:
	case <-time.After(10 * time.Second):
		t.Fatal("DevTools named no service worker registration")
	}
	if _, err := chromedp.Call(ana.ctx, serviceworker.DeliverPushMessage,
		serviceworker.DeliverPushMessageParams{Origin: s.url, RegistrationID: reg, Data: string(plain)}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`[{"title":"Game #%d, hosted by ben","body":%q,"tag":"game-%d","url":%q}]`, g.ID, msg.Body, g.ID, msg.URL)
	var got string
	for deadline := time.Now().Add(20 * time.Second); got != want && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got, err = chromedp.Run(sw, chromedp.Evaluate[string](`JSON.stringify(self.shown)`)); err != nil {
			t.Fatal(err)
		}
	}
	if got != want || !strings.HasPrefix(msg.Body, "ben invites you to play") {
		t.Fatalf("the service worker showed %s, want %s", got, want)
	}

	ana.run(chromedp.Click(chromedp.ID("push-off")))
	ana.waitJS("the page after turning push off", `location.pathname + location.search === "/settings/push?done=push-off"`)
	ana.waitJS("the page's script", `document.getElementById("push-state").textContent === "Push notifications are off in this browser."`)
	ana.see("Push notifications are off there.", "Push notifications go to no browser yet.", "Push notifications are off in this browser.")
	if gone, _ := chromedp.Run(ana.ctx, chromedp.Evaluate[string](`localStorage.getItem("stub-push-unsubscribed")`)); gone != "yes" {
		t.Fatal("the page did not unsubscribe")
	}
	if subs, _ := s.store.PushSubscriptions(context.Background(), id); len(subs) != 0 {
		t.Fatalf("the server still pushes to %+v", subs)
	}
}

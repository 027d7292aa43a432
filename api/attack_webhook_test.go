package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// Webhooks attacked as another user, a careless one, an attacker aiming
// at the server's network, and a receiver that misbehaves.

// hookList is bob's webhooks as the API lists them.
func (e *notifyEnv) hookList(p *player) []map[string]any {
	e.t.Helper()
	var list struct {
		Webhooks []map[string]any `json:"webhooks"`
	}
	e.must(200, req{Method: "GET", Path: "/v1/webhooks", Token: p.Access}).decode(e.t, &list)
	return list.Webhooks
}

// TestAttackWebhookConcurrentLimit: a user at 19 webhooks sends 10
// creations at once. At most 20 may exist afterwards, whatever the
// interleaving; the refused ones say why with 422.
func TestAttackWebhookConcurrentLimit(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		bob := e.register("bob")
		for i := range 19 {
			e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: bob.Access,
				Body: map[string]any{"url": fmt.Sprintf("https://hooks.example.com/%d", i)}})
		}
		var wg sync.WaitGroup
		statuses := make([]int, 10)
		bodies := make([]string, 10)
		for i := range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := e.do(req{Method: "POST", Path: "/v1/webhooks", Token: bob.Access,
					Body: map[string]any{"url": fmt.Sprintf("https://hooks.example.com/race/%d", i)}})
				statuses[i], bodies[i] = r.Status, string(r.Body)
			}()
		}
		wg.Wait()
		created := 0
		for i, st := range statuses {
			switch {
			case st == 201:
				created++
			case st == 422 && strings.Contains(bodies[i], "at most 20 webhooks"):
			case st == 503 || st == 409:
				// a refusal to retry is allowed, not a second hook past the limit
			default:
				t.Errorf("creation %d: %d %s", i, st, bodies[i])
			}
		}
		if n := len(e.hookList(bob)); n > 20 || created != n-19 {
			t.Fatalf("%d concurrent creations at 19 webhooks: %d created, %d stored; the limit is 20", len(statuses), created, n)
		}
	})
}

// TestAttackWebhookOtherUsersHooks: ana knows the id of bob's webhook and
// of one of its deliveries. She can neither list its deliveries, nor
// redeliver, enable or delete it: 404 each time, as for a webhook that
// does not exist, and bob's webhook is as it was.
func TestAttackWebhookOtherUsersHooks(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, true)
	rcv := startReceiver(t)
	ana, bob := e.register("ana"), e.register("bob")
	var wh struct {
		ID int64 `json:"id"`
	}
	e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: bob.Access,
		Body: map[string]any{"url": rcv.srv.URL + "/bob"}}).decode(t, &wh)
	e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	waitFor(t, "a delivery to bob", func() bool { return len(rcv.all()) > 0 })
	e.drain(t)
	did := rcv.all()[0].Header.Get("Webhook-Id")
	calls := len(rcv.all())
	base := fmt.Sprintf("/v1/webhooks/%d", wh.ID)
	for _, r := range []req{
		{Method: "GET", Path: base + "/deliveries"},
		{Method: "POST", Path: base + "/deliveries/" + did + "/redeliver"},
		{Method: "POST", Path: base + "/enable"},
		{Method: "DELETE", Path: base},
	} {
		r.Token = ana.Access
		if got := e.do(r); got.Status != 404 || got.code(t) != "not_found" {
			t.Errorf("ana: %s %s: %d %s", r.Method, r.Path, got.Status, got.Body)
		}
	}
	// Ana's own webhook id does not reach bob's deliveries either.
	var mine struct {
		ID int64 `json:"id"`
	}
	e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: ana.Access,
		Body: map[string]any{"url": rcv.srv.URL + "/ana"}}).decode(t, &mine)
	if got := e.do(req{Method: "POST", Path: fmt.Sprintf("/v1/webhooks/%d/deliveries/%s/redeliver", mine.ID, did), Token: ana.Access}); got.Status != 404 {
		t.Errorf("ana redelivers bob's delivery through her own webhook: %d %s", got.Status, got.Body)
	}
	e.drain(t)
	if n := len(rcv.all()); n != calls {
		t.Errorf("the receiver got %d more calls after ana's attempts", n-calls)
	}
	hooks := e.hookList(bob)
	if len(hooks) != 1 || hooks[0]["url"] != rcv.srv.URL+"/bob" || hooks[0]["disabled"] != false {
		t.Fatalf("bob's webhooks after ana's attempts: %+v", hooks)
	}
}

// TestAttackWebhookBadInputs: every bad creation is a 4xx that names the
// field (or says what is wrong with the body), never a 500, and creates
// nothing; bad webhook ids in the path are 400 or 404.
func TestAttackWebhookBadInputs(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, false)
	bob := e.register("bob")
	long := "https://hooks.example.com/" + strings.Repeat("a", 2000)
	many := make([]string, 21)
	for i := range many {
		many[i] = "your_turn"
	}
	for _, tc := range []struct {
		body  any
		field string
	}{
		{map[string]any{"url": "http://[::ffff:127.0.0.1]/x"}, "url"},
		{map[string]any{"url": "http://[::ffff:a9fe:a9fe]/latest"}, "url"}, // 169.254.169.254, IPv4-mapped
		{map[string]any{"url": "http://[fe80::1%25eth0]/x"}, "url"},
		{map[string]any{"url": "http://[64:ff9b::a00:1]/x"}, "url"}, // NAT64 of 10.0.0.1
		{map[string]any{"url": "http://0.0.0.0:80/"}, "url"},
		{map[string]any{"url": "http://100.64.1.1/"}, "url"},
		{map[string]any{"url": "http://metadata.localhost/"}, "url"},
		{map[string]any{"url": "file:///etc/passwd"}, "url"},
		{map[string]any{"url": "gopher://example.com:70/_x"}, "url"},
		{map[string]any{"url": "javascript:alert(1)"}, "url"},
		{map[string]any{"url": "//example.com/x"}, "url"},
		{map[string]any{"url": "https://user:pass@example.com/"}, "url"},
		{map[string]any{"url": "https:///nohost"}, "url"},
		{map[string]any{"url": ""}, "url"},
		{map[string]any{"url": "https://example.com/\x00"}, "url"},
		{map[string]any{"url": long}, "url"},
		{map[string]any{"url": "https://example.com/", "events": many}, "events"},
		{map[string]any{"url": "https://example.com/", "events": []string{"your_turn", "YOUR_TURN"}}, "events"},
		{map[string]any{"url": "https://example.com/", "events": []string{""}}, "events"},
		{map[string]any{"url": "https://example.com/", "secret": "short"}, "secret"},
		{map[string]any{"url": "https://example.com/", "secret": strings.Repeat("s", 201)}, "secret"},
		{map[string]any{"url": 42}, "url"},
		{map[string]any{"url": "https://example.com/", "events": "your_turn"}, "events"},
		{`{"url": "https://example.com/"`, ""},
		{`[]`, ""},
	} {
		r := e.do(req{Method: "POST", Path: "/v1/webhooks", Token: bob.Access, Body: tc.body, NoContract: true})
		if r.Status < 400 || r.Status >= 500 || (tc.field != "" && !strings.Contains(string(r.Body), tc.field)) {
			t.Errorf("create %v: %d %s; want 4xx naming %q", tc.body, r.Status, r.Body, tc.field)
		}
	}
	if hooks := e.hookList(bob); len(hooks) != 0 {
		t.Fatalf("refused creations left %d webhooks: %+v", len(hooks), hooks)
	}
	for _, p := range []string{"/v1/webhooks/abc", "/v1/webhooks/-1", "/v1/webhooks/0", "/v1/webhooks/99999999999999999999999", "/v1/webhooks/1.5"} {
		for _, r := range []req{{Method: "DELETE", Path: p}, {Method: "POST", Path: p + "/enable"}, {Method: "GET", Path: p + "/deliveries"},
			{Method: "POST", Path: p + "/deliveries/x/redeliver"}} {
			r.Token, r.NoContract = bob.Access, true
			if got := e.do(r); got.Status != 400 && got.Status != 404 {
				t.Errorf("%s %s: %d %s", r.Method, r.Path, got.Status, got.Body)
			}
		}
	}
}

// TestAttackWebhookPayloadSeatPrivate: bob's webhook hears of every kind
// of his notifications through a game. None of its bodies carries a card
// of ana's hand, nor the game's secret.
func TestAttackWebhookPayloadSeatPrivate(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, true)
	rcv := startReceiver(t)
	ana, bob := e.register("ana"), e.register("bob")
	e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: bob.Access, Body: map[string]any{"url": rcv.srv.URL + "/bob"}})
	g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	// The game is played five actions at a time, and bob's deliveries so
	// far checked against ana's hand as it is then (a card she played is
	// public, and may be named), until that was done twice with a hand to
	// hide and more than the start delivered: who starts, and how long a
	// turn lasts, are the shuffle's.
	checked, mineSeen := 0, false
	for round := uint64(0); round < 12 && checked < 2; round++ {
		advance(t, e.env, g.ID, []*player{ana, bob}, 11+round, 5)
		e.drain(t)
		hand, bobHand := map[string]bool{}, map[string]bool{}
		for who, ids := range map[*player]map[string]bool{ana: hand, bob: bobHand} {
			if v := e.getGame(g.ID, who).View; v != nil {
				for _, c := range v.Hand {
					ids[c.ID] = true
				}
			}
		}
		calls := rcv.all()
		if len(calls) < 2 || len(hand) == 0 {
			continue
		}
		checked++
		for _, c := range calls {
			body := string(c.Body)
			for id := range hand {
				if strings.Contains(body, `"`+id+`"`) {
					t.Fatalf("bob's webhook got card %s of ana's hand: %s", id, trim(c.Body))
				}
			}
			for id := range bobHand {
				mineSeen = mineSeen || strings.Contains(body, `"`+id+`"`)
			}
			if strings.Contains(body, `"seed"`) || strings.Contains(body, `"secret"`) {
				t.Fatalf("bob's webhook got the game's secret: %s", trim(c.Body))
			}
		}
	}
	if checked == 0 {
		t.Fatalf("in 60 actions, never a hand of ana's to hide with more than one delivery to bob (%d deliveries)", len(rcv.all()))
	}
	if !mineSeen {
		t.Logf("no delivery named a card of bob's own hand (the check above may be vacuous)")
	}
}

// TestAttackWebhookHangingReceiver: bob's receiver never answers. Ana's
// deliveries still arrive promptly, the players' actions are not slowed,
// and bob's attempts end at the client's timeout and are logged as failed
// attempts, not left running.
func TestAttackWebhookHangingReceiver(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, true)
	release := make(chan struct{})
	var mu sync.Mutex
	hung := 0
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hung++
		mu.Unlock()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })
	good := startReceiver(t)
	ana, bob := e.register("ana"), e.register("bob")
	e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: bob.Access, Body: map[string]any{"url": hang.URL + "/hang"}})
	e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: ana.Access, Body: map[string]any{"url": good.srv.URL + "/ana"}})
	start := time.Now()
	g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	waitFor(t, "ana's delivery", func() bool { return len(good.all()) > 0 })
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("ana's first delivery took %v while bob's receiver hangs", d)
	}
	begin := time.Now()
	advance(t, e.env, g.ID, []*player{ana, bob}, 3, 6)
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("6 actions took %v while bob's receiver hangs", d)
	}
	var wh []struct {
		ID       int64 `json:"id"`
		Failures int   `json:"failures"`
	}
	waitFor(t, "bob's attempts to time out", func() bool {
		var list struct {
			Webhooks []struct {
				ID       int64 `json:"id"`
				Failures int   `json:"failures"`
			} `json:"webhooks"`
		}
		e.must(200, req{Method: "GET", Path: "/v1/webhooks", Token: bob.Access}).decode(t, &list)
		wh = list.Webhooks
		return len(wh) == 1 && wh[0].Failures > 0
	})
	var log struct {
		Deliveries []struct {
			Attempts  int    `json:"attempts"`
			LastError string `json:"last_error"`
		} `json:"deliveries"`
	}
	e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/webhooks/%d/deliveries", wh[0].ID), Token: bob.Access}).decode(t, &log)
	failed := false
	for _, d := range log.Deliveries {
		failed = failed || d.Attempts > 0 && d.LastError != ""
	}
	if !failed {
		t.Fatalf("bob's hanging deliveries logged no failed attempt: %+v", log.Deliveries)
	}
}

// TestAttackWebhookDeletedStopsDelivering: bob's receiver fails, so a
// delivery is being retried; bob deletes the webhook. No attempt reaches
// the receiver afterwards (one already running may finish).
func TestAttackWebhookDeletedStopsDelivering(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, true)
	rcv := startReceiver(t)
	rcv.status.Store(503)
	ana, bob := e.register("ana"), e.register("bob")
	var wh struct {
		ID int64 `json:"id"`
	}
	e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: bob.Access, Body: map[string]any{"url": rcv.srv.URL + "/bob"}}).decode(t, &wh)
	e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	waitFor(t, "a failed attempt", func() bool { return len(rcv.all()) > 0 })
	e.must(204, req{Method: "DELETE", Path: fmt.Sprintf("/v1/webhooks/%d", wh.ID), Token: bob.Access})
	after := len(rcv.all())
	time.Sleep(time.Second) // retries come every 20-40 ms here
	e.drain(t)
	if n := len(rcv.all()); n > after+1 {
		t.Fatalf("the deleted webhook got %d more attempts", n-after)
	}
	if got := e.do(req{Method: "GET", Path: fmt.Sprintf("/v1/webhooks/%d/deliveries", wh.ID), Token: bob.Access}); got.Status != 404 {
		t.Fatalf("the deleted webhook's log: %d", got.Status)
	}
}

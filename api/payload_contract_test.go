package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/notifier"
	"github.com/getkin/kin-openapi/openapi3"
)

// checkPayload validates a JSON document against components/schemas/name
// of the contract as the tests load it (closed: no field it does not name).
func checkPayload(t testing.TB, name string, data []byte) error {
	t.Helper()
	contract(t)
	ref := specDoc.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		t.Fatalf("openapi.yaml has no schema %s", name)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	return ref.Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
}

// checkWebhookHeaders validates the delivery headers against the
// parameters of the webhook in openapi.yaml.
func checkWebhookHeaders(t testing.TB, c hookCall) {
	t.Helper()
	contract(t)
	item := specDoc.Webhooks["notification"]
	if item == nil || item.Post == nil {
		t.Fatal("openapi.yaml has no notification webhook")
	}
	for _, p := range item.Post.Parameters {
		v := c.Header.Get(p.Value.Name)
		if v == "" {
			if p.Value.Required {
				t.Errorf("delivery without %s", p.Value.Name)
			}
			continue
		}
		if err := p.Value.Schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("%s: %v", p.Value.Name, err)
		}
	}
}

// streamKinds lists the notification kinds the live stream and webhooks
// carry: all but the digest, which goes by email only.
func streamKinds() []string {
	var out []string
	for _, k := range notifier.Kinds {
		if k != notifier.KindDigest {
			out = append(out, string(k))
		}
	}
	return out
}

// TestNotificationPayloadsMatchContract plays a game through every kind of
// notification (an invitation, the start, a turn that times out after its
// reminder, an interrupt prompt, queued actions resumed, a vacation, a
// resignation) with both players connected to the live stream and both
// with a webhook to a test receiver, and checks every event of the real
// streams and every body and header the receiver got against openapi.yaml,
// one schema per kind (closed, as the tests load it).
func TestNotificationPayloadsMatchContract(t *testing.T) {
	eachNotifyDB(t, true, func(t *testing.T, e *notifyEnv) {
		ctx := context.Background()
		ana, bob := e.register("ana"), e.register("bob")
		players := []*player{ana, bob}
		rcv := startReceiver(t)
		streams := map[*player]<-chan sseEvent{}
		for _, p := range players {
			e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: p.Access, Body: map[string]any{"url": rcv.srv.URL + "/" + p.Name}})
			ch, stop := e.openStream(t, "/v1/notifications/stream", p.Access, "")
			defer stop()
			streams[p] = ch
			topic := notifier.UserTopic(fmt.Sprint(p.ID))
			waitFor(t, p.Name+"'s stream subscription", func() bool { return e.hub.Subscribers(topic) > 0 })
		}
		stored := func(p *player) []string {
			ns, err := e.store.NotificationsAfter(ctx, p.ID, 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, n := range ns {
				kinds = append(kinds, n.Kind)
			}
			return kinds
		}
		has := func(p *player, kind string) func() bool {
			return func() bool { return slices.Contains(stored(p), kind) }
		}

		// Invitation and start.
		var d struct {
			ID int64 `json:"id"`
		}
		e.must(201, req{Method: "POST", Path: "/v1/decks", Token: bob.Access, Body: interrupter}).decode(t, &d)
		var g game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{
			"players": 2, "mode": "fast", "policy": "holders", "invite": []string{"bob"}, "turn_deadline_seconds": 3600, "timeout_limit": 1,
			"deck": map[string]string{"prebuilt": "running-a-startup"}}}).decode(t, &g)
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/join", g.ID), Token: bob.Access,
			Body: map[string]any{"deck": map[string]any{"deck_id": d.ID}}})
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/start", g.ID), Token: ana.Access}).decode(t, &g)
		first := awaited(e.getGame(g.ID, ana), players)[0]

		// The first turn runs out: the reminder at 80%, then the timeout.
		e.drain(t)
		e.clock.Add(49 * time.Minute)
		if _, err := e.ob.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the deadline reminder", has(first, "deadline_reminder"))
		e.clock.Add(11*time.Minute + time.Second)
		if _, err := e.ob.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the timeout", has(ana, "timeout_applied"))
		// With a limit of one timeout, the bot took that seat over: its
		// player takes it back before the bot has anything to do.
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/reclaim", g.ID), Token: first.Access})
		waitFor(t, "the seat taken back", has(first, "seat_reclaimed"))

		// An interrupt window on ana's Tool, her end of turn queued
		// behind it, resumed when bob passes.
		q := &queueGame{t: t, e: e.env, id: g.ID, ana: ana, bob: bob}
		ga, tools := q.ready()
		q.submit(ana, ga.Version, engine.Action{Type: engine.ActPlayTool, Card: tools[0]}, engine.Action{Type: engine.ActEndTurn})
		gb := e.getGame(g.ID, bob)
		q.submit(bob, gb.Version, engine.Action{Type: engine.ActAnswer, Prompt: gb.Prompts[0].ID, Choices: []string{engine.Pass}})
		waitFor(t, "the resumed queue", has(ana, "queued_actions"))

		// bob goes away next January; ana resigns.
		start := time.Date(e.clock.Now().Year()+1, 1, 10, 0, 0, 0, 0, time.UTC)
		e.must(201, req{Method: "POST", Path: "/v1/me/vacations", Token: bob.Access, Body: map[string]any{
			"starts_at": start.Format(time.RFC3339), "ends_at": start.Add(48 * time.Hour).Format(time.RFC3339)}})
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/resign", g.ID), Token: ana.Access, Body: map[string]any{}})
		waitFor(t, "the end of the game", has(bob, "game_over"))
		e.drain(t)

		// Every notification came on its user's stream (live events come
		// in the order their jobs ran), in the shape of its kind.
		onStream := map[string]int{}
		var sample []byte
		for _, p := range players {
			ns, err := e.store.NotificationsAfter(ctx, p.ID, 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]sseEvent{}
			for range ns {
				ev := next(t, streams[p])
				got[ev.ID] = ev
			}
			for _, n := range ns {
				ev, ok := got[fmt.Sprint(n.ID)]
				var env struct {
					ID   int64  `json:"id"`
					Kind string `json:"kind"`
				}
				if err := json.Unmarshal([]byte(ev.Data), &env); !ok || err != nil || ev.Type != n.Kind || env.Kind != n.Kind || env.ID != n.ID {
					t.Fatalf("%s's %s notification %d on the stream: %+v (%v)", p.Name, n.Kind, n.ID, ev, err)
				}
				if err := checkPayload(t, "Notification", []byte(ev.Data)); err != nil {
					t.Errorf("%s's %s event breaks openapi.yaml: %v\n%s", p.Name, ev.Type, err, ev.Data)
				}
				if n.Kind == "your_turn" && sample == nil {
					sample = []byte(ev.Data)
				}
				onStream[n.Kind]++
			}
		}
		// Every webhook delivery too.
		delivered := map[string]int{}
		for _, c := range rcv.all() {
			var body struct {
				Event string `json:"event"`
			}
			json.Unmarshal(c.Body, &body)
			if err := checkPayload(t, "WebhookBody", c.Body); err != nil {
				t.Errorf("a %s delivery breaks openapi.yaml: %v\n%s", body.Event, err, c.Body)
			}
			checkWebhookHeaders(t, c)
			delivered[body.Event]++
		}
		for _, k := range streamKinds() {
			if onStream[k] == 0 || delivered[k] == 0 {
				t.Errorf("no %s notification to check: %d on the streams, %d delivered", k, onStream[k], delivered[k])
			}
		}
		t.Logf("checked on the streams %v; delivered %v", onStream, delivered)

		// The check fails on a field the schema does not name, and on
		// data of another kind.
		if sample == nil {
			t.Fatal("no your_turn event")
		}
		var n map[string]any
		json.Unmarshal(sample, &n)
		n["data"].(map[string]any)["hand"].([]any)[0].(map[string]any)["surprise"] = 1
		grafted, _ := json.Marshal(n)
		if err := checkPayload(t, "Notification", grafted); err == nil || !strings.Contains(err.Error(), "surprise") {
			t.Errorf("an undeclared field in a card of the hand passed: %v", err)
		}
		json.Unmarshal(sample, &n)
		n["kind"] = "game_over"
		other, _ := json.Marshal(n)
		if err := checkPayload(t, "Notification", other); err == nil {
			t.Error("your_turn data passed as game_over")
		}
	})
}

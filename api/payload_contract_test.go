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
// reminder, an interrupt prompt, queued actions resumed, a message, a vacation, a
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

		// ana writes to the table.
		e.must(201, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/messages", g.ID), Token: ana.Access, Body: map[string]any{"text": "Well played"}})
		waitFor(t, "the message", has(bob, "message"))

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

// TestEmptyPayloadsMatchContract builds every kind of notification with
// its lists nil (and a board whose lists, seats and build are empty or
// nil, and none), encodes it as the outbox does (notifier.Payload), and
// checks the stream's and the webhook's JSON against openapi.yaml: a list
// is [] when empty, never null.
func TestEmptyPayloadsMatchContract(t *testing.T) {
	boards := map[string]*notifier.Board{
		"no board":    nil,
		"empty board": {},
		"bare seat": {Seats: []notifier.BoardSeat{{Name: "ana"}}, Build: &notifier.BoardBuild{Owner: "ana"},
			Market: []notifier.Challenge{{Name: "Landing Page"}}, Lines: []notifier.Line{{N: 1, Text: "End your turn", Whole: true}}},
	}
	prompt := []notifier.Prompt{{Text: "Discard 2 cards."}} // prompt_waiting has at least one, here with no options
	hand := []notifier.Card{{Name: "Unknown card"}}         // a card without lines
	for name, b := range boards {
		data := []notifier.Data{
			notifier.Invitation{Seats: 2, Mode: "fast"},
			notifier.GameStarted{Board: b},
			notifier.YourTurn{Board: b},
			notifier.YourTurn{Hand: hand, Board: b},
			notifier.PromptWaiting{Prompts: prompt, Board: b},
			notifier.QueuedActions{},
			notifier.DeadlineReminder{Board: b},
			notifier.DeadlineReminder{Prompt: true, Prompts: prompt, Board: b},
			notifier.TimeoutApplied{},
			notifier.GameOver{},
			notifier.VacationNotice{},
			notifier.SeatReclaimed{},
			notifier.TableTalk{},
		}
		kinds := map[string]bool{}
		for i, d := range data {
			kind := string(d.Kind())
			kinds[kind] = true
			_, public, err := notifier.Payload(d)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(public), "null") && !strings.Contains(string(public), `"board":null`) &&
				!strings.Contains(string(public), `"build":null`) {
				t.Errorf("%s, %s: a null in %s", name, kind, public)
			}
			note, _ := json.Marshal(map[string]any{"id": i + 1, "kind": kind, "game_id": 1,
				"created_at": "2026-12-01T10:00:00Z", "data": public})
			if err := checkPayload(t, "Notification", note); err != nil {
				t.Errorf("%s, %s on the stream breaks openapi.yaml: %v\n%s", name, kind, err, public)
			}
			hook, err := notifier.NewWebhookBody("dlv_1", kind, time.Now(), public)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkPayload(t, "WebhookBody", hook); err != nil {
				t.Errorf("%s, %s to a webhook breaks openapi.yaml: %v\n%s", name, kind, err, hook)
			}
		}
		for _, k := range streamKinds() {
			if !kinds[k] {
				t.Errorf("no empty %s payload built: add it to this test", k)
			}
		}
	}
	// The encoding leaves the data it was given as it was.
	d := notifier.YourTurn{Board: &notifier.Board{}}
	if _, _, err := notifier.Payload(d); err != nil || d.Since != nil || d.Board.Market != nil {
		t.Errorf("Payload changed its data: %+v %v", d, err)
	}
}

// TestBareGameMatchesContract reads a game just started (no seat has a
// prompt, no build is open, the Global zone is empty) as each seat and as
// a spectator, through every read of a game, held to the closed contract:
// its empty lists are [] and its absent objects left out.
func TestBareGameMatchesContract(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, cy := e.register("ana"), e.register("bob"), e.register("cyd")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		if g.View == nil || len(g.View.Global) != 0 || g.View.Build != nil || len(g.Prompts) != 0 {
			t.Fatalf("not a bare game: %+v", g.View)
		}
		for _, p := range []*player{ana, bob, cy} {
			for _, path := range []string{"/v1/games/%d", "/v1/games/%d/legal", "/v1/games/%d/events"} {
				r := e.do(req{Method: "GET", Path: fmt.Sprintf(path, g.ID), Token: p.Access})
				if r.Status != 200 && !(p == cy && r.Status == 403) {
					t.Fatalf("%s %s: %d %s", p.Name, path, r.Status, r.Body)
				}
				if p != cy && strings.Contains(string(r.Body), `":null`) && path != "/v1/games/%d" {
					t.Errorf("%s %s: a null in %s", p.Name, path, r.Body)
				}
			}
			e.must(200, req{Method: "GET", Path: "/v1/games", Token: p.Access})
		}
	})
}

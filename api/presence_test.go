package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
)

// turnTo submits actions for whoever the game waits for, ending turns
// where it can, until a new turn of p has started.
func turnTo(t *testing.T, e *env, id int64, players []*player, p *player) {
	t.Helper()
	left := false
	for range 200 {
		g := e.getGame(id, players[0])
		aw := awaited(g, players)
		if len(aw) == 0 {
			t.Fatalf("game %d waits for nobody", id)
		}
		if aw[0] != p {
			left = true
		} else if left {
			return
		}
		legal := e.legal(id, aw[0])
		a := legal[0]
		for _, l := range legal {
			if l.Type == engine.ActEndTurn {
				a = l
				break
			}
			if a.Type == engine.ActResign || a.Type == engine.ActVoteEnd {
				a = l
			}
		}
		a = answered(a, e.getGame(id, aw[0]).Prompts)
		e.must(200, req{Method: "POST", Path: actionsPath(id), Token: aw[0].Access,
			Body: map[string]any{"expected_version": g.Version, "actions": []engine.Action{a}}})
	}
	t.Fatalf("no new turn of %s in 200 actions", p.Name)
}

// turnMails counts the "your turn" emails to p that e's mail sink got.
func (e *notifyEnv) turnMails(p *player) int {
	n := 0
	for _, m := range e.mail.all() {
		if strings.Contains(m.Header.Get("Message-Id"), ".your_turn.") && m.To[0] == p.Name+"@example.com" {
			n++
		}
	}
	return n
}

// TestStreamPresenceAcrossServers: two servers on one Postgres database.
// Bob's notification stream is open on server A, which works no jobs;
// server B's email worker skips his turn email all the same. Once he
// disconnects his turn emails flow again, and the row of a process that
// died stops counting after the presence TTL.
func TestStreamPresenceAcrossServers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := modelstest.SchemaURL(t) // skips without TEST_DATABASE_URL, fails when it is set and unreachable
	clk := &clock{t: time.Now().UTC(), flowing: time.Now()}
	a := startNotifyEnv(t, openSchema(t, url, clk), clk, notifyOptions{databaseURL: url, idle: true})
	b := startNotifyEnv(t, openSchema(t, url, clk), clk, notifyOptions{databaseURL: url})
	ana, bob := b.register("ana"), b.register("bob")
	players := []*player{ana, bob}
	g := b.startGame(map[string]any{"mode": "fast"}, ana, bob)
	onStream := func() bool {
		on, err := b.store.OnStream(ctx, bob.ID, clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		return on
	}

	ch, stop := a.openStream(t, "/v1/notifications/stream", bob.Access, "")
	waitFor(t, "bob's presence", onStream)
	turnTo(t, b.env, g.ID, players, bob)
	for ev := next(t, ch); ev.Type != "your_turn"; ev = next(t, ch) {
	}
	b.drain(t)
	if n := b.turnMails(bob); n != 0 {
		t.Fatalf("bob got %d turn emails while on server A's stream", n)
	}

	stop()
	waitFor(t, "bob's presence to end", func() bool { return !onStream() })
	turnTo(t, b.env, g.ID, players, bob)
	waitFor(t, "bob's turn email after he left", func() bool { return b.turnMails(bob) == 1 })

	// A process that dies leaves its row behind: no heartbeat, no leave.
	dead := notifier.NewPresence(a.store, notifier.PresenceOptions{Now: clk.Now})
	if _, err := dead.Enter(ctx, bob.ID); err != nil {
		t.Fatal(err)
	}
	turnTo(t, b.env, g.ID, players, bob)
	b.drain(t)
	if n := b.turnMails(bob); n != 1 {
		t.Fatalf("%d turn emails while the dead process's row is fresh, want 1", n)
	}
	clk.Add(notifier.DefaultPresenceTTL + time.Second)
	if onStream() {
		t.Fatal("the dead process's row outlived its TTL")
	}
	turnTo(t, b.env, g.ID, players, bob)
	waitFor(t, "bob's turn email once the row expired", func() bool { return b.turnMails(bob) == 2 })
}

package api_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestTimeouts: a game's deadline is kept by the outbox's scheduled jobs
// alone, on the injected clock: the reminder at 80% of the turn emails the
// awaited player, and the timeout job at the deadline submits the engine's
// timeout through the server, once. The clock has nanoseconds, which
// Postgres does not keep: the jobs must still know their deadline.
func TestTimeouts(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ctx := context.Background()
		ana, bob := e.register("ana"), e.register("bob")
		players := []*player{ana, bob}
		g := e.startGame(map[string]any{"mode": "fast", "turn_deadline_seconds": 3600}, ana, bob)
		first := awaited(g, players)[0]
		e.drain(t)
		if ok, err := e.play.Timeout(ctx, g.ID); ok || err != nil {
			t.Fatalf("timeout before the deadline: %v %v", ok, err)
		}
		mails := func(kind, to string) int {
			n := 0
			for _, m := range e.mail.all() {
				if strings.Contains(m.Header.Get("Message-Id"), "."+kind+".") && m.To[0] == to+"@example.com" {
					n++
				}
			}
			return n
		}
		e.clock.Add(47 * time.Minute)
		if n, err := e.ob.RunDue(ctx); err != nil || n != 0 {
			t.Fatalf("due at 47 min: %d %v", n, err)
		}
		// Due now; River's scheduler, on the same clock, may have made the
		// job available before RunDue does: what counts is the effect.
		e.clock.Add(2 * time.Minute)
		if n, err := e.ob.RunDue(ctx); err != nil || n > 1 {
			t.Fatalf("due at 49 min (the reminder): %d %v", n, err)
		}
		waitFor(t, "the reminder email", func() bool { return mails("deadline_reminder", first.Name) == 1 })
		e.clock.Add(11*time.Minute + time.Second)
		if n, err := e.ob.RunDue(ctx); err != nil || n > 1 {
			t.Fatalf("due at the deadline: %d %v", n, err)
		}
		waitFor(t, "the timeout", func() bool { return e.getGame(g.ID, ana).Version == g.Version+1 })
		after := e.getGame(g.ID, ana)
		if awaited(after, players)[0] == first {
			t.Fatalf("the turn did not pass: awaiting %v", after.View.Awaiting)
		}
		// One email each: the one who ran out of time is told so, the other
		// that their turn starts (and why).
		second := players[0]
		if first == players[0] {
			second = players[1]
		}
		waitFor(t, "the timeout emails", func() bool {
			return mails("timeout_applied", first.Name) == 1 && mails("timeout_applied", second.Name) == 0 &&
				mails("your_turn", second.Name) == 1
		})
		// The new turn has a new deadline: nothing more is due.
		if n, err := e.ob.RunDue(ctx); err != nil || n != 0 {
			t.Fatalf("due after the timeout: %d %v", n, err)
		}
		if ok, _ := e.play.Timeout(ctx, g.ID); ok {
			t.Fatal("timeout applied twice")
		}
		e.drain(t)
		if v := e.getGame(g.ID, ana).Version; v != g.Version+1 {
			t.Fatalf("version %d after one timeout, want %d", v, g.Version+1)
		}
	})
}

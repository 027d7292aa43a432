package api_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/datamonsters/turns/api"
)

func TestTimeouts(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		players := []*player{ana, bob}
		g := e.startGame(map[string]any{"mode": "fast", "turn_deadline_seconds": 3600}, ana, bob)
		first := awaited(g, players)[0]
		srv := api.New(e.store, testConfig(), slog.New(slog.NewJSONHandler(io.Discard, nil)), e.clock.Now)
		ctx := context.Background()
		if ok, err := srv.Timeout(ctx, g.ID); ok || err != nil {
			t.Fatalf("timeout before the deadline: %v %v", ok, err)
		}
		if due, _ := e.store.DueGames(ctx, e.clock.Now(), 10); len(due) != 0 {
			t.Fatalf("due too early: %v", due)
		}
		e.clock.Add(time.Hour + time.Second)
		due, err := e.store.DueGames(ctx, e.clock.Now(), 10)
		if err != nil || len(due) != 1 || due[0] != g.ID {
			t.Fatalf("due: %v %v", due, err)
		}
		if ok, err := srv.Timeout(ctx, g.ID); !ok || err != nil {
			t.Fatalf("timeout after the deadline: %v %v", ok, err)
		}
		after := e.getGame(g.ID, ana)
		if after.Version != g.Version+1 || awaited(after, players)[0] == first {
			t.Fatalf("the turn did not pass: version %d, awaiting %v", after.Version, after.View.Awaiting)
		}
		// The new turn has a new deadline: nothing more is due.
		if ok, _ := srv.Timeout(ctx, g.ID); ok {
			t.Fatal("timeout applied twice")
		}
	})
}

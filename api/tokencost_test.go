package api_test

import (
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestChangeChecksTokenAlongItsLock: a submission made with a login's
// access token spends no statement of its own on the token's check (its
// generation and session are read along the game's lock, see
// models.TokenCheck): on Postgres the one statement the counter sees is
// that lock (the change's write and the jobs' insert go to the connection
// unseen), and one refused at a stale version makes that one alone too.
// (That the check refuses what it should: ended, in auth_test.go.)
func TestChangeChecksTokenAlongItsLock(t *testing.T) {
	url := modelstest.SchemaURL(t)
	clk := &clock{t: time.Now().UTC(), flowing: time.Now()}
	// A server as serve runs one on Postgres, with an outbox that writes
	// the jobs and works none (another server would): nothing else sends
	// statements meanwhile.
	e := startNotifyEnv(t, openSchema(t, url, clk), clk, notifyOptions{databaseURL: url, idle: true})
	ana, bob := e.register("ana"), e.register("bob")
	g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	p := ana
	if g.View.Active == 1 {
		p = bob
	}
	count := e.store.CountStatementsForTest()
	before := count()
	e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: p.Access,
		Body: map[string]any{"expected_version": g.Version, "actions": []engine.Action{{Type: engine.ActEndTurn}}}})
	if n := count() - before; n != 1 {
		t.Errorf("a submission made %d statements the counter sees, want 1 (the game's lock)", n)
	}
	before = count()
	e.must(409, req{Method: "POST", Path: actionsPath(g.ID), Token: p.Access,
		Body: map[string]any{"expected_version": g.Version, "actions": []engine.Action{{Type: engine.ActEndTurn}}}})
	if n := count() - before; n != 1 {
		t.Errorf("a submission at a stale version made %d statements, want 1 (the game's lock)", n)
	}
}

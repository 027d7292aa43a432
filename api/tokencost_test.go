package api_test

import (
	"bufio"
	"context"
	"fmt"
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

// TestStreamHeartbeatOneRead: at every heartbeat a game's stream opened
// with a login's access token reads the game (the catch-up, see
// notifier.GameStream.Catch) and checks the token: the token's
// generation and session are read along with the game, so a heartbeat
// makes one statement, not two. (That the check still ends the stream at
// a logout: TestAttackStreamEndsWhenSessionEnds, and below.)
func TestStreamHeartbeatOneRead(t *testing.T) {
	url := modelstest.SchemaURL(t)
	clk := &clock{t: time.Now().UTC(), flowing: time.Now()}
	st := openSchema(t, url, clk)
	count := st.CountStatementsForTest() // before anything reads the store: it registers GORM callbacks
	e := startNotifyEnv(t, st, clk, notifyOptions{databaseURL: url, idle: true, heartbeat: 100 * time.Millisecond})
	ana, bob := e.register("ana"), e.register("bob")
	g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := e.rawStream(t, ctx, fmt.Sprintf("/v1/games/%d/stream", g.ID), bob.Access, "", false)
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("bob's stream: %d", res.StatusCode)
	}
	lines := bufio.NewScanner(res.Body)
	ping := func() bool {
		for lines.Scan() {
			if lines.Text() == ": ping" {
				return true
			}
		}
		return false
	}
	ping() // the heartbeats from here on
	const beats = 5
	before := count()
	for range beats {
		if !ping() {
			t.Fatal("the stream ended")
		}
	}
	// The heartbeat's read after the last ping may be counted too, and a
	// refresh of the stream's presence row.
	if n := count() - before; n > beats+2 {
		t.Errorf("%d heartbeats made %d statements, want one each", beats, n)
	}
	e.must(204, req{Method: "POST", Path: "/v1/auth/logout", Body: map[string]string{"refresh_token": bob.Refresh}})
	ended := make(chan bool, 1)
	go func() {
		for ping() {
		}
		ended <- true
	}()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("bob's stream is still open 5 s after his logout")
	}
}

package notifier

import (
	"context"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// TestPresence: a connection's row counts until its TTL unless the
// heartbeat refreshes it; the heartbeat writes a lost row again; leaving,
// and the end of Run, delete the rows.
func TestPresence(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		ana, ben := e.users[0].ID, e.users[1].ID
		on := func(uid int64) bool {
			t.Helper()
			ok, err := e.st.OnStream(ctx, uid, e.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		p := NewPresence(e.st, PresenceOptions{TTL: 30 * time.Second, Now: e.clock.Now})
		leaveAna, err := p.Enter(ctx, ana)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Enter(ctx, ben); err != nil {
			t.Fatal(err)
		}
		if !on(ana) || !on(ben) || on(e.users[2].ID) {
			t.Fatalf("after entering: ana %v, ben %v, cy %v", on(ana), on(ben), on(e.users[2].ID))
		}
		for range 3 { // 60 s in all, each step within the TTL
			e.clock.Add(20 * time.Second)
			if err := p.Heartbeat(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if !on(ana) {
			t.Fatal("the heartbeat did not keep ana's row")
		}
		if err := e.st.ExecForTest(ctx, "DELETE FROM stream_presence"); err != nil {
			t.Fatal(err)
		}
		if on(ana) {
			t.Fatal("row still there")
		}
		if err := p.Heartbeat(ctx); err != nil {
			t.Fatal(err)
		}
		if !on(ana) || !on(ben) {
			t.Fatal("the heartbeat did not write the lost rows again")
		}
		leaveAna()
		if on(ana) || !on(ben) {
			t.Fatalf("after ana left: ana %v, ben %v", on(ana), on(ben))
		}
		// Another process dies with a connection open: no heartbeat, no leave.
		dead := NewPresence(e.st, PresenceOptions{TTL: 30 * time.Second, Now: e.clock.Now})
		if _, err := dead.Enter(ctx, ana); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(29 * time.Second)
		if err := p.Heartbeat(ctx); err != nil {
			t.Fatal(err)
		}
		if !on(ana) {
			t.Fatal("the dead process's row expired early")
		}
		e.clock.Add(2 * time.Second)
		if on(ana) || !on(ben) {
			t.Fatalf("after the TTL: ana %v (the dead process's), ben %v", on(ana), on(ben))
		}
		// Run ends with its context and takes the process's rows along.
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { p.Run(rctx); close(done) }()
		cancel()
		<-done
		if on(ben) {
			t.Fatal("ben's row outlived its process's shutdown")
		}
	})
}

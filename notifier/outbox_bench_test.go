package notifier

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

var versionRe = regexp.MustCompile(`^<game-(\d+)\.g\d+\.v(\d+)\.`)

// BenchmarkOutboxCommitToSMTP plays greedy-bot turns on 20 games at 100
// turns per second for 3 seconds, each turn committed with its outbox jobs,
// and reports the time from a turn's commit to the SMTP sink accepting each
// of its emails (p50, p99). Then it commits 300 more turns with no worker
// running and reports how fast a starting outbox drains them (emails/s).
// Run with TEST_DATABASE_URL set to measure Postgres instead of SQLite:
//
//	go test ./notifier -run '^$' -bench OutboxCommitToSMTP -benchtime 1x
func BenchmarkOutboxCommitToSMTP(b *testing.B) {
	d := modelstest.Dialects()[len(modelstest.Dialects())-1]
	for range b.N {
		runOutboxBench(b, d)
	}
}

func runOutboxBench(b *testing.B, d models.Dialect) {
	ctx := context.Background()
	clock := &testClock{t: time.Now().UTC()}
	st := modelstest.Open(b, d, models.Options{Now: clock.Now})
	if err := MigrateRiver(ctx, st); err != nil {
		b.Fatal(err)
	}
	sink := startSink(b, sinkOptions{})
	e := &outboxEnv{st: st, hub: NewHub(0), clock: clock}
	e.cfg = OutboxConfig{Store: st, Email: sink.config(), Hub: e.hub}
	sender, err := NewSMTPSender(sink.config(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer sender.Close()
	newOutbox := func() *Outbox {
		cfg := e.cfg
		cfg.Sender = sender
		o, err := NewOutbox(cfg)
		if err != nil {
			b.Fatal(err)
		}
		st.SetOutbox(o)
		return o
	}
	for _, name := range []string{"ana", "ben", "cy"} {
		u := &models.User{Username: name, Email: name + "@example.com", NotifyEmail: true, NotifyTurns: true}
		if err := st.CreateUser(ctx, u, "x"); err != nil {
			b.Fatal(err)
		}
		e.users = append(e.users, u)
	}
	o := newOutbox()
	if err := o.Start(ctx); err != nil {
		b.Fatal(err)
	}
	var games []int64
	for range 20 {
		g := e.createGame(b)
		e.start(b, g.ID)
		games = append(games, g.ID)
	}
	time.Sleep(time.Second)
	base := sink.accepted()
	committed := map[string]time.Time{} // "game.version" -> commit time
	r := rand.New(rand.NewPCG(3, 4))
	tick := time.NewTicker(10 * time.Millisecond)
	turns := 0
	for i := 0; turns < 300; i++ {
		<-tick.C
		id := games[i%len(games)]
		g, err := st.Game(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		v := g.Version
		if !e.step(b, id, r) {
			continue
		}
		committed[fmt.Sprintf("%d.%d", id, v+1)] = time.Now()
		turns++
	}
	tick.Stop()
	deadline := time.Now().Add(30 * time.Second)
	var lat []time.Duration
	for time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		lat = lat[:0]
		for _, msg := range sink.messages() {
			m := versionRe.FindStringSubmatch(msg.MessageID)
			if m == nil {
				continue
			}
			if c, ok := committed[m[1]+"."+m[2]]; ok {
				lat = append(lat, msg.At.Sub(c))
			}
		}
		db, _ := st.SQLDB()
		var left int
		db.QueryRow(`SELECT COUNT(*) FROM river_job WHERE kind = 'dm_email' AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&left)
		if left == 0 {
			break
		}
	}
	slices.Sort(lat)
	if len(lat) == 0 {
		b.Fatal("no email measured")
	}
	p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
	b.ReportMetric(float64(p(0.5).Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(p(0.99).Microseconds())/1000, "p99_ms")
	b.ReportMetric(float64(len(lat)), "emails_timed")
	b.Logf("%s: %d turns at 100/s, %d emails (%d before): commit to SMTP accept p50 %v, p99 %v", d, turns, len(lat), base, p(0.5), p(0.99))

	// Throughput: emails committed while no worker ran, drained at start.
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	o.Stop(sctx)
	cancel()
	o = newOutbox()
	before := sink.accepted()
	for range 200 {
		g := e.createGame(b)
		e.start(b, g.ID)
	}
	want := 200 * 5
	start := time.Now()
	if err := o.Start(ctx); err != nil {
		b.Fatal(err)
	}
	for sink.accepted() < before+want && time.Since(start) < 60*time.Second {
		time.Sleep(5 * time.Millisecond)
	}
	el := time.Since(start)
	rate := float64(sink.accepted()-before) / el.Seconds()
	b.ReportMetric(rate, "emails/s")
	b.Logf("%s: %d queued emails drained in %v: %.0f emails/s", d, sink.accepted()-before, el, rate)
	sctx, cancel = context.WithTimeout(ctx, 10*time.Second)
	o.Stop(sctx)
	cancel()
}

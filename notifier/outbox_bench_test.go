package notifier

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/mail"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/emersion/go-smtp"
)

// timedSink is an SMTP server that notes when it accepted each Message-ID.
type timedSink struct {
	mu  sync.Mutex
	at  map[string]time.Time
	cfg EmailConfig
}

func startTimedSink(b testing.TB) *timedSink {
	s := &timedSink{at: map[string]time.Time{}}
	srv := smtp.NewServer(s)
	srv.Domain = "localhost"
	srv.ErrorLog = discardLogger{}
	srv.MaxMessageBytes = 1 << 20
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	s.cfg = EmailConfig{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, TLS: TLSNone,
		From: mail.Address{Name: "Data Monsters", Address: "turns@dm.example"}, BaseURL: "https://dm.example", Timeout: 5 * time.Second}
	return s
}

func (s *timedSink) NewSession(*smtp.Conn) (smtp.Session, error) { return &timedSession{s: s}, nil }

func (s *timedSink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.at)
}

type timedSession struct{ s *timedSink }

func (ts *timedSession) Mail(string, *smtp.MailOptions) error { return nil }
func (ts *timedSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (ts *timedSession) Data(r io.Reader) error {
	m, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, m.Body)
	now := time.Now()
	ts.s.mu.Lock()
	ts.s.at[m.Header.Get("Message-Id")] = now
	ts.s.mu.Unlock()
	return nil
}
func (ts *timedSession) Reset()        {}
func (ts *timedSession) Logout() error { return nil }

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
	sink := startTimedSink(b)
	e := &outboxEnv{st: st, hub: NewHub(0), clock: clock}
	e.cfg = OutboxConfig{Store: st, Email: sink.cfg, Hub: e.hub}
	sender, err := NewSMTPSender(sink.cfg, nil)
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
	base := sink.count()
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
		sink.mu.Lock()
		lat = lat[:0]
		for id, at := range sink.at {
			m := versionRe.FindStringSubmatch(id)
			if m == nil {
				continue
			}
			if c, ok := committed[m[1]+"."+m[2]]; ok {
				lat = append(lat, at.Sub(c))
			}
		}
		sink.mu.Unlock()
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
	before := sink.count()
	for range 200 {
		g := e.createGame(b)
		e.start(b, g.ID)
	}
	want := 200 * 5
	start := time.Now()
	if err := o.Start(ctx); err != nil {
		b.Fatal(err)
	}
	for sink.count() < before+want && time.Since(start) < 60*time.Second {
		time.Sleep(5 * time.Millisecond)
	}
	el := time.Since(start)
	rate := float64(sink.count()-before) / el.Seconds()
	b.ReportMetric(rate, "emails/s")
	b.Logf("%s: %d queued emails drained in %v: %.0f emails/s", d, sink.count()-before, el, rate)
	sctx, cancel = context.WithTimeout(ctx, 10*time.Second)
	o.Stop(sctx)
	cancel()
}

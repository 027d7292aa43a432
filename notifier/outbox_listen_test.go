package notifier

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
)

// twoProcesses is two servers on one Postgres database (a fresh schema),
// each with its own store, hub and outbox, both listening. Only a works
// jobs; b only listens.
type twoProcesses struct {
	a, b     *Outbox
	stA, stB *models.Store
	hubA     *Hub
	hubB     *Hub
	e        *outboxEnv // on a's store, with three users
}

func startTwoProcesses(t *testing.T) *twoProcesses {
	url := modelstest.SchemaURL(t) // skips without TEST_DATABASE_URL, fails if unreachable
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	open := func() *models.Store {
		st, err := models.Open(ctx, url, "", models.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if _, err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if err := MigrateRiver(ctx, st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	p := &twoProcesses{stA: open(), stB: open(), hubA: NewHub(0), hubB: NewHub(0)}
	s := startSink(t, sinkOptions{})
	sender, err := NewSMTPSender(s.config(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sender.Close() })
	if p.a, err = NewOutbox(OutboxConfig{Store: p.stA, Sender: sender, Email: s.config(), Hub: p.hubA, DatabaseURL: url,
		PollInterval: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if p.b, err = NewOutbox(OutboxConfig{Store: p.stB, Sender: sender, Email: s.config(), Hub: p.hubB, DatabaseURL: url}); err != nil {
		t.Fatal(err)
	}
	p.stA.SetOutbox(p.a)
	if err := p.a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.a.Stop(context.Background()) })
	go p.a.Listen(ctx)
	go p.b.Listen(ctx)
	waitFor(t, "both listeners", func() bool { return p.a.Listening() && p.b.Listening() })
	p.e = &outboxEnv{st: p.stA, sink: s, clock: &testClock{t: time.Now()}}
	for _, name := range []string{"ana", "ben", "cy"} {
		u := &models.User{Username: name, Email: name + "@example.com", NotifyEmail: true, NotifyTurns: true}
		if err := p.stA.CreateUser(ctx, u, "x"); err != nil {
			t.Fatal(err)
		}
		p.e.users = append(p.e.users, u)
	}
	return p
}

func recvWithin(t *testing.T, sub *Subscription, what string) Event {
	t.Helper()
	select {
	case ev, ok := <-sub.Events():
		if !ok {
			t.Fatalf("%s: subscription closed", what)
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: nothing within 10 s", what)
	}
	return Event{}
}

// TestStreamAcrossProcesses: a client of the process that works no jobs
// receives a notification and the game's events through NOTIFY.
func TestStreamAcrossProcesses(t *testing.T) {
	p := startTwoProcesses(t)
	sub := p.hubB.Subscribe(UserTopic(strconv.FormatInt(p.e.users[1].ID, 10)))
	defer sub.Close()
	g := p.e.createGame(t)
	if ev := recvWithin(t, sub, "the other process's user stream"); ev.Type != "invitation" || ev.ID == "" {
		t.Fatalf("got %+v", ev)
	}
	gsub := p.hubB.Subscribe(GameSeatTopic(g.ID, 1))
	defer gsub.Close()
	p.e.start(t, g.ID)
	if ev := recvWithin(t, gsub, "the other process's game stream"); ev.Type != "event" || ev.ID != "1" {
		t.Fatalf("got %+v", ev)
	}
}

// TestStreamLargeAcrossProcesses: a notification far larger than a NOTIFY
// payload may be reaches the subscribers of both processes whole, because
// the payload names it and each process reads it.
func TestStreamLargeAcrossProcesses(t *testing.T) {
	p := startTwoProcesses(t)
	ctx := context.Background()
	ben := p.e.users[1]
	topic := UserTopic(strconv.FormatInt(ben.ID, 10))
	subA, subB := p.hubA.Subscribe(topic), p.hubB.Subscribe(topic)
	defer subA.Close()
	defer subB.Close()
	body, _ := json.Marshal(map[string]string{"text": strings.Repeat("Ana drew a card. ", 4000)}) // ~68 KB
	n := &models.Notification{UserID: ben.ID, Kind: string(KindYourTurn), Body: string(body)}
	if err := p.stA.AddNotification(ctx, n); err != nil {
		t.Fatal(err)
	}
	if _, err := p.a.Client().Insert(ctx, StreamArgs{Key: "large", Notes: []StreamNote{{ben.ID, n.ID}}}, nil); err != nil {
		t.Fatal(err)
	}
	for name, sub := range map[string]*Subscription{"working process": subA, "other process": subB} {
		ev := recvWithin(t, sub, name)
		var got struct {
			ID   int64           `json:"id"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(ev.Data, &got); err != nil || ev.ID != strconv.FormatInt(n.ID, 10) || got.ID != n.ID ||
			string(got.Data) != string(body) {
			t.Fatalf("%s got event %s of %d bytes (%v), want the %d-byte notification %d", name, ev.ID, len(ev.Data), err, len(body), n.ID)
		}
	}
}

// TestStreamNotifiesInTransaction: listening on Postgres, a change
// announces itself with a NOTIFY in its own transaction instead of a
// stream job: one per change, none for a change rolled back.
func TestStreamNotifiesInTransaction(t *testing.T) {
	p := startTwoProcesses(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, p.a.cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		t.Fatal(err)
	}
	next := func(within time.Duration) (StreamArgs, bool) {
		wctx, cancel := context.WithTimeout(ctx, within)
		defer cancel()
		n, err := conn.WaitForNotification(wctx)
		if err != nil {
			return StreamArgs{}, false
		}
		a, err := DecodeNotify(n.Payload)
		if err != nil {
			t.Fatal(err)
		}
		return a, true
	}
	g := p.e.createGame(t)
	p.e.start(t, g.ID)
	r := rand.New(rand.NewPCG(5, 6))
	changes := 2
	for range 6 {
		changes++
		if !p.e.step(t, g.ID, r) {
			break
		}
	}
	keys := map[string]bool{}
	for range changes {
		a, ok := next(10 * time.Second)
		if !ok {
			t.Fatalf("%d notifications for %d changes", len(keys), changes)
		}
		keys[a.Key] = true
	}
	if len(keys) != changes || !keys[streamKey(g.ID, 1)] || !keys[streamKey(g.ID, 2)] {
		t.Fatalf("notified %v for %d changes", keys, changes)
	}
	res, err := p.a.Client().JobList(ctx, river.NewJobListParams().Kinds(streamKind))
	if err != nil || len(res.Jobs) != 0 {
		t.Fatalf("%d stream jobs (%v), want none", len(res.Jobs), err)
	}
	err = p.stA.Begin(ctx, func(tx models.OutboxTx) error {
		if err := p.a.stream(ctx, tx.Tx, StreamArgs{Key: "rolled-back", GameID: g.ID, FromSeq: 1, ToSeq: 1}); err != nil {
			t.Fatal(err)
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
	if a, ok := next(300 * time.Millisecond); ok {
		t.Fatalf("a rolled-back change notified %+v", a)
	}
}

var errRollback = errors.New("roll back")

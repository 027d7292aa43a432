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
	ctx := context.Background()
	ben := p.e.users[1].ID
	sub := p.hubB.Subscribe(UserTopic(strconv.FormatInt(ben, 10)))
	defer sub.Close()
	presence := NewPresence(p.stB, PresenceOptions{})
	leave, err := presence.Enter(ctx, ben)
	defer leave()
	if err != nil {
		t.Fatal(err)
	}
	g := p.e.createGame(t)
	recvWithin(t, sub, "the other process's user stream")
	if ev := feedOne(t, p.stB, p.b, ben); ev.Type != "invitation" || ev.ID == "" {
		t.Fatalf("got %+v", ev)
	}
	gsub := p.hubB.Subscribe(GameSeatTopic(g.ID, 1))
	defer gsub.Close()
	leaveGame, err := presence.EnterGame(ctx, ben, g.ID)
	defer leaveGame()
	if err != nil {
		t.Fatal(err)
	}
	p.e.start(t, g.ID)
	if ev := recvWithin(t, gsub, "the other process's game stream"); ev.Type != "event" || ev.ID != "1" {
		t.Fatalf("got %+v", ev)
	}
}

// TestSpectatorStreamAcrossProcesses: a spectator signed in nowhere, on
// the process that works no jobs, follows a game (a presence row without a
// user) and receives its public events through NOTIFY.
func TestSpectatorStreamAcrossProcesses(t *testing.T) {
	p := startTwoProcesses(t)
	ctx := context.Background()
	g := p.e.createGame(t)
	sub := p.hubB.Subscribe(GameSeatTopic(g.ID, -1))
	defer sub.Close()
	presence := NewPresence(p.stB, PresenceOptions{})
	leave, err := presence.EnterGame(ctx, 0, g.ID)
	defer leave()
	if err != nil {
		t.Fatalf("a spectator's presence: %v", err)
	}
	p.e.start(t, g.ID)
	if ev := recvWithin(t, sub, "the spectator's game stream"); ev.Type != "event" || ev.ID != "1" {
		t.Fatalf("got %+v", ev)
	}
}

// feedOne is the first notification of user's stream on the process of
// st and o, read as the stream reads it on a notice (and again while the
// feed says so: a transaction of another test may hold it back).
func feedOne(t *testing.T, st *models.Store, o *Outbox, user int64) Event {
	t.Helper()
	f, err := OpenNotificationFeed(context.Background(), st, o, user, 0)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		evs, again, err := f.Next(context.Background())
		switch {
		case err != nil:
			t.Fatal(err)
		case len(evs) > 0:
			return evs[0]
		case !again || time.Now().After(deadline):
			t.Fatalf("the stream of user %d read nothing (again %t)", user, again)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStreamLargeAcrossProcesses: a notification far larger than a NOTIFY
// payload may be reaches the subscribers of both processes whole, because
// the payload names it and each process's stream reads it.
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
	for name, proc := range map[string]struct {
		sub *Subscription
		st  *models.Store
		o   *Outbox
	}{"working process": {subA, p.stA, p.a}, "other process": {subB, p.stB, p.b}} {
		recvWithin(t, proc.sub, name)
		ev := feedOne(t, proc.st, proc.o, ben.ID)
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

// listener is a LISTEN connection of its own on the test's Postgres schema.
type listener struct {
	t    *testing.T
	conn *pgx.Conn
}

func listen(t *testing.T, url string) *listener {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	var schema string
	if err := conn.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, listenChannel(schema)); err != nil {
		t.Fatal(err)
	}
	return &listener{t: t, conn: conn}
}

// until returns the payloads that arrive before quiet passes without one,
// decoded, and each no longer than Postgres allows.
func (l *listener) until(quiet time.Duration) []StreamArgs {
	var out []StreamArgs
	for {
		ctx, cancel := context.WithTimeout(context.Background(), quiet)
		n, err := l.conn.WaitForNotification(ctx)
		cancel()
		if err != nil {
			return out
		}
		a, err := DecodeNotify(n.Payload)
		if err != nil || len(n.Payload) > maxNotify {
			l.t.Fatalf("payload of %d bytes: %v", len(n.Payload), err)
		}
		out = append(out, a)
	}
}

// TestChangesAnnounce: on Postgres a game change announces the events and
// notifications it stores with a NOTIFY from its own write, only those
// someone follows on the live stream: nothing while nobody has a stream
// open; then each event and notification exactly once, with no stream job,
// and only to listeners of the change's schema. Notifications stored
// outside a change are announced in their transaction, which a rollback
// takes back.
func TestChangesAnnounce(t *testing.T) {
	p := startTwoProcesses(t)
	ctx := context.Background()
	l := listen(t, p.a.cfg.DatabaseURL)
	other := listen(t, modelstest.SchemaURL(t)) // another deployment's schema
	g := p.e.createGame(t)
	if got := l.until(500 * time.Millisecond); len(got) == 0 {
		t.Fatal("the invitations were not announced")
	}
	p.e.start(t, g.ID)
	r := rand.New(rand.NewPCG(5, 6))
	p.e.step(t, g.ID, r)
	if got := l.until(300 * time.Millisecond); len(got) != 0 {
		t.Fatalf("changes nobody follows announced %+v", got)
	}
	stored := func() (seq, note int64) {
		events, err := p.stA.EventsAfter(ctx, g.ID, 0, 10000)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) > 0 {
			seq = events[len(events)-1].Seq
		}
		for _, u := range p.e.users {
			ns, err := p.stA.NotificationsAfter(ctx, u.ID, 0, 10000)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range ns {
				note = max(note, n.ID)
			}
		}
		return seq, note
	}
	seq0, note0 := stored()

	presence := NewPresence(p.stB, PresenceOptions{})
	for _, u := range p.e.users {
		leave, err := presence.Enter(ctx, u.ID)
		defer leave()
		if err != nil {
			t.Fatal(err)
		}
	}
	leave, err := presence.EnterGame(ctx, p.e.users[0].ID, g.ID)
	defer leave()
	if err != nil {
		t.Fatal(err)
	}
	for range 6 {
		if !p.e.step(t, g.ID, r) {
			break
		}
	}
	got := l.until(time.Second)
	seqs, notes := map[int64]int{}, map[int64]int{}
	for _, a := range got {
		for seq := a.FromSeq; a.FromSeq > 0 && seq <= a.ToSeq; seq++ {
			seqs[seq]++
		}
		for _, n := range a.Notes {
			notes[n.NotificationID]++
		}
	}
	seq1, note1 := stored()
	for seq := seq0 + 1; seq <= seq1; seq++ {
		if seqs[seq] != 1 {
			t.Fatalf("event %d announced %d times", seq, seqs[seq])
		}
	}
	wantNotes := 0
	for _, u := range p.e.users {
		ns, err := p.stA.NotificationsAfter(ctx, u.ID, note0, 10000)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			wantNotes++
			if notes[n.ID] != 1 {
				t.Fatalf("notification %d announced %d times", n.ID, notes[n.ID])
			}
		}
	}
	if len(seqs) != int(seq1-seq0) || len(notes) != wantNotes || wantNotes == 0 || note1 <= note0 {
		t.Fatalf("%d events and %d notifications announced, %d and %d stored", len(seqs), len(notes), seq1-seq0, wantNotes)
	}
	res, err := p.a.Client().JobList(ctx, river.NewJobListParams().Kinds(streamKind))
	if err != nil || len(res.Jobs) != 0 {
		t.Fatalf("%d stream jobs (%v), want none", len(res.Jobs), err)
	}
	if heard := other.until(10 * time.Millisecond); len(heard) != 0 {
		t.Fatalf("another schema heard %d announcements", len(heard))
	}

	err = p.stA.Begin(ctx, func(tx models.OutboxTx) error {
		n := &models.Notification{UserID: p.e.users[0].ID, Kind: string(KindYourTurn), Body: "{}"}
		if err := tx.Store.AddNotification(ctx, n); err != nil {
			t.Fatal(err)
		}
		if err := p.a.stream(ctx, tx.Tx, StreamArgs{Notes: []StreamNote{{n.UserID, n.ID}}}); err != nil {
			t.Fatal(err)
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
	if got := l.until(300 * time.Millisecond); len(got) != 0 {
		t.Fatalf("a rolled-back notification was announced: %+v", got)
	}
}

var errRollback = errors.New("roll back")

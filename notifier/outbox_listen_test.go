package notifier

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestStreamAcrossProcesses: two servers on one Postgres database, each
// with its own hub. Only the first works jobs; a client of the second
// receives the notification through NOTIFY.
func TestStreamAcrossProcesses(t *testing.T) {
	url := modelstest.SchemaURL(t) // skips without TEST_DATABASE_URL
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
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
	stA, stB := open(), open()
	s := startSink(t, sinkOptions{})
	sender, err := NewSMTPSender(s.config(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sender.Close()
	hubA, hubB := NewHub(0), NewHub(0)
	a, err := NewOutbox(OutboxConfig{Store: stA, Sender: sender, Email: s.config(), Hub: hubA, DatabaseURL: url, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewOutbox(OutboxConfig{Store: stB, Sender: sender, Email: s.config(), Hub: hubB, DatabaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	stA.SetOutbox(a)
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer a.Stop(context.Background())
	go a.Listen(ctx)
	go b.Listen(ctx) // process B only listens
	waitFor(t, "both listeners", func() bool { return a.Listening() && b.Listening() })

	e := &outboxEnv{st: stA, clock: &testClock{t: time.Now()}}
	for _, name := range []string{"ana", "ben", "cy"} {
		u := &models.User{Username: name, Email: name + "@example.com", NotifyEmail: true, NotifyTurns: true}
		if err := stA.CreateUser(ctx, u, "x"); err != nil {
			t.Fatal(err)
		}
		e.users = append(e.users, u)
	}
	sub := hubB.Subscribe(UserTopic(strconv.FormatInt(e.users[1].ID, 10)))
	defer sub.Close()
	e.createGame(t)
	select {
	case ev := <-sub.Events():
		if ev.Type != "invitation" || ev.ID == "" {
			t.Fatalf("got %+v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the other process's hub got nothing")
	}
}

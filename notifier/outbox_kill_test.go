package notifier

import (
	"bufio"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestOutboxKillHelper is the server process that TestOutboxSurvivesKill
// kills: it commits game changes with their outbox jobs, says so, then
// starts delivering, four at a time, until it is killed.
func TestOutboxKillHelper(t *testing.T) {
	dir := os.Getenv("DM_KILL_DIR")
	if dir == "" {
		t.Skip("run by TestOutboxSurvivesKill")
	}
	ctx := context.Background()
	port, _ := strconv.Atoi(os.Getenv("DM_KILL_SMTP_PORT"))
	st, err := models.Open(ctx, os.Getenv("DM_KILL_DATABASE_URL"), dir, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := MigrateRiver(ctx, st); err != nil {
		t.Fatal(err)
	}
	e := &outboxEnv{st: st, hub: NewHub(0), clock: &testClock{t: time.Now().UTC()}}
	e.cfg = OutboxConfig{Store: st, Email: sinkEmailConfig(port), Hub: e.hub, PollInterval: 20 * time.Millisecond, Workers: 4}
	for _, name := range []string{"ana", "ben", "cy"} {
		u := &models.User{Username: name, Email: name + "@example.com", NotifyEmail: true, NotifyTurns: true}
		if err := st.CreateUser(ctx, u, "x"); err != nil {
			t.Fatal(err)
		}
		e.users = append(e.users, u)
	}
	o := e.outbox(t, false)
	r := rand.New(rand.NewPCG(5, 6))
	for range 4 {
		g := e.createGame(t)
		e.start(t, g.ID)
		for range 15 {
			e.step(t, g.ID, r)
		}
	}
	os.Stdout.WriteString("COMMITTED\n")
	if err := o.Start(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Minute) // killed long before
}

// TestOutboxSurvivesKill runs a server process that commits game changes
// and is killed with SIGKILL while it delivers their emails to a slow SMTP
// server. A new process on the same database delivers the rest: every
// email arrives, and the only second copies are of emails the server had
// accepted before the kill (the crash window between the server's
// acceptance and the job being marked done), with the same Message-ID.
func TestOutboxSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	eachOutboxDB(t, testOutboxSurvivesKill)
}

func testOutboxSurvivesKill(t *testing.T, d models.Dialect) {
	ctx := context.Background()
	url, dir := modelstest.Location(t, d)
	sink := startSink(t, sinkOptions{delay: 100 * time.Millisecond})
	cmd := exec.Command(os.Args[0], "-test.run=^TestOutboxKillHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "DM_KILL_DIR="+dir, "DM_KILL_DATABASE_URL="+url, "DM_KILL_SMTP_PORT="+strconv.Itoa(sink.Port))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	committed := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "COMMITTED") {
				committed <- true
			}
		}
	}()
	select {
	case <-committed:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the server process did not commit")
	}
	// Kill it while deliveries are under way.
	for {
		if sink.accepted() >= 5 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killedAt := time.Now()
	before := sink.messages()

	// The restarted server. Jobs the killed one left running are worked
	// again once they count as stuck (4 job timeouts).
	st, err := models.Open(ctx, url, dir, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var want int
	db, _ := st.SQLDB()
	if err := db.QueryRow(`SELECT COUNT(*) FROM river_job WHERE kind = 'dm_email'`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if len(before) >= want {
		t.Fatalf("all %d emails were sent before the kill; the test needs a slower sink", want)
	}
	sender, err := NewSMTPSender(sinkEmailConfig(sink.Port), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sender.Close()
	// Retries come soon (a job the killed process had retried waits 5 s,
	// 10 s, 20 s... by default): what is measured is that every email
	// arrives, not the backoff.
	o, err := NewOutbox(OutboxConfig{Store: st, Sender: sender, Email: sinkEmailConfig(sink.Port), Hub: NewHub(0),
		PollInterval: 20 * time.Millisecond, JobTimeout: 500 * time.Millisecond, EmailRetryBase: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	st.SetOutbox(o)
	if err := o.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer o.Stop(context.Background())
	// Wait for every email job to be done, the rescued ones included, so
	// that every second copy has been sent. River's rescuer looks for
	// stuck jobs every 30 s, on the leader only, which a loaded machine
	// may elect again and again: the wait is long.
	deadline := time.Now().Add(150 * time.Second)
	for {
		var left int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job WHERE kind = 'dm_email'
			AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			var states []string
			rows, err := db.QueryContext(ctx, `SELECT state || ' attempt ' || attempt FROM river_job WHERE kind = 'dm_email'
				AND state NOT IN ('completed', 'cancelled', 'discarded')`)
			if err == nil {
				for rows.Next() {
					var s string
					rows.Scan(&s)
					states = append(states, s)
				}
				rows.Close()
			}
			t.Fatalf("%d of %d email jobs not done after the restart: %v", left, want, states)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var ids []string
	var at []time.Time
	for _, m := range sink.messages() {
		ids, at = append(ids, m.MessageID), append(at, m.At)
	}
	if n := len(slices.Compact(slices.Sorted(slices.Values(ids)))); n != want {
		t.Fatalf("%d distinct Message-IDs, want one per email job (%d)", n, want)
	}
	first := map[string]time.Time{}
	dups := 0
	for i, id := range ids {
		if t0, seen := first[id]; seen {
			dups++
			if t0.After(killedAt) {
				t.Fatalf("%s delivered twice, the first time after the kill", id)
			}
			continue
		}
		first[id] = at[i]
	}
	t.Logf("%d emails: %d delivered before the kill, %d after; %d second copies, all of emails accepted before the kill",
		want, len(before), len(ids)-len(before), dups)
}

package api_test

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/datamonsters/turns/internal/servetest"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

func TestMain(m *testing.M) { servetest.Main(m) }

// TestServeSurvivesKill runs the real `datamonsters serve` binary, plays a
// game over HTTP while the SMTP server holds its replies (the emails are
// committed, and those sent have arrived but are not acknowledged), kills
// the server with SIGKILL and starts it again on the same database. Every
// email arrives; the only second copies are of emails that had arrived
// by the killed server (the crash window), and they carry the same
// Message-ID. Which server sent a copy is told by its connection, not by
// the time it was read: a loaded sink may read the killed server's last
// message after the kill.
func TestServeSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		testServeSurvivesKill(t, d)
	})
}

func testServeSurvivesKill(t *testing.T, d models.Dialect) {
	ctx := context.Background()
	url, dir := modelstest.Location(t, d)
	ms := startMailSink(t)
	t.Cleanup(ms.release)
	vars := []string{"DATABASE_URL=" + url, "DATA_DIR=" + dir, "JWT_SECRET=" + string(testSecret), "LOG_LEVEL=warn",
		"SMTP_HOST=127.0.0.1", "SMTP_PORT=" + strconv.Itoa(ms.port), "SMTP_TLS=none",
		"SMTP_FROM=Data Monsters <turns@dm.example>", "BASE_URL=https://dm.example", "JOB_TIMEOUT=1s"}
	srv := servetest.Start(t, append(os.Environ(), vars...))
	e := &env{t: t, base: srv.Base, http: &http.Client{Timeout: 30 * time.Second}}
	ana, bob := e.register("ana"), e.register("bob")
	players := []*player{ana, bob}
	g := e.startGame(map[string]any{"mode": "fast", "invite": []string{"bob"}}, ana, bob)
	waitFor(t, "the invitation and the game-started emails", func() bool { return len(ms.all()) == 3 })
	st, err := models.Open(ctx, url, dir, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db, err := st.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	// Their jobs are marked done (River records completions in batches):
	// only the emails held below may be in the crash window.
	waitFor(t, "the first three email jobs to be done", func() bool {
		var done int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job WHERE kind = 'dm_email' AND state = 'completed'`).Scan(&done); err != nil {
			t.Fatal(err)
		}
		return done == 3
	})

	answered := ms.all() // delivered and acknowledged: never sent again
	// From here the SMTP server takes each message but does not answer.
	ms.holdReplies()
	for range 4 {
		turnTo(t, e, g.ID, players, bob)
		turnTo(t, e, g.ID, players, ana)
	}
	waitFor(t, "an email in flight", func() bool { return ms.heldCount() > 0 })
	srv.Kill(t)
	// Every connection that can bring a message of the killed server is
	// open now: one the sink has not yet taken brings nothing, since the
	// sink speaks first.
	killedConns := ms.connCount()
	ms.release() // what had arrived is accepted now, too late for the killed server

	var want, open int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(*) FILTER (WHERE state <> 'completed') FROM river_job WHERE kind = 'dm_email'`).
		Scan(&want, &open); err != nil {
		t.Fatal(err)
	}
	if open == 0 || want < 3+8 {
		t.Fatalf("%d email jobs, %d not done at the kill: the test needs emails committed and not delivered", want, open)
	}

	srv = servetest.Start(t, append(os.Environ(), vars...))
	waitFor := func(what string, cond func() bool) {
		deadline := time.Now().Add(90 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	distinct := func() map[string][]sunkMail {
		byID := map[string][]sunkMail{}
		for _, m := range ms.all() {
			id := m.Header.Get("Message-Id")
			byID[id] = append(byID[id], m)
		}
		return byID
	}
	waitFor("every email job to be done after the restart", func() bool {
		var left int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job WHERE kind = 'dm_email'
			AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&left); err != nil {
			t.Fatal(err)
		}
		return left == 0
	})
	byID := distinct()
	if len(byID) != want {
		t.Fatalf("%d distinct Message-IDs, want one per email job (%d)", len(byID), want)
	}
	for _, m := range answered {
		if n := len(byID[m.Header.Get("Message-Id")]); n != 1 {
			t.Fatalf("%s was acknowledged before the kill and arrived %d times", m.Header.Get("Message-Id"), n)
		}
	}
	inFlight, dups := -len(answered), 0
	for id, copies := range byID {
		killed := 0
		for _, c := range copies {
			if c.Conn <= killedConns {
				killed++
			}
			if c.To[0] != copies[0].To[0] {
				t.Fatalf("%s went to %v and to %v", id, copies[0].To, c.To)
			}
		}
		inFlight += killed
		// The killed server got no answer to any of its copies; the
		// restarted one got an answer to its first.
		if again := len(copies) - killed; again > 1 {
			t.Fatalf("%s delivered %d times by the restarted server (and %d by the killed one)", id, again, killed)
		}
		dups += len(copies) - 1
	}
	t.Logf("%d emails: %d not done at the kill, %d in flight then; %d second copies, each with its first copy's Message-ID",
		want, open, inFlight, dups)
}

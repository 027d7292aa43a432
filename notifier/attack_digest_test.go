package notifier

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// digestTexts are the texts of the digests sent to addr so far.
func (e *outboxEnv) digestTexts(t *testing.T, addr string) []string {
	t.Helper()
	var out []string
	for _, m := range e.sink.messages() {
		if p := parseMail(t, m.Data); m.Rcpts[0] == addr && strings.Contains(p.Header.Get("Message-Id"), ".digest.") {
			out = append(out, p.Text)
		}
	}
	return out
}

// digestGame is a started game of three whose second player, ben, chose
// the digest, on an outbox that works its jobs.
func digestGame(t *testing.T, d models.Dialect) (*outboxEnv, *Outbox, *models.User, *models.Game) {
	t.Helper()
	e := newOutboxEnv(t, d)
	o := e.outbox(t, true)
	ben := e.users[1]
	if err := e.st.SetPreference(context.Background(), models.Preference{UserID: ben.ID, Kind: "digest", Channel: "email", Enabled: true}); err != nil {
		t.Fatal(err)
	}
	g := e.createGame(t)
	e.start(t, g.ID)
	return e, o, ben, g
}

// TestAttackDigestCommitOrder: ben chose the digest, which keeps his
// "your turn" emails. A change of one game writes his notification and
// commits only after his next digest has gone: it must be in a later
// digest. A digest that told what was written since the last one's time
// told it in none: it was written before that digest went out and
// committed after.
func TestAttackDigestCommitOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, o, ben, g := digestGame(t, models.Postgres)
	deadline := time.Now().Add(15 * time.Second)
	for len(e.digestTexts(t, ben.Email)) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // his first digest goes at once
	}
	if n := len(e.digestTexts(t, ben.Email)); n != 1 {
		t.Fatalf("%d digests for ben after the game's start, want 1", n)
	}

	// Turn 7's change writes its notification and runs on.
	held := modelstest.Begin(t, e.st)
	e.clock.Add(time.Minute)
	modelstest.Note(t, held, ben.ID, g.ID, "your_turn", `{"turn":7}`, e.clock.Now())
	// Turn 8's commits at once.
	e.clock.Add(time.Minute)
	if err := e.st.AddNotification(ctx, &models.Notification{UserID: ben.ID, GameID: &g.ID, Kind: "your_turn", Body: `{"turn":8}`}); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(25 * time.Hour)
	if err := o.RunDigest(ctx, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := held.Commit(); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(25 * time.Hour)
	if err := o.RunDigest(ctx, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // the digests' emails are jobs
	deadline = time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		all := strings.Join(e.digestTexts(t, ben.Email), "\n")
		if strings.Contains(all, "your turn 7 began") && strings.Contains(all, "your turn 8 began") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	all := strings.Join(e.digestTexts(t, ben.Email), "\n")
	for _, line := range []string{"your turn 7 began", "your turn 8 began"} {
		if n := strings.Count(all, line); n != 1 {
			t.Errorf("ben's digests say %q %d times, want once:\n%s", line, n, all)
		}
	}

	// A change that began before a committed one and commits a moment
	// after the digest begins is in it with that one: the digest waits
	// (settle) rather than leave both for the next.
	sent := len(e.digestTexts(t, ben.Email))
	held = modelstest.Begin(t, e.st)
	e.clock.Add(25 * time.Hour)
	modelstest.Note(t, held, ben.ID, g.ID, "your_turn", `{"turn":9}`, e.clock.Now())
	if err := e.st.AddNotification(ctx, &models.Notification{UserID: ben.ID, GameID: &g.ID, Kind: "your_turn", Body: `{"turn":10}`}); err != nil {
		t.Fatal(err)
	}
	ran, at := make(chan error, 1), e.clock.Now()
	go func() { ran <- o.RunDigest(ctx, at) }()
	time.Sleep(300 * time.Millisecond)
	if err := held.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	prefs, err := e.st.Preferences(ctx, []int64{ben.ID})
	if err != nil || len(prefs) != 1 {
		t.Fatal(prefs, err)
	}
	rest, _, _, err := e.st.NotificationsFrom(ctx, ben.ID, prefs[0].Told(), 10)
	if err != nil || len(rest) > 0 || prefs[0].SentAt == nil || !prefs[0].SentAt.Equal(at) {
		t.Errorf("the digest run at %v went at %v and left %d notifications (%v): it did not wait for turn 9",
			at, prefs[0].SentAt, len(rest), err)
	}
	deadline = time.Now().Add(15 * time.Second)
	for len(e.digestTexts(t, ben.Email)) == sent && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if texts := e.digestTexts(t, ben.Email); len(texts) != sent+1 || !strings.Contains(texts[sent], "your turn 9 began") ||
		!strings.Contains(texts[sent], "your turn 10 began") {
		t.Errorf("%d digests after %d, want one more telling turns 9 and 10", len(texts), sent)
	}
}

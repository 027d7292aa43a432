package notifier

import (
	"context"
	"fmt"
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
// the digest, on an outbox that works its jobs. On Postgres the game has
// a database of its own: a digest waits for every change of its database
// that runs (settle), and in the database the tests share another test's
// change held open would hold back this one's digests, and this one's
// those of the others.
func digestGame(t *testing.T, d models.Dialect) (*outboxEnv, *Outbox, *models.User, *models.Game) {
	t.Helper()
	e := newOutboxEnvOn(t, func(opt models.Options) *models.Store {
		if d == models.Postgres {
			return modelstest.OpenURL(t, modelstest.DatabaseURL(t), opt)
		}
		return modelstest.Open(t, d, opt)
	})
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
	e.awaitDigests(t, ben, 1) // his first digest goes at once

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
	deadline := time.Now().Add(15 * time.Second)
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
	ran, at, began := make(chan error, 1), e.clock.Now(), time.Now()
	go func() { ran <- o.RunDigest(ctx, at) }()
	time.Sleep(300 * time.Millisecond)
	if err := held.Commit(); err != nil {
		t.Fatal(err)
	}
	committed := time.Since(began)
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if !e.toldAll(t, ben, at, sent) {
		t.Errorf("it did not wait for turn 9, committed %v after the digest began", committed)
	}
}

// TestDigestReadsAgainWhenHeld: a digest's read may find a row held back
// that its wait saw settled (on Postgres, a transaction of another
// database that ended as the read looked counts as running). The digest
// waits and reads again rather than leave the row a whole period for the
// next digest.
func TestDigestReadsAgainWhenHeld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, o, ben, g := digestGame(t, models.Postgres)
	e.awaitDigests(t, ben, 1) // his first digest goes at once
	e.clock.Add(25 * time.Hour)
	for turn := 9; turn <= 10; turn++ {
		if err := e.st.AddNotification(ctx, &models.Notification{UserID: ben.ID, GameID: &g.ID, Kind: "your_turn",
			Body: fmt.Sprintf(`{"turn":%d}`, turn)}); err != nil {
			t.Fatal(err)
		}
	}
	// The wait's read finds nothing held; the digest's own read, the
	// second, finds turn 10 held back.
	reads := e.st.HoldNotesForTest(func(n int32) bool { return n == 2 })
	at := e.clock.Now()
	if err := o.RunDigest(ctx, at); err != nil {
		t.Fatal(err)
	}
	if n := reads(); n < 3 {
		t.Fatalf("%d reads of ben's log, want the digest's held one read again", n)
	}
	e.toldAll(t, ben, at, 1)
}

// awaitDigests waits up to 15 s until user has n digests, and fails the
// test if they have another number then.
func (e *outboxEnv) awaitDigests(t *testing.T, user *models.User, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for len(e.digestTexts(t, user.Email)) < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := len(e.digestTexts(t, user.Email)); got != n {
		t.Fatalf("%d digests for %s, want %d", got, user.Username, n)
	}
}

// toldAll checks that user's digest went at at and told all of their
// log, and that its email, the one after the sent before it, tells
// turns 9 and 10; it reports whether the digest told all.
func (e *outboxEnv) toldAll(t *testing.T, user *models.User, at time.Time, sent int) bool {
	t.Helper()
	ctx := context.Background()
	prefs, err := e.st.Preferences(ctx, []int64{user.ID})
	if err != nil || len(prefs) != 1 {
		t.Fatal(prefs, err)
	}
	rest, _, _, err := e.st.NotificationsFrom(ctx, user.ID, prefs[0].Told(), 10)
	all := err == nil && len(rest) == 0 && prefs[0].SentAt != nil && prefs[0].SentAt.Equal(at)
	if !all {
		t.Errorf("the digest run at %v went at %v and left %d notifications (%v), want none left",
			at, prefs[0].SentAt, len(rest), err)
	}
	e.awaitDigests(t, user, sent+1)
	if text := e.digestTexts(t, user.Email)[sent]; !strings.Contains(text, "your turn 9 began") ||
		!strings.Contains(text, "your turn 10 began") {
		t.Errorf("the digest after %d does not tell turns 9 and 10:\n%s", sent, text)
	}
	return all
}

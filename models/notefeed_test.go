package models_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// feedIDs reads the user's log from c as NotificationsFrom does: the ids
// it returns, the place after them and whether more wait.
func feedIDs(t *testing.T, st *models.Store, user int64, c models.NoteCursor, limit int) ([]int64, models.NoteCursor, bool) {
	t.Helper()
	ns, next, waiting, err := st.NotificationsFrom(context.Background(), user, c, limit)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(ns))
	for i, n := range ns {
		ids[i] = n.ID
	}
	return ids, next, waiting
}

// noteIn stores a notification for user in a change of game g and
// returns its id.
func noteIn(t *testing.T, st *models.Store, g *models.Game, user int64) int64 {
	t.Helper()
	if _, err := st.Mutate(context.Background(), g.ID, func(cur *models.Game) (*models.Change, error) {
		cur.Version++
		return &models.Change{Notifications: []models.Notification{{UserID: user, GameID: &g.ID, Kind: "your_turn", Body: `{}`}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	ns, err := st.NotificationsAfter(context.Background(), user, 0, 1000)
	if err != nil || len(ns) == 0 {
		t.Fatal(ns, err)
	}
	return ns[len(ns)-1].ID
}

// TestNotificationsFromPages: the log is read from a place in pages, each
// place resuming after the last row read, and a place is found from a
// notification's id only for its own user.
func TestNotificationsFromPages(t *testing.T) {
	for _, d := range []models.Dialect{models.SQLite, models.Postgres} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			testNotificationsFromPages(t, ownStore(t, d))
		})
	}
}

// ownStore is a migrated store of dialect d for the test; on Postgres in
// a database of its own, where no other test's transaction runs.
func ownStore(t *testing.T, d models.Dialect) *models.Store {
	if d == models.Postgres {
		return modelstest.OpenURL(t, modelstest.DatabaseURL(t), models.Options{})
	}
	return modelstest.Open(t, d, models.Options{})
}

func testNotificationsFromPages(t *testing.T, st *models.Store) {
	ctx := context.Background()
	ana, bob := newUser(t, st, "ana"), newUser(t, st, "bob")
	g := newGame(t, st, ana, bob)
	var want []int64
	for range 5 {
		want = append(want, noteIn(t, st, g, ana.ID))
	}
	noteIn(t, st, g, bob.ID)
	var got []int64
	c := models.NoteCursor{}
	for range 3 {
		ids, next, waiting := feedIDs(t, st, ana.ID, c, 2)
		if waiting {
			t.Fatalf("waiting after %v with nothing running", got)
		}
		got, c = append(got, ids...), next
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pages of 2 read %v, want %v", got, want)
	}
	if ids, next, _ := feedIDs(t, st, ana.ID, c, 2); len(ids) != 0 || next != c {
		t.Fatalf("past the end: %v at %+v, want nothing at %+v", ids, next, c)
	}
	at, err := st.NoteCursorAt(ctx, ana.ID, want[2])
	if err != nil {
		t.Fatal(err)
	}
	if ids, _, _ := feedIDs(t, st, ana.ID, at, 10); !slices.Equal(ids, want[3:]) {
		t.Fatalf("after %d: %v, want %v", want[2], ids, want[3:])
	}
	if _, err := st.NoteCursorAt(ctx, bob.ID, want[2]); err == nil {
		t.Fatal("bob found a place at ana's notification")
	}
}

// TestNotificationsFromCommitOrder: two changes notify ana, the one that
// took the smaller id commits last. A reader that has read the first
// commit must not be able to resume past the row still to come: while the
// older transaction runs, the newer row waits; once it ends, both come,
// older first, and resuming after either one gives exactly the rest.
// A reader by ids read the newer row at once, and resuming after it
// skipped the older one for good.
func TestNotificationsFromCommitOrder(t *testing.T) {
	st := ownStore(t, models.Postgres)
	ctx := context.Background()
	ana, bob := newUser(t, st, "ana"), newUser(t, st, "bob")
	g1, g2 := newGame(t, st, ana, bob), newGame(t, st, ana, bob)
	first := noteIn(t, st, g1, ana.ID)
	ids, start, waiting := feedIDs(t, st, ana.ID, models.NoteCursor{}, 10)
	if !slices.Equal(ids, []int64{first}) || waiting {
		t.Fatalf("read %v (waiting %t), want [%d]", ids, waiting, first)
	}
	// The older transaction writes its row (the smaller id) and waits.
	older := modelstest.Begin(t, st)
	early := modelstest.Note(t, older, ana.ID, g1.ID, "your_turn", `{}`, time.Now())
	late := noteIn(t, st, g2, ana.ID) // commits first, with the larger id
	if late < early {
		t.Fatalf("ids %d then %d", early, late)
	}
	if ids, at, waiting := feedIDs(t, st, ana.ID, start, 10); len(ids) != 0 || !waiting || at != start {
		t.Fatalf("while the older transaction runs: read %v (waiting %t), want nothing and waiting", ids, waiting)
	}
	if err := older.Commit(); err != nil {
		t.Fatal(err)
	}
	ids, _, waiting = feedIDs(t, st, ana.ID, start, 10)
	if !slices.Equal(ids, []int64{early, late}) || waiting {
		t.Fatalf("after it committed: read %v (waiting %t), want [%d %d]", ids, waiting, early, late)
	}
	for _, c := range []struct {
		after int64
		rest  []int64
	}{{first, []int64{early, late}}, {early, []int64{late}}, {late, nil}} {
		at, err := st.NoteCursorAt(ctx, ana.ID, c.after)
		if err != nil {
			t.Fatal(err)
		}
		if ids, _, _ := feedIDs(t, st, ana.ID, at, 10); !slices.Equal(ids, c.rest) {
			t.Fatalf("resumed after %d: %v, want %v", c.after, ids, c.rest)
		}
	}

	// A transaction that took its id first but writes last comes first:
	// the order is the transactions', not the rows'.
	slow := modelstest.Begin(t, st)
	if _, err := slow.ExecContext(ctx, `SELECT pg_current_xact_id()`); err != nil {
		t.Fatal(err)
	}
	at, _ := st.NoteCursorAt(ctx, ana.ID, late)
	quick := noteIn(t, st, g2, ana.ID)
	if ids, _, waiting := feedIDs(t, st, ana.ID, at, 10); len(ids) != 0 || !waiting {
		t.Fatalf("while an older transaction runs: read %v (waiting %t)", ids, waiting)
	}
	last := modelstest.Note(t, slow, ana.ID, g1.ID, "your_turn", `{}`, time.Now())
	if err := slow.Commit(); err != nil {
		t.Fatal(err)
	}
	if ids, _, _ := feedIDs(t, st, ana.ID, at, 10); !slices.Equal(ids, []int64{last, quick}) {
		t.Fatalf("read %v, want [%d %d]: the older transaction's row first", ids, last, quick)
	}
}

// otherDatabaseTx holds a transaction with an id running in another
// database of the server (postgres) until the test ends.
func otherDatabaseTx(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	u, err := url.Parse(os.Getenv(modelstest.EnvURL))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/postgres"
	other, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	tx, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	if _, err := tx.ExecContext(ctx, `SELECT pg_current_xact_id()`); err != nil {
		t.Fatalf("a transaction in the database postgres: %v", err)
	}
}

// TestNotificationsFromOtherDatabase: a transaction of another database
// of the server, which writes no notification here, does not hold the
// log back.
func TestNotificationsFromOtherDatabase(t *testing.T) {
	st := ownStore(t, models.Postgres)
	otherDatabaseTx(t)
	ana, bob := newUser(t, st, "ana"), newUser(t, st, "bob")
	n := noteIn(t, st, newGame(t, st, ana, bob), ana.ID)
	if ids, _, waiting := feedIDs(t, st, ana.ID, models.NoteCursor{}, 10); !slices.Equal(ids, []int64{n}) || waiting {
		t.Fatalf("read %v (waiting %t), want [%d]", ids, waiting, n)
	}
}

// TestAwaitRunningOtherDatabase: a transaction left running in another
// database of the server does not keep AwaitRunning waiting (a stream
// opening waited its whole limit); one running in this database does.
func TestAwaitRunningOtherDatabase(t *testing.T) {
	st := ownStore(t, models.Postgres)
	ctx := context.Background()
	otherDatabaseTx(t)
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := st.AwaitRunning(wait, time.Minute); err != nil {
		t.Fatalf("with a transaction running in another database: %v", err)
	}
	here := modelstest.Begin(t, st)
	if _, err := here.ExecContext(ctx, `SELECT pg_current_xact_id()`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := st.AwaitRunning(ctx, 300*time.Millisecond); err != nil || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("with one running here: returned %v after %v, want nil after its limit", err, time.Since(start))
	}
}

package models_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/lib/pq"
)

// TestPQArraysAsText: the lib/pq arrays River's database/sql driver passes
// reach Postgres as text and come back as they went, for each element type
// River uses; other arguments are unchanged.
func TestPQArraysAsText(t *testing.T) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	db, err := st.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 4, 5, 6, 789000, time.UTC)
	var ids, jsons, keys, times, small, plain string
	err = db.QueryRowContext(context.Background(), `SELECT $1::bigint[]::text, $2::jsonb[]::text, $3::bytea[]::text,
		$4::timestamptz[]::text, $5::smallint[]::text, $6::text`,
		pq.Array([]int64{1, -2}), pq.Array([]string{`{"key": "a,b\"c"}`, `{}`}), pq.Array([][]byte{{0xde, 0xad}, {}}),
		pq.Array([]time.Time{at}), pq.Array([]int16{3}), "plain").Scan(&ids, &jsons, &keys, &times, &small, &plain)
	if err != nil {
		t.Fatal(err)
	}
	var back time.Time
	if err := db.QueryRowContext(context.Background(), `SELECT ($1::timestamptz[])[1]`, pq.Array([]time.Time{at})).Scan(&back); err != nil {
		t.Fatal(err)
	}
	if ids != "{1,-2}" || jsons != `{"{\"key\": \"a,b\\\"c\"}","{}"}` || keys != `{"\\xdead","\\x"}` || small != "{3}" ||
		plain != "plain" || !back.Equal(at) {
		t.Fatalf("round trip: %s %s %s %s %s %s %v", ids, jsons, keys, times, small, plain, back)
	}
}

// TestPQArraysBecomeText: the connection hands pgx a lib/pq array as its
// text, so pgx sends it as a text parameter instead of parsing it back.
func TestPQArraysBecomeText(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want any
	}{
		{pq.Array([]int64{1, 2}), "{1,2}"},
		{pq.Array([]string{"a b"}), `{"a b"}`},
		{pq.Array([]int16{3}), "{3}"},
		{int64(7), int64(7)},
		{"{1}", "{1}"},
	} {
		if got, err := models.CheckArgForTest(tc.in); err != nil || got != tc.want {
			t.Errorf("%#v: %#v %v, want %#v", tc.in, got, err, tc.want)
		}
	}
}

// TestReadsAfterTerminatedSessions ends every session of the store's pool
// from another connection, then reads, one after the other and at once:
// each read that meets a broken connection runs again on another, and
// none fails. A transaction that begins on a broken one does too.
func TestReadsAfterTerminatedSessions(t *testing.T) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	ctx := context.Background()
	u := &models.User{Username: "ann", Email: "ann@example.com"}
	if err := st.CreateUser(ctx, u, "hash"); err != nil {
		t.Fatal(err)
	}
	read := func() error {
		got, err := st.UserByID(ctx, u.ID)
		if err == nil && got.Username != "ann" {
			err = fmt.Errorf("read %+v", got)
		}
		return err
	}
	for round := range 5 {
		breakPool(t, st)
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for range 5 {
			errs <- read()
		}
		for range 10 {
			wg.Add(1)
			go func() { defer wg.Done(); errs <- read() }()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- st.InTx(ctx, func(tx *models.Store) error { _, err := tx.UserByID(ctx, u.ID); return err })
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}

// breakPool fills the store's pool with connections used a moment ago (an
// idle one older than a second is pinged before use), then ends every
// session of it from another connection.
func breakPool(t *testing.T, st *models.Store) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); st.ExecForTest(context.Background(), "SELECT pg_sleep(0.02)") }()
	}
	wg.Wait()
	if n := modelstest.Terminate(t, st); n == 0 {
		t.Fatal("no session to end")
	}
}

// TestChangesAfterTerminatedSessions: changes of games, made one after
// the other and at once on connections whose sessions were ended a
// moment before, all succeed: a change whose BEGIN and lock meet a broken
// connection runs again on another (its BEGIN goes with its lock, so
// database/sql cannot tell at the BEGIN).
func TestChangesAfterTerminatedSessions(t *testing.T) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	ctx := context.Background()
	a, b := newUser(t, st, "una"), newUser(t, st, "vic")
	var games []*models.Game
	for range 6 {
		games = append(games, newGame(t, st, a, b))
	}
	step := func(cur *models.Game) (*models.Change, error) {
		cur.Version++
		return &models.Change{Events: []models.EventRecord{{Body: `{"kind":"a"}`}}}, nil
	}
	for round := range 5 {
		breakPool(t, st)
		var wg sync.WaitGroup
		errs := make(chan error, len(games)+2)
		for _, g := range games[:2] {
			_, err := st.Mutate(ctx, g.ID, step)
			errs <- err
		}
		for _, g := range games[2:] {
			wg.Add(1)
			go func() { defer wg.Done(); _, err := st.Mutate(ctx, g.ID, step); errs <- err }()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
	for _, g := range games {
		if got, err := st.Game(ctx, g.ID); err != nil || got.Version != g.Version+5 {
			t.Fatalf("game %d: %v, version %d, want %d", g.ID, err, got.Version, g.Version+5)
		}
	}
}

// TestReadOnly: the statements that may run again after their connection
// broke.
func TestReadOnly(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT * FROM users WHERE id = $1":           true,
		"  select 1":                                  true,
		"-- ping\nSELECT 1":                           true,
		"SELECT g.id FROM games g FOR UPDATE":         true,
		"SELECTED":                                    false,
		"WITH g AS (UPDATE games SET x = 1) SELECT 1": false,
		"INSERT INTO users VALUES (1)":                false,
		"SELECT pg_notify('a', 'b')":                  false,
		"SELECT nextval('s')":                         false,
		"SELECT pg_advisory_xact_lock(1)":             false,
		"SELECT * INTO copy FROM users":               false,
		"UPDATE users SET name = 'select'":            false,
	} {
		if got := models.ReadOnlyForTest(q); got != want {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
}

// TestCommitWithTheLastStatement: a transaction's last statement, sent
// with commitWith, commits the transaction on Postgres before its Commit
// is called (another connection sees its rows), and Commit then succeeds
// without a transaction left; a failing last statement, or one after a
// failed statement, commits nothing and the rollback succeeds; outside a
// transaction the context changes nothing.
func TestCommitWithTheLastStatement(t *testing.T) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	db, err := st.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	last := models.CommitWithForTest(ctx)
	if _, err := db.ExecContext(ctx, `CREATE TABLE commit_with (k text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	seen := func(k string) bool {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM commit_with WHERE k = $1`, k).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}

	begin := func() *sql.Tx {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tx.Rollback() }) // a failed check leaves none open
		return tx
	}

	tx := begin()
	if _, err := tx.ExecContext(ctx, `INSERT INTO commit_with VALUES ('a')`); err != nil {
		t.Fatal(err)
	}
	res, err := tx.ExecContext(last, `INSERT INTO commit_with VALUES ($1), ($2)`, "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Fatalf("%d rows affected, want 2", n)
	}
	if !seen("a") || !seen("c") {
		t.Fatal("the last statement did not commit the transaction")
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("commit after the last statement: %v", err)
	}

	// The last statement fails: nothing of the transaction stays.
	tx = begin()
	if _, err := tx.ExecContext(ctx, `INSERT INTO commit_with VALUES ('d')`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(last, `INSERT INTO commit_with VALUES ('a')`); err == nil {
		t.Fatal("a duplicate key was written")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	if seen("d") {
		t.Fatal("a failed last statement committed the transaction")
	}

	// A statement failed before the last: the last is refused.
	tx = begin()
	if _, err := tx.ExecContext(ctx, `INSERT INTO commit_with VALUES (NULL)`); err == nil {
		t.Fatal("a NULL key was written")
	}
	if _, err := tx.ExecContext(last, `INSERT INTO commit_with VALUES ('e')`); err == nil {
		t.Fatal("a statement ran in a failed transaction")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	if seen("e") {
		t.Fatal("a failed transaction committed")
	}

	// Outside a transaction: a statement as any other.
	if _, err := db.ExecContext(last, `INSERT INTO commit_with VALUES ('f')`); err != nil || !seen("f") {
		t.Fatalf("outside a transaction: %v", err)
	}
	// The connections are as good as new: a plain transaction commits.
	tx = begin()
	if _, err := tx.ExecContext(ctx, `INSERT INTO commit_with VALUES ('g')`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil || !seen("g") {
		t.Fatalf("a plain commit: %v", err)
	}
}

// TestDeferredStatements: Execs held back in a transaction (Deferred) run
// in order before the transaction's next statement that is not held (a
// read in it sees them), or with its COMMIT; one that fails fails that
// statement, and nothing of the transaction is committed; a rollback
// drops them; outside a transaction they run at once.
func TestDeferredStatements(t *testing.T) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	db, err := st.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	held, last := models.Deferred(ctx), models.CommitWithForTest(ctx)
	if _, err := db.ExecContext(ctx, `CREATE TABLE held (k text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	count := func(q func(context.Context, string, ...any) *sql.Row, ks ...string) int {
		var n int
		if err := q(ctx, `SELECT count(*) FROM held WHERE k = ANY($1)`, pq.Array(ks)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	begin := func() *sql.Tx {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tx.Rollback() })
		return tx
	}
	exec := func(tx *sql.Tx, ctx context.Context, q string, args ...any) error {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}

	// Held, then read in the transaction: in order, before the read.
	tx := begin()
	if err := exec(tx, held, `INSERT INTO held VALUES ($1)`, "a"); err != nil {
		t.Fatal(err)
	}
	if err := exec(tx, held, `UPDATE held SET k = 'b' WHERE k = 'a'`); err != nil {
		t.Fatal(err)
	}
	if n := count(tx.QueryRowContext, "b"); n != 1 {
		t.Fatalf("the transaction reads %d rows of what it held, want 1", n)
	}
	// Held, then the last statement: all committed with it.
	if err := exec(tx, held, `INSERT INTO held VALUES ($1)`, "c"); err != nil {
		t.Fatal(err)
	}
	if err := exec(tx, last, `INSERT INTO held VALUES ('d')`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(db.QueryRowContext, "b", "c", "d"); n != 3 {
		t.Fatalf("%d of 3 rows committed", n)
	}

	// Held, then Commit: committed with it.
	tx = begin()
	if err := exec(tx, held, `INSERT INTO held VALUES ('e')`); err != nil {
		t.Fatal(err)
	}
	if count(db.QueryRowContext, "e") != 0 {
		t.Fatal("a held statement ran before the transaction's commit")
	}
	if err := tx.Commit(); err != nil || count(db.QueryRowContext, "e") != 1 {
		t.Fatalf("held then committed: %v", err)
	}

	// A held statement fails: the next statement fails, nothing stays.
	tx = begin()
	if err := exec(tx, ctx, `INSERT INTO held VALUES ('f')`); err != nil {
		t.Fatal(err)
	}
	if err := exec(tx, held, `INSERT INTO held VALUES ('b')`); err != nil {
		t.Fatal(err) // not sent yet
	}
	if err := exec(tx, last, `INSERT INTO held VALUES ('g')`); err == nil {
		t.Fatal("a held duplicate key did not fail the statement after it")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	// The same, with Commit.
	tx = begin()
	if err := exec(tx, held, `INSERT INTO held VALUES ('c')`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err == nil {
		t.Fatal("a held duplicate key did not fail the commit")
	}
	// Held, then rolled back: dropped.
	tx = begin()
	if err := exec(tx, held, `INSERT INTO held VALUES ('h')`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := count(db.QueryRowContext, "f", "g", "h"); n != 0 {
		t.Fatalf("%d rows of failed or rolled back transactions", n)
	}
	// Outside a transaction: at once.
	if _, err := db.ExecContext(held, `INSERT INTO held VALUES ('i')`); err != nil || count(db.QueryRowContext, "i") != 1 {
		t.Fatalf("outside a transaction: %v", err)
	}
	// The pool's connections are as good as new.
	for range 4 {
		tx = begin()
		if err := exec(tx, ctx, `INSERT INTO held VALUES ('j') ON CONFLICT DO NOTHING`); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

package modelstest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// Gate holds the lock of a game row from a connection of its own, so that
// a test can queue changes of the game behind it in a known order and then
// let them run one after the other, each waiting for the lock the one
// before holds: the case of a change that has to wait for another. On
// SQLite, which runs one transaction at a time, a Gate does nothing.
type Gate struct {
	t   testing.TB
	tx  *sql.Tx
	db  *sql.DB
	app string // the store's application_name
}

// HoldGame locks the row of game id until Release (or the end of the test).
func HoldGame(t testing.TB, st *models.Store, id int64) *Gate {
	t.Helper()
	g := &Gate{t: t}
	if st.Dialect() != models.Postgres {
		return g
	}
	g.app = application(t, st)
	var err error
	if g.db, err = sql.Open("pgx", processURL(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.db.Close() })
	if g.tx, err = g.db.Begin(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Release)
	var got int64
	// The store's schema is the application name (see SchemaURL).
	if err := g.tx.QueryRow(`SELECT id FROM `+g.app+`.games WHERE id = $1 FOR UPDATE`, id).Scan(&got); err != nil {
		t.Fatalf("lock game %d: %v", id, err)
	}
	return g
}

// Wait returns once n of the store's connections wait for a lock, so that
// the requests sent so far are queued behind the gate in the order they
// were sent and waited for.
func (g *Gate) Wait(n int) {
	g.t.Helper()
	if g.tx == nil {
		return
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		waiting, err := Backends(g.db, g.app, "wait_event_type = 'Lock'")
		if err != nil {
			g.t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("%d of the store's connections wait for the game's lock, want %d", waiting, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Release lets the queued changes run. It may be called more than once.
func (g *Gate) Release() {
	if g.tx != nil {
		g.tx.Rollback()
	}
}

// Backends counts the connections of application app (a store of SchemaURL)
// that match the condition on pg_stat_activity.
func Backends(db *sql.DB, app, where string) (int, error) {
	var n int
	err := db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND `+where, app).Scan(&n)
	return n, err
}

// application returns the application_name of st's connections.
func application(t testing.TB, st *models.Store) string {
	t.Helper()
	db, err := st.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	var app string
	if err := db.QueryRowContext(context.Background(), `SELECT current_setting('application_name')`).Scan(&app); err != nil {
		t.Fatal(err)
	}
	return app
}

// Terminate ends every Postgres session of st's pool from a connection of
// its own, as an operator or a restarting server would, and returns once
// they are gone, with how many there were. The pool does not know: its
// idle connections are broken now.
func Terminate(t testing.TB, st *models.Store) int {
	t.Helper()
	app := application(t, st)
	db, err := sql.Open("pgx", processURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&n); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		left, err := Backends(db, app, "true")
		if err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions of the store are still there", left)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Begin opens a transaction on st's connections that the test holds open
// as long as it needs (a change that runs on while others commit); it is
// rolled back at the end of the test unless committed.
func Begin(t testing.TB, st *models.Store) *sql.Tx {
	t.Helper()
	db, err := st.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	return tx
}

// Note writes, in tx (from Begin), a notification of kind for user in
// game, with body, created at at, as a change's write stores one, and
// returns its id.
func Note(t testing.TB, tx *sql.Tx, user, game int64, kind, body string, at time.Time) int64 {
	t.Helper()
	var id int64
	if err := tx.QueryRowContext(context.Background(), `INSERT INTO notifications (user_id, game_id, kind, body, created_at)
VALUES ($1, $2, $3, $4, $5) RETURNING id`, user, game, kind, body, at.UTC()).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

package modelstest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for schema setup
)

// EnvURL is the variable naming the test Postgres database.
const EnvURL = "TEST_DATABASE_URL"

// Dialects returns the dialects to test: SQLite always, Postgres when
// TEST_DATABASE_URL is set.
func Dialects() []models.Dialect {
	if os.Getenv(EnvURL) == "" {
		return []models.Dialect{models.SQLite}
	}
	return []models.Dialect{models.SQLite, models.Postgres}
}

// EachDialect runs test as a subtest of t for each of Dialects, named
// by the dialect ("sqlite", "postgres"), so that -run Test/postgres picks
// one.
func EachDialect(t *testing.T, test func(t *testing.T, d models.Dialect)) {
	t.Helper()
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) { test(t, d) })
	}
}

// Open returns a migrated store of dialect for the test, closed and removed
// when the test ends. For Postgres it skips the test when TEST_DATABASE_URL is
// unset and fails it when the database cannot be reached; each store lives
// in its own schema, so tests may run in parallel.
func Open(t testing.TB, d models.Dialect, opt models.Options) *models.Store {
	t.Helper()
	if d == models.Postgres {
		return OpenURL(t, SchemaURL(t), opt)
	}
	st, err := models.Open(context.Background(), "", t.TempDir(), opt)
	return migrated(t, d, st, err)
}

// OpenURL is Open for the Postgres database at url (from SchemaURL, or the
// same database reached another way).
func OpenURL(t testing.TB, url string, opt models.Options) *models.Store {
	t.Helper()
	st, err := models.Open(context.Background(), url, "", opt)
	return migrated(t, models.Postgres, st, err)
}

// migrated fails the test on err, else closes st at its end and migrates it.
func migrated(t testing.TB, d models.Dialect, st *models.Store, err error) *models.Store {
	t.Helper()
	if err != nil {
		t.Fatalf("open %s: %v", d, err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate %s: %v", d, err)
	}
	return st
}

// Location returns where a database of dialect d lives for the test, for
// a server process to open with models.Open(ctx, url, dir, ...): a fresh
// Postgres schema (url, see SchemaURL) or an SQLite file in a temporary
// folder (url "", dir). Nothing is migrated.
func Location(t testing.TB, d models.Dialect) (url, dir string) {
	t.Helper()
	if d == models.Postgres {
		return SchemaURL(t), t.TempDir()
	}
	return "", t.TempDir()
}

// SchemaURL creates a fresh schema in the database of this test process
// (see processURL), drops the schema when the test ends, and returns a URL
// whose search_path is that schema and whose application_name is the
// schema's name too.
func SchemaURL(t testing.TB) string {
	t.Helper()
	base := processURL(t)
	schema := randomName("test_")
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err = db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		db.Close()
		t.Fatalf("%s unreachable or unusable: %v", EnvURL, err)
	}
	t.Cleanup(func() {
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
		db.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", schema) // names the store's connections (see Backends)
	u.RawQuery = q.Encode()
	return u.String()
}

// process is the database of this test process (see processURL).
var process struct {
	sync.Mutex
	url string
}

// processURL returns the URL of a database of this test process's own,
// made at its first call on the server of TEST_DATABASE_URL, in which
// SchemaURL makes each test's schema. A package's tests so share no
// database with another package's, run by go test beside them: the
// notification streams and digests wait for every older transaction of
// their database (see models.Store.NotificationsFrom), so a transaction
// one package held open would hold back the notifications another
// package's tests wait for.
//
// Its name holds the process id: the databases of test processes that
// have ended are dropped here, as the next one starts. Where the server
// lets no database be created (SQLSTATE 42501), the database of
// TEST_DATABASE_URL itself is used.
func processURL(t testing.TB) string {
	t.Helper()
	u := server(t)
	process.Lock()
	defer process.Unlock()
	if process.url != "" {
		return process.url
	}
	db, err := maintenance(u)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	defer db.Close()
	dropEnded(db)
	name, err := createDatabase(db, fmt.Sprintf("%s%d_", processPrefix, os.Getpid()))
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && pe.Code == "42501": // no right to: the named database
	case err != nil:
		t.Fatalf("%s unreachable or unusable: create a database: %v", EnvURL, err)
	default:
		u.Path = "/" + name
	}
	process.url = u.String()
	return process.url
}

// processPrefix begins the name of each test process's database: "test_run_"
// and a digest of this machine's host name; the process id and random
// digits follow. Only the databases of this machine's processes are told
// ended by their process id: another machine (a container) sharing the
// server has processes of its own.
var processPrefix = func() string {
	host, _ := os.Hostname()
	sum := sha256.Sum256([]byte(host))
	return "test_run_" + hex.EncodeToString(sum[:4]) + "_"
}()

// dropEnded drops the databases of test processes of this machine that
// have ended (see processPrefix). A database still in use is not dropped (DROP DATABASE
// refuses it), nor is one of a process still running.
func dropEnded(db *sql.DB) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, processPrefix)
	if err != nil {
		return
	}
	var ended []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) != nil {
			break
		}
		pid, _, ok := strings.Cut(strings.TrimPrefix(name, processPrefix), "_")
		if n, err := strconv.Atoi(pid); ok && err == nil && !running(n) {
			ended = append(ended, name)
		}
	}
	rows.Close()
	for _, name := range ended {
		db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name)
	}
}

// running reports whether a process of id pid runs on this machine.
func running(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// DatabaseURL creates a database of its own for the test on the server of
// TEST_DATABASE_URL, dropped when the test ends, and returns its URL (with
// SchemaURL's application_name): for a test whose transactions, held
// open, would hold back the notification streams of the other tests of
// its process, whose schemas share a database (see processURL), or that
// asserts nothing else runs beside it.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	u := server(t)
	db, err := maintenance(u)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	name, err := createDatabase(db, "test_own_")
	if err != nil {
		db.Close()
		t.Fatalf("%s unreachable or unusable: create a database: %v", EnvURL, err)
	}
	t.Cleanup(func() {
		db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		db.Close()
	})
	u.Path = "/" + name
	q := u.Query()
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// server is the URL TEST_DATABASE_URL names; without it, the test is
// skipped.
func server(t testing.TB) url.URL {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		t.Skip(EnvURL + " is not set; skipping Postgres")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	return *u
}

// createDatabase creates, through db (the server's maintenance
// database), a database named prefix and random digits, and returns its
// name.
func createDatabase(db *sql.DB, prefix string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := randomName(prefix)
	_, err := db.ExecContext(ctx, "CREATE DATABASE "+name)
	return name, err
}

// randomName is prefix and 12 random hex digits: a schema's or a
// database's name of a test's own.
func randomName(prefix string) string {
	var b [6]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// maintenance opens the maintenance database "postgres" of the server at
// u, through which databases are created and dropped.
func maintenance(u url.URL) (*sql.DB, error) {
	u.Path = "/postgres"
	return sql.Open("pgx", u.String())
}

// QuietAround is quiet hours (UTC) from an hour before t's time of day
// (UTC) to two hours after it: t falls in them, and so does the same
// time of any other day.
func QuietAround(t time.Time) models.QuietHours {
	t = t.UTC()
	m := t.Hour()*60 + t.Minute()
	return models.QuietHours{Start: (m + models.MinutesPerDay - 60) % models.MinutesPerDay, End: (m + 120) % models.MinutesPerDay}
}

// Count is the number of rows the SQL query (a SELECT COUNT(*), with its
// values written in) finds in st; it fails t if the query does.
func Count(t testing.TB, st *models.Store, query string) int {
	t.Helper()
	db, err := st.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

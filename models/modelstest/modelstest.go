package modelstest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/jackc/pgx/v5"
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

// SchemaURL creates a fresh schema in the TEST_DATABASE_URL database (first
// creating the database itself if the server has no database of that
// name), drops the schema when the test ends, and returns a URL whose
// search_path is that schema and whose application_name is the schema's
// name too.
func SchemaURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		t.Skip(EnvURL + " is not set; skipping Postgres")
	}
	schema := randomName("test_")
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = db.ExecContext(ctx, "CREATE SCHEMA "+schema)
	if isMissingDatabase(err) {
		if err = createDatabase(ctx, base); err == nil {
			_, err = db.ExecContext(ctx, "CREATE SCHEMA "+schema)
		}
	}
	if err != nil {
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

// DatabaseURL creates a database of its own for the test on the server of
// TEST_DATABASE_URL, dropped when the test ends, and returns its URL (with
// SchemaURL's application_name): for a test whose transactions, held
// open, would hold back the notification streams of every test in the
// shared database (models.Store.NotificationsFrom sets aside only other
// databases' transactions), or that asserts nothing else runs beside it.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		t.Skip(EnvURL + " is not set; skipping Postgres")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	name := randomName("test_own_")
	db, err := maintenance(*u)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
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

// isMissingDatabase reports whether err is Postgres saying that the
// database of the connection does not exist (SQLSTATE 3D000).
func isMissingDatabase(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "3D000"
}

// createDatabase creates the database that the URL base names, through the
// server's maintenance database "postgres", so that TEST_DATABASE_URL may
// name a database that does not exist yet. A database created meanwhile by
// another test process (SQLSTATE 42P04) is fine.
func createDatabase(ctx context.Context, base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" || name == "postgres" {
		return fmt.Errorf("%s names no database to create", EnvURL)
	}
	db, err := maintenance(*u)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P04" {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create the database %q: %w", name, err)
	}
	return nil
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

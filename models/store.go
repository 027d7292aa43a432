package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/glebarez/sqlite"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Errors returned by the store. Callers match them with errors.Is.
var (
	// ErrNotFound means the row asked for does not exist (or is not the
	// caller's to see).
	ErrNotFound = errors.New("not found")
	// ErrConflict means a uniqueness rule was violated, for example a
	// username that is taken.
	ErrConflict = errors.New("conflict")
	// ErrInvalidToken means a refresh or API token is unknown, expired or
	// revoked.
	ErrInvalidToken = errors.New("invalid token")
	// ErrTokenReuse means a refresh token that was already rotated was
	// presented again; its whole family has been revoked.
	ErrTokenReuse = errors.New("refresh token reused")
	// ErrUnavailable means that the database could not be reached: no
	// connection could be made, or the one in use broke (the server went
	// away or ended the session). Trying again later may succeed.
	ErrUnavailable = errors.New("database unavailable")
	// ErrUnstorableText means the database refused a text it cannot store
	// (a NUL character, or bytes that are not UTF-8).
	ErrUnstorableText = errors.New("text the database cannot store")
)

// Dialect names the database a Store runs on.
type Dialect string

// The supported databases.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

func (d Dialect) String() string { return string(d) }

// Store is the service's storage. It is safe for concurrent use.
type Store struct {
	db      *gorm.DB
	dialect Dialect
	now     func() time.Time
	outbox  Outbox // told about game changes in their transaction; see SetOutbox
	// tests holds what tests set (testing.go), shared by the stores of
	// its transactions.
	tests *storeTests
	// refs sends signed-in users' GameRef reads in batches, on Postgres
	// outside a transaction; nil otherwise.
	refs *refBatch
}

// Options tune Open. The zero value is valid.
type Options struct {
	// Now is the clock; nil means time.Now. Times are stored in UTC.
	Now func() time.Time
	// MaxOpenConns caps Postgres connections; 0 means 32.
	MaxOpenConns int
}

// Open connects to databaseURL (a postgres:// or postgresql:// URL) or, when
// databaseURL is empty, to the SQLite file datamonsters.db in dataDir, which
// is created if needed. It does not migrate; call Migrate.
func Open(ctx context.Context, databaseURL, dataDir string, opt Options) (*Store, error) {
	cfg := &gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true, PrepareStmt: false}
	st := &Store{now: opt.Now, tests: &storeTests{}}
	if st.now == nil {
		st.now = time.Now
	}
	var dial gorm.Dialector
	switch {
	case databaseURL == "":
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, fmt.Errorf("data dir: %w", err)
		}
		path := filepath.Join(dataDir, "datamonsters.db")
		dial = sqlite.Open("file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)")
		st.dialect = SQLite
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		conn, err := openPostgres(databaseURL)
		if err != nil {
			return nil, err
		}
		dial = postgres.New(postgres.Config{Conn: conn})
		st.dialect = Postgres
	default:
		return nil, errors.New("DATABASE_URL: want a postgres:// URL, or nothing for SQLite")
	}
	db, err := gorm.Open(dial, cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", st.dialect, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	if st.dialect == SQLite {
		// One connection: SQLite has one writer anyway, and this makes every
		// transaction exclusive (BEGIN IMMEDIATE semantics) without SQLITE_BUSY.
		sqlDB.SetMaxOpenConns(1)
	} else {
		n := opt.MaxOpenConns
		if n == 0 {
			n = 32
		}
		sqlDB.SetMaxOpenConns(n)
		sqlDB.SetMaxIdleConns(n)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	}
	st.db = db
	if st.dialect == Postgres {
		st.refs = &refBatch{pool: sqlDB, busy: refBusy, sent: st.countDirect, tests: st.tests}
	}
	if err := st.Ping(ctx); err != nil {
		sqlDB.Close()
		return nil, err
	}
	return st, nil
}

// Dialect reports which database the store runs on.
func (s *Store) Dialect() Dialect { return s.dialect }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return sqlDB.PingContext(ctx)
}

// Close closes the database connections.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// Now returns the store's clock reading in UTC, rounded to microseconds (the
// precision both databases keep).
func (s *Store) Now() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// forUpdate is the row-lock suffix for the dialect.
func (s *Store) forUpdate() string {
	if s.dialect == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// notFound turns gorm's and database/sql's not-found errors into ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) || errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// uniqueViolation reports whether err is a unique-constraint violation.
func uniqueViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// Storable reports whether s is text that both databases keep as sent:
// UTF-8 without a NUL character (Postgres refuses NUL in text, and bytes
// that are not UTF-8; SQLite would keep both). Every front door refuses
// other text before it reaches the store.
func Storable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// MakeStorable is s with each NUL, and each run of bytes that are not
// UTF-8, replaced by U+FFFD: text from outside (an email) that the service
// keeps or quotes back, whatever it held.
func MakeStorable(s string) string {
	if Storable(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

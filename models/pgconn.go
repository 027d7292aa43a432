package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
)

// openPostgres opens a database/sql pool of pgx connections to
// databaseURL whose arguments of the lib/pq array types go to Postgres as
// the text that lib/pq itself would send (see textArrayConn), and whose
// errors say when the database is unreachable (ErrUnavailable) and when a
// statement may run again on another connection (see textArrayConn.failed).
func openPostgres(databaseURL string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	return sql.OpenDB(textArrayConnector{stdlib.GetConnector(*cfg)}), nil
}

type textArrayConnector struct{ driver.Connector }

func (c textArrayConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, &unavailableError{err: err}
	}
	return &textArrayConn{Conn: conn.(*stdlib.Conn)}, nil
}

// textArrayConn is a pgx connection that turns an argument of a lib/pq
// array type (pq.Array, which River's database/sql driver passes for every
// batch of jobs) into its Value, the array's text form, before pgx sees it.
// pgx sends a string as a text parameter that Postgres parses; given the
// pq value itself, pgx parses that text back into a slice to encode it in
// binary, which cost about a third of an accepted submission's server time
// in River's job insert. Every other argument goes to pgx unchanged.
// In a transaction it also holds back the BEGIN of a transaction that
// asks for it (beginWithFirst) and the Execs that may wait (Deferred), and
// sends a transaction's last statement with its COMMIT (commitWith), so
// that a game change costs two round trips: BEGIN with the lock, and the
// write with the jobs and the COMMIT.
type textArrayConn struct {
	*stdlib.Conn
	held  []heldExec // statements of the open transaction held back (Deferred)
	begin bool       // the open transaction's BEGIN waits for its first statement (beginWithFirst)
}

func (c *textArrayConn) CheckNamedValue(v *driver.NamedValue) error {
	if val, ok := v.Value.(driver.Valuer); ok && fromPQ(reflect.TypeOf(val)) {
		text, err := val.Value()
		if err != nil {
			return err
		}
		v.Value = text
		return nil
	}
	return c.Conn.CheckNamedValue(v)
}

// fromPQ reports whether t, or what it points to (pq.Array returns
// pointers), is a type of lib/pq.
func fromPQ(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == "github.com/lib/pq"
}

// unavailableError is an error of a connection that could not be made or
// broke. With retry, database/sql tries the statement again on another
// connection (it is a driver.ErrBadConn).
type unavailableError struct {
	err   error
	retry bool
}

func (e *unavailableError) Error() string { return "database unavailable: " + e.err.Error() }

func (e *unavailableError) Unwrap() []error {
	if e.retry {
		return []error{ErrUnavailable, driver.ErrBadConn, e.err}
	}
	return []error{ErrUnavailable, e.err}
}

// textError is the database refusing a text (ErrUnstorableText).
type textError struct{ err error }

func (e *textError) Error() string   { return e.err.Error() }
func (e *textError) Unwrap() []error { return []error{ErrUnstorableText, e.err} }

// A pooled connection can be broken without the pool knowing: the server
// restarted, or ended the session (pg_terminate_backend), while it was
// idle. The first statement sent on it then fails, and database/sql tries
// it again on another connection only if the driver says the connection
// was bad (driver.ErrBadConn), which pgx says only when nothing was sent.
// The methods below say it too when the connection turns out to be closed
// and running the statement again is safe whatever happened to it: a BEGIN
// (a session that broke has no transaction left) or, outside a
// transaction, a read. A write that may have run is not tried again; its
// error, like every error of a broken connection, is an ErrUnavailable.

func (c *textArrayConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if ctx.Value(beginWithFirstKey{}) != nil && opts == (driver.TxOptions{}) && c.idle() && !c.Conn.Conn().IsClosed() {
		c.begin = true
		return classifiedTx{c: c, ctx: ctx}, nil
	}
	trip(ctx)
	tx, err := c.Conn.BeginTx(ctx, opts)
	if err != nil {
		return nil, c.failed(ctx, err, true)
	}
	return classifiedTx{tx, c, ctx}, nil
}

func (c *textArrayConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if c.begin {
		return c.beginWith(ctx, query, args)
	}
	if len(c.held) > 0 { // what was held runs first
		if _, err := c.send(ctx, nil, false); err != nil {
			return nil, err
		}
	}
	trip(ctx)
	idle := c.idle()
	rows, err := c.Conn.QueryContext(ctx, query, args)
	if err != nil {
		return nil, c.failed(ctx, err, idle && readOnly(query))
	}
	return rows, nil
}

func (c *textArrayConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if c.begin || c.Conn.Conn().PgConn().TxStatus() == 'T' {
		last := ctx.Value(commitWithKey{}) != nil
		switch {
		case ctx.Value(deferredKey{}) != nil && !last:
			c.held = append(c.held, heldExec{query, values(args)})
			return driver.RowsAffected(0), nil
		case last || len(c.held) > 0 || c.begin:
			return c.send(ctx, &heldExec{query, values(args)}, last)
		}
	}
	trip(ctx)
	idle := c.idle()
	res, err := c.Conn.ExecContext(ctx, query, args)
	if err != nil {
		return nil, c.failed(ctx, err, idle && readOnly(query))
	}
	return res, nil
}

// beginWithFirstKey marks the context of a transaction whose BEGIN may
// wait (beginWithFirst).
type beginWithFirstKey struct{}

// beginWithFirst is ctx for a transaction (database/sql's BeginTx, with
// the default options) whose BEGIN waits for its first statement, to go
// with it in one round trip; a transaction that runs no statement sends
// nothing. On Postgres only; elsewhere the context changes nothing. A
// connection found broken at that first statement gives an error that is
// a driver.ErrBadConn when the statement is a read (readOnly): the
// caller may run the transaction again on another connection, as
// database/sql itself does for a BEGIN that meets one.
func beginWithFirst(ctx context.Context) context.Context {
	return context.WithValue(ctx, beginWithFirstKey{}, true)
}

// beginWith sends the waiting BEGIN, then query, in one round trip, and
// returns query's rows (pipeRows).
func (c *textArrayConn) beginWith(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.begin = false
	b := &pgx.Batch{}
	b.Queue("begin")
	b.Queue(query, values(args)...)
	trip(ctx)
	br := c.Conn.Conn().SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		_ = br.Close()
		return nil, c.failed(ctx, err, readOnly(query))
	}
	rows, err := br.Query()
	if err != nil {
		rows.Close()
		_ = br.Close()
		return nil, c.failed(ctx, err, readOnly(query))
	}
	return &pipeRows{c: c, ctx: ctx, br: br, rows: rows}, nil
}

// pipeRows are the rows of a query sent in a pipeline (beginWith), with
// each value as pgx's database/sql driver gives it: integers as int64,
// floats as float64, booleans, timestamps as time.Time, bytea as []byte,
// anything else as its text.
type pipeRows struct {
	c    *textArrayConn
	ctx  context.Context
	br   pgx.BatchResults
	rows pgx.Rows
	cols []string
}

func (r *pipeRows) Columns() []string {
	if r.cols == nil {
		for _, fd := range r.rows.FieldDescriptions() {
			r.cols = append(r.cols, fd.Name)
		}
	}
	return r.cols
}

func (r *pipeRows) Close() error {
	r.rows.Close()
	err := r.rows.Err()
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return r.c.failed(r.ctx, err, false)
	}
	return nil
}

func (r *pipeRows) Next(dest []driver.Value) error {
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return r.c.failed(r.ctx, err, false)
		}
		return io.EOF
	}
	m := r.c.Conn.Conn().TypeMap()
	raw := r.rows.RawValues()
	for i, fd := range r.rows.FieldDescriptions() {
		if raw[i] == nil {
			dest[i] = nil
			continue
		}
		var err error
		switch fd.DataTypeOID {
		case pgtype.BoolOID:
			var v bool
			err = m.Scan(fd.DataTypeOID, fd.Format, raw[i], &v)
			dest[i] = v
		case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID:
			var v int64
			err = m.Scan(fd.DataTypeOID, fd.Format, raw[i], &v)
			dest[i] = v
		case pgtype.Float4OID, pgtype.Float8OID:
			var v float64
			err = m.Scan(fd.DataTypeOID, fd.Format, raw[i], &v)
			dest[i] = v
		case pgtype.TimestamptzOID, pgtype.TimestampOID, pgtype.DateOID:
			var v time.Time
			err = m.Scan(fd.DataTypeOID, fd.Format, raw[i], &v)
			dest[i] = v
		case pgtype.ByteaOID:
			var v []byte
			err = m.Scan(fd.DataTypeOID, fd.Format, raw[i], &v)
			dest[i] = v
		default:
			var v string
			err = m.Scan(fd.DataTypeOID, fd.Format, raw[i], &v)
			dest[i] = v
		}
		if err != nil {
			return fmt.Errorf("column %s: %w", fd.Name, err)
		}
	}
	return nil
}

// commitWithKey marks the context of a transaction's last statement (see
// commitWith).
type commitWithKey struct{}

// commitWith is ctx for the last statement of a transaction, an Exec
// that the transaction's COMMIT follows when it succeeds. On Postgres the
// two go to the server together, one round trip instead of two (a
// pipeline with one Sync: a failed statement skips the COMMIT, and the
// transaction is rolled back as before); the transaction's Commit then
// sends nothing. Nothing may run in the transaction after it. Elsewhere,
// or outside a transaction, the context changes nothing.
func commitWith(ctx context.Context) context.Context {
	return context.WithValue(ctx, commitWithKey{}, true)
}

// deferredKey marks the context of statements that may wait (Deferred).
type deferredKey struct{}

// Deferred is ctx for Execs whose result nobody reads (the insert of a
// change's jobs, a NOTIFY). In a transaction on Postgres each is held back
// and sent, in order, in one round trip with the transaction's next
// statement that is not, or with its COMMIT; its result then says no rows,
// and its error is that statement's (or the commit's). Outside a
// transaction, or on SQLite, it runs at once as any other.
func Deferred(ctx context.Context) context.Context {
	return context.WithValue(ctx, deferredKey{}, true)
}

// heldExec is an Exec held back (Deferred), with its arguments.
type heldExec struct {
	query string
	args  []any
}

func values(args []driver.NamedValue) []any {
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	return vals
}

// send sends, in one round trip (a pipeline with one Sync), the held
// statements, then last if any, then COMMIT if commit. Its result is
// last's; its error the first statement's that failed (the server skips
// the rest, so a failed statement commits nothing), else the commit's; a
// COMMIT that rolled back (a transaction already failed) is an error too.
func (c *textArrayConn) send(ctx context.Context, last *heldExec, commit bool) (driver.Result, error) {
	b := &pgx.Batch{}
	if c.begin {
		b.Queue("begin")
		c.begin = false
	}
	for _, h := range c.held {
		b.Queue(h.query, h.args...)
	}
	c.held = nil
	if last != nil {
		b.Queue(last.query, last.args...)
	}
	lastAt := b.Len() - 1 // last's place in the batch
	if commit {
		b.Queue("commit")
	}
	trip(ctx)
	br := c.Conn.Conn().SendBatch(ctx, b)
	var res driver.RowsAffected
	var err error
	for i := range b.Len() {
		var tag pgconn.CommandTag
		if tag, err = br.Exec(); err != nil {
			break
		}
		switch {
		case i == lastAt && last != nil:
			res = driver.RowsAffected(tag.RowsAffected())
		case i == b.Len()-1 && commit && tag.String() != "COMMIT":
			err = pgx.ErrTxCommitRollback
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, c.failed(ctx, err, false)
	}
	return res, nil
}

// ResetSession forgets what a transaction that did not end held back
// (there is none: Commit sends it, Rollback drops it).
func (c *textArrayConn) ResetSession(ctx context.Context) error {
	c.held, c.begin = nil, false
	return c.Conn.ResetSession(ctx)
}

// tripsKey holds a count of the round trips to Postgres made with a
// context (CountRoundTripsForTest).
type tripsKey struct{}

// trip counts a round trip made with ctx, where a test counts them.
func trip(ctx context.Context) {
	if n, ok := ctx.Value(tripsKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

// idle reports whether the connection is outside a transaction.
func (c *textArrayConn) idle() bool { return c.Conn.Conn().PgConn().TxStatus() == 'I' }

// failed classifies err, the error of a call on the connection: when the
// connection is closed now (or err is already a driver.ErrBadConn), an
// unavailableError, to be tried again on another connection if retry; a
// text the server refused, a textError; else err itself. An error of a
// cancelled call stays as it is.
func (c *textArrayConn) failed(ctx context.Context, err error, retry bool) error {
	var pg *pgconn.PgError
	switch {
	case ctx.Err() != nil:
		return err
	case errors.Is(err, driver.ErrBadConn): // nothing was sent (pgx knows)
		return &unavailableError{err: err, retry: true}
	case c.Conn.Conn().IsClosed():
		return &unavailableError{err: err, retry: retry}
	case errors.As(err, &pg) && (pg.Code == "22021" || pg.Code == "22P05"):
		return &textError{err}
	}
	return err
}

// classifiedTx is a transaction whose commit or rollback on a broken
// connection gives an ErrUnavailable.
type classifiedTx struct {
	driver.Tx
	c   *textArrayConn
	ctx context.Context // BeginTx's
}

func (t classifiedTx) Commit() error {
	if len(t.c.held) > 0 { // what was held goes with the COMMIT
		_, err := t.c.send(t.ctx, nil, true)
		return err
	}
	if t.c.begin { // nothing ran: nothing to commit
		t.c.begin = false
		return nil
	}
	if t.ended() {
		return nil // committed with its last statement (commitWith)
	}
	if t.Tx == nil { // its BEGIN went with its first statement: the COMMIT as send checks it
		_, err := t.c.send(t.ctx, nil, true)
		return err
	}
	trip(t.ctx)
	if err := t.Tx.Commit(); err != nil {
		return t.c.failed(context.Background(), err, false)
	}
	return nil
}

func (t classifiedTx) Rollback() error {
	t.c.held = nil
	if t.c.begin { // nothing ran
		t.c.begin = false
		return nil
	}
	if t.ended() {
		return nil // its last statement's COMMIT failed, which ended it
	}
	trip(t.ctx)
	if t.Tx == nil { // its BEGIN went with its first statement
		if _, err := t.c.Conn.Conn().Exec(t.ctx, "rollback"); err != nil {
			return t.c.failed(context.Background(), err, false)
		}
		return nil
	}
	if err := t.Tx.Rollback(); err != nil {
		return t.c.failed(context.Background(), err, false)
	}
	return nil
}

// ended reports whether the transaction has ended on the server, as
// after commitWith's statement: the connection is open and outside a
// transaction.
func (t classifiedTx) ended() bool { return !t.c.Conn.Conn().IsClosed() && t.c.idle() }

// readOnly reports whether query is a plain SELECT, which may run again
// without effect: no data-modifying WITH, no SELECT INTO, none of the
// functions with effects that a SELECT of this service or of the job
// queue calls.
func readOnly(query string) bool {
	q := strings.TrimSpace(query)
	for strings.HasPrefix(q, "--") { // comment lines
		_, rest, _ := strings.Cut(q, "\n")
		q = strings.TrimSpace(rest)
	}
	if len(q) < 7 || !strings.EqualFold(q[:6], "select") || !unicode.IsSpace(rune(q[6])) {
		return false
	}
	q = strings.ToLower(q)
	for _, effect := range []string{"pg_notify", "nextval", "setval", "advisory", "set_config", " into "} {
		if strings.Contains(q, effect) {
			return false
		}
	}
	return true
}

package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// openPostgres opens a database/sql pool of pgx connections to
// databaseURL whose arguments of the lib/pq array types go to Postgres as
// the text that lib/pq itself would send (see textArrayConn).
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
		return nil, err
	}
	return textArrayConn{conn.(*stdlib.Conn)}, nil
}

// textArrayConn is a pgx connection that turns an argument of a lib/pq
// array type (pq.Array, which River's database/sql driver passes for every
// batch of jobs) into its Value, the array's text form, before pgx sees it.
// pgx sends a string as a text parameter that Postgres parses; given the
// pq value itself, pgx parses that text back into a slice to encode it in
// binary, which cost about a third of an accepted submission's server time
// in River's job insert. Every other argument goes to pgx unchanged.
type textArrayConn struct{ *stdlib.Conn }

func (c textArrayConn) CheckNamedValue(v *driver.NamedValue) error {
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

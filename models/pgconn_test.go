package models_test

import (
	"context"
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

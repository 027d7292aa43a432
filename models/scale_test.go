package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// fill inserts n games of two seats each, every game awaiting one of them,
// for users 1..100, and 20 events per game for the first 1000 games.
var fill = map[models.Dialect][]string{
	models.Postgres: {
		`INSERT INTO users (id, username, created_at, updated_at)
		 SELECT i, 'u' || i, now(), now() FROM generate_series(1, 100) i`,
		`INSERT INTO games (id, created_by, status, public, mode, office, policy, players, settings, version, created_at, updated_at)
		 SELECT i, 1 + i % 100, 'active', true, 'standard', false, 'holders', 2, '{}', 1, now(), now() FROM generate_series(1, ?) i`,
		`INSERT INTO seats (game_id, seat_no, user_id, username, joined, awaited)
		 SELECT i, s, 1 + (i + s * 37) % 100, 'u', true, (i + s) % 2 = 0 FROM generate_series(1, ?) i, generate_series(0, 1) s`,
		`INSERT INTO events (game_id, seq, version, body, created_at)
		 SELECT g, s, s, '{}', now() FROM generate_series(1, 1000) g, generate_series(1, 20) s`,
		`ANALYZE`,
	},
	models.SQLite: {
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
		 INSERT INTO users (id, username, created_at, updated_at) SELECT i, 'u' || i, datetime('now'), datetime('now') FROM n`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		 INSERT INTO games (id, created_by, status, public, mode, office, policy, players, settings, version, created_at, updated_at)
		 SELECT i, 1 + i % 100, 'active', 1, 'standard', 0, 'holders', 2, '{}', 1, datetime('now'), datetime('now') FROM n`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		 INSERT INTO seats (game_id, seat_no, user_id, username, joined, awaited)
		 SELECT i, s.s, 1 + (i + s.s * 37) % 100, 'u', 1, (i + s.s) % 2 = 0 FROM n, (SELECT 0 AS s UNION ALL SELECT 1) s`,
		`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 1000),
		 s(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM s WHERE j < 20)
		 INSERT INTO events (game_id, seq, version, body, created_at) SELECT i, j, j, '{}', datetime('now') FROM g, s`,
		`ANALYZE`,
	},
}

// TestListsWith100kGames stores 100,000 games and checks that "games
// awaiting me" and "events after N" are answered from their indexes, page
// by page, in milliseconds.
func TestListsWith100kGames(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 100,000 games")
	}
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		n := 100_000
		if raceEnabled && st.Dialect() == models.SQLite {
			n = 10_000 // SQLite runs as Go code; under -race 100,000 rows take minutes
		}
		for _, q := range fill[st.Dialect()] {
			var args []any
			if strings.Contains(q, "?") {
				args = []any{n}
			}
			if err := st.ExecForTest(ctx, q, args...); err != nil {
				t.Fatalf("%.60s: %v", q, err)
			}
		}
		start := time.Now()
		before, pages, total := int64(0), 0, 0
		for pages < 5 {
			page, err := st.ListGames(ctx, models.GameFilter{UserID: 7, Awaiting: true, Before: before, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range page {
				if g.Seats[g.SeatOf(7)].Awaited != true {
					t.Fatalf("game %d does not await user 7", g.ID)
				}
			}
			total += len(page)
			pages++
			if len(page) < 50 {
				break
			}
			before = page[len(page)-1].ID
		}
		if total == 0 {
			t.Fatal("no games await user 7")
		}
		perPage := time.Since(start) / time.Duration(pages)
		evStart := time.Now()
		evs, err := st.EventsAfter(ctx, 500, 10, 100)
		if err != nil || len(evs) != 10 || evs[0].Seq != 11 {
			t.Fatalf("events after 10: %d %v", len(evs), err)
		}
		evTime := time.Since(evStart)
		plan, err := st.ExplainForTest(ctx, models.GameFilter{UserID: 7, Awaiting: true, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "seats_awaiting") {
			t.Fatalf("awaiting query does not use seats_awaiting:\n%s", plan)
		}
		t.Logf("%s, %d games: %d games awaiting user 7 in %d pages, %s per page; events after N in %s", st.Dialect(), n, total, pages, perPage, evTime)
		if perPage > 200*time.Millisecond {
			t.Fatalf("a page of games awaiting me takes %s", perPage)
		}
	})
}

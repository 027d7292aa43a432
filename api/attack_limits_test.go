package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/datamonsters/turns/models/modelstest"
)

// What one account may own at once, attacked by a script that makes
// things without end and by a client that sends at the edge of the limit
// over two servers.

// ownedLimit is one limit of what an account may own: how to make one
// more (the i-th), how to count them in the database, and how to make
// room again.
type ownedLimit struct {
	name  string
	max   int
	words string // what the refusal names ("50 live API tokens")
	make  func(e *env, p *player, i int) req
	count string // a SELECT COUNT(*) with %d for the user's id
	room  func(e *env, p *player, id int64)
}

var ownedLimits = []ownedLimit{
	{
		name: "tokens", max: 50, words: "50 live API tokens",
		make: func(_ *env, p *player, i int) req {
			return req{Method: "POST", Path: "/v1/tokens", Token: p.Access,
				Body: map[string]any{"name": fmt.Sprintf("bot %d", i), "scopes": []string{"read"}}}
		},
		count: `SELECT COUNT(*) FROM api_tokens WHERE user_id = %d AND revoked_at IS NULL`,
		room: func(e *env, p *player, id int64) {
			e.must(http.StatusNoContent, req{Method: "DELETE", Path: fmt.Sprintf("/v1/tokens/%d", id), Token: p.Access})
		},
	},
	{
		name: "decks", max: 100, words: "100 decks",
		make: func(e *env, p *player, i int) req {
			return req{Method: "POST", Path: "/v1/decks", Token: p.Access,
				Body: map[string]any{"name": fmt.Sprintf("deck %d", i), "cards": e.prebuiltCards(0)}}
		},
		count: `SELECT COUNT(*) FROM decks WHERE user_id = %d`,
		room: func(e *env, p *player, id int64) {
			e.must(http.StatusNoContent, req{Method: "DELETE", Path: fmt.Sprintf("/v1/decks/%d", id), Token: p.Access})
		},
	},
	{
		name: "open games", max: 20, words: "20 open games",
		make: func(_ *env, p *player, _ int) req {
			return req{Method: "POST", Path: "/v1/games", Token: p.Access, Body: map[string]any{"players": 2, "deck": deck(0)}}
		},
		count: `SELECT COUNT(*) FROM games WHERE created_by = %d AND status = 'open'`,
		room: func(e *env, p *player, id int64) {
			e.must(http.StatusOK, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/cancel", id), Token: p.Access})
		},
	},
}

// TestAttackOwnedLimitsAtOnce: ana makes tokens, decks and open games up
// to three short of each limit, the last with an Idempotency-Key, then
// sends eight more at once over two servers. What must hold, on both
// databases: exactly three are made and five refused with 409
// limit_reached naming the limit, whatever the interleaving; the keyed
// request sent again at the limit gets its first answer, not a refusal;
// a new one is refused until ana makes room, then one is made; bob, at
// none, is not held back by ana's limit.
func TestAttackOwnedLimitsAtOnce(t *testing.T) {
	for _, l := range ownedLimits {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			eachDBPair(t, testConfig(), func(t *testing.T, a, b *env) {
				ana, bob := a.register("ana"), a.register("bob")
				stored := func() int { return modelstest.Count(t, a.store, fmt.Sprintf(l.count, ana.ID)) }
				keyed := l.make(a, ana, 0)
				keyed.Header = map[string]string{"Idempotency-Key": "last-one"}
				var first struct {
					ID int64 `json:"id"`
				}
				for i := 1; i < l.max-3; i++ {
					[]*env{a, b}[i%2].must(http.StatusCreated, l.make(a, ana, i))
				}
				a.must(http.StatusCreated, keyed).decode(t, &first)

				var wg sync.WaitGroup
				start := make(chan struct{})
				got := make([]*resp, 8)
				for i := range got {
					e, r := []*env{a, b}[i%2], l.make(a, ana, 1000+i)
					wg.Go(func() {
						<-start
						got[i] = e.do(r)
					})
				}
				close(start)
				wg.Wait()
				made := 0
				for i, r := range got {
					switch {
					case r.Status == http.StatusCreated:
						made++
					case r.Status == http.StatusConflict && r.code(t) == "limit_reached" && strings.Contains(string(r.Body), l.words):
					default:
						t.Errorf("request %d of 8 at once: %d %s", i, r.Status, r.Body)
					}
				}
				if made != 3 || stored() != l.max {
					t.Fatalf("8 at once, 3 short of %d: %d made, %d stored", l.max, made, stored())
				}

				var again struct {
					ID int64 `json:"id"`
				}
				r := b.must(http.StatusCreated, keyed)
				r.decode(t, &again)
				if again.ID != first.ID || r.Header.Get("Idempotent-Replayed") != "true" {
					t.Fatalf("the keyed request sent again at the limit: id %d (first %d), replayed %q", again.ID, first.ID, r.Header.Get("Idempotent-Replayed"))
				}
				if r := a.do(l.make(a, ana, 2000)); r.Status != http.StatusConflict || r.code(t) != "limit_reached" {
					t.Fatalf("one more at the limit: %d %s", r.Status, r.Body)
				}
				l.room(a, ana, first.ID)
				b.must(http.StatusCreated, l.make(a, ana, 2001))
				if r := b.do(l.make(a, ana, 2002)); r.Status != http.StatusConflict {
					t.Fatalf("one more after the room was taken: %d %s", r.Status, r.Body)
				}
				if n := stored(); n != l.max {
					t.Fatalf("%d stored, the limit is %d", n, l.max)
				}
				a.must(http.StatusCreated, l.make(a, bob, 1))
			})
		})
	}
}

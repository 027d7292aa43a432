package api_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
)

// TestAttackStreamLongBacklog: a game's stream opened far behind (without
// Last-Event-ID, or from an early id) on a game of more than twice
// StreamBacklog events sends every one of them, then the live ones. It
// sent the first StreamBacklog and then only live ones: the client's last
// id was a live one, and the rest never came.
func TestAttackStreamLongBacklog(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		srv, e := streamServers(t, d)
		ctx := context.Background()
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		stored, err := e.store.EventsAfter(ctx, g.ID, 0, 10)
		if err != nil || len(stored) == 0 {
			t.Fatal(stored, err)
		}
		body := stored[0].Body // one every seat sees
		if _, err := e.store.Mutate(ctx, g.ID, func(cur *models.Game) (*models.Change, error) {
			cur.Version++
			ch := &models.Change{}
			for range 2*notifier.StreamBacklog + 100 {
				ch.Events = append(ch.Events, models.EventRecord{Body: body})
			}
			return ch, nil
		}); err != nil {
			t.Fatal(err)
		}
		all, err := e.store.EventsAfter(ctx, g.ID, 0, 100000)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, r := range all {
			if ev, ok := notifier.GameEvent(r, 1); ok {
				want = append(want, ev.ID)
			}
		}
		path := fmt.Sprintf("/v1/games/%d/stream", g.ID)
		for _, after := range []int{0, 2} {
			last := ""
			if after > 0 {
				last = strconv.Itoa(after)
			}
			ch, stop := srv.openStream(t, path, bob.Access, last)
			evs, _ := collect(ch, 2*time.Second)
			var got []string
			for _, ev := range evs {
				if ev.Type == "event" {
					got = append(got, ev.ID)
				}
			}
			i := slices.Index(want, last) + 1
			if !slices.Equal(got, want[i:]) {
				t.Errorf("after %q: %d events, ids %s...%s; want %d, %s...%s", last, len(got), first(got), lastOf(got),
					len(want[i:]), first(want[i:]), lastOf(want))
			}
			stop()
		}
	})
}

func first(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

func lastOf(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[len(ids)-1]
}

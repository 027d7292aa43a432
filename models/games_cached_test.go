package models_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/datamonsters/turns/models"
)

// TestMutateCachedSkipsSnapshot: a caller holding the state of the current
// version gets no snapshot (Snapshot reads it), the stored snapshot is kept
// when the mutation sets none and replaced when it sets one; at another
// version the snapshot is read as with Mutate. GameNoState reads it on
// demand and reports a game that moved on meanwhile.
func TestMutateCachedSkipsSnapshot(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		g := newGame(t, st, newUser(t, st, "cai"), newUser(t, st, "dov"))
		joined := st.Now()
		deck := `{"cards":[]}`
		if _, err := st.Mutate(ctx, g.ID, func(cur *models.Game) (*models.Change, error) {
			cur.Seats[1].JoinedAt, cur.Seats[1].Deck = &joined, &deck
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		whole, _ := st.Game(ctx, g.ID)
		lite, err := st.GameNoState(ctx, g.ID)
		if err != nil || lite.State != nil {
			t.Fatalf("GameNoState: %v %q", err, lite.State)
		}
		if len(lite.Seats) != 2 || lite.Seats[1].Username != "dov" || *lite.Seats[1].UserID != *whole.Seats[1].UserID ||
			!lite.Seats[0].Awaited || lite.Seats[1].Awaited || !lite.Seats[1].Joined || lite.Seats[1].Invited ||
			lite.Seats[0].JoinedAt != nil || !lite.Seats[1].JoinedAt.Equal(joined) || *lite.Seats[1].Deck != *whole.Seats[1].Deck ||
			lite.Version != whole.Version || !lite.CreatedAt.Equal(whole.CreatedAt) || lite.Settings != whole.Settings {
			t.Fatalf("GameNoState: %+v, Game: %+v", lite, whole)
		}
		_, err = st.MutateCached(ctx, g.ID, 1, func(cur *models.Game) (*models.Change, error) {
			if cur.State != nil {
				t.Errorf("cached version: snapshot read: %q", cur.State)
			}
			if data, err := cur.Snapshot(); err != nil || string(data) != `{"v":1}` {
				t.Errorf("Snapshot in the transaction: %q %v", data, err)
			}
			cur.State = nil // as if never read: the stored one stays
			cur.Version++
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := st.Game(ctx, g.ID); got.Version != 2 || string(got.State) != `{"v":1}` {
			t.Fatalf("after a mutation without a snapshot: v%d %q", got.Version, got.State)
		}
		if _, err := lite.Snapshot(); !errors.Is(err, models.ErrStale) {
			t.Fatalf("Snapshot of a game that moved on: %v", err)
		}
		_, err = st.MutateCached(ctx, g.ID, 1, func(cur *models.Game) (*models.Change, error) {
			if string(cur.State) != `{"v":1}` {
				t.Errorf("other version: snapshot %q", cur.State)
			}
			cur.State = []byte(`{"v":3}`)
			cur.Version++
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := st.Game(ctx, g.ID); got.Version != 3 || string(got.State) != `{"v":3}` {
			t.Fatalf("after a new snapshot: v%d %q", got.Version, got.State)
		}
		if lite, _ = st.GameNoState(ctx, g.ID); lite.State != nil {
			t.Fatal("GameNoState read the snapshot")
		} else if data, err := lite.Snapshot(); err != nil || string(data) != `{"v":3}` {
			t.Fatalf("Snapshot: %q %v", data, err)
		}
	})
}

// TestReplacePrompts: replacing the prompts keeps none of the old ones but
// those named again (rewritten), adds the new ones, and with none left
// removes them all.
func TestReplacePrompts(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		g := newGame(t, st, newUser(t, st, "eda"), newUser(t, st, "fay"))
		replace := func(ps ...models.PromptRecord) {
			t.Helper()
			if _, err := st.Mutate(ctx, g.ID, func(cur *models.Game) (*models.Change, error) {
				cur.Version++
				return &models.Change{ReplacePrompts: true, Prompts: ps}, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		ids := func() (out []string) {
			ps, err := st.Prompts(ctx, g.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				out = append(out, fmt.Sprintf("%s/%d/%s", p.PromptID, p.Seat, p.Body))
			}
			slices.Sort(out)
			return out
		}
		replace(models.PromptRecord{PromptID: "a", Seat: 0, Body: `{"n":1}`}, models.PromptRecord{PromptID: "b", Seat: 1, Body: `{"n":1}`})
		replace(models.PromptRecord{PromptID: "b", Seat: 0, Body: `{"n":2}`}, models.PromptRecord{PromptID: "c", Seat: 1, Body: `{"n":2}`})
		if got := ids(); !slices.Equal(got, []string{`b/0/{"n": 2}`, `c/1/{"n": 2}`}) && !slices.Equal(got, []string{`b/0/{"n":2}`, `c/1/{"n":2}`}) {
			t.Fatalf("after replacing: %v", got)
		}
		replace()
		if got := ids(); len(got) != 0 {
			t.Fatalf("after removing: %v", got)
		}
	})
}

package models_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// eachDB runs f as a parallel subtest against every test database.
func eachDB(t *testing.T, f func(t *testing.T, st *models.Store)) {
	t.Helper()
	for _, d := range []models.Dialect{models.SQLite, models.Postgres} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			f(t, modelstest.Open(t, d, models.Options{}))
		})
	}
}

func newUser(t *testing.T, st *models.Store, name string) *models.User {
	t.Helper()
	u := &models.User{Username: name, Email: name + "@example.com", NotifyEmail: true, NotifyTurns: true}
	if err := st.CreateUser(context.Background(), u, "hash-"+name); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestMigrateIsIdempotent(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		applied, err := st.Migrate(context.Background())
		if err != nil || len(applied) != 0 {
			t.Fatalf("second migrate applied %v, %v", applied, err)
		}
		for _, d := range []models.Dialect{models.SQLite, models.Postgres} {
			m, err := models.Migrations(d)
			if err != nil || len(m) == 0 || m[0].Version != 1 {
				t.Fatalf("%s migrations: %v %v", d, m, err)
			}
		}
	})
}

// TestGameStateStorage: on Postgres a snapshot of the usual size is stored
// compressed with lz4 in the game row, with nothing out of line (migration
// 0010), or, on a server built without lz4, out of line uncompressed (0007).
func TestGameStateStorage(t *testing.T) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	db, err := st.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	var lz4 bool
	if err := db.QueryRow(`SELECT 'lz4' = ANY (enumvals) FROM pg_settings WHERE name = 'default_toast_compression'`).Scan(&lz4); err != nil {
		t.Fatal(err)
	}
	var storage string
	err = db.QueryRow(`SELECT attstorage FROM pg_attribute WHERE attrelid = 'games'::regclass AND attname = 'state'`).Scan(&storage)
	if want := map[bool]string{true: "x", false: "e"}[lz4]; err != nil || storage != want {
		t.Fatalf("games.state storage %q (%v), want %s (lz4 built in: %t)", storage, err, want, lz4)
	}
	if !lz4 {
		return
	}
	// A snapshot like the engine's: 68 cards and some more, about 5 KB.
	var b strings.Builder
	b.WriteString(`{"turn":12,"cards":[`)
	for i := range 68 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"card":"monster-%02d","zone":"deck","owner":%d,"counters":0,"tapped":false}`, i, i%23, i%2)
	}
	b.WriteString(`]}`)
	g := newGame(t, st, newUser(t, st, "ina"), newUser(t, st, "jo"))
	for range 3 {
		if _, err := st.Mutate(context.Background(), g.ID, func(cur *models.Game) (*models.Change, error) {
			cur.Version++
			cur.State = []byte(b.String())
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	var method string
	var size, toast int
	err = db.QueryRow(`SELECT pg_column_compression(state), pg_column_size(state),
  (SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'games'::regclass)
FROM games WHERE id = $1`, g.ID).Scan(&method, &size, &toast)
	if err != nil || method != "lz4" || size >= b.Len()/2 || toast != 0 {
		t.Fatalf("a %d-byte snapshot: %v, compression %q, stored in %d bytes, %d bytes out of line", b.Len(), err, method, size, toast)
	}
}

// TestAwaitRunning: on Postgres AwaitRunning returns once the
// transactions that were running when it was called have ended.
func TestAwaitRunning(t *testing.T) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	db, err := st.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`SELECT pg_current_xact_id()`); err != nil { // a transaction id, as a write gets
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- st.AwaitRunning(context.Background(), 10*time.Second) }()
	select {
	case err := <-done:
		t.Fatalf("returned while a transaction ran: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("still waiting after the transaction ended")
	}
}

func TestUsers(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		ana := newUser(t, st, "ana")
		if err := st.CreateUser(ctx, &models.User{Username: "ana"}, "x"); !errors.Is(err, models.ErrConflict) {
			t.Fatalf("duplicate username: %v", err)
		}
		got, err := st.UserByUsername(ctx, "ana")
		if err != nil || got.ID != ana.ID || got.Email != "ana@example.com" || !got.CreatedAt.Equal(ana.CreatedAt) {
			t.Fatalf("by name: %+v %v", got, err)
		}
		if h, err := st.PasswordHash(ctx, ana.ID); err != nil || h != "hash-ana" {
			t.Fatalf("hash %q %v", h, err)
		}
		if _, err := st.UserByID(ctx, ana.ID+100); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("missing user: %v", err)
		}
		ana.NotifyEmail, ana.Email = false, "" // zero values must be written too
		if err := st.UpdateProfile(ctx, ana); err != nil {
			t.Fatal(err)
		}
		got, _ = st.UserByID(ctx, ana.ID)
		if got.NotifyEmail || got.Email != "" || !got.NotifyTurns {
			t.Fatalf("after update: %+v", got)
		}
	})
}

func TestRefreshRotationAndReuse(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		u := newUser(t, st, "bo")
		exp := time.Now().Add(time.Hour)
		h := func(s string) []byte { return models.HashToken(s) }
		if err := st.CreateRefreshToken(ctx, u.ID, "fam", h("t1"), exp); err != nil {
			t.Fatal(err)
		}
		if id, err := st.RotateRefreshToken(ctx, h("t1"), h("t2"), exp); err != nil || id != u.ID {
			t.Fatalf("rotate: %d %v", id, err)
		}
		if _, err := st.RotateRefreshToken(ctx, h("nope"), h("t3"), exp); !errors.Is(err, models.ErrInvalidToken) {
			t.Fatalf("unknown token: %v", err)
		}
		// t1 again: reuse, the family (t2 included) is revoked.
		if _, err := st.RotateRefreshToken(ctx, h("t1"), h("t3"), exp); !errors.Is(err, models.ErrTokenReuse) {
			t.Fatalf("reuse: %v", err)
		}
		if _, err := st.RotateRefreshToken(ctx, h("t2"), h("t4"), exp); !errors.Is(err, models.ErrInvalidToken) {
			t.Fatalf("family not revoked: %v", err)
		}
		// Expired tokens are refused; logout revokes.
		st.CreateRefreshToken(ctx, u.ID, "old", h("e1"), time.Now().Add(-time.Second))
		if _, err := st.RotateRefreshToken(ctx, h("e1"), h("e2"), exp); !errors.Is(err, models.ErrInvalidToken) {
			t.Fatalf("expired: %v", err)
		}
		st.CreateRefreshToken(ctx, u.ID, "f2", h("l1"), exp)
		if id, err := st.RevokeRefreshFamily(ctx, h("l1")); err != nil || id != u.ID {
			t.Fatalf("logout: %v", err)
		}
		if _, err := st.RotateRefreshToken(ctx, h("l1"), h("l2"), exp); !errors.Is(err, models.ErrInvalidToken) {
			t.Fatalf("after logout: %v", err)
		}
	})
}

func TestAPITokens(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		u, other := newUser(t, st, "cy"), newUser(t, st, "di")
		tok := &models.APIToken{UserID: u.ID, Name: "bot", Prefix: "dm_abc", TokenHash: models.HashToken("secret"), Scopes: "read,play"}
		if err := st.CreateAPIToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		got, err := st.APITokenByHash(ctx, models.HashToken("secret"))
		if err != nil || got.ID != tok.ID || len(got.ScopeList()) != 2 || got.LastUsedAt == nil {
			t.Fatalf("by hash: %+v %v", got, err)
		}
		if err := st.RevokeAPIToken(ctx, other.ID, tok.ID); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("revoke by another user: %v", err)
		}
		if err := st.RevokeAPIToken(ctx, u.ID, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.APITokenByHash(ctx, models.HashToken("secret")); !errors.Is(err, models.ErrInvalidToken) {
			t.Fatalf("revoked token: %v", err)
		}
		if list, _ := st.APITokens(ctx, u.ID); len(list) != 0 {
			t.Fatalf("revoked token listed: %v", list)
		}
	})
}

func TestDecks(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		u, other := newUser(t, st, "ed"), newUser(t, st, "flo")
		d := &models.Deck{UserID: u.ID, Name: "mine", Cards: `[{"card":"x","count":2}]`}
		if err := st.CreateDeck(ctx, d); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Deck(ctx, other.ID, d.ID); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("another user's deck: %v", err)
		}
		d.Name, d.Cards = "renamed", `[{"card":"y","count":1}]`
		if err := st.UpdateDeck(ctx, d); err != nil {
			t.Fatal(err)
		}
		got, err := st.Deck(ctx, u.ID, d.ID)
		if err != nil || got.Name != "renamed" || got.Cards != `[{"card": "y", "count": 1}]` && got.Cards != d.Cards {
			t.Fatalf("after update: %+v %v", got, err)
		}
		list, _ := st.Decks(ctx, u.ID, 0, 10)
		if len(list) != 1 {
			t.Fatalf("list: %v", list)
		}
		if err := st.DeleteDeck(ctx, other.ID, d.ID); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("delete by another user: %v", err)
		}
		if err := st.DeleteDeck(ctx, u.ID, d.ID); err != nil {
			t.Fatal(err)
		}
	})
}

func newGame(t *testing.T, st *models.Store, users ...*models.User) *models.Game {
	t.Helper()
	g := &models.Game{CreatedBy: users[0].ID, Status: models.StatusActive, Mode: "standard", Policy: "holders",
		Players: len(users), Settings: `{}`, Version: 1, State: []byte(`{"v":1}`)}
	for i, u := range users {
		id := u.ID
		g.Seats = append(g.Seats, models.Seat{SeatNo: i, UserID: &id, Username: u.Username, Joined: true, Awaited: i == 0})
	}
	if err := st.CreateGame(context.Background(), g, models.Happened{}); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestMutateSerializes submits 32 changes computed from the same version at
// once: exactly one may be applied.
func TestMutateSerializes(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		a, b := newUser(t, st, "gil"), newUser(t, st, "hal")
		g := newGame(t, st, a, b)
		stale := errors.New("stale")
		var ok atomic.Int32
		var wg sync.WaitGroup
		for i := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := st.Mutate(ctx, g.ID, func(cur *models.Game) (*models.Change, error) {
					if cur.Version != g.Version {
						return nil, stale
					}
					cur.Version++
					cur.State = []byte(fmt.Sprintf(`{"by":%d}`, i))
					return &models.Change{
						Actions: []models.ActionRecord{{Seat: 0, Body: fmt.Sprintf(`{"n":%d}`, i)}},
						Events:  []models.EventRecord{{Body: `{"kind":"a"}`}, {Body: `{"kind":"b"}`}},
					}, nil
				})
				switch {
				case err == nil:
					ok.Add(1)
				case !errors.Is(err, stale):
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 1 {
			t.Fatalf("%d submissions applied, want 1", ok.Load())
		}
		got, _ := st.Game(ctx, g.ID)
		acts, _ := st.Actions(ctx, g.ID)
		evs, _ := st.EventsAfter(ctx, g.ID, 0, 100)
		if got.Version != 2 || got.EventSeq != 2 || len(acts) != 1 || len(evs) != 2 || evs[1].Seq != 2 || evs[1].Version != 2 {
			t.Fatalf("version %d, %d actions, %d events", got.Version, len(acts), len(evs))
		}
	})
}

func TestMutateRollsBackAndTracksSeats(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		a, b := newUser(t, st, "ida"), newUser(t, st, "jo")
		g := newGame(t, st, a, b)
		boom := errors.New("boom")
		_, err := st.Mutate(ctx, g.ID, func(cur *models.Game) (*models.Change, error) {
			cur.Version = 99
			return nil, boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		_, err = st.Mutate(ctx, g.ID, func(cur *models.Game) (*models.Change, error) {
			cur.Version++
			cur.Seats[0].Awaited, cur.Seats[1].Awaited = false, true
			cur.Seats[1].Bot, cur.Seats[1].Timeouts = models.BotTakeover, 2
			return &models.Change{ReplacePrompts: true, Prompts: []models.PromptRecord{{PromptID: "p1", Seat: 1, Body: `{}`}}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := st.Game(ctx, g.ID)
		if got.Version != 2 || got.Seats[0].Awaited || !got.Seats[1].Awaited {
			t.Fatalf("%+v", got)
		}
		// The seat's bot and timeouts read back both ways a game is loaded.
		joined, _ := st.GameNoState(ctx, g.ID)
		for _, s := range [][]models.Seat{got.Seats, joined.Seats} {
			if s[0].Bot != "" || s[0].Timeouts != 0 || s[1].Bot != models.BotTakeover || s[1].Timeouts != 2 {
				t.Fatalf("seats %+v", s)
			}
		}
		if p, _ := st.Prompts(ctx, g.ID); len(p) != 1 || p[0].PromptID != "p1" {
			t.Fatalf("prompts %v", p)
		}
		if _, err := st.Mutate(ctx, g.ID+1000, func(*models.Game) (*models.Change, error) { return nil, nil }); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("missing game: %v", err)
		}
	})
}

func TestListGamesAwaitingAndCursor(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		a, b := newUser(t, st, "kim"), newUser(t, st, "lu")
		var ids []int64
		for i := range 5 {
			var g *models.Game
			if i%2 == 0 {
				g = newGame(t, st, a, b) // awaits a
			} else {
				g = newGame(t, st, b, a) // awaits b
			}
			ids = append(ids, g.ID)
		}
		page, err := st.ListGames(ctx, models.GameFilter{UserID: a.ID, Limit: 2})
		if err != nil || len(page) != 2 || page[0].ID != ids[4] || page[1].ID != ids[3] || len(page[0].Seats) != 2 {
			t.Fatalf("page 1: %v %v", page, err)
		}
		page, _ = st.ListGames(ctx, models.GameFilter{UserID: a.ID, Limit: 10, Before: ids[3]})
		if len(page) != 3 || page[0].ID != ids[2] {
			t.Fatalf("page 2: %v", page)
		}
		page, _ = st.ListGames(ctx, models.GameFilter{UserID: a.ID, Awaiting: true, Limit: 10})
		if len(page) != 3 || page[0].ID != ids[4] || page[1].ID != ids[2] {
			t.Fatalf("awaiting: %d", len(page))
		}
		page, _ = st.ListGames(ctx, models.GameFilter{UserID: a.ID, Status: models.StatusOver, Limit: 10})
		if len(page) != 0 {
			t.Fatalf("status filter: %d", len(page))
		}
	})
}

func TestIdempotency(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		a, b := newUser(t, st, "max"), newUser(t, st, "ned")
		g := newGame(t, st, a, b)
		if _, err := st.IdempotencyRecord(ctx, a.ID, "k1"); !errors.Is(err, models.ErrNotFound) {
			t.Fatal(err)
		}
		rec := func() *models.Idempotency {
			return &models.Idempotency{UserID: a.ID, Key: "k1", RequestHash: []byte{1, 2}, Status: 200, Response: []byte(`{"ok":true}`)}
		}
		mut := func(cur *models.Game) (*models.Change, error) {
			cur.Version++
			return &models.Change{Record: func() (*models.Idempotency, error) { return rec(), nil }}, nil
		}
		if _, err := st.Mutate(ctx, g.ID, mut); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Mutate(ctx, g.ID, mut); !errors.Is(err, models.ErrConflict) {
			t.Fatalf("same key twice: %v", err)
		}
		got, err := st.IdempotencyRecord(ctx, a.ID, "k1")
		if err != nil || got.Status != 200 || !bytes.Equal(got.Response, []byte(`{"ok":true}`)) {
			t.Fatalf("%+v %v", got, err)
		}
		if cur, _ := st.Game(ctx, g.ID); cur.Version != 2 {
			t.Fatalf("version %d: the duplicate was applied", cur.Version)
		}
	})
}

func TestPostgresRequiredWhenConfigured(t *testing.T) {
	if len(modelstest.Dialects()) == 1 {
		t.Skip(modelstest.EnvURL + " not set")
	}
	st := modelstest.Open(t, models.Postgres, models.Options{})
	if st.Dialect() != models.Postgres {
		t.Fatal(st.Dialect())
	}
}

// TestRecipients: the users a change notifies come with the preferences and
// enabled webhooks of those that have them, and without any for the others.
// TestMutateStoresNotifications: a change's notifications go in with its
// write, with their game and the change's time.
func TestMutateStoresNotifications(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		a, b := newUser(t, st, "ida"), newUser(t, st, "jo")
		g := newGame(t, st, a, b)
		_, err := st.Mutate(ctx, g.ID, func(cur *models.Game) (*models.Change, error) {
			cur.Version++
			return &models.Change{Notifications: []models.Notification{
				{UserID: a.ID, GameID: &g.ID, Kind: "your_turn", Body: `{"n":1}`},
				{UserID: b.ID, GameID: &g.ID, Kind: "prompt_waiting", Body: `{"n":2}`},
			}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []struct {
			user       int64
			kind, body string
		}{{a.ID, "your_turn", `{"n":1}`}, {b.ID, "prompt_waiting", `{"n":2}`}} {
			ns, err := st.NotificationsAfter(ctx, want.user, 0, 10)
			if err != nil || len(ns) != 1 || ns[0].Kind != want.kind || ns[0].Body != want.body || ns[0].GameID == nil ||
				*ns[0].GameID != g.ID || ns[0].CreatedAt.IsZero() || ns[0].ID == 0 {
				t.Fatalf("user %d: %+v %v", want.user, ns, err)
			}
		}
	})
}

// recipientsOutbox reads, in each change's transaction, the recipients of
// the game's seat users and of one user who has no seat.
type recipientsOutbox struct {
	also int64
	got  *models.Recipients
	ids  []int64
}

func (o *recipientsOutbox) GameChanged(ctx context.Context, tx models.OutboxTx, c models.GameChange) error {
	o.ids = []int64{o.also}
	for _, s := range c.Game.Seats {
		o.ids = append(o.ids, *s.UserID)
	}
	var err error
	o.got, err = tx.Store.RecipientsOf(ctx, c.Game, o.ids)
	return err
}

// TestRecipientsOfLockedGame: a change's recipients, the seats' users read
// with the locked game and any other user read then, are what RecipientsOf
// reads without a game.
func TestRecipientsOfLockedGame(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		ana, ben, cy := newUser(t, st, "ana"), newUser(t, st, "ben"), newUser(t, st, "cy")
		if err := st.SetPreference(ctx, models.Preference{UserID: ben.ID, Kind: "your_turn", Channel: "email", Enabled: false}); err != nil {
			t.Fatal(err)
		}
		if err := st.CreateWebhook(ctx, &models.Webhook{UserID: ana.ID, URL: "https://example.com/h", Secret: "s", Events: "*"}); err != nil {
			t.Fatal(err)
		}
		g := newGame(t, st, ana, ben)
		o := &recipientsOutbox{also: cy.ID}
		st.SetOutbox(o)
		if _, err := st.MutateCached(ctx, g.ID, -1, func(cur *models.Game) (*models.Change, error) {
			cur.Version++
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		want, err := st.RecipientsOf(ctx, nil, o.ids)
		if err != nil {
			t.Fatal(err)
		}
		if len(o.got.Users) != 3 || !reflect.DeepEqual(o.got, want) {
			t.Fatalf("in the change: %+v\nread alone: %+v", o.got, want)
		}
	})
}

func TestRecipients(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		ana, ben, cy := newUser(t, st, "ana"), newUser(t, st, "ben"), newUser(t, st, "cy")
		if err := st.SetPreference(ctx, models.Preference{UserID: ben.ID, Kind: "your_turn", Channel: "email", Enabled: false}); err != nil {
			t.Fatal(err)
		}
		on := &models.Webhook{UserID: cy.ID, URL: "https://example.com/on", Secret: "s", Events: "*"}
		now := time.Now()
		off := &models.Webhook{UserID: cy.ID, URL: "https://example.com/off", Secret: "s", Events: "*", DisabledAt: &now}
		for _, w := range []*models.Webhook{on, off} {
			if err := st.CreateWebhook(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		r, err := st.RecipientsOf(ctx, nil, []int64{ana.ID, ben.ID, cy.ID, 999999})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Users) != 3 || r.Users[ana.ID].Email != "ana@example.com" || !r.Users[ben.ID].NotifyTurns ||
			!r.Users[cy.ID].CreatedAt.Equal(cy.CreatedAt) || r.Users[999999] != nil {
			t.Fatalf("users %+v", r.Users)
		}
		if len(r.Preferences) != 1 || r.Preferences[0].UserID != ben.ID || r.Preferences[0].Enabled {
			t.Fatalf("preferences %+v", r.Preferences)
		}
		if len(r.Webhooks) != 1 || r.Webhooks[0].ID != on.ID {
			t.Fatalf("webhooks %+v", r.Webhooks)
		}
		if r, err := st.RecipientsOf(ctx, nil, []int64{ana.ID}); err != nil || len(r.Users) != 1 || len(r.Preferences)+len(r.Webhooks) != 0 {
			t.Fatalf("ana alone: %+v %v", r, err)
		}
	})
}

// TestLastEvents: the last event of each game named, and nothing of a
// game without events or of one not named.
func TestLastEvents(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		a, b := newUser(t, st, "lev"), newUser(t, st, "mo")
		g1, g2, g3 := newGame(t, st, a, b), newGame(t, st, a, b), newGame(t, st, a, b)
		for _, g := range []*models.Game{g1, g1, g2} {
			if _, err := st.Mutate(ctx, g.ID, func(cur *models.Game) (*models.Change, error) {
				cur.Version++
				return &models.Change{Events: []models.EventRecord{{Body: fmt.Sprintf(`{"kind":"a","n":%d}`, cur.Version)},
					{Body: fmt.Sprintf(`{"kind":"b","n":%d}`, cur.Version)}}}, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		recs, err := st.LastEvents(ctx, []int64{g1.ID, g2.ID, g3.ID})
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]string{}
		for _, r := range recs {
			var e struct {
				Kind string `json:"kind"`
				N    int    `json:"n"`
			}
			json.Unmarshal([]byte(r.Body), &e)
			got[r.GameID] = fmt.Sprint(e.Kind, e.N)
		}
		if len(recs) != 2 || got[g1.ID] != "b3" || got[g2.ID] != "b2" {
			t.Fatalf("last events: %v", got)
		}
		if recs, err := st.LastEvents(ctx, nil); err != nil || len(recs) != 0 {
			t.Fatalf("no ids: %v %v", recs, err)
		}
	})
}

// TestMutateInsideATransaction: a change made inside another transaction
// does not commit it (its write is not the last statement), so when the
// outer transaction fails, the change is undone.
func TestMutateInsideATransaction(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		a, b := newUser(t, st, "ola"), newUser(t, st, "pim")
		g := newGame(t, st, a, b)
		undo := errors.New("undo")
		err := st.InTx(ctx, func(tx *models.Store) error {
			got, err := tx.Mutate(ctx, g.ID, func(cur *models.Game) (*models.Change, error) {
				cur.Version++
				return &models.Change{Events: []models.EventRecord{{Body: `{"kind":"a"}`}}}, nil
			})
			if err != nil {
				return err
			}
			if got.Version != g.Version+1 {
				return fmt.Errorf("version %d", got.Version)
			}
			return undo
		})
		if !errors.Is(err, undo) {
			t.Fatal(err)
		}
		got, err := st.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if evs, _ := st.EventsAfter(ctx, g.ID, 0, 10); got.Version != g.Version || len(evs) != 0 {
			t.Fatalf("version %d with %d events after the outer transaction failed, want %d and none", got.Version, len(evs), g.Version)
		}
	})
}

// TestSetPreferenceOfNoUser: a preference for a user id with no row (an
// old link after a restore) is ErrNotFound and writes nothing, where its
// row would break the foreign key; set again, one that exists is
// replaced, not refused.
func TestSetPreferenceOfNoUser(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		if err := st.SetPreference(ctx, models.Preference{UserID: 987654, Kind: "your_turn", Channel: "email"}); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("no such user: %v", err)
		}
		ana := newUser(t, st, "ana")
		for range 2 {
			if err := st.SetPreference(ctx, models.Preference{UserID: ana.ID, Kind: "your_turn", Channel: "email"}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

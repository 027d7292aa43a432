package models_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/datamonsters/turns/models"
)

// TestPushSubscriptions: a subscription is saved once per endpoint (again:
// the same row, with the new keys; for another user: the row moves to
// them), listed by user, read as a recipient's, deleted by id or endpoint
// by its user only, and goes with the account; a user keeps at most
// MaxPushSubscriptions.
func TestPushSubscriptions(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		ana, ben := newUser(t, st, "ana"), newUser(t, st, "ben")
		p := &models.PushSubscription{UserID: ana.ID, Endpoint: "https://push.example/a", P256dh: "key1", Auth: "auth1"}
		if created, err := st.SavePushSubscription(ctx, p); err != nil || !created || p.ID == 0 {
			t.Fatalf("first save: created %v, id %d, %v", created, p.ID, err)
		}
		again := &models.PushSubscription{UserID: ana.ID, Endpoint: p.Endpoint, P256dh: "key2", Auth: "auth2"}
		if created, err := st.SavePushSubscription(ctx, again); err != nil || created || again.ID != p.ID {
			t.Fatalf("second save: created %v, id %d (want %d), %v", created, again.ID, p.ID, err)
		}
		list, err := st.PushSubscriptions(ctx, ana.ID)
		if err != nil || len(list) != 1 || list[0].P256dh != "key2" || list[0].Auth != "auth2" {
			t.Fatalf("ana's subscriptions: %+v, %v", list, err)
		}
		r, err := st.RecipientsOf(ctx, nil, []int64{ana.ID, ben.ID})
		if err != nil || len(r.Push) != 1 || r.Push[0].UserID != ana.ID {
			t.Fatalf("recipients' subscriptions: %+v, %v", r, err)
		}

		// The browser signs in as ben and subscribes: the row is his now.
		moved := &models.PushSubscription{UserID: ben.ID, Endpoint: p.Endpoint, P256dh: "key3", Auth: "auth3"}
		if created, err := st.SavePushSubscription(ctx, moved); err != nil || created || moved.ID != p.ID {
			t.Fatalf("save for ben: created %v, id %d, %v", created, moved.ID, err)
		}
		if list, _ := st.PushSubscriptions(ctx, ana.ID); len(list) != 0 {
			t.Fatalf("ana still has %+v", list)
		}
		if err := st.DeletePushSubscription(ctx, ana.ID, p.ID); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("ana deletes ben's subscription: %v", err)
		}
		if err := st.DeletePushEndpoint(ctx, ana.ID, p.Endpoint); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("ana deletes ben's endpoint: %v", err)
		}
		if err := st.DeletePushEndpoint(ctx, ben.ID, p.Endpoint); err != nil {
			t.Fatal(err)
		}
		if _, err := st.PushSubscriptionByID(ctx, p.ID); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("deleted subscription: %v", err)
		}

		// At most MaxPushSubscriptions: the one saved longest ago goes.
		var first int64
		for i := range models.MaxPushSubscriptions + 1 {
			s := &models.PushSubscription{UserID: ana.ID, Endpoint: "https://push.example/n" + strconv.Itoa(i), P256dh: "k", Auth: "a"}
			if _, err := st.SavePushSubscription(ctx, s); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = s.ID
			}
		}
		list, _ = st.PushSubscriptions(ctx, ana.ID)
		if len(list) != models.MaxPushSubscriptions || list[0].ID == first {
			t.Fatalf("%d subscriptions, the first %d (the oldest was %d)", len(list), list[0].ID, first)
		}
		if gone, err := st.DeleteGonePushSubscription(ctx, list[0].ID); err != nil || !gone {
			t.Fatalf("gone: %v %v", gone, err)
		}
		if err := st.DeleteAccount(ctx, ana.ID); err != nil {
			t.Fatal(err)
		}
		if list, _ := st.PushSubscriptions(ctx, ana.ID); len(list) != 0 {
			t.Fatalf("a deleted account keeps %d subscriptions", len(list))
		}
	})
}

// TestPushSubscriptionsBoundConcurrent: a client registers many browsers
// for one user at once. Each save's trim must see the others' rows, so
// that the user keeps MaxPushSubscriptions at most, not one more per
// save that ran beside another.
func TestPushSubscriptionsBoundConcurrent(t *testing.T) {
	eachDB(t, func(t *testing.T, st *models.Store) {
		ctx := context.Background()
		ana := newUser(t, st, "ana")
		const n = models.MaxPushSubscriptions + 16
		errs := make(chan error, n)
		for i := range n {
			go func() {
				p := &models.PushSubscription{UserID: ana.ID, Endpoint: "https://push.example/" + strconv.Itoa(i), P256dh: "k", Auth: "a"}
				_, err := st.SavePushSubscription(ctx, p)
				errs <- err
			}()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		if list, err := st.PushSubscriptions(ctx, ana.ID); err != nil || len(list) != models.MaxPushSubscriptions {
			t.Fatalf("ana keeps %d subscriptions (%v), want %d", len(list), err, models.MaxPushSubscriptions)
		}
	})
}

package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestPostMessageCommitOrder: eight players post to one game's table at
// once while a reader reads the messages after the last id it read, as
// a client pages and as the emails tell the talk. It must read every
// message, once: the one committed last must have the largest id. When
// the id was taken before the game's lock, a message could commit after
// one with a larger id, which the reader had read, and it skipped the
// first for good.
func TestPostMessageCommitOrder(t *testing.T) {
	st := modelstest.Open(t, models.Postgres, models.Options{})
	ctx := context.Background()
	var users []*models.User
	for i := range 4 {
		users = append(users, newUser(t, st, fmt.Sprintf("p%d", i)))
	}
	g := newGame(t, st, users...)
	const each = 60
	var wg sync.WaitGroup
	for i := range 8 {
		u := users[i%4]
		wg.Go(func() {
			for j := range each {
				m := &models.Message{GameID: g.ID, UserID: u.ID, Seat: i % 4, Body: fmt.Sprintf("%d.%d", i, j)}
				if err := st.PostMessage(ctx, m, nil, nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	read := map[int64]int{}
	after := int64(0)
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		ms, err := st.Messages(ctx, g.ID, 0, after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			read[m.ID]++
			after = m.ID
		}
	}
	ms, err := st.Messages(ctx, g.ID, 0, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 8*each {
		t.Fatalf("%d messages stored, want %d", len(ms), 8*each)
	}
	for _, m := range ms {
		if read[m.ID] != 1 {
			t.Errorf("message %d (%s) read %d times by a reader after the last id", m.ID, m.Body, read[m.ID])
		}
	}
}

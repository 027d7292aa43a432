package inbound_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestAnswerSaysQuietMove: a player ends their turn by email while the
// other is in their quiet hours; the other's turn would end in them, so
// it ends when they end, and the answer, the next email the player gets,
// says so.
func TestAnswerSaysQuietMove(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newEnv(t, d)
		ana, ben := e.user("ana"), e.user("ben")
		id := e.game(ana, ben)
		e.settle()
		g, err := e.st.GameNoState(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		seat := 0
		if !g.Seats[0].Awaited {
			seat = 1
		}
		players := []*models.User{ana, ben}
		u, opp := players[seat], players[1-seat]
		q := modelstest.QuietAround(time.Now())
		if err := e.st.SetQuietHours(ctx, opp.ID, &q); err != nil {
			t.Fatal(err)
		}
		em := e.latest(u)
		raw := replyTo(u, em, "end").raw()
		if err := e.sendSMTP(u.Email, em.ReplyTo, raw); err != nil {
			t.Fatal(err)
		}
		var answer *sent
		for deadline := time.Now().Add(20 * time.Second); answer == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			answer = e.answerTo(messageIDOf(raw))
		}
		if answer == nil {
			t.Fatal("no answer")
		}
		if g, err = e.st.GameNoState(ctx, id); err != nil || !slices.Equal(g.QuietSeats(), []int{1 - seat}) {
			t.Fatalf("%s's deadline %v was not moved out of their quiet hours (%v)", opp.Username, g.DeadlineAt, err)
		}
		if want := "was moved out of " + opp.Username + "'s quiet hours, to their end."; !strings.Contains(answer.Text, want) {
			t.Fatalf("the answer does not say %q:\n%s", want, answer.Text)
		}
	})
}

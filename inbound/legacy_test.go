package inbound_test

import (
	"context"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
)

// TestReplyAddressWithoutDigest: a reply address made before addresses
// carried the digest of the email's lines is taken while the lines are
// numbered as they were then (no two moves worded alike), and refused
// with the reason when they are not: its numbers could name other moves.
func TestReplyAddressWithoutDigest(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	seen := map[bool]bool{}
	var f forms
	for step := range 40 {
		e.settle()
		g, err := e.st.GameNoState(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != models.StatusActive || seen[true] && seen[false] {
			break
		}
		var same bool
		var u *models.User
		seat := 0
		err = e.play.Read(context.Background(), id, 0, func(g *models.Game, _ int, st *engine.State) error {
			seat = engine.Awaiting(st)[0]
			u = map[bool]*models.User{true: ana, false: ben}[*g.Seats[seat].UserID == ana.ID]
			_, same = engine.NumberedFor(engine.Moves(st, seat), 0)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		em := e.latest(u)
		r, err := notifier.ParseReplyAddress(em.ReplyTo)
		if err != nil || r.Lines == 0 || r.Version != g.Version {
			t.Fatalf("the email's address %q: %+v %v", em.ReplyTo, r, err)
		}
		body, _ := e.choose(t, id, seat, u, &em, r.Version, step, &f, true) // what the greedy bot would do, in words
		r.Lines = 0                                                         // as an address made before digests
		m := replyTo(u, em, body)
		m.To = r.Address(e.reply.Secret, domain)
		raw := m.raw()
		if err := e.sendSMTP(u.Email, m.To, raw); err != nil {
			t.Fatal(err)
		}
		e.settle()
		moved := e.version(id) != g.Version
		a := e.answerTo(messageIDOf(raw))
		switch {
		case same && !moved:
			t.Fatalf("the lines are numbered as before, but %q was not played: %+v", body, a)
		case !same && (moved || a == nil || !strings.Contains(a.Text, "numbered differently")):
			t.Fatalf("the lines are numbered otherwise now, but the reply was not refused with the reason (moved %v): %+v", moved, a)
		}
		seen[same] = true
		if !moved { // play on by the email's own address
			m := replyTo(u, em, body)
			if err := e.sendSMTP(u.Email, m.To, m.raw()); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("seen: numbered as before %v, otherwise %v", seen[true], seen[false])
	if !seen[true] && !seen[false] {
		t.Fatal("no reply was tried")
	}
}

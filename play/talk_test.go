package play_test

import (
	"context"
	"testing"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
)

// TestTalkKeptWhileCurrent: a board's read of the table talk
// (LatestMessagesIn) is kept by the game's version and TalkSeq, so a
// second read of the same game row costs no statement; a message posted
// or a mute made by another process on the same store moves TalkSeq, and
// the next read (of the game row as it is then) shows it.
func TestTalkKeptWhileCurrent(t *testing.T) {
	ctx := context.Background()
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		st := modelstest.Open(t, d, models.Options{})
		here, there := play.New(st, nil, nil), play.New(st, nil, nil)
		id, ana, bob, _ := startedGame(t, st, here)
		count := st.CountStatementsForTest()
		// read is the board's read as ana: the game row, then its talk;
		// it returns the talk and the statements the talk cost.
		read := func(uid int64) (*play.Talk, int64) {
			t.Helper()
			g, err := st.GameNoState(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			before := count()
			tk, err := here.LatestMessagesIn(ctx, g, uid, 10)
			if err != nil {
				t.Fatal(err)
			}
			return tk, count() - before
		}
		if tk, n := read(ana.ID); n != 1 || len(tk.Messages) != 0 || tk.Muted {
			t.Fatalf("first read: %d statements, %d messages, muted %v; want 1, 0, false", n, len(tk.Messages), tk.Muted)
		}
		if _, n := read(ana.ID); n != 0 {
			t.Fatalf("the same read again cost %d statements, want 0", n)
		}
		if _, err := there.Say(ctx, id, bob.ID, play.Say{Text: "good luck"}, nil); err != nil {
			t.Fatal(err)
		}
		tk, n := read(ana.ID)
		if n != 1 || len(tk.Messages) != 1 || tk.Messages[0].Text != "good luck" {
			t.Fatalf("after bob's message: %d statements, messages %+v", n, tk.Messages)
		}
		if tk.Game == nil || tk.Game.ID != id {
			t.Fatalf("the talk's game is %+v", tk.Game)
		}
		if again, _ := read(ana.ID); again.Game == nil || len(again.Messages) != 1 {
			t.Fatalf("the kept read: game %v, %d messages", again.Game, len(again.Messages))
		}
		// Bob's read is his own: it is not ana's kept one.
		if tk, n := read(bob.ID); n != 1 || tk.Seat != 1 {
			t.Fatalf("bob's read: %d statements, seat %d", n, tk.Seat)
		}
		if err := there.MuteMessages(ctx, id, ana.ID, true); err != nil {
			t.Fatal(err)
		}
		if tk, _ := read(ana.ID); !tk.Muted {
			t.Fatal("ana muted the game's messages in another process; her next read says not muted")
		}
		if tk, _ := read(bob.ID); tk.Muted {
			t.Fatal("bob's read says muted: only ana muted")
		}
		if err := there.MuteMessages(ctx, id, ana.ID, false); err != nil {
			t.Fatal(err)
		}
		if tk, _ := read(ana.ID); tk.Muted || len(tk.Messages) != 1 {
			t.Fatalf("after unmuting: muted %v, %d messages", tk.Muted, len(tk.Messages))
		}
	})
}

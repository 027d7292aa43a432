package inbound_test

import (
	"context"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestControlsByReply: the commands that need no list, each by a reply to
// an email that numbers no moves: "join" alone takes the invited seat with
// the first prebuilt deck; "status" gets a waiting player the board; "vote
// end" from both players ends the game, and each of them is told its end
// once: the first voter by the game-over email, the second by the answer
// to their vote, with the final board, the scores by rank and the
// fairness check, and no other email from that change.
func TestControlsByReply(t *testing.T) {
	for _, d := range modelstest.Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			e := newEnv(t, d)
			ana, ben := e.user("ana"), e.user("ben")
			ctx := context.Background()
			id, inv := e.invite(t, ana, ben)
			send := func(u *models.User, em sent, body string) sent { t.Helper(); return e.answered(t, u, em, body) }
			if a := send(ben, inv, "join"); !strings.Contains(a.Text, "You joined the game with the deck Running a Startup.") {
				t.Fatalf("join with the default deck:\n%s", a.Text)
			}
			g, _ := e.st.GameNoState(ctx, id)
			if !g.Seats[1].Joined || g.Seats[1].Deck == nil || !strings.Contains(*g.Seats[1].Deck, "running-a-startup") {
				t.Fatalf("ben's seat after join: %+v", g.Seats[1])
			}
			g, waiting := e.start(t, id, ana, [2]*models.User{ana, ben})
			first := ana
			if waiting == ana {
				first = ben
			}
			started := e.sink.to(waiting.Email)
			em := started[len(started)-1]
			if !strings.Contains(em.Text, "has started") || em.decision() || em.ReplyTo == "" {
				t.Fatalf("the waiting player's game-started email:\n%s", em.Text)
			}
			if a := send(waiting, em, "status"); !strings.Contains(a.Text, "Market (") || !strings.Contains(a.Text, "(you):") ||
				strings.Contains(a.Text, "What you can do now") {
				t.Fatalf("status to a waiting player:\n%s", a.Text)
			}
			if v := e.version(id); v != g.Version {
				t.Fatalf("status moved the game from version %d to %d", g.Version, v)
			}
			if a := send(waiting, em, "vote end"); !strings.Contains(a.Text, "You voted to end the game as it stands.") {
				t.Fatalf("the first vote:\n%s", a.Text)
			}
			if g, _ := e.st.GameNoState(ctx, id); g.Status != models.StatusActive {
				t.Fatalf("one vote ended the game: %s", g.Status)
			}
			before := map[string]int{ana.Email: len(e.sink.to(ana.Email)), ben.Email: len(e.sink.to(ben.Email))}
			a := send(first, e.latest(first), "vote end")
			if g, _ := e.st.GameNoState(ctx, id); g.Status != models.StatusOver {
				t.Fatalf("after both votes the game is %s", g.Status)
			}
			final := []string{"Game over", "Final scores (Big Data Points), by rank:\n  1. ", "The board:", "secret:     ", "commitment: ",
				"datamonsters replay --url https://dm.example "}
			for _, want := range append(final, "You voted to end the game as it stands.") {
				if !strings.Contains(a.Text, want) {
					t.Errorf("the answer to the vote that ended the game lacks %q:\n%s", want, a.Text)
				}
			}
			for _, u := range []*models.User{ana, ben} {
				got := e.sink.to(u.Email)[before[u.Email]:]
				if len(got) != 1 {
					var kinds []string
					for _, m := range got {
						kinds = append(kinds, m.MessageID)
					}
					t.Fatalf("%s got %d emails from the vote that ended the game: %v", u.Username, len(got), kinds)
				}
				for _, want := range final {
					if !strings.Contains(got[0].Text, want) {
						t.Errorf("%s's email of the game's end lacks %q:\n%s", u.Username, want, got[0].Text)
					}
				}
			}
		})
	}
}

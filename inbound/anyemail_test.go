package inbound_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
)

// TestControlsByReply: the commands that need no list, each by a reply to
// an email that numbers no moves: "join" alone takes the invited seat with
// the first prebuilt deck; "status" gets a waiting player the board; "vote
// end" from both players (the first signed off with "Take care", which is
// skipped) ends the game, and each of them is told its end
// once: the first voter by the game-over email, the second by the answer
// to their vote, with the final board, the scores by rank and the
// fairness check, and no other email from that change.
func TestControlsByReply(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
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
		if a := send(waiting, em, "vote end\n\nTake care"); !strings.Contains(a.Text, "You voted to end the game as it stands.") ||
			!strings.Contains(a.Text, "Not read as commands, so skipped:\n  > Take care\n") {
			t.Fatalf("the first vote, with a sign-off:\n%s", a.Text)
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

// TestAnswerOpensWithNews: Ana plays a Tool by a reply (signed off with
// words that name no move, skipped); Ben cancels it by
// a reply that plays Merge Conflict in the window it opened. The answer
// to Ben's reply opens (below the greeting) with what his move did, and
// the email that tells Ana her turn goes on with what happened to her
// Tool, each in the sentence of the board's banner.
func TestAnswerOpensWithNews(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	g := e.scenarioGame(t, `name: a Tool cancelled
players:
  - {name: ana, hand: [open-source-library, frontend-framework]}
  - {name: ben, hand: [merge-conflict]}
`, ana, ben)
	general := func(u *models.User, seat int) sent { return e.general(g.ID, u, seat) }
	opening := func(m sent, name string) string {
		body, _ := strings.CutPrefix(m.Text, "Hello "+name+",\n\n")
		first, _, _ := strings.Cut(body, "\n")
		return first
	}
	if a := e.answered(t, ana, general(ana, 0), "play open source library\n\nLet me know when you can"); !strings.Contains(a.Text, "Your moves were played.") ||
		!strings.Contains(a.Text, "Not read as commands, so skipped:\n  > Let me know when you can\n") {
		t.Fatalf("Ana's Tool, with a sign-off:\n%s", a.Text)
	}
	a := e.answered(t, ben, general(ben, 1), "play merge conflict")
	if got, want := opening(a, "ben"), "You played Merge Conflict: ana's Open Source Library (TECH 1, SCI 1) was cancelled."; got != want {
		t.Errorf("the answer to Ben opens with %q, want %q:\n%s", got, want, a.Text)
	}
	toAna := e.sink.to(ana.Email)
	if got, want := opening(toAna[len(toAna)-1], "ana"), "ben played Merge Conflict: your Open Source Library (TECH 1, SCI 1) was cancelled."; got != want {
		t.Errorf("Ana's email opens with %q, want %q:\n%s", got, want, toAna[len(toAna)-1].Text)
	}
}

// TestOneSubjectWhileSeatsChange: the players of a game may change before
// its start (an invitee declines, someone takes an open seat), but every
// email of the game, from the invitations and the answers to replies in
// the lobby to its end, has the same subject, which names its host.
func TestOneSubjectWhileSeatsChange(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben, cy, dee := e.user("ana"), e.user("ben"), e.user("cy"), e.user("dee")
	ctx := context.Background()
	res, err := e.play.Create(ctx, ana.ID, play.NewGame{Players: 3, Mode: "fast", Invite: []string{"ben", "cy"},
		Deck: play.DeckChoice{Prebuilt: "running-a-startup"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Game.ID
	res.Done()
	e.settle()
	invitation := func(u *models.User) sent {
		ms := e.sink.to(u.Email)
		if len(ms) != 1 {
			t.Fatalf("%d invitations to %s", len(ms), u.Username)
		}
		return ms[0]
	}
	e.answered(t, cy, invitation(cy), "decline")
	if res, err = e.play.Join(ctx, id, dee.ID, play.DeckChoice{Prebuilt: "running-a-startup"}, nil); err != nil {
		t.Fatal(err)
	}
	res.Done()
	e.answered(t, ben, invitation(ben), "join")
	g, _ := e.start(t, id, ana, [2]*models.User{ana, ben})
	for _, u := range []*models.User{ana, ben, dee} {
		e.answered(t, u, e.sink.to(u.Email)[len(e.sink.to(u.Email))-1], "resign")
		if g, _ = e.st.GameNoState(ctx, id); g.Status == models.StatusOver {
			break
		}
	}
	if g.Status != models.StatusOver {
		t.Fatalf("the game is %s", g.Status)
	}
	want := "[Data Monsters] Game #" + strconv.FormatInt(id, 10) + ", hosted by ana"
	n := 0
	for _, m := range e.sink.all() {
		n++
		if m.Subject != want {
			t.Errorf("the email %s to %s has the subject %q, want %q", m.MessageID, m.To, m.Subject, want)
		}
	}
	if n < 10 {
		t.Fatalf("only %d emails", n)
	}
}

// scenarioGame stores an active game of a and b (in that order) in the
// position of the scenario doc, a's turn, under the policy holders.
func (e *env) scenarioGame(t *testing.T, doc string, a, b *models.User) *models.Game {
	t.Helper()
	res, err := engine.RunScenario([]byte(doc))
	if err != nil || res.Failed() {
		t.Fatalf("scenario: %v %+v", err, res)
	}
	data, err := res.State.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	g := &models.Game{CreatedBy: a.ID, Status: models.StatusActive, Mode: "fast", Policy: "holders", Players: 2,
		Settings: `{"turn_deadline_seconds":259200,"prompt_deadline_seconds":86400}`, Version: 1, State: data, StartedAt: &now}
	for i, u := range []*models.User{a, b} {
		id := u.ID
		g.Seats = append(g.Seats, models.Seat{SeatNo: i, UserID: &id, Username: u.Username, Joined: true, Awaited: i == 0})
	}
	if err := e.st.CreateGame(context.Background(), g, models.Happened{}); err != nil {
		t.Fatal(err)
	}
	return g
}

// general is an email of game id to u at seat whose reply address is a
// general one at the game's version: a player may answer it (this test's
// game sent them none before).
func (e *env) general(id int64, u *models.User, seat int) sent {
	addr := notifier.Reply{GameID: id, Seat: seat, UserID: u.ID, Version: e.version(id), Expires: time.Now().Add(time.Hour), General: true}.
		Address(e.reply.Secret, domain)
	return sent{ReplyTo: addr, Subject: "[Data Monsters] Game", MessageID: "x@dm.example"}
}

// TestOfferAtTheEndOfTurn: the answer to the reply that ends Ana's turn
// offers her, in one line, the standing answers that spare the waits of
// Ben's coming turn, for the interrupt she holds; at the end of his turn
// Ben, who holds none, is offered nothing.
func TestOfferAtTheEndOfTurn(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	g := e.scenarioGame(t, `name: an interrupt held at the end of a turn
players:
  - {name: ana, hand: [merge-conflict, open-source-library]}
  - {name: ben, hand: [frontend-framework], deck: [rapid-prototype, data-lake, design-system]}
`, ana, ben)
	a := e.answered(t, ana, e.general(g.ID, ana, 0), "end")
	offer := `So that the others' coming turn need not wait for you: reply "always pass", "merge conflict when tool", or nothing to be asked.`
	if !strings.Contains(a.Text, "Your moves were played.") || !strings.Contains(strings.Join(strings.Fields(a.Text), " "), offer) {
		t.Fatalf("the answer that ends Ana's turn does not offer %q:\n%s", offer, a.Text)
	}
	if !strings.Contains(a.HTML, "always pass") || !strings.Contains(a.HTML, "merge conflict when tool") {
		t.Fatalf("the HTML part does not offer the standing answers:\n%s", a.HTML)
	}
	if a := e.answered(t, ben, e.general(g.ID, ben, 1), "end"); !strings.Contains(a.Text, "Your moves were played.") ||
		strings.Contains(a.Text, "need not wait for you") {
		t.Fatalf("Ben, who holds no interrupt, is offered standing answers:\n%s", a.Text)
	}
}

package inbound_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/inbound"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
)

// smtpDialog runs an SMTP session over TCP with the server at addr, as a
// client that writes its bytes as they are: each command, then the
// message raw as given (already dot-stuffed, with its end marker). It
// returns the server's answer to the end of the data, or an error when
// none came within wait.
func smtpDialog(addr, from, rcpt string, data []byte, wait time.Duration) (string, error) {
	c, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		return "", err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	reply := func() (string, error) {
		c.SetReadDeadline(time.Now().Add(wait))
		var out strings.Builder
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return out.String(), err
			}
			out.WriteString(line)
			if len(line) < 4 || line[3] != '-' {
				return strings.TrimSpace(out.String()), nil
			}
		}
	}
	if _, err := reply(); err != nil {
		return "", fmt.Errorf("greeting: %w", err)
	}
	for _, cmd := range []string{"EHLO client.example.com", "MAIL FROM:<" + from + ">", "RCPT TO:<" + rcpt + ">", "DATA"} {
		fmt.Fprintf(c, "%s\r\n", cmd)
		if got, err := reply(); err != nil || got[0] != '2' && got[0] != '3' {
			return got, fmt.Errorf("%s: %q %v", cmd, got, err)
		}
	}
	if _, err := c.Write(data); err != nil {
		return "", err
	}
	got, err := reply()
	if err == nil {
		fmt.Fprintf(c, "QUIT\r\n")
	}
	return got, err
}

// TestDataEndAfterStrayCR: a message whose last line ends with a stray CR
// before its CRLF ("end\r\r\n.\r\n") is taken at once, as the end of its
// data says, and played; go-smtp v0.25.1's DATA reader missed that end
// and held the session until its read timeout, so the sender retried and
// finally bounced. The other stray CRs a body may hold (alone, in pairs,
// before a stuffed dot) change nothing else.
func TestDataEndAfterStrayCR(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	em := e.latest(u)
	before := e.version(id)
	raw := string(replyMsg{From: u.Email, To: em.ReplyTo, Subject: "Re: " + em.Subject, InReplyTo: em.MessageID, Body: "end"}.raw())
	raw = strings.TrimSuffix(raw, "\r\n") + "\r\r\n.\r\n"
	start := time.Now()
	got, err := smtpDialog(e.smtp, u.Email, em.ReplyTo, []byte(raw), 5*time.Second)
	if err != nil || !strings.HasPrefix(got, "250") {
		t.Fatalf("after %v: %q, %v (the end of the data was not seen)", time.Since(start).Round(time.Millisecond), got, err)
	}
	if v := e.version(id); v != before+1 {
		t.Fatalf("the game went from version %d to %d, want one move played", before, v)
	}
	// Stray CRs inside a body, and a run of three before the end.
	for _, body := range []string{"x\r\r\n..y\r\n\r\r\r\n.\r\n", "a\rb\r\r\r\r\n.\r\n", "\r\r\n.\r\n"} {
		data := "From: " + u.Email + "\r\nTo: " + em.ReplyTo + "\r\nSubject: stray\r\nMessage-ID: <stray-" +
			fmt.Sprint(time.Now().UnixNano()) + "@example.com>\r\n\r\n" + body
		if got, err := smtpDialog(e.smtp, u.Email, em.ReplyTo, []byte(data), 5*time.Second); err != nil || !strings.HasPrefix(got, "250") {
			t.Fatalf("%q: %q, %v", body, got, err)
		}
	}
}

// TestAutoResponderAnsweredAFewTimes: an auto-responder that sends none
// of the auto-reply headers answers each answer it gets with the same
// text. The service answers its first refusals, then stays silent: at
// most 3 refusals per decision, and at most 5 per sender an hour, whatever
// the reply address. The counts are in the database: a second server on
// it (or the same one restarted) goes on from them.
func TestAutoResponderAnsweredAFewTimes(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	em := e.latest(u)
	before := e.version(id)
	answered := 0
	auto := func(in *inbound.Service, to string) inbound.Result {
		t.Helper()
		raw := replyMsg{From: u.Email, To: to, Subject: "Out of office", Body: "I am away until Monday and will answer your message then."}.raw()
		res, err := in.Receive(context.Background(), inbound.Envelope{MailFrom: u.Email, HasReturnPath: true, Rcpt: []string{to}, Raw: raw})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != inbound.Refused {
			t.Fatalf("outcome %s, want refused", res.Outcome)
		}
		if res.Answered {
			answered++
		}
		return res
	}
	server := func() *inbound.Service { // with the default limits of refusals
		in, err := inbound.New(inbound.Config{Play: e.play, Outbox: e.ob, Reply: e.reply, Email: e.email,
			Rate: models.RateLimit{Burst: 1000, Every: time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	first, second := server(), server()
	for range 6 {
		auto(first, em.ReplyTo)
	}
	if answered != 3 {
		t.Fatalf("%d of 6 refusals of one decision answered, want 3", answered)
	}
	if res := auto(second, em.ReplyTo); res.Answered {
		t.Fatal("a second server answered a fourth refusal of the decision")
	}
	// Other decisions' addresses (as each answer carries a fresh one): two
	// more answers reach the sender's five in the hour, then none.
	for v := range 6 {
		r, err := notifier.ParseReplyAddress(em.ReplyTo)
		if err != nil {
			t.Fatal(err)
		}
		fresh := notifier.Reply{GameID: r.GameID, Seat: r.Seat, UserID: r.UserID, Version: r.Version + int64(v) + 1, Expires: r.Expires,
			Lines: r.Lines}
		auto(second, fresh.Address(e.reply.Secret, e.reply.Domain))
	}
	if answered != 5 {
		t.Fatalf("%d refusals answered in all, want 5 (the sender's hour)", answered)
	}
	e.settle()
	if n := len(e.sink.to(u.Email)); n == 0 {
		t.Fatal("no email at all")
	}
	// The last answer each limit allows says so, and until when: the
	// decision's third and the sender's fifth.
	refusals, warned := 0, 0
	for _, m := range e.sink.to(u.Email) {
		if strings.Contains(m.Text, "\nNothing was played.\n") {
			refusals++
		}
		if strings.Contains(m.Text, "To keep mail loops away, a reply refused before ") {
			warned++
			if !strings.Contains(strings.Join(strings.Fields(m.Text), " "), " will get no answer; the game's page always shows your moves.") {
				t.Errorf("the warning of the last answer:\n%s", m.Text)
			}
		}
	}
	if refusals != 5 || warned != 2 {
		t.Fatalf("%d refusal emails sent, want 5; %d say the next gets no answer, want 2", refusals, warned)
	}
	if v := e.version(id); v != before {
		t.Fatalf("the game moved from version %d to %d", before, v)
	}
}

// TestCommandsFromAnyEmail: every email of a game has a reply address,
// and the commands that need no list are taken from any of them: "board"
// from the waiting player's game-started email gets the board; "help"
// the command language; an invitation takes "join" with a deck named,
// or "decline"; "resign" leaves the game.
func TestCommandsFromAnyEmail(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben, cy := e.user("ana"), e.user("ben"), e.user("cy")
	ctx := context.Background()
	id, inv := e.invite(t, ana, ben)
	send := func(u *models.User, em sent, body string) sent { t.Helper(); return e.answered(t, u, em, body) }
	if a := send(ben, inv, "1"); !strings.Contains(a.Text, "The game is open; nothing was played") {
		t.Fatalf("a number to an invitation:\n%s", a.Text)
	}
	if a := send(ben, inv, "join working for the enterprise\nThanks!"); !strings.Contains(a.Text, "You joined the game with the deck Working for the Enterprise") ||
		!strings.Contains(a.Text, "> Thanks!") {
		t.Fatalf("join:\n%s", a.Text)
	}
	g, _ := e.st.GameNoState(ctx, id)
	if !g.Seats[1].Joined || g.Seats[1].Deck == nil || !strings.Contains(*g.Seats[1].Deck, "working-for-the-enterprise") {
		t.Fatalf("ben's seat %+v", g.Seats[1])
	}
	g, waiting := e.start(t, id, ana, [2]*models.User{ana, ben})
	var started *sent
	for _, m := range e.sink.to(waiting.Email) {
		if strings.Contains(m.Subject, "started") || strings.Contains(m.Text, "has started") {
			started = &m
		}
	}
	if started == nil || started.ReplyTo == "" || started.decision() {
		t.Fatalf("the waiting player's game-started email: %+v", started)
	}
	if a := send(waiting, *started, "3"); !strings.Contains(a.Text, "numbers no moves") {
		t.Fatalf("a number to an email without a list:\n%s", a.Text)
	}
	if a := send(waiting, *started, "board"); !strings.Contains(a.Text, "Market (") {
		t.Fatalf("board to a waiting player:\n%s", a.Text)
	}
	if a := send(waiting, *started, "help"); !strings.Contains(a.Text, "How to answer by email") || !strings.Contains(a.Text, "vote end") {
		t.Fatalf("help:\n%s", a.Text)
	}
	if v := e.version(id); v != g.Version {
		t.Fatalf("board and help moved the game from %d to %d", g.Version, v)
	}
	// An invitation turned down.
	other, inv := e.invite(t, ana, cy)
	if a := send(cy, inv, "decline"); !strings.Contains(a.Text, "You declined the invitation") {
		t.Fatalf("decline:\n%s", a.Text)
	}
	if g, _ := e.st.GameNoState(ctx, other); g.Seats[1].UserID != nil {
		t.Fatalf("cy's seat after decline: %+v", g.Seats[1])
	}
	// resign, from the waiting player's email.
	if a := send(waiting, *started, "resign"); !strings.Contains(a.Text, "You resigned from the game") {
		t.Fatalf("resign:\n%s", a.Text)
	}
	if g, _ := e.st.GameNoState(ctx, id); g.Status != models.StatusOver {
		t.Fatalf("after resign the game is %s", g.Status)
	}
}

package inbound_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
)

// hooks is a webhook receiver that keeps the bodies it gets.
type hooks struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []string
}

func startHooks(t *testing.T) *hooks {
	h := &hooks{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, string(b))
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// got reports whether a body the receiver got holds every one of texts.
func (h *hooks) got(texts ...string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.ContainsFunc(h.bodies, func(b string) bool {
		for _, t := range texts {
			if !strings.Contains(b, t) {
				return false
			}
		}
		return true
	})
}

// gameOf starts a fast game of the users, the first creating it.
func (e *env) gameOf(users ...*models.User) int64 {
	e.t.Helper()
	ctx := context.Background()
	pub := true
	res, err := e.play.Create(ctx, users[0].ID, play.NewGame{Players: len(users), Mode: "fast", Public: &pub,
		Deck: play.DeckChoice{Prebuilt: "running-a-startup"}}, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	id := res.Game.ID
	res.Done()
	for _, u := range users[1:] {
		if res, err = e.play.Join(ctx, id, u.ID, play.DeckChoice{Prebuilt: "working-for-the-enterprise"}, nil); err != nil {
			e.t.Fatal(err)
		}
		res.Done()
	}
	if res, err = e.play.Start(ctx, id, users[0].ID, nil); err != nil {
		e.t.Fatal(err)
	}
	res.Done()
	return id
}

// mailOf is the newest email to u of game id that takes replies.
func (e *env) mailOf(u *models.User, id int64) sent {
	e.t.Helper()
	e.settle()
	ms := e.sink.to(u.Email)
	for i := len(ms) - 1; i >= 0; i-- {
		if r, err := notifier.ParseReplyAddress(ms[i].ReplyTo); err == nil && r.GameID == id {
			return ms[i]
		}
	}
	e.t.Fatalf("no email of game %d with a reply address to %s", id, u.Email)
	return sent{}
}

// sayReply sends u's reply to em with body over SMTP and returns the
// answer to it.
func (e *env) sayReply(u *models.User, em sent, body string) sent {
	e.t.Helper()
	m := replyTo(u, em, body)
	m.MessageID = fmt.Sprintf("say-%d-%d@example.com", time.Now().UnixNano(), replySeq.Add(1))
	if err := e.sendSMTP(u.Email, m.To, m.raw()); err != nil {
		e.t.Fatal(err)
	}
	e.settle()
	for _, s := range e.sink.to(u.Email) {
		if s.InReplyTo == m.MessageID {
			return s
		}
	}
	e.t.Fatalf("no answer to %q", body)
	return sent{}
}

// texts are the texts of game id's messages that u reads.
func (e *env) texts(u *models.User, id int64) []string {
	e.t.Helper()
	t, err := e.play.Messages(context.Background(), id, u.ID, 0, 100)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, m := range t.Messages {
		out = append(out, m.Text)
	}
	return out
}

// userStream is a user's notification stream as it sends: on each notice
// of its subscription, what the feed reads next.
type userStream struct {
	t    testing.TB
	sub  *notifier.Subscription
	feed *notifier.NotificationFeed
	sent []notifier.Event // all it sent since it was opened
}

// stream opens u's notification stream from now on.
func (e *env) stream(u *models.User) *userStream {
	e.t.Helper()
	s := &userStream{t: e.t, sub: e.hub.Subscribe(notifier.UserTopic(strconv.FormatInt(u.ID, 10)))}
	e.t.Cleanup(s.sub.Close)
	var err error
	if s.feed, err = notifier.OpenNotificationFeed(context.Background(), e.st, e.ob, u.ID, 0); err != nil {
		e.t.Fatal(err)
	}
	s.next() // what came before
	s.sent = nil
	return s
}

// next is what the stream sends now.
func (s *userStream) next() []notifier.Event {
	s.t.Helper()
	var out []notifier.Event
	for {
		evs, again, err := s.feed.Next(context.Background())
		if err != nil {
			s.t.Fatal(err)
		}
		out = append(out, evs...)
		s.sent = append(s.sent, evs...)
		if !again || len(evs) == 0 {
			return out
		}
	}
}

// heard waits for a message notification holding text on s, and fails
// after 10 seconds.
func heard(t *testing.T, s *userStream, text string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		for _, ev := range s.next() {
			if ev.Type == "message" && strings.Contains(string(ev.Data), text) {
				return
			}
		}
		select {
		case <-s.sub.Events():
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no message %q on the stream", text)
		}
	}
}

// TestSayByEmail: a reply line "say ..." posts its rest, as written, to
// the table: the other player gets it on his stream, at his webhook and
// in his next email of the game, and the answer says it was posted. With
// moves, it is posted once they are played; a reply whose moves are
// refused posts nothing.
func TestSayByEmail(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		e := newEnv(t, d)
		ctx := context.Background()
		ana, ben := e.user("ana"), e.user("ben")
		rcv := startHooks(t)
		if err := e.st.CreateWebhook(ctx, &models.Webhook{UserID: ben.ID, URL: rcv.srv.URL, Secret: "whsec_0123456789abcdef"}); err != nil {
			t.Fatal(err)
		}
		id := e.game(ana, ben)
		e.settle()
		sub := e.stream(ben)
		version := e.version(id)

		line := "Good luck, ben: may the <b>Market</b> be kind; 1, 2, 3!"
		ans := e.sayReply(ana, e.mailOf(ana, id), "Hi ben,\nsay "+line)
		if !strings.Contains(ans.Text, "Your message was posted.") || !strings.Contains(ans.Text, `Posted to the table: "`+line+`"`) {
			t.Errorf("the answer:\n%s", ans.Text)
		}
		if strings.Contains(ans.HTML, "<b>Market") {
			t.Errorf("the answer's HTML shows the message unescaped")
		}
		if got := e.texts(ben, id); !slices.Equal(got, []string{line}) {
			t.Fatalf("ben reads %q", got)
		}
		if v := e.version(id); v != version {
			t.Errorf("a message moved the game from version %d to %d", version, v)
		}
		heard(t, sub, "may the \\u003cb\\u003eMarket")
		deadline := time.Now().Add(10 * time.Second)
		for !rcv.got(`"event":"message"`, `"from":"ana"`, "be kind; 1, 2, 3!") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if !rcv.got(`"event":"message"`, "be kind; 1, 2, 3!") {
			t.Error("ben's webhook got no message")
		}
		// ben's next email of the game shows it: the end of the game,
		// which always goes by email.
		res, err := e.play.Resign(ctx, id, ana.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		over := e.mailOf(ben, id)
		if !strings.Contains(over.Text, "At the table") || !strings.Contains(over.Text, "    "+line) ||
			!strings.Contains(over.HTML, "may the &lt;b&gt;Market&lt;/b&gt; be kind") {
			t.Errorf("ben's next email:\n%s", over.Text)
		}
		if strings.Contains(e.mailOf(ana, id).Text, "At the table") {
			t.Error("ana's email shows her own message")
		}
	})
}

// TestSayWithMovesByEmail: the seat whose turn it is ends it and writes in
// one reply: both are done. A reply whose moves are refused posts
// nothing, and says so; a message too long is refused with the reason.
func TestSayWithMovesByEmail(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		e := newEnv(t, d)
		ana, ben := e.user("ana"), e.user("ben")
		id := e.game(ana, ben)
		e.settle()
		g, err := e.st.GameNoState(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		u := ana
		if g.Seats[1].Awaited {
			u = ben
		}
		em := e.latest(u)
		ans := e.sayReply(u, em, "say Over to you\n99")
		if !strings.Contains(ans.Text, "Nothing was played.") || !strings.Contains(ans.Text, "Your message was not posted either.") {
			t.Errorf("a refused reply's answer:\n%s", ans.Text)
		}
		if got := e.texts(ana, id); len(got) != 0 {
			t.Errorf("a refused reply posted %q", got)
		}
		ans = e.sayReply(u, em, "say Over to you\nend")
		if !strings.Contains(ans.Text, "Your moves were played.") || !strings.Contains(ans.Text, `Posted to the table: "Over to you"`) {
			t.Errorf("the answer:\n%s", ans.Text)
		}
		if got := e.texts(ana, id); !slices.Equal(got, []string{"Over to you"}) {
			t.Errorf("after the reply the table reads %q", got)
		}
		if e.version(id) == g.Version {
			t.Error("the turn did not end")
		}
		long := strings.Repeat("a", play.MaxMessageRunes+1)
		ans = e.sayReply(u, e.mailOf(u, id), "say "+long)
		if !strings.Contains(ans.Text, "was not posted: text: at most 500 characters; this one has 501") {
			t.Errorf("a message too long:\n%s", ans.Text)
		}
		if got := e.texts(ana, id); len(got) != 1 {
			t.Errorf("the long message was posted: %d messages", len(got))
		}
	})
}

// TestSayToOnePlayerByEmail: in a game of three, "say to ben ..." reaches
// ben alone, and "say to <nobody> ..." is refused rather than posted to
// the table.
func TestSayToOnePlayerByEmail(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		e := newEnv(t, d)
		ana, ben, cy := e.user("ana"), e.user("ben"), e.user("cy")
		id := e.gameOf(ana, ben, cy)
		e.settle()
		cys, bens := e.stream(cy), e.stream(ben)
		ans := e.sayReply(ana, e.mailOf(ana, id), "say to Ben: cy leads, hold the Market\nsay Good luck, all")
		if !strings.Contains(ans.Text, `Posted to ben only: "cy leads, hold the Market"`) || !strings.Contains(ans.Text, `Posted to the table: "Good luck, all"`) {
			t.Errorf("the answer:\n%s", ans.Text)
		}
		if got := e.texts(ben, id); !slices.Equal(got, []string{"cy leads, hold the Market", "Good luck, all"}) {
			t.Errorf("ben reads %q", got)
		}
		if got := e.texts(cy, id); !slices.Equal(got, []string{"Good luck, all"}) {
			t.Errorf("cy reads %q", got)
		}
		heard(t, bens, "hold the Market")
		heard(t, cys, "Good luck, all")
		e.settle()
		cys.next()
		for _, ev := range cys.sent {
			if strings.Contains(string(ev.Data), "hold the Market") {
				t.Errorf("cy's stream got the private message: %s", ev.Data)
			}
		}
		for _, m := range e.sink.to(cy.Email) {
			if strings.Contains(m.Text, "hold the Market") {
				t.Errorf("cy got the private message by email:\n%s", m.Text)
			}
		}
		ans = e.sayReply(ana, e.mailOf(ana, id), "say to bo nobody is named so")
		if !strings.Contains(ans.Text, `no other player of this game is named "bo"`) {
			t.Errorf("a message to no one:\n%s", ans.Text)
		}
		if got := e.texts(cy, id); len(got) != 1 {
			t.Errorf("the message to no one was posted: %q", got)
		}
	})
}

// talkMailOf is the newest message email to u of game id: one whose reply
// address is a message's own (notifier.Reply.Talk); it fails when there is
// none.
func (e *env) talkMailOf(u *models.User, id int64, text string) (sent, notifier.Reply) {
	e.t.Helper()
	e.settle()
	ms := e.sink.to(u.Email)
	for i := len(ms) - 1; i >= 0; i-- {
		if r, err := notifier.ParseReplyAddress(ms[i].ReplyTo); err == nil && r.GameID == id && r.Talk && strings.Contains(ms[i].Text, text) {
			return ms[i], r
		}
	}
	e.t.Fatalf("no message email of game %d to %s showing %q", id, u.Email, text)
	return sent{}, notifier.Reply{}
}

// TestReplyToMessageEmail: a reply to a message's own email is a message
// back, as written: to the table for a message to the table, to its
// author alone for a private one (never to a third seat). Nothing in it
// is read as a move ("end" stays a message; the game does not move), and
// a reply with nothing above the quote posts nothing.
func TestReplyToMessageEmail(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		e := newEnv(t, d)
		ctx := context.Background()
		ana, ben, cy := e.user("ana"), e.user("ben"), e.user("cy")
		id := e.gameOf(ana, ben, cy)
		// ana asks for the table talk's own emails (off until chosen).
		if err := e.st.SetPreference(ctx, models.Preference{UserID: ana.ID, Kind: models.MessageKind, Channel: "email", Enabled: true}); err != nil {
			t.Fatal(err)
		}
		e.settle()
		g, err := e.st.GameNoState(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		anaSeat, cySeat := g.SeatOf(ana.ID), g.SeatOf(cy.ID)
		version := e.version(id)

		if _, err := e.play.Say(ctx, id, ben.ID, play.Say{Text: "Good luck, all"}, nil); err != nil {
			t.Fatal(err)
		}
		em, r := e.talkMailOf(ana, id, "Good luck, all")
		if r.To != -1 || !strings.Contains(em.Text, "To answer ben, reply to this email") || !strings.Contains(em.Text, "to the table.") {
			t.Errorf("the message email (reply to seat %d):\n%s", r.To, em.Text)
		}
		ans := e.sayReply(ana, em, "Thanks ben, you too!\nMay the Market be kind.")
		want := "Thanks ben, you too!\nMay the Market be kind."
		if !strings.Contains(ans.Text, "Your message was posted.") || !strings.Contains(ans.Text, "Posted to the table") {
			t.Errorf("the answer:\n%s", ans.Text)
		}
		for _, u := range []*models.User{ben, cy} {
			if got := e.texts(u, id); !slices.Equal(got, []string{"Good luck, all", want}) {
				t.Errorf("%s reads %q", u.Username, got)
			}
		}

		// A private message: the reply goes back to its author only.
		if _, err := e.play.Say(ctx, id, cy.ID, play.Say{Text: "ben leads; hold him back?", ToSeat: &anaSeat}, nil); err != nil {
			t.Fatal(err)
		}
		em, r = e.talkMailOf(ana, id, "ben leads; hold him back?")
		if r.To != cySeat || !strings.Contains(em.Text, "to cy only.") {
			t.Errorf("the private message's email (reply to seat %d, cy's %d):\n%s", r.To, cySeat, em.Text)
		}
		ans = e.sayReply(ana, em, "Agreed.")
		if !strings.Contains(ans.Text, `Posted to cy only: "Agreed."`) {
			t.Errorf("the answer to a private message:\n%s", ans.Text)
		}
		if got := e.texts(cy, id); !slices.Contains(got, "Agreed.") {
			t.Errorf("cy reads %q", got)
		}
		if got := e.texts(ben, id); slices.Contains(got, "Agreed.") || slices.Contains(got, "ben leads; hold him back?") {
			t.Errorf("ben reads the private exchange: %q", got)
		}
		for _, m := range e.sink.to(ben.Email) {
			if strings.Contains(m.Text, "Agreed.") {
				t.Errorf("ben got the private answer by email:\n%s", m.Text)
			}
		}

		// Words of moves are a message here, never moves.
		ans = e.sayReply(ana, em, "end")
		if !strings.Contains(ans.Text, `Posted to cy only: "end"`) {
			t.Errorf("the answer to \"end\":\n%s", ans.Text)
		}
		if v := e.version(id); v != version {
			t.Errorf("replies to message emails moved the game from version %d to %d", version, v)
		}
		// Nothing above the quote: nothing posted, and the answer says so.
		before := len(e.texts(cy, id))
		ans = e.sayReply(ana, em, "")
		if !strings.Contains(ans.Text, "no message was posted") {
			t.Errorf("the answer to an empty reply:\n%s", ans.Text)
		}
		if got := e.texts(cy, id); len(got) != before {
			t.Errorf("an empty reply posted: %q", got)
		}
	})
}

// TestSayReading: how the command reader reads "say" lines.
func TestSayReading(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 400) // past the line limit of commands
	cases := []struct {
		text  string
		says  []string
		moves int
		err   string
	}{
		{"say Good game, well played; see you", []string{"Good game, well played; see you"}, 0, ""},
		{"SAY: hi", []string{"hi"}, 0, ""},
		{"Say:hi there", []string{"hi there"}, 0, ""},
		{"say " + long, []string{long}, 0, ""},
		{"3\nsay nice\nend", []string{"nice"}, 2, ""},
		{"say good game\ntake care", []string{"good game"}, 0, ""}, // a sign-off beside a message is skipped
		{"say", nil, 0, "write your message after"},
		{"I'd say thanks", nil, 0, "holds no command"},
		{"sayonara", nil, 0, "holds no command"},
	}
	for _, c := range cases {
		rd, err := play.ReadCommands(c.text)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%.40q: error %v, want %q", c.text, err, c.err)
			}
		case err != nil:
			t.Errorf("%.40q: %v", c.text, err)
		case !slices.Equal(rd.Says, c.says) || len(rd.Commands) != c.moves:
			t.Errorf("%.40q: says %q and %d commands", c.text, rd.Says, len(rd.Commands))
		}
	}
}

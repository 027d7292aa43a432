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
	replySeq++
	m.MessageID = fmt.Sprintf("say-%d-%d@example.com", time.Now().UnixNano(), replySeq)
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

// heard waits for a message notification holding text on sub, and fails
// after 10 seconds.
func heard(t *testing.T, sub *notifier.Subscription, text string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-sub.Events():
			if ev.Type == "message" && strings.Contains(string(ev.Data), text) {
				return
			}
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
	for _, d := range modelstest.Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			e := newEnv(t, d)
			ctx := context.Background()
			ana, ben := e.user("ana"), e.user("ben")
			rcv := startHooks(t)
			if err := e.st.CreateWebhook(ctx, &models.Webhook{UserID: ben.ID, URL: rcv.srv.URL, Secret: "whsec_0123456789abcdef"}); err != nil {
				t.Fatal(err)
			}
			id := e.game(ana, ben)
			e.settle()
			sub := e.hub.Subscribe(notifier.UserTopic(strconv.FormatInt(ben.ID, 10)))
			defer sub.Close()
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
}

// TestSayWithMovesByEmail: the seat whose turn it is ends it and writes in
// one reply: both are done. A reply whose moves are refused posts
// nothing, and says so; a message too long is refused with the reason.
func TestSayWithMovesByEmail(t *testing.T) {
	for _, d := range modelstest.Dialects() {
		t.Run(d.String(), func(t *testing.T) {
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
}

// TestSayToOnePlayerByEmail: in a game of three, "say to ben ..." reaches
// ben alone, and "say to <nobody> ..." is refused rather than posted to
// the table.
func TestSayToOnePlayerByEmail(t *testing.T) {
	for _, d := range modelstest.Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			e := newEnv(t, d)
			ana, ben, cy := e.user("ana"), e.user("ben"), e.user("cy")
			id := e.gameOf(ana, ben, cy)
			e.settle()
			cys := e.hub.Subscribe(notifier.UserTopic(strconv.FormatInt(cy.ID, 10)))
			defer cys.Close()
			bens := e.hub.Subscribe(notifier.UserTopic(strconv.FormatInt(ben.ID, 10)))
			defer bens.Close()
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
			for len(cys.Events()) > 0 {
				if ev := <-cys.Events(); strings.Contains(string(ev.Data), "hold the Market") {
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

package inbound_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/inbound"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
)

// handSection is the "Your hand" section of an answer's text: the names
// of its cards, in order; nil for none.
func handSection(text string) []string {
	i := strings.Index(text, "\nYour hand (")
	if i < 0 {
		return nil
	}
	var out []string
	for _, l := range strings.Split(text[i+1:], "\n")[1:] {
		if !strings.HasPrefix(l, "  * ") {
			if strings.HasPrefix(l, "      ") {
				continue
			}
			break
		}
		out = append(out, strings.TrimPrefix(l, "  * "))
	}
	return out
}

// TestAttackReplyStaleSeatLeaksNoHand: Cy is invited to seat 1 of a
// 3-player public game, declines, and joins again once Ben took seat 1,
// so Cy sits in seat 2 and Ben in seat 1. The invitation Cy still holds
// carries a signed reply address naming seat 1. Cy replies to it with
// "resign" and "board": the resignation is Cy's own, and the board and
// hand the answer shows must be Cy's, never those of seat 1, which are
// Ben's (with his numbered moves).
func TestAttackReplyStaleSeatLeaksNoHand(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		e := newEnv(t, d)
		ctx := context.Background()
		ana, ben, cy := e.user("ana"), e.user("ben"), e.user("cy")
		pub := true
		res, err := e.play.Create(ctx, ana.ID, play.NewGame{Players: 3, Mode: "fast", Public: &pub, Invite: []string{"cy"},
			Deck: play.DeckChoice{Prebuilt: "running-a-startup"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := res.Game.ID
		res.Done()
		e.settle()
		inv := e.sink.to(cy.Email)
		if len(inv) != 1 || inv[0].ReplyTo == "" {
			t.Fatalf("the invitation to cy: %+v", inv)
		}
		r, err := notifier.ParseReplyAddress(inv[0].ReplyTo)
		if err != nil || r.Seat != 1 {
			t.Fatalf("the invitation's address names %+v, %v", r, err)
		}
		step := func(res *play.Result, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			res.Done()
		}
		step(e.play.Decline(ctx, id, cy.ID, nil))
		step(e.play.Join(ctx, id, ben.ID, play.DeckChoice{Prebuilt: "working-for-the-enterprise"}, nil))
		step(e.play.Join(ctx, id, cy.ID, play.DeckChoice{Prebuilt: "running-a-startup"}, nil))
		step(e.play.Start(ctx, id, ana.ID, nil))
		g, err := e.st.GameNoState(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if *g.Seats[1].UserID != ben.ID || *g.Seats[2].UserID != cy.ID {
			t.Fatalf("seats %+v", g.Seats)
		}
		hand := func(u *models.User) []string {
			t.Helper()
			var out []string
			if err := e.play.Read(ctx, id, u.ID, func(_ *models.Game, seat int, st *engine.State) error {
				for _, c := range st.View(seat).Hand {
					out = append(out, c.Name)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		benHand := hand(ben)
		e.settle()
		a := e.answered(t, cy, inv[0], "resign\nboard")
		if !strings.Contains(a.Text, "You resigned from the game") {
			t.Fatalf("resign:\n%s", a.Text)
		}
		if g, _ := e.st.GameNoState(ctx, id); g.Status != models.StatusActive {
			t.Fatalf("the game is %s, want it going on without cy", g.Status)
		}
		if got, own := handSection(a.Text), hand(cy); len(got) > 0 && !slices.Equal(got, own) {
			t.Fatalf("the answer to cy shows the hand %q; cy's is %q, ben's %q:\n%s", got, own, benHand, a.Text)
		}
		if strings.Contains(a.Text, "ben (you)") || strings.Contains(a.Text, "What you can do now") {
			t.Fatalf("the answer to cy shows ben's seat as cy's:\n%s", a.Text)
		}
	})
}

// answersTo counts the emails that answer the reply mid.
func (e *env) answersTo(mid string) int {
	n := 0
	for _, m := range e.sink.all() {
		if m.InReplyTo == mid {
			n++
		}
	}
	return n
}

// TestAttackReplyTwiceAtOnce: one reply (one Message-ID) delivered six
// times at once, three times over SMTP and three times over HTTP, as a
// provider that retries while a relay also delivers it. The move is
// played once, and the reply answered once, with an answer that says it
// was played (not that the game moved on).
func TestAttackReplyTwiceAtOnce(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		e := newEnv(t, d)
		ana, ben := e.user("ana"), e.user("ben")
		id := e.game(ana, ben)
		for round := range 2 {
			u := e.awaited(id, ana, ben)
			em := e.latest(u)
			before := e.version(id)
			m := replyTo(u, em, "end")
			m.MessageID = fmt.Sprintf("race-%d-%d@example.com", round, time.Now().UnixNano())
			raw := m.raw()
			var wg sync.WaitGroup
			errs := make(chan error, 6)
			for i := range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if i%2 == 0 {
						errs <- e.sendSMTP(u.Email, em.ReplyTo, raw)
						return
					}
					code, body, err := e.tryPostHTTP(raw, e.secret)
					if err == nil && code != 200 {
						err = fmt.Errorf("HTTP %d %s", code, body)
					}
					errs <- err
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			e.settle()
			if v := e.version(id); v != before+1 {
				t.Fatalf("round %d: version %d -> %d, want one move played: %+v", round, before, v, e.answerTo(m.MessageID))
			}
			if n := e.answersTo(m.MessageID); n != 1 {
				t.Fatalf("round %d: %d answers to one reply", round, n)
			}
			if a := e.answerTo(m.MessageID); !strings.Contains(a.Text, "Your moves were played.") {
				t.Fatalf("round %d: the answer does not say the move was played:\n%s", round, a.Text)
			}
		}
	})
}

// TestAttackReplyQuotedCommands: commands in the quoted original, or in
// what a client puts below the reply, are never read: a reply that asks
// for the board above a quote holding "resign" and the email's numbered
// list, in the layouts of several clients and as HTML only, leaves the
// game as it was and answers with the board.
func TestAttackReplyQuotedCommands(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	em := e.latest(u)
	quoted := "resign\n  1. " + emailLines(em.Text)[1] + "\n  2. end\nresign\nvote end\n"
	prefixed := strings.ReplaceAll("\n"+quoted, "\n", "\n> ")
	for _, tc := range []struct {
		name string
		msg  replyMsg
	}{
		{"prefixed quote", replyMsg{Body: "board\n\nOn Tue, Data Monsters <turns@dm.example> wrote:" + prefixed}},
		{"prefixed, no attribution", replyMsg{Body: "board" + prefixed}},
		{"Outlook header block", replyMsg{Body: "board\n\n________________________________\nFrom: Data Monsters <turns@dm.example>\nSent: Tuesday\n\n" + quoted}},
		{"Original Message", replyMsg{Body: "board\n-----Original Message-----\n" + quoted}},
		{"signature", replyMsg{Body: "board\n-- \nresign\n" + quoted}},
		{"HTML blockquote", replyMsg{HTML: "<div>board</div><blockquote type=\"cite\"><p>resign</p><ol><li>end</li></ol></blockquote>"}},
		{"HTML Gmail quote, unclosed", replyMsg{HTML: "<div dir=ltr>board</div><div class=\"gmail_quote\"><p>resign<p>1<p>vote end"}},
		{"HTML Outlook", replyMsg{HTML: "<p>board</p><div id=\"divRplyFwdMsg\"></div><p>resign</p><p>1</p>"}},
		{"text board, HTML resign", replyMsg{Body: "board", HTML: "<p>resign</p>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.msg
			m.From, m.To, m.Subject, m.InReplyTo = u.Email, em.ReplyTo, "Re: "+em.Subject, em.MessageID
			before := e.version(id)
			raw := m.raw()
			if code, body := e.postHTTP(raw, e.secret); code != 200 || !strings.Contains(body, `"answered"`) {
				t.Fatalf("HTTP %d %s", code, body)
			}
			e.settle()
			if v := e.version(id); v != before {
				t.Fatalf("the quote was played: version %d -> %d", before, v)
			}
			a := e.answerTo(messageIDOf(raw))
			if a == nil || !strings.Contains(a.Text, "Market (") || strings.Contains(a.Text, "resigned") {
				t.Fatalf("answer %+v", a)
			}
		})
	}
}

// nested is a message of u to the reply address to whose text part sits
// depth multiparts deep.
func nested(u *models.User, to string, depth int, text string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: Re: deep\r\nMessage-ID: <deep-%d-%d@example.com>\r\nMIME-Version: 1.0\r\n"+
		"Content-Type: multipart/mixed; boundary=\"b0\"\r\n\r\n", u.Email, to, depth, time.Now().UnixNano())
	for i := 1; i < depth; i++ {
		fmt.Fprintf(&b, "--b%d\r\nContent-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n", i-1, i)
	}
	fmt.Fprintf(&b, "--b%d\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n", depth-1, text)
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\r\n", i)
	}
	return []byte(b.String())
}

// TestAttackReplyDeepMultipart: multiparts nested a few levels deep are
// read as usual, but a message of about 1 MB whose text sits thousands of
// multiparts deep (each level one more reader every byte passes through:
// it took minutes of CPU) is handled at once over HTTP: refused for
// holding no command, answered once, nothing played; and the server goes
// on answering.
func TestAttackReplyDeepMultipart(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	em := e.latest(u)
	if m, err := inbound.Parse(nested(u, em.ReplyTo, 5, "board")); err != nil || strings.TrimSpace(m.Text) != "board" {
		t.Fatalf("5 levels deep: %+v, %v", m, err)
	}
	before := e.version(id)
	raw := nested(u, em.ReplyTo, 13000, "resign")
	if len(raw) > 1<<20 {
		t.Fatalf("%d bytes, over the route's limit", len(raw))
	}
	start := time.Now()
	code, body, err := e.tryPostHTTP(raw, e.secret)
	if err != nil || code != 200 {
		t.Fatalf("HTTP %d %s %v", code, body, err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("a message 13000 multiparts deep took %v", took)
	}
	e.settle()
	if v := e.version(id); v != before {
		t.Fatalf("version %d -> %d", before, v)
	}
	if n := e.answersTo(messageIDOf(raw)); n != 1 {
		t.Fatalf("%d answers", n)
	}
	a := e.answered(t, u, em, "board")
	if !strings.Contains(a.Text, "Market (") {
		t.Fatalf("the next reply's answer:\n%s", a.Text)
	}
}

// TestAttackReplyHostileBodies: replies that no mail client writes
// (broken base64, an unknown charset, NUL bytes, a line of a million
// characters, ten thousand lines, bodies of 10 MB, a subject that tries
// to add headers, a From with several addresses) never give a 5xx or a
// broken session, never move the game, and get at most one answer each,
// to the address's owner, with no header of the sender's making; the
// server then answers a genuine reply.
func TestAttackReplyHostileBodies(t *testing.T) {
	modelstest.EachDialect(t, testAttackReplyHostileBodies)
}

func testAttackReplyHostileBodies(t *testing.T, d models.Dialect) {
	e := newEnv(t, d)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	em := e.latest(u)
	plain := func(body string) replyMsg { return replyTo(u, em, body) }
	withCT := func(ct, body string) replyMsg {
		m := replyTo(u, em, "")
		m.Headers = map[string]string{"Content-Type": ct}
		m.Body = body
		return m
	}
	cases := []struct {
		name  string
		msg   replyMsg
		smtp  bool // also over SMTP (its lines are at most 4000 bytes)
		large bool // over the route's 1 MiB: 413
	}{
		{"invalid base64", func() replyMsg {
			m := withCT("text/plain; charset=utf-8", "aGVsbG8=!!!\x00\xff====@@@\nnot base64 at all ~~~")
			m.Extra = "Content-Transfer-Encoding: base64\r\n"
			return m
		}(), true, false},
		{"base64 of invalid UTF-8", func() replyMsg {
			m := withCT("text/plain; charset=utf-8", "/////wD+aGVsbG8=")
			m.Extra = "Content-Transfer-Encoding: base64\r\n"
			return m
		}(), true, false},
		{"unknown transfer encoding", func() replyMsg {
			m := withCT("text/plain", "resign")
			m.Extra = "Content-Transfer-Encoding: x-rot13\r\n"
			return m
		}(), true, false},
		{"unknown charset", withCT("text/plain; charset=x-klingon", "hello there"), true, false},
		{"charset utf-7", withCT("text/plain; charset=utf-7", "+AGg-ello"), true, false},
		{"no boundary", withCT("multipart/mixed", "--\r\nresign\r\n"), true, false},
		{"empty boundary", withCT("multipart/alternative; boundary=\"\"", "--\r\n\r\nresign\r\n----\r\n"), true, false},
		{"NUL bytes everywhere", plain("\x00\x00say \x00hi\x00\nresi\x00gn"), true, false},
		{"only NULs", plain(strings.Repeat("\x00", 3000)), true, false},
		{"ten thousand lines", plain(strings.Repeat("resign\n", 10000)), true, false},
		{"ten thousand say lines", plain(strings.Repeat("say hello\n", 10000)), true, false},
		{"a long say line", plain("say " + strings.Repeat("a", 3900)), true, false},
		{"a line of a million characters", plain(strings.Repeat("9", 1000000)), false, false},
		{"a million characters of HTML", replyMsg{HTML: "<div>" + strings.Repeat("<b>", 200000) + "resign"}, false, false},
		{"a 10 MB body", plain(strings.Repeat("resign 1 2 3\n", 10<<20/13)), false, true},
		{"subject and name that add headers", func() replyMsg {
			m := plain("99")
			m.Subject = "Re: x\r\nBcc: victim@example.org\r\nX-Evil: 1"
			m.From = "\"Ana\r\nBcc: victim@example.org\" <" + u.Email + ">"
			return m
		}(), true, false},
		{"From of two addresses", func() replyMsg {
			m := plain("99")
			m.From = u.Email + ", eve@example.net"
			return m
		}(), true, false},
	}
	for _, tc := range cases {
		for _, via := range []string{"http", "smtp"} {
			if via == "smtp" && !tc.smtp {
				continue
			}
			t.Run(via+"/"+tc.name, func(t *testing.T) {
				m := tc.msg
				m.From = cmp.Or(m.From, u.Email)
				m.To, m.InReplyTo = em.ReplyTo, em.MessageID
				m.Subject = cmp.Or(m.Subject, "Re: "+em.Subject)
				raw := m.raw()
				mid := messageIDOf(raw)
				before, all := e.version(id), len(e.sink.all())
				if via == "http" {
					code, body, err := e.tryPostHTTP(raw, e.secret)
					switch {
					case tc.large && err == nil && code != 413:
						t.Fatalf("%d bytes: HTTP %d %s", len(raw), code, body)
					case !tc.large && (err != nil || code != 200):
						t.Fatalf("HTTP %d %s %v", code, body, err)
					}
				} else if err := e.sendSMTP(u.Email, em.ReplyTo, raw); err != nil {
					t.Fatalf("SMTP: %v", err)
				}
				e.settle()
				if v := e.version(id); v != before {
					t.Fatalf("the game moved: %d -> %d %+v", before, v, e.answerTo(mid))
				}
				ms := e.sink.all()[all:]
				if len(ms) > 1 {
					t.Fatalf("%d emails for one reply", len(ms))
				}
				for _, a := range ms {
					if a.InReplyTo != mid && mid != "" || !strings.Contains(a.To, u.Email) || strings.Contains(a.To, "eve") {
						t.Fatalf("an email to %s in reply to %q", a.To, a.InReplyTo)
					}
					hdr := string(a.Raw[:bytes.Index(a.Raw, []byte("\r\n\r\n"))])
					if strings.Contains(strings.ToLower(hdr), "\nbcc:") || strings.Contains(hdr, "victim") || strings.Contains(hdr, "X-Evil") {
						t.Fatalf("the answer's header:\n%s", hdr)
					}
				}
			})
		}
	}
	a := e.answered(t, u, em, "board")
	if !strings.Contains(a.Text, "Market (") {
		t.Fatalf("a genuine reply after them:\n%s", a.Text)
	}
}

// TestAttackReplyAutomatic: automatic messages in the forms responders
// write them, and the service's own mail come back, are dropped: nothing
// played, nothing answered, over SMTP and HTTP.
func TestAttackReplyAutomatic(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	em := e.latest(u)
	for i, tc := range []struct {
		name     string
		headers  map[string]string
		from     string
		mailFrom string
	}{
		{"Auto-Submitted in capitals", map[string]string{"Auto-Submitted": "Auto-Replied (vacation)"}, "", u.Email},
		{"Auto-Submitted auto-generated", map[string]string{"Auto-Submitted": "auto-generated"}, "", u.Email},
		{"Precedence auto_reply", map[string]string{"Precedence": "auto_reply"}, "", u.Email},
		{"X-Autorespond", map[string]string{"X-Autorespond": "1"}, "", u.Email},
		{"Outlook suppression", map[string]string{"X-Auto-Response-Suppress": "All"}, "", u.Email},
		{"a mailing list", map[string]string{"List-Id": "<players.example.com>"}, "", u.Email},
		{"null return path over SMTP", nil, "", ""},
		{"our own From, in capitals", nil, "Data Monsters <TURNS@DM.EXAMPLE>", u.Email},
	} {
		for _, via := range []string{"smtp", "http"} {
			t.Run(via+"/"+tc.name, func(t *testing.T) {
				if via == "http" && tc.mailFrom == "" {
					t.Skip("no envelope over HTTP")
				}
				m := replyTo(u, em, "end")
				m.Headers = tc.headers
				m.MessageID = fmt.Sprintf("auto-%d-%s-%d@example.com", i, via, time.Now().UnixNano())
				if tc.from != "" {
					m.From = tc.from
				}
				before, all := e.version(id), len(e.sink.all())
				if via == "smtp" {
					if err := e.sendSMTP(tc.mailFrom, em.ReplyTo, m.raw()); err != nil {
						t.Fatal(err)
					}
				} else if code, body := e.postHTTP(m.raw(), e.secret); code != 200 || !strings.Contains(body, `"dropped"`) {
					t.Fatalf("HTTP %d %s", code, body)
				}
				e.settle()
				if v := e.version(id); v != before || len(e.sink.all()) != all {
					t.Fatalf("version %d -> %d, %d emails sent", before, v, len(e.sink.all())-all)
				}
			})
		}
	}
}

// TestAttackReplyForgedAddress: a reply address cut short, lengthened,
// in another case, with its user or version changed, or at another
// domain is taken for the user's only when it is the one the service
// signed: RCPT TO refuses the others, and over HTTP they are refused
// unanswered; nothing is played.
func TestAttackReplyForgedAddress(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	other := ana
	if u == ana {
		other = ben
	}
	em := e.latest(u)
	r, err := notifier.ParseReplyAddress(em.ReplyTo)
	if err != nil {
		t.Fatal(err)
	}
	local := strings.TrimSuffix(em.ReplyTo, "@"+domain)
	resigned := func(c notifier.Reply) string { // the payload changed, the old MAC kept
		good := c.Address([]byte("not the secret"), domain)
		tok := strings.TrimPrefix(strings.TrimSuffix(good, "@"+domain), notifier.ReplyPrefix)
		mac := strings.TrimPrefix(local, notifier.ReplyPrefix)
		return notifier.ReplyPrefix + tok[:len(tok)-20] + mac[len(mac)-20:] + "@" + domain
	}
	for _, tc := range []struct{ name, to string }{
		{"cut short", local[:len(local)-4] + "@" + domain},
		{"one character more", local + "a@" + domain},
		{"prefix only", notifier.ReplyPrefix + "@" + domain},
		{"another domain", local + "@evil.example"},
		{"subdomain", local + "@x." + domain},
		{"signed with another secret", r.Address([]byte("guessed secret"), domain)},
		{"another user's id, old MAC", resigned(func() notifier.Reply { c := r; c.UserID = other.ID; return c }())},
		{"a later version, old MAC", resigned(func() notifier.Reply { c := r; c.Version += 5; return c }())},
		{"no local part", "@" + domain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := replyTo(u, em, "end")
			m.To = tc.to
			raw := m.raw()
			before, all := e.version(id), len(e.sink.all())
			if err := e.sendSMTP(u.Email, tc.to, raw); err == nil || !strings.HasPrefix(err.Error(), "5") {
				t.Fatalf("RCPT TO %s taken: %v", tc.to, err)
			}
			if code, body := e.postHTTP(raw, e.secret); code != 200 || !strings.Contains(body, `"refused"`) {
				t.Fatalf("HTTP %d %s", code, body)
			}
			e.settle()
			if v := e.version(id); v != before || len(e.sink.all()) != all {
				t.Fatalf("version %d -> %d, %d emails sent", before, v, len(e.sink.all())-all)
			}
		})
	}
	// The same address in capitals is the same address (a relay may fold
	// the case of a local part): it is played.
	before := e.version(id)
	a := e.answered(t, u, sent{ReplyTo: strings.ToUpper(em.ReplyTo), Subject: em.Subject, MessageID: em.MessageID}, "end")
	if !strings.Contains(a.Text, "Your moves were played.") || e.version(id) != before+1 {
		t.Fatalf("the address in capitals:\n%s", a.Text)
	}
}

// smtpRaw opens an SMTP session at addr and returns a function that
// writes lines as given and one that reads the server's next reply.
func smtpRaw(t *testing.T, addr string) (net.Conn, func(string), func() string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := bufio.NewReader(c)
	write := func(s string) {
		if _, err := io.WriteString(c, s); err != nil {
			t.Fatal(err)
		}
	}
	read := func() string {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var out strings.Builder
		for {
			line, err := r.ReadString('\n')
			out.WriteString(line)
			if err != nil {
				return out.String() + err.Error()
			}
			if len(line) < 4 || line[3] != '-' {
				return strings.TrimSpace(out.String())
			}
		}
	}
	read() // the greeting
	return c, write, read
}

// dotStuff writes raw as the data of DATA, with its end.
func dotStuff(raw []byte) string {
	s := strings.ReplaceAll(string(raw), "\r\n.", "\r\n..")
	if strings.HasPrefix(s, ".") {
		s = "." + s
	}
	return strings.TrimSuffix(s, "\r\n") + "\r\n.\r\n"
}

// TestAttackSMTPSessions: an SMTP client that drops the connection in the
// middle of DATA plays nothing and gets nothing sent; one that names many
// recipients gets the ones past the server's limit refused; one that
// pipelines every command of a session in one write gets each answered
// in order and its reply played once; and the server serves on.
func TestAttackSMTPSessions(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	em := e.latest(u)
	before, all := e.version(id), len(e.sink.all())

	// Dropped in the middle of DATA, several times, at once.
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, write, read := smtpRaw(t, e.smtp)
			write("EHLO client.example\r\n")
			read()
			write("MAIL FROM:<" + u.Email + ">\r\nRCPT TO:<" + em.ReplyTo + ">\r\nDATA\r\n")
			read()
			read()
			read()
			raw := dotStuff(replyTo(u, em, "end").raw())
			write(raw[:len(raw)/2])
			c.Close()
		}()
	}
	wg.Wait()
	time.Sleep(200 * time.Millisecond)
	e.settle()
	if v := e.version(id); v != before || len(e.sink.all()) != all {
		t.Fatalf("a reply cut in DATA: version %d -> %d, %d emails", before, v, len(e.sink.all())-all)
	}

	// Many recipients: the first ten are taken, the rest refused for now.
	_, write, read := smtpRaw(t, e.smtp)
	write("EHLO client.example\r\n")
	read()
	write("MAIL FROM:<" + u.Email + ">\r\n")
	if got := read(); !strings.HasPrefix(got, "250") {
		t.Fatal(got)
	}
	for i := range 30 {
		write("RCPT TO:<" + em.ReplyTo + ">\r\n")
		got := read()
		if i < 10 && !strings.HasPrefix(got, "250") || i >= 10 && !strings.HasPrefix(got, "452") {
			t.Fatalf("RCPT %d: %q", i+1, got)
		}
	}
	write("RSET\r\nQUIT\r\n")
	read()
	read()

	// Pipelined: two messages, one of them a copy, and a forged RCPT, in
	// one write.
	m := replyTo(u, em, "end")
	raw := m.raw()
	_, write, read = smtpRaw(t, e.smtp)
	write("EHLO client.example\r\n")
	if got := read(); !strings.Contains(got, "PIPELINING") {
		t.Fatalf("EHLO: %q", got)
	}
	session := "MAIL FROM:<" + u.Email + ">\r\nRCPT TO:<play-aaaa@" + domain + ">\r\nRCPT TO:<" + em.ReplyTo + ">\r\nDATA\r\n" + dotStuff(raw) +
		"MAIL FROM:<" + u.Email + ">\r\nRCPT TO:<" + em.ReplyTo + ">\r\nDATA\r\n" + dotStuff(raw) + "QUIT\r\n"
	write(session)
	var got []string
	for range 10 {
		got = append(got, read())
	}
	want := []string{"250", "550", "250", "354", "250", "250", "250", "354", "250", "221"}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Fatalf("pipelined replies %q, want codes %q", got, want)
		}
	}
	e.settle()
	if v := e.version(id); v != before+1 {
		t.Fatalf("version %d -> %d, want one move", before, v)
	}
	if n := e.answersTo(messageIDOf(raw)); n != 1 {
		t.Fatalf("%d answers", n)
	}
}

package inbound_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/inbound"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	"github.com/emersion/go-msgauth/dkim"
)

// latest returns the newest email to u that carries a reply address.
func (e *env) latest(u *models.User) sent {
	e.t.Helper()
	e.settle()
	ms := e.sink.to(u.Email)
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].decision() {
			return ms[i]
		}
	}
	e.t.Fatalf("no decision email to %s", u.Email)
	return sent{}
}

// invite opens a fast 2-player game of host, with guest invited, and
// returns it with the invitation guest was emailed, which has a general
// reply address.
func (e *env) invite(t *testing.T, host, guest *models.User) (int64, sent) {
	t.Helper()
	before := len(e.sink.to(guest.Email))
	res, err := e.play.Create(context.Background(), host.ID, play.NewGame{Players: 2, Mode: "fast", Invite: []string{guest.Username},
		Deck: play.DeckChoice{Prebuilt: "running-a-startup"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Done()
	e.settle()
	inv := e.sink.to(guest.Email)[before:]
	if len(inv) != 1 || inv[0].ReplyTo == "" || inv[0].decision() {
		t.Fatalf("the invitation's reply address: %+v", inv)
	}
	return res.Game.ID, inv[0]
}

// start starts game id of host and returns the game and, of players, the
// one who waits (the other plays first).
func (e *env) start(t *testing.T, id int64, host *models.User, players [2]*models.User) (*models.Game, *models.User) {
	t.Helper()
	res, err := e.play.Start(context.Background(), id, host.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Done()
	e.settle()
	g, err := e.st.GameNoState(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if g.Seats[0].Awaited {
		return g, players[1]
	}
	return g, players[0]
}

// answered sends u's plain reply to em with body over SMTP and returns
// its answer, once the outbox has sent it.
func (e *env) answered(t *testing.T, u *models.User, em sent, body string) sent {
	t.Helper()
	raw := replyTo(u, em, body).raw()
	if err := e.sendSMTP(u.Email, em.ReplyTo, raw); err != nil {
		t.Fatal(err)
	}
	e.settle()
	a := e.answerTo(messageIDOf(raw))
	if a == nil {
		t.Fatalf("%q: no answer", body)
	}
	return *a
}

// replyTo is a plain reply of u to em with body.
func replyTo(u *models.User, em sent, body string) replyMsg {
	return replyMsg{From: u.Email, To: em.ReplyTo, Subject: "Re: " + em.Subject, InReplyTo: em.MessageID,
		References: append(append([]string(nil), em.References...), em.MessageID), Body: body + "\n\nOn Tue, Data Monsters wrote:\n> 1. …\n"}
}

// TestRefusals sends each kind of reply that must not move the game, over
// SMTP and over HTTP, and checks that the game's version did not change,
// and that the answer went to the address's owner with the reason, or,
// for an automatic message, that nothing was sent.
func TestRefusals(t *testing.T) {
	modelstest.EachDialect(t, testRefusals)
}

func testRefusals(t *testing.T, d models.Dialect) {
	e := newEnv(t, d)
	ana, ben, cy, dee := e.user("ana"), e.user("ben"), e.user("cy"), e.user("dee")
	id := e.game(ana, ben)
	other := e.game(cy, dee) // a game neither ana nor ben has a seat in
	e.settle()
	g, _ := e.st.GameNoState(context.Background(), id)
	seat := 0
	if !g.Seats[0].Awaited {
		seat = 1
	}
	players := []*models.User{ana, ben}
	u, opp := players[seat], players[1-seat]
	em := e.latest(u)
	r, err := notifier.ParseReplyAddress(em.ReplyTo)
	if err != nil {
		t.Fatal(err)
	}
	addr := func(r notifier.Reply) string { return r.Address(e.reply.Secret, domain) }
	mod := func(f func(*notifier.Reply)) string { c := r; f(&c); return addr(c) }

	type answer int
	const (
		none     answer = iota // nothing is sent to anyone
		toOwner                // the answer goes to the address's user, with the reason
		smtpOnly               // refused in the SMTP session (RCPT TO, or a temporary failure)
	)
	cases := []struct {
		name   string
		msg    func() replyMsg
		from   string // MAIL FROM; "" for <>
		want   answer
		reason string // in the answer, or in the SMTP refusal, or in the HTTP body
		owner  *models.User
	}{
		{"token of another game", func() replyMsg {
			m := replyTo(u, em, "1")
			m.To = mod(func(c *notifier.Reply) { c.GameID = other })
			m.References = nil
			m.InReplyTo = ""
			return m
		}, u.Email, toOwner, "not yours", u},
		{"thread of another game", func() replyMsg {
			m := replyTo(u, em, "1")
			m.References = []string{notifier.ThreadID(strconv.FormatInt(other, 10), domain)}
			return m
		}, u.Email, toOwner, "thread of game", u},
		{"token of another seat", func() replyMsg {
			m := replyTo(u, em, "1")
			m.To = mod(func(c *notifier.Reply) { c.Seat = 1 - seat })
			return m
		}, u.Email, toOwner, "is not yours", u},
		{"token of another user", func() replyMsg {
			m := replyTo(opp, em, "1")
			m.To = mod(func(c *notifier.Reply) { c.UserID = opp.ID })
			return m
		}, opp.Email, toOwner, "is not yours", opp},
		{"tampered token", func() replyMsg {
			m := replyTo(u, em, "1")
			local := strings.TrimSuffix(em.ReplyTo, "@"+domain)
			c := byte('a')
			if local[len(local)-3] == 'a' {
				c = 'b'
			}
			m.To = local[:len(local)-3] + string(c) + local[len(local)-2:] + "@" + domain
			return m
		}, u.Email, smtpOnly, "signature does not match", nil},
		{"expired token", func() replyMsg {
			m := replyTo(u, em, "1")
			m.To = mod(func(c *notifier.Reply) { c.Expires = time.Now().Add(-time.Hour).Truncate(time.Second) })
			return m
		}, u.Email, toOwner, "expired", u},
		{"From not the user's address", func() replyMsg {
			m := replyTo(u, em, "1")
			m.From = "eve@example.net"
			return m
		}, "eve@example.net", toOwner, "not your address", u},
		{"Auto-Submitted", func() replyMsg {
			m := replyTo(u, em, "I am away until Monday.")
			m.Headers = map[string]string{"Auto-Submitted": "auto-replied"}
			return m
		}, u.Email, none, "automatic", nil},
		{"Precedence bulk", func() replyMsg {
			m := replyTo(u, em, "1")
			m.Headers = map[string]string{"Precedence": "bulk"}
			return m
		}, u.Email, none, "automatic", nil},
		{"Precedence junk", func() replyMsg {
			m := replyTo(u, em, "1")
			m.Headers = map[string]string{"Precedence": "junk"}
			return m
		}, u.Email, none, "automatic", nil},
		{"X-Autoreply", func() replyMsg {
			m := replyTo(u, em, "1")
			m.Headers = map[string]string{"X-Autoreply": "yes"}
			return m
		}, u.Email, none, "automatic", nil},
		{"empty return path", func() replyMsg {
			m := replyTo(u, em, "1")
			m.Headers = map[string]string{"Return-Path": "<>"}
			return m
		}, "", none, "return path", nil},
		{"delivery status report", func() replyMsg {
			m := replyTo(u, em, "")
			m.Headers = map[string]string{"Content-Type": `multipart/report; report-type=delivery-status; boundary="r"`}
			m.Body = "--r\nContent-Type: text/plain\n\n1\n--r\nContent-Type: message/delivery-status\n\nStatus: 5.1.1\n--r--\n"
			return m
		}, "mailer-daemon@example.com", none, "report", nil},
		{"our own message back", func() replyMsg {
			m := replyTo(u, em, "1")
			m.MessageID = em.MessageID
			return m
		}, u.Email, none, "this service sent", nil},
		{"mail loop", func() replyMsg {
			m := replyTo(u, em, "1")
			for i := 0; i < 40; i++ {
				m.Extra += "Received: from relay" + strconv.Itoa(i) + ".example by mx.example; Tue, 1 Dec 2026 10:00:00 +0000\r\n"
			}
			return m
		}, u.Email, toOwner, "mail loop", u},
		{"a line that is no command", func() replyMsg { return replyTo(u, em, "Please place my best card") }, u.Email, toOwner, "no line", u},
		{"a number the list lacks", func() replyMsg { return replyTo(u, em, "99") }, u.Email, toOwner, "the list you answered has no move 99", u},
		{"a list numbered otherwise since", func() replyMsg {
			m := replyTo(u, em, "1")
			m.To = mod(func(c *notifier.Reply) { c.Lines = map[bool]uint32{true: 2, false: 1}[c.Lines == 1] })
			return m
		}, u.Email, toOwner, "numbered differently", u},
		// Text no database stores: the answer quotes what it could not read.
		{"a NUL in the command", func() replyMsg { return replyTo(u, em, "place gl\x00itchy") }, u.Email, toOwner, "gl\uFFFDitchy", u},
		{"bytes that are not UTF-8", func() replyMsg { return replyTo(u, em, "caf\xe9 \xff\xfe") }, u.Email, toOwner, "caf\uFFFD", u},
		{"a subject that is not UTF-8", func() replyMsg {
			m := replyTo(u, em, "Please place my best card")
			m.Subject = "Re: \xff\x00"
			return m
		}, u.Email, toOwner, "no line", u},
	}
	for _, via := range []string{"smtp", "http"} {
		for _, tc := range cases {
			t.Run(via+"/"+tc.name, func(t *testing.T) {
				before := e.version(id)
				counts := map[string]int{}
				for _, x := range []*models.User{ana, ben, cy} {
					counts[x.Email] = len(e.sink.to(x.Email))
				}
				eve := len(e.sink.to("eve@example.net"))
				m := tc.msg()
				raw := m.raw()
				mid := messageIDOf(raw)
				var got string
				if via == "smtp" {
					err := e.sendSMTP(tc.from, m.To, raw)
					if tc.want == smtpOnly {
						if err == nil || !strings.Contains(err.Error(), tc.reason) {
							t.Fatalf("SMTP took it: %v", err)
						}
					} else if err != nil {
						t.Fatalf("SMTP refused: %v", err)
					}
				} else {
					code, body := e.postHTTP(raw, e.secret)
					if code != 200 {
						t.Fatalf("HTTP %d %s", code, body)
					}
					got = body
					if tc.want != toOwner && !strings.Contains(got, tc.reason) {
						t.Fatalf("HTTP answer %s lacks %q", got, tc.reason)
					}
				}
				e.settle()
				if v := e.version(id); v != before {
					t.Fatalf("the game moved: version %d -> %d", before, v)
				}
				if n := len(e.sink.to("eve@example.net")); n != eve {
					t.Fatal("mail went to the forged sender")
				}
				for _, x := range []*models.User{ana, ben, cy} {
					n := len(e.sink.to(x.Email)) - counts[x.Email]
					wantN := 0
					if tc.want == toOwner && tc.owner == x {
						wantN = 1
					}
					if n != wantN {
						t.Fatalf("%d emails to %s, want %d (%s)", n, x.Username, wantN, got)
					}
				}
				if tc.want == toOwner {
					a := e.answerTo(mid)
					if a == nil || !strings.Contains(a.To, tc.owner.Email) || !strings.Contains(a.Text, tc.reason) ||
						!strings.Contains(a.Text, "Nothing was played.") {
						t.Fatalf("answer %+v lacks %q", a, tc.reason)
					}
					if !strings.Contains(a.Text, "Nothing") && !strings.Contains(a.Text, "nothing") {
						t.Fatal("the answer does not say that nothing was played")
					}
					if n := strings.Count(a.Text, "Nothing was played."); n != 1 {
						t.Fatalf("the answer says \"Nothing was played.\" %d times, want once:\n%s", n, a.Text)
					}
				}
			})
		}
	}

	// A reply sent twice (the same Message-ID) is played and answered once.
	t.Run("duplicate", func(t *testing.T) {
		em := e.latest(u)
		m := replyTo(u, em, "end")
		m.MessageID = "twice-" + strconv.FormatInt(time.Now().UnixNano(), 10) + "@example.com"
		before, n := e.version(id), len(e.sink.to(u.Email))
		for range 2 {
			if err := e.sendSMTP(u.Email, em.ReplyTo, m.raw()); err != nil {
				t.Fatal(err)
			}
		}
		if code, body := e.postHTTP(m.raw(), e.secret); code != 200 || !strings.Contains(body, "duplicate") {
			t.Fatalf("HTTP %d %s", code, body)
		}
		e.settle()
		if v := e.version(id); v != before+1 {
			t.Fatalf("version %d -> %d, want one change", before, v)
		}
		answers := 0
		for _, x := range e.sink.to(u.Email)[n:] {
			if x.InReplyTo == m.MessageID {
				answers++
			}
		}
		if answers != 1 {
			t.Fatalf("%d answers", answers)
		}
	})

	// The game moved on: a reply to the old email names a decision already
	// taken.
	t.Run("decision already taken", func(t *testing.T) {
		old := em // the first email of u, several versions ago
		before := e.version(id)
		m := replyTo(u, old, "end")
		raw := m.raw()
		if err := e.sendSMTP(u.Email, old.ReplyTo, raw); err != nil {
			t.Fatal(err)
		}
		e.settle()
		if v := e.version(id); v != before {
			t.Fatalf("version %d -> %d", before, v)
		}
		a := e.answerTo(messageIDOf(raw))
		if a == nil || !strings.Contains(a.Text, "That decision was already taken") || !strings.Contains(a.Text, "moved on") {
			t.Fatalf("answer %+v", a)
		}
	})

	// With replies turned off for the game, a reply is refused, and the
	// game's emails carry no reply address.
	t.Run("replies off", func(t *testing.T) {
		ctx := context.Background()
		g, _ := e.st.GameNoState(ctx, id)
		w := 0
		if g.Seats[1].Awaited {
			w = 1
		}
		who := players[w]
		em := e.latest(who)
		if err := e.st.SetGameEmailReplies(ctx, who.ID, id, false); err != nil {
			t.Fatal(err)
		}
		defer e.st.SetGameEmailReplies(ctx, who.ID, id, true)
		before := e.version(id)
		m := replyTo(who, em, "end")
		raw := m.raw()
		if err := e.sendSMTP(who.Email, em.ReplyTo, raw); err != nil {
			t.Fatal(err)
		}
		e.settle()
		a := e.answerTo(messageIDOf(raw))
		if e.version(id) != before || a == nil || !strings.Contains(a.Text, "turned off playing by email") || a.ReplyTo != "" {
			t.Fatalf("answer %+v", a)
		}
		if !strings.Contains(a.Text, "replies are not read") {
			t.Fatalf("the footer does not say replies are not read:\n%s", a.Text)
		}
	})

	// Too many replies from one address: refused for now (SMTP 451, HTTP
	// 429), nothing played or sent.
	t.Run("rate limited", func(t *testing.T) {
		in, err := inbound.New(inbound.Config{Play: e.play, Outbox: e.ob, Reply: e.reply, Email: emailCfg(),
			Rate: models.RateLimit{Burst: 1, Every: time.Hour}, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		e.srv.SetInbound(in, e.secret)
		defer e.srv.SetInbound(e.in, e.secret)
		og, _ := e.st.GameNoState(context.Background(), other)
		who := cy
		if og.Seats[1].Awaited {
			who = dee
		}
		em := e.latest(who)
		before := e.version(other)
		first := replyTo(who, em, "99")
		if code, body := e.postHTTP(first.raw(), e.secret); code != 200 || !strings.Contains(body, "refused") {
			t.Fatalf("first: %d %s", code, body)
		}
		e.settle()
		n := len(e.sink.all())
		// The 429 says when to post again, as openapi.yaml's SenderLimited
		// promises: Retry-After alone, in a problem.
		hr, _ := http.NewRequest("POST", e.http.URL+"/v1/inbound/email", bytes.NewReader(replyTo(who, em, "1").raw()))
		hr.Header.Set("Content-Type", "message/rfc822")
		hr.Header.Set("Authorization", "Bearer "+e.secret)
		res, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 429 {
			t.Fatalf("second: %d %s", res.StatusCode, body)
		}
		if n, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || n < 1 {
			t.Errorf("429 Retry-After %q", res.Header.Get("Retry-After"))
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
			t.Errorf("429 is %s, not a problem", ct)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ss := inbound.NewSMTPServer(in, inbound.SMTPConfig{Logger: slog.New(slog.DiscardHandler)})
		go ss.Serve(ln)
		defer ss.Close()
		if err := sendSMTP(ln.Addr().String(), who.Email, em.ReplyTo, replyTo(who, em, "1").raw()); err == nil || !strings.Contains(err.Error(), "451") {
			t.Fatalf("SMTP: %v", err)
		}
		e.settle()
		if e.version(other) != before || len(e.sink.all()) != n {
			t.Fatal("a rate-limited reply moved the game or was answered")
		}
	})
}

func emailCfg() notifier.EmailConfig {
	return notifier.EmailConfig{BaseURL: "https://dm.example", From: mail.Address{Name: "Data Monsters", Address: "turns@dm.example"}}
}

// TestDKIMLogged: a reply with a DKIM signature is verified and the
// result logged; a broken signature is logged as failing and decides
// nothing.
func TestDKIMLogged(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	_ = id
	u := e.awaited(id, ana, ben)
	em := e.latest(u)
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	var logs bytes.Buffer
	in, err := inbound.New(inbound.Config{Play: e.play, Outbox: e.ob, Reply: e.reply, Email: emailCfg(),
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		LookupTXT: func(domain string) ([]string, error) {
			return []string{"v=DKIM1; k=ed25519; p=" + base64.StdEncoding.EncodeToString(pub)}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	m := replyTo(u, em, "99")
	var signed bytes.Buffer
	if err := dkim.Sign(&signed, bytes.NewReader(m.raw()), &dkim.SignOptions{Domain: "example.com", Selector: "s1", Signer: priv}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Receive(context.Background(), inbound.Envelope{MailFrom: u.Email, HasReturnPath: true, Rcpt: []string{em.ReplyTo}, Raw: signed.Bytes()}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "inbound: dkim") || !strings.Contains(logs.String(), "result=pass") {
		t.Fatalf("logs:\n%s", logs.String())
	}
	logs.Reset()
	tampered := bytes.Replace(signed.Bytes(), []byte("99"), []byte("98"), 1)
	tampered = bytes.Replace(tampered, []byte("Message-ID: <"), []byte("Message-ID: <x"), 1)
	if _, err := in.Receive(context.Background(), inbound.Envelope{MailFrom: u.Email, HasReturnPath: true, Rcpt: []string{em.ReplyTo}, Raw: tampered}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "result=\"fail") {
		t.Fatalf("logs:\n%s", logs.String())
	}
}

// TestNoHeaderInjection: nothing a reply holds reaches a header of its
// answer unchecked: a hostile Message-ID is left out of In-Reply-To, and
// a hostile subject or name adds no header line.
func TestNoHeaderInjection(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	em := e.latest(u)
	m := replyTo(u, em, "99")
	m.MessageID = "a\"b(c)@x y"
	m.Subject = "=?utf-8?q?hi=0D=0ABcc:_victim@example.org?="
	m.From = "=?utf-8?q?Ana=0D=0ABcc:_victim@example.org?= <" + u.Email + ">"
	raw := m.raw()
	if err := e.sendSMTP(u.Email, em.ReplyTo, raw); err != nil {
		t.Fatal(err)
	}
	e.settle()
	ms := e.sink.to(u.Email)
	a := ms[len(ms)-1]
	if !strings.Contains(a.Text, "Nothing was played.") {
		t.Fatalf("no answer: %+v", a.Text)
	}
	hdr := string(a.Raw[:bytes.Index(a.Raw, []byte("\r\n\r\n"))])
	for _, line := range strings.Split(hdr, "\r\n") {
		if strings.HasPrefix(strings.ToLower(line), "bcc:") || strings.Contains(line, "victim") {
			t.Fatalf("header line %q", line)
		}
	}
	if a.InReplyTo != notifier.ThreadID(strconv.FormatInt(id, 10), domain) {
		t.Fatalf("In-Reply-To %q", a.InReplyTo)
	}
}

// TestDecisionEmailInTimeZone: the deadline of a decision email is in its
// recipient's time zone.
func TestDecisionEmailInTimeZone(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	for _, u := range []*models.User{ana, ben} {
		if err := e.st.SetTimeZone(context.Background(), u.ID, "Asia/Tokyo"); err != nil {
			t.Fatal(err)
		}
	}
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	em := e.latest(u)
	if !strings.Contains(em.Text, "Deadline: ") || !strings.Contains(em.Text, " JST") || !strings.Contains(em.HTML, " JST") {
		t.Fatalf("the deadline is not in the recipient's time zone:\n%s", em.Text)
	}
}

// TestInboundDoors: the HTTP route wants the shared secret and takes the
// message as a body or a form field; the SMTP server refuses a message
// over its size limit.
func TestInboundDoors(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	em := e.latest(u)
	raw := replyTo(u, em, "99").raw()
	for _, secret := range []string{"", "wrong-secret-0123456789"} {
		if code, body := e.postHTTP(raw, secret); code != 401 || !strings.Contains(body, "unauthorized") {
			t.Fatalf("secret %q: %d %s", secret, code, body)
		}
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	mw.WriteField("email", string(raw))
	mw.Close()
	req, _ := http.NewRequest("POST", e.http.URL+"/v1/inbound/email", &form)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.SetBasicAuth("provider", e.secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"outcome":"refused"`) {
		t.Fatalf("form: %d %s", resp.StatusCode, b)
	}
	e.settle()
	if a := e.answerTo(messageIDOf(raw)); a == nil || !strings.Contains(a.Text, "the list you answered has no move 99") {
		t.Fatalf("answer %+v", a)
	}
	big := replyTo(u, em, "1"+strings.Repeat("\nx", 200<<10)).raw()
	before := e.version(id)
	if err := e.sendSMTP(u.Email, em.ReplyTo, big); err == nil || !strings.Contains(err.Error(), "552") {
		t.Fatalf("a message over the limit: %v", err)
	}
	if e.version(id) != before {
		t.Fatal("the game moved")
	}
	e.srv.SetInbound(nil, "")
	if code, _ := e.postHTTP(raw, e.secret); code != 503 {
		t.Fatalf("no inbound path: %d", code)
	}
}

package inbound_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"net/smtp"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/api"
	"github.com/datamonsters/turns/inbound"
	"github.com/datamonsters/turns/internal/jobstest"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	gomail "github.com/emersion/go-message/mail"
	gosmtp "github.com/emersion/go-smtp"
	"github.com/riverqueue/river/rivertype"
)

// sent is one message the sink accepted, read back.
type sent struct {
	To, ReplyTo, MessageID, InReplyTo, Subject string
	References                                 []string
	Text, HTML                                 string
	Raw                                        []byte
	At                                         time.Time
}

// sink is a real SMTP server on 127.0.0.1 that keeps what it is sent.
type sink struct {
	addr string
	mu   sync.Mutex
	msgs []sent
	at   func(sent) // called for each message as it is accepted (benchmark)
}

func startSink(tb testing.TB) *sink {
	s := &sink{}
	srv := gosmtp.NewServer(s)
	srv.Domain = "sink.test"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.MaxMessageBytes = 4 << 20
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s.addr = ln.Addr().String()
	go srv.Serve(ln)
	tb.Cleanup(func() { srv.Close() })
	return s
}

func (s *sink) NewSession(*gosmtp.Conn) (gosmtp.Session, error) { return &sinkSession{s: s}, nil }

type sinkSession struct{ s *sink }

func (*sinkSession) Reset()                                 {}
func (*sinkSession) Logout() error                          { return nil }
func (*sinkSession) Mail(string, *gosmtp.MailOptions) error { return nil }
func (*sinkSession) Rcpt(string, *gosmtp.RcptOptions) error { return nil }
func (ss *sinkSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m := readSent(raw)
	m.At = time.Now()
	ss.s.mu.Lock()
	ss.s.msgs = append(ss.s.msgs, m)
	at := ss.s.at
	ss.s.mu.Unlock()
	if at != nil {
		at(m)
	}
	return nil
}

// readSent reads the parts of a message the tests look at.
func readSent(raw []byte) sent {
	m := sent{Raw: raw}
	r, err := gomail.CreateReader(bytes.NewReader(raw))
	if r == nil {
		return m
	}
	_ = err
	h := r.Header
	m.To = h.Get("To")
	m.ReplyTo = strings.Trim(h.Get("Reply-To"), "<> ")
	m.MessageID = strings.Trim(h.Get("Message-Id"), "<>")
	m.InReplyTo = strings.Trim(h.Get("In-Reply-To"), "<>")
	for _, f := range strings.Fields(h.Get("References")) {
		m.References = append(m.References, strings.Trim(f, "<>"))
	}
	m.Subject, _ = h.Subject()
	for {
		p, err := r.NextPart()
		if err != nil {
			break
		}
		ih, ok := p.Header.(*gomail.InlineHeader)
		if !ok {
			continue
		}
		t, _, _ := ih.ContentType()
		b, _ := io.ReadAll(p.Body)
		switch t {
		case "text/plain":
			m.Text = strings.ReplaceAll(string(b), "\r\n", "\n")
		case "text/html":
			m.HTML = strings.ReplaceAll(string(b), "\r\n", "\n")
		}
	}
	return m
}

// decision reports whether m asks its recipient a decision: its reply
// address names the list of moves it numbers (every other email of a game
// has a General one).
func (m sent) decision() bool {
	r, err := notifier.ParseReplyAddress(m.ReplyTo)
	return m.ReplyTo != "" && err == nil && !r.General
}

func (s *sink) all() []sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sent(nil), s.msgs...)
}

// to returns the messages sent to addr, in order.
func (s *sink) to(addr string) []sent {
	var out []sent
	for _, m := range s.all() {
		if strings.Contains(m.To, addr) {
			out = append(out, m)
		}
	}
	return out
}

// env is a whole service in the test's process: the store, the play
// path and API, the outbox sending to a sink, and the inbound path with
// its SMTP server and the API's inbound route.
type env struct {
	t      testing.TB
	st     *models.Store
	srv    *api.Server
	play   *play.Service
	ob     *notifier.Outbox
	hub    *notifier.Hub
	in     *inbound.Service
	sink   *sink
	smtp   string // the inbound SMTP server's address
	http   *httptest.Server
	secret string // INBOUND_SECRET
	reply  notifier.ReplyConfig
	email  notifier.EmailConfig
	users  []*models.User
	worked *jobstest.Worked
}

const domain = "dm.example"

func newEnv(tb testing.TB, d models.Dialect) *env {
	tb.Helper()
	ctx := context.Background()
	st := modelstest.Open(tb, d, models.Options{})
	if err := notifier.MigrateRiver(ctx, st); err != nil {
		tb.Fatal(err)
	}
	e := &env{t: tb, st: st, sink: startSink(tb), secret: "inbound-secret-0123456789", worked: &jobstest.Worked{},
		reply: notifier.ReplyConfig{Secret: []byte("reply secret"), Domain: domain}}
	host, port, _ := net.SplitHostPort(e.sink.addr)
	p, _ := strconv.Atoi(port)
	ecfg := notifier.EmailConfig{Host: host, Port: p, TLS: notifier.TLSNone, BaseURL: "https://dm.example", Timeout: 5 * time.Second,
		From: mail.Address{Name: "Data Monsters", Address: "turns@dm.example"}, MaxIdleConns: 8}
	e.email = ecfg
	sender, err := notifier.NewSMTPSender(ecfg, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sender.Close() })
	log := slog.New(slog.NewTextHandler(testLog{tb}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	secret := []byte("0123456789abcdef0123456789abcdef")
	e.play = play.New(st, nil, log)
	acc := accounts.New(st, e.play, accounts.Config{Secret: secret, Issuer: "dm", Audience: "dm", Hash: cheapHash}, log, nil)
	e.srv = api.New(st, e.play, acc, api.Config{Secret: secret}, log, nil)
	e.hub = notifier.NewHub(0)
	e.ob, err = notifier.NewOutbox(notifier.OutboxConfig{Store: st, Sender: sender, Email: ecfg, Hub: e.hub, Logger: log,
		SignInSecret: []byte("links"), Reply: e.reply, PollInterval: 50 * time.Millisecond, Middleware: []rivertype.Middleware{e.worked},
		Webhook: notifier.NewWebhookClient(notifier.WebhookOptions{AllowPrivate: true, Timeout: 2 * time.Second})})
	if err != nil {
		tb.Fatal(err)
	}
	st.SetOutbox(e.ob)
	if err := e.ob.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e.ob.Stop(sctx)
	})
	e.in, err = inbound.New(inbound.Config{Play: e.play, Outbox: e.ob, Reply: e.reply, Email: ecfg, Logger: log,
		Rate: models.RateLimit{Burst: 1000, Every: time.Millisecond}, Refusals: models.RateLimit{Burst: 1000, Every: time.Millisecond},
		RefusalsPerSender: models.RateLimit{Burst: 1000, Every: time.Millisecond}})
	if err != nil {
		tb.Fatal(err)
	}
	e.srv.SetInbound(e.in, e.secret)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	e.smtp = ln.Addr().String()
	ss := inbound.NewSMTPServer(e.in, inbound.SMTPConfig{Domain: domain, MaxBytes: 256 << 10, Logger: log})
	go ss.Serve(ln)
	tb.Cleanup(func() { ss.Close() })
	e.http = httptest.NewServer(e.srv.Handler())
	tb.Cleanup(e.http.Close)
	return e
}

// user creates a player who plays by email.
func (e *env) user(name string) *models.User {
	e.t.Helper()
	u := &models.User{Username: name, Email: name + "@example.com", NotifyEmail: true, NotifyTurns: true}
	if err := e.st.CreateUser(context.Background(), u, "x"); err != nil {
		e.t.Fatal(err)
	}
	e.users = append(e.users, u)
	return u
}

// game starts a fast 2-player game of a and b, under the interrupt
// policy conceal (a window asks every seat whose deck could answer).
func (e *env) game(a, b *models.User) int64 { return e.gameUnder(a, b, "conceal") }

// awaited is which of a and b, the two players of game id, the game waits
// for.
func (e *env) awaited(id int64, a, b *models.User) *models.User {
	e.t.Helper()
	g, err := e.st.GameNoState(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	if g.Seats[1].Awaited {
		return b
	}
	return a
}

// gameUnder starts a fast 2-player game of a and b under the interrupt
// policy ("": the service's default); a plays Running a Startup, b
// Working for the Enterprise.
func (e *env) gameUnder(a, b *models.User, policy string) int64 {
	e.t.Helper()
	ctx := context.Background()
	pub := true
	res, err := e.play.Create(ctx, a.ID, play.NewGame{Players: 2, Mode: "fast", Policy: policy, Public: &pub,
		Deck: play.DeckChoice{Prebuilt: "running-a-startup"}}, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	id := res.Game.ID
	res.Done()
	if res, err = e.play.Join(ctx, id, b.ID, play.DeckChoice{Prebuilt: "working-for-the-enterprise"}, nil); err != nil {
		e.t.Fatal(err)
	}
	res.Done()
	if res, err = e.play.Start(ctx, id, a.ID, nil); err != nil {
		e.t.Fatal(err)
	}
	res.Done()
	return id
}

// version is the game's version now.
func (e *env) version(id int64) int64 {
	e.t.Helper()
	g, err := e.st.GameNoState(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return g.Version
}

// settle waits until the outbox has sent every email job written so far:
// each has been marked completed, cancelled or discarded, or its work has
// ended well (worked).
func (e *env) settle() {
	e.t.Helper()
	db, _ := e.st.SQLDB()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if ids, err := e.emailsLeft(db); err == nil && e.worked.Done(ids...) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatal("the outbox did not send its emails in 20 s")
}

// emailsLeft returns the IDs of the email jobs not yet marked completed,
// cancelled or discarded.
func (e *env) emailsLeft(db *sql.DB) ([]int64, error) {
	rows, err := db.Query(`SELECT id FROM river_job WHERE kind = 'dm_email' AND state NOT IN ('completed', 'cancelled', 'discarded')`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// replyMsg is a reply written by a mail client.
type replyMsg struct {
	From, To, Subject, MessageID string
	InReplyTo                    string
	References                   []string
	Body                         string            // the text part ("" with HTML only)
	HTML                         string            // an HTML part ("" for none)
	Headers                      map[string]string // more headers
	Extra                        string            // more header lines, as written (CRLF-ended)
}

// replySeq numbers the replies' Message-IDs; tests write replies from
// many goroutines at once.
var replySeq atomic.Int64

// raw writes the reply as RFC 5322 bytes.
func (r replyMsg) raw() []byte {
	var b bytes.Buffer
	if r.MessageID == "" {
		r.MessageID = fmt.Sprintf("reply-%d-%d@example.com", time.Now().UnixNano(), replySeq.Add(1))
	}
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%s>\r\nDate: %s\r\nMIME-Version: 1.0\r\n",
		r.From, r.To, r.Subject, r.MessageID, time.Now().Format(time.RFC1123Z))
	if r.InReplyTo != "" {
		fmt.Fprintf(&b, "In-Reply-To: <%s>\r\n", r.InReplyTo)
	}
	if len(r.References) > 0 {
		fmt.Fprintf(&b, "References: <%s>\r\n", strings.Join(r.References, "> <"))
	}
	for k, v := range r.Headers {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString(r.Extra)
	switch {
	case r.Headers["Content-Type"] != "":
		fmt.Fprintf(&b, "\r\n%s\r\n", crlf(r.Body))
	case r.HTML != "" && r.Body != "":
		fmt.Fprintf(&b, "Content-Type: multipart/alternative; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n--b1\r\nContent-Type: text/html; charset=utf-8\r\n\r\n%s\r\n--b1--\r\n",
			crlf(r.Body), crlf(r.HTML))
	case r.HTML != "":
		fmt.Fprintf(&b, "Content-Type: text/html; charset=utf-8\r\n\r\n%s\r\n", crlf(r.HTML))
	default:
		fmt.Fprintf(&b, "Content-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n", crlf(r.Body))
	}
	return b.Bytes()
}

func crlf(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// messageID returns the Message-ID raw gives r (it sets one if r has none).
func messageIDOf(raw []byte) string {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return ""
	}
	return strings.Trim(m.Header.Get("Message-Id"), "<>")
}

// sendSMTP sends raw from mailFrom to rcpt through the inbound SMTP
// server, over TCP.
func (e *env) sendSMTP(mailFrom, rcpt string, raw []byte) error {
	return sendSMTP(e.smtp, mailFrom, rcpt, raw)
}

// sendSMTP sends raw from mailFrom to rcpt through the SMTP server at addr.
func sendSMTP(addr, mailFrom, rcpt string, raw []byte) error {
	c, err := smtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("client.example.com"); err != nil {
		return err
	}
	if err := sendOn(c, mailFrom, rcpt, raw); err != nil {
		return err
	}
	return c.Quit()
}

// postHTTP posts raw to POST /v1/inbound/email and returns the status and
// the outcome.
func (e *env) postHTTP(raw []byte, secret string) (int, string) {
	code, body, err := e.tryPostHTTP(raw, secret)
	if err != nil {
		e.t.Fatal(err)
	}
	return code, body
}

// tryPostHTTP is postHTTP that returns a failure to send (a connection the
// server closed on a body too large) rather than stop the test.
func (e *env) tryPostHTTP(raw []byte, secret string) (int, string, error) {
	req, _ := http.NewRequest("POST", e.http.URL+"/v1/inbound/email", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "message/rfc822")
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// lineRe reads a numbered line of a decision email's text.
var lineRe = regexp.MustCompile(`(?m)^  (\d+)\. (.+)$`)

// emailLines returns the numbered lines of the "What you can do now"
// section of an email's text.
func emailLines(text string) map[int]string {
	i := strings.Index(text, "What you can do now")
	if i < 0 {
		return nil
	}
	rest := text[i:]
	if j := strings.Index(rest, "How to answer"); j >= 0 {
		rest = rest[:j]
	} else if j := strings.Index(rest, "Open a line"); j >= 0 {
		rest = rest[:j]
	}
	out := map[int]string{}
	for _, m := range lineRe.FindAllStringSubmatch(rest, -1) {
		n, _ := strconv.Atoi(m[1])
		out[n] = m[2]
	}
	return out
}

// testLog writes log lines into the test's output.
type testLog struct{ tb testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.tb.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// cheapHash hashes the tests' passwords at a small cost: at a server's,
// the hundreds of accounts they register were a third of their CPU. Any
// cost checks (accounts.TestPasswordCost).
func cheapHash(p string) string { return accounts.HashPasswordCost(p, 1, 64) }

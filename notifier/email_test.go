package notifier

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	smtp "github.com/emersion/go-smtp"
)

var testDate = time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)

// turnMessage is a typical threaded notification.
func turnMessage(to Address) Message {
	inReplyTo, refs := ThreadHeaders("42", "dm.example")
	return Message{
		To:             to,
		Subject:        "[Data Monsters] Friday lab — your turn",
		Text:           "It is your turn.\nHand: Data Lake, Overfit Goblin\n",
		HTML:           "<p>It is <b>your</b> turn.</p>",
		MessageID:      DeliveryMessageID("42", "ev-17.u-3", "dm.example"),
		InReplyTo:      inReplyTo,
		References:     refs,
		UnsubscribeURL: "https://dm.example/v1/unsubscribe?token=abc123",
		Date:           testDate,
	}
}

func sendOne(t *testing.T, cfg EmailConfig, m Message) error {
	t.Helper()
	s, err := NewSMTPSender(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.Send(ctx, m)
}

// checkTurnMessage asserts everything turnMessage should produce.
func checkTurnMessage(t *testing.T, got received) {
	t.Helper()
	if got.From != "turns@dm.example" {
		t.Errorf("MAIL FROM = %q", got.From)
	}
	if len(got.Rcpts) != 1 || got.Rcpts[0] != "ana@example.org" {
		t.Errorf("RCPT TO = %q, want [ana@example.org]", got.Rcpts)
	}
	p := parseMail(t, got.Data)
	if s := p.decodedHeader(t, "Subject"); s != "[Data Monsters] Friday lab — your turn" {
		t.Errorf("Subject = %q", s)
	}
	to, err := p.Header.AddressList("To")
	if err != nil || len(to) != 1 || to[0].Name != "Ana Lovelace" || to[0].Address != "ana@example.org" {
		t.Errorf("To = %v (%v)", to, err)
	}
	from, err := p.Header.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Address != "turns@dm.example" || from[0].Name != "Data Monsters" {
		t.Errorf("From = %v (%v)", from, err)
	}
	for h, want := range map[string]string{
		"Message-Id":            "<game-42.ev-17.u-3@dm.example>",
		"In-Reply-To":           "<game-42@dm.example>",
		"References":            "<game-42@dm.example>",
		"List-Unsubscribe":      "<https://dm.example/v1/unsubscribe?token=abc123>",
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		"Auto-Submitted":        "auto-generated",
		"Date":                  "Sun, 29 Nov 2026 21:00:00 +0000",
	} {
		if v := p.Header.Get(h); v != want {
			t.Errorf("%s = %q, want %q", h, v, want)
		}
	}
	if p.Text != "It is your turn.\nHand: Data Lake, Overfit Goblin\n" && p.Text != "It is your turn.\r\nHand: Data Lake, Overfit Goblin\r\n" {
		t.Errorf("text body = %q", p.Text)
	}
	if p.HTML != "<p>It is <b>your</b> turn.</p>" {
		t.Errorf("html body = %q", p.HTML)
	}
}

func TestSMTPPlain(t *testing.T) {
	t.Parallel()
	s := startSink(t, sinkOptions{tlsMode: TLSNone})
	if err := sendOne(t, s.config(), turnMessage(Address{"Ana Lovelace", "ana@example.org"})); err != nil {
		t.Fatal(err)
	}
	msgs := s.messages()
	if len(msgs) != 1 {
		t.Fatalf("sink got %d messages, want 1", len(msgs))
	}
	if msgs[0].TLS {
		t.Error("plain session reported TLS")
	}
	checkTurnMessage(t, msgs[0])
}

func TestSMTPStartTLSWithAuth(t *testing.T) {
	t.Parallel()
	s := startSink(t, sinkOptions{tlsMode: TLSStartTLS, user: "mailer", password: "s3cret pass"})
	if err := sendOne(t, s.config(), turnMessage(Address{"Ana Lovelace", "ana@example.org"})); err != nil {
		t.Fatal(err)
	}
	msgs := s.messages()
	if len(msgs) != 1 {
		t.Fatalf("sink got %d messages, want 1", len(msgs))
	}
	if !msgs[0].TLS {
		t.Error("message was sent without STARTTLS")
	}
	if msgs[0].AuthAs != "mailer" {
		t.Errorf("authenticated as %q, want mailer", msgs[0].AuthAs)
	}
	checkTurnMessage(t, msgs[0])

	bad := s.config()
	bad.Password = "wrong"
	if err := sendOne(t, bad, turnMessage(Address{"", "ana@example.org"})); err == nil {
		t.Error("wrong password: send succeeded")
	}
	if n := len(s.messages()); n != 1 {
		t.Errorf("after a failed login the sink has %d messages, want 1", n)
	}
}

func TestSMTPImplicitTLS(t *testing.T) {
	t.Parallel()
	s := startSink(t, sinkOptions{tlsMode: TLSImplicit})
	if err := sendOne(t, s.config(), turnMessage(Address{"Ana Lovelace", "ana@example.org"})); err != nil {
		t.Fatal(err)
	}
	msgs := s.messages()
	if len(msgs) != 1 || !msgs[0].TLS {
		t.Fatalf("got %d messages (TLS %v), want 1 over TLS", len(msgs), len(msgs) == 1 && msgs[0].TLS)
	}
	checkTurnMessage(t, msgs[0])
}

// STARTTLS is mandatory: a server that does not offer it gets nothing, and
// a certificate the client does not trust gets nothing either.
func TestSMTPStartTLSIsMandatory(t *testing.T) {
	t.Parallel()
	plain := startSink(t, sinkOptions{tlsMode: TLSNone})
	cfg := plain.config()
	cfg.TLS = TLSStartTLS
	if err := sendOne(t, cfg, turnMessage(Address{"", "ana@example.org"})); err == nil {
		t.Error("send without STARTTLS on offer succeeded")
	}
	if n := len(plain.messages()); n != 0 {
		t.Errorf("plain sink got %d messages, want 0", n)
	}

	tlsSink := startSink(t, sinkOptions{tlsMode: TLSStartTLS})
	cfg = tlsSink.config()
	cfg.TLSConfig = nil // system roots do not trust the self-signed certificate
	if err := sendOne(t, cfg, turnMessage(Address{"", "ana@example.org"})); err == nil {
		t.Error("send to an untrusted certificate succeeded")
	}
	if n := len(tlsSink.messages()); n != 0 {
		t.Errorf("untrusted sink got %d messages, want 0", n)
	}
}

// Hostile names and titles cannot add headers or recipients.
func TestSMTPHeaderInjection(t *testing.T) {
	t.Parallel()
	s := startSink(t, sinkOptions{tlsMode: TLSNone})
	m := turnMessage(Address{"Eve\r\nBcc: x@y", "eve@example.org"})
	m.Subject = "Game \"Eve\r\nBcc: mallory@evil.example\r\n\r\nfake body\" — your turn\x00\x1b[31m"
	if err := sendOne(t, s.config(), m); err != nil {
		t.Fatal(err)
	}
	msgs := s.messages()
	if len(msgs) != 1 {
		t.Fatalf("sink got %d messages, want 1", len(msgs))
	}
	got := msgs[0]
	if len(got.Rcpts) != 1 || got.Rcpts[0] != "eve@example.org" {
		t.Errorf("RCPT TO = %q, want only eve@example.org", got.Rcpts)
	}
	p := parseMail(t, got.Data)
	if v, ok := p.Header["Bcc"]; ok {
		t.Errorf("message has a Bcc header: %q", v)
	}
	head, _, _ := strings.Cut(p.Raw, "\r\n\r\n")
	for _, line := range strings.Split(head, "\r\n") {
		if strings.HasPrefix(strings.ToLower(line), "bcc:") || strings.Contains(line, "fake body") && !strings.HasPrefix(line, "Subject:") && !strings.HasPrefix(line, " ") {
			t.Errorf("injected header line %q", line)
		}
		if strings.ContainsAny(line, "\r\n\x00\x1b") {
			t.Errorf("control character in header line %q", line)
		}
	}
	to, err := p.Header.AddressList("To")
	if err != nil || len(to) != 1 || to[0].Address != "eve@example.org" || to[0].Name != "Eve Bcc: x@y" {
		t.Errorf("To = %v (%v), want one address named %q", to, err, "Eve Bcc: x@y")
	}
	if subj := p.decodedHeader(t, "Subject"); subj != "Game \"Eve Bcc: mallory@evil.example fake body\" — your turn [31m" {
		t.Errorf("Subject = %q", subj)
	}
	if !strings.HasPrefix(p.Text, "It is your turn.") {
		t.Errorf("text body changed: %q", p.Text)
	}
}

func TestSMTPRejections(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code      int
		permanent bool
	}{
		{550, true},
		{451, false},
	} {
		s := startSink(t, sinkOptions{tlsMode: TLSNone, rcptErr: &smtp.SMTPError{Code: tc.code, EnhancedCode: smtp.EnhancedCode{tc.code / 100, 1, 1}, Message: "no"}})
		err := sendOne(t, s.config(), turnMessage(Address{"", "ana@example.org"}))
		if err == nil {
			t.Fatalf("%d: send succeeded", tc.code)
		}
		if IsPermanent(err) != tc.permanent {
			t.Errorf("%d: IsPermanent = %v, want %v (%v)", tc.code, !tc.permanent, tc.permanent, err)
		}
	}
	// Nobody listening: temporary.
	cfg := EmailConfig{Host: "127.0.0.1", Port: 1, TLS: TLSNone, From: mail.Address{Address: "a@b.c"}, Timeout: time.Second}
	err := sendOne(t, cfg, turnMessage(Address{"", "ana@example.org"}))
	if err == nil || IsPermanent(err) {
		t.Errorf("connection refused: err %v, IsPermanent %v; want a temporary error", err, IsPermanent(err))
	}
}

func TestInvalidMessages(t *testing.T) {
	t.Parallel()
	base := turnMessage(Address{"Ana", "ana@example.org"})
	for name, mut := range map[string]func(*Message){
		"two addresses":      func(m *Message) { m.To.Email = "ana@example.org, bob@example.org" },
		"address with name":  func(m *Message) { m.To.Email = "Bob <bob@example.org>" },
		"address with CRLF":  func(m *Message) { m.To.Email = "ana@example.org\r\nBcc: x@y" },
		"empty address":      func(m *Message) { m.To.Email = "" },
		"no body":            func(m *Message) { m.Text = "" },
		"no message id":      func(m *Message) { m.MessageID = "" },
		"message id CRLF":    func(m *Message) { m.MessageID = "a@b\r\nBcc: x@y" },
		"reference brackets": func(m *Message) { m.References = []string{"<a@b>"} },
		"unsubscribe CRLF":   func(m *Message) { m.UnsubscribeURL = "https://dm.example/u\r\nBcc: x@y" },
		"unsubscribe mailto": func(m *Message) { m.UnsubscribeURL = "mailto:x@y" },
	} {
		m := base
		mut(&m)
		_, err := buildMsg(mail.Address{Address: "turns@dm.example"}, m, testDate)
		if !errors.Is(err, ErrInvalidMessage) || !IsPermanent(err) {
			t.Errorf("%s: err = %v, want ErrInvalidMessage", name, err)
		}
	}
}

func TestFolderSender(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "mail")
	cfg, err := LoadEmailConfig(mapEnv(map[string]string{EnvMailDir: dir, EnvSMTPFrom: "Data Monsters <turns@dm.example>"}))
	if err != nil {
		t.Fatal(err)
	}
	snd, err := NewSender(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snd.(*FolderSender); !ok {
		t.Fatalf("NewSender without SMTP_HOST = %T, want *FolderSender", snd)
	}
	m := turnMessage(Address{"Ana Lovelace", "ana@example.org"})
	for range 2 { // a redelivery replaces the file
		if err := snd.Send(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Name() != "game-42.ev-17.u-3-dm.example.eml" {
		t.Fatalf("files = %v, want one game-42.ev-17.u-3-dm.example.eml", files)
	}
	raw, err := os.ReadFile(filepath.Join(dir, files[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	checkTurnMessage(t, received{From: "turns@dm.example", Rcpts: []string{"ana@example.org"}, Data: raw})
}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadEmailConfig(t *testing.T) {
	t.Parallel()
	cfg, err := LoadEmailConfig(mapEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "" || cfg.MailDir != DefaultMailDir || cfg.BaseURL != DefaultBaseURL ||
		cfg.From.Address != "no-reply@localhost" || cfg.TLS != TLSStartTLS || cfg.port() != 587 || cfg.Timeout != DefaultTimeout {
		t.Errorf("defaults = %+v", cfg)
	}
	cfg, err = LoadEmailConfig(mapEnv(map[string]string{
		EnvSMTPHost: "smtp.example.com", EnvSMTPTLS: "Implicit", EnvSMTPUsername: "u", EnvSMTPPassword: " p ",
		EnvSMTPFrom: "DM <dm@Example.COM>", EnvBaseURL: "https://dm.example.com/", EnvMailDir: "/tmp/m",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "smtp.example.com" || cfg.TLS != TLSImplicit || cfg.port() != 465 || cfg.Username != "u" ||
		cfg.Password != " p " || cfg.From.Name != "DM" || cfg.Domain() != "example.com" ||
		cfg.BaseURL != "https://dm.example.com" || cfg.MailDir != "/tmp/m" {
		t.Errorf("loaded = %+v", cfg)
	}
	if cfg, err := LoadEmailConfig(mapEnv(map[string]string{EnvSMTPPort: "465"})); err != nil || cfg.TLS != TLSImplicit {
		t.Errorf("port 465 without SMTP_TLS: %v, %v; want implicit", cfg.TLS, err)
	}
	if cfg, err := LoadEmailConfig(mapEnv(map[string]string{EnvSMTPPort: "465", EnvSMTPTLS: "starttls"})); err != nil || cfg.TLS != TLSStartTLS {
		t.Errorf("port 465 with SMTP_TLS=starttls: %v, %v", cfg.TLS, err)
	}
	for _, tc := range []struct{ port, tls string }{{"", "none"}, {"1025", "none"}} {
		cfg, err := LoadEmailConfig(mapEnv(map[string]string{EnvSMTPPort: tc.port, EnvSMTPTLS: tc.tls}))
		want := 25
		if tc.port != "" {
			want = 1025
		}
		if err != nil || cfg.port() != want || cfg.TLS != TLSNone {
			t.Errorf("port %q tls %q: port %d, tls %v, err %v", tc.port, tc.tls, cfg.port(), cfg.TLS, err)
		}
	}
	for name, env := range map[string]map[string]string{
		"port text":   {EnvSMTPPort: "smtp"},
		"port zero":   {EnvSMTPPort: "0"},
		"port big":    {EnvSMTPPort: "70000"},
		"tls unknown": {EnvSMTPTLS: "maybe"},
		"from":        {EnvSMTPFrom: "not an address"},
		"base url":    {EnvBaseURL: "dm.example.com"},
		"base ftp":    {EnvBaseURL: "ftp://dm.example.com"},
	} {
		if _, err := LoadEmailConfig(mapEnv(env)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestCleanHeaderText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"Eve\r\nBcc: x@y", 0, "Eve Bcc: x@y"},
		{"  Ana \t Lovelace  ", 0, "Ana Lovelace"},
		{"a\x00b\x7fc\u0085d\u2028e\u2029f", 0, "a b c d e f"},
		{"bad\xffutf8", 0, "bad utf8"},
		{"Zoë 🐉 Monsters", 0, "Zoë 🐉 Monsters"},
		{"abcdef", 3, "abc"},
		{"ab cdef", 3, "ab"},
		{"\r\n", 0, ""},
	} {
		if got := CleanHeaderText(tc.in, tc.max); got != tc.want {
			t.Errorf("CleanHeaderText(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestMessageIDs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ got, want string }{
		{ThreadID("42", "dm.example"), "game-42@dm.example"},
		{ThreadID("42", ""), "game-42@localhost"},
		{DeliveryMessageID("42", "ev-17.u-3", "DM.Example"), "game-42.ev-17.u-3@dm.example"},
		{DeliveryMessageID("42", "ev 17/u<3>", "dm.example"), "game-42.ev-17-u-3-@dm.example"},
		{DeliveryMessageID("", "digest.2026-11-29.u-3", "dm.example"), "dm.digest.2026-11-29.u-3@dm.example"},
		{DeliveryMessageID("4\r\n2", "k", "dm.example>\r\nBcc: x"), "game-4--2.k@dm.example---bcc--x"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
		if !msgIDRe.MatchString(tc.got) {
			t.Errorf("%q is not a valid id", tc.got)
		}
	}
}

// Render, compose and send through SMTP: what the outbox worker will do.
func TestComposeAndSend(t *testing.T) {
	t.Parallel()
	s := startSink(t, sinkOptions{tlsMode: TLSNone})
	cfg := s.config()
	d := samples()[3].(PromptWaiting) // a prompt waits for Ana
	m, err := Compose(cfg.Domain(), Address{"Ana", "ana@example.org"}, d, "ev-18.u-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := sendOne(t, cfg, m); err != nil {
		t.Fatal(err)
	}
	digest, err := Compose(cfg.Domain(), Address{"Ana", "ana@example.org"}, samples()[9], "digest.2026-11-29.u-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := sendOne(t, cfg, digest); err != nil {
		t.Fatal(err)
	}
	msgs := s.messages()
	if len(msgs) != 2 {
		t.Fatalf("sink got %d messages", len(msgs))
	}
	p := parseMail(t, msgs[0].Data)
	if got := p.decodedHeader(t, "Subject"); got != "[Data Monsters] Friday lab, hosted by Bob" {
		t.Errorf("Subject = %q", got)
	}
	if p.Header.Get("Message-Id") != "<game-42.ev-18.u-1@dm.example>" || p.Header.Get("References") != "<game-42@dm.example>" ||
		p.Header.Get("List-Unsubscribe") != "<https://dm.example/v1/unsubscribe?token=abc>" {
		t.Errorf("headers = %v", p.Header)
	}
	if !strings.Contains(p.Text, "You may answer: pass | play Null Pointer (cancel the claim)") ||
		!strings.Contains(p.HTML, "<code>play Null Pointer (cancel the claim)</code>") {
		t.Errorf("bodies lack the prompt options:\n%s\n%s", p.Text, p.HTML)
	}
	p = parseMail(t, msgs[1].Data)
	if p.Header.Get("Message-Id") != "<dm.digest.2026-11-29.u-1@dm.example>" || p.Header.Get("References") != "" || p.Header.Get("In-Reply-To") != "" {
		t.Errorf("digest headers = %v", p.Header)
	}
}

// Connections are reused between sends; a pooled connection the server
// has closed is replaced without losing or doubling the message.
func TestSMTPConnectionReuse(t *testing.T) {
	t.Parallel()
	s := startSink(t, sinkOptions{tlsMode: TLSStartTLS, user: "mailer", password: "pw"})
	snd, err := NewSMTPSender(s.config(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer snd.Close()
	ctx := context.Background()
	send := func(i int) {
		t.Helper()
		m := turnMessage(Address{"Ana", "ana@example.org"})
		m.MessageID = DeliveryMessageID("42", fmt.Sprintf("ev-%d.u-3", i), "dm.example")
		if err := snd.Send(ctx, m); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	for i := range 5 {
		send(i)
	}
	if n := s.connections(); n != 1 {
		t.Errorf("5 sequential sends used %d connections, want 1", n)
	}
	s.hangUp()
	time.Sleep(50 * time.Millisecond)
	send(5)
	send(6)
	if n := s.connections(); n != 2 {
		t.Errorf("after the server hung up: %d connections, want 2", n)
	}
	msgs := s.messages()
	if len(msgs) != 7 {
		t.Fatalf("sink got %d messages, want 7", len(msgs))
	}
	for i, m := range msgs {
		p := parseMail(t, m.Data)
		if want := fmt.Sprintf("<game-42.ev-%d.u-3@dm.example>", i); p.Header.Get("Message-Id") != want || !m.TLS || m.AuthAs != "mailer" {
			t.Errorf("message %d: id %q, TLS %v, auth %q", i, p.Header.Get("Message-Id"), m.TLS, m.AuthAs)
		}
	}

	// With pooling off, each message has its own connection.
	cfg := s.config()
	cfg.MaxIdleConns = -1
	one, err := NewSMTPSender(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := s.connections()
	for range 3 {
		if err := one.Send(ctx, turnMessage(Address{"", "ana@example.org"})); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.connections() - before; n != 3 {
		t.Errorf("without pooling 3 sends used %d connections", n)
	}
}

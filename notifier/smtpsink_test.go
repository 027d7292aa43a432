package notifier

// A real SMTP server (github.com/emersion/go-smtp) for the tests and the
// benchmark: it listens on 127.0.0.1:0, can offer STARTTLS or implicit TLS
// with a self-signed certificate made here, can require AUTH PLAIN, and
// records every envelope and message it accepts.

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	smtp "github.com/emersion/go-smtp"
)

// received is one message accepted by the sink.
type received struct {
	From      string
	Rcpts     []string
	Data      []byte
	MessageID string    // its Message-Id header
	At        time.Time // when the whole message had arrived (before any delay)
	TLS       bool      // the session was encrypted when DATA arrived
	AuthAs    string    // the user name that authenticated, "" if none
}

// sinkOptions configures a sink.
type sinkOptions struct {
	tlsMode  TLSMode         // TLSNone: no TLS offered; TLSStartTLS: STARTTLS offered; TLSImplicit: TLS listener
	user     string          // non-empty: AUTH PLAIN offered, and required for MAIL
	password string          //
	rcptErr  *smtp.SMTPError // returned for every RCPT, if set
	discard  bool            // do not keep messages (benchmark)
	delay    time.Duration   // wait this long after a message arrives before accepting it
}

type sink struct {
	Addr   string
	Host   string
	Port   int
	Certs  *x509.CertPool // trusts the sink's certificate
	server *smtp.Server
	down   atomic.Bool // see setDown
	// dropUntil (unix nanoseconds): until then every session is dropped
	// right after MAIL FROM, before its reply (see dropAfterMail).
	dropUntil atomic.Int64
	drops     atomic.Int64 // sessions dropped so far
	// rcptFailures is how many RCPTs more are refused with rcptFailErr
	// before they are accepted again.
	rcptFailures atomic.Int64
	rcptFailErr  *smtp.SMTPError
	// dropRset: the session is dropped at the RSET a client sends after a
	// message the sink accepted.
	dropRset atomic.Bool

	mu       sync.Mutex
	msgs     []received
	count    int
	sessions int                 // connections seen
	conns    map[*smtp.Conn]bool // open connections; STARTTLS opens a second session on one
	opts     sinkOptions
}

// startSink starts a sink and stops it when the test ends.
func startSink(tb testing.TB, opts sinkOptions) *sink {
	tb.Helper()
	s := &sink{opts: opts}
	srv := smtp.NewServer(s)
	srv.Domain = "localhost"
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.MaxMessageBytes = 1 << 20
	srv.MaxRecipients = 10
	srv.ErrorLog = discardLogger{}

	var ln net.Listener
	var err error
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ln = gateListener{Listener: ln, down: &s.down}
	if opts.tlsMode != TLSNone {
		cert, pool := selfSigned(tb)
		s.Certs = pool
		cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		if opts.tlsMode == TLSImplicit {
			ln = tls.NewListener(ln, cfg)
		} else {
			srv.TLSConfig = cfg
		}
	}
	s.server = srv
	s.Addr = ln.Addr().String()
	s.Host = "127.0.0.1"
	s.Port = ln.Addr().(*net.TCPAddr).Port
	go srv.Serve(ln)
	tb.Cleanup(func() { srv.Close() })
	return s
}

// setDown makes the sink act as a mail server that is down (true) or back
// up (false): while down it resets every new connection at once, keeping
// its port, so no other listener can take it meanwhile.
func (s *sink) setDown(down bool) { s.down.Store(down) }

// dropAfterMail makes the sink drop every session right after MAIL FROM,
// without replying, for d: by closing the connection (the client reads
// EOF) and, every other time, by resetting it (the client reads a reset).
func (s *sink) dropAfterMail(d time.Duration) { s.dropUntil.Store(time.Now().Add(d).UnixNano()) }

// failRcpts makes the sink refuse the next n RCPTs with err, then accept.
func (s *sink) failRcpts(n int, err *smtp.SMTPError) {
	s.rcptFailErr = err
	s.rcptFailures.Store(int64(n))
}

// gateListener resets the connections it accepts while down is set.
type gateListener struct {
	net.Listener
	down *atomic.Bool
}

func (l gateListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil || !l.down.Load() {
			return c, err
		}
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0) // close with a reset, as a closed port would refuse
		}
		c.Close()
	}
}

// config returns an EmailConfig pointing at the sink.
func (s *sink) config() EmailConfig {
	cfg := sinkEmailConfig(s.Port)
	cfg.TLS = s.opts.tlsMode
	if s.Certs != nil {
		cfg.TLSConfig = &tls.Config{RootCAs: s.Certs, ServerName: s.Host, MinVersion: tls.VersionTLS12}
	}
	if s.opts.user != "" {
		cfg.Username, cfg.Password = s.opts.user, s.opts.password
	}
	return cfg
}

// sinkEmailConfig is the EmailConfig of a plain sink on 127.0.0.1:port
// (for a process that knows only the port).
func sinkEmailConfig(port int) EmailConfig {
	return EmailConfig{Host: "127.0.0.1", Port: port, TLS: TLSNone, BaseURL: "https://dm.example", Timeout: 5 * time.Second,
		From: mail.Address{Name: "Data Monsters", Address: "turns@dm.example"}}
}

func (s *sink) messages() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.msgs...)
}

func (s *sink) accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// NewSession implements smtp.Backend.
func (s *sink) NewSession(c *smtp.Conn) (smtp.Session, error) {
	s.mu.Lock()
	if s.conns == nil {
		s.conns = map[*smtp.Conn]bool{}
	}
	if _, seen := s.conns[c]; !seen {
		s.sessions++
		s.conns[c] = true
	}
	s.mu.Unlock()
	return &sinkSession{sink: s, conn: c}, nil
}

// connections returns how many SMTP connections were opened.
func (s *sink) connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

// hangUp closes every open connection from the server side, as a server
// does with idle clients.
func (s *sink) hangUp() {
	s.mu.Lock()
	conns := s.conns
	s.conns = map[*smtp.Conn]bool{}
	s.mu.Unlock()
	for c := range conns {
		c.Close()
	}
}

type sinkSession struct {
	sink   *sink
	conn   *smtp.Conn
	authAs string
	cur    received
	// accepted: DATA has just been accepted; the server's own reset
	// after it clears this, so the next Reset is the client's RSET.
	accepted bool
}

var _ smtp.AuthSession = (*sinkSession)(nil)

func (ss *sinkSession) AuthMechanisms() []string {
	if ss.sink.opts.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *sinkSession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != ss.sink.opts.user || password != ss.sink.opts.password {
			return errors.New("invalid credentials")
		}
		ss.authAs = username
		return nil
	}), nil
}

func (ss *sinkSession) Mail(from string, _ *smtp.MailOptions) error {
	if ss.sink.opts.user != "" && ss.authAs == "" {
		return smtp.ErrAuthRequired
	}
	if time.Now().UnixNano() < ss.sink.dropUntil.Load() {
		c := ss.conn.Conn()
		if tc, ok := c.(*tls.Conn); ok {
			c = tc.NetConn() // no close_notify: the session just ends
		}
		if tc, ok := c.(*net.TCPConn); ok && ss.sink.drops.Add(1)%2 == 0 {
			tc.SetLinger(0) // a reset rather than an orderly close
		}
		c.Close()
		return errors.New("session dropped")
	}
	ss.cur = received{From: from}
	return nil
}

func (ss *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if e := ss.sink.opts.rcptErr; e != nil {
		return e
	}
	if ss.sink.rcptFailures.Add(-1) >= 0 {
		return ss.sink.rcptFailErr
	}
	ss.cur.Rcpts = append(ss.cur.Rcpts, to)
	return nil
}

func (ss *sinkSession) Data(r io.Reader) error {
	if ss.sink.opts.discard {
		n, err := io.Copy(io.Discard, r)
		if err != nil || n == 0 {
			return errors.New("empty data")
		}
		ss.sink.mu.Lock()
		ss.sink.count++
		ss.sink.mu.Unlock()
		return nil
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ss.cur.Data, ss.cur.At = b, time.Now()
	if m, err := mail.ReadMessage(bytes.NewReader(b)); err == nil {
		ss.cur.MessageID = m.Header.Get("Message-Id")
	}
	time.Sleep(ss.sink.opts.delay)
	_, ss.cur.TLS = ss.conn.TLSConnectionState()
	ss.cur.AuthAs = ss.authAs
	ss.sink.mu.Lock()
	ss.sink.msgs = append(ss.sink.msgs, ss.cur)
	ss.sink.count++
	ss.sink.mu.Unlock()
	ss.cur = received{}
	ss.accepted = true
	return nil
}

func (ss *sinkSession) Reset() {
	ss.cur = received{}
	if ss.accepted {
		ss.accepted = false
		return
	}
	if ss.sink.dropRset.Load() {
		ss.conn.Conn().Close()
	}
}
func (ss *sinkSession) Logout() error { return nil }

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
func (discardLogger) Println(...any)        {}

// selfSigned makes a certificate for 127.0.0.1 and localhost and a pool
// that trusts it.
func selfSigned(tb testing.TB) (tls.Certificate, *x509.CertPool) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "notifier test sink"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// parsedMail is a received message taken apart the way a mail client would.
type parsedMail struct {
	Header mail.Header
	Raw    string
	Text   string
	HTML   string
}

// parseMail parses raw RFC 5322 data: headers, and the text/plain and
// text/html parts (single part or multipart/alternative), decoded.
func parseMail(tb testing.TB, raw []byte) parsedMail {
	tb.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		tb.Fatalf("parse message: %v\n%s", err, raw)
	}
	p := parsedMail{Header: m.Header, Raw: string(raw)}
	ct, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		tb.Fatalf("content type %q: %v", m.Header.Get("Content-Type"), err)
	}
	decode := func(enc string, r io.Reader) string {
		if strings.EqualFold(enc, "quoted-printable") {
			r = quotedprintable.NewReader(r)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			tb.Fatal(err)
		}
		return string(b)
	}
	if !strings.HasPrefix(ct, "multipart/") {
		body := decode(m.Header.Get("Content-Transfer-Encoding"), m.Body)
		if ct == "text/html" {
			p.HTML = body
		} else {
			p.Text = body
		}
		return p
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		part, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		pct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		body := decode(part.Header.Get("Content-Transfer-Encoding"), part)
		switch pct {
		case "text/plain":
			p.Text = body
		case "text/html":
			p.HTML = body
		}
	}
	return p
}

// decodedHeader returns a header with RFC 2047 words decoded.
func (p parsedMail) decodedHeader(tb testing.TB, name string) string {
	tb.Helper()
	v, err := new(mime.WordDecoder).DecodeHeader(p.Header.Get(name))
	if err != nil {
		tb.Fatalf("decode %s: %v", name, err)
	}
	return v
}

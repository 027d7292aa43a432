package inbound

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/datamonsters/turns/refusal"
	smtp "github.com/emersion/go-smtp"
)

// DefaultMaxBytes is the largest inbound message taken by default (a
// reply with its quoted HTML original is a few tens of KiB).
const DefaultMaxBytes = 1 << 20

// SMTPConfig configures the inbound SMTP server.
type SMTPConfig struct {
	Addr     string      // listen address, e.g. ":2525"
	Domain   string      // the name the server greets with
	TLS      *tls.Config // non-nil: STARTTLS is offered
	MaxBytes int64       // the largest message taken (0: DefaultMaxBytes)
	// Timeout bounds each read and write of a session (0: 1 minute), and
	// the handling of one message.
	Timeout time.Duration
	Logger  *slog.Logger
}

// SMTPServer is the inbound SMTP server: the MX of the reply domain, or
// the target a mail provider forwards to. It refuses at RCPT TO every
// recipient that is not a reply address this service signed, and at DATA
// a message over the size limit, and hands each message it takes to the
// Service; a message is accepted (250) once it was handled and its answer
// written to the outbox, so that a failure makes the sender deliver it
// again.
type SMTPServer struct {
	srv *smtp.Server
	in  *Service
	log *slog.Logger
	cfg SMTPConfig
}

// NewSMTPServer returns the server of in (not listening yet).
func NewSMTPServer(in *Service, cfg SMTPConfig) *SMTPServer {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &SMTPServer{in: in, log: cfg.Logger, cfg: cfg}
	srv := smtp.NewServer(s)
	srv.Addr = cfg.Addr
	srv.Domain = cfg.Domain
	if srv.Domain == "" {
		srv.Domain = "localhost"
	}
	srv.ReadTimeout, srv.WriteTimeout = cfg.Timeout, cfg.Timeout
	srv.MaxMessageBytes = cfg.MaxBytes
	srv.MaxRecipients = 10
	srv.MaxLineLength = 4000
	srv.TLSConfig = cfg.TLS
	srv.ErrorLog = errorLog{cfg.Logger}
	s.srv = srv
	return s
}

// Serve takes connections on ln until Close.
func (s *SMTPServer) Serve(ln net.Listener) error { return s.srv.Serve(ln) }

// ListenAndServe listens on the configured address and serves.
func (s *SMTPServer) ListenAndServe() error { return s.srv.ListenAndServe() }

// Close stops the server and its sessions.
func (s *SMTPServer) Close() error { return s.srv.Close() }

// Shutdown stops taking connections and waits for the sessions to end,
// until ctx ends.
func (s *SMTPServer) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// NewSession implements smtp.Backend.
func (s *SMTPServer) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{s: s}, nil
}

type session struct {
	s        *SMTPServer
	from     string
	hasFrom  bool
	rcpts    []string
	received time.Time
}

func (ss *session) Reset() { ss.from, ss.hasFrom, ss.rcpts = "", false, nil }

func (ss *session) Logout() error { return nil }

func (ss *session) Mail(from string, opts *smtp.MailOptions) error {
	if opts != nil && opts.Size > ss.s.cfg.MaxBytes {
		return &smtp.SMTPError{Code: 552, EnhancedCode: smtp.EnhancedCode{5, 3, 4}, Message: "message too big"}
	}
	ss.from, ss.hasFrom = from, true
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if err := ss.s.in.CheckRecipient(to); err != nil {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such reply address: " + err.Error()}
	}
	ss.rcpts = append(ss.rcpts, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if errors.Is(err, smtp.ErrDataTooLarge) {
		return &smtp.SMTPError{Code: 552, EnhancedCode: smtp.EnhancedCode{5, 3, 4}, Message: "message too big"}
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), ss.s.cfg.Timeout)
	defer cancel()
	res, err := ss.s.in.Receive(ctx, Envelope{MailFrom: ss.from, HasReturnPath: ss.hasFrom, Rcpt: ss.rcpts, Raw: raw})
	if err != nil {
		text, _ := RefusalAnswer(err, 0, "")
		if refusal.KindOf(err) == refusal.RateLimited {
			return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 7, 1}, Message: text}
		}
		ss.s.log.Error("inbound: message not handled", "error", err)
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: text}
	}
	ss.s.log.Debug("inbound: message handled", "outcome", res.Outcome, "game", res.GameID)
	return nil
}

// errorLog passes go-smtp's own messages to the logger: a panic it
// recovered from (it answers the client 421 and goes on) as an error, the
// rest (connections dropped, bad commands) at debug level.
type errorLog struct{ l *slog.Logger }

func (e errorLog) Printf(format string, v ...any) { e.log(fmt.Sprintf(format, v...)) }
func (e errorLog) Println(v ...any)               { e.log(fmt.Sprint(v...)) }

func (e errorLog) log(msg string) {
	level := slog.LevelDebug
	if strings.HasPrefix(msg, "panic serving") {
		level = slog.LevelError
	}
	e.l.Log(context.Background(), level, "inbound smtp", "msg", msg)
}

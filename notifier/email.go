package notifier

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/datamonsters/turns/internal/redact"
	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// Address is a recipient: a display name (may be empty, may be hostile: it
// is cleaned before use) and an email address (must parse as a bare
// RFC 5322 addr-spec).
type Address struct {
	Name  string
	Email string
}

// Message is one email to one recipient. Message IDs are given without
// angle brackets ("game-42.ev-17.u-3@example.com"). Strings that end up in
// headers (To.Name, Subject) are cleaned of CR, LF and other control
// characters and then encoded, so they can never add a header line.
type Message struct {
	To      Address
	Subject string // one line; "" is allowed but unkind
	Text    string // text/plain body; required
	HTML    string // text/html alternative; "" sends text only

	// MessageID must be stable for one (event, recipient, channel) so a
	// resend after a crash carries the same id. See DeliveryMessageID.
	MessageID string
	// InReplyTo and References thread the message; see ThreadHeaders.
	InReplyTo  string
	References []string

	// UnsubscribeURL is the one-click unsubscribe endpoint for this
	// recipient (RFC 8058). "" omits List-Unsubscribe. An https URL gets
	// List-Unsubscribe-Post: List-Unsubscribe=One-Click; so does an http URL
	// (for local development), although mailbox providers honour one-click
	// only over https.
	UnsubscribeURL string

	// Date is the Date header; the zero value means the sender's clock.
	Date time.Time

	// ReplyTo is the Reply-To address (a bare addr-spec), "" for none: the
	// reply address of a decision email (see Reply).
	ReplyTo string
}

// Sender delivers messages. Send returns nil only once the message has been
// accepted (by the SMTP server, or written to disk). Close releases open
// connections at shutdown. Implementations are safe for concurrent use.
type Sender interface {
	Send(ctx context.Context, m Message) error
	Close() error
}

// ErrInvalidMessage is wrapped by Send for a message that can never be sent
// (bad address, bad Message-ID, empty body); retrying will not help.
var ErrInvalidMessage = errors.New("notifier: invalid message")

// NewSender returns the sender the configuration asks for: an SMTPSender
// when cfg.Host is set, otherwise a FolderSender writing into cfg.MailDir.
// logger may be nil (slog.Default is used).
func NewSender(cfg EmailConfig, logger *slog.Logger) (Sender, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if cfg.Host == "" {
		logger.Info("email: no SMTP_HOST set; writing messages to a folder", "dir", cfg.MailDir)
		return NewFolderSender(cfg, logger)
	}
	return NewSMTPSender(cfg, logger)
}

// ThreadID returns the root id of a game's email thread,
// "game-<gameID>@<domain>". Every message about a game refers to it, so
// mail clients that thread by References (Thunderbird, Apple Mail, Outlook)
// show one thread per game. Gmail also requires the subjects to match.
func ThreadID(gameID, domain string) string {
	return "game-" + idPart(gameID) + "@" + idDomain(domain)
}

// ThreadHeaders returns In-Reply-To and References values that put a
// message into the game's thread.
func ThreadHeaders(gameID, domain string) (inReplyTo string, references []string) {
	root := ThreadID(gameID, domain)
	return root, []string{root}
}

// DeliveryMessageID returns a stable Message-ID for one delivery,
// "game-<gameID>.<key>@<domain>". key identifies the delivery (for example
// "ev-17.u-3" for event 17 to user 3, or the outbox job's unique key); the
// same inputs always give the same id. Characters outside [A-Za-z0-9._-]
// become '-'. An empty gameID gives "dm.<key>@<domain>" (mail not about a
// game, such as the daily digest).
func DeliveryMessageID(gameID, key, domain string) string {
	if gameID == "" {
		return "dm." + idPart(key) + "@" + idDomain(domain)
	}
	return "game-" + idPart(gameID) + "." + idPart(key) + "@" + idDomain(domain)
}

// idPart maps s to a dot-atom-safe string.
func idPart(s string) string {
	if s == "" {
		return "x"
	}
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	return strings.Trim(string(b), ".")
}

func idDomain(d string) string {
	d = strings.ToLower(idPart(d))
	if d == "" || d == "x" {
		return "localhost"
	}
	return d
}

// msgIDRe matches an id-left "@" id-right made of dot-atom text, the only
// form this package emits or accepts.
var msgIDRe = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9.-]+$")

// CleanHeaderText returns s fit for a header: every CR, LF, other control
// character, Unicode line/paragraph separator and invalid UTF-8 byte is
// replaced by a space, runs of spaces are collapsed, the result is trimmed
// and cut to max runes (max <= 0: no limit). Use it on anything a user typed
// (names, game titles) before it goes into a header.
func CleanHeaderText(s string, max int) string {
	var b strings.Builder
	space := false
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size == 1 || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if max > 0 && n >= max {
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
			if max > 0 && n >= max {
				break
			}
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}

// Header length caps (runes) applied by CleanHeaderText in buildMsg.
const (
	maxNameRunes    = 80
	maxSubjectRunes = 200
)

// buildMsg turns m into a go-mail message from the given sender.
func buildMsg(from mail.Address, m Message, now time.Time) (*gomail.Msg, error) {
	if m.Text == "" {
		return nil, fmt.Errorf("%w: empty text body", ErrInvalidMessage)
	}
	to, err := mail.ParseAddress(strings.TrimSpace(m.To.Email))
	if err != nil || to.Name != "" || strings.ContainsAny(m.To.Email, "\r\n<>,;") {
		return nil, fmt.Errorf("%w: recipient address %q", ErrInvalidMessage, m.To.Email)
	}
	for _, id := range append([]string{m.MessageID, m.InReplyTo}, m.References...) {
		if id != "" && !msgIDRe.MatchString(id) {
			return nil, fmt.Errorf("%w: message id %q", ErrInvalidMessage, id)
		}
	}
	if m.MessageID == "" {
		return nil, fmt.Errorf("%w: no Message-ID", ErrInvalidMessage)
	}

	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	from.Name = CleanHeaderText(from.Name, maxNameRunes)
	msg.FromMailAddress(&from)
	msg.ToMailAddress(&mail.Address{Name: CleanHeaderText(m.To.Name, maxNameRunes), Address: to.Address})
	msg.Subject(CleanHeaderText(m.Subject, maxSubjectRunes))
	if m.ReplyTo != "" {
		rt, err := mail.ParseAddress(m.ReplyTo)
		if err != nil || rt.Name != "" || strings.ContainsAny(m.ReplyTo, "\r\n<>,;") {
			return nil, fmt.Errorf("%w: reply-to address %q", ErrInvalidMessage, m.ReplyTo)
		}
		msg.ReplyToMailAddress(rt)
	}
	if m.Date.IsZero() {
		m.Date = now
	}
	msg.SetDateWithValue(m.Date)
	msg.SetMessageIDWithValue(m.MessageID)
	if m.InReplyTo != "" {
		msg.SetGenHeader(gomail.HeaderInReplyTo, "<"+m.InReplyTo+">")
	}
	if len(m.References) > 0 {
		refs := make([]string, len(m.References))
		for i, r := range m.References {
			refs[i] = "<" + r + ">"
		}
		// One value: References separates ids by spaces, not commas.
		msg.SetGenHeader(gomail.HeaderReferences, strings.Join(refs, " "))
	}
	if m.UnsubscribeURL != "" {
		u, err := url.Parse(m.UnsubscribeURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
			strings.ContainsAny(m.UnsubscribeURL, "\r\n<> \t") {
			return nil, fmt.Errorf("%w: unsubscribe URL %q", ErrInvalidMessage, m.UnsubscribeURL)
		}
		if u.Scheme == "https" {
			if err := msg.SetListUnsubscribeOneClick(u.String()); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrInvalidMessage, err)
			}
		} else {
			msg.SetListUnsubscribe(u.String())
			msg.SetListUnsubscribePost()
		}
	}
	// RFC 3834: tell auto-responders (vacation replies) not to answer.
	msg.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")
	msg.SetGenHeader(gomail.Header("X-Auto-Response-Suppress"), "All")

	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

// SMTPSender sends messages over SMTP (connect, EHLO, STARTTLS or implicit
// TLS, AUTH, then MAIL, RCPT, DATA, RSET per message). It keeps up to
// MaxIdleConns connections open between sends, each reused only while it
// has been idle less than IdleTimeout; a pooled connection the server has
// meanwhile closed is detected by a NOOP before anything is sent, and the
// message goes over a fresh connection. It is safe for concurrent use; run
// several workers for throughput.
type SMTPSender struct {
	client      *gomail.Client
	from        mail.Address
	log         *slog.Logger
	now         func() time.Time
	timeout     time.Duration
	maxIdle     int
	idleTimeout time.Duration

	mu   sync.Mutex
	idle []idleConn // most recently used last
}

type idleConn struct {
	c     *smtp.Client
	since time.Time
}

// NewSMTPSender returns a sender for cfg.Host. It does not connect; the
// first Send does. logger may be nil.
func NewSMTPSender(cfg EmailConfig, logger *slog.Logger) (*SMTPSender, error) {
	if cfg.Host == "" {
		return nil, errNoHost
	}
	if logger == nil {
		logger = slog.Default()
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	opts := []gomail.Option{
		gomail.WithPort(cfg.port()),
		gomail.WithTimeout(timeout),
		gomail.WithHELO(cfg.Domain()),
	}
	switch cfg.TLS {
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	case TLSStartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case TLSImplicit:
		opts = append(opts, gomail.WithSSL())
	default:
		return nil, fmt.Errorf("notifier: unknown TLS mode %v", cfg.TLS)
	}
	if cfg.TLSConfig != nil {
		opts = append(opts, gomail.WithTLSConfig(cfg.TLSConfig))
	}
	if cfg.Username != "" {
		opts = append(opts,
			gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(cfg.Username),
			gomail.WithPassword(cfg.Password))
	}
	c, err := gomail.NewClient(cfg.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("notifier: smtp client: %w", err)
	}
	maxIdle := cfg.MaxIdleConns
	if maxIdle == 0 {
		maxIdle = DefaultMaxIdleConns
	}
	idleTimeout := cfg.IdleTimeout
	if idleTimeout <= 0 {
		idleTimeout = DefaultIdleTimeout
	}
	return &SMTPSender{client: c, from: cfg.From, log: logger, now: time.Now, timeout: timeout,
		maxIdle: max(maxIdle, 0), idleTimeout: idleTimeout}, nil
}

// SetClock replaces the clock used for Date headers (tests).
func (s *SMTPSender) SetClock(now func() time.Time) { s.now = now }

// Send delivers m. It returns nil once the server accepted the message
// (250 after DATA). Use IsPermanent on the error to decide whether to retry.
func (s *SMTPSender) Send(ctx context.Context, m Message) error {
	msg, err := buildMsg(s.from, m, s.now())
	if err != nil {
		return err
	}
	if sc := s.takeIdle(); sc != nil {
		err := s.sendOn(sc, msg)
		if err == nil {
			return nil
		}
		if !connCheckFailed(err) {
			return fmt.Errorf("notifier: smtp send %s: %w", m.MessageID, err)
		}
		// The pooled connection was dead; nothing was sent. Start afresh.
		if msg, err = buildMsg(s.from, m, s.now()); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	sc, err := s.client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return fmt.Errorf("notifier: smtp connect: %w", err)
	}
	if err := s.sendOn(sc, msg); err != nil {
		return fmt.Errorf("notifier: smtp send %s: %w", m.MessageID, err)
	}
	s.log.Debug("email sent", "message_id", m.MessageID, "to", redact.Email(m.To.Email))
	return nil
}

// sendOn sends msg on sc, then pools sc on success and closes it on error.
func (s *SMTPSender) sendOn(sc *smtp.Client, msg *gomail.Msg) error {
	if err := sc.UpdateDeadline(s.timeout); err != nil {
		s.closeConn(sc)
		return &gomail.SendError{Reason: gomail.ErrConnCheck}
	}
	if err := s.client.SendWithSMTPClient(sc, msg); err != nil {
		s.closeConn(sc)
		if msg.IsDelivered() {
			// The server accepted it (250 after DATA); only the RSET that
			// readies the connection for the next message failed. A retry
			// would send it twice.
			return nil
		}
		return err
	}
	s.putIdle(sc)
	return nil
}

func connCheckFailed(err error) bool {
	var se *gomail.SendError
	return errors.As(err, &se) && se.Reason == gomail.ErrConnCheck
}

// takeIdle returns the most recently used pooled connection that is not
// older than the idle timeout, closing the stale ones, or nil.
func (s *SMTPSender) takeIdle() *smtp.Client {
	var stale []*smtp.Client
	var got *smtp.Client
	s.mu.Lock()
	cutoff := time.Now().Add(-s.idleTimeout)
	for len(s.idle) > 0 {
		ic := s.idle[len(s.idle)-1]
		s.idle = s.idle[:len(s.idle)-1]
		if ic.since.After(cutoff) {
			got = ic.c
			break
		}
		stale = append(stale, ic.c)
	}
	// Older entries sit at the front; drop those past the cutoff too.
	for len(s.idle) > 0 && !s.idle[0].since.After(cutoff) {
		stale = append(stale, s.idle[0].c)
		s.idle = s.idle[1:]
	}
	s.mu.Unlock()
	for _, c := range stale {
		s.closeConn(c)
	}
	return got
}

func (s *SMTPSender) putIdle(sc *smtp.Client) {
	s.mu.Lock()
	if len(s.idle) < s.maxIdle {
		s.idle = append(s.idle, idleConn{sc, time.Now()})
		sc = nil
	}
	s.mu.Unlock()
	if sc != nil {
		s.closeConn(sc)
	}
}

// closeConn says QUIT (briefly) and closes the connection.
func (s *SMTPSender) closeConn(sc *smtp.Client) {
	_ = sc.UpdateDeadline(2 * time.Second)
	_ = s.client.CloseWithSMTPClient(sc)
}

// Close closes the pooled connections. The sender stays usable; later
// sends connect again.
func (s *SMTPSender) Close() error {
	s.mu.Lock()
	idle := s.idle
	s.idle = nil
	s.mu.Unlock()
	for _, ic := range idle {
		s.closeConn(ic.c)
	}
	return nil
}

// IsPermanent reports whether a Send error will recur on retry, judged by
// the server's reply: a 5xx reply to the message's MAIL, RCPT or DATA, or
// a message that can never be sent (ErrInvalidMessage, or one go-mail
// cannot take the addresses of). Everything else is temporary and worth a
// retry with backoff: 4xx replies, and every failure without a reply (a
// session dropped by EOF or reset, a timeout, a TLS error, a failed dial,
// even a 5xx greeting or AUTH refusal, which concern the server and its
// configuration, not the message). go-mail's own SendError.IsTemp is not
// used: it calls every error whose text does not start with "4" permanent,
// a dropped session among them.
func IsPermanent(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrInvalidMessage) {
		return true
	}
	var se *gomail.SendError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Reason {
	case gomail.ErrGetSender, gomail.ErrGetRcpts, gomail.ErrNoUnencoded:
		return true
	case gomail.ErrSMTPMailFrom, gomail.ErrSMTPRcptTo, gomail.ErrSMTPData, gomail.ErrSMTPDataClose:
		// ErrorCode is the reply's code, 0 when there was no reply.
		return se.ErrorCode() >= 500 && se.ErrorCode() <= 599
	}
	return false
}

// FolderSender writes each message as "<Message-ID>.eml" into a folder and
// logs it; the default when no SMTP server is configured. Writing the same
// Message-ID again replaces the file, so a redelivery leaves one copy.
type FolderSender struct {
	dir  string
	from mail.Address
	log  *slog.Logger
	now  func() time.Time
}

// NewFolderSender creates cfg.MailDir if needed and returns a sender
// writing into it. logger may be nil.
func NewFolderSender(cfg EmailConfig, logger *slog.Logger) (*FolderSender, error) {
	dir := cfg.MailDir
	if dir == "" {
		dir = DefaultMailDir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("notifier: mail dir: %w", err)
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &FolderSender{dir: dir, from: cfg.From, log: logger, now: time.Now}, nil
}

// SetClock replaces the clock used for Date headers (tests).
func (s *FolderSender) SetClock(now func() time.Time) { s.now = now }

// Close does nothing; a FolderSender holds no connections.
func (s *FolderSender) Close() error { return nil }

// Dir returns the folder messages are written to.
func (s *FolderSender) Dir() string { return s.dir }

// Send writes m to the folder (atomically: a temporary file, then a rename)
// and logs recipient, subject and path at Info level.
func (s *FolderSender) Send(ctx context.Context, m Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	msg, err := buildMsg(s.from, m, s.now())
	if err != nil {
		return err
	}
	path := filepath.Join(s.dir, idPart(m.MessageID)+".eml")
	tmp, err := os.CreateTemp(s.dir, ".tmp-*.eml")
	if err != nil {
		return fmt.Errorf("notifier: write mail: %w", err)
	}
	if _, err := msg.WriteTo(tmp); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("notifier: write mail: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("notifier: write mail: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("notifier: write mail: %w", err)
	}
	s.log.Info("email written to folder", "to", redact.Email(m.To.Email),
		"subject", CleanHeaderText(m.Subject, maxSubjectRunes), "message_id", m.MessageID, "path", path)
	return nil
}

package notifier

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// TLSMode says how the SMTP connection is protected.
type TLSMode int

// TLS modes. The zero value is TLSStartTLS, the usual mode for a submission
// server on port 587.
const (
	TLSStartTLS TLSMode = iota // plain connect, then a mandatory STARTTLS
	TLSImplicit                // TLS from the first byte (port 465, "SMTPS")
	TLSNone                    // no TLS at all: only for a local mail catcher
)

// String returns the word used in SMTP_TLS: "starttls", "implicit" or "none".
func (m TLSMode) String() string {
	switch m {
	case TLSStartTLS:
		return "starttls"
	case TLSImplicit:
		return "implicit"
	case TLSNone:
		return "none"
	}
	return "TLSMode(" + strconv.Itoa(int(m)) + ")"
}

// ParseTLSMode reads an SMTP_TLS value. It accepts "starttls", "implicit"
// (also "tls" and "ssl") and "none" (also "off", "plain"), in any case. The
// empty string is TLSStartTLS.
func ParseTLSMode(s string) (TLSMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "starttls":
		return TLSStartTLS, nil
	case "implicit", "tls", "ssl", "smtps":
		return TLSImplicit, nil
	case "none", "off", "plain":
		return TLSNone, nil
	}
	return 0, fmt.Errorf("notifier: SMTP_TLS %q: want starttls, implicit or none", s)
}

// EmailConfig is the email configuration, loaded once by LoadEmailConfig.
// With an empty Host no SMTP server is used: messages are written as .eml
// files into MailDir instead (see NewSender).
type EmailConfig struct {
	Host     string  // SMTP server host name; "" selects the folder sender
	Port     int     // SMTP port; 0 means the mode's default (587, 465 or 25)
	TLS      TLSMode // how the connection is protected
	Username string  // SMTP AUTH user; "" means no authentication
	Password string  // SMTP AUTH password; never logged
	// From is the sender, e.g. "Data Monsters <turns@example.com>". Its domain
	// is also the right-hand side of every Message-ID.
	From mail.Address
	// BaseURL is the public address of the service (no trailing slash), used
	// for links and one-click unsubscribe URLs, e.g. "https://dm.example.com".
	BaseURL string
	// MailDir is the folder the folder sender writes into (default ./data/mail).
	MailDir string
	// Timeout bounds connecting and each SMTP command (default 15 s).
	Timeout time.Duration
	// MaxIdleConns is how many SMTP connections are kept open between sends
	// (default DefaultMaxIdleConns; negative: none, a connection per message).
	MaxIdleConns int
	// IdleTimeout is how long an idle connection may be reused (default
	// DefaultIdleTimeout); keep it below the server's idle limit.
	IdleTimeout time.Duration
	// TLSConfig, if set, replaces the default TLS settings (system roots,
	// ServerName = Host). It is not read from the environment; tests use it to
	// trust a self-signed certificate.
	TLSConfig *tls.Config
}

// Environment variable names read by LoadEmailConfig.
const (
	EnvSMTPHost     = "SMTP_HOST"
	EnvSMTPPort     = "SMTP_PORT"
	EnvSMTPTLS      = "SMTP_TLS"
	EnvSMTPUsername = "SMTP_USERNAME"
	EnvSMTPPassword = "SMTP_PASSWORD"
	EnvSMTPFrom     = "SMTP_FROM"
	EnvBaseURL      = "BASE_URL"
	EnvMailDir      = "MAIL_DIR"
)

// Defaults used by LoadEmailConfig for unset variables.
const (
	DefaultFrom    = "Data Monsters <no-reply@localhost>"
	DefaultBaseURL = "http://localhost:8080"
	DefaultMailDir = "./data/mail"
	DefaultTimeout = 15 * time.Second

	DefaultMaxIdleConns = 4
	DefaultIdleTimeout  = 30 * time.Second
)

// LoadEmailConfig reads the email configuration from the environment through
// getenv (pass os.Getenv; tests pass a map lookup). Unset variables take the
// defaults above; SMTP_PORT defaults to the TLS mode's usual port, and
// SMTP_TLS to starttls, or implicit when SMTP_PORT is 465. It
// returns an error naming the variable for a malformed port, TLS mode, From
// address or base URL.
func LoadEmailConfig(getenv func(string) string) (EmailConfig, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	cfg := EmailConfig{
		Host:     get(EnvSMTPHost),
		Username: get(EnvSMTPUsername),
		Password: getenv(EnvSMTPPassword), // passwords may have edge spaces
		BaseURL:  strings.TrimRight(get(EnvBaseURL), "/"),
		MailDir:  get(EnvMailDir),
		Timeout:  DefaultTimeout,
	}
	var err error
	if cfg.TLS, err = ParseTLSMode(get(EnvSMTPTLS)); err != nil {
		return EmailConfig{}, err
	}
	if p := get(EnvSMTPPort); p != "" {
		cfg.Port, err = strconv.Atoi(p)
		if err != nil || cfg.Port < 1 || cfg.Port > 65535 {
			return EmailConfig{}, fmt.Errorf("notifier: %s %q: want a port number 1-65535", EnvSMTPPort, p)
		}
	}
	from := get(EnvSMTPFrom)
	if from == "" {
		from = DefaultFrom
	}
	addr, err := mail.ParseAddress(from)
	if err != nil {
		return EmailConfig{}, fmt.Errorf("notifier: %s %q: %w", EnvSMTPFrom, from, err)
	}
	cfg.From = *addr
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if u, err := url.Parse(cfg.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return EmailConfig{}, fmt.Errorf("notifier: %s %q: want an absolute http(s) URL", EnvBaseURL, cfg.BaseURL)
	}
	if cfg.MailDir == "" {
		cfg.MailDir = DefaultMailDir
	}
	if get(EnvSMTPTLS) == "" && cfg.Port == 465 {
		cfg.TLS = TLSImplicit // port 465 speaks TLS from the first byte
	}
	return cfg, nil
}

// port returns the configured port or the TLS mode's default.
func (c EmailConfig) port() int {
	if c.Port != 0 {
		return c.Port
	}
	switch c.TLS {
	case TLSImplicit:
		return 465
	case TLSNone:
		return 25
	}
	return 587
}

// Domain returns the domain of the From address (the right-hand side of
// Message-IDs), or "localhost" when it has none.
func (c EmailConfig) Domain() string {
	if i := strings.LastIndexByte(c.From.Address, '@'); i >= 0 && i+1 < len(c.From.Address) {
		return strings.ToLower(c.From.Address[i+1:])
	}
	return "localhost"
}

var errNoHost = errors.New("notifier: no SMTP host configured")

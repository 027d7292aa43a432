package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/notifier"
)

// Config is the whole configuration of the service, read once from the
// environment by loadConfig: every variable the service reads is read
// there (docs/configuration.md's table is checked against it). The zero
// value is not usable; see loadConfig for the defaults.
type Config struct {
	DatabaseURL  string        // DATABASE_URL; empty selects the embedded SQLite file in DataDir
	Addr         string        // ADDR; listen address, default ":8080"
	DataDir      string        // DATA_DIR; default "./data": SQLite file and generated JWT secret
	JWTSecret    []byte        // JWT_SECRET; empty: generated once and kept in DataDir/jwt.secret
	JWTIssuer    string        // JWT_ISSUER; default "datamonsters"
	JWTAudience  string        // JWT_AUDIENCE; default "datamonsters-api"
	AccessTTL    time.Duration // ACCESS_TOKEN_TTL; default 15m
	RefreshTTL   time.Duration // REFRESH_TOKEN_TTL; default 720h (30 days)
	BaseURL      string        // BASE_URL; public address of the service, default http:// and the ADDR it listens on (see defaultBaseURL)
	LogLevel     slog.Level    // LOG_LEVEL; debug, info (default), warn or error
	MaxBodyBytes int64         // MAX_BODY_BYTES; request body limit, default 1 MiB
	// GOGCSet and GoMemLimitSet say whether Go's own GOGC and GOMEMLIMIT
	// are set: the runtime applies them, and the service's pace
	// (gcpace.Apply) only where they are not.
	GOGCSet, GoMemLimitSet bool
	// TrustedProxies is TRUSTED_PROXIES, comma-separated IPs or CIDRs of
	// reverse proxies whose X-Forwarded-For is believed; empty: none.
	TrustedProxies []string
	// CORSOrigins is CORS_ORIGINS, comma-separated origins whose browser
	// pages may call the API ("*": any, without credentials); empty: CORS
	// is off.
	CORSOrigins []string
	// JobTimeout is JOB_TIMEOUT, default 30s: the time limit of one
	// notification job. The jobs a killed process left running are worked
	// again four job timeouts later.
	JobTimeout time.Duration
	// Email is SMTP_HOST, SMTP_PORT, SMTP_TLS, SMTP_USERNAME, SMTP_PASSWORD,
	// SMTP_FROM and MAIL_DIR (default DataDir/mail), with BaseURL for links.
	Email notifier.EmailConfig
	// Webhook is WEBHOOK_ALLOW_PRIVATE and WEBHOOK_TIMEOUT.
	Webhook notifier.WebhookOptions
	// Inbound is INBOUND_SMTP_ADDR, INBOUND_TLS_CERT, INBOUND_TLS_KEY,
	// INBOUND_SECRET, INBOUND_MAX_BYTES and REPLY_DOMAIN: how replies to
	// decision emails come in.
	Inbound inboundConfig
	// Push is VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT (see
	// loadPushConfig): the keys are generated once into DataDir/vapid.key
	// when both are unset.
	Push notifier.PushConfig
}

// loadConfig reads the configuration through getenv (os.Getenv in main, a map
// in tests). It creates DataDir when it needs it (for the SQLite file or the
// generated JWT secret) and fails with an error that names the folder and
// what to do when this process cannot write there.
func loadConfig(getenv func(string) string) (Config, error) {
	get := func(key, def string) string {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			return v
		}
		return def
	}
	cfg := Config{
		DatabaseURL: get("DATABASE_URL", ""),
		Addr:        get("ADDR", ":8080"),
		DataDir:     get("DATA_DIR", "./data"),
		JWTIssuer:   get("JWT_ISSUER", "datamonsters"),
		JWTAudience: get("JWT_AUDIENCE", "datamonsters-api"),
	}
	cfg.BaseURL = strings.TrimRight(get("BASE_URL", defaultBaseURL(cfg.Addr)), "/")
	var err error
	if cfg.AccessTTL, err = time.ParseDuration(get("ACCESS_TOKEN_TTL", "15m")); err != nil || cfg.AccessTTL <= 0 {
		return Config{}, fmt.Errorf("ACCESS_TOKEN_TTL: want a positive duration such as 15m, got %q", getenv("ACCESS_TOKEN_TTL"))
	}
	if cfg.RefreshTTL, err = time.ParseDuration(get("REFRESH_TOKEN_TTL", "720h")); err != nil || cfg.RefreshTTL <= 0 {
		return Config{}, fmt.Errorf("REFRESH_TOKEN_TTL: want a positive duration such as 720h, got %q", getenv("REFRESH_TOKEN_TTL"))
	}
	if cfg.JobTimeout, err = time.ParseDuration(get("JOB_TIMEOUT", "30s")); err != nil || cfg.JobTimeout <= 0 {
		return Config{}, fmt.Errorf("JOB_TIMEOUT: want a positive duration such as 30s, got %q", getenv("JOB_TIMEOUT"))
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(get("LOG_LEVEL", "info"))); err != nil {
		return Config{}, fmt.Errorf("LOG_LEVEL: %w", err)
	}
	if _, err := fmt.Sscan(get("MAX_BODY_BYTES", "1048576"), &cfg.MaxBodyBytes); err != nil || cfg.MaxBodyBytes <= 0 {
		return Config{}, fmt.Errorf("MAX_BODY_BYTES: want a positive number of bytes, got %q", getenv("MAX_BODY_BYTES"))
	}
	cfg.GOGCSet, cfg.GoMemLimitSet = getenv("GOGC") != "", getenv("GOMEMLIMIT") != ""
	for _, p := range strings.Split(getenv("TRUSTED_PROXIES"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			cfg.TrustedProxies = append(cfg.TrustedProxies, p)
		}
	}
	if cfg.CORSOrigins, err = router.ParseCORSOrigins(getenv("CORS_ORIGINS")); err != nil {
		return Config{}, err
	}
	if cfg.Email, err = notifier.LoadEmailConfig(func(k string) string {
		switch k {
		case notifier.EnvBaseURL:
			return cfg.BaseURL
		case notifier.EnvMailDir:
			return get(k, filepath.Join(cfg.DataDir, "mail"))
		}
		return getenv(k)
	}); err != nil {
		return Config{}, err
	}
	if cfg.Webhook, err = notifier.LoadWebhookOptions(getenv); err != nil {
		return Config{}, err
	}
	if cfg.Inbound, err = loadInboundConfig(getenv, cfg.Email); err != nil {
		return Config{}, err
	}
	secret := getenv("JWT_SECRET")
	if cfg.DatabaseURL == "" || secret == "" || !vapidSet(getenv) {
		if err := writableDir("DATA_DIR", cfg.DataDir); err != nil {
			return Config{}, err
		}
	}
	if s := secret; s != "" {
		if len(s) < 32 {
			return Config{}, errors.New("JWT_SECRET: want at least 32 characters")
		}
		cfg.JWTSecret = []byte(s)
	} else if cfg.JWTSecret, err = persistedSecret(filepath.Join(cfg.DataDir, "jwt.secret")); err != nil {
		return Config{}, fmt.Errorf("JWT secret: %w", err)
	}
	if cfg.Push, err = loadPushConfig(getenv, cfg.DataDir, cfg.Email.From.Address); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// defaultBaseURL is the BASE_URL for a server listening on addr: http://
// and addr, with localhost for an empty or unspecified host (":8080",
// "0.0.0.0:8080", "[::]:8080"). An addr it cannot split gives
// http://localhost:8080.
func defaultBaseURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "http://localhost:8080"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// writableDir creates dir (mode 0700) if needed and checks that this
// process can create files in it. Its error names the variable, the folder,
// the user this process runs as and what to do, instead of the bare
// "permission denied" of the first write that would fail later.
func writableDir(name, dir string) error {
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		var f *os.File
		if f, err = os.CreateTemp(dir, ".write-check-*"); err == nil {
			f.Close()
			return os.Remove(f.Name())
		}
	}
	abs, aerr := filepath.Abs(dir)
	if aerr != nil {
		abs = dir
	}
	uid := os.Getuid()
	return fmt.Errorf("%s %s is not writable by this process (uid %d): %w\n"+
		"Make the folder writable by uid %d (for example: chown -R %d %s), or set %s to a folder it can write",
		name, abs, uid, err, uid, uid, abs, name)
}

// persistedSecret returns the secret stored in path, creating the file with
// a new random secret (mode 0600) when it does not exist, so that tokens stay
// valid across restarts without any configuration.
func persistedSecret(path string) ([]byte, error) {
	s, err := persisted(path, func() (string, error) {
		var raw [32]byte
		if _, err := rand.Read(raw[:]); err != nil {
			return "", err
		}
		return hex.EncodeToString(raw[:]), nil
	}, func(s string) error {
		if len(s) < 32 {
			return errors.New("secret shorter than 32 characters")
		}
		return nil
	})
	return []byte(s), err
}

// persisted returns the line stored in path, which check accepts, creating
// the file (mode 0600) with a new value from generate when it does not
// exist.
func persisted(path string, generate func() (string, error), check func(string) error) (string, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		s := strings.TrimSpace(string(data))
		if err := check(s); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		return s, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	s, err := generate()
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return persisted(path, generate, check) // another process won the race
	}
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(s + "\n"); err != nil {
		f.Close()
		return "", err
	}
	return s, f.Close()
}

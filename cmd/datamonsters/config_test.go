package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadConfigDefaults(t *testing.T) {
	dir := t.TempDir()
	cfg, err := loadConfig(env(map[string]string{"DATA_DIR": dir}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":8080" || cfg.DatabaseURL != "" || cfg.AccessTTL != 15*time.Minute ||
		cfg.LogLevel != slog.LevelInfo || cfg.JWTIssuer != "datamonsters" || cfg.MaxBodyBytes != 1<<20 ||
		cfg.JobTimeout != 30*time.Second {
		t.Fatalf("defaults: %+v", cfg)
	}
	if len(cfg.JWTSecret) != 64 {
		t.Fatalf("generated secret has %d characters", len(cfg.JWTSecret))
	}
	st, err := os.Stat(filepath.Join(dir, "jwt.secret"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", st, err)
	}
	again, err := loadConfig(env(map[string]string{"DATA_DIR": dir}))
	if err != nil || !bytes.Equal(again.JWTSecret, cfg.JWTSecret) {
		t.Fatalf("secret not kept across starts: %v", err)
	}
}

func TestLoadConfigValues(t *testing.T) {
	dir := t.TempDir()
	cfg, err := loadConfig(env(map[string]string{
		"DATA_DIR": dir, "ADDR": "127.0.0.1:9000", "JWT_SECRET": "0123456789abcdef0123456789abcdef",
		"LOG_LEVEL": "debug", "ACCESS_TOKEN_TTL": "1m", "BASE_URL": "https://dm.example/", "JOB_TIMEOUT": "2s",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:9000" || string(cfg.JWTSecret) != "0123456789abcdef0123456789abcdef" ||
		cfg.LogLevel != slog.LevelDebug || cfg.AccessTTL != time.Minute || cfg.BaseURL != "https://dm.example" ||
		cfg.JobTimeout != 2*time.Second {
		t.Fatalf("%+v", cfg)
	}
	if _, err := os.Stat(filepath.Join(dir, "jwt.secret")); !os.IsNotExist(err) {
		t.Fatal("secret file written although JWT_SECRET was set")
	}
}

func TestLoadConfigErrors(t *testing.T) {
	for _, bad := range []map[string]string{
		{"JWT_SECRET": "short"},
		{"LOG_LEVEL": "loud"},
		{"ACCESS_TOKEN_TTL": "soon"},
		{"REFRESH_TOKEN_TTL": "-1h"},
		{"MAX_BODY_BYTES": "0"},
		{"JOB_TIMEOUT": "0s"},
	} {
		bad["DATA_DIR"] = t.TempDir()
		if _, err := loadConfig(env(bad)); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestLoadConfigCORSOrigins(t *testing.T) {
	get := func(v string) ([]string, error) {
		cfg, err := loadConfig(env(map[string]string{"DATA_DIR": t.TempDir(), "CORS_ORIGINS": v}))
		return cfg.CORSOrigins, err
	}
	if o, err := get(""); err != nil || o != nil {
		t.Fatalf("unset: %v %v", o, err)
	}
	if o, err := get(" https://Play.example.org, http://localhost:3000/ ,,"); err != nil ||
		!slices.Equal(o, []string{"https://play.example.org", "http://localhost:3000"}) {
		t.Fatalf("two origins: %q %v", o, err)
	}
	if o, err := get("*"); err != nil || !slices.Equal(o, []string{"*"}) {
		t.Fatalf("any: %q %v", o, err)
	}
	for _, bad := range []string{"play.example.org", "ftp://x.example", "https://x.example/app", "https://x.example?a=1", "https://u@x.example", "https://"} {
		if _, err := get(bad); err == nil || !strings.Contains(err.Error(), "CORS_ORIGINS") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestDefaultBaseURLFollowsAddr(t *testing.T) {
	for addr, want := range map[string]string{
		":8080":          "http://localhost:8080",
		"0.0.0.0:9000":   "http://localhost:9000",
		"[::]:9000":      "http://localhost:9000",
		"127.0.0.1:9001": "http://127.0.0.1:9001",
		"[::1]:9002":     "http://[::1]:9002",
		"dm.local:80":    "http://dm.local:80",
		"nonsense":       "http://localhost:8080",
	} {
		if got := defaultBaseURL(addr); got != want {
			t.Errorf("defaultBaseURL(%q) = %q, want %q", addr, got, want)
		}
	}
	dir := t.TempDir()
	cfg, err := loadConfig(env(map[string]string{"DATA_DIR": dir, "ADDR": "127.0.0.1:9123"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseURL != "http://127.0.0.1:9123" || cfg.Email.BaseURL != cfg.BaseURL {
		t.Fatalf("BASE_URL for ADDR 127.0.0.1:9123: %q, emails %q", cfg.BaseURL, cfg.Email.BaseURL)
	}
	if cfg.Email.MailDir != filepath.Join(dir, "mail") {
		t.Fatalf("MAIL_DIR %q, want DATA_DIR/mail", cfg.Email.MailDir)
	}
	cfg, err = loadConfig(env(map[string]string{"DATA_DIR": dir, "BASE_URL": "https://dm.example/", "MAIL_DIR": "/var/mail/dm",
		"SMTP_HOST": "smtp.example", "SMTP_PORT": "465", "WEBHOOK_ALLOW_PRIVATE": "true"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Email.BaseURL != "https://dm.example" || cfg.Email.MailDir != "/var/mail/dm" || cfg.Email.Host != "smtp.example" ||
		cfg.Email.Port != 465 || !cfg.Webhook.AllowPrivate {
		t.Fatalf("%+v %+v", cfg.Email, cfg.Webhook)
	}
	for _, bad := range []map[string]string{{"SMTP_TLS": "maybe"}, {"WEBHOOK_TIMEOUT": "forever"}, {"BASE_URL": "dm.example"}} {
		bad["DATA_DIR"] = dir
		if _, err := loadConfig(env(bad)); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

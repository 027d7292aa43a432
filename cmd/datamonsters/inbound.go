package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/api"
	"github.com/datamonsters/turns/inbound"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
)

// inboundConfig is how replies to decision emails come in, read from the
// environment by loadInboundConfig. With neither SMTPAddr nor Secret set,
// emails carry no reply address and say that replies are not read.
type inboundConfig struct {
	SMTPAddr string // INBOUND_SMTP_ADDR: the inbound SMTP server's listen address, e.g. ":2525"; "" for none
	TLSCert  string // INBOUND_TLS_CERT: PEM certificate file; with TLSKey, STARTTLS is offered
	TLSKey   string // INBOUND_TLS_KEY: its PEM key file
	Secret   string // INBOUND_SECRET: authenticates POST /v1/inbound/email; "" turns the route off
	Domain   string // REPLY_DOMAIN: the reply addresses' domain (default: the domain of SMTP_FROM)
	MaxBytes int64  // INBOUND_MAX_BYTES: the largest message taken (default 1 MiB)
}

// enabled reports whether replies are read at all.
func (c inboundConfig) enabled() bool { return c.SMTPAddr != "" || c.Secret != "" }

// loadInboundConfig reads the inbound variables through getenv; email is
// the outbound configuration, whose From domain is the default reply
// domain.
func loadInboundConfig(getenv func(string) string, email notifier.EmailConfig) (inboundConfig, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	c := inboundConfig{SMTPAddr: get("INBOUND_SMTP_ADDR"), TLSCert: get("INBOUND_TLS_CERT"), TLSKey: get("INBOUND_TLS_KEY"),
		Secret: get("INBOUND_SECRET"), Domain: notifier.LoadReplyDomain(getenv, email), MaxBytes: inbound.DefaultMaxBytes}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return c, fmt.Errorf("INBOUND_TLS_CERT and INBOUND_TLS_KEY: set both or neither")
	}
	if c.Secret != "" && len(c.Secret) < 16 {
		return c, fmt.Errorf("INBOUND_SECRET: want at least 16 characters")
	}
	if v := get("INBOUND_MAX_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1024 {
			return c, fmt.Errorf("INBOUND_MAX_BYTES: want a number of bytes of at least 1024, got %q", v)
		}
		c.MaxBytes = n
	}
	return c, nil
}

// replySecret is the key of the reply addresses, derived from the
// server's secret.
func replySecret(cfg Config) []byte {
	return deriveSecret(cfg.JWTSecret, "datamonsters reply addresses")
}

// startInbound starts the inbound mail path when it is configured: the
// inbound SMTP server (INBOUND_SMTP_ADDR) and the route of providers'
// posts (INBOUND_SECRET). It returns the function that stops it.
// The inbound door plays through pl; the API's route of providers' posts
// hands them to it (srv.SetInbound).
func startInbound(cfg Config, ic inboundConfig, st *models.Store, pl *play.Service, srv *api.Server, n notifications, log *slog.Logger) func() {
	if !ic.enabled() {
		return func() {}
	}
	in, err := inbound.New(inbound.Config{Play: pl, Outbox: n.outbox, Reply: n.outbox.ReplyConfig(), Email: n.email,
		RateKey: deriveSecret(cfg.JWTSecret, "datamonsters inbound rate"), Logger: log})
	if err != nil {
		fatal(err)
	}
	srv.SetInbound(in, ic.Secret)
	go purgeInbound(st, log)
	if ic.SMTPAddr == "" {
		return func() {}
	}
	var tlsCfg *tls.Config
	if ic.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(ic.TLSCert, ic.TLSKey)
		if err != nil {
			fatal(fmt.Errorf("INBOUND_TLS_CERT/INBOUND_TLS_KEY: %w", err))
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	smtpSrv := inbound.NewSMTPServer(in, inbound.SMTPConfig{Addr: ic.SMTPAddr, Domain: ic.Domain, TLS: tlsCfg,
		MaxBytes: ic.MaxBytes, Logger: log})
	go func() {
		log.Info("inbound smtp listening", "addr", ic.SMTPAddr, "reply_domain", ic.Domain, "starttls", tlsCfg != nil)
		if err := smtpSrv.ListenAndServe(); err != nil {
			log.Info("inbound smtp stopped", "error", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		smtpSrv.Shutdown(ctx)
	}
}

// purgeInbound deletes the records of messages received more than 30
// days ago, every hour.
func purgeInbound(st *models.Store, log *slog.Logger) {
	for range time.Tick(time.Hour) {
		if n, err := st.PurgeInbound(context.Background(), time.Now().Add(-30*24*time.Hour)); err != nil {
			log.Warn("purge inbound messages", "error", err)
		} else if n > 0 {
			log.Info("purged inbound message records", "count", n)
		}
	}
}

package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/datamonsters/turns/api"
	"github.com/datamonsters/turns/internal/redact"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/web"
)

// runServe migrates the database and serves the API until SIGINT or
// SIGTERM, then drains requests for up to 20 seconds.
func runServe(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	fs.Parse(args)
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		fatal(err)
	}
	log := redact.NewLogger(os.Stderr, cfg.LogLevel)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	st, applied := openStore(ctx, cfg)
	defer st.Close()
	log.Info("database ready", "dialect", st.Dialect().String(), "migrations_applied", len(applied))

	srv := api.New(st, apiConfig(cfg), log, nil)
	links := deriveSecret(cfg.JWTSecret, "datamonsters email links")
	n := startNotifications(ctx, cfg, st, srv, links, log)
	defer n.stop()
	defer startInbound(cfg, n.inbound, st, srv, n, log)()
	pages, err := web.New(st, srv, n.sender, web.Config{BaseURL: cfg.BaseURL, Secret: links, MailDomain: n.email.Domain(),
		Play: srv.Play(), Hub: n.hub, Presence: n.presence, Replies: n.inbound.enabled()}, log, nil)
	if err != nil {
		fatal(err)
	}
	srv.SetPages(pages)
	httpSrv := &http.Server{
		Addr:              cfg.Addr,
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	go purgeExpired(ctx, st, log)
	errc := make(chan error, 1)
	go func() {
		log.Info("listening", "addr", cfg.Addr, "base_url", cfg.BaseURL)
		errc <- httpSrv.ListenAndServe()
	}()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			fatal(err)
		}
	case <-ctx.Done():
		log.Info("shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := httpSrv.Shutdown(sctx); err != nil {
			log.Error("shutdown", "error", err)
			return 1
		}
	}
	return 0
}

// apiConfig is the API's part of the configuration.
func apiConfig(cfg Config) api.Config {
	return api.Config{Secret: cfg.JWTSecret, Issuer: cfg.JWTIssuer, Audience: cfg.JWTAudience, AccessTTL: cfg.AccessTTL,
		RefreshTTL: cfg.RefreshTTL, MaxBodyBytes: cfg.MaxBodyBytes, BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies,
		CORSOrigins: cfg.CORSOrigins}
}

// purgeExpired deletes expired idempotency records, full rate-limit
// buckets (the same as none), browser sessions and used sign-in links
// every hour.
func purgeExpired(ctx context.Context, st *models.Store, log *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := st.PurgeIdempotency(ctx); err != nil {
				log.Warn("purge idempotency keys", "error", err)
			} else if n > 0 {
				log.Info("purged idempotency keys", "count", n)
			}
			if n, err := st.PurgeRateLimits(ctx, time.Now()); err != nil {
				log.Warn("purge rate limits", "error", err)
			} else if n > 0 {
				log.Info("purged rate-limit buckets", "count", n)
			}
			if n, err := st.PurgeSessions(ctx); err != nil {
				log.Warn("purge browser sessions", "error", err)
			} else if n > 0 {
				log.Info("purged browser sessions and used links", "count", n)
			}
		}
	}
}

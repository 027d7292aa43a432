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
	stopNotifications := startNotifications(ctx, cfg, st, srv, log)
	defer stopNotifications()
	httpSrv := &http.Server{
		Addr:              cfg.Addr,
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	go purgeIdempotency(ctx, st, log)
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
		RefreshTTL: cfg.RefreshTTL, MaxBodyBytes: cfg.MaxBodyBytes, BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies}
}

// purgeIdempotency deletes expired idempotency records every hour.
func purgeIdempotency(ctx context.Context, st *models.Store, log *slog.Logger) {
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
		}
	}
}

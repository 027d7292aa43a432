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

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/api"
	"github.com/datamonsters/turns/internal/gcpace"
	"github.com/datamonsters/turns/internal/redact"
	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
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
	gcpace.Apply(cfg.GOGCSet, cfg.GoMemLimitSet)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	st, applied := openStore(ctx, cfg)
	defer st.Close()
	log.Info("database ready", "dialect", st.Dialect().String(), "migrations_applied", len(applied))

	h := wire(ctx, cfg, st, log)
	defer h.stop()
	httpSrv := &http.Server{
		Addr:              cfg.Addr,
		Handler:           h.handler,
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

// house is the service as serve runs it, wired by wire.
type house struct {
	handler http.Handler // the router: the API under /v1, the pages beside it
	stop    func()       // stops the notifications and the inbound door, waiting for running jobs
}

// wire builds the house on st, in this order, each part given what it
// needs by hand and none building another's: the play path; the outbox
// (its clock and bot jobs call the play path); the accounts (the outbox
// tells of the vacations they book); the three front doors, the JSON API
// and the pages calling play and the accounts, the inbound door play;
// and the router on which the API and the pages are mounted as peers.
func wire(ctx context.Context, cfg Config, st *models.Store, log *slog.Logger) house {
	pl := play.New(st, nil, log)
	links := deriveSecret(cfg.JWTSecret, "datamonsters email links")
	n := startNotifications(ctx, cfg, st, pl, links, log)
	acc := accounts.New(st, pl, accountsConfig(cfg, n.outbox, n.push), log, nil)
	srv := api.New(st, pl, acc, apiConfig(cfg), log, nil)
	pages, err := web.New(st, n.sender, web.Config{BaseURL: cfg.BaseURL, Secret: links, MailDomain: n.email.Domain(),
		Play: pl, Accounts: acc, Hub: n.hub, Presence: n.presence, Replies: n.inbound.enabled()}, log, nil)
	if err != nil {
		fatal(err)
	}
	srv.SetNotifications(n.forAPI(cfg, pages.Unsubscribe))
	stopInbound := startInbound(cfg, n.inbound, st, pl, srv, n, log)
	handler := router.New(routerConfig(cfg, log), router.Mount{Prefix: "/v1/", Door: srv}, router.Mount{Door: pages})
	return house{handler: handler, stop: func() { stopInbound(); n.stop() }}
}

// accountsConfig is the accounts' part of the configuration; vacations
// tells of the vacations they book; push (nil: none) sends Web Push.
func accountsConfig(cfg Config, vacations accounts.VacationNotice, push *notifier.PushSender) accounts.Config {
	ac := accounts.Config{Secret: cfg.JWTSecret, Issuer: cfg.JWTIssuer, Audience: cfg.JWTAudience, AccessTTL: cfg.AccessTTL,
		RefreshTTL: cfg.RefreshTTL, Kinds: notifier.KindNames(), Channels: notifier.Channels, Vacations: vacations}
	if push != nil {
		ac.Push = push
	}
	return ac
}

// apiConfig is the API's part of the configuration (with the router's,
// for the API served alone: bench).
func apiConfig(cfg Config) api.Config {
	return api.Config{Secret: cfg.JWTSecret, MaxBodyBytes: cfg.MaxBodyBytes, BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies,
		CORSOrigins: cfg.CORSOrigins}
}

// routerConfig is the router's part of the configuration.
func routerConfig(cfg Config, log *slog.Logger) router.Config {
	return router.Config{MaxBodyBytes: cfg.MaxBodyBytes, TrustedProxies: cfg.TrustedProxies, CORSOrigins: cfg.CORSOrigins, Log: log}
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

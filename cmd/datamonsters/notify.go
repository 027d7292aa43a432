package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"log/slog"
	"time"

	"github.com/datamonsters/turns/api"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// startNotifications wires the notification pipeline: the email sender
// (SMTP, or a folder of .eml files with no SMTP_HOST), the webhook and
// push clients,
// the live-stream hub with its Postgres LISTEN loop and the presence
// heartbeat of its connections, and the River outbox
// whose jobs the store writes in each game change's transaction. It returns
// what the doors need of it, with the function that stops it, waiting for
// running jobs. The outbox's clock and bot jobs call the play path pl;
// links signs the sign-in links of emails.
func startNotifications(ctx context.Context, cfg Config, st *models.Store, pl *play.Service, links []byte, log *slog.Logger) notifications {
	ecfg, wopts := cfg.Email, cfg.Webhook
	if ecfg.Host == "" {
		if err := writableDir("MAIL_DIR", ecfg.MailDir); err != nil {
			fatal(err)
		}
	}
	sender, err := notifier.NewSender(ecfg, log)
	if err != nil {
		fatal(err)
	}
	ic := cfg.Inbound
	var reply notifier.ReplyConfig
	if ic.enabled() {
		reply = notifier.ReplyConfig{Secret: replySecret(cfg), Domain: ic.Domain}
	}
	unsub := deriveSecret(cfg.JWTSecret, "datamonsters unsubscribe links")
	push, err := notifier.NewPushSender(cfg.Push, wopts)
	if err != nil {
		fatal(err)
	}
	hub := notifier.NewHub(0)
	ob, err := notifier.NewOutbox(notifier.OutboxConfig{Store: st, Sender: sender, Email: ecfg,
		Webhook: notifier.NewWebhookClient(wopts), Push: push, Hub: hub, Logger: log, UnsubscribeSecret: unsub, SignInSecret: links,
		Reply: reply, Timeouts: pl, Bots: pl, DatabaseURL: cfg.DatabaseURL, JobTimeout: cfg.JobTimeout})
	if err != nil {
		fatal(err)
	}
	st.SetOutbox(ob)
	var presence *notifier.Presence // SQLite runs one process: its hub knows who is connected
	if cfg.DatabaseURL != "" {
		presence = notifier.NewPresence(st, notifier.PresenceOptions{Logger: log})
		go presence.Run(ctx)
	}
	if err := ob.Start(ctx); err != nil {
		fatal(err)
	}
	go ob.Listen(ctx)
	log.Info("notifications ready", "smtp", ecfg.Host != "", "webhook_allow_private", wopts.AllowPrivate)
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ob.Stop(sctx); err != nil {
			log.Warn("stop outbox", "error", err)
		}
		hub.Close()
		sender.Close()
	}
	return notifications{stop: stop, sender: sender, email: ecfg, outbox: ob, inbound: ic, hub: hub, presence: presence, unsub: unsub,
		push: push}
}

// forAPI is what the API's notification routes need of n; page draws the
// page of an unsubscribe link (nil: the API's own).
func (n notifications) forAPI(cfg Config, page func(c *gin.Context, scope, action string, done bool)) api.Notifications {
	return api.Notifications{Outbox: n.outbox, Hub: n.hub, Presence: n.presence, UnsubscribeSecret: n.unsub,
		AllowPrivate: cfg.Webhook.AllowPrivate, UnsubscribePage: page}
}

// notifications is what startNotifications started: stop stops it; the
// pages send their mail with sender, and hear of game changes on hub
// (recording their connections with presence, nil on SQLite).
type notifications struct {
	stop     func()
	sender   notifier.Sender
	email    notifier.EmailConfig
	outbox   *notifier.Outbox
	inbound  inboundConfig // how replies come in (see startInbound)
	hub      *notifier.Hub
	presence *notifier.Presence
	unsub    []byte               // signs the unsubscribe links
	push     *notifier.PushSender // sends Web Push
}

// deriveSecret returns the key for purpose derived from the server's
// secret (HMAC-SHA256), so that one secret configures every signature and
// none of them can stand for another.
func deriveSecret(secret []byte, purpose string) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(purpose))
	return mac.Sum(nil)
}

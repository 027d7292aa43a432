// Package notifier delivers what a slow game lives on: email, signed
// webhooks and a live event stream, through a transactional outbox.
//
// Outbox (outbox*.go, workers.go, clock.go, bots.go, vacation.go,
// digest.go): Outbox implements models.Outbox, so every game change writes
// its notification jobs in its own transaction, on River (Postgres, or
// SQLite on the embedded default) sharing the store's connection pool. It
// decides who is told what from what the change says it did
// (models.Happened), its events and the new state, one email per person
// per change, and names it in the jobs; after the commit the workers
// build what each recipient is shown (outbox_fill.go: their hand, prompts
// and numbered board, from the game's state at that version) and deliver
// it: email, webhook deliveries with their log, live-stream publishing
// (NOTIFY between processes on Postgres), deadline reminders and
// timeouts, bot moves and forfeits, and the digest. MigrateRiver applies
// River's schema.
//
// Table talk (talk.go): a message of a game is a notification of kind
// KindMessage to those who may read it (not muted), on the game's live
// stream too (MessageEvent); its email of its own is opt-in (DefaultOn),
// since every email of a game shows the messages its recipient's emails
// have not shown yet (Common.Talk, filled in as it is sent).
//
// Email (email.go, config.go): LoadEmailConfig reads SMTP_* and related
// variables once; NewSender returns an SMTPSender (github.com/wneessen/go-mail,
// pooled connections) or, with no SMTP_HOST, a FolderSender that writes .eml
// files. A Message carries a stable Message-ID (DeliveryMessageID), per-game
// threading (ThreadHeaders) and a one-click List-Unsubscribe URL; user-typed
// names and titles are cleaned before they reach a header
// (CleanHeaderText). IsPermanent tells a retryable failure from a final one.
//
// Templates (templates.go, headline.go, templates/): Render turns one of
// the plain data structs (Invitation, YourTurn, GameOver, ...) into
// subject (the game's one, Subject), text and HTML, whose first line says
// what changed (Headline); Compose wraps that into a threaded Message.
// The structs hold strings and times only, already redacted for the
// recipient; templates, email, webhooks and the stream know neither the
// engine nor the store (only the outbox files do).
//
// Webhooks (webhook.go, ssrf.go): Sign and Verify implement the
// "Webhook-Signature: v1=<hex HMAC-SHA256(secret, timestamp.body)>" scheme;
// WebhookClient posts with timeouts and a dial-time SSRF guard; Classify,
// Backoff and ShouldDisable are the pure retry rules.
//
// Push (push.go): Web Push to the players' browsers, a channel of the
// outbox like email. PushSender posts a PushMessage (the game, the note's
// headline, the board's link) encrypted for a subscription (RFC 8291) and
// signed with the server's VAPID key (PushConfig, RFC 8292) through
// webpush-go and the webhooks' guarded client; the push worker deletes a
// subscription its push service says is gone (404, 410).
//
// Live stream (sse.go, outbox_stream.go, presence.go): Hub fans events out
// to in-process subscribers by topic (a user or a game). Between processes
// on Postgres a NOTIFY carries only the identifiers of the stored rows
// (EncodeNotify, DecodeNotify); each process's LISTEN loop reads them and
// calls Hub.Publish. Presence keeps a row per open stream connection in
// the database, so that the email worker of any process skips the turn
// emails of a connected user. ServeSSE writes the text/event-stream format
// with heartbeats, a stored backlog first (resume after LastEventID), then
// live events.
//
// README.md beside this file documents the configuration, the webhook
// signature with verification examples in Go and shell, and the measured
// throughput.
package notifier

package notifier

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// NotifyChannel is the Postgres NOTIFY channel that carries live-stream
// events between server processes.
const NotifyChannel = "dm_events"

// publish sends ev to topic: through NOTIFY to every process when the
// outbox listens on Postgres, else to this process's hub. An event too
// large for a NOTIFY payload goes to this process's hub only; clients of
// other processes get it from the stored log when they reconnect.
func (o *Outbox) publish(ctx context.Context, topic Topic, ev Event) error {
	if o.cfg.DatabaseURL == "" {
		o.cfg.Hub.Publish(topic, ev)
		return nil
	}
	payload, err := EncodeNotify(topic, ev)
	if errors.Is(err, ErrNotifyTooLarge) {
		o.log.Warn("live event too large for NOTIFY; published in this process only", "topic", string(topic), "id", ev.ID)
		o.cfg.Hub.Publish(topic, ev)
		return nil
	}
	if err != nil {
		return err
	}
	db, err := o.store.SQLDB()
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, `SELECT pg_notify($1, $2)`, NotifyChannel, payload)
	return err
}

// Listen runs the LISTEN loop of this process on Postgres until ctx ends:
// every live event published by any process goes to this process's hub.
// It reconnects after errors. Without a DatabaseURL it returns at once.
func (o *Outbox) Listen(ctx context.Context) {
	if o.cfg.DatabaseURL == "" {
		return
	}
	for ctx.Err() == nil {
		if err := o.listenOnce(ctx); err != nil && ctx.Err() == nil {
			o.log.Warn("live stream listener", "error", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

func (o *Outbox) listenOnce(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, o.cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		return err
	}
	o.listening.Store(true)
	defer o.listening.Store(false)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		topic, ev, err := DecodeNotify(n.Payload)
		if err != nil {
			o.log.Warn("live stream: bad NOTIFY payload", "error", err)
			continue
		}
		o.cfg.Hub.Publish(topic, ev)
	}
}

// Listening reports whether the LISTEN loop is connected.
func (o *Outbox) Listening() bool { return o.listening.Load() }

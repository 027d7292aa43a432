package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Outbox is told about every game change inside the change's transaction,
// after the sequence numbers are assigned and before the writes, so that it
// can write notification jobs that commit or roll back with the change (a
// transactional outbox). An error rolls the change back.
type Outbox interface {
	GameChanged(ctx context.Context, tx OutboxTx, c GameChange) error
}

// OutboxTx is the change's transaction: Tx for job inserts (River's
// InsertTx), Store for reads and writes through the store's queries.
type OutboxTx struct {
	Tx    *sql.Tx
	Store *Store
}

// GameChange describes one change of a game. Created is true for a new
// game. Game is the game as it will be written; Change is what else the
// change writes, with what it did (Change.Happened) as the play path knows
// it: the outbox decides from that, the change's events and the new state,
// never by comparing the game before and after.
type GameChange struct {
	Created bool
	Game    *Game
	Change  *Change
}

// SetOutbox installs o; nil removes it. Call it before serving.
func (s *Store) SetOutbox(o Outbox) { s.outbox = o }

// SQLDB returns the store's connection pool, to share with the job queue.
func (s *Store) SQLDB() (*sql.DB, error) { return s.db.DB() }

// Begin runs fn in a transaction and hands it both the *sql.Tx (for job
// inserts) and a store bound to it.
func (s *Store) Begin(ctx context.Context, fn func(tx OutboxTx) error) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		otx, err := s.outboxTx(tx)
		if err != nil {
			return err
		}
		return fn(otx)
	})
}

func (s *Store) outboxTx(tx *gorm.DB) (OutboxTx, error) {
	sqlTx, ok := tx.Statement.ConnPool.(*sql.Tx)
	if !ok {
		return OutboxTx{}, fmt.Errorf("outbox: transaction is a %T, not a *sql.Tx", tx.Statement.ConnPool)
	}
	return OutboxTx{Tx: sqlTx, Store: &Store{db: tx, dialect: s.dialect, now: s.now, tests: s.tests}}, nil
}

// notifyOutbox calls the outbox, if any, inside tx.
func (s *Store) notifyOutbox(ctx context.Context, tx *gorm.DB, c GameChange) error {
	if s.outbox == nil {
		return nil
	}
	otx, err := s.outboxTx(tx)
	if err != nil {
		return err
	}
	return s.outbox.GameChanged(ctx, otx, c)
}

// Notification is one entry of a user's notification log: what the live
// stream sends and resumes from (ID is the SSE event id).
type Notification struct {
	ID     int64
	UserID int64
	GameID *int64
	Kind   string
	Body   string // JSON
	// Fill, when not "", names what the outbox adds to Body when the
	// notification is first read (its JSON; see notifier.Fill), which it
	// then stores with CompleteNotification.
	Fill      string
	CreatedAt time.Time
}

// TableName is the notifications table.
func (Notification) TableName() string { return "notifications" }

// AddNotification appends n to the user's log and sets its ID.
func (s *Store) AddNotification(ctx context.Context, n *Notification) error {
	ns := []Notification{*n}
	err := s.AddNotifications(ctx, ns)
	*n = ns[0]
	return err
}

// AddNotifications appends ns to their users' logs in one statement and
// sets their IDs.
func (s *Store) AddNotifications(ctx context.Context, ns []Notification) error {
	if len(ns) == 0 {
		return nil
	}
	now := s.Now()
	for i := range ns {
		ns[i].CreatedAt = now
	}
	return s.db.WithContext(ctx).Create(&ns).Error
}

// CompleteNotification stores the whole body of notification id, which
// its Fill asked for, and clears the Fill. A notification completed
// already is left as it is.
func (s *Store) CompleteNotification(ctx context.Context, id int64, body string) error {
	return s.db.WithContext(ctx).Exec(`UPDATE notifications SET body = ?, fill = NULL WHERE id = ? AND COALESCE(fill, '') <> ''`, body, id).Error
}

// NoteCursor is a place in a user's notification log, in the order
// NotificationsFrom reads it: just after row ID, which transaction Xid
// wrote (0 on SQLite). The zero NoteCursor is the start of the log.
type NoteCursor struct{ Xid, ID int64 }

// NoteCursorAt is the place just after the user's notification id, or
// ErrNotFound.
func (s *Store) NoteCursorAt(ctx context.Context, userID, id int64) (NoteCursor, error) {
	q := `SELECT 0 AS xid, id FROM notifications WHERE id = ? AND user_id = ?`
	if s.dialect == Postgres {
		q = `SELECT xid::text::bigint AS xid, id FROM notifications WHERE id = ? AND user_id = ?`
	}
	var out []NoteCursor
	if err := s.db.WithContext(ctx).Raw(q, id, userID).Scan(&out).Error; err != nil {
		return NoteCursor{}, err
	}
	if len(out) == 0 {
		return NoteCursor{}, fmt.Errorf("notification %d: %w", id, ErrNotFound)
	}
	return out[0], nil
}

// NoteCursorSince is the place just before the user's notifications
// written from t on: before the first, in the log's order, of those
// created at or after t (a place from which some created a little before
// t may follow, written by transactions that began as late). ok is false
// when there is none.
func (s *Store) NoteCursorSince(ctx context.Context, userID int64, t time.Time) (c NoteCursor, ok bool, err error) {
	q := `SELECT 0 AS xid, id - 1 AS id FROM notifications WHERE user_id = ? AND created_at >= ? ORDER BY id LIMIT 1`
	if s.dialect == Postgres {
		// Before every row of the first one's transaction.
		q = `SELECT xid::text::bigint - 1 AS xid, 9223372036854775807 AS id FROM notifications
WHERE user_id = ? AND created_at >= ? ORDER BY xid, id LIMIT 1`
	}
	var out []NoteCursor
	if err := s.db.WithContext(ctx).Raw(q, userID, t.UTC()).Scan(&out).Error; err != nil {
		return NoteCursor{}, false, err
	}
	if len(out) == 0 {
		return NoteCursor{}, false, nil
	}
	return out[0], true, nil
}

// NotificationsFrom returns up to limit of the user's notifications after
// c, in the log's order, and the place after the last one it returns
// (c when none); waiting reports that more are stored already but cannot
// be read yet: ask again shortly.
//
// The log's order is one in which no row can come later before a row
// read. Ids do not give it on Postgres: they are taken as rows are
// written, in changes of different games that commit in either order,
// and a reader that resumed after the id of a row committed first would
// skip the one with a smaller id committed after it. So the log is read
// by the id of the transaction that wrote a row, then the row's id, and a
// row only once every transaction older than its own has ended
// (transactions of the server's other databases aside, which write no
// row here): every row that commits later comes after it. What a reader
// has read is then a prefix of the log that stays one, and resuming after
// its last row misses nothing. A row waits for the oldest transaction
// running when it is read; this service's transactions last
// milliseconds. On SQLite, which writes one transaction at a time, ids
// are in commit order and every stored row is read at once.
func (s *Store) NotificationsFrom(ctx context.Context, userID int64, c NoteCursor, limit int) (ns []Notification, next NoteCursor, waiting bool, err error) {
	var rows []noteRow
	if s.dialect == Postgres {
		err = s.db.WithContext(ctx).Raw(qNotificationsFromPG, userID, c.Xid, c.ID, limit).Scan(&rows).Error
	} else {
		err = s.db.WithContext(ctx).Raw(qNotificationsFrom, userID, c.ID, limit).Scan(&rows).Error
	}
	if err != nil {
		return nil, c, false, err
	}
	if s.heldForTest(len(rows)) {
		rows[len(rows)-1].Settled = false
	}
	next = c
	for _, r := range rows {
		if !r.Settled {
			return ns, next, true, nil
		}
		ns = append(ns, r.Notification)
		next = NoteCursor{Xid: r.Xid, ID: r.ID}
	}
	return ns, next, false, nil
}

// NotificationsAfter returns up to limit of the user's notifications with
// id > after, in id order, as committed now: a list, not a place to resume
// a stream from (see NotificationsFrom).
func (s *Store) NotificationsAfter(ctx context.Context, userID, after int64, limit int) ([]Notification, error) {
	var out []Notification
	err := s.db.WithContext(ctx).Raw(qNotificationsAfter, userID, after, limit).Scan(&out).Error
	return out, err
}

const qNotificationsAfter = `
SELECT * FROM notifications WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?`

// noteRow is a notification as NotificationsFrom reads it.
type noteRow struct {
	Notification
	Xid     int64
	Settled bool // no transaction older than the row's is running
}

const qNotificationsFrom = `
SELECT *, 0 AS xid, 1 AS settled FROM notifications WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?`

// qNotificationsFromPG reads the rows after the place, each with whether
// it is settled: its transaction is older than every one running in this
// database at the statement's snapshot (pg_current_snapshot, the one the
// rows are read with). In this order the settled rows come first. The
// oldest transaction running on the whole server (the snapshot's xmin)
// usually settles them; only when it does not are the running ones of
// other databases set aside (qOldestHere).
const qNotificationsFromPG = `
WITH s AS MATERIALIZED (SELECT pg_current_snapshot() AS snap)
SELECT n.id, n.user_id, n.game_id, n.kind, n.body, n.fill, n.created_at, n.xid::text::bigint AS xid,
  (n.xid < (SELECT pg_snapshot_xmin(snap) FROM s) OR n.xid < ` + qOldestHere + `) AS settled
FROM notifications n
WHERE n.user_id = ? AND (n.xid, n.id) > (?::bigint::text::xid8, ?::bigint)
ORDER BY n.xid, n.id LIMIT ?`

// UsersByIDs returns the users with the given ids, keyed by id.
func (s *Store) UsersByIDs(ctx context.Context, ids []int64) (map[int64]*User, error) {
	out := make(map[int64]*User, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var users []User
	if err := s.db.WithContext(ctx).Where("id IN ?", ids).Find(&users).Error; err != nil {
		return nil, err
	}
	for i := range users {
		out[users[i].ID] = &users[i]
	}
	return out, nil
}

// Recipients is what the outbox reads of the users a change notifies.
type Recipients struct {
	Users       map[int64]*User    // by id; an unknown id is missing
	Preferences []Preference       // of those users
	Webhooks    []Webhook          // of those users, enabled ones only, by id
	Push        []PushSubscription // of those users, by id
}

// RecipientsOf reads the users with the given ids, with their notification
// preferences and enabled webhooks: one statement when none of them has any
// (the usual case), which says who has, then one for each kind that some
// have. The users of g's seats that were read with g (MutateCached, with an
// outbox) are not read again; g may be nil.
func (s *Store) RecipientsOf(ctx context.Context, g *Game, ids []int64) (*Recipients, error) {
	rows := make([]recipientRow, 0, len(ids))
	var rest []int64
	for _, id := range ids {
		if r, ok := g.seatUser(id); ok {
			rows = append(rows, r)
		} else {
			rest = append(rest, id)
		}
	}
	if len(rest) > 0 {
		var read []recipientRow
		if err := s.db.WithContext(ctx).Raw(qRecipients, rest).Scan(&read).Error; err != nil {
			return nil, err
		}
		rows = append(rows, read...)
	}
	out := &Recipients{Users: make(map[int64]*User, len(rows))}
	var withPrefs, withHooks, withPush []int64
	for i := range rows {
		r := &rows[i]
		out.Users[r.ID] = &r.User
		if r.HasPrefs {
			withPrefs = append(withPrefs, r.ID)
		}
		if r.HasHooks {
			withHooks = append(withHooks, r.ID)
		}
		if r.HasPush {
			withPush = append(withPush, r.ID)
		}
	}
	var err error
	if out.Preferences, err = s.Preferences(ctx, withPrefs); err != nil {
		return nil, err
	}
	if out.Webhooks, err = s.WebhooksOf(ctx, withHooks); err != nil {
		return nil, err
	}
	if out.Push, err = s.PushSubscriptionsOf(ctx, withPush); err != nil {
		return nil, err
	}
	return out, nil
}

// recipientRow is a user with whether they have notification preferences,
// enabled webhooks and push subscriptions.
type recipientRow struct {
	User
	HasPrefs bool
	HasHooks bool
	HasPush  bool
	// quietRead says that quiet holds the user's quiet hours (nil: none),
	// read with the game's seats (see Game.QuietHours).
	quietRead bool
	quiet     *QuietHours
}

// seatUser returns user id as a recipient, if g read it with its seats.
func (g *Game) seatUser(id int64) (recipientRow, bool) {
	if g == nil {
		return recipientRow{}, false
	}
	r, ok := g.seatUsers[id]
	return r, ok
}

const qRecipients = `
SELECT u.*,
  EXISTS (SELECT 1 FROM notification_prefs p WHERE p.user_id = u.id) AS has_prefs,
  EXISTS (SELECT 1 FROM webhooks w WHERE w.user_id = u.id AND w.disabled_at IS NULL) AS has_hooks,
  EXISTS (SELECT 1 FROM push_subscriptions ps WHERE ps.user_id = u.id) AS has_push
FROM users u WHERE u.id IN ?`

// PromptIDs returns the ids of the game's stored pending prompts.
func (s *Store) PromptIDs(ctx context.Context, gameID int64) ([]string, error) {
	var ids []string
	err := s.db.WithContext(ctx).Raw(`SELECT prompt_id FROM prompts WHERE game_id = ?`, gameID).Scan(&ids).Error
	return ids, err
}

// Webhook is a URL registered by a user (TokenID nil) or by one of the
// user's API tokens. Events lists the notification kinds it wants
// (comma-separated; "" means all). A webhook is disabled (DisabledAt set)
// after repeated failures or a 410; it then receives nothing.
type Webhook struct {
	ID             int64
	UserID         int64
	TokenID        *int64
	URL            string
	Secret         string
	Events         string
	Failures       int // consecutive failed attempts
	DisabledAt     *time.Time
	DisabledReason string
	CreatedAt      time.Time
}

// TableName is the webhooks table.
func (Webhook) TableName() string { return "webhooks" }

// Wants reports whether the webhook is enabled and subscribed to kind.
func (w *Webhook) Wants(kind string) bool {
	if w.DisabledAt != nil {
		return false
	}
	if w.Events == "" {
		return true
	}
	for _, e := range strings.Split(w.Events, ",") {
		if e == kind {
			return true
		}
	}
	return false
}

// WebhookDelivery is one delivery of one notification to one webhook; ID
// is the Webhook-Id header, the same on every attempt.
type WebhookDelivery struct {
	ID          string `gorm:"primaryKey"`
	WebhookID   int64
	Event       string
	Body        string
	Status      string // pending, delivered, failed
	Attempts    int
	LastCode    int
	LastError   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	DeliveredAt *time.Time
}

// TableName is the webhook_deliveries table.
func (WebhookDelivery) TableName() string { return "webhook_deliveries" }

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// CreateWebhook stores w and sets its ID.
func (s *Store) CreateWebhook(ctx context.Context, w *Webhook) error {
	w.CreatedAt = s.Now()
	return s.db.WithContext(ctx).Create(w).Error
}

// Webhooks returns the user's webhooks, oldest first.
func (s *Store) Webhooks(ctx context.Context, userID int64) ([]Webhook, error) {
	var out []Webhook
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("id").Find(&out).Error
	return out, err
}

// WebhooksOf returns the enabled webhooks of the given users.
func (s *Store) WebhooksOf(ctx context.Context, userIDs []int64) ([]Webhook, error) {
	var out []Webhook
	if len(userIDs) == 0 {
		return out, nil
	}
	err := s.db.WithContext(ctx).Where("user_id IN ? AND disabled_at IS NULL", userIDs).Order("id").Find(&out).Error
	return out, err
}

// Webhook returns the user's webhook id, or ErrNotFound.
func (s *Store) Webhook(ctx context.Context, userID, id int64) (*Webhook, error) {
	var w Webhook
	if err := s.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Take(&w).Error; err != nil {
		return nil, notFound(err)
	}
	return &w, nil
}

// WebhookByID returns webhook id whoever owns it, or ErrNotFound.
func (s *Store) WebhookByID(ctx context.Context, id int64) (*Webhook, error) {
	var w Webhook
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&w).Error; err != nil {
		return nil, notFound(err)
	}
	return &w, nil
}

// DeleteWebhook deletes the user's webhook id and its delivery log, or
// returns ErrNotFound.
func (s *Store) DeleteWebhook(ctx context.Context, userID, id int64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Exec(`DELETE FROM webhooks WHERE id = ? AND user_id = ?`, id, userID)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("webhook %d: %w", id, ErrNotFound)
		}
		return tx.Exec(`DELETE FROM webhook_deliveries WHERE webhook_id = ?`, id).Error
	})
}

// AddDelivery stores a pending delivery; one that exists already is left
// as it is.
func (s *Store) AddDelivery(ctx context.Context, d *WebhookDelivery) error {
	now := s.Now()
	d.CreatedAt, d.UpdatedAt, d.Status = now, now, DeliveryPending
	err := s.db.WithContext(ctx).Exec(`INSERT INTO webhook_deliveries (id, webhook_id, event, body, status, attempts, last_code, last_error, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, 0, 0, '', ?, ?) ON CONFLICT (id) DO NOTHING`, d.ID, d.WebhookID, d.Event, d.Body, d.Status, now, now).Error
	return err
}

// Delivery returns delivery id of the webhook, or ErrNotFound.
func (s *Store) Delivery(ctx context.Context, webhookID int64, id string) (*WebhookDelivery, error) {
	var d WebhookDelivery
	if err := s.db.WithContext(ctx).Where("id = ? AND webhook_id = ?", id, webhookID).Take(&d).Error; err != nil {
		return nil, notFound(err)
	}
	return &d, nil
}

// Deliveries returns up to limit of the webhook's deliveries, newest first,
// created before the delivery named by before ("" for the first page).
func (s *Store) Deliveries(ctx context.Context, webhookID int64, limit int) ([]WebhookDelivery, error) {
	var out []WebhookDelivery
	err := s.db.WithContext(ctx).Where("webhook_id = ?", webhookID).Order("created_at DESC, id DESC").Limit(limit).Find(&out).Error
	return out, err
}

// RecordAttempt records one delivery attempt. ok marks the delivery
// delivered and resets the webhook's failure count; otherwise the count
// grows, and disable (non-empty) disables the webhook with that reason.
// final marks a failed delivery that will not be retried.
func (s *Store) RecordAttempt(ctx context.Context, d *WebhookDelivery, ok, final bool, code int, errText, disable string) error {
	now := s.Now()
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		status := DeliveryPending
		var delivered *time.Time
		switch {
		case ok:
			status, delivered = DeliveryDelivered, &now
		case final || disable != "":
			status = DeliveryFailed
		}
		if err := tx.Exec(`UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, last_code = ?, last_error = ?,
  updated_at = ?, delivered_at = COALESCE(?, delivered_at) WHERE id = ?`, status, code, errText, now, delivered, d.ID).Error; err != nil {
			return err
		}
		if ok {
			return tx.Exec(`UPDATE webhooks SET failures = 0 WHERE id = ?`, d.WebhookID).Error
		}
		if err := tx.Exec(`UPDATE webhooks SET failures = failures + 1 WHERE id = ?`, d.WebhookID).Error; err != nil {
			return err
		}
		if disable != "" {
			return tx.Exec(`UPDATE webhooks SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL`,
				now, disable, d.WebhookID).Error
		}
		return nil
	})
}

// EnableWebhook clears a webhook's disabled mark and failure count.
func (s *Store) EnableWebhook(ctx context.Context, userID, id int64) error {
	res := s.db.WithContext(ctx).Exec(`UPDATE webhooks SET disabled_at = NULL, disabled_reason = '', failures = 0 WHERE id = ? AND user_id = ?`, id, userID)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("webhook %d: %w", id, ErrNotFound)
	}
	return nil
}

// Preference says whether notifications of Kind go to Channel for a user.
// A kind and channel with no row are on.
type Preference struct {
	UserID  int64  `gorm:"primaryKey;autoIncrement:false"`
	Kind    string `gorm:"primaryKey"`
	Channel string `gorm:"primaryKey"`
	Enabled bool
	// Hours, for the digest (kind "digest", channel "email"), is the
	// least time between two digests, in hours; 0 means
	// DefaultDigestHours. SetPreference keeps the stored one for 0.
	Hours int
	// SentAt, for the digest, is when the user's last digest went out;
	// nil: never. SetPreference leaves it alone (see DigestSent).
	SentAt *time.Time
	// ToldXid and ToldID, for the digest, are the place in the user's
	// notification log up to which their digests have told (Told).
	ToldXid, ToldID int64
}

// Told is the place in the user's notification log up to which their
// digests have told (p is the digest's row); zero when none has yet
// since it was kept (the next starts from SentAt's time).
func (p Preference) Told() NoteCursor { return NoteCursor{Xid: p.ToldXid, ID: p.ToldID} }

// DefaultDigestHours is the digest's period when the user chose none: a
// day.
const DefaultDigestHours = 24

// The digest's preference is the row of this kind and channel (see
// Digest).
const (
	DigestKind    = "digest"
	DigestChannel = "email"
)

// Every is the least time between two digests of p (the digest's row).
func (p Preference) Every() time.Duration {
	if p.Hours <= 0 {
		return DefaultDigestHours * time.Hour
	}
	return time.Duration(p.Hours) * time.Hour
}

// TableName is the notification_prefs table.
func (Preference) TableName() string { return "notification_prefs" }

// Preferences returns the stored preferences of the given users.
func (s *Store) Preferences(ctx context.Context, userIDs []int64) ([]Preference, error) {
	var out []Preference
	if len(userIDs) == 0 {
		return out, nil
	}
	err := s.db.WithContext(ctx).Where("user_id IN ?", userIDs).Find(&out).Error
	return out, err
}

// SetPreference stores one preference, replacing the one for the same kind
// and channel; ErrNotFound if there is no such user or it is deleted (an
// unsubscribe link of an account deleted since writes nothing; see
// holdUsers).
func (s *Store) SetPreference(ctx context.Context, p Preference) error {
	if p.Kind == "" || p.Channel == "" {
		return errors.New("preference: kind and channel are required")
	}
	err := s.forLiveUser(ctx, p.UserID, func(tx *gorm.DB) error {
		return tx.Exec(`INSERT INTO notification_prefs (user_id, kind, channel, enabled, hours) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (user_id, kind, channel) DO UPDATE SET enabled = excluded.enabled,
  hours = CASE WHEN excluded.hours > 0 THEN excluded.hours ELSE notification_prefs.hours END`,
			p.UserID, p.Kind, p.Channel, p.Enabled, max(p.Hours, 0)).Error
	})
	var gone *UserGoneError
	if errors.As(err, &gone) {
		return fmt.Errorf("preference of user %d: %w", p.UserID, ErrNotFound)
	}
	return err
}

// Digest returns the user's digest preference (kind "digest", channel
// "email"), locked until the end of the store's transaction on Postgres;
// ErrNotFound when the user never chose it.
func (s *Store) Digest(ctx context.Context, userID int64) (*Preference, error) {
	q := `SELECT * FROM notification_prefs WHERE user_id = ? AND kind = 'digest' AND channel = 'email'`
	if s.dialect == Postgres {
		q += ` FOR UPDATE`
	}
	var out []Preference
	if err := s.db.WithContext(ctx).Raw(q, userID).Scan(&out).Error; err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("digest of user %d: %w", userID, ErrNotFound)
	}
	return &out[0], nil
}

// DigestTold records that the user's digests have told their
// notification log up to told, and, unless sent is nil, that one went
// out at *sent.
func (s *Store) DigestTold(ctx context.Context, userID int64, told NoteCursor, sent *time.Time) error {
	var at *time.Time
	if sent != nil {
		u := sent.UTC()
		at = &u
	}
	return s.db.WithContext(ctx).Exec(`UPDATE notification_prefs SET sent_at = COALESCE(?, sent_at), told_xid = ?, told_id = ?
WHERE user_id = ? AND kind = 'digest' AND channel = 'email'`, at, told.Xid, told.ID, userID).Error
}

// Vacation is a player's absence from StartsAt to EndsAt.
type Vacation struct {
	ID        int64
	UserID    int64
	StartsAt  time.Time
	EndsAt    time.Time
	CreatedAt time.Time
}

// TableName is the vacations table.
func (Vacation) TableName() string { return "vacations" }

// AddVacation stores v and sets its ID.
func (s *Store) AddVacation(ctx context.Context, v *Vacation) error {
	v.CreatedAt = s.Now()
	v.StartsAt, v.EndsAt = v.StartsAt.UTC(), v.EndsAt.UTC()
	return s.db.WithContext(ctx).Create(v).Error
}

// VacationOf returns the user's vacation id, or ErrNotFound (also for
// another user's vacation).
func (s *Store) VacationOf(ctx context.Context, userID, id int64) (*Vacation, error) {
	var v Vacation
	res := s.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Limit(1).Find(&v)
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected == 0 {
		return nil, fmt.Errorf("vacation %d: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SetVacationEnd moves the end of the user's vacation id to end, or
// returns ErrNotFound.
func (s *Store) SetVacationEnd(ctx context.Context, userID, id int64, end time.Time) error {
	res := s.db.WithContext(ctx).Exec(`UPDATE vacations SET ends_at = ? WHERE id = ? AND user_id = ?`, end.UTC(), id, userID)
	if res.Error == nil && res.RowsAffected == 0 {
		return fmt.Errorf("vacation %d: %w", id, ErrNotFound)
	}
	return res.Error
}

// DeleteVacation removes the user's vacation id, or returns ErrNotFound.
func (s *Store) DeleteVacation(ctx context.Context, userID, id int64) error {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM vacations WHERE id = ? AND user_id = ?`, id, userID)
	if res.Error == nil && res.RowsAffected == 0 {
		return fmt.Errorf("vacation %d: %w", id, ErrNotFound)
	}
	return res.Error
}

// Vacations returns the user's vacations that end after since, oldest first.
func (s *Store) Vacations(ctx context.Context, userID int64, since time.Time) ([]Vacation, error) {
	var out []Vacation
	err := s.db.WithContext(ctx).Where("user_id = ? AND ends_at > ?", userID, since.UTC()).Order("starts_at").Find(&out).Error
	return out, err
}

// ExtendDeadline moves game id's deadline from old to new, if it is still
// old, and reports whether it did; the clock of the new stretch runs from
// old, clockAt is when the game's reminder job for it runs, and quiet the
// seats whose quiet hours moved new to their end (Game.DeadlineQuiet; ""
// for none).
func (s *Store) ExtendDeadline(ctx context.Context, id int64, old, new, clockAt time.Time, quiet string) (bool, error) {
	res := s.db.WithContext(ctx).Exec(`UPDATE games SET deadline_at = ?, clock_from = ?, clock_at = ?,
  deadline_seq = deadline_seq + 1, deadline_set_at = ?, deadline_quiet = ?
WHERE id = ? AND deadline_at = ? AND status = ?`, new.UTC(), old.UTC(), clockAt.UTC(), s.Now(), quiet, id, old.UTC(), StatusActive)
	if res.Error != nil {
		return false, res.Error
	}
	if res.RowsAffected == 0 {
		return false, nil
	}
	return true, s.db.WithContext(ctx).Exec(`UPDATE prompts SET deadline_at = ? WHERE game_id = ? AND deadline_at = ?`,
		new.UTC(), id, old.UTC()).Error
}

// SetClockAt records when the game's pending reminder job runs (nil: none).
func (s *Store) SetClockAt(ctx context.Context, id int64, at *time.Time) error {
	return s.db.WithContext(ctx).Exec(`UPDATE games SET clock_at = ? WHERE id = ?`, at, id).Error
}

// ActiveGamesOf returns the ids of the active games the user has a seat in.
func (s *Store) ActiveGamesOf(ctx context.Context, userID int64) ([]int64, error) {
	var ids []int64
	err := s.db.WithContext(ctx).Raw(`SELECT g.id FROM seats s JOIN games g ON g.id = s.game_id
WHERE s.user_id = ? AND g.status = ? ORDER BY g.id`, userID, StatusActive).Scan(&ids).Error
	return ids, err
}

// DigestUsers returns the users who asked for the daily digest (the
// "digest" kind on the email channel, off unless turned on).
func (s *Store) DigestUsers(ctx context.Context) ([]int64, error) {
	var ids []int64
	err := s.db.WithContext(ctx).Raw(`SELECT user_id FROM notification_prefs WHERE kind = 'digest' AND channel = 'email' AND enabled
ORDER BY user_id`).Scan(&ids).Error
	return ids, err
}

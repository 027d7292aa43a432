package notifier

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/datamonsters/turns/internal/bounded"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
)

// Channels a notification goes out on.
const (
	ChannelEmail   = "email"
	ChannelWebhook = "webhook"
	ChannelStream  = "stream"
	ChannelPush    = "push" // Web Push to a player's browsers (push.go)
)

// Channels lists every channel.
var Channels = []string{ChannelEmail, ChannelWebhook, ChannelStream, ChannelPush}

// Timeouter applies the engine's timeout to a game whose deadline has
// passed, through the same path as a player's actions (the play path
// implements it). It reports whether anything was applied; a game that is
// not due is left alone.
type Timeouter interface {
	Timeout(ctx context.Context, gameID int64) (bool, error)
}

// OutboxConfig is what the outbox needs. Store, Sender and Hub are
// required.
type OutboxConfig struct {
	Store  *models.Store
	Sender Sender
	// DatabaseURL, on Postgres, is used for the LISTEN connection that
	// carries live-stream events between processes, and makes the email
	// worker read every process's stream presence; "" publishes to this
	// process's hub only and asks only it who is connected (SQLite).
	DatabaseURL string
	Email       EmailConfig    // Domain() for Message-IDs, BaseURL for links
	Webhook     *WebhookClient // nil: webhooks are logged as failed and retried
	Push        *PushSender    // nil: no push jobs are written (see push.go)
	Hub         *Hub
	Logger      *slog.Logger
	// Now is the clock for deadlines and for River's scheduling. nil means
	// time.Now. Tests pass a movable clock.
	Now func() time.Time
	// UnsubscribeSecret signs one-click unsubscribe links; nil leaves
	// List-Unsubscribe out.
	UnsubscribeSecret []byte
	// SignInSecret signs the sign-in links of the emails that ask their
	// recipient to act (see SignInURL) and the link of each whole numbered
	// line of a decision email (ActionURL, which the pages serve at
	// GamesPath+id+ActionPath); nil links those emails to the game's page
	// instead, and leaves the lines without links.
	SignInSecret []byte
	// Reply makes the reply addresses of decision emails (see Reply);
	// its zero value makes none, and those emails say replies are not read.
	Reply ReplyConfig
	// Timeouts is called by the timeout job; nil skips timeouts (another
	// mechanism applies them).
	Timeouts Timeouter
	// Bots plays bot seats and forfeits; nil leaves bot seats waiting.
	Bots SeatPlayer
	// States gives the workers the engine state of a game at a version
	// that may have passed, which they build a notification from when this
	// process no longer keeps it (after a restart, a retry, or a change
	// made by another process). nil: Timeouts, when it is one too (the play
	// path is both), else a play path of the outbox's own on Store.
	States States
	// Workers is the number of jobs worked at once (default 32; most jobs
	// wait on SMTP or HTTP).
	Workers int
	// PollInterval is how often River looks for new jobs (default 100 ms
	// on Postgres, where the database/sql driver has no LISTEN; SQLite
	// jobs inserted by this process are picked up at once).
	PollInterval time.Duration
	// ReminderAt is the fraction of a deadline after which the reminder
	// goes out (default 0.8).
	ReminderAt float64
	// WebhookDisableAfter is the number of consecutive failures that
	// disable a webhook (default 20).
	WebhookDisableAfter int
	// EmailRetryBase is the first retry delay of an email (default 5 s),
	// doubling to at most 30 min.
	EmailRetryBase time.Duration
	// JobTimeout bounds one job (default 30 s). A job left running by a
	// killed process is worked again 4 job timeouts later (River's default
	// is an hour).
	JobTimeout time.Duration
	// WebhookBackoffBase is the first retry delay of a webhook (default
	// 30 s), doubling to at most 6 h.
	WebhookBackoffBase time.Duration
	// PushRetryBase is the first retry delay of a push (default 10 s),
	// doubling to at most an hour.
	PushRetryBase time.Duration
	// Middleware is handed to River (river.Config.Middleware): code run
	// around the insertion and the work of every job, such as a process's
	// metrics, or a test that waits for the workers to end their jobs
	// before River's completer marks them completed (in batches, up to
	// 250 ms later).
	Middleware []rivertype.Middleware
}

// Outbox writes notification jobs in the transaction of the change that
// causes them (it implements models.Outbox) and works them after commit
// with River: email, webhooks, the live stream, deadline reminders and
// timeouts.
type Outbox struct {
	cfg    OutboxConfig
	store  *models.Store
	log    *slog.Logger
	now    func() time.Time
	client *river.Client[*sql.Tx]
	driver riverdriver.Driver[*sql.Tx]
	recent *recentStates // the states of the changes this process made, for their notifications

	listening atomic.Bool

	// publishMu orders the publication of games' events; published is
	// what was published of each (see deliverEvents).
	publishMu sync.Mutex
	published *bounded.Map[int64, published]
}

// riverTime makes River's scheduling follow the injected clock.
type riverTime struct {
	now  func() time.Time
	stub bool
}

func (r riverTime) Now() time.Time { return r.now() }
func (r riverTime) NowOrNil() *time.Time {
	if !r.stub {
		return nil
	}
	t := r.now().UTC()
	return &t
}

// NewOutbox builds the outbox and its River client (not started; see
// Start). It shares the store's connection pool: jobs are inserted in the
// store's transactions.
func NewOutbox(cfg OutboxConfig) (*Outbox, error) {
	if cfg.Store == nil || cfg.Sender == nil || cfg.Hub == nil {
		return nil, errors.New("notifier: outbox needs a store, a sender and a hub")
	}
	o := &Outbox{cfg: cfg, store: cfg.Store, log: cfg.Logger, now: cfg.Now, recent: newRecentStates(recentMax),
		published: bounded.New[int64, published](maxPublished)}
	if o.cfg.States == nil {
		o.cfg.States, _ = cfg.Timeouts.(States)
	}
	if o.cfg.States == nil {
		o.cfg.States = play.New(cfg.Store, cfg.Now, nil)
	}
	if o.log == nil {
		o.log = slog.Default()
	}
	stub := o.now != nil
	if o.now == nil {
		o.now = time.Now
	}
	if o.cfg.Workers <= 0 {
		o.cfg.Workers = 32
	}
	if o.cfg.ReminderAt <= 0 || o.cfg.ReminderAt >= 1 {
		o.cfg.ReminderAt = 0.8
	}
	if o.cfg.WebhookDisableAfter <= 0 {
		o.cfg.WebhookDisableAfter = 20
	}
	if o.cfg.JobTimeout <= 0 {
		o.cfg.JobTimeout = 30 * time.Second
	}
	if o.cfg.EmailRetryBase <= 0 {
		o.cfg.EmailRetryBase = 5 * time.Second
	}
	if o.cfg.WebhookBackoffBase <= 0 {
		o.cfg.WebhookBackoffBase = 30 * time.Second
	}
	if o.cfg.PushRetryBase <= 0 {
		o.cfg.PushRetryBase = 10 * time.Second
	}
	db, err := cfg.Store.SQLDB()
	if err != nil {
		return nil, err
	}
	poll := cfg.PollInterval
	switch cfg.Store.Dialect() {
	case models.SQLite:
		o.driver = riversqlite.New(db)
		if poll <= 0 {
			poll = 200 * time.Millisecond
		}
	default:
		o.driver = riverdatabasesql.New(db)
		if poll <= 0 {
			poll = 100 * time.Millisecond
		}
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &emailWorker{o: o})
	river.AddWorker(workers, &webhookWorker{o: o})
	river.AddWorker(workers, river.WorkFunc(o.workStream))
	river.AddWorker(workers, river.WorkFunc(o.workReminder))
	river.AddWorker(workers, river.WorkFunc(o.workTimeout))
	river.AddWorker(workers, river.WorkFunc(o.workBot))
	river.AddWorker(workers, river.WorkFunc(o.workForfeit))
	river.AddWorker(workers, river.WorkFunc(o.workDigest))
	river.AddWorker(workers, &pushWorker{o: o})
	client, err := river.NewClient(o.driver, &river.Config{
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.cfg.Workers}},
		Workers:           workers,
		FetchPollInterval: poll,
		// FetchCooldown is the least time between two fetches of jobs
		// (at most Workers each), and also between two NOTIFYs of River's
		// insert topic from inserts; a NOTIFY in a transaction serializes
		// its commit with every other notifying one, and nothing here
		// LISTENs for it (the database/sql driver polls). 20 ms keeps
		// those NOTIFYs under 50 a second while a backlog drains at up to
		// 50 fetches a second (5 ms: a NOTIFY in most turns; 100 ms
		// capped the drain at 146 emails/s in BenchmarkOutboxCommitToSMTP).
		FetchCooldown:        min(poll, 20*time.Millisecond),
		Logger:               slog.New(warnHandler{o.log.Handler().WithAttrs([]slog.Attr{slog.String("component", "river")})}),
		MaxAttempts:          25,
		Test:                 river.TestConfig{Time: riverTime{now: o.now, stub: stub}},
		PeriodicJobs:         []*river.PeriodicJob{o.digestJob()},
		JobTimeout:           o.cfg.JobTimeout,
		RescueStuckJobsAfter: 4 * o.cfg.JobTimeout,
		Middleware:           append([]rivertype.Middleware{&jobLog{log: o.log}}, cfg.Middleware...),
	})
	if err != nil {
		return nil, fmt.Errorf("notifier: river client: %w", err)
	}
	o.client = client
	return o, nil
}

// recentMax is the most engine states an outbox keeps for the
// notifications of the changes its process made (a few tens of kilobytes
// each): their workers run within milliseconds of the commit, unless a
// backlog or a failed send delays them past this many changes.
const recentMax = 256

// MigrateRiver applies River's own schema migrations to the store's
// database (after the store's migrations).
func MigrateRiver(ctx context.Context, st *models.Store) error {
	db, err := st.SQLDB()
	if err != nil {
		return err
	}
	var drv riverdriver.Driver[*sql.Tx]
	if st.Dialect() == models.SQLite {
		drv = riversqlite.New(db)
	} else {
		drv = riverdatabasesql.New(db)
	}
	m, err := rivermigrate.New(drv, nil)
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return nil
}

// EnqueueEmail writes one email job in tx: an answer to a reply, or any
// email the outbox renders from a to a.Email. A job with a.Key already
// written is not written again, so the same answer goes out once.
func (o *Outbox) EnqueueEmail(ctx context.Context, tx *sql.Tx, a EmailArgs) error {
	return o.insert(ctx, tx, a, time.Time{})
}

// ReplyConfig is how the outbox makes reply addresses.
func (o *Outbox) ReplyConfig() ReplyConfig { return o.cfg.Reply }

// Start starts working jobs until Stop; jobs committed while no process
// ran are worked now.
func (o *Outbox) Start(ctx context.Context) error { return o.client.Start(ctx) }

// Stop waits for running jobs to finish (until ctx ends) and stops.
func (o *Outbox) Stop(ctx context.Context) error { return o.client.Stop(ctx) }

// Client is the River client, for tests and tools.
func (o *Outbox) Client() *river.Client[*sql.Tx] { return o.client }

// uniqueOpts makes a job unique by its Key field for as long as River
// keeps it, whatever its state: one job per (event, recipient, channel).
var uniqueOpts = river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStateCompleted, rivertype.JobStatePending, rivertype.JobStateRunning,
	rivertype.JobStateRetryable, rivertype.JobStateScheduled, rivertype.JobStateCancelled, rivertype.JobStateDiscarded,
}}

func (o *Outbox) insert(ctx context.Context, tx *sql.Tx, args river.JobArgs, at time.Time) error {
	opts := &river.InsertOpts{UniqueOpts: uniqueOpts}
	if !at.IsZero() {
		opts.ScheduledAt = at
	}
	if b, ok := ctx.Value(jobBatchKey{}).(*jobBatch); ok {
		b.add(args, opts)
		return nil
	}
	_, err := o.client.InsertTx(ctx, tx, args, opts)
	return err
}

// jobBatch collects the jobs that insert is given under batched, to
// insert them in one statement (InsertManyFastTx) instead of one each.
type jobBatch struct {
	params []river.InsertManyParams
	seen   map[string]bool
}

type jobBatchKey struct{}

// add appends a job unless the batch already holds one with its kind and
// unique key: River would skip it as a duplicate, and one statement may not
// hold the same unique key twice.
func (b *jobBatch) add(args river.JobArgs, opts *river.InsertOpts) {
	if v := reflect.Indirect(reflect.ValueOf(args)); v.Kind() == reflect.Struct {
		if f := v.FieldByName("Key"); f.IsValid() && f.Kind() == reflect.String {
			k := args.Kind() + "/" + f.String()
			if b.seen[k] {
				return
			}
			if b.seen == nil {
				b.seen = map[string]bool{}
			}
			b.seen[k] = true
		}
	}
	b.params = append(b.params, river.InsertManyParams{Args: args, InsertOpts: opts})
}

// batched runs fn with the jobs it inserts (through insert, in tx)
// collected, then inserts them all at once. Nothing reads what the insert
// returns, so on Postgres it waits for the transaction's next statement
// (models.Deferred): a game change's write, with its commit, takes it
// along in the same round trip.
func (o *Outbox) batched(ctx context.Context, tx *sql.Tx, fn func(ctx context.Context) error) error {
	b := &jobBatch{}
	if err := fn(context.WithValue(ctx, jobBatchKey{}, b)); err != nil || len(b.params) == 0 {
		return err
	}
	_, err := o.client.InsertManyFastTx(models.Deferred(ctx), tx, b.params)
	return err
}

// RunDue makes the scheduled clock jobs (reminders, timeouts, digests,
// and the emails and pushes that wait for quiet hours to end) whose time
// has come on the injected clock available now, instead of waiting for
// River's scheduler to notice, and returns how many. Tests that move the
// clock call it; River's scheduler does the same on its own in production.
func (o *Outbox) RunDue(ctx context.Context) (int, error) {
	now := o.now()
	res, err := o.client.JobList(ctx, river.NewJobListParams().
		States(rivertype.JobStateScheduled).Kinds(reminderKind, timeoutKind, digestKind, emailKind, pushKind).First(1000))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, j := range res.Jobs {
		if j.ScheduledAt.After(now) {
			continue
		}
		if _, err := o.client.JobRetry(ctx, j.ID); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// jobKey is the unique key of a River job (uniqueOpts: one job per kind
// and key) and of the notification it delivers: dot-separated parts, each
// a word or a tag with a number ("g12.v34.your_turn.u5.email"). The same
// facts make the same key, so a change or a clock step worked twice
// inserts no job twice, and a webhook's delivery id (deliveryID) names
// the same delivery on every try. Every key is built with these helpers.
type jobKey string

// gameKey is the key of game id, "g12", to which the parts of a job of
// the game are added.
func gameKey(id int64) jobKey { return "g" + jobKey(strconv.FormatInt(id, 10)) }

// n adds a tag and a number: gameKey(12).n("v", 34) is "g12.v34".
func (k jobKey) n(tag string, num int64) jobKey {
	return k + "." + jobKey(tag) + jobKey(strconv.FormatInt(num, 10))
}

// w adds a word: gameKey(12).n("v", 34).w("stream") is "g12.v34.stream".
func (k jobKey) w(word string) jobKey { return k + "." + jobKey(word) }

// key is the key of one notification: game, version (or deadline), kind
// and recipient. A channel's part makes its job's key.
func key(gameID, version int64, kind Kind, userID int64) jobKey {
	return gameKey(gameID).n("v", version).w(string(kind)).n("u", userID)
}

// deliveryID is the webhook delivery id of a job key.
func deliveryID(k string) string {
	return "dlv_" + strings.NewReplacer(".", "-").Replace(k)
}

// warnHandler passes on River's warnings and errors only.
type warnHandler struct{ slog.Handler }

func (h warnHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

func (h warnHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return warnHandler{h.Handler.WithAttrs(a)}
}
func (h warnHandler) WithGroup(n string) slog.Handler { return warnHandler{h.Handler.WithGroup(n)} }

// jobLog is River middleware that logs at warning level each failed
// attempt of a job and each job given up (cancelled: an email the server
// refused for good, a push its service turned away, most often for the
// recipient's address or subscription, not a fault of the service):
// River logs them at info and debug, below what warnHandler passes on, so
// an email that waits for a retry, or will never come, says why. (A
// worker's panic River logs at error level itself.)
type jobLog struct {
	river.MiddlewareDefaults
	log *slog.Logger
}

func (m *jobLog) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	err := doInner(ctx)
	var cancel *rivertype.JobCancelError
	var snooze *rivertype.JobSnoozeError
	switch {
	case err == nil, errors.As(err, &snooze):
	case errors.As(err, &cancel):
		m.log.WarnContext(ctx, "job given up", "kind", job.Kind, "job", job.ID, "attempt", job.Attempt,
			"error", errors.Unwrap(cancel))
	default:
		m.log.WarnContext(ctx, "job attempt failed", "kind", job.Kind, "job", job.ID, "attempt", job.Attempt,
			"max_attempts", job.MaxAttempts, "error", err)
	}
	return err
}

package notifier

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river"
)

// digestKind is the River job kind of the digest.
const digestKind = "dm_digest"

// DigestHour is the hour (UTC) at which the daily sweep sends every
// digest that is due and that no change scheduled (see RunDigest).
const DigestHour = 7

// urgentWithin is how close a deadline must be for the digest that names
// it to go out at once, whatever the digest's period.
const urgentWithin = 12 * time.Hour

// digestKinds are the notifications that a user who chose the digest
// gets in the digest instead of one email each; the others (invitations,
// reminders, timeouts, game over) still come at once.
var digestKinds = map[Kind]bool{KindYourTurn: true, KindPromptWaiting: true, KindQueuedActions: true,
	KindGameStarted: true, KindVacation: true}

// DigestArgs is a digest job: the digest of UserID, due At (scheduled
// then), Urgent when a deadline it names is near. A job of before per-user
// digests names a Day (YYYY-MM-DD, UTC) and no user: the sweep of that day.
type DigestArgs struct {
	Key    string    `json:"key,omitempty" river:"unique"`
	Day    string    `json:"day,omitempty" river:"unique"`
	UserID int64     `json:"user_id,omitempty"`
	At     time.Time `json:"at,omitzero"`
	Urgent bool      `json:"urgent,omitempty"`
}

// Kind is the River job kind.
func (DigestArgs) Kind() string { return digestKind }

// dailyAt is a River schedule: every day at hour, UTC.
type dailyAt struct{ hour int }

func (d dailyAt) Next(t time.Time) time.Time {
	t = t.UTC()
	n := time.Date(t.Year(), t.Month(), t.Day(), d.hour, 0, 0, 0, time.UTC)
	if !n.After(t) {
		n = n.AddDate(0, 0, 1)
	}
	return n
}

// digestJob is the periodic job of the daily sweep.
func (o *Outbox) digestJob() *river.PeriodicJob {
	return river.NewPeriodicJob(dailyAt{DigestHour}, func() (river.JobArgs, *river.InsertOpts) {
		return DigestArgs{Day: o.now().UTC().Format(time.DateOnly)}, &river.InsertOpts{UniqueOpts: uniqueOpts}
	}, nil)
}

// workDigest works a digest job: it sends the user's digest if it is due, or, for the sweep, every
// digest that is due. A digest that is not urgent waits while its
// recipient is in their quiet hours, and gathers what happens until they
// end.
func (o *Outbox) workDigest(ctx context.Context, job *river.Job[DigestArgs]) error {
	a := job.Args
	if a.UserID == 0 {
		return o.RunDigest(ctx, o.now())
	}
	if wait := a.At.Sub(o.now()); wait > 0 && !a.Urgent {
		return river.JobSnooze(wait)
	}
	if !a.Urgent {
		if err := o.waitQuiet(ctx, a.UserID, time.Time{}, a.Key); err != nil {
			return err
		}
	}
	return o.settleAndSend(ctx, a.UserID, o.now(), a.Urgent, true, time.Now().Add(digestSettle))
}

// scheduleDigest writes, in tx, the job of user's next digest, for a
// notification that their digest gathers (pref is their digest's row):
// due once their period has passed since the last one, or at once for
// the first, or when urgent (a deadline of theirs is less than
// urgentWithin away). Every notification of one period names the same
// job.
func (o *Outbox) scheduleDigest(ctx context.Context, tx *sql.Tx, pref models.Preference, urgent bool) error {
	at := o.now().UTC()
	if pref.SentAt != nil && !urgent {
		at = maxTime(at, pref.SentAt.UTC().Add(pref.Every()))
	}
	return o.insertDigest(ctx, tx, pref.UserID, at, urgent)
}

// insertDigest writes the job of user uid's digest due at at (to the
// minute, which names the job: one per period), in tx.
func (o *Outbox) insertDigest(ctx context.Context, tx *sql.Tx, uid int64, at time.Time, urgent bool) error {
	k := jobKey("digest").n("u", uid).w("t" + at.UTC().Format("200601021504"))
	if urgent {
		k += ".now"
	}
	sched := at
	if !at.After(o.now()) {
		sched = time.Time{}
	}
	return o.insert(ctx, tx, DigestArgs{Key: string(k), UserID: uid, At: at, Urgent: urgent}, sched)
}

// RunDigest sends, at at, the digest of every user who chose it and whose
// digest is due (their period has passed since the last one) and has
// something new; the daily sweep runs it, for digests no change scheduled.
// The digest of a user in their quiet hours gets a job at their end
// instead.
func (o *Outbox) RunDigest(ctx context.Context, at time.Time) error {
	ids, err := o.store.DigestUsers(ctx)
	if err != nil {
		return err
	}
	quiet, err := o.store.QuietHoursOf(ctx, ids...)
	if err != nil {
		return err
	}
	settleBy := time.Now().Add(digestSettle) // one wait for the whole sweep
	for _, uid := range ids {
		if end, ok := quiet[uid].Within(at); ok {
			err = o.store.Begin(ctx, func(tx models.OutboxTx) error { return o.insertDigest(ctx, tx.Tx, uid, end, false) })
		} else {
			err = o.settleAndSend(ctx, uid, at, false, false, settleBy)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// settleAndSend sends user uid's digest (sendDigest) once the changes
// that write to their log have committed (settle), waiting until by at
// the latest. A digest whose own read finds rows held back although the
// wait saw none waits and reads again: on Postgres a read may count as
// running a transaction of another database that ended as it read (see
// models.Store.NotificationsFrom), and what it holds back would wait for
// the next period's digest.
func (o *Outbox) settleAndSend(ctx context.Context, uid int64, at time.Time, urgent, job bool, by time.Time) error {
	for {
		if err := o.settle(ctx, uid, by); err != nil {
			return err
		}
		if err := o.sendDigest(ctx, uid, at, urgent, job, by); !errors.Is(err, errHeld) {
			return err
		}
		// settle asks at once; a pause keeps a read that keeps finding rows
		// held from looping transactions.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(settlePause):
		}
	}
}

// errHeld is sendDigest's answer when its read found rows held back
// before its wait's end: nothing was written; settle and send again.
var errHeld = errors.New("notifier: a digest's notifications are held back")

// digestSettle is the longest a digest waits, before its transaction,
// for the changes that write to its recipient's log to commit (settle).
const digestSettle = 5 * time.Second

// settlePause is the time between two asks of settle.
const settlePause = 20 * time.Millisecond

// settle waits, until by at the latest, while the rows of user uid's
// notification log after the place their digest told are held back by a
// change still running (models.Store.NotificationsFrom), so that a digest
// does not leave for the next one what commits a moment later. It waits
// outside any transaction: one of the digest's own would hold back every
// log of the database as long.
func (o *Outbox) settle(ctx context.Context, uid int64, by time.Time) error {
	prefs, err := o.store.Preferences(ctx, []int64{uid})
	if err != nil {
		return err
	}
	i := slices.IndexFunc(prefs, func(p models.Preference) bool {
		return p.Kind == models.DigestKind && p.Channel == models.DigestChannel && p.Enabled
	})
	if i < 0 {
		return nil
	}
	for {
		_, _, held, err := o.store.NotificationsFrom(ctx, uid, prefs[i].Told(), digestMost)
		if err != nil || !held || time.Now().After(by) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(settlePause):
		}
	}
}

// sendDigest writes, at at, user uid's digest email, if they chose the
// digest, it is due (or urgent) and it has news: per game, what they were
// told since their last digest and whether the game waits for them. The
// digest's row records when it went out and up to where in their
// notification log it told, in the same transaction. A job
// (job) that finds it not due, one having gone out meanwhile, passes on
// to the next period's job what it was written for. A read that finds
// rows held back before by returns errHeld and writes nothing.
func (o *Outbox) sendDigest(ctx context.Context, uid int64, at time.Time, urgent, job bool, by time.Time) error {
	base := strings.TrimRight(o.cfg.Email.BaseURL, "/")
	return o.store.Begin(ctx, func(tx models.OutboxTx) error {
		pref, err := tx.Store.Digest(ctx, uid)
		if errors.Is(err, models.ErrNotFound) {
			return nil
		}
		if err != nil || !pref.Enabled {
			return err
		}
		from := at.Add(-pref.Every())
		if pref.SentAt != nil {
			if next := pref.SentAt.Add(pref.Every()); !urgent && at.Before(next) {
				if job {
					return o.insertDigest(ctx, tx.Tx, uid, next, false)
				}
				return nil
			}
			from = *pref.SentAt
		}
		users, err := tx.Store.UsersByIDs(ctx, []int64{uid})
		if err != nil {
			return err
		}
		u := users[uid]
		if u == nil || u.Email == "" || !u.NotifyEmail {
			return nil
		}
		// What the log holds after the last digest's place, in its order
		// (models.Store.NotificationsFrom): a change still running now
		// comes in the next digest, whatever time it was written at.
		told, since := pref.Told(), false
		if told == (models.NoteCursor{}) {
			var any bool
			if told, any, err = tx.Store.NoteCursorSince(ctx, uid, from); err != nil || !any {
				return err
			}
			since = true
		}
		ns, next, held, err := tx.Store.NotificationsFrom(ctx, uid, told, digestMost)
		if err != nil {
			return err
		}
		if held && time.Now().Before(by) {
			return errHeld
		}
		held = held || len(ns) == digestMost // more to tell next time
		waiting, err := tx.Store.ListGames(ctx, models.GameFilter{UserID: uid, Awaiting: true, Status: models.StatusActive, Limit: 100})
		if err != nil {
			return err
		}
		byGame := map[int64]*DigestGame{}
		var order []int64
		game := func(id int64) *DigestGame {
			if g := byGame[id]; g != nil {
				return g
			}
			gid := strconv.FormatInt(id, 10)
			byGame[id] = &DigestGame{Title: "Game #" + gid, URL: GameURL(base, id)}
			order = append(order, id)
			return byGame[id]
		}
		news, last := 0, int64(0)
		for _, n := range ns {
			if n.GameID == nil || !digestKinds[Kind(n.Kind)] || since && n.CreatedAt.Before(from) {
				continue
			}
			game(*n.GameID).Lines = append(game(*n.GameID).Lines, digestLine(n, u.Username))
			news, last = news+1, max(last, n.ID)
		}
		if held {
			// Rows a change still writes, or more than one digest tells:
			// the next period's digest tells them (or, with nothing sent
			// now, one in a minute).
			again := at.Add(pref.Every())
			if news == 0 {
				again = at.Add(time.Minute)
			}
			if err := o.insertDigest(ctx, tx.Tx, uid, again, false); err != nil {
				return err
			}
		}
		if news == 0 {
			// Nothing new since the last digest: what it read is told.
			return tx.Store.DigestTold(ctx, uid, next, nil)
		}
		for _, g := range waiting {
			dg := game(g.ID)
			dg.YourTurn = true
			if g.DeadlineAt != nil {
				dg.Deadline = *g.DeadlineAt
			}
		}
		d := Digest{Day: at, Since: from}
		for _, id := range order {
			d.Games = append(d.Games, *byGame[id])
		}
		d.Recipient = cmp.Or(u.DisplayName, u.Username)
		d.SettingsURL = PreferencesURL(base)
		if o.cfg.UnsubscribeSecret != nil {
			d.UnsubscribeURL = UnsubscribeURL(base, UnsubscribeToken(o.cfg.UnsubscribeSecret, strconv.FormatInt(uid, 10), string(KindDigest)))
		}
		body, err := json.Marshal(d)
		if err != nil {
			return err
		}
		if err := tx.Store.DigestTold(ctx, uid, next, &at); err != nil {
			return err
		}
		// One email per digest, named by the last notification it tells.
		k := jobKey("digest").w("d"+at.UTC().Format("200601021504")).n("n", last).n("u", uid).w("email")
		return o.insert(ctx, tx.Tx, EmailArgs{Key: string(k), UserID: uid, Name: d.Recipient, Email: u.Email, NoteKind: KindDigest, Data: body}, time.Time{})
	})
}

// digestMost is the most notifications one digest reads; more wait for
// the next.
const digestMost = 1000

// digestLine words one notification of the user named username for the
// digest.
func digestLine(n models.Notification, username string) string {
	var d struct {
		Turn   int      `json:"turn"`
		TurnOf string   `json:"turn_of"`
		Player string   `json:"player"`
		Since  []string `json:"since"`
	}
	json.Unmarshal([]byte(n.Body), &d)
	at := n.CreatedAt.UTC().Format("15:04")
	switch Kind(n.Kind) {
	case KindYourTurn:
		if d.Turn > 0 {
			return at + " your turn " + strconv.Itoa(d.Turn) + " began"
		}
		return at + " your turn began"
	case KindPromptWaiting:
		if d.TurnOf == username {
			return at + " a decision waited for you during your turn"
		}
		if d.TurnOf != "" {
			return at + " a decision waited for you during " + d.TurnOf + "'s turn"
		}
		return at + " a decision waited for you"
	case KindQueuedActions:
		return at + " your queued actions ran or were dropped"
	case KindGameStarted:
		return at + " the game started"
	case KindVacation:
		return at + " " + d.Player + " went on vacation"
	}
	return at + " " + n.Kind
}

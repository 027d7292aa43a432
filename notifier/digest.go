package notifier

import (
	"cmp"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river"
)

// digestKind is the River job kind of the daily digest.
const digestKind = "dm_digest"

// DigestHour is the hour (UTC) at which the daily digest of the day
// before goes out.
const DigestHour = 7

// digestKinds are the notifications that a user who chose the daily
// digest gets in the digest instead of one email each; the others
// (invitations, reminders, timeouts, game over) still come at once.
var digestKinds = map[Kind]bool{KindYourTurn: true, KindPromptWaiting: true, KindQueuedActions: true,
	KindGameStarted: true, KindVacation: true}

// DigestArgs is the digest job of one day (YYYY-MM-DD, UTC) for every user
// who asked for it.
type DigestArgs struct {
	Day string `json:"day" river:"unique"`
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

// digestJob is the periodic job that writes each day's digest job.
func (o *Outbox) digestJob() *river.PeriodicJob {
	return river.NewPeriodicJob(dailyAt{DigestHour}, func() (river.JobArgs, *river.InsertOpts) {
		day := o.now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
		return DigestArgs{Day: day}, &river.InsertOpts{UniqueOpts: uniqueOpts}
	}, nil)
}

type digestWorker struct {
	river.WorkerDefaults[DigestArgs]
	o *Outbox
}

// Work writes the day's digest emails.
func (w *digestWorker) Work(ctx context.Context, job *river.Job[DigestArgs]) error {
	day, err := time.Parse(time.DateOnly, job.Args.Day)
	if err != nil {
		return river.JobCancel(err)
	}
	return w.o.RunDigest(ctx, day)
}

// RunDigest writes the digest email of day (UTC) for every user who asked
// for it: per game, what they were told that day and whether the game
// waits for them. A user with nothing to report gets no digest. Each
// user's email job is unique per day.
func (o *Outbox) RunDigest(ctx context.Context, day time.Time) error {
	from := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)
	ids, err := o.store.DigestUsers(ctx)
	if err != nil {
		return err
	}
	base := strings.TrimRight(o.cfg.Email.BaseURL, "/")
	for _, uid := range ids {
		err := o.store.Begin(ctx, func(tx models.OutboxTx) error {
			users, err := tx.Store.UsersByIDs(ctx, []int64{uid})
			if err != nil {
				return err
			}
			u := users[uid]
			if u == nil || u.Email == "" || !u.NotifyEmail {
				return nil
			}
			ns, err := tx.Store.NotificationsBetween(ctx, uid, from, to, 1000)
			if err != nil {
				return err
			}
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
			for _, n := range ns {
				if n.GameID == nil || !digestKinds[Kind(n.Kind)] {
					continue
				}
				game(*n.GameID).Lines = append(game(*n.GameID).Lines, digestLine(n))
			}
			for _, g := range waiting {
				dg := game(g.ID)
				dg.YourTurn = true
				if g.DeadlineAt != nil {
					dg.Deadline = *g.DeadlineAt
				}
			}
			if len(order) == 0 {
				return nil
			}
			d := Digest{Day: from}
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
			k := "digest.d" + from.Format("20060102") + ".u" + strconv.FormatInt(uid, 10) + ".email"
			return o.insert(ctx, tx.Tx, EmailArgs{Key: k, UserID: uid, Name: d.Recipient, Email: u.Email, NoteKind: KindDigest, Data: body}, time.Time{})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// digestLine words one notification for the digest.
func digestLine(n models.Notification) string {
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

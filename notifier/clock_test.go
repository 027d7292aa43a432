package notifier

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// storeTimeouter applies the engine's timeout action the way the API
// server does: only once the game's deadline has passed on the clock.
type storeTimeouter struct {
	e     *outboxEnv
	calls int
}

var errNotDue = errors.New("not due")

func (s *storeTimeouter) Timeout(ctx context.Context, id int64) (bool, error) {
	s.calls++
	_, err := s.e.st.Mutate(ctx, id, func(g *models.Game) (*models.Change, error) {
		if g.Status != models.StatusActive || g.DeadlineAt == nil || g.DeadlineAt.After(s.e.clock.Now()) {
			return nil, errNotDue
		}
		st, err := engine.Unmarshal(g.State)
		if err != nil {
			return nil, err
		}
		a := engine.Action{Type: engine.ActTimeout}
		events, err := engine.Apply(st, engine.System, a)
		if err != nil {
			return nil, err
		}
		return s.e.commit(g, st, events, engine.System, []engine.Action{a})
	})
	if errors.Is(err, errNotDue) {
		return false, nil
	}
	return err == nil, err
}

// mailKinds returns the notification kind of each message in msgs (from
// its Message-ID) with its recipient, e.g. "deadline_reminder>ben@example.com".
func mailKinds(t *testing.T, msgs []received) []string {
	var out []string
	for _, m := range msgs {
		id := parseMail(t, m.Data).Header.Get("Message-Id")
		for _, k := range Kinds {
			if strings.Contains(id, "."+string(k)+".") {
				out = append(out, string(k)+">"+m.Rcpts[0])
			}
		}
	}
	return out
}

// TestClockReminderAndTimeout moves the injected clock: the reminder job
// scheduled at 80% of the turn reminds the awaited player only, and the
// timeout job at the deadline submits the engine's timeout, which every
// player is told about.
func TestClockReminderAndTimeout(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		to := &storeTimeouter{e: e}
		e.cfg.Timeouts = to
		o := e.outbox(t, true)
		g := e.createGame(t)
		e.start(t, g.ID)
		before := len(e.waitMail(t, 5)) // 2 invitations, 3 game started
		game, err := e.st.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		start := e.clock.Now()
		if !game.DeadlineAt.Equal(start.Add(72 * time.Hour)) {
			t.Fatalf("deadline %v, want 72 h after %v", game.DeadlineAt, start)
		}
		res, err := o.Client().JobList(ctx, river.NewJobListParams().States(rivertype.JobStateScheduled).Kinds(reminderKind, timeoutKind))
		if err != nil {
			t.Fatal(err)
		}
		var at []time.Duration
		for _, j := range res.Jobs {
			at = append(at, j.ScheduledAt.Sub(start).Round(time.Minute))
		}
		slices.Sort(at)
		if !slices.Equal(at, []time.Duration{time.Duration(0.8 * float64(72*time.Hour)).Round(time.Minute), 72 * time.Hour}) {
			t.Fatalf("clock jobs at %v after the start", at)
		}
		var awaited string
		for _, s := range game.Seats {
			if s.Awaited {
				awaited = s.Username + "@example.com"
			}
		}
		// Nothing is due yet.
		e.clock.Add(57 * time.Hour)
		if n, err := o.RunDue(ctx); err != nil || n != 0 {
			t.Fatalf("due at 57 h: %d %v", n, err)
		}
		e.clock.Add(time.Hour)
		if n, err := o.RunDue(ctx); err != nil || n != 1 {
			t.Fatalf("due at 58 h: %d %v", n, err)
		}
		msgs := e.waitMail(t, before+1)
		if got := mailKinds(t, msgs[before:]); !slices.Equal(got, []string{"deadline_reminder>" + awaited}) {
			t.Fatalf("after the reminder: %v", got)
		}
		before = len(msgs)
		e.clock.Add(14 * time.Hour)
		if n, err := o.RunDue(ctx); err != nil || n != 1 {
			t.Fatalf("due at 72 h: %d %v", n, err)
		}
		msgs = e.waitMail(t, before+3)
		got := mailKinds(t, msgs[before:])
		timeouts := 0
		for _, k := range got {
			if strings.HasPrefix(k, "timeout_applied>") {
				timeouts++
			}
		}
		if timeouts != 3 || to.calls != 1 {
			t.Fatalf("after the deadline (%d timeout calls): %v", to.calls, got)
		}
		game, _ = e.st.Game(ctx, g.ID)
		if game.Version != 3 || !game.DeadlineAt.After(e.clock.Now()) {
			t.Fatalf("after the timeout: version %d, deadline %v", game.Version, game.DeadlineAt)
		}
		for _, m := range msgs[before:] {
			p := parseMail(t, m.Data)
			if strings.Contains(p.Header.Get("Message-Id"), ".timeout_applied.") && !strings.Contains(p.Text, "Time ran out") &&
				!strings.Contains(strings.ToLower(p.Text), "time") {
				t.Fatalf("timeout mail:\n%s", p.Text)
			}
		}
	})
}

// TestClockStaleDeadlineDoesNothing: a player acted before the deadline, so
// the jobs of the old deadline neither remind nor time out.
func TestClockStaleDeadlineDoesNothing(t *testing.T) {
	ctx := context.Background()
	e := newOutboxEnv(t, models.SQLite)
	to := &storeTimeouter{e: e}
	e.cfg.Timeouts = to
	o := e.outbox(t, true)
	g := e.createGame(t)
	e.start(t, g.ID)
	before := len(e.waitMail(t, 5))
	e.clock.Add(time.Hour)
	e.step(t, g.ID, rand.New(rand.NewPCG(1, 1))) // a new deadline 72 h from now
	time.Sleep(200 * time.Millisecond)
	before = len(e.sink.messages())
	e.clock.Add(72*time.Hour - time.Minute) // past the first deadline, before the second
	if _, err := o.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	for _, k := range mailKinds(t, e.sink.messages()[before:]) {
		if !strings.HasPrefix(k, "deadline_reminder>") {
			t.Fatalf("stale deadline sent %s", k)
		}
	}
	if to.calls != 0 {
		t.Fatalf("stale timeout job called the timeouter %d times", to.calls)
	}
}

package notifier

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/riverqueue/river"
)

// testClock is a movable clock.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// outboxEnv is a store with an outbox delivering to an SMTP sink.
type outboxEnv struct {
	st    *models.Store
	sink  *sink
	hub   *Hub
	clock *testClock
	cfg   OutboxConfig
	users []*models.User
	last  *Outbox // the outbox built last, whose jobs a failed wait lists
}

func newOutboxEnv(t *testing.T, d models.Dialect) *outboxEnv {
	t.Helper()
	return newOutboxEnvOn(t, func(opt models.Options) *models.Store { return modelstest.Open(t, d, opt) })
}

// newOutboxEnvOn is newOutboxEnv on the store open opens.
func newOutboxEnvOn(t *testing.T, open func(models.Options) *models.Store) *outboxEnv {
	t.Helper()
	clock := &testClock{t: time.Now().UTC().Truncate(time.Second)}
	st := open(models.Options{Now: clock.Now})
	if err := MigrateRiver(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	s := startSink(t, sinkOptions{})
	e := &outboxEnv{st: st, sink: s, hub: NewHub(0), clock: clock}
	e.cfg = OutboxConfig{Store: st, Email: s.config(), Hub: e.hub, Now: clock.Now, PollInterval: 20 * time.Millisecond,
		UnsubscribeSecret: []byte("unsub-secret")}
	for _, name := range []string{"ana", "ben", "cy"} {
		u := &models.User{Username: name, Email: name + "@example.com", NotifyEmail: true, NotifyTurns: true}
		if err := st.CreateUser(context.Background(), u, "x"); err != nil {
			t.Fatal(err)
		}
		e.users = append(e.users, u)
	}
	return e
}

// outbox builds an outbox with its own SMTP sender; start says whether its
// River client works jobs.
func (e *outboxEnv) outbox(t *testing.T, start bool) *Outbox {
	t.Helper()
	sender, err := NewSMTPSender(e.cfg.Email, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sender.Close() })
	cfg := e.cfg
	cfg.Sender = sender
	o, err := NewOutbox(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.st.SetOutbox(o)
	e.last = o
	if start {
		if err := o.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			o.Stop(ctx)
		})
	}
	return o
}

// createGame stores a 3-seat game created by ana with ben and cy invited
// and joined, not started.
func (e *outboxEnv) createGame(t testing.TB) *models.Game {
	t.Helper()
	deck, _ := json.Marshal(engine.Standard().Decks()[0])
	ds := string(deck)
	g := &models.Game{CreatedBy: e.users[0].ID, Status: models.StatusOpen, Mode: "fast", Policy: "holders", Players: 3,
		Settings: `{"turn_deadline_seconds":259200,"prompt_deadline_seconds":86400}`, Version: 1}
	for i, u := range e.users {
		id := u.ID
		g.Seats = append(g.Seats, models.Seat{SeatNo: i, UserID: &id, Username: u.Username, Invited: i > 0, Joined: true, Deck: &ds})
	}
	if err := e.st.CreateGame(context.Background(), g, models.Happened{Invited: []int{1, 2}}); err != nil {
		t.Fatal(err)
	}
	return g
}

// commit records next as the game's new state, as the play path does;
// before are the ids of the prompts pending before the change.
func (e *outboxEnv) commit(g *models.Game, before []string, next *engine.State, events []engine.Event, seat int, actions []engine.Action) (*models.Change, error) {
	data, err := next.Marshal()
	if err != nil {
		return nil, err
	}
	g.State = data
	g.Version++
	var h models.Happened
	aw := engine.Awaiting(next)
	for i := range g.Seats {
		if slices.Contains(aw, i) && !g.Seats[i].Awaited {
			h.Awaited = append(h.Awaited, i)
		}
		g.Seats[i].Awaited = slices.Contains(aw, i)
	}
	for _, p := range next.Prompts {
		if !slices.Contains(before, p.ID) {
			h.Opened = append(h.Opened, p.ID)
		}
	}
	h.Over, h.Deadline = next.Over(), !next.Over()
	now := e.clock.Now()
	switch {
	case next.Over():
		g.Status, g.DeadlineAt = models.StatusOver, nil
		var w []string
		for _, s := range next.Winners {
			w = append(w, strconv.Itoa(s))
		}
		g.Winners = strings.Join(w, ",")
	case len(next.Prompts) > 0:
		d := now.Add(24 * time.Hour)
		g.DeadlineAt = &d
	default:
		d := now.Add(72 * time.Hour)
		g.DeadlineAt = &d
	}
	ch := &models.Change{ReplacePrompts: true, Happened: h}
	for _, a := range actions {
		b, _ := json.Marshal(a)
		ch.Actions = append(ch.Actions, models.ActionRecord{Version: g.Version, Seat: seat, Body: string(b)})
	}
	for _, ev := range events {
		b, _ := json.Marshal(ev)
		ch.Events = append(ch.Events, models.EventRecord{Body: string(b)})
	}
	for _, p := range next.Prompts {
		b, _ := json.Marshal(p)
		ch.Prompts = append(ch.Prompts, models.PromptRecord{PromptID: p.ID, Seat: p.Seat, Body: string(b), DeadlineAt: g.DeadlineAt})
	}
	return ch, nil
}

// start starts game id, dealt from its seats' decks with seed 7.
func (e *outboxEnv) start(t testing.TB, id int64) {
	t.Helper()
	e.startWith(t, id, func(g *models.Game) (*engine.State, []engine.Event, error) {
		setup := engine.Setup{Seed: 7, Mode: engine.ModeFast, Policy: engine.Holders}
		for _, s := range g.Seats {
			var d engine.Deck
			json.Unmarshal([]byte(*s.Deck), &d)
			setup.Players = append(setup.Players, engine.SeatSetup{Name: s.Username, Deck: d})
		}
		return engine.NewGame(setup)
	})
}

// startWith starts game id in the state deal gives, with its events, as
// a start through the play path commits it.
func (e *outboxEnv) startWith(t testing.TB, id int64, deal func(g *models.Game) (*engine.State, []engine.Event, error)) {
	t.Helper()
	_, err := e.st.Mutate(context.Background(), id, func(g *models.Game) (*models.Change, error) {
		st, events, err := deal(g)
		if err != nil {
			return nil, err
		}
		now := e.clock.Now()
		g.Status, g.StartedAt = models.StatusActive, &now
		ch, err := e.commit(g, nil, st, events, -1, nil)
		if ch != nil {
			ch.Happened.Started = true
		}
		return ch, err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// step plays one greedy-bot action for the first awaited seat; it reports
// false once the game is over.
func (e *outboxEnv) step(t testing.TB, id int64, r *rand.Rand) bool {
	t.Helper()
	more := true
	_, err := e.st.Mutate(context.Background(), id, func(g *models.Game) (*models.Change, error) {
		st, err := engine.Unmarshal(g.State)
		if err != nil {
			return nil, err
		}
		aw := engine.Awaiting(st)
		if len(aw) == 0 {
			more = false
			return nil, nil
		}
		seat := aw[0]
		var before []string
		for _, p := range st.Prompts {
			before = append(before, p.ID)
		}
		a := bot.NewGreedy(r).Choose(st.View(seat), engine.Legal(st, seat))
		events, err := engine.Apply(st, seat, a)
		if err != nil {
			return nil, err
		}
		return e.commit(g, before, st, events, seat, []engine.Action{a})
	})
	if err != nil {
		t.Fatal(err)
	}
	return more
}

// waitMail waits until the sink holds n messages.
func (e *outboxEnv) waitMail(t *testing.T, n int) []received {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if msgs := e.sink.messages(); len(msgs) >= n {
			time.Sleep(100 * time.Millisecond) // a duplicate would show up now
			return e.sink.messages()
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("sink has %d messages, want %d; the email jobs:\n%s", len(e.sink.messages()), n, e.emailJobs())
	return nil
}

// emailJobs lists the last outbox's email jobs, a line each: state,
// attempts and the last attempt's error, for a failed wait to show where
// its emails are.
func (e *outboxEnv) emailJobs() string {
	if e.last == nil {
		return "(no outbox)"
	}
	res, err := e.last.Client().JobList(context.Background(), river.NewJobListParams().Kinds(emailKind).First(100))
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, j := range res.Jobs {
		fmt.Fprintf(&b, "  job %d %s, attempt %d of %d, scheduled %s", j.ID, j.State, j.Attempt, j.MaxAttempts, j.ScheduledAt.Format(time.RFC3339Nano))
		if len(j.Errors) > 0 {
			fmt.Fprintf(&b, ": %s", j.Errors[len(j.Errors)-1].Error)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func eachOutboxDB(t *testing.T, f func(t *testing.T, d models.Dialect)) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		f(t, d)
	})
}

func TestOutboxInvitationsAndStartByEmail(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e := newOutboxEnv(t, d)
		e.outbox(t, true)
		g := e.createGame(t)
		msgs := e.waitMail(t, 2)
		if len(msgs) != 2 {
			t.Fatalf("%d invitation mails, want 2", len(msgs))
		}
		var to []string
		for _, m := range msgs {
			to = append(to, m.Rcpts...)
			p := parseMail(t, m.Data)
			// The game's one subject; what the email is about, its first line.
			if p.Header.Get("Subject") != "[Data Monsters] Game #"+strconv.FormatInt(g.ID, 10)+", hosted by ana" ||
				!strings.Contains(p.Text, "Hello ") || !strings.Contains(p.Text, "ana invites you to play") {
				t.Errorf("subject %q, text:\n%s", p.Header.Get("Subject"), p.Text)
			}
			gid := strconv.FormatInt(g.ID, 10)
			if p.Header.Get("References") != "<game-"+gid+"@dm.example>" || p.Header.Get("In-Reply-To") != "<game-"+gid+"@dm.example>" {
				t.Errorf("threading: %q %q", p.Header.Get("References"), p.Header.Get("In-Reply-To"))
			}
			if !strings.HasPrefix(p.Header.Get("Message-Id"), "<game-"+gid+".g"+gid+".v1.invitation.u") {
				t.Errorf("Message-ID %q", p.Header.Get("Message-Id"))
			}
			if !strings.HasPrefix(p.Header.Get("List-Unsubscribe"), "<https://dm.example/v1/unsubscribe?token=") ||
				p.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
				t.Errorf("unsubscribe headers: %q %q", p.Header.Get("List-Unsubscribe"), p.Header.Get("List-Unsubscribe-Post"))
			}
			if !strings.Contains(p.Text, "ana") || !strings.Contains(p.HTML, "ana") {
				t.Errorf("body does not name the inviter:\n%s", p.Text)
			}
		}
		slices.Sort(to)
		if !slices.Equal(to, []string{"ben@example.com", "cy@example.com"}) {
			t.Fatalf("recipients %v", to)
		}
		e.start(t, g.ID)
		msgs = e.waitMail(t, 5)
		if len(msgs) != 5 {
			t.Fatalf("%d mails after the start, want 2 invitations and 3 game-started", len(msgs))
		}
		for _, m := range msgs[2:] {
			p := parseMail(t, m.Data)
			if !strings.Contains(p.Text, "ana, ben") && !strings.Contains(p.Text, "ana") {
				t.Errorf("game started mail does not list the players:\n%s", p.Text)
			}
		}
		// The stream log has one entry per notification and recipient.
		ns, err := e.st.NotificationsAfter(context.Background(), e.users[1].ID, 0, 10)
		if err != nil || len(ns) != 2 || ns[0].Kind != "invitation" || ns[1].Kind != "game_started" {
			t.Fatalf("ben's notifications: %+v %v", ns, err)
		}
	})
}

// TestOutboxCrashBetweenCommitAndDelivery commits changes while no worker
// runs (the process died after commit), then starts a new outbox: every
// notification is delivered, each once.
func TestOutboxCrashBetweenCommitAndDelivery(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e := newOutboxEnv(t, d)
		e.outbox(t, false) // writes jobs, works none: the crash window
		g := e.createGame(t)
		e.start(t, g.ID)
		r := rand.New(rand.NewPCG(1, 2))
		for range 30 {
			if !e.step(t, g.ID, r) {
				break
			}
		}
		if n := len(e.sink.messages()); n != 0 {
			t.Fatalf("%d mails sent before any worker ran", n)
		}
		var want int64
		if err := e.st.ExecForTest(context.Background(), "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		db, _ := e.st.SQLDB()
		if err := db.QueryRow(`SELECT COUNT(*) FROM river_job WHERE kind = 'dm_email'`).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if want < 5 {
			t.Fatalf("only %d email jobs were written", want)
		}
		e.outbox(t, true) // the restarted process
		msgs := e.waitMail(t, int(want))
		ids := map[string]int{}
		for _, m := range msgs {
			ids[parseMail(t, m.Data).Header.Get("Message-Id")]++
		}
		if len(msgs) != int(want) || len(ids) != int(want) {
			t.Fatalf("%d mails with %d distinct Message-IDs, want %d of each", len(msgs), len(ids), want)
		}
	})
}

// TestOutboxOneStreamJobPerChange: a change's live-stream job names all
// the notifications it stored and the range of its events, so the stream
// costs one job per change, however many players are told.
func TestOutboxOneStreamJobPerChange(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		o := e.outbox(t, false) // keep the jobs to read them
		g := e.createGame(t)
		e.start(t, g.ID)
		r := rand.New(rand.NewPCG(3, 4))
		changes := 2 // the creation and the start
		for range 10 {
			changes++
			if !e.step(t, g.ID, r) {
				break
			}
		}
		res, err := o.Client().JobList(ctx, river.NewJobListParams().Kinds(streamKind).First(100))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Jobs) != changes {
			t.Fatalf("%d stream jobs for %d changes", len(res.Jobs), changes)
		}
		var start StreamArgs
		for _, j := range res.Jobs {
			var a StreamArgs
			if err := json.Unmarshal(j.EncodedArgs, &a); err != nil {
				t.Fatal(err)
			}
			if a.Key == streamKey(g.ID, 2) {
				start = a
			}
		}
		ns, err := e.st.NotificationsAfter(ctx, e.users[1].ID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(start.Notes) != 3 || start.GameID != g.ID || start.FromSeq != 1 || start.ToSeq < start.FromSeq ||
			!slices.Contains(start.Notes, StreamNote{e.users[1].ID, ns[1].ID}) {
			t.Fatalf("the start's stream job %+v, want the 3 game_started notifications (ben's is %d) and the start's events", start, ns[1].ID)
		}
	})
}

// TestOutboxSMTPDownThenUp: mails committed while the SMTP server is down
// are retried, and arrive once it is back, each once.
func TestOutboxSMTPDownThenUp(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		e.sink.setDown(true)
		e.cfg.Email.Timeout = time.Second
		e.cfg.Now = nil // River's real clock, so that the retries come due
		e.cfg.EmailRetryBase = 100 * time.Millisecond
		o := e.outbox(t, true)
		e.createGame(t) // two invitations
		waitFor(t, "both emails to fail while the server is down", func() bool {
			res, err := o.Client().JobList(ctx, river.NewJobListParams().Kinds(emailKind))
			if err != nil {
				t.Fatal(err)
			}
			failed := 0
			for _, j := range res.Jobs {
				if len(j.Errors) > 0 {
					failed++
				}
			}
			return failed == 2
		})
		if n := len(e.sink.messages()); n != 0 {
			t.Fatalf("%d mails while the server was down", n)
		}
		e.sink.setDown(false)
		msgs := e.waitMail(t, 2)
		ids := map[string]bool{}
		for _, m := range msgs {
			ids[parseMail(t, m.Data).Header.Get("Message-Id")] = true
		}
		if len(msgs) != 2 || len(ids) != 2 {
			t.Fatalf("%d mails with %d Message-IDs after the server came back, want 2 of each", len(msgs), len(ids))
		}
	})
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{"GameID": "game_id", "UnsubscribeURL": "unsubscribe_url", "Recipient": "recipient",
		"TurnOf": "turn_of", "URL": "url", "FirstPlayer": "first_player"} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
	got, err := publicJSON([]byte(`{"GameID":"4","Now":"x","Prompts":[{"Text":"t","Options":["a"]}]}`))
	if err != nil || string(got) != `{"game_id":"4","prompts":[{"options":["a"],"text":"t"}]}` {
		t.Fatalf("publicJSON: %s %v", got, err)
	}
}

// TestDailyDigest: a user who chose the digest gets no game-started email
// but one digest listing the game, which waits for them or not.
func TestDailyDigest(t *testing.T) {
	ctx := context.Background()
	e, o, _, _ := digestGame(t, models.SQLite)
	e.waitMail(t, 4) // 2 invitations, game started to ana and cy
	if err := o.RunDigest(ctx, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	// The 5th is ben's digest, in whatever order the mails came: the
	// outbox may have sent it on its own schedule before this run, and
	// before an invitation.
	msgs := e.waitMail(t, 5)
	kinds := mailKinds(t, msgs)
	digest := slices.Index(kinds, "digest>ben@example.com")
	if len(msgs) != 5 || digest < 0 || slices.Contains(kinds, "game_started>ben@example.com") {
		t.Fatalf("%d mails: %v; want 2 invitations, the game's start to ana and cy, and ben's digest", len(msgs), kinds)
	}
	p := parseMail(t, msgs[digest].Data)
	if !strings.Contains(p.Header.Get("Subject"), "digest") || !strings.Contains(p.Text, "the game started") ||
		!strings.Contains(p.Text, "Game #") || !strings.HasPrefix(p.Header.Get("Message-Id"), "<dm.digest.d") {
		t.Fatalf("digest: %s\n%s", p.Header.Get("Subject"), p.Text)
	}
	// The same day again writes nothing new.
	if err := o.RunDigest(ctx, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(e.sink.messages()); n != 5 {
		t.Fatalf("%d mails after a second digest run", n)
	}
}

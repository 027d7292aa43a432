package notifier

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// quietNow gives ana and ben quiet hours (UTC) from an hour before e's
// clock to two hours after it (modelstest.QuietAround), and returns them
// and when they end.
func (e *outboxEnv) quietNow(t *testing.T) (models.QuietHours, time.Time) {
	t.Helper()
	now := e.clock.Now()
	q := modelstest.QuietAround(now)
	for _, u := range e.users[:2] {
		if err := e.st.SetQuietHours(context.Background(), u.ID, &q); err != nil {
			t.Fatal(err)
		}
	}
	end, ok := q.Within(now)
	if !ok {
		t.Fatalf("%v is not in %+v", now, q)
	}
	return q, end
}

// duel creates a game of ana's against ben with n's clocks, and has ben
// join it (the invitation goes out now); start starts it.
func (e *outboxEnv) duel(t *testing.T, p *play.Service, n play.NewGame) (id int64, start func() *models.Game) {
	t.Helper()
	ctx := context.Background()
	ana, ben := e.users[0], e.users[1]
	n.Players, n.Mode, n.Invite, n.Deck = 2, "fast", []string{ben.Username}, play.DeckChoice{Prebuilt: "running-a-startup"}
	res, err := p.Create(ctx, ana.ID, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Join(ctx, res.Game.ID, ben.ID, play.DeckChoice{Prebuilt: "working-for-the-enterprise"}, nil); err != nil {
		t.Fatal(err)
	}
	return res.Game.ID, func() *models.Game {
		res, err := p.Start(ctx, res.Game.ID, ana.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		return res.Game
	}
}

// mailsTo returns the messages of msgs to addr, parsed.
func mailsTo(t *testing.T, msgs []received, addr string) []parsedMail {
	var out []parsedMail
	for _, m := range msgs {
		if m.Rcpts[0] == addr {
			out = append(out, parseMail(t, m.Data))
		}
	}
	return out
}

// scheduledJobs returns when the scheduled jobs of kind run.
func scheduledJobs(t *testing.T, o *Outbox, kind string) []time.Time {
	t.Helper()
	res, err := o.Client().JobList(context.Background(), river.NewJobListParams().States(rivertype.JobStateScheduled).Kinds(kind))
	if err != nil {
		t.Fatal(err)
	}
	var at []time.Time
	for _, j := range res.Jobs {
		at = append(at, j.ScheduledAt)
	}
	return at
}

// TestQuietHoursWait: ana and ben are in their quiet hours when their
// game starts, with two days a turn. The first player's turn would end
// in their quiet hours two days on: it ends when they end. Neither start
// email nor push goes out (their jobs wait for the end), until the clock
// reaches it; then both go, the first player's saying that their
// deadline was moved out of their quiet hours, the other's that the
// game's deadline was moved out of the first player's. The next night,
// the other player's your-turn email waits likewise, and is sent when
// the quiet hours end.
func TestQuietHoursWait(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		cfg, ps, browsers := e.pushBrowsers(t)
		ana, ben := e.users[0], e.users[1]
		o := e.outbox(t, true)
		p := play.New(e.st, e.clock.Now, nil)
		_, start := e.duel(t, p, play.NewGame{TurnDeadlineSeconds: 2 * 24 * 3600})
		before := len(e.waitMail(t, 1)) // ben's invitation, before quiet hours
		waitFor(t, "the invitation's push", func() bool { return len(ps.Requests(browsers[ben.ID].Path)) == 1 })
		quiet, end := e.quietNow(t)
		g := start()
		first, other := g.Seats[0], g.Seats[1]
		if g.Seats[1].Awaited {
			first, other = g.Seats[1], g.Seats[0]
		}
		if want := end.Add(2 * 24 * time.Hour); !g.DeadlineAt.Equal(want) || !slices.Equal(g.QuietSeats(), []int{first.SeatNo}) {
			t.Fatalf("the first turn ends %v, moved by seats %v; want %v, by %s's", g.DeadlineAt, g.QuietSeats(), want, first.Username)
		}
		waitFor(t, "the start's emails and pushes to wait", func() bool {
			return len(scheduledJobs(t, o, emailKind)) == 2 && len(scheduledJobs(t, o, pushKind)) == 2
		})
		for _, k := range []string{emailKind, pushKind} {
			for _, at := range scheduledJobs(t, o, k) {
				if !at.Equal(end) {
					t.Fatalf("a %s job waits until %v, want the end of the quiet hours, %v", k, at, end)
				}
			}
		}
		if n := len(e.sink.messages()); n != before {
			t.Fatalf("%d emails sent in the quiet hours", n-before)
		}
		// A minute before the end, nothing is due.
		e.clock.Add(end.Sub(e.clock.Now()) - time.Minute)
		if n, err := o.RunDue(ctx); err != nil || n != 0 {
			t.Fatalf("a minute before the end: %d due, %v", n, err)
		}
		e.clock.Add(time.Minute)
		if _, err := o.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		msgs := e.waitMail(t, before+2)
		firstMail := mailsTo(t, msgs[before:], first.Username+"@example.com")
		otherMail := mailsTo(t, msgs[before:], other.Username+"@example.com")
		if len(firstMail) != 1 || len(otherMail) != 1 {
			t.Fatalf("at the end: %v", mailKinds(t, msgs[before:]))
		}
		if txt := firstMail[0].Text; !strings.Contains(txt, "Deadline: your turn ends") || !strings.Contains(txt, ", moved out of your quiet hours") {
			t.Fatalf("the first player's start email does not say their deadline was moved:\n%s", txt)
		}
		if txt, want := otherMail[0].Text, "was moved out of "+first.Username+"'s quiet hours, to their end."; !strings.Contains(txt, want) {
			t.Fatalf("the other player's start email does not say %q:\n%s", want, txt)
		}
		if html := otherMail[0].HTML; !strings.Contains(html, "moved out of "+first.Username+"&#39;s quiet hours") {
			t.Fatalf("the other player's HTML body does not say it:\n%s", html)
		}
		waitFor(t, "a push each", func() bool {
			return len(ps.Requests(browsers[ana.ID].Path)) == 1 && len(ps.Requests(browsers[ben.ID].Path)) == 2
		})
		if m := readPush(t, ps.Requests(browsers[ana.ID].Path)[0], browsers[ana.ID], ps, cfg); m.Kind != KindGameStarted {
			t.Fatalf("ana's push: %+v", m)
		}

		// The next night, half an hour before the quiet hours end, the
		// first player ends their turn: the other's your-turn email waits
		// for the end, and then says that their deadline was moved.
		e.clock.Add(23*time.Hour + 30*time.Minute)
		next, ok := quiet.Within(e.clock.Now())
		if !ok || next.Sub(e.clock.Now()) != 30*time.Minute {
			t.Fatalf("at %v the quiet hours end at %v", e.clock.Now(), next)
		}
		before = len(e.sink.messages())
		e.endTurns(t, p, g.ID, first.SeatNo)
		waitFor(t, "the turn's email to wait", func() bool {
			at := scheduledJobs(t, o, emailKind)
			return len(at) == 1 && at[0].Equal(next)
		})
		if n := len(e.sink.messages()); n != before {
			t.Fatalf("%d emails sent in the quiet hours: %v", n-before, mailKinds(t, e.sink.messages()[before:]))
		}
		e.clock.Add(30 * time.Minute)
		if _, err := o.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		msgs = e.waitMail(t, before+1)
		if got := mailKinds(t, msgs[before:]); !slices.Equal(got, []string{"your_turn>" + other.Username + "@example.com"}) {
			t.Fatalf("at the end of the second night: %v", got)
		}
		if txt := parseMail(t, msgs[before].Data).Text; !strings.Contains(txt, ", moved out of your quiet hours") {
			t.Fatalf("the turn's email does not say the deadline was moved:\n%s", txt)
		}
	})
}

// endTurns has seat of game id end its turn (answering its own turn's
// choices with their first options) until the game waits for another
// seat.
func (e *outboxEnv) endTurns(t *testing.T, p *play.Service, id int64, seat int) {
	t.Helper()
	ctx := context.Background()
	uid := e.users[seat].ID
	for range 10 {
		var a engine.Action
		var v int64
		done := false
		err := p.Read(ctx, id, uid, func(g *models.Game, _ int, st *engine.State) error {
			v, done = g.Version, !slices.Contains(engine.Awaiting(st), seat)
			a = engine.Action{Type: engine.ActEndTurn}
			if ps := engine.PromptsFor(st, seat); len(ps) > 0 {
				a = engine.Action{Type: engine.ActAnswer, Prompt: ps[0].ID, Choices: ps[0].Default()}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if done {
			return
		}
		res, err := p.Submit(ctx, id, uid, &v, []engine.Action{a}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
	}
	t.Fatalf("seat %d's turn does not end", seat)
}

// TestQuietHoursUrgent: a game whose settings ignore quiet hours, with an
// hour a turn, starts in the players' quiet hours: the first turn's
// deadline stays where the clock set it, and the first player's email,
// whose deadline comes before the quiet hours end, goes at once; the
// other player's waits.
func TestQuietHoursUrgent(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e := newOutboxEnv(t, d)
		o := e.outbox(t, true)
		p := play.New(e.st, e.clock.Now, nil)
		_, start := e.duel(t, p, play.NewGame{TurnDeadlineSeconds: 3600, IgnoreQuietHours: true})
		before := len(e.waitMail(t, 1))
		_, end := e.quietNow(t)
		g := start()
		first := g.Seats[0]
		if g.Seats[1].Awaited {
			first = g.Seats[1]
		}
		if want := e.clock.Now().Add(time.Hour); !g.DeadlineAt.Equal(want) || g.DeadlineQuiet != "" {
			t.Fatalf("the first turn ends %v (moved by %q), want %v: the game ignores quiet hours", g.DeadlineAt, g.DeadlineQuiet, want)
		}
		msgs := e.waitMail(t, before+1)
		if got := mailKinds(t, msgs[before:]); !slices.Equal(got, []string{"game_started>" + first.Username + "@example.com"}) {
			t.Fatalf("in the quiet hours: %v", got)
		}
		waitFor(t, "the other player's email to wait until the end", func() bool {
			at := scheduledJobs(t, o, emailKind)
			return len(at) == 1 && at[0].Equal(end)
		})
		if txt := parseMail(t, msgs[before].Data).Text; strings.Contains(txt, "quiet hours") {
			t.Fatalf("an email of a deadline that was not moved speaks of quiet hours:\n%s", txt)
		}
	})
}

// TestQuietHoursDigest: ben's digest, due in his quiet hours, waits
// until they end and then gathers what happened.
func TestQuietHoursDigest(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		o := e.outbox(t, true)
		ben := e.users[1]
		if err := e.st.SetPreference(ctx, models.Preference{UserID: ben.ID, Kind: "digest", Channel: "email", Enabled: true, Hours: 6}); err != nil {
			t.Fatal(err)
		}
		p := play.New(e.st, e.clock.Now, nil)
		_, start := e.duel(t, p, play.NewGame{})
		before := len(e.waitMail(t, 1)) // the invitation is no digest's
		_, end := e.quietNow(t)
		start()
		waitFor(t, "the digest to wait", func() bool {
			at := scheduledJobs(t, o, digestKind)
			return len(at) == 1 && at[0].Equal(end)
		})
		digests := func() int {
			n := 0
			for _, m := range mailsTo(t, e.sink.messages(), ben.Email) {
				if strings.Contains(m.Header.Get("Message-Id"), ".digest.") {
					n++
				}
			}
			return n
		}
		// The daily sweep in the quiet hours sends none either.
		if err := o.RunDigest(ctx, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		if n := digests(); n != 0 {
			t.Fatalf("%d digests in the quiet hours", n)
		}
		e.clock.Add(end.Sub(e.clock.Now()))
		if _, err := o.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the digest at the end", func() bool { return digests() == 1 })
		time.Sleep(300 * time.Millisecond)
		if n := digests(); n != 1 || len(mailsTo(t, e.sink.messages()[before:], ben.Email)) != 1 {
			t.Fatalf("%d digests, %d emails to ben after the end", n, len(mailsTo(t, e.sink.messages()[before:], ben.Email)))
		}
	})
}

// TestQuietWords: what a deadline line and an email with no deadline of
// its recipient's say of a deadline moved out of quiet hours, and that
// nothing of it reaches a webhook's or the stream's payload.
func TestQuietWords(t *testing.T) {
	at := time.Date(2026, 3, 29, 5, 0, 0, 0, time.UTC)
	berlin := Zone("Europe/Berlin")
	for _, c := range []struct {
		m          *QuietMove
		note, line string
	}{
		{nil, "", ""},
		{&QuietMove{Deadline: at, You: true}, "moved out of your quiet hours",
			"The game's deadline, Sun 29 Mar 2026, 07:00 CEST, was moved out of your quiet hours, to their end."},
		{&QuietMove{Deadline: at, Players: []string{"ben"}}, "moved out of ben's quiet hours",
			"The game's deadline, Sun 29 Mar 2026, 07:00 CEST, was moved out of ben's quiet hours, to their end."},
		{&QuietMove{Deadline: at, You: true, Players: []string{"ben", "cy"}}, "moved out of your, ben's and cy's quiet hours",
			"The game's deadline, Sun 29 Mar 2026, 07:00 CEST, was moved out of your, ben's and cy's quiet hours, to their end."},
	} {
		c1 := Common{Quiet: c.m, Location: berlin}
		if got := c1.QuietNote(at); got != c.note {
			t.Errorf("QuietNote: %q, want %q", got, c.note)
		}
		if got := c1.QuietLine(); got != c.line {
			t.Errorf("QuietLine: %q, want %q", got, c.line)
		}
		if got := c1.QuietNote(at.Add(time.Minute)); got != "" {
			t.Errorf("QuietNote of another deadline: %q", got)
		}
	}
	d := YourTurn{Common: Common{GameID: "7", Quiet: &QuietMove{Deadline: at, You: true}, Location: berlin}, Deadline: at}
	_, text, html, err := Render(d)
	if err != nil {
		t.Fatal(err)
	}
	want := "Deadline: your turn ends Sun 29 Mar 2026, 07:00 CEST, moved out of your quiet hours"
	if !strings.Contains(text, want) || !strings.Contains(html, "07:00 CEST, moved out of your quiet hours</p>") {
		t.Fatalf("the turn's email does not say %q:\n%s\n%s", want, text, html)
	}
	_, public, err := Payload(d)
	if err != nil || strings.Contains(string(public), "quiet") {
		t.Fatalf("public payload %s %v", public, err)
	}
}

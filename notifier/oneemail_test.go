package notifier

import (
	"context"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// playedGame is a two-player game, ana against ben, played through the
// play path by the greedy bot in both seats, with the outbox's workers
// running: the emails of a whole game.
type playedGame struct {
	e     *outboxEnv
	p     *play.Service
	id    int64
	moves int
}

func playGame(t *testing.T, e *outboxEnv, seed uint64, each func(pg *playedGame)) *playedGame {
	t.Helper()
	ctx := context.Background()
	pg := &playedGame{e: e, p: play.New(e.st, e.clock.Now, nil)}
	ana, ben := e.users[0], e.users[1]
	res, err := pg.p.Create(ctx, ana.ID, play.NewGame{Players: 2, Mode: "fast", Invite: []string{ben.Username},
		Deck: play.DeckChoice{Prebuilt: "running-a-startup"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pg.id = res.Game.ID
	if _, err := pg.p.Join(ctx, pg.id, ben.ID, play.DeckChoice{Prebuilt: "working-for-the-enterprise"}, nil); err != nil {
		t.Fatal(err)
	}
	if res, err = pg.p.Start(ctx, pg.id, ana.ID, nil); err != nil {
		t.Fatal(err)
	}
	res.Done()
	r := rand.New(rand.NewPCG(seed, seed))
	for pg.moves = 0; pg.moves < 400; pg.moves++ {
		var seat int
		var a engine.Action
		var version int64
		over := false
		err := pg.p.Read(ctx, pg.id, ana.ID, func(g *models.Game, _ int, st *engine.State) error {
			version = g.Version
			aw := engine.Awaiting(st)
			if st.Over() || len(aw) == 0 {
				over = true
				return nil
			}
			seat = aw[0]
			a = bot.NewGreedy(r).Choose(st.View(seat), engine.Legal(st, seat))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if over {
			break
		}
		if each != nil {
			each(pg)
		}
		uid := e.users[seat].ID
		res, err := pg.p.Submit(ctx, pg.id, uid, &version, []engine.Action{a}, nil)
		if err != nil {
			t.Fatalf("move %d: %v", pg.moves, err)
		}
		res.Done()
	}
	return pg
}

var mailVersion = regexp.MustCompile(`\.v(\d+)\.`)

// TestOneEmailPerDecision plays whole games on both databases and reads
// every email as its players would: each has the game's one subject, and
// no change emails anyone twice.
func TestOneEmailPerDecision(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e := newOutboxEnv(t, d)
		e.outbox(t, true)
		pg := playGame(t, e, 11, nil)
		g, err := e.st.Game(context.Background(), pg.id)
		if err != nil || g.Status != models.StatusOver {
			t.Fatalf("the game did not end: %+v %v", g, err)
		}
		// Every change is emailed by now (the game over to both).
		waitFor(t, "the game-over emails", func() bool {
			n := 0
			for _, k := range mailKinds(t, e.sink.messages()) {
				if strings.HasPrefix(k, "game_over>") {
					n++
				}
			}
			return n == 2
		})
		time.Sleep(200 * time.Millisecond)
		subject := "[Data Monsters] Game #" + strconv.FormatInt(pg.id, 10) + ", hosted by ana"
		perChange := map[string]int{}
		kinds := map[string]int{}
		for _, m := range e.sink.messages() {
			p := parseMail(t, m.Data)
			if got := p.Header.Get("Subject"); got != subject {
				t.Errorf("subject %q, want %q", got, subject)
			}
			id := p.Header.Get("Message-Id")
			v := mailVersion.FindStringSubmatch(id)
			if v == nil {
				t.Fatalf("Message-ID %s names no version", id)
			}
			perChange[m.Rcpts[0]+" v"+v[1]]++
			for _, k := range Kinds {
				if strings.Contains(id, "."+string(k)+".") {
					kinds[string(k)]++
				}
			}
			if strings.Contains(p.Text, "play_tool ") || strings.Contains(p.Text, "place ") && strings.Contains(p.Text, "queued action place") {
				t.Errorf("an email names a queued action by its ids:\n%s", p.Text)
			}
			text := strings.ReplaceAll(p.Text, "\r\n", "\n")
			switch {
			case strings.Contains(id, ".game_over."):
				// The final board, the ranks and the fairness check.
				for _, want := range []string{"Game over", "Final scores (Big Data Points), by rank:\n  1. ", "The board:",
					"secret:     ", "commitment: ", "datamonsters replay --url https://dm.example " + strconv.FormatInt(pg.id, 10)} {
					if !strings.Contains(text, want) {
						t.Errorf("the game-over email lacks %q:\n%s", want, text)
					}
				}
			case strings.Contains(id, ".invitation."):
				if !strings.Contains(text, "Joined so far: ana\n") || !strings.Contains(text, "Invited, not joined yet: ben\n") {
					t.Errorf("the invitation does not say who joined:\n%s", text)
				}
			}
		}
		for k, n := range perChange {
			if n > 1 {
				t.Errorf("%s: %d emails from one change", k, n)
			}
		}
		if kinds["your_turn"] < 4 || kinds["game_over"] != 2 || kinds["invitation"] != 1 || kinds["game_started"] != 2 {
			t.Fatalf("emails by kind %v, in %d moves", kinds, pg.moves)
		}
		t.Logf("%d moves, %d emails: %v", pg.moves, len(e.sink.messages()), kinds)
	})
}

// TestNoTurnEmailWhileTheBoardIsOpen: a player who has the game's board
// open (its live stream: the hub's subscription of their seat, or on
// Postgres a presence row of any process) gets no turn or prompt email
// for that game; once the page is closed, the emails come again.
func TestNoTurnEmailWhileTheBoardIsOpen(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		if d == models.Postgres {
			// As in a deployment of several processes: the email worker reads
			// every process's presence rows (the outbox listens on the
			// database it is given, which this test leaves alone).
			e.cfg.DatabaseURL = "postgres://several-processes"
		}
		o := e.outbox(t, true)
		ana, ben := e.users[0], e.users[1]
		open := func(p *play.Service, id int64, u *models.User) func() {
			_, seat, err := p.Game(ctx, id, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			if d == models.Postgres {
				leave, err := NewPresence(e.st, PresenceOptions{Now: e.clock.Now}).EnterGame(ctx, u.ID, id)
				if err != nil {
					t.Fatal(err)
				}
				return leave
			}
			sub := e.hub.Subscribe(GameSeatTopic(id, seat))
			return sub.Close
		}
		var closers []func()
		pg := playGame(t, e, 5, func(pg *playedGame) {
			switch pg.moves {
			case 0: // both open their boards after the start
				closers = append(closers, open(pg.p, pg.id, ana), open(pg.p, pg.id, ben))
			case 20:
				// The emails of the moves made so far are decided before the
				// boards close.
				waitFor(t, "the email jobs of the moves made with the boards open", func() bool {
					// A job that failed once (a busy database on a loaded
					// machine) waits scheduled for its retry: it counts too.
					res, err := o.Client().JobList(ctx, river.NewJobListParams().Kinds(emailKind).
						States(rivertype.JobStateAvailable, rivertype.JobStateRunning, rivertype.JobStateRetryable,
							rivertype.JobStateScheduled, rivertype.JobStatePending))
					return err == nil && len(res.Jobs) == 0
				})
				for _, c := range closers {
					c()
				}
				closers = nil
			}
		})
		for _, c := range closers {
			c()
		}
		if pg.moves < 30 {
			t.Fatalf("the game ended after %d moves", pg.moves)
		}
		time.Sleep(500 * time.Millisecond)
		var while, after int
		var whileIDs []string // named when the test fails, to tell which change
		for _, m := range e.sink.messages() {
			id := parseMail(t, m.Data).Header.Get("Message-Id")
			if !strings.Contains(id, ".your_turn.") && !strings.Contains(id, ".prompt_waiting.") {
				continue
			}
			v, _ := strconv.Atoi(mailVersion.FindStringSubmatch(id)[1])
			switch {
			case v <= 3: // the lobby's, before the boards opened
			case v <= 3+20: // the moves made with the boards open
				while++
				whileIDs = append(whileIDs, id)
			default:
				after++
			}
		}
		if while != 0 || after == 0 {
			t.Fatalf("%d turn emails while the boards were open (want 0: %q), %d after (want some)", while, whileIDs, after)
		}
	})
}

// TestOneEmailEach: of the notes one change makes for one person, the
// most pressing goes by email, standing for the others; the seat its door
// answers itself gets none, not even the game's end, which the door's
// answer says.
func TestOneEmailEach(t *testing.T) {
	t.Parallel()
	yt := &YourTurn{Turn: 4}
	to := &TimeoutApplied{Player: "ana"}
	notes := []note{
		{userID: 1, seat: 0, kind: KindTimeoutApplied, data: to},
		{userID: 2, seat: 1, kind: KindTimeoutApplied, data: &TimeoutApplied{Player: "ana"}},
		{userID: 2, seat: 1, kind: KindYourTurn, data: yt},
		{userID: 3, seat: 2, kind: KindPromptWaiting, data: &PromptWaiting{}},
		{userID: 3, seat: 2, kind: KindQueuedActions, data: &QueuedActions{}},
		{userID: 4, seat: 3, kind: KindGameOver, data: &GameOver{}},
		{userID: 4, seat: 3, kind: KindQueuedActions, data: &QueuedActions{}},
	}
	got := oneEmailEach(notes, []int{2, 3}, func(note) bool { return true })
	want := map[int][]string{0: nil, 2: {"ana ran out of time: the turn ended with the default choices."}}
	if len(got) != len(want) {
		t.Fatalf("emailed %v, want %v", got, want)
	}
	for i, also := range want {
		if g, ok := got[i]; !ok || !slices.Equal(g, also) {
			t.Fatalf("emailed %v, want %v", got, want)
		}
	}
	if d := standingFor(yt, got[2]).(YourTurn); !slices.Equal(d.Since, got[2]) || d.Turn != 4 {
		t.Fatalf("the turn's email stands for the timeout as %+v", d)
	}
}

// TestDigestEveryHours: a player who chose a digest every 6 hours gets no
// turn or prompt email, but one digest at once (the first), then none
// until 6 hours have passed, however many turns come; a deadline less than
// 12 hours away sends theirs at once.
func TestDigestEveryHours(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		o := e.outbox(t, true)
		ana, ben := e.users[0], e.users[1]
		if err := e.st.SetPreference(ctx, models.Preference{UserID: ben.ID, Kind: "digest", Channel: "email", Enabled: true, Hours: 6}); err != nil {
			t.Fatal(err)
		}
		p := play.New(e.st, e.clock.Now, nil)
		newGame := func(turn int) int64 {
			id, start := e.duel(t, p, play.NewGame{TurnDeadlineSeconds: turn})
			start()
			return id
		}
		// turns plays game *id until ben's turn has started n times more,
		// in a new game of the same clock (turn seconds) when one ends.
		r := rand.New(rand.NewPCG(3, 3))
		turns := func(id *int64, turn, n int) {
			for started := 0; started < n; {
				var seat int
				var a engine.Action
				var version int64
				err := p.Read(ctx, *id, ana.ID, func(g *models.Game, _ int, st *engine.State) error {
					version, seat = g.Version, engine.Awaiting(st)[0]
					a = bot.NewGreedy(r).Choose(st.View(seat), engine.Legal(st, seat))
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				res, err := p.Submit(ctx, *id, e.users[seat].ID, &version, []engine.Action{a}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.State.Over() {
					res.Done()
					*id = newGame(turn)
					continue
				}
				for _, ev := range res.Events() {
					if ev.Kind == "turn_started" && ev.Seat == 1 {
						started++
					}
				}
				res.Done()
			}
		}
		toBen := func(kind string) int {
			n := 0
			for _, m := range e.sink.messages() {
				if m.Rcpts[0] == ben.Email && strings.Contains(parseMail(t, m.Data).Header.Get("Message-Id"), kind) {
					n++
				}
			}
			return n
		}
		waitDigests := func(n int, why string) {
			waitFor(t, why, func() bool { return toBen(".digest.") >= n })
			time.Sleep(300 * time.Millisecond) // a second one would show up now
			if got := toBen(".digest."); got != n {
				t.Fatalf("%s: %d digests, want %d", why, got, n)
			}
		}
		first := newGame(0) // three days a turn
		turns(&first, 0, 3)
		waitDigests(1, "the first digest, at once")
		e.clock.Add(5 * time.Hour)
		turns(&first, 0, 2)
		if _, err := o.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		waitDigests(1, "5 hours later")
		e.clock.Add(time.Hour + time.Minute)
		if _, err := o.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		waitDigests(2, "6 hours later, what happened since")
		// A turn of an hour: its deadline is near, the digest goes at once.
		urgent := newGame(3600)
		turns(&urgent, 3600, 1)
		waitDigests(3, "a deadline less than 12 hours away")
		if n := toBen(".your_turn.") + toBen(".prompt_waiting.") + toBen(".game_started."); n != 0 {
			t.Fatalf("%d turn, prompt or start emails to ben beside his digests", n)
		}
		last := e.sink.messages()
		for i := len(last) - 1; i >= 0; i-- {
			if last[i].Rcpts[0] == ben.Email {
				p := parseMail(t, last[i].Data)
				if !strings.Contains(p.Text, "Game #"+strconv.FormatInt(urgent, 10)) || !strings.Contains(p.Text, "waiting for you") {
					t.Fatalf("the urgent digest:\n%s", p.Text)
				}
				break
			}
		}
	})
}

// standingScenario is Ana, to play with three Tools, and Ben, who holds
// Merge Conflict, an interrupt that answers Tools, with a standing answer
// (pass) or none.
func standingScenario(t *testing.T, pass bool) *engine.State {
	t.Helper()
	standing := ""
	if pass {
		standing = ", standing: {pass: true}"
	}
	res, err := engine.RunScenario([]byte(`name: standing answers cover a batch's windows
players:
  - {name: ana, hand: [open-source-library, open-source-library, frontend-framework]}
  - {name: ben, hand: [merge-conflict]` + standing + `}
`))
	if err != nil || res.Failed() {
		t.Fatalf("scenario: %v %+v", err, res)
	}
	return res.State
}

// scenarioGame stores an active game of the first users (ana, ben and,
// for a third seat, cy), one a seat of st, the game awaiting st's active
// seat, under the policy holders.
func (e *outboxEnv) scenarioGame(t *testing.T, st *engine.State) *models.Game {
	t.Helper()
	data, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	g := &models.Game{CreatedBy: e.users[0].ID, Status: models.StatusActive, Mode: "fast", Policy: "holders", Players: len(st.Players),
		Settings: `{"turn_deadline_seconds":259200,"prompt_deadline_seconds":86400}`, Version: 1, State: data, StartedAt: &now}
	for i, u := range e.users[:len(st.Players)] {
		id := u.ID
		g.Seats = append(g.Seats, models.Seat{SeatNo: i, UserID: &id, Username: u.Username, Joined: true, Awaited: i == st.Active})
	}
	if err := e.st.CreateGame(context.Background(), g, models.Happened{}); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestStandingAnswerSendsNothing: Ana plays a batch of three Tools, each
// of which opens an interrupt window for Ben. With his standing answer
// covering them, the batch runs through and nobody is emailed; without
// it, Ben is asked once (the first window), and Ana's rest waits.
func TestStandingAnswerSendsNothing(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		for _, pass := range []bool{true, false} {
			ctx := context.Background()
			e := newOutboxEnv(t, d)
			o := e.outbox(t, true)
			st := standingScenario(t, pass)
			g := e.scenarioGame(t, st)
			wrenches := []engine.Action{}
			for _, in := range st.Players[0].Hand {
				wrenches = append(wrenches, engine.Action{Type: engine.ActPlayTool, Card: in.ID})
			}
			_, err := e.st.Mutate(ctx, g.ID, func(g *models.Game) (*models.Change, error) {
				cur, err := engine.Unmarshal(g.State)
				if err != nil {
					return nil, err
				}
				next, events, _, err := engine.ApplyBatch(cur, 0, wrenches)
				if err != nil {
					return nil, err
				}
				return e.commit(g, nil, next, events, 0, wrenches)
			})
			if err != nil {
				t.Fatal(err)
			}
			if !pass {
				e.waitMail(t, 1)
			}
			waitFor(t, "the change's jobs", func() bool {
				res, err := o.Client().JobList(ctx, river.NewJobListParams().Kinds(emailKind, streamKind).
					States(rivertype.JobStateAvailable, rivertype.JobStateRunning, rivertype.JobStateRetryable))
				return err == nil && len(res.Jobs) == 0
			})
			time.Sleep(100 * time.Millisecond) // a mail worked last is in the sink now
			got := mailKinds(t, e.sink.messages())
			if pass && len(got) != 0 || !pass && !slices.Equal(got, []string{"prompt_waiting>ben@example.com"}) {
				t.Fatalf("standing pass %v: emails %v", pass, got)
			}
		}
	})
}

// TestStandingOffer: at the end of a turn a player holding an interrupt
// is offered "always pass" and "<card> when <event>" in the reply's
// words; one who always passes already, or who cannot be asked (no
// interrupt in a game that asks only holders), is offered nothing.
func TestStandingOffer(t *testing.T) {
	t.Parallel()
	ben := func(pass bool) *engine.View { return standingScenario(t, pass).View(1) }
	if got := StandingOffer(ben(false)); !slices.Equal(got, []string{"always pass", "merge conflict when tool"}) {
		t.Fatalf("offer %q", got)
	}
	if got := OfferLine(StandingOffer(ben(false))); got != `reply "always pass", "merge conflict when tool", or nothing to be asked` {
		t.Fatalf("line %q", got)
	}
	if got := StandingOffer(ben(true)); got != nil {
		t.Fatalf("offer to a player who always passes: %q", got)
	}
	ana := standingScenario(t, false).View(0) // three Tools, no interrupt
	if got := StandingOffer(ana); got != nil {
		t.Fatalf("offer to a player who holds no interrupt: %q", got)
	}
	ana.Policy = engine.Conceal // every seat whose deck could answer is asked
	if got := StandingOffer(ana); !slices.Equal(got, []string{"always pass"}) {
		t.Fatalf("offer under conceal: %q", got)
	}
}

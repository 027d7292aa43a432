package notifier

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/jobstest"
	"github.com/datamonsters/turns/internal/pushtest"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// The attacks here read everything the notifier builds for one person,
// ana (seat 0), while a game runs: her emails (text, HTML and headers),
// her webhook's deliveries, her browser's pushes (decrypted), what her
// live streams carry (her notifications and the game's events as her
// seat sees them), and her notification log, as the change's transaction
// stores it and as the fill step completes it. The engine's attacks show
// that her view, events and moves do not depend on the cards hidden from
// her; these show that nothing the notifier adds (news, timeouts, queued
// actions, reminders, the board, the hand, the digest, the bot's report)
// brings them back.
//
// The game is a written position (nhScenario) played through the play
// path, the outbox's workers and clock (nhRun.play): Ben writes to the
// table; ana plays a Tool and ends her turn in one batch, which waits
// behind Ben's interrupt window (the conceal policy asks every seat whose
// deck could answer, so that being asked says nothing of a hand); Ben
// passes and ana's queue runs; Ben plays a Tool and ana's window times out
// after its reminder; her own turn times out too, and the bot takes her
// seat; Ben places Sigmoid, whose look at the top of his deck times out;
// the bot plays ana's turn (a claim refills the Market) while Ben passes
// and discards by default; ana takes her seat back; Ben's turn times out,
// ana's begins, she plays a Tool and Ben passes, Ben resigns, and ana's
// digest sums it up.

// nhHidden is what the two games of the attack differ in: cards that ana
// never sees. Ben's hand (besides the cards he plays), deck and Recycle
// Bin; the bottom of ana's own deck (below the cards she draws); the
// bottom of the Challenge Deck (below the challenges a claim may reveal).
// Ben's deck could answer a Tool in both (Merge Conflict is in his deck
// list): in one game he holds it, in the other it lies in his deck.
type nhHidden struct {
	anaDeck, benHand, benDeck, benBin, challenges string
}

var nhTwins = [2]nhHidden{{
	anaDeck:    "quantum-simulator, hype-cycle, rust-rewrite",
	benHand:    "merge-conflict",
	benDeck:    "kubernetes-cluster, neural-network, cloud-outage, data-breach, server-rack, bi-suite, stored-procedures, audit-season, crunch-time",
	benBin:     "hackathon-trophy, ab-test-harness",
	challenges: "search-engine, fraud-detection",
}, {
	anaDeck:    "rust-rewrite, quantum-simulator, audit-season",
	benHand:    "crunch-time",
	benDeck:    "merge-conflict, stored-procedures, bi-suite, kubernetes-cluster, data-breach, neural-network, hackathon-trophy, cloud-outage, server-rack",
	benBin:     "audit-season, ab-test-harness",
	challenges: "fraud-detection, climate-model",
}}

// nhScenario is the attack's position (engine scenario format), with the
// hidden parts left as %s verbs: ana's hand and the top of her deck, which
// she draws or the bot draws for her, are the same in both games, and so
// are the deck lists (which decide who is asked under conceal).
const nhScenario = `name: what the notifier tells ana does not depend on the cards hidden from her
mode: fast
policy: conceal
seed: 4242
players:
  - name: ana
    hand: [rapid-prototype, merge-conflict, glitchy-junior, open-source-library]
    deck: [proof-of-concept, design-system, data-lake, frontend-framework, open-source-library, pair-programming,
           qubo-junior, enterprise-service-bus, %s]
    deck_list: [rapid-prototype, merge-conflict, glitchy-junior, open-source-library, proof-of-concept, design-system,
                data-lake, frontend-framework, pair-programming, qubo-junior, enterprise-service-bus, quantum-simulator,
                hype-cycle, rust-rewrite, audit-season]
  - name: ben
    hand: [analytics-sdk, sigmoid-junior, %s]
    deck: [%s]
    bin: [%s]
    deck_list: [analytics-sdk, sigmoid-junior, merge-conflict, kubernetes-cluster, neural-network, cloud-outage, data-breach, server-rack,
                bi-suite, stored-procedures, audit-season, crunch-time, hackathon-trophy, ab-test-harness]
market: [landing-page, todo-app, support-chatbot]
challenge_deck: [sales-dashboard, spam-filter, %s]
expect:
  awaiting: [0]
`

// nhPosition is the attack's position with the hidden cards h.
func nhPosition(t *testing.T, h nhHidden) *engine.State {
	t.Helper()
	res, err := engine.RunScenario([]byte(fmt.Sprintf(nhScenario, h.anaDeck, h.benHand, h.benDeck, h.benBin, h.challenges)))
	if err != nil || res.Failed() {
		t.Fatalf("the attack's position: %v %+v", err, res)
	}
	return res.State
}

// nhRun is one attack game on a store of its own, with everything that
// reaches ana: the SMTP sink, her webhook's receiver, her browser's push
// service.
type nhRun struct {
	e        *outboxEnv
	o        *Outbox
	p        *play.Service
	id       int64
	ana, ben *models.User
	hooks    func() []capture
	ps       *pushtest.Service
	browser  *pushtest.Subscriber
	push     PushConfig
	start    *engine.State // the position
	worked   *jobstest.Worked
}

// nhStart stores the position with hidden cards h as a started game of
// ana and ben on a fresh store of dialect d, its outbox working, the
// clock at at, and waits for the start's notifications.
func nhStart(t *testing.T, d models.Dialect, h nhHidden, at time.Time) *nhRun {
	t.Helper()
	ctx := context.Background()
	e := newOutboxEnv(t, d)
	e.clock.mu.Lock()
	e.clock.t = at // the two games' clocks alike, from the first job on
	e.clock.mu.Unlock()
	r := &nhRun{e: e, ana: e.users[0], ben: e.users[1], start: nhPosition(t, h)}
	e.hub = NewHub(1 << 14) // the stream is read at the end, all at once
	e.cfg.Hub = e.hub
	// The test plays the bot's moves itself (PlayBot, as the bot's jobs
	// do), one at a time: an email sent while the bot plays on would
	// carry the version it finds then in its reply address.
	e.cfg.Timeouts = &storeTimeouter{e: e}
	e.cfg.Webhook = NewWebhookClient(WebhookOptions{AllowPrivate: true})
	e.cfg.PollInterval = 10 * time.Millisecond // some 40 changes, each waited for
	r.worked = &jobstest.Worked{}
	e.cfg.Middleware = []rivertype.Middleware{r.worked}
	e.cfg.SignInSecret = []byte("sign-in secret")
	e.cfg.Reply = ReplyConfig{Secret: []byte("reply secret"), Domain: "dm.example"}
	r.push = e.withPush(t)
	r.ps = pushtest.NewService(t)
	r.browser = pushtest.NewSubscriber(t, r.ps, "ana")
	subscribe(t, e.st, r.browser, r.ana)
	hook, hooks := receiver(t, http.StatusNoContent)
	r.hooks = hooks
	if err := e.st.CreateWebhook(ctx, &models.Webhook{UserID: r.ana.ID, URL: hook.URL + "/ana", Secret: "whsec_ana_0123456789abcdef"}); err != nil {
		t.Fatal(err)
	}
	r.o = e.outbox(t, true)
	r.p = play.New(e.st, e.clock.Now, nil)

	g := &models.Game{CreatedBy: r.ana.ID, Status: models.StatusOpen, Mode: "fast", Policy: "conceal", Players: 2, Version: 1,
		Settings: `{"turn_deadline_seconds":259200,"prompt_deadline_seconds":86400,"timeout_limit":2,"on_timeouts":"bot"}`}
	for i, u := range e.users[:2] {
		id := u.ID
		g.Seats = append(g.Seats, models.Seat{SeatNo: i, UserID: &id, Username: u.Username, Joined: true})
	}
	if err := e.st.CreateGame(ctx, g, models.Happened{}); err != nil {
		t.Fatal(err)
	}
	r.id = g.ID
	e.startWith(t, g.ID, func(*models.Game) (*engine.State, []engine.Event, error) { return r.start.Clone(), nil, nil })
	r.settle(t)
	return r
}

// settle waits until the outbox has no job to work now (those scheduled
// for later wait) and has ended every job it took, twice in a row.
func (r *nhRun) settle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for idle := 0; idle < 2; {
		res, err := r.o.Client().JobList(context.Background(), river.NewJobListParams().First(100).
			States(rivertype.JobStateAvailable, rivertype.JobStateRunning, rivertype.JobStateRetryable, rivertype.JobStatePending))
		if err != nil {
			t.Fatal(err)
		}
		busy := slices.ContainsFunc(res.Jobs, func(j *rivertype.JobRow) bool { return !r.worked.Done(j.ID) })
		if busy {
			idle = 0
		} else {
			idle++
		}
		if time.Now().After(deadline) {
			for _, j := range res.Jobs {
				t.Logf("job %s %s: %v", j.Kind, j.State, j.Errors)
			}
			t.Fatalf("the outbox still has %d jobs to work", len(res.Jobs))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// state reads the game and its engine state.
func (r *nhRun) state(t *testing.T) (*models.Game, *engine.State) {
	t.Helper()
	var game *models.Game
	var state *engine.State
	err := r.p.Read(context.Background(), r.id, r.ben.ID, func(g *models.Game, _ int, st *engine.State) error {
		game, state = g, st.Clone()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return game, state
}

// inst is the instance id of card in seat's hand.
func (r *nhRun) inst(t *testing.T, seat int, card string) string {
	t.Helper()
	_, st := r.state(t)
	for _, c := range st.Players[seat].Hand {
		if c.Card == card {
			return c.ID
		}
	}
	t.Fatalf("seat %d holds no %s", seat, card)
	return ""
}

// act submits actions for seat's player, and waits for what they send.
func (r *nhRun) act(t *testing.T, seat int, actions ...engine.Action) {
	t.Helper()
	res, err := r.p.Submit(context.Background(), r.id, r.e.users[seat].ID, nil, actions, nil)
	if err != nil {
		t.Fatalf("seat %d %v: %v", seat, actions, err)
	}
	res.Done()
	r.settle(t)
}

// benDefaults answers Ben's first open prompt with its default (pass,
// the first cards to discard, the first card looked at), chosen by
// position and naming no card of his; false when none is open.
func (r *nhRun) benDefaults(t *testing.T) bool {
	t.Helper()
	_, st := r.state(t)
	ps := engine.PromptsFor(st, 1)
	if len(ps) == 0 {
		return false
	}
	r.act(t, 1, engine.Action{Type: engine.ActAnswer, Prompt: ps[0].ID, Choices: ps[0].Default()})
	return true
}

// runOut moves the clock to an hour before the game's deadline, where its
// reminder is due, and then past it, where it times out; each time it
// runs the clock's jobs that are due until none is.
func (r *nhRun) runOut(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	g, _ := r.state(t)
	if g.DeadlineAt == nil {
		t.Fatal("the game has no deadline to run out")
	}
	due := func() {
		for range 20 {
			n, err := r.o.RunDue(ctx)
			if err != nil {
				t.Fatal(err)
			}
			r.settle(t)
			if n == 0 {
				return
			}
		}
		t.Fatal("the clock's jobs keep coming")
	}
	r.e.clock.Add(g.DeadlineAt.Sub(r.e.clock.Now()) - time.Hour)
	due()
	r.e.clock.Add(2 * time.Hour)
	due()
	if now, _ := r.state(t); now.Version == g.Version {
		t.Fatalf("no timeout at the deadline (version %d)", g.Version)
	}
}

// play runs the attack's game to its end, and ana's digest.
func (r *nhRun) play(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	// Ben writes to the table: ana's next email shows it.
	if _, err := r.p.Say(ctx, r.id, r.ben.ID, play.Say{Text: "good luck, have fun"}, nil); err != nil {
		t.Fatal(err)
	}
	r.settle(t)
	// Ana plays a Tool and ends her turn in one batch: Ben may answer the
	// Tool, so her end of turn is queued; he passes, and it runs.
	r.act(t, 0, engine.Action{Type: engine.ActPlayTool, Card: r.inst(t, 0, "rapid-prototype")}, engine.Action{Type: engine.ActEndTurn})
	if !r.benDefaults(t) {
		t.Fatal("Ben, whose deck could answer a Tool, was not asked")
	}
	// Ben plays a Tool: ana, who holds Merge Conflict, is asked; her
	// answer's reminder comes, then its timeout.
	r.act(t, 1, engine.Action{Type: engine.ActPlayTool, Card: r.inst(t, 1, "analytics-sdk")})
	r.runOut(t)
	// Ben ends his turn: ana's begins, and runs out (the reminder, then
	// her second timeout in a row: the bot takes her seat).
	r.act(t, 1, engine.Action{Type: engine.ActEndTurn})
	r.runOut(t)
	// Ben places Sigmoid, and looks at the top of his deck: his choice
	// times out, and ana is told what the default did.
	r.act(t, 1, engine.Action{Type: engine.ActPlace, Card: r.inst(t, 1, "sigmoid-junior")})
	if _, st := r.state(t); len(engine.PromptsFor(st, 1)) == 0 {
		t.Fatal("Ben, who placed Sigmoid, looks at nothing")
	}
	r.runOut(t)
	// Ben ends his turn: the bot plays ana's, Ben answering its windows
	// by default, until Ben's next turn waits for him alone (his hand's
	// limit answered by default too).
	r.act(t, 1, engine.Action{Type: engine.ActEndTurn})
	for i := 0; ; i++ {
		if i == 60 {
			t.Fatal("the bot's turn does not end")
		}
		if r.benDefaults(t) {
			continue
		}
		g, st := r.state(t)
		if g.Seats[0].Bot == "" {
			t.Fatal("the bot did not take ana's seat after her second timeout in a row")
		}
		if !slices.Contains(engine.Awaiting(st), 0) {
			break
		}
		if err := r.p.PlayBot(ctx, r.id, 0, g.Version); err != nil {
			t.Fatal(err)
		}
		r.settle(t)
	}
	// Ana takes her seat back: the email says what the bot did.
	res, err := r.p.Reclaim(ctx, r.id, r.ana.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Done()
	r.settle(t)
	// Ben's turn runs out: ana's begins. She plays a Tool alone; Ben's
	// window on it closes and her turn goes on (an email says so). Ben
	// resigns: the game is over.
	r.runOut(t)
	r.act(t, 0, engine.Action{Type: engine.ActPlayTool, Card: r.inst(t, 0, "open-source-library")})
	if !r.benDefaults(t) {
		t.Fatal("Ben, whose deck could answer a Tool, was not asked")
	}
	if res, err = r.p.Resign(ctx, r.id, r.ben.ID, nil); err != nil {
		t.Fatal(err)
	}
	res.Done()
	r.settle(t)
	// Ana's digest of the game.
	if err := r.e.st.SetPreference(ctx, models.Preference{UserID: r.ana.ID, Kind: string(KindDigest), Channel: ChannelEmail,
		Enabled: true, Hours: 24 * 14}); err != nil {
		t.Fatal(err)
	}
	if err := r.o.RunDigest(ctx, r.e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	r.settle(t)
}

// nhItem is one thing ana was sent: its channel, what names it, and its
// content as she receives it.
type nhItem struct {
	channel, key, content string
}

// nhBoundary finds the MIME boundary of an email, which differs from one
// sending to the next whatever the game.
var nhBoundary = regexp.MustCompile(`boundary=("?)[^";\r\n]+`)

// nhToken finds the token of a signed link (a sign-in or action link).
var nhToken = regexp.MustCompile(`([?&;]t=)([A-Za-z0-9_-]{20,})`)

// nhTokens writes the token of every signed link in s as what it carries
// but its nonce, which makes each link single-use, and the signature over
// it: the same link of two emails differs by those alone.
func nhTokens(t *testing.T, s string) string {
	return nhToken.ReplaceAllStringFunc(s, func(m string) string {
		sub := nhToken.FindStringSubmatch(m)
		l, err := ParseLink(sub[2])
		if err != nil {
			t.Fatalf("a link's token %q: %v", sub[2], err)
		}
		return fmt.Sprintf("%s[purpose %d, user %d, game %d, expires %s]", sub[1], l.Purpose, l.UserID, l.GameID, l.Expires.Format(time.RFC3339))
	})
}

// received returns everything ana was sent, in a stable order: her
// emails, webhook deliveries and pushes as they arrived, her notification
// log as stored; then what the live stream publishes to her (her
// notifications, completed by the fill step as their first reader, and
// the game's events and messages as her seat sees them), through the
// stream job's own functions on subscriptions of hers opened now (open
// during the game, they would have held back her turn emails, as they
// do for a player who watches the board); then her log as filled.
func (r *nhRun) received(t *testing.T) []nhItem {
	t.Helper()
	ctx := context.Background()
	var out []nhItem
	for _, m := range r.e.sink.messages() {
		if len(m.Rcpts) != 1 || m.Rcpts[0] != r.ana.Email {
			continue
		}
		p := parseMail(t, m.Data)
		var names []string
		for k := range p.Header {
			if k != "Date" {
				names = append(names, k)
			}
		}
		slices.Sort(names)
		var b strings.Builder
		for _, k := range names {
			for _, v := range p.Header[k] {
				fmt.Fprintf(&b, "%s: %s\n", k, nhBoundary.ReplaceAllString(v, "boundary=${1}B"))
			}
		}
		b.WriteString("\n" + p.Text + "\n" + p.HTML)
		out = append(out, nhItem{"email", p.Header.Get("Message-Id"), nhTokens(t, b.String())})
	}
	for _, c := range r.hooks() {
		if err := Verify([]byte("whsec_ana_0123456789abcdef"), c.Header, c.Body, time.Now(), 0); err != nil {
			t.Fatalf("a delivery to ana's webhook: %v", err)
		}
		out = append(out, nhItem{"webhook", c.Header.Get("Webhook-Id"), c.Header.Get("Content-Type") + "\n" + string(c.Body)})
	}
	for _, req := range r.ps.Requests(r.browser.Path) {
		m := readPush(t, req, r.browser, r.ps, r.push)
		b, _ := json.Marshal(m)
		out = append(out, nhItem{"push", string(m.Kind) + " " + string(b), string(b)})
	}
	logged := func(when string) {
		ns, err := r.e.st.NotificationsAfter(ctx, r.ana.ID, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			out = append(out, nhItem{"log " + when, strconv.FormatInt(n.ID, 10),
				fmt.Sprintf("%s %v %s\nbody: %s\nfill: %s", n.Kind, *n.GameID, n.CreatedAt.UTC().Format(time.RFC3339Nano), n.Body, n.Fill)})
		}
	}
	logged("stored")
	// The live streams: ana's notifications, the game's events as her
	// seat sees them, and its table talk.
	g, _ := r.state(t)
	sub := r.e.hub.Subscribe(UserTopic(strconv.FormatInt(r.ana.ID, 10)), GameSeatTopic(r.id, 0))
	ns, err := r.e.st.NotificationsAfter(ctx, r.ana.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	a := StreamArgs{Seats: g.Holders()}
	for _, n := range ns {
		a.Notes = append(a.Notes, StreamNote{UserID: r.ana.ID, NotificationID: n.ID})
	}
	if err := r.o.deliver(ctx, a); err != nil {
		t.Fatal(err)
	}
	evs, err := r.e.st.EventsAfter(ctx, r.id, 0, 100000)
	if err != nil || len(evs) == 0 {
		t.Fatalf("the game's events: %d, %v", len(evs), err)
	}
	if err := r.o.publishEvents(ctx, StreamArgs{GameID: r.id, FromSeq: 1, ToSeq: evs[len(evs)-1].Seq, Seats: g.Holders()}, 1); err != nil {
		t.Fatal(err)
	}
	talk, err := r.p.Messages(ctx, r.id, r.ana.ID, 0, 100)
	if err != nil || len(talk.Messages) == 0 {
		t.Fatalf("the table talk: %+v %v", talk, err)
	}
	for _, m := range talk.Messages {
		if err := r.o.deliverMessage(ctx, StreamArgs{GameID: r.id, MessageID: m.ID, Seats: g.Holders()}); err != nil {
			t.Fatal(err)
		}
	}
	sub.Close()
	if sub.Lagged() {
		t.Fatal("ana's stream lagged")
	}
	for ev := range sub.Events() {
		out = append(out, nhItem{"stream", ev.Type + " " + ev.ID, string(ev.Data)})
	}
	logged("filled")
	slices.SortStableFunc(out, func(x, y nhItem) int { return strings.Compare(x.channel+"\x00"+x.key, y.channel+"\x00"+y.key) })
	return out
}

// nhDiff shows where two texts part, with the lines before.
func nhDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(x), len(y)) {
		if x[i] != y[i] {
			lo := max(i-6, 0)
			return fmt.Sprintf("line %d:\n--- one game:\n%s\n--- hidden cards dealt otherwise:\n%s",
				i+1, strings.Join(x[lo:i+1], "\n"), strings.Join(y[lo:i+1], "\n"))
		}
	}
	return fmt.Sprintf("%d lines, and %d", len(x), len(y))
}

// nhKinds are the kinds of notification ana must have been told of, for
// the attack to reach every place the notifier words a game.
var nhKinds = []Kind{KindGameStarted, KindMessage, KindQueuedActions, KindPromptWaiting, KindDeadlineReminder, KindTimeoutApplied,
	KindYourTurn, KindSeatReclaimed, KindGameOver, KindDigest}

// nhCovers fails unless items hold an email or a log entry of every kind
// of nhKinds, and some of each channel.
func nhCovers(t *testing.T, items []nhItem) {
	t.Helper()
	seen := map[string]bool{}
	for _, it := range items {
		seen[strings.Fields(it.channel)[0]] = true
		switch it.channel {
		case "email":
			for _, k := range nhKinds {
				if strings.Contains(it.key, "."+string(k)+".") || k == KindDigest && strings.HasPrefix(it.key, "<dm.digest.") {
					seen[string(k)] = true
				}
			}
		case "log stored":
			seen[strings.Fields(it.content)[0]] = true
		}
	}
	want := []string{"email", "webhook", "push", "stream", "log"}
	for _, k := range nhKinds {
		want = append(want, string(k))
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("ana was sent no %s: the attack misses a place the notifier words", w)
		}
	}
}

// TestAttackNotifyHiddenNonInterference plays the attack's game twice on
// each database, the two games alike in everything ana may know and
// unlike in the cards hidden from her (Ben's hand, deck and Recycle Bin,
// the bottom of her own deck and of the Challenge Deck), with the same
// moves. Everything she is sent, on every channel, must be the same byte
// for byte, but for an email's Date and MIME boundaries and a webhook's
// signing time and signature (each game has a store of its own, so ids,
// times, links and tokens come out alike).
func TestAttackNotifyHiddenNonInterference(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		x, y := nhPosition(t, nhTwins[0]).View(0), nhPosition(t, nhTwins[1]).View(0)
		if jsonOf(t, x) != jsonOf(t, y) {
			t.Fatal("the two positions are not alike to ana")
		}
		at := time.Now().UTC().Truncate(time.Second)
		var got [2][]nhItem
		for i, h := range nhTwins {
			r := nhStart(t, d, h, at)
			r.play(t)
			got[i] = r.received(t)
		}
		nhCovers(t, got[0])
		for i := range max(len(got[0]), len(got[1])) {
			if i >= len(got[0]) || i >= len(got[1]) {
				t.Fatalf("ana was sent %d things in one game, %d in the other", len(got[0]), len(got[1]))
			}
			x, y := got[0][i], got[1][i]
			if x.channel != y.channel || x.key != y.key {
				t.Fatalf("item %d: ana was sent %s %s in one game, %s %s in the other", i, x.channel, x.key, y.channel, y.key)
			}
			if x.content != y.content {
				t.Fatalf("%s %s depends on cards hidden from ana: %s", x.channel, x.key, nhDiff(x.content, y.content))
			}
		}
		t.Logf("%d things sent to ana compared", len(got[0]))
	})
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// nhHiddenOnly are the cards of the game r played that ana never saw:
// each card of a zone hidden from her (Ben's hand, deck and Recycle Bin,
// her own deck, the Challenge Deck) at the start or the end that no view
// of hers and no event as she sees it ever showed, and whose name no card
// she saw mentions.
func (r *nhRun) nhHiddenOnly(t *testing.T) []*engine.Card {
	t.Helper()
	_, end := r.state(t)
	hidden := map[string]bool{}
	for _, st := range []*engine.State{r.start, end} {
		for _, pile := range [][]engine.Inst{st.Players[1].Hand, st.Players[1].Deck, st.Players[1].Bin, st.Players[0].Deck, st.ChallengeDeck} {
			for _, c := range pile {
				hidden[c.Card] = true
			}
		}
	}
	recs, err := r.e.st.EventsAfter(context.Background(), r.id, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	var shown strings.Builder
	shown.WriteString(jsonOf(t, r.start.View(0)) + jsonOf(t, end.View(0)))
	for _, rec := range recs {
		var ev engine.Event
		if err := json.Unmarshal([]byte(rec.Body), &ev); err != nil {
			t.Fatal(err)
		}
		if v, ok := ev.For(0); ok {
			shown.WriteString(jsonOf(t, v))
		}
	}
	var seen, out []*engine.Card
	for _, c := range engine.Standard().Cards() {
		if strings.Contains(shown.String(), `"`+c.ID+`"`) {
			seen = append(seen, c)
		}
	}
	for _, c := range engine.Standard().Cards() {
		if !hidden[c.ID] || slices.Contains(seen, c) {
			continue
		}
		if !slices.ContainsFunc(seen, func(s *engine.Card) bool { return strings.Contains(engine.CardText(s), c.Name) }) {
			out = append(out, c)
		}
	}
	return out
}

// TestAttackNotifyHiddenCardNames plays the attack's game on each
// database and looks for the cards that ana never saw (nhHiddenOnly:
// Kubernetes Cluster in Ben's hand, the cards of his deck and Recycle
// Bin, the bottom of her own deck and of the Challenge Deck) in
// everything she was sent, by name and by card id: in her emails'
// headers, text and HTML, her webhook's deliveries, her pushes, her
// streams and her notification log. None may be there. The cards she
// drew must be, on every channel that shows her hand or her news, or the
// search could not have found anything.
func TestAttackNotifyHiddenCardNames(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		r := nhStart(t, d, nhTwins[0], time.Now().UTC().Truncate(time.Second))
		r.play(t)
		items := r.received(t)
		nhCovers(t, items)
		secret := r.nhHiddenOnly(t)
		var names []string
		for _, c := range secret {
			names = append(names, c.Name)
		}
		if len(secret) < 10 || !slices.Contains(names, "Kubernetes Cluster") {
			t.Fatalf("only %d cards ana never saw (%q): the attack looks for too little", len(secret), names)
		}
		found := map[string]bool{}
		for _, it := range items {
			text := strings.ToLower(it.content)
			for _, c := range secret {
				for _, w := range []string{strings.ToLower(c.Name), `"` + c.ID + `"`} {
					if i := strings.Index(text, w); i >= 0 {
						t.Errorf("%s %s names %s, a card ana never saw: ...%s...", it.channel, it.key, c.Name,
							text[max(i-160, 0):min(i+len(w)+40, len(text))])
					}
				}
			}
			if strings.Contains(text, "proof of concept") {
				found[strings.Fields(it.channel)[0]] = true
			}
		}
		for _, ch := range []string{"email", "webhook", "stream", "log"} {
			if !found[ch] {
				t.Errorf("no %s to ana names Proof of Concept, a card she drew: the search finds nothing there", ch)
			}
		}
		t.Logf("%d things sent to ana searched for %d cards she never saw: %s", len(items), len(secret), strings.Join(names, ", "))
	})
}

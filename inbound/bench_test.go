package inbound_test

import (
	"context"
	"fmt"
	"net/smtp"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
)

// BenchmarkInboundSMTP measures replies played through the inbound SMTP
// server: 16 clients, each with its own games, send replies over TCP (one
// SMTP connection each, as a sending MTA keeps one), each reply an applied
// move (the end of a turn, or the answer to a prompt) at the game's
// version. For 10 seconds they send as fast as the server takes them
// (max: the replies played per second), then for 10 seconds at 250
// replies a second in all (paced); each phase reports the time from the
// server's 250 to DATA to the SMTP sink accepting the reply's answer (p50,
// p99), with every other email of the moves sent too. Run it on Postgres:
//
//	TEST_DATABASE_URL=postgres://... go test ./inbound -run '^$' -bench InboundSMTP -benchtime 1x
func BenchmarkInboundSMTP(b *testing.B) {
	d := modelstest.Dialects()[len(modelstest.Dialects())-1]
	for range b.N {
		benchInbound(b, d)
	}
}

func benchInbound(b *testing.B, d models.Dialect) {
	e := newEnv(b, d)
	rate, p50, p99 := benchPhase(b, e, d, 0)
	b.ReportMetric(rate, "replies/s")
	b.ReportMetric(p50, "max_p50_ms")
	b.ReportMetric(p99, "max_p99_ms")
	_, p50, p99 = benchPhase(b, e, d, 250)
	b.ReportMetric(p50, "paced250_p50_ms")
	b.ReportMetric(p99, "paced250_p99_ms")
}

// benchPhase runs 16 clients for 10 seconds, at most pace replies a second
// in all (0: no limit), and returns the replies played per second and the
// answers' p50 and p99 in milliseconds.
func benchPhase(b *testing.B, e *env, d models.Dialect, pace int) (float64, float64, float64) {
	const clients, gamesEach, duration = 16, 3, 10 * time.Second
	var tokens <-chan time.Time
	if pace > 0 {
		tick := time.NewTicker(time.Second / time.Duration(pace))
		defer tick.Stop()
		tokens = tick.C
	}
	var mu sync.Mutex
	sentAt := map[string]time.Time{} // reply Message-ID -> its 250
	var lat []time.Duration
	var answered atomic.Int64
	e.sink.mu.Lock()
	e.sink.at = func(m sent) {
		mu.Lock()
		if t, ok := sentAt[m.InReplyTo]; ok {
			lat = append(lat, time.Since(t))
			answered.Add(1)
		}
		mu.Unlock()
	}
	e.sink.mu.Unlock()
	type game struct {
		id    int64
		users [2]*models.User
	}
	games := make([][]game, clients)
	for c := range clients {
		for k := range gamesEach {
			a, bb := e.user(fmt.Sprintf("a%d_%d_%d", pace, c, k)), e.user(fmt.Sprintf("b%d_%d_%d", pace, c, k))
			games[c] = append(games[c], game{e.game(a, bb), [2]*models.User{a, bb}})
		}
	}
	e.settle()
	var played, refused atomic.Int64
	stop := time.Now().Add(duration)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			conn, err := smtp.Dial(e.smtp)
			if err != nil {
				b.Error(err)
				return
			}
			defer conn.Close()
			conn.Hello("client.example.com")
			for n := 0; time.Now().Before(stop); n++ {
				if tokens != nil {
					<-tokens
				}
				g := games[c][n%gamesEach]
				seat, version, body, ok := nextReply(e, g.id, g.users)
				if !ok {
					continue // over
				}
				u := g.users[seat]
				to := notifier.Reply{GameID: g.id, Seat: seat, UserID: u.ID, Version: version, Expires: time.Now().Add(time.Hour)}.
					Address(e.reply.Secret, domain)
				mid := fmt.Sprintf("bench-%d-%d-%d@example.com", c, n, time.Now().UnixNano())
				raw := replyMsg{From: u.Email, To: to, Subject: "Re: your turn", MessageID: mid, Body: body +
					"\n\nOn Tue, Data Monsters <turns@dm.example> wrote:\n> What you can do now\n"}.raw()
				if err := sendOn(conn, u.Email, to, raw); err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				sentAt[mid] = time.Now()
				mu.Unlock()
				if e.version(g.id) > version {
					played.Add(1)
				} else {
					refused.Add(1)
				}
			}
			conn.Quit()
		})
	}
	wg.Wait()
	el := time.Since(start)
	deadline := time.Now().Add(60 * time.Second)
	for answered.Load() < played.Load()+refused.Load() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	slices.Sort(lat)
	mu.Unlock()
	if len(lat) == 0 || played.Load() == 0 {
		b.Fatal("nothing measured")
	}
	p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
	rate := float64(played.Load()) / el.Seconds()
	b.Logf("%s, pace %d/s (0: none): %d replies played, %d refused in %v (%.0f played/s); %d answers: DATA accepted to answer accepted p50 %v, p99 %v",
		d, pace, played.Load(), refused.Load(), el.Round(time.Millisecond), rate, len(lat), p(0.5), p(0.99))
	e.sink.mu.Lock()
	e.sink.at = nil
	e.sink.mu.Unlock()
	e.settle()
	return rate, float64(p(0.5).Microseconds()) / 1000, float64(p(0.99).Microseconds()) / 1000
}

// nextReply is the reply that plays game id now: the awaited seat, the
// version, and its commands (the end of the turn, or the answer to its
// prompt); false when the game is over.
func nextReply(e *env, id int64, users [2]*models.User) (int, int64, string, bool) {
	seat, version, body := -1, int64(0), ""
	e.play.Read(context.Background(), id, 0, func(g *models.Game, _ int, st *engine.State) error {
		if g.Status != models.StatusActive {
			return nil
		}
		version = g.Version
		seat = slices.IndexFunc(g.Seats, func(s models.Seat) bool { return s.Awaited })
		if seat < 0 {
			return nil
		}
		v := st.View(seat)
		lines := engine.Numbered(v.Moves(engine.Legal(st, seat)))
		if i := slices.IndexFunc(lines, func(l engine.Line) bool { return l.Action.Type == engine.ActEndTurn }); i >= 0 {
			body = "end"
			return nil
		}
		if len(v.Prompts) == 0 {
			return nil
		}
		p := v.Prompts[0]
		var ns []string
		for _, l := range lines {
			if l.Prompt == p.ID && len(ns) < max(p.Min, 1) {
				ns = append(ns, strconv.Itoa(l.N))
			}
		}
		body = strings.Join(ns, " ")
		return nil
	})
	return seat, version, body, seat >= 0 && body != ""
}

// sendOn sends one message on an open SMTP connection.
func sendOn(c *smtp.Client, from, to string, raw []byte) error {
	if err := c.Mail(from); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Reset()
}

// The targets of issue 19 for the planner of BenchmarkEmailGames.
const (
	targetOneReply = 0.90 // at least this share of its turns in one reply
	targetEmails   = 1.2  // at most this many emails to it per turn of the game
	targetDups     = 0    // duplicate emails to it
)

// emailTargetsDue makes BenchmarkEmailGames fail when the planner misses a
// target (issue 19: both halves, a turn in one reply and one email per
// decision, are in). Run the benchmark with -benchtime 4x, since a few
// games are a small sample for the share of turns in one reply.
const emailTargetsDue = true

// emailGamesEach is how many games each iteration of BenchmarkEmailGames
// plays on each database (-benchtime 4x: four times as many).
const emailGamesEach = 6

// BenchmarkEmailGames plays whole 2-player games by email only, on each
// database, over real SMTP: the outbox sends every email to an SMTP sink
// over TCP, and each reply goes over TCP to the inbound SMTP server. One
// player is a planner, which reads only its emails and writes each turn as
// one plan in words (planner); the other writes numbers, what the greedy
// bot would do while each move is still a line of the email (env.choose).
// The planner is the first seat in every other game. It reports, for
// each player, the replies per turn of its own and the share of its turns
// done in one reply, the off-turn answers per turn (an interrupt window,
// a question on the other's turn), the emails per turn of the game and
// the duplicates (a second email to one person from one change, or the
// same text twice), and the time from a reply's sending to its answer
// reaching the sink (p50, p99). Run it with Postgres as well:
//
//	TEST_DATABASE_URL=postgres://... go test ./inbound -run '^$' -bench EmailGames -benchtime 1x
func BenchmarkEmailGames(b *testing.B) {
	for _, d := range modelstest.Dialects() {
		b.Run(d.String(), func(b *testing.B) {
			var all []gameFigures
			for i := 0; b.Loop(); i++ {
				e := newEnv(b, d)
				for k := range emailGamesEach {
					all = append(all, plannedGame(b, e, fmt.Sprintf("%d_%d", i, k), k%2))
				}
			}
			f := sumFigures(all)
			f.report(b)
			b.Logf("%s, %d games, %d turns: planner %.2f replies a turn, %.0f%% of its turns in one reply, %.2f emails a turn, %d duplicates; "+
				"numbers %.2f replies a turn, %.0f%% in one reply, %.2f emails a turn, %d duplicates; %.2f off-turn answers a turn; answers p50 %v, p99 %v",
				d, len(all), f.turns, f.plan.repliesPerTurn(), 100*f.plan.oneReply(), f.plan.emailsPerTurn(f.turns), f.plan.dups,
				f.num.repliesPerTurn(), 100*f.num.oneReply(), f.num.emailsPerTurn(f.turns), f.num.dups, f.offTurnPerTurn(),
				f.p(0.5).Round(time.Millisecond), f.p(0.99).Round(time.Millisecond))
			b.Logf("the planner's %d turns over one reply: %d with a plan refused, the others asked again by the game (a question, a plan an interrupt stopped)",
				f.plan.turns-f.plan.inOne, f.plan.refusedTurns)
			b.Logf("emails by kind: planner %v; numbers %v", f.plan.kinds, f.num.kinds)
			for _, s := range f.plan.dupDetails {
				b.Logf("planner's duplicate: %s", s)
			}
			for _, s := range f.num.dupDetails {
				b.Logf("numbers' duplicate: %s", s)
			}
			if emailTargetsDue {
				if got := f.plan.oneReply(); got < targetOneReply {
					b.Fatalf("the planner did %.0f%% of its turns in one reply, want at least %.0f%%", 100*got, 100*targetOneReply)
				}
				if got := f.plan.emailsPerTurn(f.turns); got > targetEmails {
					b.Fatalf("the planner got %.2f emails a turn, want at most %.2f", got, targetEmails)
				}
				if f.plan.dups > targetDups {
					b.Fatalf("the planner got %d duplicate emails, want %d", f.plan.dups, targetDups)
				}
			}
		})
	}
}

// plannedGame plays one game of BenchmarkEmailGames in e, under the
// service's default interrupt policy, the planner in seat plannerSeat of
// the players' seat order (a, who made the game, and b), and measures it.
func plannedGame(tb testing.TB, e *env, name string, plannerSeat int) gameFigures {
	a, bb := e.user("a"+name), e.user("b"+name)
	id := e.gameUnder(a, bb, "")
	users := []*models.User{a, bb}
	// The game's seats are in the order it was made and joined.
	var f forms
	pl := newPlanner(tb)
	byUser := map[int64]emailWriter{}
	byUser[users[plannerSeat].ID] = func(_ int, em *sent, _ int64, _ int) (string, string) { return pl.reply(em.Text), "plan" }
	numbers := users[1-plannerSeat]
	byUser[numbers.ID] = func(seat int, em *sent, ver int64, step int) (string, string) {
		return e.choose(tb, id, seat, numbers, em, ver, step, &f, false)
	}
	var seated []*models.User
	e.play.Read(context.Background(), id, 0, func(g *models.Game, _ int, _ *engine.State) error {
		for _, s := range g.Seats {
			seated = append(seated, map[int64]*models.User{a.ID: a, bb.ID: bb}[*s.UserID])
		}
		return nil
	})
	writers := []emailWriter{byUser[seated[0].ID], byUser[seated[1].ID]}
	start := time.Now()
	replies := emailGame(tb, e, id, seated, writers, func(from, to string, raw []byte) {
		if err := e.sendSMTP(from, to, raw); err != nil {
			tb.Fatalf("send the reply: %v", err)
		}
	}, &f)
	plan := slices.IndexFunc(seated, func(u *models.User) bool { return u.ID == users[plannerSeat].ID })
	return measure(replies, e.sink.all(), start, seated, plan)
}

// gameFigures are the measures of games by email. Turns are counted by
// the replies of the player whose turn it is.
type gameFigures struct {
	turns     int
	offTurn   int             // replies by the player whose turn it is not
	latencies []time.Duration // reply sent to answer accepted by the sink
	plan, num playerFigures
}

// playerFigures are one player's measures.
type playerFigures struct {
	turns, inOne, replies int // its turns; those done in one reply; its replies on them
	claims                int // its replies that played plays, a claim and the end of its turn at once
	refusedTurns          int // its turns over one reply because a reply of it was refused
	emails, dups          int
	kinds                 map[string]int // emails by kind (mailKind)
	dupDetails            []string       // the duplicates: their kinds and first lines, and what they repeat
}

func (p playerFigures) repliesPerTurn() float64 { return float64(p.replies) / float64(max(p.turns, 1)) }
func (p playerFigures) oneReply() float64       { return float64(p.inOne) / float64(max(p.turns, 1)) }
func (p playerFigures) emailsPerTurn(turns int) float64 {
	return float64(p.emails) / float64(max(turns, 1))
}
func (f gameFigures) offTurnPerTurn() float64 { return float64(f.offTurn) / float64(max(f.turns, 1)) }

// p is the q quantile of the latencies.
func (f gameFigures) p(q float64) time.Duration {
	if len(f.latencies) == 0 {
		return 0
	}
	l := slices.Clone(f.latencies)
	slices.Sort(l)
	return l[int(q*float64(len(l)-1))]
}

func (f gameFigures) report(b *testing.B) {
	b.ReportMetric(f.plan.repliesPerTurn(), "plan_replies/turn")
	b.ReportMetric(100*f.plan.oneReply(), "plan_1reply_%")
	b.ReportMetric(f.plan.emailsPerTurn(f.turns), "plan_emails/turn")
	b.ReportMetric(float64(f.plan.dups), "plan_dups")
	b.ReportMetric(f.num.repliesPerTurn(), "num_replies/turn")
	b.ReportMetric(100*f.num.oneReply(), "num_1reply_%")
	b.ReportMetric(f.num.emailsPerTurn(f.turns), "num_emails/turn")
	b.ReportMetric(float64(f.num.dups), "num_dups")
	b.ReportMetric(float64(f.plan.emails+f.num.emails)/float64(2*max(f.turns, 1)), "emails/player/turn")
	b.ReportMetric(f.offTurnPerTurn(), "offturn/turn")
	b.ReportMetric(float64(f.p(0.5).Microseconds())/1000, "answer_p50_ms")
	b.ReportMetric(float64(f.p(0.99).Microseconds())/1000, "answer_p99_ms")
}

// sumFigures adds up the figures of several games.
func sumFigures(all []gameFigures) gameFigures {
	var s gameFigures
	s.plan.kinds, s.num.kinds = map[string]int{}, map[string]int{}
	for _, f := range all {
		s.turns += f.turns
		s.offTurn += f.offTurn
		s.latencies = append(s.latencies, f.latencies...)
		for _, pair := range [][2]*playerFigures{{&s.plan, &f.plan}, {&s.num, &f.num}} {
			to, from := pair[0], pair[1]
			to.turns += from.turns
			to.inOne += from.inOne
			to.replies += from.replies
			to.claims += from.claims
			to.refusedTurns += from.refusedTurns
			to.emails += from.emails
			to.dups += from.dups
			to.dupDetails = append(to.dupDetails, from.dupDetails...)
			for k, n := range from.kinds {
				to.kinds[k] += n
			}
		}
	}
	return s
}

// kindRe reads the kind of a game's email from its Message-ID: the
// notification kind of the outbox's key ("g12.v30.your_turn.u3"), or
// "reply" for the answer to a reply.
var kindRe = regexp.MustCompile(`\.v\d+\.([a-z_]+)\.u\d+|\.(reply)\.`)

// mailKind is what m is, for the breakdown of emails: its notification
// kind, or for the answer to a reply, what became of the reply ("answer:
// played", "answer: refused"), as replies say.
func mailKind(m sent, replies []emailReply) string {
	k := kindRe.FindStringSubmatch(m.MessageID)
	switch {
	case k == nil:
		return "other"
	case k[1] != "":
		return k[1]
	}
	for _, r := range replies {
		if r.MessageID == m.InReplyTo && m.InReplyTo != "" {
			if r.refused() {
				return "answer: refused"
			}
			return "answer: played"
		}
	}
	return "answer"
}

// firstLine is the first line of an email's text past its greeting.
func firstLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "Hello ") {
			return l
		}
	}
	return ""
}

// measure works out the figures of one game from its replies and the
// emails the sink accepted (those to the seats' users since start): the
// emails that arrived between two replies come from the change the first
// of them made, since emailGame waits for the outbox before each reply.
func measure(replies []emailReply, msgs []sent, start time.Time, users []*models.User, plan int) gameFigures {
	f := gameFigures{plan: playerFigures{kinds: map[string]int{}}, num: playerFigures{kinds: map[string]int{}}}
	who := func(seat int) *playerFigures {
		if seat == plan {
			return &f.plan
		}
		return &f.num
	}
	own := map[int]int{} // turn -> replies by the player whose turn it is
	active := map[int]int{}
	refused := map[int]bool{} // turns with a reply of the player's refused
	for _, r := range replies {
		f.latencies = append(f.latencies, r.Answer.At.Sub(r.Sent))
		if !r.refused() && strings.Contains(r.Body, "play ") && strings.Contains(r.Body, "claim ") && strings.HasSuffix(r.Body, "end") {
			who(r.Seat).claims++
		}
		if r.Seat != r.Active {
			f.offTurn++
			continue
		}
		own[r.Turn]++
		active[r.Turn] = r.Active
		refused[r.Turn] = refused[r.Turn] || r.refused()
	}
	f.turns = len(own)
	for t, n := range own {
		p := who(active[t])
		p.turns++
		p.replies += n
		switch {
		case n == 1:
			p.inOne++
		case refused[t]:
			p.refusedTurns++
		}
	}
	// The change each email comes from: the index of the last reply sent
	// before it (-1: the game's start).
	change := func(at time.Time) int {
		return sort.Search(len(replies), func(i int) bool { return replies[i].Sent.After(at) }) - 1
	}
	for seat, u := range users {
		p := who(seat)
		byChange, byText := map[int]string{}, map[string]string{}
		for _, m := range msgs {
			if !strings.Contains(m.To, u.Email) || m.At.Before(start) {
				continue
			}
			p.emails++
			kind := mailKind(m, replies)
			p.kinds[kind]++
			what := fmt.Sprintf("%s (%q)", kind, firstLine(m.Text))
			c := change(m.At)
			text := sameText(m.Text)
			switch first, ok := byChange[c]; {
			case ok:
				p.dups++
				p.dupDetails = append(p.dupDetails, fmt.Sprintf("%s beside %s, from one change", what, first))
			case byText[text] != "":
				p.dups++
				p.dupDetails = append(p.dupDetails, fmt.Sprintf("%s, the same text as an earlier %s", what, byText[text]))
			}
			if _, ok := byChange[c]; !ok {
				byChange[c] = what
			}
			if byText[text] == "" {
				byText[text] = what
			}
		}
	}
	return f
}

// sameText is an email's text without what differs in every email even
// when it says the same: its links and reply address.
func sameText(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if !strings.Contains(l, "://") && !strings.Contains(l, "@"+domain) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// TestEmailFigures: the benchmark's measures of a game, on a game written
// out: Ana's turn takes two replies of hers (the second refused) and one
// answer of Ben's in a window, Ben's one reply; Ana gets a second email
// from her first reply's change, and later the text of her first email
// again; each email is counted by its kind, an answer by what became of
// the reply.
func TestEmailFigures(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ana, ben := &models.User{Email: "ana@example.com"}, &models.User{Email: "ben@example.com"}
	// An email of kind (a notification kind, or "reply" for an answer,
	// then the Message-ID of the reply answered) at ms.
	mail := func(to *models.User, ms int, kind, text string) sent {
		k, reply, _ := strings.Cut(kind, " ")
		m := sent{To: `"x" <` + to.Email + `>`, At: at(ms), Subject: "[Data Monsters] Game #1: ana, ben", Text: "Hello x,\n\n" + text,
			MessageID: fmt.Sprintf("game-1.g1.v%d.%s.u1.email@dm.example", ms, k)}
		if k == "reply" {
			m.MessageID, m.InReplyTo = fmt.Sprintf("game-1.g1.reply.%d@dm.example", ms), reply
		}
		return m
	}
	answer := func(to *models.User, ms int, reply string) *sent {
		m := mail(to, ms, "reply "+reply, "Your moves were played: "+reply)
		return &m
	}
	replies := []emailReply{
		{Seat: 0, Active: 0, Turn: 1, Body: "play x\nclaim y\nend", Moved: true, MessageID: "r1", Sent: at(1000), Answer: answer(ana, 1040, "r1")},
		{Seat: 1, Active: 0, Turn: 1, Body: "pass", Moved: true, MessageID: "r2", Sent: at(2000), Answer: answer(ben, 2030, "r2")},
		{Seat: 0, Active: 0, Turn: 1, Body: "claim z\nend", MessageID: "r3", Sent: at(3000), Answer: answer(ana, 3100, "r3")}, // refused
		{Seat: 1, Active: 1, Turn: 2, Body: "1 end", Moved: true, MessageID: "r4", Sent: at(4000), Answer: answer(ben, 4020, "r4")},
	}
	msgs := []sent{
		mail(ana, 100, "your_turn", "another game's"),
		mail(ana, 600, "your_turn", "It is your turn.\nhttps://dm.example/a?t=1\n"),
		*replies[0].Answer,
		mail(ben, 1050, "prompt_waiting", "window"),
		mail(ana, 1060, "prompt_waiting", "window for you"),
		*replies[1].Answer,
		*replies[2].Answer,
		mail(ben, 3110, "your_turn", "your turn, ben"),
		*replies[3].Answer,
		mail(ana, 4500, "your_turn", "It is your turn.\nhttps://dm.example/a?t=2\n"),
	}
	msgs[6].Text = "Hello x,\n\nNothing was played."
	replies[2].Answer = &msgs[6]
	f := measure(replies, msgs, at(500), []*models.User{ana, ben}, 0)
	if f.turns != 2 || f.offTurn != 1 || len(f.latencies) != 4 || f.p(0.5) != 30*time.Millisecond || f.p(1) != 100*time.Millisecond {
		t.Fatalf("turns %d, off-turn %d, latencies %v", f.turns, f.offTurn, f.latencies)
	}
	if p := f.plan; p.turns != 1 || p.replies != 2 || p.inOne != 0 || p.claims != 1 || p.refusedTurns != 1 || p.emails != 5 || p.dups != 2 ||
		p.kinds["your_turn"] != 2 || p.kinds["prompt_waiting"] != 1 || p.kinds["answer: played"] != 1 || p.kinds["answer: refused"] != 1 {
		t.Fatalf("Ana's figures %+v", p)
	}
	if p := f.plan; !strings.Contains(p.dupDetails[0], `prompt_waiting ("window for you") beside answer: played`) ||
		!strings.Contains(p.dupDetails[1], `your_turn ("It is your turn."), the same text as an earlier your_turn ("It is your turn.")`) {
		t.Fatalf("Ana's duplicates %q", p.dupDetails)
	}
	if n := f.num; n.turns != 1 || n.replies != 1 || n.inOne != 1 || n.emails != 4 || n.dups != 0 {
		t.Fatalf("Ben's figures %+v", n)
	}
	if s := sumFigures([]gameFigures{f, f}); s.turns != 4 || s.plan.dups != 4 || s.num.inOne != 2 || s.plan.kinds["your_turn"] != 4 {
		t.Fatalf("two games: %+v", s)
	}
}

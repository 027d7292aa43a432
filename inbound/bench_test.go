package inbound_test

import (
	"context"
	"fmt"
	"net/smtp"
	"slices"
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

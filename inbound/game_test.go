package inbound_test

import (
	"context"
	"fmt"
	"html"
	"math/rand/v2"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
)

// forms counts the kinds of replies a game by email wrote.
type forms struct {
	numbers, names, end, choice, pass, batch, none, html int
}

// TestGameByEmailSMTP plays a whole 2-player game by email only: every
// move is a reply to a decision email that the outbox sent to a real SMTP
// sink, written as a person would (numbers, card names, "end", the
// options of a choice, "pass", several moves at once, in the layouts of
// several mail clients, quoted original and all) and sent over TCP to the
// inbound SMTP server. The game ends with a winner, and every reply was
// answered in the game's thread.
func TestGameByEmailSMTP(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole game by email")
	}
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		e := newEnv(t, d)
		playByEmail(t, e, func(from, to string, raw []byte) {
			if err := e.sendSMTP(from, to, raw); err != nil {
				t.Fatalf("send the reply: %v", err)
			}
		})
	})
}

// TestGameByEmailHTTP is TestGameByEmailSMTP with every reply posted to
// POST /v1/inbound/email, as a mail provider's inbound webhook does.
func TestGameByEmailHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole game by email")
	}
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		e := newEnv(t, d)
		playByEmail(t, e, func(from, to string, raw []byte) {
			if code, body := e.postHTTP(raw, e.secret); code != 200 || !strings.Contains(body, `"outcome"`) {
				t.Fatalf("post the reply: %d %s", code, body)
			}
		})
	})
}

// TestPlannedGameByEmail plays a game of BenchmarkEmailGames, the planner
// against the numbers player, over SMTP on one database (Postgres when
// TEST_DATABASE_URL is set): the planner reads every email it answers, and
// some of its turns are one reply that plays Tools, claims and ends.
func TestPlannedGameByEmail(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole game by email")
	}
	d := modelstest.Dialects()[len(modelstest.Dialects())-1]
	f := plannedGame(t, newEnv(t, d), "0", 1)
	t.Logf("%s: %d turns; the planner's %d turns took %d replies, %d of them one, %d plays with a claim in one reply",
		d, f.turns, f.plan.turns, f.plan.replies, f.plan.inOne, f.plan.claims)
	if f.plan.turns == 0 || f.num.turns == 0 || f.plan.inOne == 0 || f.plan.claims == 0 {
		t.Fatalf("the planner played no whole turn in one reply: %+v", f.plan)
	}
}

func playByEmail(t *testing.T, e *env, send func(from, to string, raw []byte)) {
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	users := []*models.User{ana, ben}
	var f forms
	bot := func(seat int, em *sent, ver int64, step int) (string, string) {
		return e.choose(t, id, seat, users[seat], em, ver, step, &f, true)
	}
	replies := emailGame(t, e, id, users, []emailWriter{bot, bot}, send, &f)
	for _, r := range replies {
		if r.Current && r.refused() {
			t.Fatalf("the reply %q to the email at the game's version was refused:\n%s", r.Body, r.Answer.Text)
		}
	}
	g, err := e.st.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.WinnerSeats()) == 0 {
		t.Fatalf("the game ended with no winner")
	}
	for _, r := range replies {
		if !slices.Contains(r.Answer.References, notifier.ThreadID(strconv.FormatInt(id, 10), domain)) {
			t.Fatalf("the answer to %s is not in the game's thread: %v", r.MessageID, r.Answer.References)
		}
	}
	// Each player is told the game's end once: the game-over email, or
	// the answer to the reply that ended it, which stands for that email.
	for _, u := range users {
		over := 0
		for _, m := range e.sink.to(u.Email) {
			if strings.Contains(m.Text, "\nFinal scores (Big Data Points), by rank:\n") {
				over++
			}
		}
		if over != 1 {
			t.Fatalf("%s was told the game's end %d times", u.Username, over)
		}
	}
	t.Logf("%d replies: %d numbers, %d names, %d end, %d choices, %d pass, %d none, %d batches, %d HTML-only",
		len(replies), f.numbers, f.names, f.end, f.choice, f.pass, f.none, f.batch, f.html)
	if f.numbers == 0 || f.names == 0 || f.end == 0 || f.choice == 0 || f.pass == 0 || f.batch == 0 || f.html == 0 { // "none" only when the bot takes nothing
		t.Fatalf("the game did not use every form of reply: %+v", f)
	}
}

// emailReply is one reply of a game played by email, as emailGame sent
// it: who wrote it, at which turn of whom, what it said, when the inbound
// door took it, and the service's answer.
type emailReply struct {
	Seat      int
	Turn      int  // the game's turn when it was sent
	Active    int  // whose turn that is
	Current   bool // the email answered was written at the game's version
	Moved     bool // the game moved on with it (else nothing of it was played)
	Body      string
	Kind      string
	MessageID string
	Sent      time.Time // when its sending began
	Answer    *sent
}

// refused reports whether nothing of the reply was played.
func (r emailReply) refused() bool { return !r.Moved }

// emailWriter writes the commands of seat's reply to em, the seat's newest
// decision email that has no reply yet, written at version ver, and says
// what kind of reply it is; step counts the game's replies from 0.
type emailWriter func(seat int, em *sent, ver int64, step int) (body, kind string)

// emailGame plays game id of users to its end by email only: at each step
// it waits for the outbox, takes the newest decision email of the awaited
// seat that has no reply yet, has write[seat] write the reply, lays it out
// as one of several mail clients would (above the quoted original) and
// sends it with send. Every reply must be answered. It returns the
// replies, in order.
func emailGame(tb testing.TB, e *env, id int64, users []*models.User, write []emailWriter, send func(from, to string, raw []byte), f *forms) []emailReply {
	tb.Helper()
	replied := map[string]bool{}
	var replies []emailReply
	ctx := context.Background()
	for step := 0; ; step++ {
		if step > 500 {
			tb.Fatal("the game did not end in 500 replies")
		}
		e.settle()
		var g *models.Game
		turn, active := 0, -1
		if err := e.play.Read(ctx, id, 0, func(gm *models.Game, _ int, st *engine.State) error {
			g, turn, active = gm, st.Turn, st.Active
			return nil
		}); err != nil {
			tb.Fatal(err)
		}
		if g.Status == models.StatusOver {
			return replies
		}
		seat := slices.IndexFunc(g.Seats, func(s models.Seat) bool { return s.Awaited })
		if seat < 0 {
			tb.Fatalf("version %d: the game waits for no one", g.Version)
		}
		u := users[seat]
		var em *sent
		var ver int64 = -1
		for _, m := range e.sink.to(u.Email) {
			if !m.decision() || replied[m.MessageID] {
				continue
			}
			r, err := notifier.ParseReplyAddress(m.ReplyTo)
			if err != nil || !strings.HasSuffix(m.ReplyTo, "@"+domain) {
				tb.Fatalf("Reply-To %q: %v", m.ReplyTo, err)
			}
			if r.GameID != id || r.Seat != seat || r.UserID != u.ID {
				tb.Fatalf("Reply-To %q names %+v", m.ReplyTo, r)
			}
			if r.Version >= ver {
				m := m
				em, ver = &m, r.Version
			}
		}
		if em == nil {
			tb.Fatalf("seat %d is awaited at version %d but has no decision email to answer", seat, g.Version)
		}
		replied[em.MessageID] = true
		body, kind := write[seat](seat, em, ver, step)
		reply := replyMsg{From: u.Email, To: em.ReplyTo, Subject: "Re: " + em.Subject, InReplyTo: em.MessageID,
			References: append(slices.Clone(em.References), em.MessageID)}
		clientLayout(&reply, body, em, step, f)
		raw := reply.raw()
		r := emailReply{Seat: seat, Turn: turn, Active: active, Current: ver == g.Version, Body: body, Kind: kind, MessageID: messageIDOf(raw),
			Sent: time.Now()}
		send(u.Email, em.ReplyTo, raw)
		e.settle()
		if r.Answer = e.answerTo(r.MessageID); r.Answer == nil {
			tb.Fatalf("step %d (%s, %q): no answer to the reply", step, kind, body)
		}
		r.Moved = e.version(id) != g.Version
		replies = append(replies, r)
	}
}

// answerTo returns the answer to the reply mid, nil if none.
func (e *env) answerTo(mid string) *sent {
	for _, m := range e.sink.all() {
		if m.InReplyTo == mid {
			return &m
		}
	}
	return nil
}

// choose writes the commands of a reply to em: what the greedy bot would
// do for the seat, in the words of the email's numbered list: numbers,
// and with names also a move's name now and then.
func (e *env) choose(t testing.TB, id int64, seat int, u *models.User, em *sent, ver int64, step int, f *forms, names bool) (string, string) {
	t.Helper()
	listed := emailLines(em.Text)
	var cmds []string
	kind := ""
	err := e.play.Read(context.Background(), id, u.ID, func(g *models.Game, _ int, cur *engine.State) error {
		v := cur.View(seat)
		legal := engine.Legal(cur, seat)
		lines := engine.Numbered(v.Moves(legal))
		if g.Version == ver {
			// The email lists exactly engine.Numbered at its version.
			if len(listed) != len(lines) {
				return fmt.Errorf("the email lists %d lines, engine.Numbered %d:\n%s", len(listed), len(lines), em.Text)
			}
			for _, l := range lines {
				if listed[l.N] != l.Text {
					return fmt.Errorf("line %d reads %q, engine.Numbered %q", l.N, listed[l.N], l.Text)
				}
				if !strings.Contains(em.HTML, html.EscapeString(l.Text)) {
					return fmt.Errorf("the HTML part lacks line %d %q", l.N, l.Text)
				}
				// Each whole line has its link, signed for the line at the version.
				digest := engine.Digest(lines)
				m := regexp.MustCompile(`/games/` + strconv.FormatInt(id, 10) + `/act\?v=` + strconv.FormatInt(ver, 10) +
					`&n=` + strconv.Itoa(l.N) + `&d=` + strconv.FormatUint(uint64(digest), 10) + `&t=([A-Za-z0-9_%-]+)`).FindStringSubmatch(em.Text)
				if m == nil != !l.Whole() {
					return fmt.Errorf("line %d (whole %v): link %v", l.N, l.Whole(), m)
				}
				if m != nil {
					tok, _ := url.QueryUnescape(m[1])
					lk, err := notifier.ParseLink(tok)
					if err != nil || !lk.Valid([]byte("links"), notifier.LinkAction, notifier.ActionBound(ver, l.N, digest)) || lk.UserID != u.ID {
						return fmt.Errorf("line %d: link token %q: %v", l.N, tok, err)
					}
				}
			}
			if !strings.Contains(em.Text, "Market (") || !strings.Contains(em.Text, "Global zone") || !strings.Contains(em.Text, "Deadline: ") {
				return fmt.Errorf("the email does not show the board:\n%s", em.Text)
			}
		}
		number := func(text string) int { // the line of the email with that text
			for n, tx := range listed {
				if tx == text {
					return n
				}
			}
			return 0
		}
		b := bot.NewGreedy(rand.New(rand.NewPCG(uint64(id), uint64(step))))
		a := b.Choose(v, legal)
		switch {
		case a.Type == engine.ActAnswer:
			p := v.Prompts[slices.IndexFunc(v.Prompts, func(p engine.Prompt) bool { return p.ID == a.Prompt })]
			if len(a.Choices) == 0 {
				cmds, kind = []string{"none"}, "none"
				f.none++
				break
			}
			var ns []string
			for _, c := range a.Choices {
				i := slices.IndexFunc(lines, func(l engine.Line) bool { return l.Prompt == a.Prompt && l.Option == c })
				n := lines[i].N
				if g.Version != ver {
					n = number(lines[i].Text)
				}
				ns = append(ns, strconv.Itoa(n))
			}
			switch {
			case len(a.Choices) == 1 && a.Choices[0] == engine.Pass:
				cmds, kind = []string{"pass"}, "pass"
				f.pass++
			case p.Max > 1:
				cmds, kind = []string{string(p.Kind) + " " + strings.Join(ns, " ")}, "choice"
				f.choice++
			default:
				cmds, kind = ns, "numbers"
				f.numbers++
			}
		case step < 8 && slices.ContainsFunc(lines, func(l engine.Line) bool { return l.Action.Type == engine.ActEndTurn }):
			// The first turns end at once: hands fill up to the hand limit,
			// whose discard is a choice of several options.
			cmds, kind = []string{"end"}, "turn"
			f.end++
		default:
			// A turn action, then what the bot would do next while each move
			// is still a line of this email: "1 4 end".
			sim := cur.Clone()
			for k := 0; k < 4; k++ {
				i := slices.IndexFunc(lines, func(l engine.Line) bool { return l.Whole() && reflect.DeepEqual(l.Action, a) })
				if i < 0 {
					break
				}
				cmd := strconv.Itoa(lines[i].N)
				switch {
				case a.Type == engine.ActEndTurn:
					cmd = "end"
				case names && step%3 == 0:
					// By name, when the name is enough: "place glitchy".
					w := strings.Fields(strings.ToLower(strings.NewReplacer("(", "", ")", "", ",", "", ":", "").Replace(lines[i].Text)))
					if len(w) > 2 {
						if rd, err := play.ReadCommands(strings.Join(w[:3], " ")); err == nil {
							if plan, err := play.Resolve(sim, seat, lines, rd); err == nil && len(plan.Actions) == 1 && reflect.DeepEqual(plan.Actions[0], lines[i].Action) {
								cmd = strings.Join(w[:3], " ")
							}
						}
					}
				}
				cmds = append(cmds, cmd)
				if _, err := engine.Apply(sim, seat, a); err != nil || a.Type == engine.ActEndTurn || len(sim.Prompts) > 0 || sim.Active != seat {
					break
				}
				nl := engine.Legal(sim, seat)
				if len(nl) == 0 {
					break
				}
				a = b.Choose(sim.View(seat), nl)
			}
			if len(cmds) == 0 {
				return fmt.Errorf("the bot's action %v is not a line of the email", a)
			}
			for _, c := range cmds {
				switch {
				case c == "end":
					f.end++
				case strings.Contains(c, " "):
					f.names++
				default:
					f.numbers++
				}
			}
			if len(cmds) > 1 {
				f.batch++
			}
			kind = "turn"
		}
		return nil
	})
	if err != nil {
		t.Fatalf("step %d: %v", step, err)
	}
	sep := " " // numbers and keywords may share a line: "1 4 end"
	if step%2 == 1 || slices.ContainsFunc(cmds, func(c string) bool { return strings.Contains(c, " ") }) {
		sep = "\n" // a card's name ends with its line
	}
	if step%5 == 2 {
		sep = ", "
	}
	return strings.Join(cmds, sep), kind
}

// clientLayout writes body the way one of several mail clients would,
// above the quoted original, or below it as some write.
func clientLayout(r *replyMsg, body string, em *sent, step int, f *forms) {
	quoted := func(prefix string) string {
		var b strings.Builder
		for _, l := range strings.Split(em.Text, "\n") {
			b.WriteString(prefix + l + "\n")
		}
		return b.String()
	}
	when := time.Now().Format("Mon, 2 Jan 2006 at 15:04")
	switch step % 5 {
	case 0: // Gmail, text
		r.Body = body + "\n\nOn " + when + ", Data Monsters <turns@dm.example> wrote:\n" + quoted("> ")
	case 1: // Outlook: the original below a header block, not prefixed
		r.Body = body + "\r\n\r\n________________________________\r\nFrom: Data Monsters <turns@dm.example>\r\nSent: " + when +
			"\r\nTo: " + r.From + "\r\nSubject: " + em.Subject + "\r\n\r\n" + em.Text
	case 2: // Apple Mail on a phone, with its signature
		r.Body = body + "\n\nSent from my iPhone\n\n> On 1 Dec 2026, at 10:00, Data Monsters <turns@dm.example> wrote:\n>\n" + quoted("> ")
	case 3: // Thunderbird: a wrapped attribution line; every other time written below the quote
		r.Body = body + "\n\nOn " + when + ", Data Monsters wrote:\n" + quoted("> ")
		if step%2 == 0 {
			r.Body = "On " + when + ", Data Monsters wrote:\n" + quoted("> ") + "\n" + body + "\n"
		}
	case 4: // Gmail, HTML only
		html := strings.ReplaceAll(body, "\n", "<br>")
		r.HTML = `<div dir="ltr">` + html + `</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On ` + when +
			`, Data Monsters &lt;turns@dm.example&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">` +
			em.HTML + `</blockquote></div>`
		f.html++
	}
}

package notifier

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
)

// TestEmailOpensWithNews: Ana plays a Tool, Ben cancels it with Merge
// Conflict from the window it opened; the email that tells Ana her turn
// goes on opens (below the greeting) with what happened to her plan, in
// the sentence of her board's banner (play.News), in its text and its
// HTML. The email that asked Ben, whom nothing had changed for (a Tool
// played is no news), opens with its headline.
func TestEmailOpensWithNews(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		e.outbox(t, true)
		st := standingScenario(t, false)
		g := e.scenarioGame(t, st)
		p := play.New(e.st, e.clock.Now, nil)
		ana, ben := e.users[0], e.users[1]
		tool := st.Players[0].Hand[0].ID
		res, err := p.Submit(ctx, g.ID, ana.ID, nil, []engine.Action{{Type: engine.ActPlayTool, Card: tool}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var answer engine.Action
		for _, pr := range engine.PromptsFor(res.State, 1) {
			for _, o := range pr.Options {
				if o.ID != engine.Pass {
					answer = engine.Action{Type: engine.ActAnswer, Prompt: pr.ID, Choices: []string{o.ID}}
				}
			}
		}
		res.Done()
		if answer.Type == "" {
			t.Fatal("Ben has no interrupt to answer Ana's Tool with")
		}
		if res, err = p.Submit(ctx, g.ID, ben.ID, nil, []engine.Action{answer}, nil); err != nil {
			t.Fatal(err)
		}
		table := res.State.Table()
		var events []play.Event
		for _, ev := range res.Events() {
			events = append(events, ev)
		}
		banner := play.News(table, 0, events, 0)
		res.Done()
		want := "ben played Merge Conflict: your Open Source Library (TECH 1, SCI 1) was cancelled."
		if !slices.Contains(banner, want) {
			t.Fatalf("the board's news for Ana: %q", banner)
		}
		msgs := e.waitMail(t, 2)
		opens := map[string]string{}
		for _, m := range msgs {
			pm := parseMail(t, m.Data)
			text := strings.ReplaceAll(pm.Text, "\r\n", "\n")
			body, ok := strings.CutPrefix(text, "Hello "+strings.TrimSuffix(m.Rcpts[0], "@example.com")+",\n\n")
			if !ok {
				t.Fatalf("an email does not open with its greeting:\n%s", text)
			}
			first, _, _ := strings.Cut(body, "\n")
			opens[m.Rcpts[0]] = first
			if m.Rcpts[0] == ana.Email && !strings.Contains(pm.HTML, "<p>"+strings.ReplaceAll(want, "'", "&#39;")+"</p>") {
				t.Errorf("the HTML part does not say %q:\n%s", want, pm.HTML)
			}
		}
		if opens[ana.Email] != want {
			t.Errorf("Ana's email opens with %q, want %q", opens[ana.Email], want)
		}
		if opens[ben.Email] != "A decision waits for you during ana's turn (turn 1)." {
			t.Errorf("Ben's email, with no news, opens with %q", opens[ben.Email])
		}
	})
}

// TestEveryGameEmailTakesReplies walks the kinds of email a game sends,
// with replies on: the invitations, the start, a reminder, a timeout and
// the turn it starts, a window, queued actions played after it, and the
// game's end. Every one has a reply address, signed, for its recipient's
// seat of its game: a decision's names its list, every other one is a
// general address, which takes the commands that need none (help, board,
// resign...).
func TestEveryGameEmailTakesReplies(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		e.cfg.Reply = ReplyConfig{Secret: []byte("reply secret"), Domain: "dm.example"}
		o, _, g, _ := e.startTimedGame(t)
		p := play.New(e.st, e.clock.Now, nil)
		// The reminder at 80% of the turn, then the timeout.
		e.clock.Add(58 * time.Hour)
		if _, err := o.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the reminder", func() bool { return slices.Contains(kindsOf(t, e), "deadline_reminder") })
		e.clock.Add(14 * time.Hour)
		if _, err := o.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the timeout", func() bool { return slices.Contains(kindsOf(t, e), "timeout_applied") })
		// A batch of three Tools of Ana's, each of which opens a window for
		// Ben: his passes play the rest of her queue.
		st := standingScenario(t, false)
		sg := e.scenarioGame(t, st)
		var tools []engine.Action
		for _, c := range st.Players[0].Hand {
			tools = append(tools, engine.Action{Type: engine.ActPlayTool, Card: c.ID})
		}
		res, err := p.Submit(ctx, sg.ID, e.users[0].ID, nil, tools, nil)
		for i := 0; err == nil && i < 5; i++ {
			ps := engine.PromptsFor(res.State, 1)
			res.Done()
			if len(ps) == 0 {
				break
			}
			res, err = p.Submit(ctx, sg.ID, e.users[1].ID, nil, []engine.Action{{Type: engine.ActAnswer, Prompt: ps[0].ID, Choices: []string{engine.Pass}}}, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		// The timed game ends: two of its three players resign.
		for _, u := range e.users[1:] {
			if res, err = p.Resign(ctx, g.ID, u.ID, nil); err != nil {
				t.Fatal(err)
			}
			res.Done()
		}
		waitFor(t, "the game-over emails", func() bool {
			n := 0
			for _, k := range kindsOf(t, e) {
				if k == "game_over" {
					n++
				}
			}
			return n == 3
		})
		time.Sleep(200 * time.Millisecond)
		ids := map[string]int64{}
		for _, u := range e.users {
			ids[u.Email] = u.ID
		}
		seen := map[string]bool{}
		for _, m := range e.sink.messages() {
			pm := parseMail(t, m.Data)
			id := pm.Header.Get("Message-Id")
			kind := ""
			for _, k := range Kinds {
				if strings.Contains(id, "."+string(k)+".") {
					kind = string(k)
				}
			}
			seen[kind] = true
			addr := strings.Trim(pm.Header.Get("Reply-To"), "<>")
			r, err := ParseReplyAddress(addr)
			if err != nil || !r.Valid(e.cfg.Reply.Secret) || !strings.HasSuffix(addr, "@dm.example") {
				t.Errorf("%s to %s: Reply-To %q (%v)", kind, m.Rcpts[0], addr, err)
				continue
			}
			if !strings.HasPrefix(id, "<game-"+strconv.FormatInt(r.GameID, 10)+".") || r.UserID != ids[m.Rcpts[0]] {
				t.Errorf("%s %s to %s: the reply address names game %d, user %d", kind, id, m.Rcpts[0], r.GameID, r.UserID)
			}
			decision := kind == "your_turn" || kind == "prompt_waiting" || kind == "deadline_reminder" ||
				kind == "game_started" && strings.Contains(pm.Text, "What you can do now")
			if r.General == decision {
				t.Errorf("%s to %s: general address %v, a decision %v", kind, m.Rcpts[0], r.General, decision)
			}
		}
		for _, k := range []string{"invitation", "game_started", "deadline_reminder", "timeout_applied", "your_turn", "prompt_waiting",
			"queued_actions", "game_over"} {
			if !seen[k] {
				t.Errorf("no %s email was sent: %v", k, seen)
			}
		}
	})
}

// TestQueuedActionsNameTheirTurn: the email of a queue played names the
// turn the queue was Ana's, also when the change that played it went on
// to start Ben's turn, so that two such emails of two turns never read
// alike.
func TestQueuedActionsNameTheirTurn(t *testing.T) {
	t.Parallel()
	st := &engine.State{Turn: 8}
	events := []event{{seq: 10, ev: engine.Event{Kind: "queue_resumed"}}, {seq: 11, ev: engine.Event{Kind: "turn_ended"}},
		{seq: 12, ev: engine.Event{Kind: "turn_started", Seat: 1}}}
	if got := turnAt(st, events, 10); got != 7 {
		t.Fatalf("the queue of turn 7, played as turn 8 began: turn %d", got)
	}
	if got := turnAt(st, events, 12); got != 8 {
		t.Fatalf("after the turn began: turn %d", got)
	}
	if h := Headline(QueuedActions{Turn: 7}); h != "Your queued actions were played (turn 7): the interrupt window closed." {
		t.Fatalf("headline %q", h)
	}
}

// kindsOf is the kinds of the emails the sink has, in order.
func kindsOf(t *testing.T, e *outboxEnv) []string {
	var out []string
	for _, k := range mailKinds(t, e.sink.messages()) {
		kind, _, _ := strings.Cut(k, ">")
		out = append(out, kind)
	}
	return out
}

// TestTurnEmailSaysEachThingOnce: when the first player ends their turn,
// the other's "your turn" email opens with the cards they drew, in the
// news's words ("You drew ...", once: the cards dealt are their opening
// hand), and its list under "Since you last
// played" leaves out the log's line of that draw ("You draw ..."), while
// keeping the lines the news does not tell (the turn that began). The
// webhooks' and the live stream's payload of the same notification keeps
// every line: only the email leaves out what it already said.
func TestTurnEmailSaysEachThingOnce(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		e.outbox(t, true)
		p := play.New(e.st, e.clock.Now, nil)
		id, start := e.duel(t, p, play.NewGame{})
		g := start()
		first := 0
		if g.Seats[1].Awaited {
			first = 1
		}
		other := e.users[1-first]
		sent := len(e.waitMail(t, 2)) // the start emails (a late one of the lobby's may follow)
		e.endTurns(t, p, id, first)
		var text string
		waitFor(t, "a your-turn email to "+other.Email, func() bool {
			for _, m := range mailsTo(t, e.sink.messages()[sent:], other.Email) {
				if strings.Contains(m.Header.Get("Message-Id"), ".your_turn.") {
					text = strings.ReplaceAll(m.Text, "\r\n", "\n")
				}
			}
			return text != ""
		})
		head, since, ok := strings.Cut(text, "Since you last played:\n")
		if !ok {
			t.Fatalf("the email lists nothing since the player last played:\n%s", text)
		}
		since, _, _ = strings.Cut(since, "\n\n")
		if strings.Count(head, "You drew ") != 1 {
			t.Fatalf("the email's news does not say once what the player drew:\n%s", text)
		}
		if strings.Contains(since, "You draw ") {
			t.Errorf("the draw is said twice, in the news and in the list:\n%s", text)
		}
		if !strings.Contains(since, "begins.") {
			t.Errorf("the list lost the turn that began, which the news does not tell:\n%s", text)
		}

		ns, err := e.st.NotificationsAfter(ctx, other.ID, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(ns, func(n models.Notification) bool { return n.Kind == string(KindYourTurn) })
		if i < 0 {
			t.Fatalf("no your_turn notification for %s", other.Username)
		}
		var body struct {
			Since []string `json:"since"`
		}
		if err := json.Unmarshal([]byte(ns[i].Body), &body); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(body.Since, func(l string) bool { return strings.HasPrefix(l, "You draw ") }) {
			t.Errorf("the notification's payload lost the draw from its list: %q\n%s", body.Since, ns[i].Body)
		}
		if strings.Contains(ns[i].Body, `"told"`) {
			t.Errorf("the payload carries the email's list of told lines: %s", ns[i].Body)
		}
	})
}

// TestNewsToldStopsAtTheCap: when the news is cut to newsMax sentences,
// the lines of the events it no longer shows stay in the email's list:
// only what the email says is left out of it.
func TestNewsToldStopsAtTheCap(t *testing.T) {
	t.Parallel()
	st := &engine.State{Players: []engine.Player{{Name: "ana"}, {Name: "ben"}}}
	var events []engine.Event
	var lines []string
	for i, c := range engine.Standard().Cards() {
		if c.Type != engine.Monster || len(events) == newsMax+2 {
			continue
		}
		line := "ben places " + c.Name + " in his Lab."
		events = append(events, engine.Event{Kind: engine.KindPlaced, Seat: 1, Card: c.ID, Inst: "i" + strconv.Itoa(i), Text: line})
		lines = append(lines, line)
	}
	news, told := NewsTold(st.Table(), 0, events)
	if len(news) != newsMax || !strings.HasPrefix(news[newsMax-1], "And 3 more") {
		t.Fatalf("%d placements give the news %q", len(events), news)
	}
	if !slices.Equal(told, lines[:newsMax-1]) {
		t.Fatalf("told %q, want the first %d lines", told, newsMax-1)
	}
	left := without(lines, told)
	if !slices.Equal(left, lines[newsMax-1:]) {
		t.Fatalf("the list keeps %q, want the 3 placements the news does not show", left)
	}
	// A line said twice in the log and told once is listed once.
	twice := []string{"ben draws 2 cards.", "Turn 3: ana begins.", "ben draws 2 cards."}
	if got := without(twice, []string{"ben draws 2 cards."}); !slices.Equal(got, twice[1:]) {
		t.Fatalf("without: %q", got)
	}
}

// TestTurnThatGoesOnTellsOnlyWhatIsNew: Ben ends his turn; Ana's turn
// begins and her email tells her what she drew. She plays a Tool, Ben
// may cancel it and passes, and her turn goes on: the email that says so
// tells what happened since she played (Ben answered, nobody
// interrupted), not again the cards she drew, which she has since played
// from.
func TestTurnThatGoesOnTellsOnlyWhatIsNew(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e := newOutboxEnv(t, d)
		e.outbox(t, true)
		_, submit := e.playScenario(t, `name: a turn that goes on
players:
  - {name: ana, hand: [frontend-framework], deck: [open-source-library, open-source-library, open-source-library]}
  - {name: ben, hand: [merge-conflict]}
active: 1
`)
		ana, ben := e.users[0], e.users[1]
		st := submit(ben.ID, engine.Action{Type: engine.ActEndTurn})
		if first := e.turnMail(t, ana.Email, 1); !strings.Contains(first, "You drew Open Source Library") {
			t.Fatalf("the email of Ana's turn does not say what she drew:\n%s", first)
		}
		var tool string
		for _, c := range st.Players[0].Hand {
			if c.Card == "open-source-library" {
				tool = c.ID
			}
		}
		st = submit(ana.ID, engine.Action{Type: engine.ActPlayTool, Card: tool})
		prompts := engine.PromptsFor(st, 1)
		if len(prompts) != 1 {
			t.Fatalf("Ben is not asked about Ana's Tool: %+v", prompts)
		}
		submit(ben.ID, engine.Action{Type: engine.ActAnswer, Prompt: prompts[0].ID, Choices: []string{engine.Pass}})
		goesOn := e.turnMail(t, ana.Email, 2)
		if strings.Contains(goesOn, "You drew") {
			t.Errorf("the email of Ana's turn going on tells her draw again:\n%s", goesOn)
		}
		if !strings.Contains(goesOn, "nobody interrupts") {
			t.Errorf("the email of Ana's turn going on does not say the window closed:\n%s", goesOn)
		}
	})
}

// TestTurnThatGoesOnTellsEveryAnswer: in a game of three, Ana plays a
// Tool and both Ben and Cy are asked whether to interrupt. Each answers in
// a change of his own; the second closes the window and Ana's turn goes
// on. Her email says both answered, not only the last. Ben's email, which
// asks him, shows the question once.
func TestTurnThatGoesOnTellsEveryAnswer(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e := newOutboxEnv(t, d)
		e.outbox(t, true)
		start, submit := e.playScenario(t, `name: a window of two seats
players:
  - {name: ana, hand: [open-source-library, frontend-framework]}
  - {name: ben, hand: [merge-conflict]}
  - {name: cy, hand: [merge-conflict]}
`)
		ana, ben, cy := e.users[0], e.users[1], e.users[2]
		st := submit(ana.ID, engine.Action{Type: engine.ActPlayTool, Card: start.Players[0].Hand[0].ID})
		asked := func(seat int) string {
			t.Helper()
			prompts := engine.PromptsFor(st, seat)
			if len(prompts) != 1 {
				t.Fatalf("seat %d is not asked about Ana's Tool: %+v", seat, prompts)
			}
			return prompts[0].ID
		}
		benPrompt, cyPrompt := asked(1), asked(2)
		question := engine.PromptsFor(st, 1)[0].Text
		benMail := mailsTo(t, e.waitMail(t, 2), ben.Email) // Ben's and Cy's questions
		if len(benMail) != 1 {
			t.Fatalf("Ben got %d emails, want his question's", len(benMail))
		}
		for _, m := range benMail {
			text := strings.ReplaceAll(m.Text, "\r\n", "\n")
			if n := strings.Count(text, question); n != 1 {
				t.Errorf("Ben's email shows the question %d times, want once:\n%s", n, text)
			}
		}
		submit(ben.ID, engine.Action{Type: engine.ActAnswer, Prompt: benPrompt, Choices: []string{engine.Pass}})
		submit(cy.ID, engine.Action{Type: engine.ActAnswer, Prompt: cyPrompt, Choices: []string{engine.Pass}})
		goesOn := e.turnMail(t, ana.Email, 1) // the game began on her turn: no email before
		for _, want := range []string{"ben has answered", "cy has answered", "nobody interrupts"} {
			if !strings.Contains(goesOn, want) {
				t.Errorf("the email of Ana's turn going on does not say %q:\n%s", want, goesOn)
			}
		}
		if strings.Contains(goesOn, "may answer with an interrupt") {
			t.Errorf("the email of Ana's turn going on retells her own move's window:\n%s", goesOn)
		}
	})
}

// turnMail waits for the nth "your turn" email to addr and returns its
// text, with plain line ends.
func (e *outboxEnv) turnMail(t *testing.T, addr string, n int) string {
	t.Helper()
	return e.kindMail(t, addr, KindYourTurn, n)
}

// kindMail is the text of the nth email of kind to addr, waited for.
func (e *outboxEnv) kindMail(t *testing.T, addr string, kind Kind, n int) string {
	t.Helper()
	var text string
	waitFor(t, string(kind)+" email to "+addr, func() bool {
		var turns []string
		for _, m := range mailsTo(t, e.sink.messages(), addr) {
			if strings.Contains(m.Header.Get("Message-Id"), "."+string(kind)+".") {
				turns = append(turns, strings.ReplaceAll(m.Text, "\r\n", "\n"))
			}
		}
		if len(turns) >= n {
			text = turns[n-1]
		}
		return text != ""
	})
	return text
}

// playScenario stores the game of a scenario file (scenarioGame) and
// returns its state and a function that submits one action of a
// user to it through play, fails the test on a refusal, and returns the
// state the action leaves.
func (e *outboxEnv) playScenario(t *testing.T, scenario string) (*engine.State, func(uid int64, a engine.Action) *engine.State) {
	t.Helper()
	res, err := engine.RunScenario([]byte(scenario))
	if err != nil || res.Failed() {
		t.Fatalf("scenario: %v %+v", err, res)
	}
	g := e.scenarioGame(t, res.State)
	p := play.New(e.st, e.clock.Now, nil)
	return res.State, func(uid int64, a engine.Action) *engine.State {
		t.Helper()
		r, err := p.Submit(context.Background(), g.ID, uid, nil, []engine.Action{a}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Done()
		return r.State.Clone()
	}
}

// TestTurnThatAsksShowsTheQuestionOnce: Ana's turn begins over the hand
// limit, so its email asks her what to discard. The question stands
// under "Waiting for your answer" and not again among what happened.
func TestTurnThatAsksShowsTheQuestionOnce(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e := newOutboxEnv(t, d)
		e.outbox(t, true)
		_, submit := e.playScenario(t, `name: a turn that begins over the hand limit
players:
  - name: ana
    hand: [data-lake, data-lake, merge-conflict, merge-conflict, cloud-outage, cloud-outage]
    deck: [open-source-library, open-source-library, open-source-library]
  - {name: ben}
active: 1
`)
		ana, ben := e.users[0], e.users[1]
		st := submit(ben.ID, engine.Action{Type: engine.ActEndTurn})
		prompts := engine.PromptsFor(st, 0)
		if len(prompts) != 1 || prompts[0].Kind != engine.PromptDiscard {
			t.Fatalf("Ana is not asked to discard: %+v", prompts)
		}
		text := e.turnMail(t, ana.Email, 1)
		if n := strings.Count(text, prompts[0].Text); n != 1 {
			t.Errorf("the email shows the question %q %d times, want once:\n%s", prompts[0].Text, n, text)
		}
	})
}

// TestWindowEmailShowsTheWindowOnce: Ben plays a Hack that Ana may
// cancel. Her decision email asks the question under "Waiting for your
// answer" and its list says Ben played the card, without the window's
// line, which would say again that he is about to play it.
func TestWindowEmailShowsTheWindowOnce(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e := newOutboxEnv(t, d)
		e.outbox(t, true)
		st, submit := e.playScenario(t, `name: a window
players:
  - {name: ana, hand: [red-tape], deck: [data-lake]}
  - {name: ben, hand: [audit-season], deck: [data-lake]}
active: 1
`)
		ana, ben := e.users[0], e.users[1]
		st = submit(ben.ID, engine.Action{Type: engine.ActPlayHack, Card: st.Players[1].Hand[0].ID})
		prompts := engine.PromptsFor(st, 0)
		if len(prompts) != 1 || prompts[0].Kind != engine.PromptInterrupt {
			t.Fatalf("Ana is not asked to interrupt: %+v", prompts)
		}
		text := e.kindMail(t, ana.Email, KindPromptWaiting, 1)
		since := sinceList(text)
		if !strings.Contains(since, "ben plays Audit Season.") || strings.Contains(since, "about to play") {
			t.Errorf("the list does not say the play once, the question apart:\n%s", text)
		}
		if n := strings.Count(text, "about to play"); n != 1 {
			t.Errorf("the email says %d times that ben is about to play, want once (the question):\n%s", n, text)
		}
	})
}

// TestDecisionSaysWhatItAnswers: in a game of three, Ben ends his turn,
// Cy places a Monster and Ana cancels it with Hiring Freeze, which Ben
// may cancel in turn. Cy's turn and Ana's window came in changes that
// emailed Ben nothing; his decision email says them, so that he knows
// what Ana's Hack would cancel, and leaves out the window that asks him,
// which his question says.
func TestDecisionSaysWhatItAnswers(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e := newOutboxEnv(t, d)
		e.outbox(t, true)
		st, submit := e.playScenario(t, `name: a window on a window
players:
  - {name: ana, hand: [hiring-freeze], deck: [data-lake, data-lake, data-lake]}
  - {name: ben, hand: [red-tape], deck: [data-lake, data-lake, data-lake]}
  - {name: cy, hand: [glitchy-junior], deck: [data-lake, data-lake, data-lake]}
active: 1
`)
		ana, ben, cy := e.users[0], e.users[1], e.users[2]
		st = submit(ben.ID, engine.Action{Type: engine.ActEndTurn})
		st = submit(cy.ID, engine.Action{Type: engine.ActPlace, Card: st.Players[2].Hand[0].ID})
		ps := engine.PromptsFor(st, 0)
		if len(ps) != 1 {
			t.Fatalf("Ana is not asked: %+v", st.Prompts)
		}
		freeze := slices.IndexFunc(ps[0].Options, func(o engine.Option) bool { return o.ID != engine.Pass })
		st = submit(ana.ID, engine.Action{Type: engine.ActAnswer, Prompt: ps[0].ID, Choices: []string{ps[0].Options[freeze].ID}})
		if ps := engine.PromptsFor(st, 1); len(ps) != 1 {
			t.Fatalf("Ben is not asked: %+v", st.Prompts)
		}
		text := e.kindMail(t, ben.Email, KindPromptWaiting, 1)
		since := sinceList(text)
		for _, want := range []string{"cy is about to place Glitchy (Junior); ana may answer with an interrupt.", "ana has answered."} {
			if !strings.Contains(since, want) {
				t.Errorf("the list lacks %q:\n%s", want, text)
			}
		}
		if n := strings.Count(text, "ana is about to play"); n != 1 {
			t.Errorf("the email says %d times that ana is about to play, want once (the question):\n%s", n, text)
		}
	})
}

// TestDecisionInOwnTurnSaysYourTurn: Ana plays Scrum Planning, which asks
// her which card to take. Her email, and the digest's line for it, say
// the decision waits during her turn, not during "ana's turn"; the
// public payload still names the seat whose turn it is.
func TestDecisionInOwnTurnSaysYourTurn(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e := newOutboxEnv(t, d)
		e.outbox(t, true)
		start, submit := e.playScenario(t, `name: a Hack that asks its player
players:
  - {name: ana, hand: [scrum-planning, frontend-framework], deck: [rapid-prototype, design-system, data-lake, open-source-library]}
  - {name: ben, hand: [frontend-framework]}
`)
		ana := e.users[0]
		st := submit(ana.ID, engine.Action{Type: engine.ActPlayHack, Card: start.Players[0].Hand[0].ID})
		if p := engine.PromptsFor(st, 0); len(p) != 1 {
			t.Fatalf("Ana is not asked to choose: %+v", p)
		}
		m := mailsTo(t, e.waitMail(t, 1), ana.Email)
		if len(m) != 1 {
			t.Fatalf("Ana got %d emails, want 1", len(m))
		}
		text := strings.ReplaceAll(m[0].Text, "\r\n", "\n")
		if want := "A decision waits for you during your turn (turn 1).\n"; !strings.Contains(text, want) {
			t.Errorf("Ana's email does not say %q:\n%s", want, text)
		}
		ns, _, _, err := e.st.NotificationsFrom(context.Background(), ana.ID, models.NoteCursor{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(ns, func(n models.Notification) bool { return n.Kind == string(KindPromptWaiting) })
		if i < 0 {
			t.Fatalf("no prompt_waiting notification for Ana: %+v", ns)
		}
		if !strings.Contains(ns[i].Body, `"turn_of":"ana"`) || strings.Contains(ns[i].Body, "in_your_turn") {
			t.Errorf("the public payload changed: %s", ns[i].Body)
		}
		if line := digestLine(ns[i], ana.Username); !strings.HasSuffix(line, "a decision waited for you during your turn") {
			t.Errorf("the digest's line: %q", line)
		}
		if line := digestLine(ns[i], "ben"); !strings.HasSuffix(line, "during ana's turn") {
			t.Errorf("the digest's line for another reader: %q", line)
		}
	})
}

// TestTurnGoesOnKeepsOtherHeadlines: the email of a turn that goes on
// tells the log since the seat's move, after the headlines of the
// change's other notes that it stands for (a timeout's), which are not
// lines of the log.
func TestTurnGoesOnKeepsOtherHeadlines(t *testing.T) {
	was := []string{"cy ran out of time: the default answers applied.", "cy has answered.", "The interrupt window closes: nobody interrupts."}
	since := []string{"ben has answered.", "cy has answered.", "The interrupt window closes: nobody interrupts."}
	got := withAlso(was, since)
	want := append([]string{was[0]}, since...)
	if !slices.Equal(got, want) {
		t.Errorf("withAlso = %q, want %q", got, want)
	}
	if got := withAlso(since[1:], since); !slices.Equal(got, since) {
		t.Errorf("with no other headline: %q, want %q", got, since)
	}
}

// sinceList is the list of an email's text under "Since you last
// played", heading and all; "" when it has none.
func sinceList(text string) string {
	i := strings.Index(text, "Since you last played:")
	if i < 0 {
		return ""
	}
	list, _, _ := strings.Cut(text[i:], "\n\n")
	return list
}

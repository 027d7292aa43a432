package notifier

import (
	"context"
	"slices"
	"strings"
	"testing"

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

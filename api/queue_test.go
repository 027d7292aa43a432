package api_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
)

// interrupter is a legal deck for a player who answers Tools: both copies
// of Merge Conflict (an interrupt that cancels a played Tool) and Tools it
// never plays.
var interrupter = map[string]any{"name": "interrupter", "cards": []map[string]any{
	{"card": "merge-conflict", "count": 2},
	{"card": "open-source-library", "count": 2}, {"card": "frontend-framework", "count": 2},
	{"card": "rapid-prototype", "count": 2}, {"card": "serverless-functions", "count": 2},
	{"card": "data-lake", "count": 2}, {"card": "proof-of-concept", "count": 2},
	{"card": "stored-procedures", "count": 2}, {"card": "all-nighter-build", "count": 2},
	{"card": "rust-rewrite", "count": 1}, {"card": "analytics-sdk", "count": 1},
}}

// queueGame is a two-player game driven through the API: ana (seat 0)
// plays the Running a Startup pack, bob (seat 1) the interrupter deck,
// with the holders policy, so that a Tool of ana's opens an interrupt
// window exactly when bob holds Merge Conflict.
type queueGame struct {
	t        *testing.T
	e        *env
	id       int64
	ana, bob *player
}

func (q *queueGame) submit(p *player, version int64, actions ...engine.Action) turnResult {
	q.t.Helper()
	var tr turnResult
	q.e.must(200, req{Method: "POST", Path: actionsPath(q.id), Token: p.Access,
		Body: map[string]any{"expected_version": version, "actions": actions}}).decode(q.t, &tr)
	return tr
}

// events returns the events p sees after seq.
func (q *queueGame) events(p *player, after int64) []engine.Event {
	q.t.Helper()
	var list struct {
		Events []struct {
			Event engine.Event `json:"event"`
		} `json:"events"`
	}
	q.e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d/events?after=%d&limit=500", q.id, after), Token: p.Access}).decode(q.t, &list)
	var out []engine.Event
	for _, ev := range list.Events {
		out = append(out, ev.Event)
	}
	return out
}

func cardIn(cards []engine.CardView, card string) string {
	for _, c := range cards {
		if c.Card == card {
			return c.ID
		}
	}
	return ""
}

// tools returns the Tools ana may play now.
func (q *queueGame) tools() []string {
	q.t.Helper()
	var out []string
	for _, a := range q.e.legal(q.id, q.ana) {
		if a.Type == engine.ActPlayTool {
			out = append(out, a.Card)
		}
	}
	return out
}

// answer answers p's first prompt: an interrupt with pass, anything else
// with the first options that are not Merge Conflict.
func (q *queueGame) answer(p *player, g game) {
	q.t.Helper()
	pr := g.Prompts[0]
	choices := []string{engine.Pass}
	if pr.Kind != engine.PromptInterrupt {
		choices = nil
		for _, o := range pr.Options {
			if len(choices) < pr.Min && o.Card != "merge-conflict" {
				choices = append(choices, o.ID)
			}
		}
	}
	q.submit(p, g.Version, engine.Action{Type: engine.ActAnswer, Prompt: pr.ID, Choices: choices})
}

// ready plays ends of turn and prompt answers until ana may act in her
// Action phase with a Tool she may play while bob holds Merge Conflict.
// It returns ana's game and those Tools.
func (q *queueGame) ready() (game, []string) {
	q.t.Helper()
	for range 200 {
		ga, gb := q.e.getGame(q.id, q.ana), q.e.getGame(q.id, q.bob)
		if ga.Status != "active" {
			q.t.Fatalf("the game is %s", ga.Status)
		}
		v := ga.View
		switch {
		case len(gb.Prompts) > 0:
			q.answer(q.bob, gb)
		case len(ga.Prompts) > 0:
			q.answer(q.ana, ga)
		case v.Active == 0 && v.Phase == engine.PhaseAction && cardIn(gb.View.Hand, "merge-conflict") != "" && len(q.tools()) > 0:
			return ga, q.tools()
		case v.Active == 0:
			q.submit(q.ana, ga.Version, engine.Action{Type: engine.ActEndTurn})
		default:
			q.submit(q.bob, gb.Version, engine.Action{Type: engine.ActEndTurn})
		}
	}
	q.t.Fatal("bob never held Merge Conflict on ana's turn")
	return game{}, nil
}

func kinds(evs []engine.Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Kind)
	}
	return out
}

func lastSeq(tr turnResult) int64 {
	var seq int64
	for _, ev := range tr.Events {
		seq = max(seq, ev.Seq)
	}
	return seq
}

// TestQueuedActionsResumeOrDrop: a batch whose Tool opens an interrupt
// window queues the actions after it. When the window closes with a pass,
// the queue resumes; when the Tool is cancelled, the queued claim is no
// longer legal and the queue is dropped with a private queue_dropped event
// that says why. Everything goes through the API.
// interruptGame starts a fast game of ana (a prebuilt deck) and bob (the
// interrupter deck), prompted by holders.
func interruptGame(t *testing.T, e *env) *queueGame {
	t.Helper()
	ana, bob := e.register("ana"), e.register("bob")
	var d struct {
		ID int64 `json:"id"`
	}
	e.must(201, req{Method: "POST", Path: "/v1/decks", Token: bob.Access, Body: interrupter}).decode(t, &d)
	var g game
	e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{
		"players": 2, "mode": "fast", "policy": "holders", "deck": map[string]string{"prebuilt": "running-a-startup"}}}).decode(t, &g)
	e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/join", g.ID), Token: bob.Access,
		Body: map[string]any{"deck": map[string]any{"deck_id": d.ID}}})
	e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/start", g.ID), Token: ana.Access})
	return &queueGame{t: t, e: e, id: g.ID, ana: ana, bob: bob}
}

func TestQueuedActionsResumeOrDrop(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		q := interruptGame(t, e)
		ana, bob, g := q.ana, q.bob, game{ID: q.id}

		// Resumed: ana plays a Tool and ends her turn in one batch; bob
		// passes; the end of turn runs.
		ga, tools := q.ready()
		tr := q.submit(ana, ga.Version, engine.Action{Type: engine.ActPlayTool, Card: tools[0]}, engine.Action{Type: engine.ActEndTurn})
		if len(tr.View.Queued) != 1 || tr.View.Queued[0].Type != engine.ActEndTurn || !slices.Equal(tr.View.Awaiting, []int{1}) {
			t.Fatalf("after the batch: queued %v, awaiting %v", tr.View.Queued, tr.View.Awaiting)
		}
		after := lastSeq(tr)
		gb := e.getGame(g.ID, bob)
		if len(gb.Prompts) != 1 || gb.Prompts[0].Kind != engine.PromptInterrupt || gb.View.Queued != nil {
			t.Fatalf("bob's prompts %+v, queued %v", gb.Prompts, gb.View.Queued)
		}
		q.submit(bob, gb.Version, engine.Action{Type: engine.ActAnswer, Prompt: gb.Prompts[0].ID, Choices: []string{engine.Pass}})
		seen := kinds(q.events(ana, after))
		if !slices.Contains(seen, "tool_played") || !slices.Contains(seen, "queue_resumed") || slices.Contains(seen, "queue_dropped") {
			t.Fatalf("ana's events after bob passed: %v", seen)
		}
		if ga = e.getGame(g.ID, ana); ga.View.Active != 1 || ga.View.Queued != nil {
			t.Fatalf("the queued end of turn did not run: active %d, queued %v", ga.View.Active, ga.View.Queued)
		}

		// Dropped: ana plays a Tool and claims a challenge with it; bob
		// cancels the Tool with Merge Conflict; the claim is dropped.
		ga, tools = q.ready()
		claim := engine.Action{Type: engine.ActClaim, Challenges: []string{ga.View.Market[0].ID}}
		tr = q.submit(ana, ga.Version, engine.Action{Type: engine.ActPlayTool, Card: tools[0]}, claim)
		if len(tr.View.Queued) != 1 || tr.View.Queued[0].Type != engine.ActClaim {
			t.Fatalf("after the batch: queued %v", tr.View.Queued)
		}
		after = lastSeq(tr)
		gb = e.getGame(g.ID, bob)
		mc := ""
		for _, o := range gb.Prompts[0].Options {
			if o.Card == "merge-conflict" {
				mc = o.ID
			}
		}
		if mc == "" {
			t.Fatalf("bob may not answer with Merge Conflict: %+v", gb.Prompts[0])
		}
		bobs := q.submit(bob, gb.Version, engine.Action{Type: engine.ActAnswer, Prompt: gb.Prompts[0].ID, Choices: []string{mc}})
		for _, ev := range bobs.Events {
			if strings.HasPrefix(ev.Event.Kind, "queue") {
				t.Errorf("bob sees ana's %s: %+v", ev.Event.Kind, ev.Event)
			}
		}
		var dropped *engine.Event
		evs := q.events(ana, after)
		for i := range evs {
			if evs[i].Kind == "queue_dropped" {
				dropped = &evs[i]
			}
		}
		if dropped == nil || !slices.Contains(kinds(evs), "cancelled") || slices.Contains(kinds(evs), "queue_resumed") {
			t.Fatalf("ana's events after the cancel: %v", kinds(evs))
		}
		if dropped.Seat != 0 || dropped.N != 1 || !strings.Contains(dropped.Text, "claim") || !strings.Contains(dropped.Text, "play Tools") {
			t.Fatalf("queue_dropped %+v", dropped)
		}
		for _, ev := range q.events(bob, after) {
			if strings.HasPrefix(ev.Kind, "queue") {
				t.Errorf("bob's event log shows ana's %s", ev.Kind)
			}
		}
		ga = e.getGame(g.ID, ana)
		if ga.View.Queued != nil || ga.View.Active != 0 || ga.View.Phase != engine.PhaseAction || len(ga.View.Players[0].Ranking) != 0 {
			t.Fatalf("after the drop: queued %v, active %d, phase %s, ranking %v", ga.View.Queued, ga.View.Active, ga.View.Phase, ga.View.Players[0].Ranking)
		}
	})
}

package bot

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/datamonsters/turns/engine"
)

func cv(id, card string) engine.CardView { return engine.CardView{ID: id, Card: card} }

func opt(id, card string) engine.Option { return engine.Option{ID: id, Card: card} }

// view is a 2-player view for seat 0 in its Action phase.
func view(hand []engine.CardView, lab0, lab1 []engine.CardView) *engine.View {
	return &engine.View{Seat: 0, Active: 0, Phase: engine.PhaseAction, Hand: hand,
		Players: []engine.PlayerView{{Seat: 0, Lab: lab0}, {Seat: 1, Lab: lab1}}}
}

func TestGreedyAnswersPrompts(t *testing.T) {
	g := NewGreedy(rand.New(rand.NewPCG(1, 1)))
	for _, tc := range []struct {
		name string
		v    *engine.View
		p    engine.Prompt
		want []string
	}{
		{"discard the least useful", view(nil, nil, nil),
			engine.Prompt{ID: "p1", Kind: engine.PromptDiscard, Min: 2, Max: 2, Options: []engine.Option{
				opt("a", "open-source-library"), opt("b", "rust-rewrite"), opt("c", "scrum-planning"), opt("d", "glitchy-senior")}},
			[]string{"d", "a"}},
		{"take the most useful", view(nil, nil, nil),
			engine.Prompt{ID: "p1", Kind: engine.PromptLook, Min: 1, Max: 1, Options: []engine.Option{
				opt("a", "open-source-library"), opt("b", "rust-rewrite")}},
			[]string{"b"}},
		{"keep the higher level", view(nil, []engine.CardView{cv("old", "glitchy-chief")}, nil),
			engine.Prompt{ID: "p1", Kind: engine.PromptKeep, Min: 1, Max: 1, Options: []engine.Option{
				opt("new", "glitchy-junior"), opt("old", "glitchy-chief")}},
			[]string{"old"}},
		{"interrupt an opponent", view(nil, nil, nil),
			engine.Prompt{ID: "p1", Kind: engine.PromptInterrupt, Actor: 1, Min: 1, Max: 1, Options: []engine.Option{
				{ID: engine.Pass}, opt("m", "merge-conflict")}},
			[]string{"m"}},
		{"target the highest level", view(nil, nil, []engine.CardView{cv("j", "qubo-junior"), cv("s", "qubo-senior")}),
			engine.Prompt{ID: "p1", Kind: engine.PromptCard, Min: 1, Max: 1, Options: []engine.Option{
				opt("j", "qubo-junior"), opt("s", "qubo-senior")}},
			[]string{"s"}},
		{"put away what the hand cannot reach", &engine.View{Seat: 0, Hand: []engine.CardView{cv("t", "proof-of-concept")},
			Players: []engine.PlayerView{{Seat: 0}, {Seat: 1}}},
			engine.Prompt{ID: "p1", Kind: engine.PromptRefresh, Min: 0, Max: 1, Options: []engine.Option{
				opt("easy", "landing-page"), opt("hard", "social-network"), opt("hard2", "delivery-robots")}},
			[]string{"hard"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.v.Prompts = []engine.Prompt{tc.p}
			legal := []engine.Action{{Type: engine.ActAnswer, Prompt: "p1", Choices: []string{tc.p.Options[0].ID}}}
			a := g.Choose(tc.v, legal)
			if a.Type != engine.ActAnswer || a.Prompt != "p1" || !slices.Equal(a.Choices, tc.want) {
				t.Fatalf("got %v, want answer %v", a, tc.want)
			}
		})
	}
}

func TestGreedyTargetsTheLeader(t *testing.T) {
	g := NewGreedy(rand.New(rand.NewPCG(1, 1)))
	v := &engine.View{Seat: 0, Players: []engine.PlayerView{{Seat: 0, Points: 9}, {Seat: 1, Points: 3}, {Seat: 2, Points: 7}},
		Prompts: []engine.Prompt{{ID: "p2", Kind: engine.PromptPlayer, Min: 1, Max: 1, Options: []engine.Option{{ID: "1"}, {ID: "2"}}}}}
	a := g.Choose(v, []engine.Action{{Type: engine.ActAnswer, Prompt: "p2", Choices: []string{"1"}}})
	if !slices.Equal(a.Choices, []string{"2"}) {
		t.Fatalf("got %v, want seat 2", a)
	}
}

func TestGreedyActions(t *testing.T) {
	g := NewGreedy(rand.New(rand.NewPCG(1, 1)))
	end := engine.Action{Type: engine.ActEndTurn}
	market := []engine.CardView{cv("lp", "landing-page"), cv("sn", "social-network"), cv("sf", "spam-filter")}

	// The claim worth most.
	v := view(nil, nil, nil)
	v.Market = market
	v.Build = &engine.BuildView{Tech: 9, Sci: 9}
	claims := []engine.Action{{Type: engine.ActClaim, Challenges: []string{"lp"}}, {Type: engine.ActClaim, Challenges: []string{"lp", "sf"}}, end}
	if a := g.Choose(v, claims); !slices.Equal(a.Challenges, []string{"lp", "sf"}) {
		t.Fatalf("claim: got %v", a)
	}

	// A Hack that would find nothing to bounce waits; the turn ends.
	v = view([]engine.CardView{cv("h", "headhunter")}, nil, nil)
	if a := g.Choose(v, []engine.Action{{Type: engine.ActPlayHack, Card: "h"}, end}); a.Type != engine.ActEndTurn {
		t.Fatalf("headhunter with no target: got %v", a)
	}
	v = view([]engine.CardView{cv("h", "headhunter")}, nil, []engine.CardView{cv("q", "qubo-junior")})
	if a := g.Choose(v, []engine.Action{{Type: engine.ActPlayHack, Card: "h"}, end}); a.Type != engine.ActPlayHack {
		t.Fatalf("headhunter with a target: got %v", a)
	}

	// An upgrade is placed, a card that would replace a better one is not.
	v = view([]engine.CardView{cv("s", "glitchy-senior")}, []engine.CardView{cv("j", "glitchy-junior")}, nil)
	if a := g.Choose(v, []engine.Action{{Type: engine.ActPlace, Card: "s"}, end}); a.Type != engine.ActPlace {
		t.Fatalf("upgrade: got %v", a)
	}
	v = view([]engine.CardView{cv("j", "glitchy-junior")}, []engine.CardView{cv("c", "glitchy-chief")}, nil)
	if a := g.Choose(v, []engine.Action{{Type: engine.ActPlace, Card: "j"}, end}); a.Type != engine.ActEndTurn {
		t.Fatalf("degrade: got %v", a)
	}

	// Tools toward the best reachable challenge; none if nothing is reachable.
	v = view([]engine.CardView{cv("a", "rapid-prototype"), cv("b", "proof-of-concept"), cv("c", "analytics-sdk")}, nil, nil)
	v.Market = market
	tools := []engine.Action{{Type: engine.ActPlayTool, Card: "a"}, {Type: engine.ActPlayTool, Card: "b"}, {Type: engine.ActPlayTool, Card: "c"}, end}
	if a := g.Choose(v, tools); a.Type != engine.ActPlayTool {
		t.Fatalf("tools: got %v", a)
	}
	v.Market = []engine.CardView{cv("sn", "social-network")}
	if a := g.Choose(v, tools); a.Type != engine.ActEndTurn {
		t.Fatalf("unreachable: got %v", a)
	}
}

func TestPlayErrors(t *testing.T) {
	st := setup(t, 1, 2)
	if _, err := Play(st, bots("greedy", 1, 3), 10); err == nil {
		t.Fatal("three bots for two seats accepted")
	}
	st.Players = st.Players[:1]
	if _, err := Play(st, bots("greedy", 1, 1), 10); err == nil {
		t.Fatal("a one-player game accepted")
	}
	res, err := Play(setup(t, 1, 2), bots("random", 1, 2), 2)
	if err != nil || res.Finished || res.Winners != nil || res.Turns < 2 {
		t.Fatalf("turn cap: %+v %v", res, err)
	}
}

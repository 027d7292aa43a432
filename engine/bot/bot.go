package bot

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/datamonsters/turns/engine"
)

// Bot chooses one action for the seat of view v. legal is engine.Legal for
// that seat and is never empty; an answer in it names an open prompt of v
// and no choices, and the bot fills in an answer the prompt admits (between
// its Min and Max distinct option ids). v and legal are valid only during
// the call: Run builds the next ones in the same memory.
type Bot interface {
	Choose(v *engine.View, legal []engine.Action) engine.Action
}

// Random picks uniformly among the legal actions, except that it always
// claims when a claim is listed (a random one of them) and never abandons a
// build, so that its games end. It answers a prompt with a random answer
// the prompt admits.
type Random struct{ r *rand.Rand }

// NewRandom returns a Random bot drawing from r.
func NewRandom(r *rand.Rand) *Random { return &Random{r: r} }

// Choose returns a random claim if there is one, otherwise a uniformly
// random legal action other than abandon_build.
func (b *Random) Choose(v *engine.View, legal []engine.Action) engine.Action {
	n := 0
	for _, a := range legal {
		if a.Type == engine.ActClaim {
			n++
		}
	}
	if n > 0 {
		k := b.r.IntN(n)
		for _, a := range legal {
			if a.Type == engine.ActClaim {
				if k == 0 {
					return a
				}
				k--
			}
		}
	}
	for range 64 {
		a := legal[b.r.IntN(len(legal))]
		if a.Type != engine.ActAbandon {
			return b.answer(v, a)
		}
	}
	return b.answer(v, legal[0])
}

// answer fills in a random answer when a is a legal list's answer to a
// prompt of v; any other action is returned as it is.
func (b *Random) answer(v *engine.View, a engine.Action) engine.Action {
	if p := openPrompt(v, a); p != nil {
		a.Choices = RandomAnswer(b.r, p)
	}
	return a
}

// openPrompt is the prompt of v that a, an answer without choices, names;
// nil for any other action.
func openPrompt(v *engine.View, a engine.Action) *engine.Prompt {
	if a.Type != engine.ActAnswer || a.Choices != nil {
		return nil
	}
	for i := range v.Prompts {
		if v.Prompts[i].ID == a.Prompt {
			return &v.Prompts[i]
		}
	}
	return nil
}

// RandomAnswer draws an answer p admits, uniformly in its size (Min to Max
// choices) and then among the selections of that size: option ids in the
// prompt's order.
func RandomAnswer(r *rand.Rand, p *engine.Prompt) []string {
	n := len(p.Options)
	lo, hi := max(p.Min, 0), min(p.Max, n)
	if hi < lo {
		return []string{}
	}
	k := lo + r.IntN(hi-lo+1)
	out := make([]string, 0, k)
	// Selection sampling: each option is taken with the chance that keeps
	// every selection of k equally likely.
	for i := 0; i < n && len(out) < k; i++ {
		if r.IntN(n-i) < k-len(out) {
			out = append(out, p.Options[i].ID)
		}
	}
	return out
}

// Result is the outcome of one bot game.
type Result struct {
	Winners  []int // winning seats; empty if the game did not finish
	First    int   // the seat that took the first turn
	Scores   []int // Big Data Points per seat at the end
	Turns    int   // turns played
	Actions  int   // actions applied, prompt answers included
	Finished bool  // the game ended by its rules within the turn cap
}

// ErrStuck is returned when the game waits for nobody although it is not over.
var ErrStuck = errors.New("bot: game waits for nobody")

// maxActions bounds one game, whatever maxTurns says.
const maxActions = 1_000_000

// Play runs a game from setup with one bot per seat until it ends or
// maxTurns turns have been played (then Finished is false). Whenever
// several seats owe an answer, the lowest seat acts first. An action the
// engine rejects is returned as an error: a bot must only choose legal
// actions.
func Play(setup engine.Setup, bots []Bot, maxTurns int) (Result, error) {
	return PlayLog(setup, bots, maxTurns, nil)
}

// A Logger is told each action a bot game applies: the turn, the seat that
// chose it, and the action in words as that seat reads it (View.Text).
type Logger func(turn, seat int, text string)

// PlayLog is Play, telling log every action; a nil log is Play.
func PlayLog(setup engine.Setup, bots []Bot, maxTurns int, log Logger) (Result, error) {
	if len(bots) != len(setup.Players) {
		return Result{}, fmt.Errorf("bot: %d bots for %d seats", len(bots), len(setup.Players))
	}
	s, _, err := engine.NewGame(setup)
	if err != nil {
		return Result{}, err
	}
	return run(s, bots, maxTurns, log)
}

func run(s *engine.State, bots []Bot, maxTurns int, log Logger) (Result, error) {
	res := Result{First: s.Active}
	if s.Turn > 1 {
		res.First = -1
	}
	// One view and one list each of awaited seats and legal actions, reused
	// from action to action. Nobody reads the events: the actions are
	// applied quietly.
	var views engine.Viewer
	var aw []int
	var legal []engine.Action
	for !s.Over() && s.Turn <= maxTurns {
		if res.Actions >= maxActions {
			return res, fmt.Errorf("bot: %d actions without the game ending", res.Actions)
		}
		aw = engine.AppendAwaiting(aw[:0], s)
		if len(aw) == 0 {
			return res, ErrStuck
		}
		seat := aw[0]
		legal = engine.AppendLegal(legal[:0], s, seat)
		if len(legal) == 0 {
			return res, fmt.Errorf("bot: seat %d is awaited but has no legal action", seat)
		}
		v := views.View(s, seat)
		a := bots[seat].Choose(v, legal)
		if log != nil {
			log(s.Turn, seat, v.Text(a))
		}
		if err := engine.ApplyQuiet(s, seat, a); err != nil {
			return res, fmt.Errorf("bot: seat %d action %v: %w", seat, a, err)
		}
		res.Actions++
	}
	res.Turns = s.Turn
	res.Finished = s.Over()
	res.Scores = make([]int, len(s.Players))
	for i := range s.Players {
		res.Scores[i] = s.Score(i)
	}
	if res.Finished {
		res.Winners = append([]int(nil), s.Winners...)
	}
	return res, nil
}

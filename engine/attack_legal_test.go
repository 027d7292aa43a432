package engine_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
)

// The attacks on legality play the games of attack_hidden_test.go (every
// setup, the prebuilt packs and the decks of extra cards, standing
// answers, timeouts, resignations) and, at positions along the way, throw
// at Apply every action a client could write: each action type with every
// instance id of the game (another seat's hand, a deck, the Challenge
// Deck...), claims of every Market selection with duplicates and strangers,
// answers to every open prompt (anyone's) with odd choices (none, twice
// the same, negative, out of range, huge, padded, another prompt's), and
// standing answers, votes, resignations and timeouts from every seat, from
// the service, and from seats that do not exist.

// atkJunk are strings that name nothing in any game.
var atkJunk = []string{"", " ", "x", "zzzzzzzzzz", "0", "-1", "1e3", "99999999999999999999", "-9223372036854775808",
	"p0", "p-1", "pass ", "PASS", "\x00", "é", strings.Repeat("7", 300)}

// atkCodes are the codes an illegal action may have.
var atkCodes = map[string]bool{}

func init() {
	for _, e := range []*engine.IllegalActionError{engine.ErrGameOver, engine.ErrNotYourTurn, engine.ErrWrongPhase, engine.ErrWaiting,
		engine.ErrNoCard, engine.ErrCardType, engine.ErrRequirement, engine.ErrLimit, engine.ErrPlacement, engine.ErrBuild,
		engine.ErrNoPrompt, engine.ErrAnswer, engine.ErrActivated, engine.ErrBadAction} {
		atkCodes[e.Code] = true
	}
}

// atkAnswers says, without asking the engine, whether seat may answer:
// the prompt is open and the seat's, and the choices are between its Min
// and Max distinct ids of its options.
func atkAnswers(s *engine.State, seat int, a engine.Action) bool {
	i := slices.IndexFunc(s.Prompts, func(p engine.Prompt) bool { return p.ID == a.Prompt })
	if i < 0 || s.Prompts[i].Seat != seat {
		return false
	}
	p := &s.Prompts[i]
	if len(a.Choices) < p.Min || len(a.Choices) > p.Max {
		return false
	}
	for k, ch := range a.Choices {
		if slices.Contains(a.Choices[:k], ch) || !slices.ContainsFunc(p.Options, func(o engine.Option) bool { return o.ID == ch }) {
			return false
		}
	}
	return true
}

// atkStandingOK says whether st is a valid standing answer: every play
// names a card of the set that answers the event it names.
func atkStandingOK(st *engine.Standing) bool {
	if st == nil {
		return false
	}
	for _, sp := range st.Plays {
		c := engine.Standard().Card(sp.Card)
		if c == nil || c.Type != engine.Hack || !c.Has(engine.KwInterrupt) ||
			!slices.ContainsFunc(c.Effects, func(e engine.Effect) bool { return e.Trigger == engine.OnInterrupt && e.Answers == sp.On }) {
			return false
		}
	}
	return true
}

// atkExpect says whether Apply must accept a by seat in s: for a turn
// action, whether Legal lists it; for the others, the rule in the action's
// documentation, worked out here from the state.
func atkExpect(s *engine.State, seat int, legal []engine.Action, a engine.Action) bool {
	if s.Over() {
		return false
	}
	if a.Type == engine.ActTimeout {
		return seat == engine.System
	}
	if seat < 0 || seat >= len(s.Players) || s.Players[seat].Resigned {
		return false
	}
	switch a.Type {
	case engine.ActAnswer:
		return atkAnswers(s, seat, a)
	case engine.ActStanding:
		return atkStandingOK(a.Standing)
	case engine.ActVoteEnd:
		return !s.Players[seat].VotedEnd
	case engine.ActResign:
		return true
	case engine.ActPlace, engine.ActPlayTool, engine.ActPlayHack, engine.ActActivate, engine.ActClaim, engine.ActAbandon, engine.ActEndTurn:
		return listed(legal, a)
	}
	return false
}

// atkName is the name of the card instance id in seat's hand or Lab, or "".
func atkName(s *engine.State, seat int, id string) string {
	if seat < 0 || seat >= len(s.Players) {
		return ""
	}
	p := &s.Players[seat]
	for _, in := range slices.Concat(p.Hand, p.Lab) {
		if in.ID == id {
			return engine.Standard().Card(in.Card).Name
		}
	}
	return ""
}

// atkSeatName is the name the engine gives seat.
func atkSeatName(s *engine.State, seat int) string {
	if n := s.Players[seat].Name; n != "" {
		return n
	}
	return "Seat " + strconv.Itoa(seat)
}

// atkReasonNames checks that a refusal says what is wrong: its code is a
// known one, it has a reason, and the reason names what the code is about
// (the card, the id given, the prompt, the player whose turn it is...).
func atkReasonNames(s *engine.State, seat int, a engine.Action, err error) error {
	var ill *engine.IllegalActionError
	if !errors.As(err, &ill) {
		return fmt.Errorf("not an IllegalActionError: %T %v", err, err)
	}
	if !atkCodes[ill.Code] || ill.Reason == "" || ill.Error() != ill.Reason {
		return fmt.Errorf("code %q, reason %q", ill.Code, ill.Reason)
	}
	has := func(subs ...string) bool {
		return slices.ContainsFunc(subs, func(sub string) bool { return sub != "" && strings.Contains(ill.Reason, sub) })
	}
	quoted := func(ids ...string) []string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = strconv.Quote(id)
		}
		return out
	}
	var ok bool
	switch ill.Code {
	case engine.ErrGameOver.Code:
		ok = has("game")
	case engine.ErrNotYourTurn.Code:
		ok = has(atkSeatName(s, s.Active))
	case engine.ErrWaiting.Code:
		ok = has("waiting for")
		for _, w := range engine.Awaiting(s) {
			ok = ok && has(atkSeatName(s, w))
		}
	case engine.ErrWrongPhase.Code:
		ok = has("Action phase")
	case engine.ErrNoCard.Code:
		ok = has(quoted(append([]string{a.Card}, a.Challenges...)...)...) || (a.Standing != nil && has("no card"))
	case engine.ErrCardType.Code:
		ok = has(atkName(s, seat, a.Card)) || (a.Standing != nil && has("does not answer"))
	case engine.ErrRequirement.Code, engine.ErrLimit.Code, engine.ErrPlacement.Code, engine.ErrActivated.Code:
		ok = has(atkName(s, seat, a.Card))
	case engine.ErrBuild.Code:
		ok = has("Software Build", "challenge")
	case engine.ErrNoPrompt.Code:
		ok = has(strconv.Quote(a.Prompt))
	case engine.ErrAnswer.Code:
		ok = has(a.Prompt)
	case engine.ErrBadAction.Code:
		ok = has(strconv.Quote(string(a.Type)), fmt.Sprintf("seat %d", seat), "timeout", "standing", "voted", "named twice")
	}
	if !ok {
		return fmt.Errorf("the reason %q (%s) does not say what is wrong", ill.Reason, ill.Code)
	}
	return nil
}

// atkCandidates are the actions thrown at seat in s: big ones (lists of
// thousands) only when big is set.
func atkCandidates(s *engine.State, seat int, r *rand.Rand, big bool) []engine.Action {
	pick := func(ids []string, n int) []string {
		slices.Sort(ids)
		r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		return ids[:min(len(ids), n)]
	}
	hidden := atkHiddenIDs(s, seat)
	var secret, shown []string
	for id := range hidden {
		secret = append(secret, id)
	}
	for _, c := range s.Cards() {
		if _, ok := hidden[c.ID]; !ok {
			shown = append(shown, c.ID)
		}
	}
	// Some hidden ids, the seat's own hand and Lab, some other shown ids,
	// and some junk.
	ids := pick(secret, 3)
	if seat >= 0 && seat < len(s.Players) {
		for _, c := range slices.Concat(s.Players[seat].Hand, s.Players[seat].Lab) {
			ids = append(ids, c.ID)
		}
	}
	ids = append(append(ids, pick(shown, 3)...), pick(slices.Clone(atkJunk), 4)...)
	var out []engine.Action
	for _, t := range []engine.ActionType{engine.ActPlace, engine.ActPlayTool, engine.ActPlayHack, engine.ActActivate} {
		for _, id := range ids {
			out = append(out, engine.Action{Type: t, Card: id})
		}
	}
	// Claims: every selection of the Market, and some with the Market in
	// another order, with a duplicate, with a stranger; lists of nothing.
	market := make([]string, len(s.Market))
	for i, c := range s.Market {
		market[i] = c.ID
	}
	out = append(out, engine.Action{Type: engine.ActClaim}, engine.Action{Type: engine.ActClaim, Challenges: []string{}})
	for mask := 1; mask < 1<<len(market); mask++ {
		var sel []string
		for i, id := range market {
			if mask&(1<<i) != 0 {
				sel = append(sel, id)
			}
		}
		out = append(out, engine.Action{Type: engine.ActClaim, Challenges: sel})
		switch r.IntN(6) {
		case 0:
			rev := slices.Clone(sel)
			slices.Reverse(rev)
			out = append(out, engine.Action{Type: engine.ActClaim, Challenges: rev})
		case 1:
			out = append(out, engine.Action{Type: engine.ActClaim, Challenges: append(slices.Clone(sel), sel[0])})
		case 2:
			out = append(out, engine.Action{Type: engine.ActClaim, Challenges: append(slices.Clone(sel), ids[r.IntN(len(ids))])})
		}
	}
	if len(market) > 0 && big {
		out = append(out, engine.Action{Type: engine.ActClaim, Challenges: slices.Repeat(market[:1], 5000)})
	}
	for _, id := range pick(slices.Clone(ids), 3) {
		out = append(out, engine.Action{Type: engine.ActClaim, Challenges: []string{id}})
	}
	// Turn actions, some with fields their type does not use.
	for _, t := range []engine.ActionType{engine.ActEndTurn, engine.ActAbandon} {
		out = append(out, engine.Action{Type: t}, engine.Action{Type: t, Card: ids[r.IntN(len(ids))], Choices: []string{"1"}})
	}
	// Answers to every open prompt, anyone's, and to prompts that are not.
	var options []string
	for _, p := range s.Prompts {
		for _, o := range p.Options {
			options = append(options, o.ID)
		}
	}
	junkChoices := [][]string{nil, {}, {ids[r.IntN(len(ids))]}}
	if len(options) > 0 {
		junkChoices = append(junkChoices, []string{options[r.IntN(len(options))]})
	}
	for _, pid := range pick([]string{"", "p0", "P1", "p99999999999999999999", "p-1"}, 2) {
		for _, ch := range junkChoices {
			out = append(out, engine.Action{Type: engine.ActAnswer, Prompt: pid, Choices: ch})
		}
	}
	for _, p := range s.Prompts {
		for _, pid := range []string{" " + p.ID, strings.ToUpper(p.ID)} {
			out = append(out, engine.Action{Type: engine.ActAnswer, Prompt: pid, Choices: p.Default()})
		}
		all := make([]string, len(p.Options))
		for k, o := range p.Options {
			all[k] = o.ID
		}
		first := all[0]
		choices := append(junkChoices, p.Default(), bot.RandomAnswer(r, &p), bot.RandomAnswer(r, &p), all, append(slices.Clone(all), "x"),
			[]string{first, first}, append(p.Default(), first), []string{" " + first}, []string{first + " "},
			[]string{"0" + first}, []string{"+" + first}, []string{strings.ToUpper(first)},
			[]string{strconv.Itoa(len(all) + 1)}, []string{strconv.Itoa(-len(all))}, []string{strconv.Itoa(len(all))},
			pick(slices.Clone(atkJunk), 1))
		if len(all) > 1 {
			rev := slices.Clone(all)
			slices.Reverse(rev)
			choices = append(choices, rev[:p.Max], append(rev[:p.Min:p.Min], rev[0]))
		}
		if big {
			choices = append(choices, slices.Repeat([]string{first}, 10000), slices.Repeat([]string{"x"}, 10000))
		}
		for _, ch := range choices {
			out = append(out, engine.Action{Type: engine.ActAnswer, Prompt: p.ID, Choices: ch})
		}
	}
	// Standing answers, valid and not.
	out = append(out, engine.Action{Type: engine.ActStanding},
		engine.Action{Type: engine.ActStanding, Standing: &engine.Standing{}},
		engine.Action{Type: engine.ActStanding, Standing: &engine.Standing{Pass: true}},
		engine.Action{Type: engine.ActStanding, Standing: &engine.Standing{Plays: []engine.StandingPlay{{On: engine.EvPlayTool, Card: "merge-conflict"}}}},
		engine.Action{Type: engine.ActStanding, Standing: &engine.Standing{Plays: []engine.StandingPlay{{On: engine.EvClaim, Card: "merge-conflict"}}}},
		engine.Action{Type: engine.ActStanding, Standing: &engine.Standing{Plays: []engine.StandingPlay{{On: "", Card: "red-tape"}}}},
		engine.Action{Type: engine.ActStanding, Standing: &engine.Standing{Plays: []engine.StandingPlay{{On: engine.EvPlayTool, Card: "data-lake"}}}},
		engine.Action{Type: engine.ActStanding, Standing: &engine.Standing{Plays: []engine.StandingPlay{{On: engine.EvDraw, Card: ids[r.IntN(len(ids))]}}}},
	)
	if big {
		out = append(out, engine.Action{Type: engine.ActStanding, Standing: &engine.Standing{Plays: slices.Repeat([]engine.StandingPlay{{On: engine.EvDraw, Card: "rate-limit-exceeded"}}, 300)}},
			engine.Action{Type: engine.ActPlayTool, Card: strings.Repeat("z", 1<<16)})
	}
	// The rest: votes, resignations, timeouts, and types that do not exist.
	for _, t := range []engine.ActionType{engine.ActVoteEnd, engine.ActResign, engine.ActTimeout, "", "fly", "END_TURN", "end_turn ", "answer\x00"} {
		out = append(out, engine.Action{Type: t})
	}
	return out
}

// atkSeats are the seats that submit: each seat, the service, and seats
// that are not in the game.
func atkSeats(s *engine.State) []int {
	seats := []int{engine.System, -2, len(s.Players), 1 << 30}
	for i := range s.Players {
		seats = append(seats, i)
	}
	return seats
}

// atkSlow bounds the time of one Apply, however large the action.
const atkSlow = 2 * time.Second

// TestAttackLegalDifferential checks at positions of seeded games that
// Apply accepts exactly what Legal lists and the rules allow: every listed
// action (an answer filled with its prompt's default and with random
// admissible choices) is accepted; a turn action Legal does not list, an
// answer its prompt does not admit or that is not the seat's, and
// anything from a seat not in the game are refused, leaving the state
// as it was, each within atkSlow and with an IllegalActionError whose
// reason names what is wrong. A refusal of an action that names a card
// hidden from the seat must read exactly like the refusal of the same
// action naming an id that does not exist, so that refusals tell nothing
// about hidden cards. A seat is awaited exactly when it has legal
// actions; every line an email would number for it is accepted
// (atkCheckLines); when the seat is in its Action phase, every card of its
// hand is either playable (listed) or blocked (BlockedCards), never both.
// And Apply, ApplyQuiet and AppendApply leave the same state.
func TestAttackLegalDifferential(t *testing.T) {
	t.Parallel()
	games, every := 10, 16
	if testing.Short() {
		games, every = 4, 25
	}
	r := rand.New(rand.NewPCG(17, 19))
	tried, accepted, positions := 0, 0, 0
	for g := range games {
		atkPlay(t, g, 100, func(s *engine.State, mover int, move engine.Action, step int) {
			// Apply, ApplyQuiet and AppendApply agree on the move played.
			if step%4 == 0 {
				a, b, c := s.Clone(), s.Clone(), s.Clone()
				_, e1 := engine.Apply(a, mover, move)
				e2 := engine.ApplyQuiet(b, mover, move)
				_, e3 := engine.AppendApply([]engine.Event{{Kind: "x"}}, c, mover, move)
				if e1 != nil || e2 != nil || e3 != nil || a.Hash() != b.Hash() || a.Hash() != c.Hash() {
					t.Fatalf("game %d step %d: Apply (%v), ApplyQuiet (%v) and AppendApply (%v) part on %v", g, step, e1, e2, e3, move)
				}
			}
			if step%every != 0 {
				return
			}
			positions++
			before := s.Hash()
			for _, seat := range atkSeats(s) {
				where := fmt.Sprintf("game %d step %d (turn %d, phase %s, %d prompts): seat %d", g, step, s.Turn, s.Phase, len(s.Prompts), seat)
				legal := engine.Legal(s, seat)
				atkCheckBlocked(t, s, seat, legal, where)
				if awaited := slices.Contains(engine.Awaiting(s), seat); awaited != (len(legal) > 0) {
					t.Fatalf("%s: awaited %v with %d legal actions", where, awaited, len(legal))
				}
				atkCheckLines(t, s, seat, r, where)
				for _, a := range legal {
					if a.Type == engine.ActAnswer {
						i := slices.IndexFunc(s.Prompts, func(p engine.Prompt) bool { return p.ID == a.Prompt })
						if i < 0 || s.Prompts[i].Seat != seat || a.Choices != nil {
							t.Fatalf("%s: Legal lists %v, not an open prompt of the seat without choices", where, a)
						}
						p := s.Prompts[i]
						for _, ch := range [][]string{p.Default(), bot.RandomAnswer(r, &p)} {
							a.Choices = ch
							if _, err := engine.Apply(s.Clone(), seat, a); err != nil {
								t.Fatalf("%s: the answer %v to the listed prompt %s (%s, %d to %d of %d) is refused: %v", where, ch, p.ID, p.Kind, p.Min, p.Max, len(p.Options), err)
							}
						}
						continue
					}
					if _, err := engine.Apply(s.Clone(), seat, a); err != nil {
						t.Fatalf("%s: Legal lists %v but Apply refuses it: %v", where, a, err)
					}
				}
				hidden := atkHiddenIDs(s, seat)
				cands := atkCandidates(s, seat, r, step%(5*every) == 0)
				if seat < 0 || seat >= len(s.Players) {
					// A seat not in the game: a few of them are enough.
					r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
					cands = cands[:min(len(cands), 12)]
				}
				for _, a := range cands {
					tried++
					want := atkExpect(s, seat, legal, a)
					target, version := s, s.Version
					if want {
						target = s.Clone()
					}
					start := time.Now()
					_, err := engine.Apply(target, seat, a)
					if d := time.Since(start); d > atkSlow {
						t.Fatalf("%s: Apply took %v on %.200v", where, d, a)
					}
					switch {
					case want && err != nil:
						t.Fatalf("%s: %.300v is refused although %s: %v", where, a, atkWhyLegal(a), err)
					case !want && err == nil:
						t.Fatalf("%s: %.300v is accepted although Legal does not list it or its prompt does not admit it", where, a)
					case err == nil:
						accepted++
						continue
					}
					if s.Version != version {
						t.Fatalf("%s: the refused %.300v changed the state's version", where, a)
					}
					if e := atkReasonNames(s, seat, a, err); e != nil {
						t.Fatalf("%s: refusing %.300v: %v", where, a, e)
					}
					atkCheckNoOracle(t, s, seat, a, err, hidden, where)
				}
			}
			if s.Hash() != before {
				t.Fatalf("game %d step %d: refused actions changed the state", g, step)
			}
		}, nil)
	}
	if positions < games*3 || accepted == 0 {
		t.Fatalf("only %d positions and %d accepted actions", positions, accepted)
	}
	t.Logf("%d games, %d positions, %d actions tried, %d accepted", games, positions, tried, accepted)
}

// atkWhyLegal says why the test expected an action to be accepted.
func atkWhyLegal(a engine.Action) string {
	switch a.Type {
	case engine.ActAnswer:
		return "its prompt admits it"
	case engine.ActStanding, engine.ActVoteEnd, engine.ActResign, engine.ActTimeout:
		return "the rules for " + string(a.Type) + " allow it"
	}
	return "Legal lists it"
}

// atkCheckNoOracle checks that the refusal err of a, which may name cards
// hidden from seat, reads as the refusal of a with every such id replaced
// by one that names nothing.
func atkCheckNoOracle(t *testing.T, s *engine.State, seat int, a engine.Action, err error, hidden map[string]string, where string) {
	t.Helper()
	const stranger = "zzzzzzzzzy"
	named := false
	swap := func(id string) string {
		if _, ok := hidden[id]; ok {
			named = true
			return stranger
		}
		return id
	}
	b := a
	b.Card = swap(a.Card)
	b.Challenges = make([]string, len(a.Challenges))
	for i, id := range a.Challenges {
		b.Challenges[i] = swap(id)
	}
	b.Choices = make([]string, len(a.Choices))
	for i, id := range a.Choices {
		b.Choices[i] = swap(id)
	}
	if a.Choices == nil {
		b.Choices = nil
	}
	if !named {
		return
	}
	_, err2 := engine.Apply(s, seat, b)
	if err2 == nil {
		t.Fatalf("%s: %.200v is accepted with a stranger's id", where, b)
	}
	var x, y *engine.IllegalActionError
	errors.As(err, &x)
	errors.As(err2, &y)
	reason := x.Reason
	for id := range hidden {
		reason = strings.ReplaceAll(reason, id, stranger)
	}
	if x.Code != y.Code || reason != y.Reason {
		t.Fatalf("%s: naming a hidden card, %.200v is refused with %s %q; naming nothing, with %s %q", where, a, x.Code, x.Reason, y.Code, y.Reason)
	}
}

// atkCheckLines checks the lines an email numbers for seat: every whole
// line's action is accepted as it is, and the options of a question that
// takes several, chosen by their numbers (as many as it takes), make an
// answer that is accepted too.
func atkCheckLines(t *testing.T, s *engine.State, seat int, r *rand.Rand, where string) {
	t.Helper()
	lines := engine.Numbered(engine.Moves(s, seat))
	byPrompt := map[string][]int{}
	for _, l := range lines {
		if !l.Whole() {
			byPrompt[l.Prompt] = append(byPrompt[l.Prompt], l.N)
			continue
		}
		if _, err := engine.Apply(s.Clone(), seat, l.Action); err != nil {
			t.Fatalf("%s: line %d %q (%v) is refused: %v", where, l.N, l.Text, l.Action, err)
		}
	}
	for id, ns := range byPrompt {
		p := engine.PromptsFor(s, seat)[slices.IndexFunc(engine.PromptsFor(s, seat), func(p engine.Prompt) bool { return p.ID == id })]
		if min(p.Max, len(ns)) < p.Min {
			t.Fatalf("%s: prompt %s takes %d to %d options and the email numbers %d", where, id, p.Min, p.Max, len(ns))
		}
		r.Shuffle(len(ns), func(i, j int) { ns[i], ns[j] = ns[j], ns[i] })
		k := p.Min + r.IntN(min(p.Max, len(ns))-p.Min+1)
		if k == 0 {
			continue
		}
		pick := slices.Clone(ns[:k])
		slices.Sort(pick)
		acts, err := engine.Choose(lines, pick)
		if err != nil || len(acts) != 1 {
			t.Fatalf("%s: lines %v of prompt %s (%d to %d): %v %v", where, pick, id, p.Min, p.Max, acts, err)
		}
		if _, err := engine.Apply(s.Clone(), seat, acts[0]); err != nil {
			t.Fatalf("%s: lines %v of prompt %s (%d to %d) are refused: %v", where, pick, id, p.Min, p.Max, err)
		}
	}
}

// atkCheckBlocked checks that in its own Action phase every card of the
// seat's hand is listed as playable or blocked, not both, and that outside
// it no card is blocked.
func atkCheckBlocked(t *testing.T, s *engine.State, seat int, legal []engine.Action, where string) {
	t.Helper()
	blocked := engine.BlockedCards(s, seat)
	if seat < 0 || seat >= len(s.Players) || s.Over() || seat != s.Active || len(s.Prompts) > 0 || len(s.Stack) > 0 || s.Phase != engine.PhaseAction {
		if len(blocked) > 0 {
			t.Fatalf("%s: %d cards blocked outside the seat's Action phase", where, len(blocked))
		}
		return
	}
	for _, in := range s.Players[seat].Hand {
		playable := slices.ContainsFunc(legal, func(a engine.Action) bool { return a.Card == in.ID && a.Type != engine.ActActivate })
		i := slices.IndexFunc(blocked, func(b engine.Blocked) bool { return b.Card == in.ID })
		if playable == (i >= 0) {
			t.Fatalf("%s: %s (%s) playable %v, blocked %v", where, in.Card, in.ID, playable, i >= 0)
		}
		if i >= 0 && blocked[i].Reason == "" {
			t.Fatalf("%s: %s is blocked without a reason", where, in.Card)
		}
	}
}

// TestAttackLegalBatches throws batches of two to five actions, each
// listed or junk, at ApplyBatch from every seat: the state passed in never
// changes; a refused batch returns that state itself, with the index of a
// refused action and an IllegalActionError with a known code and a
// reason; an accepted batch returns a copy, with index -1, that keeps
// every card of the game in exactly one place.
func TestAttackLegalBatches(t *testing.T) {
	t.Parallel()
	games, every := 10, 12
	if testing.Short() {
		games, every = 4, 16
	}
	r := rand.New(rand.NewPCG(23, 29))
	refused, ok := 0, 0
	for g := range games {
		atkPlay(t, g, 100, func(s *engine.State, mover int, move engine.Action, step int) {
			if step%every != 0 {
				return
			}
			before := s.Hash()
			total := len(s.Cards())
			for _, seat := range atkSeats(s)[:len(s.Players)+2] {
				cands := atkCandidates(s, seat, r, false)
				for range 2 {
					n := 2 + r.IntN(4)
					batch := make([]engine.Action, 0, n)
					for k := range n {
						legal := engine.Legal(s, seat)
						if k == 0 && seat == mover {
							batch = append(batch, move)
						} else if len(legal) > 0 && r.IntN(3) > 0 {
							batch = append(batch, legal[r.IntN(len(legal))])
						} else {
							batch = append(batch, cands[r.IntN(len(cands))])
						}
					}
					out, events, at, err := engine.ApplyBatch(s, seat, batch)
					if s.Hash() != before {
						t.Fatalf("game %d step %d: ApplyBatch by seat %d changed the state it was given: %v", g, step, seat, batch)
					}
					if err != nil {
						refused++
						var ill *engine.IllegalActionError
						if out != s || events != nil || at < 0 || at >= len(batch) || !errors.As(err, &ill) || !atkCodes[ill.Code] || ill.Reason == "" {
							t.Fatalf("game %d step %d: a refused batch of seat %d: same state %v, %d events, index %d of %d, error %#v", g, step, seat, out == s, len(events), at, len(batch), err)
						}
						continue
					}
					ok++
					if out == s || at != -1 {
						t.Fatalf("game %d step %d: an accepted batch returned the state given (%v) or index %d", g, step, out == s, at)
					}
					cards := out.Cards()
					seen := map[string]bool{}
					for _, c := range cards {
						if seen[c.ID] {
							t.Fatalf("game %d step %d: after the batch %v, card %s is in two places", g, step, batch, c.ID)
						}
						seen[c.ID] = true
					}
					if len(cards) != total {
						t.Fatalf("game %d step %d: after the batch %v, %d cards, want %d", g, step, batch, len(cards), total)
					}
				}
			}
		}, nil)
	}
	if ok == 0 || refused == 0 {
		t.Fatalf("%d batches accepted, %d refused", ok, refused)
	}
	t.Logf("%d batches accepted, %d refused", ok, refused)
}

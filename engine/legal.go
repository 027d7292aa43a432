package engine

// maxAnswers caps how many combinations of a multi-choice prompt Legal
// lists; every listed answer is legal, and the prompt itself describes all.
const maxAnswers = 32

// Legal lists the actions seat may submit now, each of which Apply accepts.
// It generates candidates and keeps those that pass the same predicates
// Apply uses. Timeout (System only) and the always-available standing,
// vote_end and resign actions are not listed.
func Legal(s *State, seat int) []Action {
	if s.Over() || !s.live(seat) {
		return nil
	}
	size := len(s.Players[seat].Hand) + 4
	for i := range s.Prompts {
		if p := &s.Prompts[i]; p.Seat == seat {
			size += answerCount(len(p.Options), p.Min, p.Max)
		}
	}
	return AppendLegal(make([]Action, 0, min(size, maxAnswers+len(s.Players[seat].Hand)+4)), s, seat)
}

// AppendLegal appends Legal(s, seat) to out and returns the extended slice,
// for a caller that lists legal actions at every decision in one slice.
func AppendLegal(out []Action, s *State, seat int) []Action {
	if s.Over() || !s.live(seat) {
		return out
	}
	start := len(out)
	keep := func(a Action) {
		if check(s, seat, a, quiet) == nil {
			out = append(out, a)
		}
	}
	for _, p := range s.Prompts {
		if p.Seat != seat {
			continue
		}
		// One backing array for the answers' choices.
		buf := make([]string, 0, answerCount(len(p.Options), p.Min, p.Max)*min(p.Max, len(p.Options)))
		combos(len(p.Options), p.Min, p.Max, func(pick []int) bool {
			if cap(buf)-len(buf) < len(pick) {
				buf = make([]string, 0, max(len(pick)*maxAnswers, 8))
			}
			from := len(buf)
			for _, k := range pick {
				buf = append(buf, p.Options[k].ID)
			}
			ch := buf[from:len(buf):len(buf)]
			keep(Action{Type: ActAnswer, Prompt: p.ID, Choices: ch})
			return len(out)-start < maxAnswers
		})
	}
	if seat != s.Active || !s.idle() {
		return out
	}
	p := &s.Players[seat]
	for _, in := range p.Hand {
		switch s.card(in.Card).Type {
		case Monster, LabEquipment:
			keep(Action{Type: ActPlace, Card: in.ID})
		case Tool:
			keep(Action{Type: ActPlayTool, Card: in.ID})
		case Hack:
			if s.card(in.Card).Has(KwInterrupt) {
				continue // played only into interrupt windows; check says so
			}
			keep(Action{Type: ActPlayHack, Card: in.ID})
		}
	}
	for _, in := range p.Lab {
		if _, ok := s.card(in.Card).effect(Activated); ok {
			keep(Action{Type: ActActivate, Card: in.ID})
		}
	}
	if s.Build != nil {
		// Only selections the build covers can pass check; skip the others
		// before building the action.
		bt, bs := s.buildStats()
		var tech, sci [16]int
		n := min(len(s.Market), len(tech))
		for k := range n {
			c := s.card(s.Market[k].Card)
			tech[k], sci[k] = c.Tech, c.Sci
		}
		// Selections in the order of combos; TECH and SCI are never
		// negative, so a selection the build cannot cover has no coverable
		// extension either.
		var pick [16]int
		var rec func(depth, start, t, sc int)
		rec = func(depth, start, t, sc int) {
			for k := start; k < n; k++ {
				t2, sc2 := t+tech[k], sc+sci[k]
				if t2 > bt || sc2 > bs {
					continue
				}
				pick[depth] = k
				ids := make([]string, depth+1)
				for i := range ids {
					ids[i] = s.Market[pick[i]].ID
				}
				keep(Action{Type: ActClaim, Challenges: ids})
				rec(depth+1, k+1, t2, sc2)
			}
		}
		rec(0, 0, 0, 0)
		keep(Action{Type: ActAbandon})
	}
	keep(Action{Type: ActEndTurn})
	return out
}

// answerCount is how many selections combos makes, capped at maxAnswers.
func answerCount(n, lo, hi int) int {
	total := 0
	for k := max(lo, 0); k <= min(hi, n); k++ {
		c := 1 // n choose k, stopping once past the cap
		for i := range k {
			c = c * (n - i) / (i + 1)
			if c > maxAnswers {
				break
			}
		}
		if total += min(c, maxAnswers); total >= maxAnswers {
			return maxAnswers
		}
	}
	return total
}

// combos calls f with every increasing selection of lo..hi indexes below n,
// until f returns false. f must not keep the slice it is given.
func combos(n, lo, hi int, f func([]int) bool) {
	pick := make([]int, 0, hi)
	var rec func(start int) bool
	rec = func(start int) bool {
		if len(pick) >= lo {
			if !f(pick) {
				return false
			}
		}
		if len(pick) == hi {
			return true
		}
		for i := start; i < n; i++ {
			pick = append(pick, i)
			if !rec(i + 1) {
				return false
			}
			pick = pick[:len(pick)-1]
		}
		return true
	}
	rec(0)
}

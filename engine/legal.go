package engine

// Legal lists the actions seat may submit now. It generates candidates and
// keeps those that pass the same predicates Apply uses.
//
// Each open prompt of the seat is listed once, as an answer that names the
// prompt and no choices: it stands for every answer the prompt admits, Min
// to Max distinct ids of its Options (Prompt.Check says whether a list of
// choices is one), which Legal never enumerates; View.Text words it, and
// Moves gives it with its options. Every other listed action is complete,
// and Apply accepts it as it is. Timeout (System only) and the
// always-available standing, vote_end and resign actions are not listed.
func Legal(s *State, seat int) []Action {
	if s.Over() || !s.live(seat) {
		return nil
	}
	return AppendLegal(make([]Action, 0, len(s.Players[seat].Hand)+len(s.Prompts)+4), s, seat)
}

// AppendLegal appends Legal(s, seat) to out and returns the extended slice,
// for a caller that lists legal actions at every decision in one slice.
func AppendLegal(out []Action, s *State, seat int) []Action {
	if s.Over() || !s.live(seat) {
		return out
	}
	keep := func(a Action) {
		if check(s, seat, a, quiet) == nil {
			out = append(out, a)
		}
	}
	for i := range s.Prompts {
		if p := &s.Prompts[i]; p.Seat == seat {
			out = append(out, Action{Type: ActAnswer, Prompt: p.ID})
		}
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
		// Every selection, in increasing index order; TECH and SCI are
		// never negative, so a selection the build cannot cover has no
		// coverable extension either.
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

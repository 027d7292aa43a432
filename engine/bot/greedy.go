package bot

import (
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/datamonsters/turns/engine"
)

// Greedy plays for the most Big Data Points now: it places useful Monsters
// and Lab Equipment, plays its Hacks, uses Lab abilities, builds toward the
// most valuable set of Market challenges its hand can cover and claims it,
// then ends the turn. It answers prompts by card value: it keeps the most
// useful cards, plays interrupts against opponents' events and targets the
// leading opponent.
type Greedy struct {
	r   *rand.Rand
	cat *engine.Catalog
}

// NewGreedy returns a Greedy bot; r breaks ties between equal claims.
func NewGreedy(r *rand.Rand) *Greedy { return &Greedy{r: r, cat: engine.Standard()} }

// card looks a card id up in the standard card set; nil if unknown.
func (g *Greedy) card(id string) *engine.Card { return g.cat.Card(id) }

// Choose picks the greedy action.
func (g *Greedy) Choose(v *engine.View, legal []engine.Action) engine.Action {
	for i := range v.Prompts {
		p := &v.Prompts[i]
		if a, ok := g.answer(v, p, legal); ok {
			return a
		}
	}
	end := slices.IndexFunc(legal, func(a engine.Action) bool { return a.Type == engine.ActEndTurn })
	if end < 0 {
		// Not our Action phase (no prompt of ours we could answer): take
		// the first legal action, answering with the default.
		a := legal[0]
		if p := openPrompt(v, a); p != nil {
			a.Choices = p.Default()
		}
		return a
	}
	// 1. Placements that improve the Lab.
	for _, a := range legal {
		if a.Type == engine.ActPlace && g.placeValue(v, g.handCard(v, a.Card)) >= 3 {
			return a
		}
	}
	// 2. Hacks that do something now.
	for _, a := range legal {
		if a.Type == engine.ActPlayHack && g.hackUseful(v, g.handCard(v, a.Card)) {
			return a
		}
	}
	// 3. Lab abilities.
	for _, a := range legal {
		if a.Type == engine.ActActivate && g.activateUseful(v, a.Card) {
			return a
		}
	}
	// 4. Claims and Tools.
	bestClaim, bestPts, ties := -1, 0, 0
	for i, a := range legal {
		if a.Type != engine.ActClaim {
			continue
		}
		switch pts := g.challengePoints(v, a.Challenges); {
		case pts > bestPts:
			bestClaim, bestPts, ties = i, pts, 1
		case pts == bestPts && pts > 0:
			// Equal claims: each is kept with equal chance.
			if ties++; g.r.IntN(ties) == 0 {
				bestClaim = i
			}
		}
	}
	target, targetPts := g.target(v, legal)
	if bestClaim >= 0 && bestPts >= targetPts {
		return legal[bestClaim]
	}
	if targetPts > 0 {
		if a, ok := g.toolToward(v, target, legal); ok {
			return a
		}
	}
	if bestClaim >= 0 {
		return legal[bestClaim]
	}
	return legal[end]
}

// handCard is the card of the instance id in the seat's hand; nil if the
// hand does not hold it.
func (g *Greedy) handCard(v *engine.View, id string) *engine.Card {
	for _, c := range v.Hand {
		if c.ID == id {
			return g.card(c.Card)
		}
	}
	return nil
}

// mods estimates the seat's static TECH and SCI modifiers from the public
// Labs and the Global zone.
func (g *Greedy) mods(v *engine.View) (tech, sci int) {
	add := func(owner int, id string) {
		c := g.card(id)
		if c == nil {
			return
		}
		for _, e := range c.Effects {
			if e.Trigger != engine.Static {
				continue
			}
			for _, op := range e.Do {
				hit := false
				switch op.Who {
				case engine.Opponents:
					hit = owner != v.Seat
				case engine.All:
					hit = true
				default:
					hit = owner == v.Seat
				}
				if !hit {
					continue
				}
				switch op.Stat {
				case engine.StatTech:
					tech += op.N
				case engine.StatSci:
					sci += op.N
				}
			}
		}
	}
	for _, p := range v.Players {
		if p.Resigned {
			continue
		}
		for _, c := range p.Lab {
			add(p.Seat, c.Card)
		}
	}
	for _, gl := range v.Global {
		add(gl.Owner, gl.Card)
	}
	return tech, sci
}

// build is the open build's TECH and SCI, or the modifiers a new build starts with.
func (g *Greedy) build(v *engine.View) (tech, sci int) {
	if v.Build != nil {
		return v.Build.Tech, v.Build.Sci
	}
	tech, sci = g.mods(v)
	return max(tech, 0), max(sci, 0)
}

func (g *Greedy) challengePoints(v *engine.View, ids []string) int {
	pts := 0
	for _, id := range ids {
		for _, m := range v.Market {
			if m.ID == id {
				if c := g.card(m.Card); c != nil {
					pts += c.Points
				}
			}
		}
	}
	return pts
}

// target finds the most valuable set of Market challenges that the build
// plus every playable Tool in hand could cover, and its points.
func (g *Greedy) target(v *engine.View, legal []engine.Action) (need [2]int, points int) {
	bt, bs := g.build(v)
	for _, a := range legal {
		if a.Type != engine.ActPlayTool {
			continue
		}
		if c := g.handCard(v, a.Card); c != nil {
			bt += c.Tech
			bs += c.Sci
		}
	}
	n := len(v.Market)
	bestCost := 1 << 30
	for mask := 1; mask < 1<<n; mask++ {
		t, s, p := 0, 0, 0
		for k := range n {
			if mask&(1<<k) == 0 {
				continue
			}
			c := g.card(v.Market[k].Card)
			if c == nil {
				continue
			}
			t += c.Tech
			s += c.Sci
			p += c.Points
		}
		if t > bt || s > bs {
			continue
		}
		if p > points || (p == points && t+s < bestCost) {
			need, points, bestCost = [2]int{t, s}, p, t+s
		}
	}
	return need, points
}

// toolToward picks the Tool that brings the build closest to need, wasting
// the least.
func (g *Greedy) toolToward(v *engine.View, need [2]int, legal []engine.Action) (engine.Action, bool) {
	bt, bs := g.build(v)
	best, bestDef, bestWaste := -1, 1<<30, 1<<30
	for i, a := range legal {
		if a.Type != engine.ActPlayTool {
			continue
		}
		c := g.handCard(v, a.Card)
		if c == nil {
			continue
		}
		t, s := bt+c.Tech+boost(c, engine.StatTech), bs+c.Sci+boost(c, engine.StatSci)
		def := max(need[0]-t, 0) + max(need[1]-s, 0)
		waste := max(t-need[0], 0) + max(s-need[1], 0)
		if def < bestDef || (def == bestDef && waste < bestWaste) {
			best, bestDef, bestWaste = i, def, waste
		}
	}
	if best < 0 {
		return engine.Action{}, false
	}
	return legal[best], true
}

// boost is what a Tool's unconditional on-play effects add to stat.
func boost(c *engine.Card, stat engine.Stat) int {
	n := 0
	for _, e := range c.Effects {
		if e.Trigger != engine.OnPlay || e.If != nil {
			continue
		}
		for _, op := range e.Do {
			if op.Verb == engine.VBoost && op.Stat == stat && op.Per == "" {
				n += op.N
			}
		}
	}
	return n
}

// labCard returns the seat's Lab card that c would contest: a Monster of
// the same name, or Lab Equipment of the same name when either is unique
// (other Lab Equipment of one name stands together).
func (g *Greedy) labCard(v *engine.View, c *engine.Card) *engine.Card {
	if v.Seat < 0 || v.Seat >= len(v.Players) {
		return nil
	}
	for _, in := range v.Players[v.Seat].Lab {
		l := g.card(in.Card)
		if l == nil || l.Name != c.Name || l.Type != c.Type {
			continue
		}
		if c.Type == engine.Monster || c.Unique || l.Unique {
			return l
		}
	}
	return nil
}

// placeValue rates placing c in the Lab: 5 an upgrade, 4 a new card (a
// second copy of Lab Equipment that is not unique adds its effect again), 1
// a card that cannot be placed yet, 0 a card that would replace a better one.
func (g *Greedy) placeValue(v *engine.View, c *engine.Card) int {
	if c == nil {
		return 0
	}
	old := g.labCard(v, c)
	switch {
	case old == nil && (c.Type != engine.Monster || c.Level == engine.Junior):
		return 4
	case old == nil:
		return 1
	case c.Type == engine.Monster && old.Type == engine.Monster && c.Level.Rank() > old.Level.Rank():
		return 5
	}
	return 0
}

// hackUseful says whether playing Hack c now does something.
func (g *Greedy) hackUseful(v *engine.View, c *engine.Card) bool {
	if c == nil {
		return false
	}
	for _, e := range c.Effects {
		if e.Trigger != engine.OnPlay {
			continue
		}
		for _, op := range e.Do {
			switch op.Verb {
			case engine.VBounce, engine.VScrap:
				if !g.opponentHas(v, op.Target) {
					return false
				}
			}
		}
	}
	return true
}

func (g *Greedy) opponentHas(v *engine.View, t engine.CardType) bool {
	for _, p := range v.Players {
		if p.Seat == v.Seat || p.Resigned {
			continue
		}
		for _, in := range p.Lab {
			if c := g.card(in.Card); c != nil && c.Type == t {
				return true
			}
		}
	}
	return false
}

// activateUseful says whether to use the ability of Lab card id now.
func (g *Greedy) activateUseful(v *engine.View, id string) bool {
	if v.Seat < 0 || v.Seat >= len(v.Players) {
		return false
	}
	var c *engine.Card
	for _, in := range v.Players[v.Seat].Lab {
		if in.ID == id {
			c = g.card(in.Card)
		}
	}
	if c == nil {
		return false
	}
	for _, e := range c.Effects {
		if e.Trigger != engine.Activated {
			continue
		}
		if e.Cost > 0 && len(v.Hand) < e.Cost+1 {
			return false
		}
		for _, op := range e.Do {
			if op.Verb == engine.VRecover && len(v.Bin) == 0 && !v.Office {
				return false
			}
		}
		return true
	}
	return false
}

// value rates a card in hand: higher is more useful to keep.
func (g *Greedy) value(v *engine.View, id string) float64 {
	c := g.card(id)
	if c == nil {
		return 0
	}
	switch c.Type {
	case engine.Tool:
		x := float64(c.Tech+c.Sci+boost(c, engine.StatTech)+boost(c, engine.StatSci)) + 0.5
		if len(c.Requires) > 0 {
			x -= 1
		}
		return x
	case engine.Monster, engine.LabEquipment:
		return float64(g.placeValue(v, c))
	case engine.Hack:
		return 3
	}
	return 1
}

// answer answers one of the seat's prompts, if legal lists it.
func (g *Greedy) answer(v *engine.View, p *engine.Prompt, legal []engine.Action) (engine.Action, bool) {
	if !slices.ContainsFunc(legal, func(a engine.Action) bool { return a.Type == engine.ActAnswer && a.Prompt == p.ID }) {
		return engine.Action{}, false
	}
	opts := make([]int, len(p.Options))
	for i := range opts {
		opts[i] = i
	}
	var pick []string
	switch p.Kind {
	case engine.PromptInterrupt:
		// Play the first interrupt offered against an opponent's event.
		pick = []string{engine.Pass}
		for _, o := range p.Options {
			if o.ID != engine.Pass && p.Actor != v.Seat {
				pick = []string{o.ID}
				break
			}
		}
	case engine.PromptDiscard:
		// Discard the least useful cards.
		slices.SortStableFunc(opts, func(a, b int) int {
			return cmpFloat(g.value(v, p.Options[a].Card), g.value(v, p.Options[b].Card))
		})
		pick = g.ids(p, opts[:p.Min])
	case engine.PromptLook, engine.PromptRecover:
		// Take the most useful cards.
		slices.SortStableFunc(opts, func(a, b int) int {
			return cmpFloat(g.value(v, p.Options[b].Card), g.value(v, p.Options[a].Card))
		})
		pick = g.ids(p, opts[:max(p.Min, min(p.Max, 1))])
	case engine.PromptKeep:
		// Keep the higher level; the new card on a tie.
		best := 0
		for i, o := range p.Options {
			if c, b := g.card(o.Card), g.card(p.Options[best].Card); c != nil && b != nil && c.Level.Rank() > b.Level.Rank() {
				best = i
			}
		}
		pick = []string{p.Options[best].ID}
	case engine.PromptPlayer:
		// Target the opponent with the most points.
		best, bestPts := 0, -1
		for i, o := range p.Options {
			for _, pl := range v.Players {
				if o.ID == strconv.Itoa(pl.Seat) && pl.Points > bestPts {
					best, bestPts = i, pl.Points
				}
			}
		}
		pick = []string{p.Options[best].ID}
	case engine.PromptCard:
		// Take away the opponent's highest-level card.
		best, bestRank := 0, -1
		for i, o := range p.Options {
			if c := g.card(o.Card); c != nil && c.Level.Rank() > bestRank {
				best, bestRank = i, c.Level.Rank()
			}
		}
		pick = []string{p.Options[best].ID}
	case engine.PromptRefresh:
		// Put away the challenges beyond the reach of the hand, most
		// demanding first.
		pick = g.refresh(v, p)
	}
	if pick == nil || p.Check(pick) != nil {
		// A prompt it has no rule for (choose), or an answer the prompt
		// does not admit: what a timeout would answer.
		pick = p.Default()
	}
	return engine.Action{Type: engine.ActAnswer, Prompt: p.ID, Choices: pick}, true
}

func (g *Greedy) refresh(v *engine.View, p *engine.Prompt) []string {
	bt, bs := g.build(v)
	for _, c := range v.Hand {
		if k := g.card(c.Card); k != nil && k.Type == engine.Tool {
			bt += k.Tech
			bs += k.Sci
		}
	}
	need := func(o engine.Option) int {
		if c := g.card(o.Card); c != nil {
			return c.Tech + c.Sci
		}
		return 0
	}
	opts := slices.Clone(p.Options)
	slices.SortStableFunc(opts, func(a, b engine.Option) int { return need(b) - need(a) })
	var out []string
	for _, o := range opts {
		if len(out) >= p.Max {
			break
		}
		if c := g.card(o.Card); c != nil && (c.Tech > bt || c.Sci > bs) {
			out = append(out, o.ID)
		}
	}
	for len(out) < p.Min {
		for _, o := range p.Options {
			if !slices.Contains(out, o.ID) {
				out = append(out, o.ID)
				break
			}
		}
	}
	return out
}

func (g *Greedy) ids(p *engine.Prompt, idx []int) []string {
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = p.Options[k].ID
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

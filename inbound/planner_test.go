package inbound_test

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// planner is a player who plays by email as a person who writes whole
// turns: it reads only its emails (its hand with the card texts, the
// board, the numbered moves) and answers a turn with one plan in words,
//
//	place glitchy junior
//	play frontend framework
//	play rapid prototype
//	claim landing page
//	end
//
// claiming what it reckons the build covers: the Tools' TECH and SCI,
// with what the Lab adds (its cards' texts, remembered from the hand).
// Its first reply sets the standing answer "always pass", so that no
// window waits for it. A question that opens its turn (the hand limit, or
// a look at the deck by a card of its Lab, with the hand limit's discard
// after the draw in words when it can name the cards) is answered by the
// numbers of the email's lines, with the plan after it; any other
// question is answered alone. A refused plan is written again from what
// the refusal says: what an opponent's Global card takes from its builds,
// the best claim listed at the step that failed, or the plan without the
// command that failed.
type planner struct {
	tb       testing.TB
	known    map[string]handCard // the cards it has held, by name and level
	standing bool                // "always pass" was sent and not refused
	last     []string            // the commands of its last reply
	version  int                 // the version of the email it answered last
	again    int                 // plans written again for the decision at hand
	// estimate is what the last plan reckoned its build would have at its
	// claim (TECH, SCI); nil: it claimed nothing.
	estimate []int
	// globals are what the opponents' Global cards it never held take from
	// its builds, learned from a claim they made fail.
	globals map[string][2]int
}

func newPlanner(tb testing.TB) *planner {
	return &planner{tb: tb, known: map[string]handCard{}, globals: map[string][2]int{}}
}

// handCard is a card of the hand as an email shows it.
type handCard struct {
	Name  string
	Kind  string // "Monster", "Tool", "Hack", "Lab Equipment"
	Level string // "Junior", "Senior", "Chief" for a Monster
	Tech  int
	Sci   int
	Text  string // the card's text past its type line, a line each
}

func (c handCard) key() string { return c.Name + "|" + c.Level }

// limit reports whether the card is a limit card.
func (c handCard) limit() bool { return strings.Contains(c.Text, "Limit.") }

// asks reports whether placing or playing the card asks its player a
// question that a plan cannot answer ahead (a look at the deck, a choice):
// a Hack's effect, or what a Monster does when placed or a Tool when
// played (an ability used later, or at the start of a turn, asks nothing
// now).
func (c handCard) asks() bool {
	for _, line := range strings.Split(c.Text, "\n") {
		if c.Kind != "Hack" && !strings.HasPrefix(line, "When placed") && !strings.HasPrefix(line, "When played") {
			continue
		}
		t := strings.ToLower(line)
		if strings.Contains(t, "look at") || strings.Contains(t, "choose") || strings.Contains(t, "of your choice") || strings.Contains(t, "up to") {
			return true
		}
	}
	return false
}

// bonus is what the card adds to its owner's Software Builds ("Your
// Software Builds get +1 TECH and +1 SCI."), or to an opponent's
// ("opponents' Software Builds get -1 TECH").
func (c handCard) bonus(opponent bool) (tech, sci int) {
	for _, m := range bonusRe.FindAllStringSubmatch(c.Text, -1) {
		if (m[1] == "opponents'") != opponent {
			continue
		}
		for _, n := range statRe.FindAllStringSubmatch(m[2], -1) {
			k, _ := strconv.Atoi(n[1])
			if n[2] == "TECH" {
				tech += k
			} else {
				sci += k
			}
		}
	}
	return tech, sci
}

// challenge is a challenge of the Market as an email shows it.
type challenge struct {
	Name              string
	Tech, Sci, Points int
}

// labCard is a card of a Lab or of the Global zone as the board shows it.
type labCard struct {
	Name, Level, Owner string
}

// letter is what a person reads in a decision email.
type letter struct {
	Lines   map[int]string // the numbered moves
	Prompt  string         // the first question waiting, "" for none
	Hand    []handCard
	Market  []challenge
	Lab     []labCard // the reader's Lab
	Global  []labCard
	Me      string // the reader's name
	Mine    bool   // it is the reader's turn
	Build   []int  // the reader's open Software Build: TECH, SCI; nil: none
	Version int    // the version its lines are numbered at
	Refused bool   // the answer to a reply of which nothing was played
	Failed  string // the reply's line at fault
	Moves   []string
}

var (
	handRe    = regexp.MustCompile(`^  \* (.+)$`)
	typeRe    = regexp.MustCompile(`^(?:(Junior|Senior|Chief) )?(Monster|Tool|Hack|Lab Equipment)(?: — TECH (\d+) · SCI (\d+))?`)
	marketRe  = regexp.MustCompile(`^  - (.+): TECH (\d+), SCI (\d+), (\d+) Big Data Points?`)
	seatRe    = regexp.MustCompile(`^(.+?)( \(you\))?: \d+ Big Data Points?, `)
	entryRe   = regexp.MustCompile(`^(.+) \((?:(Junior|Senior|Chief) )?([^()]+)\)$`)
	globalRe  = regexp.MustCompile(`^  - (.+) \(.*\), (.+)'s$`)
	buildRe   = regexp.MustCompile(`^Open Software Build of (.+): TECH (-?\d+), SCI (-?\d+)`)
	buildAtRe = regexp.MustCompile(`(?:into your build|^Abandon your build) \(TECH (-?\d+), SCI (-?\d+)`)
	claimRe   = regexp.MustCompile(`(.+?) \(TECH \d+, SCI \d+, (\d+) BDP\)(?:, | and | with |$)`)
	bonusRe   = regexp.MustCompile(`(?i)(your|opponents') Software Builds get ([^.]+)`)
	statRe    = regexp.MustCompile(`([+-]\d+) (TECH|SCI)`)
	discardRe = regexp.MustCompile(`discard (\d+) cards?`)
	versionRe = regexp.MustCompile(`^What you can do now \(version (\d+)\)`)
)

// readLetter reads a decision email's text.
func readLetter(text string) letter {
	l := letter{Lines: emailLines(text)}
	ls := strings.Split(text, "\n")
	section := ""
	var seat string
	for i, line := range ls {
		switch {
		case strings.HasPrefix(line, "Your hand ("):
			section = "hand"
			continue
		case strings.HasPrefix(line, "Waiting for your answer:"):
			if i+1 < len(ls) {
				l.Prompt = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(ls[i+1]), "1."))
			}
			section = ""
			continue
		case versionRe.MatchString(line):
			l.Version, _ = strconv.Atoi(versionRe.FindStringSubmatch(line)[1])
			continue
		case strings.HasPrefix(line, "Market ("):
			section = "market"
			continue
		case strings.HasPrefix(line, "Global zone:"):
			section = "global"
			continue
		case line == "Nothing was played.":
			// The answer to a refused reply: its headline, then the line at fault.
			l.Refused = true
			if i+1 < len(ls) && strings.HasPrefix(ls[i+1], "  > ") {
				l.Failed = strings.TrimPrefix(ls[i+1], "  > ")
			}
			continue
		case strings.HasPrefix(line, "What you could do at that step:"):
			section = "moves"
			continue
		}
		if m := seatRe.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, " ") {
			section, seat = "seat", m[1]
			if m[2] != "" {
				l.Me, l.Mine = m[1], strings.Contains(line, "playing now")
			}
			continue
		}
		if m := buildRe.FindStringSubmatch(line); m != nil && m[1] == l.Me {
			t, _ := strconv.Atoi(m[2])
			s, _ := strconv.Atoi(m[3])
			l.Build = []int{t, s}
			continue
		}
		switch section {
		case "hand":
			if m := handRe.FindStringSubmatch(line); m != nil {
				l.Hand = append(l.Hand, handCard{Name: m[1]})
			} else if strings.HasPrefix(line, "      ") && len(l.Hand) > 0 {
				c := &l.Hand[len(l.Hand)-1]
				t := strings.TrimSpace(line)
				if m := typeRe.FindStringSubmatch(t); m != nil && c.Kind == "" {
					c.Level, c.Kind = m[1], m[2]
					c.Tech, _ = strconv.Atoi(m[3])
					c.Sci, _ = strconv.Atoi(m[4])
				} else {
					c.Text += t + "\n"
				}
			} else if line == "" {
				section = ""
			}
		case "market":
			if m := marketRe.FindStringSubmatch(line); m != nil {
				c := challenge{Name: m[1]}
				c.Tech, _ = strconv.Atoi(m[2])
				c.Sci, _ = strconv.Atoi(m[3])
				c.Points, _ = strconv.Atoi(m[4])
				l.Market = append(l.Market, c)
			}
		case "global":
			if m := globalRe.FindStringSubmatch(line); m != nil {
				l.Global = append(l.Global, labCard{Name: m[1], Owner: m[2]})
			}
		case "seat":
			if rest, ok := strings.CutPrefix(line, "  Lab: "); ok && seat == l.Me && rest != "empty" {
				for _, e := range strings.Split(rest, "; ") {
					if m := entryRe.FindStringSubmatch(strings.TrimSpace(e)); m != nil {
						l.Lab = append(l.Lab, labCard{Name: m[1], Level: m[2]})
					}
				}
			}
		case "moves":
			if m, ok := strings.CutPrefix(line, "  - "); ok {
				l.Moves = append(l.Moves, m)
			} else {
				section = ""
			}
		}
	}
	return l
}

// window reports whether the lines are an interrupt window's.
func (l letter) window() bool {
	return slices.Contains(ordered(l.Lines), "Pass")
}

// turnLines reports whether the lines are the moves of a turn (not a
// question's options).
func (l letter) turnLines() bool {
	return l.Prompt == "" && slices.ContainsFunc(ordered(l.Lines), func(s string) bool { return strings.HasPrefix(s, "End your turn") })
}

// ordered is the texts of numbered lines, in their order.
func ordered(m map[int]string) []string {
	out := make([]string, 0, len(m))
	for n := 1; n <= len(m); n++ {
		out = append(out, m[n])
	}
	return out
}

// reply writes the commands of the planner's reply to the email text.
func (p *planner) reply(text string) string {
	l := readLetter(text)
	if len(l.Lines) == 0 || l.Me == "" || len(l.Market) == 0 {
		p.tb.Fatalf("the planner cannot read its email (lines %v, its name %q, the Market %v):\n%s", l.Lines, l.Me, l.Market, text)
	}
	for _, c := range l.Hand {
		p.known[c.key()] = c
	}
	var cmds []string
	// Nothing of the last reply was played when the refusal says so, or
	// when the game is still at the version that reply answered.
	if (l.Refused || l.Version == p.version) && p.last != nil {
		if i := slices.Index(p.last, "always pass"); i >= 0 {
			p.standing = false
			p.last = slices.Delete(p.last, i, i+1)
		}
		p.again++
		cmds = p.rewrite(l)
	} else {
		p.again = 0
	}
	if cmds == nil {
		cmds = p.fresh(l, p.again < 3)
	}
	if !p.standing {
		cmds = append([]string{"always pass"}, cmds...)
		p.standing = true
	}
	p.last, p.version = cmds, l.Version
	return strings.Join(cmds, "\n")
}

// fresh writes a reply to the decision of l: a pass to a window; the
// answer to a question, with the turn after it when the question opens
// the planner's turn; else the turn. Without plan, only the first move:
// the answer, or the end of the turn.
func (p *planner) fresh(l letter, plan bool) []string {
	switch {
	case l.window():
		return []string{"pass"}
	case l.Prompt != "":
		answer, left := p.answer(l)
		cmds := []string{answer}
		if !plan || !l.Mine {
			return cmds
		}
		switch over := p.opening(l); {
		case over < 0:
			return cmds
		case over > 0:
			// The hand limit comes after the Draw phase: discard known
			// cards for it, by their words.
			words, kept := discardWords(left, over)
			if words == nil {
				return cmds
			}
			cmds, left = append(cmds, words...), kept
		}
		return append(cmds, p.turn(l, left, false)...)
	case !plan:
		return []string{"end"}
	}
	return p.turn(l, l.Hand, l.turnLines())
}

// discardWords are the commands that discard n of hand, those worth least
// whose name no other card of the hand shares (a discard names a card by
// its words), and the hand they leave; nil if there are not n such cards.
func discardWords(hand []handCard, n int) ([]string, []handCard) {
	order := make([]int, 0, len(hand))
	for i, c := range hand {
		if !slices.ContainsFunc(hand, func(o handCard) bool { return o.Name == c.Name && o.key() != c.key() }) &&
			slices.IndexFunc(hand, func(o handCard) bool { return o.key() == c.key() }) == i &&
			!slices.ContainsFunc(hand[i+1:], func(o handCard) bool { return o.key() == c.key() }) {
			order = append(order, i)
		}
	}
	if len(order) < n {
		return nil, hand
	}
	slices.SortStableFunc(order, func(a, b int) int { return worth(hand[a]) - worth(hand[b]) })
	drop := order[:n]
	var cmds []string
	var kept []handCard
	for i, c := range hand {
		if slices.Contains(drop, i) {
			cmds = append(cmds, "discard "+strings.ToLower(c.Name))
		} else {
			kept = append(kept, c)
		}
	}
	return cmds, kept
}

// held returns a card of that name the planner has held.
func (p *planner) held(name string) (handCard, bool) {
	for _, k := range p.known {
		if k.Name == name {
			return k, true
		}
	}
	return handCard{}, false
}

// opening says whether the question waiting opens the planner's turn
// with nothing it has not seen to decide before its Action phase: 0 for
// the hand limit, or for what a card of its Lab does at the beginning of
// its turn, when the hand stays within the limit after the Draw phase;
// n > 0 when the hand limit will then ask to discard n cards; -1 for
// any other question.
func (p *planner) opening(l letter) int {
	if strings.HasPrefix(l.Prompt, "Hand limit") {
		return 0
	}
	draw := 2
	for _, c := range l.Lab {
		if strings.Contains(p.known[c.Name+"|"+c.Level].Text, "You draw 1 more card in your Draw phase") {
			draw++
		}
	}
	for _, c := range l.Lab {
		k := p.known[c.Name+"|"+c.Level]
		if strings.HasPrefix(l.Prompt, c.Name+":") && strings.Contains(k.Text, "At the beginning of your turn") {
			return max(len(l.Hand)+1+draw-6, 0)
		}
	}
	return -1
}

// answer answers the question waiting with the numbers of its lines: for
// a discard, the cards worth least to the planner; else the first option.
// It returns the hand the answer leaves.
func (p *planner) answer(l letter) (string, []handCard) {
	n := 1
	if m := discardRe.FindStringSubmatch(l.Prompt); m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	lines := ordered(l.Lines)
	if !strings.HasPrefix(lines[0], "Discard ") {
		return "1", l.Hand
	}
	// Each card of the hand has a line that reads "Discard <card>" (copies
	// share one line when the question takes one card).
	order := make([]int, len(l.Hand))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return worth(l.Hand[a]) - worth(l.Hand[b]) })
	var nums []int
	var dropped []int
	for _, i := range order {
		if len(nums) == n {
			break
		}
		for k, line := range lines {
			if line == "Discard "+l.Hand[i].said() && !slices.Contains(nums, k+1) {
				nums, dropped = append(nums, k+1), append(dropped, i)
				break
			}
		}
	}
	if len(nums) < n {
		return "1", l.Hand
	}
	slices.Sort(nums)
	var left []handCard
	for i, c := range l.Hand {
		if !slices.Contains(dropped, i) {
			left = append(left, c)
		}
	}
	words := make([]string, len(nums))
	for i, k := range nums {
		words[i] = strconv.Itoa(k)
	}
	return "discard " + strings.Join(words, " "), left
}

// said is the card as the engine names it in a move: "Glitchy (Junior)",
// "Data Lake (TECH 0, SCI 2)", "Hiring Freeze".
func (c handCard) said() string {
	switch c.Kind {
	case "Monster":
		return c.Name + " (" + c.Level + ")"
	case "Tool":
		return fmt.Sprintf("%s (TECH %d, SCI %d)", c.Name, c.Tech, c.Sci)
	}
	return c.Name
}

// worth is what a card is worth keeping to the planner, which never
// plays an interrupt.
func worth(c handCard) int {
	switch c.Kind {
	case "Monster":
		return 10
	case "Lab Equipment":
		return 6
	case "Tool":
		if strings.Contains(c.Text, "Requires") {
			return c.Tech + c.Sci - 2
		}
		return c.Tech + c.Sci
	case "Hack":
		if strings.Contains(c.Text, "Interrupt") {
			return 0
		}
		return 2
	}
	return 1
}

// turn plans the rest of a turn from hand: the Monsters and Lab Equipment
// it can place, the Hacks that ask nothing, the Tools of the best claim
// the build would cover, the claim, and the end. With listed, only the
// moves the email's lines list are taken (they are those of step 1);
// without, the planner goes by the rules it knows: a Junior goes in an
// empty place, a Senior over its Junior, a Chief over its Senior, and a
// Tool with a requirement is left in the hand.
func (p *planner) turn(l letter, hand []handCard, listed bool) []string {
	lines := ordered(l.Lines)
	has := func(prefix string) bool {
		return slices.ContainsFunc(lines, func(s string) bool { return strings.HasPrefix(s, prefix) })
	}
	level := map[string]int{"Junior": 1, "Senior": 2, "Chief": 3}
	inLab := map[string]int{} // name -> level (0 for equipment)
	for _, c := range l.Lab {
		inLab[c.Name] = level[c.Level]
	}
	var cmds []string
	// What the Lab and the Global zone add to a build now, and what the
	// places of the plan add to it.
	var labTech, labSci, addTech, addSci int
	for _, c := range l.Lab {
		t, s := p.known[c.Name+"|"+c.Level].bonus(false)
		labTech, labSci = labTech+t, labSci+s
	}
	for _, g := range l.Global {
		if g.Owner == l.Me {
			continue
		}
		if k, ok := p.held(g.Name); ok {
			t, s := k.bonus(true)
			labTech, labSci = labTech+t, labSci+s
		} else {
			labTech, labSci = labTech+p.globals[g.Name][0], labSci+p.globals[g.Name][1]
		}
	}
	limited := false
	// Places: per name, the highest level that goes in.
	placed := map[string]bool{}
	for _, c := range hand {
		if (c.Kind != "Monster" && c.Kind != "Lab Equipment") || placed[c.Name] {
			continue
		}
		var best *handCard
		for _, o := range hand {
			if o.Name == c.Name && o.Kind == c.Kind && !o.asks() && p.fits(o, inLab, level, listed, has) && (best == nil || level[o.Level] > level[best.Level]) {
				best = &o
			}
		}
		if best == nil {
			continue
		}
		placed[c.Name] = true
		if best.Kind == "Monster" {
			cmds = append(cmds, "place "+strings.ToLower(best.Name+" "+best.Level))
			if old, ok := inLab[best.Name]; ok {
				for lv, n := range level {
					if n == old {
						t, s := p.known[best.Name+"|"+lv].bonus(false)
						addTech, addSci = addTech-t, addSci-s
					}
				}
			}
		} else {
			cmds = append(cmds, "place "+strings.ToLower(best.Name))
		}
		t, s := best.bonus(false)
		addTech, addSci = addTech+t, addSci+s
	}
	// Hacks that ask nothing and need nothing.
	for _, c := range hand {
		if c.Kind != "Hack" || c.asks() || strings.Contains(c.Text, "Interrupt") || strings.Contains(c.Text, "Requires") ||
			(listed && !has("Play "+c.Name)) || (c.limit() && limited) || slices.Contains(cmds, "play "+strings.ToLower(c.Name)) {
			continue
		}
		cmds = append(cmds, "play "+strings.ToLower(c.Name))
		limited = limited || c.limit()
	}
	// The Tools of the best claim.
	var tools []handCard
	for _, c := range hand {
		if c.Kind == "Tool" && !c.asks() && (listed && has("Play "+c.Name+" (") || !listed && !strings.Contains(c.Text, "Requires")) {
			tools = append(tools, c)
		}
	}
	baseTech, baseSci := labTech+addTech, labSci+addSci
	if l.Build != nil { // the board's build counts the Lab already
		baseTech, baseSci = l.Build[0]+addTech, l.Build[1]+addSci
	}
	use, claim := bestClaim(l.Market, tools, baseTech, baseSci, l.Build != nil, limited)
	p.estimate = nil
	for _, c := range use {
		cmds = append(cmds, "play "+strings.ToLower(c.Name))
		baseTech, baseSci = baseTech+c.Tech, baseSci+c.Sci
	}
	if len(claim) > 0 {
		p.estimate = []int{baseTech, baseSci}
		names := make([]string, len(claim))
		for i, c := range claim {
			names[i] = strings.ToLower(c.Name)
		}
		cmds = append(cmds, "claim "+strings.Join(names, " and "))
	}
	return append(cmds, "end")
}

// fits reports whether the planner places c: its line is listed (with
// listed) or the rules it knows let it in, without a question of which
// stays and without putting a lower level over a higher one.
func (p *planner) fits(c handCard, inLab map[string]int, level map[string]int, listed bool, has func(string) bool) bool {
	old, there := inLab[c.Name]
	if c.Kind == "Lab Equipment" {
		return !there && (!listed || has("Place "+c.Name+" in your Lab"))
	}
	n := level[c.Level]
	if listed {
		return has("Place "+c.Name+" ("+c.Level+")") && (!there || n > old)
	}
	return n == 1 && !there || there && n == old+1
}

// bestClaim picks the claim worth the most Big Data Points that Tools of
// tools cover, with the fewest Tools: base is what the build has (or
// will have) besides them; without open, a build needs a Tool to start.
// At most one limit card is played (none if limited).
func bestClaim(market []challenge, tools []handCard, baseTech, baseSci int, open, limited bool) ([]handCard, []challenge) {
	var bestT []handCard
	var bestC []challenge
	bestPts := 0
	for tm := 0; tm < 1<<len(tools); tm++ {
		var use []handCard
		tech, sci, limits := baseTech, baseSci, 0
		for i, t := range tools {
			if tm&(1<<i) != 0 {
				use = append(use, t)
				tech, sci = tech+t.Tech, sci+t.Sci
				if t.limit() {
					limits++
				}
			}
		}
		if limits > 1 || limits > 0 && limited || len(use) == 0 && !open {
			continue
		}
		for cm := 1; cm < 1<<len(market); cm++ {
			var cs []challenge
			nt, ns, pts := 0, 0, 0
			for i, c := range market {
				if cm&(1<<i) != 0 {
					cs = append(cs, c)
					nt, ns, pts = nt+c.Tech, ns+c.Sci, pts+c.Points
				}
			}
			if nt > tech || ns > sci {
				continue
			}
			if pts > bestPts || pts == bestPts && len(use) < len(bestT) {
				bestT, bestC, bestPts = use, cs, pts
			}
		}
	}
	return bestT, bestC
}

// rewrite writes the last plan again after a refusal (nil: plan afresh):
// when a claim failed because an opponent's Global card it never held
// takes from its builds, it learns what, and plans afresh; else up to the
// command at fault, then the best claim the refusal lists at that step and
// the end, if the command was a claim, or the plan without it. A plan
// refused twice ends the turn before the command at fault; refused a
// third time, the reply is the first move alone.
func (p *planner) rewrite(l letter) []string {
	i := slices.IndexFunc(p.last, func(c string) bool {
		f := strings.TrimSuffix(l.Failed, "…")
		return f != "" && strings.HasPrefix(c, f)
	})
	if p.again > 2 || i < 0 {
		return nil
	}
	cmds := slices.Clone(p.last[:i])
	if p.again == 2 {
		return append(cmds, "end")
	}
	if strings.HasPrefix(p.last[i], "claim ") && p.estimate != nil && p.again == 1 {
		// What the build has at the claim, as the moves of that step say.
		for _, m := range l.Moves {
			b := buildAtRe.FindStringSubmatch(m)
			if b == nil {
				continue
			}
			t, _ := strconv.Atoi(b[1])
			s, _ := strconv.Atoi(b[2])
			dt, ds := t-p.estimate[0], s-p.estimate[1]
			if dt == 0 && ds == 0 {
				break
			}
			// An opponent's Global card it never held takes that off: learn
			// it, and plan the turn again.
			for _, g := range l.Global {
				if _, ok := p.held(g.Name); g.Owner != l.Me && !ok {
					p.globals[g.Name] = [2]int{p.globals[g.Name][0] + dt, p.globals[g.Name][1] + ds}
					return nil
				}
			}
			break
		}
	}
	if strings.HasPrefix(p.last[i], "claim ") {
		best, pts := "", 0
		for _, m := range l.Moves {
			rest, ok := strings.CutPrefix(m, "Claim ")
			if !ok {
				continue
			}
			var names []string
			n := 0
			for _, c := range claimRe.FindAllStringSubmatch(rest, -1) {
				names = append(names, strings.ToLower(c[1]))
				k, _ := strconv.Atoi(c[2])
				n += k
			}
			if n > pts {
				best, pts = "claim "+strings.Join(names, " and "), n
			}
		}
		if best != "" {
			cmds = append(cmds, best)
		}
		return append(cmds, "end")
	}
	return append(cmds, p.last[i+1:]...)
}

package play

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/datamonsters/turns/engine"
)

// Plan is commands resolved into actions: what to submit, in order, and
// each action worded for the seat at its step. SignOffs are the loose
// words at the end of the commands that named no move (a sign-off:
// "Take care"), skipped.
type Plan struct {
	Actions   []engine.Action
	Texts     []string
	SignOffs  []string
	signOffAt []int // the place of each among the text's parts
}

// Resolve turns the commands of rd into the actions of seat, one after
// another, each against st as the moves before it leave it: st is the
// game at the version the commands were written for, and is not changed.
// A number names a line of lines (the numbered list of the email
// answered, or engine.Numbered at st; nil: none, numbers are refused);
// words name a move legal at their
// step, so that a claim may follow the plays that make it legal. Where an
// interrupt window would open, the other seats are taken to pass (when
// one plays a card instead, the engine holds the rest and plays it only
// if all of it still applies). Words never name a card the seat did not
// see in st (a card a move would draw, a challenge it would reveal), so
// what a plan is refused for tells nothing hidden. A command that matches
// no move at its step, or whose move the engine refuses, is a
// *CommandError naming the step, the command and the moves there.
//
// The loose words that end the commands (words of no form of the
// language that name no card and hold no number: "Take care", "let me
// know when you can") are a sign-off where they match no move at their
// step, or nothing waits for the seat there any more: skipped
// (Plan.SignOffs), not refused. Words that match several moves refuse
// the whole, wherever they are; so do loose words before the last
// command that is not. Commands that are all skipped so are refused for
// the first of them.
//
// Resolve is a pure function of its arguments: a scripted player may call
// it with a state of its own.
func Resolve(st *engine.State, seat int, lines []engine.Line, rd *Reading) (*Plan, error) {
	r := &resolver{c: st.Clone(), seat: seat, lines: lines, known: knownCards(st.View(seat)), plan: &Plan{}}
	cmds := rd.Commands
	tail := len(cmds) // the first of the loose commands that end them
	for tail > 0 && cmds[tail-1].loose {
		tail--
	}
	var first error // the refusal of the first sign-off
	for len(cmds) > 0 {
		at, before := len(rd.Commands)-len(cmds), len(r.plan.Actions)
		n, err := r.next(cmds)
		var ce *CommandError
		if err != nil && at >= tail && len(r.plan.Actions) == before && errors.As(err, &ce) && ce.unmatched {
			r.plan.SignOffs, r.plan.signOffAt = append(r.plan.SignOffs, cmds[0].Text), append(r.plan.signOffAt, cmds[0].at)
			first = cmp.Or(first, err)
			cmds = cmds[1:]
			continue
		}
		if err != nil {
			return nil, err
		}
		cmds = cmds[n:]
	}
	if len(r.plan.Actions) == 0 && first != nil {
		return nil, first
	}
	return r.plan, nil
}

// resolver is a plan being resolved: c is the game as the moves so far
// leave it.
type resolver struct {
	c      *engine.State
	seat   int
	lines  []engine.Line
	known  map[string]bool
	plan   *Plan
	ended  int    // the step that ended the game, 0 while it goes on
	hidden unseen // what the last stepLines left out
}

// unseen is what a step's lines leave out: the moves with cards the seat
// has not seen, counted, never named.
type unseen struct {
	hand int   // cards drawn into the hand by the plan's earlier moves
	asks []ask // questions whose options are such cards
}

// ask is a question of the seat's, of options in all, n of them cards it
// has not seen.
type ask struct {
	text       string
	n, options int
}

func (u unseen) none() bool { return u.hand == 0 && len(u.asks) == 0 }

// words tells the moves left out at step, for the list of a step's
// moves: a question about cards not seen is answered later, once the
// steps before it are played and its cards shown.
func (u unseen) words(step int) []string {
	var out []string
	for _, a := range u.asks {
		// The options counted, not "its cards": "discard 3 cards" and "3
		// cards not shown" would read as the same three.
		var what string
		switch {
		case a.n == a.options && a.n == 1:
			what = "its option is a card"
		case a.n == a.options:
			what = fmt.Sprintf("its %d options are cards", a.n)
		case a.n == 1:
			what = fmt.Sprintf("1 of its %d options is a card", a.options)
		default:
			what = fmt.Sprintf("%d of its %d options are cards", a.n, a.options)
		}
		before := "step 1 on its own"
		if step > 2 {
			before = fmt.Sprintf("steps 1 to %d on their own", step-1)
		}
		out = append(out, fmt.Sprintf(`answer %s once you see all its options: %s not shown to you yet, so send %s and the answer shows them`,
			quoted(a.text), what, before))
	}
	if u.hand > 0 {
		what := "the card"
		if u.hand > 1 {
			what = fmt.Sprintf("the %d cards", u.hand)
		}
		out = append(out, "(and any moves with "+what+" you have not seen yet)")
	}
	return out
}

// knownCards are the instance ids of the cards a view shows: those the
// seat may name.
func knownCards(v *engine.View) map[string]bool {
	known := map[string]bool{}
	add := func(cs []engine.CardView) {
		for _, c := range cs {
			known[c.ID] = true
		}
	}
	add(v.Hand)
	add(v.Bin)
	add(v.Market)
	for _, p := range v.Players {
		add(p.Lab)
		add(p.Ranking)
	}
	for _, g := range v.Global {
		known[g.ID] = true
	}
	if v.Build != nil {
		add(v.Build.Tools)
	}
	for _, p := range v.Prompts {
		for _, o := range p.Options {
			known[o.ID] = true
		}
	}
	return known
}

// step is the number of the move being resolved.
func (r *resolver) step() int { return len(r.plan.Actions) + 1 }

// next resolves and applies the moves of the first commands of cmds, and
// returns how many commands it used.
func (r *resolver) next(cmds []Command) (int, error) {
	cmd := cmds[0]
	if cmd.kind == cmdStanding {
		act, err := r.standing(cmd)
		if err != nil {
			return 0, err
		}
		return 1, r.apply(act, cmd, nil, "")
	}
	r.waitOut()
	if r.c.Over() {
		if cmd.kind == cmdEnd {
			// A turn written before its outcome was known ends with "end".
			return 1, r.apply(engine.Action{Type: engine.ActEndTurn}, cmd, nil, "")
		}
		return 0, unmatched(r.fail(cmd, nil, "the game is over by then (it ended at step %d)", r.ended))
	}
	if cmd.kind == cmdNumber {
		return r.numbers(cmds)
	}
	lines, hidden := r.stepLines()
	if len(lines) == 0 && hidden.none() {
		if cmd.kind == cmdEnd && len(r.plan.Actions) > 0 && !slices.ContainsFunc(cmds[1:], func(c Command) bool { return !c.loose }) {
			// "pass end" to a window, as the email's example reads ("1 4
			// end"): with nothing left to do, an "end" after the moves is
			// a sign-off, not the loss of a round trip.
			r.plan.SignOffs, r.plan.signOffAt = append(r.plan.SignOffs, "end"), append(r.plan.signOffAt, cmd.at)
			return 1, nil
		}
		return 0, unmatched(r.fail(cmd, nil, "nothing waits for you at this step: it is %s", r.whose()))
	}
	var act engine.Action
	used := 1
	switch cmd.kind {
	case cmdEnd:
		l, err := r.only(lines, func(l engine.Line) bool { return l.Action.Type == engine.ActEndTurn }, "ending your turn")
		if first := r.asked(); err != nil && first != "" {
			return 0, r.fail(cmd, lines, "%s: %s", err, first)
		}
		if err != nil {
			return 0, r.fail(cmd, lines, "%s", err)
		}
		act = l.Action
	case cmdPass:
		l, err := r.only(lines, func(l engine.Line) bool { return l.Prompt != "" && l.Option == engine.Pass }, "passing (no interrupt window waits for you)")
		if err != nil {
			return 0, r.fail(cmd, lines, "%s", err)
		}
		act = l.Action
	case cmdNone:
		var prompts []string
		for _, l := range lines {
			if l.Prompt != "" && !l.Whole() && !slices.Contains(prompts, l.Prompt) {
				prompts = append(prompts, l.Prompt)
			}
		}
		if len(prompts) != 1 {
			return 0, r.fail(cmd, lines, "\"none\" answers a question that takes several options, and %d such questions wait for you", len(prompts))
		}
		act = engine.Action{Type: engine.ActAnswer, Prompt: prompts[0], Choices: []string{}}
	case cmdWords:
		l, err := r.named(lines, cmd.words)
		if err != nil && len(cmd.words) > 1 && cmd.words[len(cmd.words)-1] == "end" {
			// "place glitchy end": the move, then the end of the turn.
			if l2, err2 := r.named(lines, cmd.words[:len(cmd.words)-1]); err2 == nil {
				if err := r.apply(l2.Action, cmd, lines, ""); err != nil {
					return 0, err
				}
				return r.next(append([]Command{{Text: cmd.Text, Line: cmd.Line, kind: cmdEnd, at: cmd.at}}, cmds[1:]...))
			}
		}
		var none noLineError
		switch {
		case errors.As(err, &none) && cmd.why != "":
			return 0, unmatched(r.fail(cmd, lines, "%s", cmd.why))
		case errors.As(err, &none):
			return 0, unmatched(r.fail(cmd, lines, "%s", err))
		case err != nil:
			return 0, r.fail(cmd, lines, "%s", err)
		}
		if l.Whole() {
			act = l.Action
			break
		}
		// Options of one question named one after another are one answer:
		// "discard data lake, discard overfit goblin".
		nums := []int{l.N}
		for _, more := range cmds[1:] {
			if more.kind != cmdWords {
				break
			}
			m, err := r.named(lines, more.words)
			if err != nil || m.Whole() || m.Prompt != l.Prompt {
				break
			}
			nums = append(nums, m.N)
			used++
		}
		acts, err := engine.Choose(lines, nums)
		if err != nil {
			return 0, r.fail(cmd, lines, "%s", err)
		}
		act = acts[0]
	}
	return used, r.apply(act, cmd, lines, "")
}

// numbers resolves a run of numbers at the head of cmds: lines of the
// list answered, options of one question given together being one answer
// (engine.Choose). Each move is applied at its own step.
func (r *resolver) numbers(cmds []Command) (int, error) {
	if r.lines == nil {
		return 0, r.fail(cmds[0], nil, "the email you answered numbers no moves: name them in words (\"place glitchy\", \"end\"), or answer the email that lists them")
	}
	run := 0
	for run < len(cmds) && cmds[run].kind == cmdNumber {
		run++
	}
	nums := make([]int, run)
	for i := range nums {
		nums[i] = cmds[i].n
	}
	acts, err := engine.Choose(r.lines, nums)
	if err != nil {
		at := cmds[0]
		reason := err.Error()
		var le *engine.LineError
		if errors.As(err, &le) && le.N != 0 {
			at = cmds[slices.Index(nums, le.N)]
			reason = r.lineWords(le, nums)
		}
		return 0, &CommandError{Step: r.step(), Command: at.Text, Line: at.Line, Reason: reason}
	}
	// Which numbers made each action, as Choose gathers them.
	i := 0
	for k, act := range acts {
		if k > 0 {
			r.waitOut()
			if r.c.Over() && act.Type != engine.ActEndTurn {
				return 0, r.fail(cmds[i], nil, "the game is over by then (it ended at step %d)", r.ended)
			}
		}
		listed := ""
		if act.Type != engine.ActAnswer { // an answer's options are worded together
			listed = r.lines[nums[i]-1].Text
		}
		if err := r.apply(act, cmds[i], nil, listed); err != nil {
			return 0, err
		}
		i++
		for act.Type == engine.ActAnswer && !r.lines[nums[i-1]-1].Whole() && i < run && !r.lines[nums[i]-1].Whole() &&
			r.lines[nums[i]-1].Prompt == act.Prompt {
			i++
		}
	}
	return run, nil
}

// apply applies act of cmd at the plan's next step; lines are the moves
// of that step, for the refusal (nil: worked out now). listed is the
// move as the list answered words it, which a refusal quotes where the
// move no longer words itself (its card played by an earlier step); ""
// for a move not taken from the list.
func (r *resolver) apply(act engine.Action, cmd Command, lines []engine.Line, listed string) error {
	if len(r.plan.Actions) >= MaxBatch {
		// Commas put many commands on a line: a text may name more moves
		// than one batch holds (Submit refuses them, SubmitCommands would
		// not).
		return r.fail(cmd, nil, "a turn of commands plays at most %d moves", MaxBatch)
	}
	if r.c.Over() {
		if act.Type == engine.ActEndTurn {
			r.plan.Actions = append(r.plan.Actions, act)
			r.plan.Texts = append(r.plan.Texts, "End your turn (the game is over)")
			return nil
		}
		return r.fail(cmd, nil, "the game is over by then (it ended at step %d)", r.ended)
	}
	text := r.c.View(r.seat).Text(act)
	if act.Type == engine.ActStanding {
		text = standingText(act.Standing)
	}
	if _, err := engine.Apply(r.c, r.seat, act); err != nil {
		if lines == nil {
			lines, _ = r.stepLines()
		}
		if listed != "" {
			text = listed
		}
		var ill *engine.IllegalActionError
		reason := err.Error()
		if errors.As(err, &ill) {
			reason = ill.Reason
		}
		if why := r.howMany(act); why != "" {
			reason = why
		}
		if first := r.asked(); errors.Is(err, engine.ErrWaiting) && first != "" {
			reason = first // the engine names the seats awaited, the reader among them
		}
		return r.fail(cmd, lines, "%s is not possible at this step: %s", text, reason)
	}
	r.plan.Actions = append(r.plan.Actions, act)
	r.plan.Texts = append(r.plan.Texts, text)
	if r.c.Over() && r.ended == 0 {
		r.ended = len(r.plan.Actions)
	}
	return nil
}

// howMany words, for a person, why answer act gives its question too few
// or too many options ("" when the count is right, or act answers none):
// the engine's reason names the prompt by its id, which a reply never
// shows.
func (r *resolver) howMany(act engine.Action) string {
	if act.Type != engine.ActAnswer {
		return ""
	}
	p := r.prompt(act.Prompt)
	if p == nil || p.Seat != r.seat {
		return ""
	}
	got := len(act.Choices)
	if got >= p.Min && got <= p.Max {
		return ""
	}
	want := strconv.Itoa(p.Min)
	if p.Max != p.Min {
		want = fmt.Sprintf("%d to %d", p.Min, p.Max)
	}
	return fmt.Sprintf(`the question %s takes %s options, given together on one line (as "2 5"), and this gives %d`,
		quoted(p.Text), want, got)
}

// prompt is the open prompt with this id, nil if none is.
func (r *resolver) prompt(id string) *engine.Prompt {
	if i := slices.IndexFunc(r.c.Prompts, func(p engine.Prompt) bool { return p.ID == id }); i >= 0 {
		return &r.c.Prompts[i]
	}
	return nil
}

// asked says, when a question waits for the seat, that it comes first
// ("" when none does): the reason a move or the end of the turn must
// wait, which the seat may not read from the moves listed (the options
// of a question about cards it has not seen are not).
func (r *resolver) asked() string {
	ps := engine.PromptsFor(r.c, r.seat)
	if len(ps) == 0 {
		return ""
	}
	return "the question " + quoted(ps[0].Text) + " must be answered first"
}

// quoted is a question's text as a refusal quotes it: in double quotes,
// without its full stop.
func quoted(question string) string { return `"` + strings.TrimSuffix(question, ".") + `"` }

// lineWords words le, the refusal of the numbers nums of the email's list,
// for a person: the engine's words name "line 2", which in a reply reads
// as a line of the reply, and not the question at fault. Options of one
// question split by another move keep the engine's words: no position
// the table knows opens two questions to one seat at once.
func (r *resolver) lineWords(le *engine.LineError, nums []int) string {
	n := le.N
	switch le.Problem {
	case engine.LineMissing:
		return fmt.Sprintf("the list you answered has no move %d (it numbers %d)", n, len(r.lines))
	case engine.LineTwice:
		return fmt.Sprintf("%d is given twice", n)
	case engine.LineOneAnswer:
		prompt := r.lines[n-1].Prompt
		p := r.prompt(prompt)
		if p == nil {
			break
		}
		var before []string // the numbers before n that answer the same question
		for _, m := range nums {
			if m == n {
				break
			}
			if r.lines[m-1].Prompt == prompt {
				before = append(before, strconv.Itoa(m))
			}
		}
		return fmt.Sprintf(`%s and %d both answer the question %s, which takes one answer: give one of them`,
			strings.Join(before, ", "), n, quoted(p.Text))
	}
	return le.Error()
}

// waitOut takes the game on to where the seat acts again, or to its end:
// the other seats answer their prompts (an interrupt window) as a timeout
// would, by passing.
func (r *resolver) waitOut() {
	for range 64 {
		if r.c.Over() || len(engine.Legal(r.c, r.seat)) > 0 {
			return
		}
		i := slices.IndexFunc(r.c.Prompts, func(p engine.Prompt) bool { return p.Seat != r.seat })
		if i < 0 {
			return
		}
		p := r.c.Prompts[i]
		if _, err := engine.Apply(r.c, p.Seat, engine.Action{Type: engine.ActAnswer, Prompt: p.ID, Choices: p.Default()}); err != nil {
			return
		}
		if r.c.Over() && r.ended == 0 {
			r.ended = len(r.plan.Actions)
		}
	}
}

// stepLines numbers the seat's moves at this step as an email would,
// without those that name a card the seat has not seen: it may not name
// them. hidden counts the cards the seat has not seen in its prompts'
// options and in its hand, numbers it knows (it drew or was shown that
// many), not the moves left out: how many of those there are depends on
// what the cards are (a Tool it could play, a Senior it could not, a
// copy of a card in hand, whose moves read as one line).
func (r *resolver) stepLines() (lines []engine.Line, hidden unseen) {
	v := r.c.View(r.seat)
	all := engine.Numbered(v.Moves(engine.Legal(r.c, r.seat)))
	counted := map[string]bool{} // cards not seen, counted once
	cards := map[string]bool{}   // option ids that are cards
	for _, p := range v.Prompts {
		n := 0
		for _, o := range p.Options {
			if o.Card != "" {
				cards[o.ID] = true
				if !r.known[o.ID] && !counted[o.ID] {
					counted[o.ID] = true
					n++
				}
			}
		}
		if n > 0 {
			hidden.asks = append(hidden.asks, ask{text: p.Text, n: n, options: len(p.Options)})
		}
	}
	// Off its turn with no question, nothing waits for the seat whatever
	// its cards are: the cards it has not seen hide no move.
	if v.Active == r.seat || len(v.Prompts) > 0 {
		for _, c := range v.Hand {
			if !r.known[c.ID] && !counted[c.ID] {
				hidden.hand++
			}
		}
	}
	for _, l := range all {
		seen := (l.Action.Card == "" || r.known[l.Action.Card]) && !slices.ContainsFunc(l.Action.Challenges, func(id string) bool { return !r.known[id] }) &&
			(!cards[l.Option] || r.known[l.Option])
		if seen {
			lines = append(lines, l)
		}
	}
	r.hidden = hidden
	return lines, hidden
}

// whose says whom the game waits for, as the seat sees it.
func (r *resolver) whose() string {
	v := r.c.View(r.seat)
	if v.Active >= 0 && v.Active < len(v.Players) && v.Active != r.seat {
		return v.Players[v.Active].Name + "'s turn"
	}
	return "not your turn"
}

// only returns the one line that is picks, or an error that says what is
// not among the moves.
func (r *resolver) only(lines []engine.Line, is func(engine.Line) bool, what string) (engine.Line, error) {
	var found []engine.Line
	for _, l := range lines {
		if is(l) {
			found = append(found, l)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return engine.Line{}, fmt.Errorf("%s is not among your moves at this step", what)
	}
	return engine.Line{}, r.several("", found)
}

// named returns the one line that the words name: a claim names its
// challenges ("claim landing page and spam filter"); any line is named
// by the words it starts with (whole words, the last one may be cut
// short), or past its first word (the verb).
func (r *resolver) named(lines []engine.Line, w []string) (engine.Line, error) {
	phrase := strings.Join(w, " ")
	if w[0] == "claim" && len(w) > 1 {
		if found := r.claims(lines, w[1:]); len(found) == 1 {
			return found[0], nil
		} else if len(found) > 1 {
			return engine.Line{}, r.several(phrase, found)
		}
	}
	var found []engine.Line
	for _, l := range lines {
		t := words(fold(l.Text))
		if prefixWords(t, w) || len(t) > 1 && !verbs[w[0]] && prefixWords(t[1:], w) {
			found = append(found, l)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		if r.step() == 1 {
			return engine.Line{}, noLineError(fmt.Sprintf("no line of the email's list reads %q", phrase))
		}
		return engine.Line{}, noLineError(fmt.Sprintf("no move at this step reads %q", phrase))
	}
	return engine.Line{}, r.several(phrase, found)
}

// noLineError is the error of words that name no move.
type noLineError string

func (e noLineError) Error() string { return string(e) }

// unmatched marks err, a refusal by fail, as one of commands that match
// no move at their step (or find none there): a sign-off's, at the end of
// a reply.
func unmatched(err error) error {
	var ce *CommandError
	if errors.As(err, &ce) {
		ce.unmatched = true
	}
	return err
}

// claims returns the claim lines whose challenges are exactly those the
// words name, split by "and".
func (r *resolver) claims(lines []engine.Line, w []string) []engine.Line {
	var names [][]string
	for part := range strings.SplitSeq(strings.Join(w, " "), " and ") {
		if f := strings.Fields(part); len(f) > 0 {
			names = append(names, f)
		}
	}
	market := map[string][]string{} // instance id -> the words of its name
	for _, c := range r.c.View(r.seat).Market {
		market[c.ID] = words(fold(c.Name))
	}
	var out []engine.Line
	for _, l := range lines {
		if l.Action.Type != engine.ActClaim || len(l.Action.Challenges) != len(names) {
			continue
		}
		left := slices.Clone(l.Action.Challenges)
		for _, n := range names {
			i := slices.IndexFunc(left, func(id string) bool { return prefixWords(market[id], n) })
			if i < 0 {
				break
			}
			left = slices.Delete(left, i, i+1)
		}
		if len(left) == 0 {
			out = append(out, l)
		}
	}
	return out
}

// several is the error of words that name more than one line.
func (r *resolver) several(phrase string, found []engine.Line) error {
	what := "that"
	if phrase != "" {
		what = strconv.Quote(phrase)
	}
	if r.step() == 1 {
		ns := make([]string, len(found))
		for i, l := range found {
			ns[i] = strconv.Itoa(l.N)
		}
		return fmt.Errorf("%s could be lines %s: give the number, or more of the name", what, joinOr(ns))
	}
	texts := make([]string, len(found))
	for i, l := range found {
		texts[i] = strconv.Quote(l.Text)
	}
	return fmt.Errorf("%s could be %s: give more of the name", what, joinOr(texts))
}

// standing resolves a standing answer: "always pass", or a Hack to play
// when an event is proposed, added to the seat's standing answers as the
// moves so far leave them.
func (r *resolver) standing(cmd Command) (engine.Action, error) {
	v := r.c.View(r.seat)
	var st engine.Standing
	if v.Standing != nil {
		st = *v.Standing
		st.Plays = slices.Clone(st.Plays)
	}
	if len(cmd.words) == 0 {
		st.Pass = true
		return engine.Action{Type: engine.ActStanding, Standing: &st}, nil
	}
	card, err := hackNamed(v.Hand, cmd.words)
	if err != nil {
		return engine.Action{}, r.fail(cmd, nil, "%s", err)
	}
	// Named again, a standing play adds nothing (the first of a kind
	// plays): a seat's standing answers do not grow batch after batch.
	if sp := (engine.StandingPlay{On: cmd.on, Card: card}); !slices.Contains(st.Plays, sp) {
		st.Plays = append(st.Plays, sp)
	}
	return engine.Action{Type: engine.ActStanding, Standing: &st}, nil
}

// standingText words the standing answers st sets.
func standingText(st *engine.Standing) string {
	var parts []string
	if st.Pass {
		parts = append(parts, "always pass")
	}
	for _, sp := range st.Plays {
		name := sp.Card
		if c := engine.Standard().Card(sp.Card); c != nil {
			name = c.Name
		}
		parts = append(parts, "play "+name+" when "+string(sp.On))
	}
	if len(parts) == 0 {
		return "Clear your standing interrupt answers"
	}
	return "Set your standing interrupt answers: " + strings.Join(parts, "; ")
}

// hackNamed returns the catalogue id of the card the words name: a card
// of the hand first, then any Hack of the catalogue.
func hackNamed(hand []engine.CardView, w []string) (string, error) {
	phrase := strings.Join(w, " ")
	match := func(name string) bool { return prefixWords(words(fold(name)), w) }
	var ids []string
	for _, c := range hand {
		if match(c.Name) && !slices.Contains(ids, c.Card) {
			ids = append(ids, c.Card)
		}
	}
	if len(ids) == 0 {
		for _, c := range engine.Standard().Cards() {
			if c.Type == engine.Hack && match(c.Name) && !slices.Contains(ids, c.ID) {
				ids = append(ids, c.ID)
			}
		}
	}
	switch len(ids) {
	case 1:
		return ids[0], nil
	case 0:
		return "", fmt.Errorf("no Hack is named %q", phrase)
	}
	return "", fmt.Errorf("%q names %d cards: give more of the name", phrase, len(ids))
}

// fail is the refusal of cmd at the plan's next step, with the moves of
// that step (nil: worked out now).
func (r *resolver) fail(cmd Command, lines []engine.Line, format string, a ...any) error {
	hidden := r.hidden
	switch {
	case lines == nil && r.c.Over():
		hidden = unseen{}
	case lines == nil:
		lines, hidden = r.stepLines()
	}
	moves := make([]string, 0, len(lines)+1)
	for _, l := range lines {
		moves = append(moves, l.Text)
	}
	moves = append(moves, hidden.words(r.step())...)
	return &CommandError{Step: r.step(), Command: cmd.Text, Line: cmd.Line, Reason: fmt.Sprintf(format, a...), Moves: moves}
}

// NameStarts reports whether the words w name name: its words start with
// them, whole but the last, which may be cut short ("running a start"
// names "Running a Startup"). Case and accents do not matter.
func NameStarts(name string, w []string) bool { return prefixWords(words(fold(name)), w) }

// prefixWords reports whether text starts with w: every word equal but
// the last, which may be a prefix.
func prefixWords(text, w []string) bool {
	if len(w) == 0 || len(w) > len(text) {
		return false
	}
	for i, x := range w {
		if i == len(w)-1 {
			return strings.HasPrefix(text[i], x)
		}
		if text[i] != x {
			return false
		}
	}
	return true
}

// joinOr writes "a, b or c".
func joinOr(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

package play

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/refusal"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// The command language of email replies and of the API's command batches:
// ReadCommands reads a text into commands, and Resolve turns them into
// actions one after another, each against the game as the moves before it
// leave it. docs/email.md describes the language.

// Limits of what a text of commands may hold.
const (
	// MaxCommandLines is the most lines of commands a text is read for.
	MaxCommandLines = 60
	// maxLineRunes is the longest line read; longer is refused.
	maxLineRunes = 300
	// maxRange is the most lines a range ("1-3") may name.
	maxRange = 20
)

// Control is a command that is not a move of the game: it stands alone
// in a text.
type Control int

// The controls. NoControl: the text holds moves (or only help or board).
const (
	NoControl Control = iota
	ControlResign
	ControlVoteEnd
	ControlJoin    // take the invited seat, with Reading.Deck
	ControlDecline // turn the invitation down
)

func (c Control) String() string {
	return [...]string{"", "resign", "vote end", "join", "decline"}[c]
}

// commandKind says what a command names.
type commandKind int

const (
	cmdNumber   commandKind = iota // a line of the list answered, by its number
	cmdWords                       // a move named by its words, at its step
	cmdEnd                         // end the turn
	cmdPass                        // pass the interrupt window that waits
	cmdNone                        // no option of the one question that takes none or more
	cmdStanding                    // set a standing interrupt answer
)

// Command is one command of a text, as read. Text is what was written
// (a part of a line between commas), Line its line in the text, from 1.
type Command struct {
	Text string
	Line int

	kind    commandKind
	n       int      // cmdNumber
	words   []string // cmdWords; cmdStanding: the card's words (none: "always pass")
	on      engine.EventKind
	control Control
	// loose: words of no form of the language that name no card and
	// hold no number ("take care", "let me know when you can"): at the
	// end of a reply, a sign-off unless they name a move (see Resolve).
	// why is the reason such words are no command, if reading tells it.
	loose bool
	why   string
	at    int // the part's place among the text's parts, from 0
}

// Reading is a text read as commands, in order. Skipped holds the parts
// that are no command (a greeting, thanks, a signature, a mail app's
// line): they are skipped, and an answer says so. Help and Board ask for
// the command language and the board; Control is a command that stands
// alone, with Deck the words naming the deck of a join ("" words: the
// default deck).
type Reading struct {
	Commands []Command
	Skipped  []string
	skipped  []int // the place of each part of Skipped among the text's parts
	Help     bool
	Board    bool
	Control  Control
	Deck     []string
	// Says are the texts of the "say" lines, in order: each the rest of
	// its line after "say", as written (not folded, commas and all), a
	// message to post (Service.SayLine reads "to <name>" at its start).
	Says []string
}

// Moves reports whether the reading holds moves to resolve.
func (r *Reading) Moves() bool { return len(r.Commands) > 0 }

// StandingOnly reports whether the reading's moves are all standing
// answers ("always pass", "<card> when <event>"): they depend on no
// version of the game (Service.Submit), so they are read against the
// game as it is.
func (r *Reading) StandingOnly() bool {
	return r.Moves() && !slices.ContainsFunc(r.Commands, func(c Command) bool { return c.kind != cmdStanding })
}

// CommandError says why commands are not played. Step is the move of the
// plan at fault, from 1, and Moves what the seat could do at that step, in
// words; Step 0 is the text itself (a line that is not a command, a line
// that names several moves). Command is the command at fault as written,
// and Line its line of the text, from 1; "" and 0 for the text as a whole.
// Nothing of a text with one is played.
type CommandError struct {
	Step    int
	Command string
	Line    int
	Reason  string
	Moves   []string

	unmatched bool // the command matched no move at its step (see Resolve)
}

// RefusalKind is Invalid: the command cannot be played.
func (e *CommandError) RefusalKind() refusal.Kind { return refusal.Invalid }

func (e *CommandError) Error() string {
	var b strings.Builder
	if e.Step > 0 {
		fmt.Fprintf(&b, "step %d, ", e.Step)
	}
	if e.Command != "" {
		fmt.Fprintf(&b, "%q: ", e.Command)
	}
	b.WriteString(e.Reason)
	return b.String()
}

// fold lower-cases s and takes the accents off its letters, so that
// "Glitchy", "GLITCHY" and "Glîtchy" read alike.
func fold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		out = s
	}
	return strings.ToLower(out)
}

// words splits a folded phrase into words of letters and digits (other
// characters separate them).
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
}

// verbs are the words a move may start with before a card's name or the
// numbers of options.
var verbs = map[string]bool{
	"place": true, "play": true, "claim": true, "activate": true, "abandon": true, "discard": true, "keep": true,
	"choose": true, "take": true, "recover": true, "target": true, "refresh": true, "answer": true, "look": true,
	"put": true, "pick": true, "select": true,
}

// keywords are the other words of the language: a part holding one is
// read as a command, never skipped.
var keywords = map[string]bool{
	"end": true, "pass": true, "always": true, "none": true, "nothing": true, "when": true, "help": true, "board": true,
	"status": true, "resign": true, "vote": true, "join": true, "decline": true,
}

// events are the words of "play <card> when <event>".
var events = map[string]engine.EventKind{
	"draw": engine.EvDraw, "draws": engine.EvDraw, "place": engine.EvPlace, "placed": engine.EvPlace, "places": engine.EvPlace,
	"tool": engine.EvPlayTool, "tools": engine.EvPlayTool, "play tool": engine.EvPlayTool, "hack": engine.EvPlayHack,
	"hacks": engine.EvPlayHack, "play hack": engine.EvPlayHack, "claim": engine.EvClaim, "claims": engine.EvClaim,
}

// ReadCommands reads text (a reply's own text, its quote cut; or the
// commands of an API batch, one a line) into commands. Commands are
// separated by lines, commas and semicolons; a number is a line of the
// list answered, "1-3" is lines 1, 2 and 3; a part with no number, no
// word of the language and no card name is skipped. A part of no form of
// the language that names no card and holds no number ("take care") is
// read as loose words: beside a command that stands alone, or help or
// board, it is skipped; else Resolve decides (a sign-off at the end). A
// line that starts with "say" is a message, whole (Reading.Says).
// Anything else that is not a command, and a text with no command, is a
// *CommandError; the reading is then returned too, with what was skipped
// up to the fault.
func ReadCommands(text string) (*Reading, error) {
	rd := &Reading{}
	read := 0
	controls := 0
	at := -1 // the place of the part read
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(strings.TrimRight(raw, "\r"))
		if line == "" {
			continue
		}
		if read++; read > MaxCommandLines {
			return rd, &CommandError{Reason: fmt.Sprintf("a reply holds at most %d lines of commands", MaxCommandLines)}
		}
		if text, ok := sayLine(line); ok {
			if text == "" {
				return rd, &CommandError{Command: clip(line), Line: i + 1, Reason: "write your message after \"say\": say good game"}
			}
			rd.Says = append(rd.Says, text)
			continue
		}
		if len([]rune(line)) > maxLineRunes {
			return rd, &CommandError{Command: clip(line), Line: i + 1, Reason: fmt.Sprintf("a line holds at most %d characters", maxLineRunes)}
		}
		for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ';' }) {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if at++; chatter(part) {
				rd.skip(clip(part), at)
				continue
			}
			before := len(rd.Commands)
			got, err := rd.part(part, i+1)
			if err != nil {
				return rd, err
			}
			got.at = at
			for k := before; k < len(rd.Commands); k++ { // read by mixed
				rd.Commands[k].at = at
			}
			if got.control != NoControl {
				controls++
				rd.Control = got.control
				continue
			}
			if got.Text != "" {
				rd.Commands = append(rd.Commands, expand(got)...)
			}
		}
	}
	if (controls > 0 || rd.Help || rd.Board || len(rd.Says) > 0) && !slices.ContainsFunc(rd.Commands, func(c Command) bool { return !c.loose }) {
		// Beside a command that stands alone, help, the board or a
		// message, words that name no move are a sign-off ("resign. Take
		// care").
		for _, c := range rd.Commands {
			rd.skip(c.Text, c.at)
		}
		rd.Commands = nil
	}
	switch {
	case controls > 0 && (controls > 1 || len(rd.Commands) > 0):
		return rd, &CommandError{Reason: fmt.Sprintf("%q goes alone in a reply, without moves", rd.Control)}
	case controls == 0 && len(rd.Commands) == 0 && !rd.Help && !rd.Board && len(rd.Says) == 0:
		return rd, &CommandError{Reason: "the reply holds no command: write your moves (their numbers, or their words) above the quoted email, or \"help\""}
	}
	return rd, nil
}

// sayLine reports whether line is a "say" line (its first word is "say",
// in any case, maybe with a colon), and returns the rest of it as
// written, its spaces trimmed: the whole line is the message, its commas
// and all.
func sayLine(line string) (string, bool) {
	word, rest, _ := strings.Cut(line, " ")
	word = strings.TrimSuffix(word, ":")
	if !strings.EqualFold(word, "say") {
		if w, r, ok := strings.Cut(line, ":"); ok && strings.EqualFold(w, "say") {
			return strings.TrimSpace(r), true // "say:text"
		}
		return "", false
	}
	return strings.TrimSpace(strings.TrimPrefix(rest, ":")), true
}

// skip notes the part text, at its place among the text's parts, as
// skipped, in the order of the text.
func (rd *Reading) skip(text string, at int) {
	i, _ := slices.BinarySearch(rd.skipped, at)
	rd.Skipped, rd.skipped = slices.Insert(rd.Skipped, i, text), slices.Insert(rd.skipped, i, at)
}

// Skipped is all that a reply skips, in the order written: the parts of
// rd that are no command, and the sign-offs at the end of its plan p
// (nil: none).
func Skipped(rd *Reading, p *Plan) []string {
	out := &Reading{Skipped: slices.Clone(rd.Skipped), skipped: slices.Clone(rd.skipped)}
	if p != nil {
		for i, text := range p.SignOffs {
			out.skip(text, p.signOffAt[i])
		}
	}
	return out.Skipped
}

// expand returns the commands a part stands for: each number of a
// command of numbers (the numbers are kept in words, one per command).
func expand(c Command) []Command {
	if c.kind != cmdNumber || len(c.words) == 0 {
		return []Command{c}
	}
	out := make([]Command, len(c.words))
	for i, w := range c.words {
		n, _ := strconv.Atoi(w)
		out[i] = Command{Text: c.Text, Line: c.Line, kind: cmdNumber, n: n, at: c.at}
	}
	return out
}

// part reads one part of a line between commas: a command, a control, or
// help or board (noted on rd; the command returned is then empty).
func (rd *Reading) part(part string, line int) (Command, error) {
	fail := func(format string, a ...any) (Command, error) {
		return Command{}, &CommandError{Command: clip(part), Line: line, Reason: fmt.Sprintf(format, a...)}
	}
	cmd := Command{Text: clip(part), Line: line}
	folded := fold(part)
	// Numbers are read as written: no punctuation is a silent separator
	// that would turn "-1" into 1 or "1-3" into 1 and 3.
	var nums []string
	simple := true
	for _, tok := range strings.Fields(folded) {
		ns, numeric, err := numberToken(tok)
		if err != nil {
			return fail("%s", err)
		}
		switch {
		case numeric:
			nums = append(nums, ns...)
		case tok == "end" || tok == "pass":
		default:
			simple = false
		}
	}
	if simple {
		// Numbers and the words end and pass, in any mix: "1 4 end".
		rd.mixed(part, line, folded)
		return Command{}, nil
	}
	w := words(folded)
	if len(nums) == 0 && !mayNameCard(w) {
		// Words that name no card and hold no number may be a sign-off
		// ("take care", "let me know when you can"): a part that is no
		// command of the language is read as loose words, which Resolve
		// skips at the end of a reply, with the reason it would be
		// refused for.
		fail = func(format string, a ...any) (Command, error) {
			cmd.kind, cmd.words, cmd.loose, cmd.why = cmdWords, w, true, fmt.Sprintf(format, a...)
			return cmd, nil
		}
	}
	switch {
	case len(w) == 1 && w[0] == "end":
		cmd.kind = cmdEnd
	case len(w) == 1 && w[0] == "pass":
		cmd.kind = cmdPass
	case len(w) == 1 && w[0] == "help":
		rd.Help = true
		return Command{}, nil
	case len(w) == 1 && (w[0] == "board" || w[0] == "status"):
		rd.Board = true
		return Command{}, nil
	case w[0] == "resign":
		if len(w) > 1 {
			return fail("write \"resign\" alone to leave the game")
		}
		cmd.control = ControlResign
	case w[0] == "vote":
		if len(w) != 2 || w[1] != "end" {
			return fail("write \"vote end\" to vote to end the game as it stands")
		}
		cmd.control = ControlVoteEnd
	case w[0] == "decline":
		if len(w) > 1 {
			return fail("write \"decline\" alone to turn the invitation down")
		}
		cmd.control = ControlDecline
	case w[0] == "join":
		cmd.control = ControlJoin
		deck := w[1:]
		if len(deck) > 0 && deck[0] == "with" {
			deck = deck[1:]
		}
		if len(deck) > 0 && deck[len(deck)-1] == "deck" {
			deck = deck[:len(deck)-1]
		}
		rd.Deck = deck
	case len(w) == 2 && w[0] == "always" && w[1] == "pass":
		cmd.kind = cmdStanding
	case slices.Index(w, "when") > 0:
		i := slices.Index(w, "when")
		on, ok := events[strings.Join(w[i+1:], " ")]
		if !ok {
			return fail("after \"when\" name an event: draw, place, tool, hack or claim")
		}
		card := w[:i]
		if card[0] == "play" {
			card = card[1:]
		}
		if len(card) == 0 {
			return fail("name the Hack to play: \"play <card> when %s\"", w[i+1])
		}
		cmd.kind, cmd.words, cmd.on = cmdStanding, card, on
	case len(w) == 1 && (w[0] == "none" || w[0] == "nothing"):
		cmd.kind = cmdNone
	case verbs[w[0]] && len(nums) > 0 && len(nums) == len(w)-1:
		// "discard 2 5": the numbers of the options.
		cmd.kind, cmd.words = cmdNumber, nums
	default:
		cmd.kind, cmd.words = cmdWords, w
		cmd.loose = len(nums) == 0 && !mayNameCard(w)
	}
	return cmd, nil
}

// mixed reads a part of numbers and the words end and pass ("1 4 end")
// as one command each.
func (rd *Reading) mixed(part string, line int, folded string) {
	for _, tok := range strings.Fields(folded) {
		ns, numeric, _ := numberToken(tok)
		switch {
		case numeric:
			rd.Commands = append(rd.Commands, expand(Command{Text: clip(part), Line: line, kind: cmdNumber, words: ns})...)
		case tok == "end":
			rd.Commands = append(rd.Commands, Command{Text: clip(part), Line: line, kind: cmdEnd})
		case tok == "pass":
			rd.Commands = append(rd.Commands, Command{Text: clip(part), Line: line, kind: cmdPass})
		}
	}
}

// numberToken reads a token of a part: a number ("3", "3." at the end of
// a sentence), a range ("1-3"), or no number at all. A token that mixes
// digits with other signs ("-1", "1.5", "#3", "3/4") is refused rather
// than read as some other numbers.
func numberToken(tok string) (nums []string, numeric bool, err error) {
	core := strings.TrimSuffix(strings.Trim(tok, "\"'()[]“”"), ".")
	if core == "" || !strings.ContainsFunc(core, unicode.IsDigit) {
		return nil, false, nil
	}
	if strings.ContainsFunc(core, func(r rune) bool { return unicode.IsDigit(r) && (r < '0' || r > '9') }) {
		// "２" or "٢" means a line as surely as "2": refused, never a
		// word, which a sign-off would skip.
		return nil, false, fmt.Errorf("%q is not a line's number: write it in the digits 0-9", tok)
	}
	if allDigits(core) {
		if len(core) > 4 {
			return nil, false, fmt.Errorf("%s is not the number of a line", core)
		}
		return []string{strconv.Itoa(atoi(core))}, true, nil
	}
	if a, b, ok := strings.Cut(core, "-"); ok && allDigits(a) && allDigits(b) && len(a) <= 4 && len(b) <= 4 {
		from, _ := strconv.Atoi(a)
		to, _ := strconv.Atoi(b)
		switch {
		case from > to:
			return nil, false, fmt.Errorf("the range %s goes down: write it %d-%d", core, to, from)
		case to-from >= maxRange:
			return nil, false, fmt.Errorf("the range %s names more than %d lines", core, maxRange)
		}
		for n := from; n <= to; n++ {
			nums = append(nums, strconv.Itoa(n))
		}
		return nums, true, nil
	}
	if strings.ContainsFunc(core, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		return nil, false, fmt.Errorf("%q is not a line's number: write the numbers alone (1 3) or as a range (1-3)", tok)
	}
	return nil, false, nil // a word with digits in it
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func allDigits(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
}

// chatter reports whether part is no command: it holds no digit, no word
// of the language and no card's name ("Hi", "Thanks! Good luck", a mail
// app's "Sent with …").
func chatter(part string) bool {
	w := words(fold(part))
	for _, x := range w {
		if verbs[x] || keywords[x] || strings.ContainsFunc(x, unicode.IsDigit) {
			return false
		}
	}
	return !namesCard(w) && !strings.ContainsFunc(part, unicode.IsDigit)
}

// namesCard reports whether the words w hold the whole name of a card.
func namesCard(w []string) bool {
	for _, name := range cardNames() {
		for i := 0; i+len(name) <= len(w); i++ {
			if slices.Equal(w[i:i+len(name)], name) {
				return true
			}
		}
	}
	return false
}

// mayNameCard reports whether the words w may name a card as a move
// does: its whole name, or a verb and the start of its name, the last
// word cut short ("play proof").
func mayNameCard(w []string) bool {
	if namesCard(w) {
		return true
	}
	if len(w) < 2 || !verbs[w[0]] {
		return false
	}
	return slices.ContainsFunc(cardNames(), func(name []string) bool { return prefixWords(name, w[1:]) })
}

// cardNames are the folded words of every card's name of the standard
// card set.
var cardNames = sync.OnceValue(func() [][]string {
	var out [][]string
	for _, c := range engine.Standard().Cards() {
		if n := words(fold(c.Name)); len(n) > 0 && !slices.ContainsFunc(out, func(o []string) bool { return slices.Equal(o, n) }) {
			out = append(out, n)
		}
	}
	return out
})

func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

package inbound

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/datamonsters/turns/engine"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Limits of what a reply may hold.
const (
	// MaxCommandLines is the most lines of commands a reply is read for.
	MaxCommandLines = 60
	// maxLineRunes is the longest command line read; longer is refused.
	maxLineRunes = 300
)

// CommandError says why a reply's commands are not moves: the line of the
// reply at fault (as written), and why. Nothing of a reply with one is
// applied.
type CommandError struct {
	Line   string // the reply's line, "" when the reply as a whole is wrong
	Reason string
}

func (e *CommandError) Error() string {
	if e.Line == "" {
		return e.Reason
	}
	return fmt.Sprintf("%q: %s", e.Line, e.Reason)
}

// Item is one command of a reply, once read: a line of the email's list
// (N > 0) or a standing interrupt answer to set (Standing not nil). Line
// is the reply's line it came from.
type Item struct {
	N        int
	Standing *engine.Standing
	Answer   *engine.Action // an answer with no option ("none")
	Line     string
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

// verbs are the words a command may start with before a card's name or
// the numbers of options; each maps to how the lines it picks start.
var verbs = map[string]bool{
	"place": true, "play": true, "claim": true, "activate": true, "abandon": true, "discard": true, "keep": true,
	"choose": true, "take": true, "recover": true, "target": true, "refresh": true, "answer": true, "look": true,
	"put": true, "pick": true, "select": true, "vote": true, "resign": true,
}

// events are the words of "play <card> when <event>".
var events = map[string]engine.EventKind{
	"draw": engine.EvDraw, "draws": engine.EvDraw, "place": engine.EvPlace, "placed": engine.EvPlace, "places": engine.EvPlace,
	"tool": engine.EvPlayTool, "tools": engine.EvPlayTool, "play tool": engine.EvPlayTool, "hack": engine.EvPlayHack,
	"hacks": engine.EvPlayHack, "play hack": engine.EvPlayHack, "claim": engine.EvClaim, "claims": engine.EvClaim,
}

// Resolver turns a reply's commands into items against the numbered lines
// of one email: Lines as the email numbered them, Hand and Catalog to name
// the cards of standing answers, Standing the seat's standing answers as
// they were (the new ones add to them).
type Resolver struct {
	Lines    []engine.Line
	Hand     []engine.CardView
	Catalog  *engine.Catalog
	Standing engine.Standing
}

// Read reads the commands of body (the reply's own text, quoted text cut)
// into items, in order. Commands are separated by lines, commas and
// semicolons; blank lines are skipped; once commands were read, a short
// line with no number and no command word (a name signing the reply)
// ends them. Anything else that is not a command is a *CommandError.
func (r *Resolver) Read(body string) ([]Item, error) {
	var out []Item
	read := 0
	for _, raw := range strings.Split(body, "\n") {
		line := strings.TrimSpace(strings.TrimRight(raw, "\r"))
		if line == "" {
			continue
		}
		if read++; read > MaxCommandLines {
			return nil, &CommandError{Reason: fmt.Sprintf("a reply holds at most %d lines of commands", MaxCommandLines)}
		}
		if len([]rune(line)) > maxLineRunes {
			return nil, &CommandError{Line: clip(line), Reason: fmt.Sprintf("a line holds at most %d characters", maxLineRunes)}
		}
		var items []Item
		var lineErr error
		for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ';' }) {
			got, err := r.command(strings.TrimSpace(part), line)
			if err != nil {
				lineErr = err
				break
			}
			items = append(items, got...)
		}
		if lineErr != nil {
			if len(out) > 0 && signature(line) {
				break
			}
			return nil, lineErr
		}
		out = append(out, items...)
	}
	if len(out) == 0 {
		return nil, &CommandError{Reason: "the reply holds no command: write the numbers of your moves above the quoted email"}
	}
	return out, nil
}

// signature reports whether line looks like a name or a greeting rather
// than a mistyped command: a few words, no digit, no command word.
func signature(line string) bool {
	w := words(fold(line))
	if len(w) == 0 || len(w) > 4 {
		return len(w) == 0
	}
	for _, x := range w {
		if verbs[x] || x == "end" || x == "pass" || x == "always" || x == "none" || strings.ContainsAny(x, "0123456789") {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// command reads one command (a part of line between commas).
func (r *Resolver) command(part, line string) ([]Item, error) {
	w := words(fold(part))
	if len(w) == 0 {
		return nil, nil
	}
	fail := func(format string, a ...any) ([]Item, error) {
		return nil, &CommandError{Line: clip(line), Reason: fmt.Sprintf(format, a...)}
	}
	// Numbers and the words end and pass, in any mix: "1 4 end".
	if items, ok, err := r.simple(w, line); ok || err != nil {
		return items, err
	}
	switch {
	case len(w) == 1 && (w[0] == "none" || w[0] == "nothing"):
		// No option of the one open question that takes none or more.
		var found []engine.Line
		for _, l := range r.Lines {
			if l.Prompt != "" && !l.Whole() && !slices.ContainsFunc(found, func(f engine.Line) bool { return f.Prompt == l.Prompt }) {
				found = append(found, l)
			}
		}
		if len(found) != 1 {
			return fail("\"none\" answers a question that takes several options, and %d such questions wait for you", len(found))
		}
		return []Item{{Answer: &engine.Action{Type: engine.ActAnswer, Prompt: found[0].Prompt, Choices: []string{}}, Line: line}}, nil
	case len(w) == 2 && w[0] == "always" && w[1] == "pass":
		st := r.Standing
		st.Pass = true
		r.Standing = st
		return []Item{{Standing: &st, Line: line}}, nil
	case w[0] == "play" && indexOf(w, "when") > 1:
		i := indexOf(w, "when")
		on, ok := events[strings.Join(w[i+1:], " ")]
		if !ok {
			return fail("after \"when\" name an event: draw, place, tool, hack or claim")
		}
		card, err := r.catalogCard(w[1:i])
		if err != nil {
			return fail("%s", err)
		}
		st := r.Standing
		st.Plays = append(append([]engine.StandingPlay(nil), st.Plays...), engine.StandingPlay{On: on, Card: card})
		r.Standing = st
		return []Item{{Standing: &st, Line: line}}, nil
	case verbs[w[0]] && len(w) > 1 && allNumbers(w[1:]):
		// "discard 2 5": the numbers of the options.
		return r.numbers(w[1:], line)
	}
	// A line named by its words: "place glitchy", "claim cache invalidation".
	n, err := r.named(w)
	if err != nil && len(w) > 1 && w[len(w)-1] == "end" {
		if n2, err2 := r.named(w[:len(w)-1]); err2 == nil {
			end, err3 := r.keyword("end")
			if err3 != nil {
				return fail("%s", err3)
			}
			return []Item{{N: n2, Line: line}, {N: end, Line: line}}, nil
		}
	}
	if err != nil {
		return fail("%s", err)
	}
	return []Item{{N: n, Line: line}}, nil
}

// simple reads a command made only of numbers and the words end and pass.
func (r *Resolver) simple(w []string, line string) ([]Item, bool, error) {
	for _, x := range w {
		if _, err := strconv.Atoi(x); err != nil && x != "end" && x != "pass" {
			return nil, false, nil
		}
	}
	var out []Item
	for _, x := range w {
		n, err := strconv.Atoi(x)
		if err != nil {
			if n, err = r.keyword(x); err != nil {
				return nil, false, &CommandError{Line: clip(line), Reason: err.Error()}
			}
		}
		out = append(out, Item{N: n, Line: line})
	}
	return out, true, nil
}

func (r *Resolver) numbers(w []string, line string) ([]Item, error) {
	var out []Item
	for _, x := range w {
		n, _ := strconv.Atoi(x)
		out = append(out, Item{N: n, Line: line})
	}
	return out, nil
}

func allNumbers(w []string) bool {
	for _, x := range w {
		if _, err := strconv.Atoi(x); err != nil {
			return false
		}
	}
	return true
}

func indexOf(w []string, x string) int {
	for i, y := range w {
		if y == x {
			return i
		}
	}
	return -1
}

// keyword returns the number of the line "end" or "pass" stands for.
func (r *Resolver) keyword(x string) (int, error) {
	var found []int
	for _, l := range r.Lines {
		switch {
		case x == "end" && l.Action.Type == engine.ActEndTurn:
			found = append(found, l.N)
		case x == "pass" && l.Option == engine.Pass && l.Prompt != "":
			found = append(found, l.N)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return 0, fmt.Errorf("%q could be lines %s: give the number", x, joinInts(found))
	case x == "end":
		return 0, fmt.Errorf("ending your turn is not among your moves now")
	}
	return 0, fmt.Errorf("passing is not among your moves now: no interrupt window waits for you")
}

// named returns the one line whose text the words name: the text starts
// with them (whole words, the last one may be cut short), or, past its
// first word (the verb), starts with them.
func (r *Resolver) named(w []string) (int, error) {
	var found []int
	for _, l := range r.Lines {
		t := words(fold(l.Text))
		if prefixWords(t, w) || len(t) > 1 && !verbs[w[0]] && prefixWords(t[1:], w) {
			found = append(found, l.N)
		}
	}
	phrase := strings.Join(w, " ")
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return 0, fmt.Errorf("no line of the email's list reads %q", phrase)
	}
	return 0, fmt.Errorf("%q could be lines %s: give the number, or more of the name", phrase, joinInts(found))
}

// prefixWords reports whether text starts with w: every word equal but
// the last, which may be a prefix.
func prefixWords(text, w []string) bool {
	if len(w) > len(text) {
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

// catalogCard returns the catalogue id of the card the words name: a card
// of the hand first, then any card of the catalogue.
func (r *Resolver) catalogCard(w []string) (string, error) {
	phrase := strings.Join(w, " ")
	match := func(name string) bool { return prefixWords(words(fold(name)), w) }
	var ids []string
	for _, c := range r.Hand {
		if match(c.Name) && !contains(ids, c.Card) {
			ids = append(ids, c.Card)
		}
	}
	if len(ids) == 0 && r.Catalog != nil {
		for _, c := range r.Catalog.Cards() {
			if c.Type == engine.Hack && match(c.Name) && !contains(ids, c.ID) {
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

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	if len(s) > 1 {
		return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
	}
	return strings.Join(s, "")
}

// Actions turns items into the actions they submit, in order: runs of
// line numbers through engine.Choose (options of one prompt given one
// after another are one answer), a standing answer as its action. A
// number no line has, or a choice Choose refuses, is a *CommandError
// naming the reply's line.
func (r *Resolver) Actions(items []Item) ([]engine.Action, error) {
	var out []engine.Action
	var run []int
	var runLines []string
	flush := func() error {
		if len(run) == 0 {
			return nil
		}
		acts, err := engine.Choose(r.Lines, run)
		if err != nil {
			line := runLines[0]
			if le, ok := err.(*engine.LineError); ok && le.N != 0 {
				for i, n := range run {
					if n == le.N {
						line = runLines[i]
					}
				}
			}
			return &CommandError{Line: clip(line), Reason: err.Error()}
		}
		out = append(out, acts...)
		run, runLines = run[:0], runLines[:0]
		return nil
	}
	for _, it := range items {
		if it.Standing != nil || it.Answer != nil {
			if err := flush(); err != nil {
				return nil, err
			}
			if it.Answer != nil {
				out = append(out, *it.Answer)
			} else {
				out = append(out, engine.Action{Type: engine.ActStanding, Standing: it.Standing})
			}
			continue
		}
		run, runLines = append(run, it.N), append(runLines, it.Line)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
)

// Line is one numbered line of what a seat may do, as an email numbers it,
// a reply names it by its number and a link in the email names it too.
//
// A line of a prompt that takes exactly one option, and a line of a turn
// action, is a whole Action: choosing it is submitting it. The lines of a
// prompt that takes several options (discard 2 of 8, recover 2 of 17) are
// its options, chosen together (Choose).
type Line struct {
	N      int    // the line's number, from 1
	Text   string // what it does, worded for the seat
	Prompt string // the prompt the line is an option of; "" for a turn action
	Option string // the option's id, for a line of a prompt
	// Action is what choosing the line alone submits; its Type is "" for an
	// option of a prompt that takes several.
	Action Action
}

// Whole reports whether choosing the line alone is an action.
func (l Line) Whole() bool { return l.Action.Type != "" }

// Numbered numbers moves (Moves of one seat) as lines: first each open
// prompt's options, prompt after prompt, then the turn actions, in the
// order Legal gives them, each worded once (Distinct). The same moves
// always give the same numbers, so a number written into an email at a
// version names the same line at that version.
func Numbered(moves []Move) []Line { return number(Distinct(moves)) }

// NumberedFor is Numbered(moves), and whether those are the lines an email
// carrying digest showed: lines with that Digest, or, for an email made
// before emails carried one (digest 0), lines numbered as they were then,
// when Distinct left nothing out. A reply or a link whose lines are others
// may name other moves, and is refused.
func NumberedFor(moves []Move, digest uint32) ([]Line, bool) {
	d := Distinct(moves)
	lines := number(d)
	if digest == 0 {
		return lines, lineCount(d) == lineCount(moves)
	}
	return lines, Digest(lines) == digest
}

// number numbers moves as Numbered does, each move on its own lines.
func number(moves []Move) []Line {
	out := make([]Line, 0, lineCount(moves))
	for _, m := range moves {
		if m.Type != ActAnswer {
			continue
		}
		for _, o := range m.Options {
			l := Line{N: len(out) + 1, Text: o.Text, Prompt: m.Prompt, Option: o.ID}
			if m.Min == 1 && m.Max == 1 {
				l.Action = Action{Type: ActAnswer, Prompt: m.Prompt, Choices: []string{o.ID}}
			}
			out = append(out, l)
		}
	}
	for _, m := range moves {
		if m.Type != ActAnswer {
			out = append(out, Line{N: len(out) + 1, Text: m.Text, Action: m.Action})
		}
	}
	return out
}

// Digest is a short hash of lines: their numbers, texts and actions. An
// email's reply address and links carry the digest of its lines, so that a
// number is taken only while it names the line the email showed: at the
// email's version the same lines have the same digest, unless the way the
// service numbers or words them changed in between. It is never 0.
func Digest(lines []Line) uint32 {
	h := sha256.New()
	for _, l := range lines {
		fmt.Fprintf(h, "%d\x00%s\x00%s\x00%s\x00%s\x00", l.N, l.Text, l.Prompt, l.Option, l.Action)
	}
	d := binary.BigEndian.Uint32(h.Sum(nil))
	return max(d, 1)
}

// lineCount is how many lines moves make: an option each, a turn action
// each.
func lineCount(moves []Move) int {
	n := 0
	for _, m := range moves {
		if m.Type == ActAnswer {
			n += len(m.Options)
		} else {
			n++
		}
	}
	return n
}

// LineError says why a choice of numbered lines is not an action: which
// number, and why. It is not a rule of the game: an action it lets through
// is still checked by Apply.
type LineError struct {
	N       int // the number at fault; 0 when the choice as a whole is wrong
	Problem LineProblem
	Reason  string
}

// LineProblem is what is wrong with a choice of numbered lines, for a
// caller that words it its own way.
type LineProblem int

const (
	LineNoneChosen LineProblem = iota // no number given
	LineMissing                       // N is not a line of the list
	LineTwice                         // N is given twice
	LineOneAnswer                     // N answers again a question that takes one answer
	LineApart                         // N is an option of a question whose other options came before another line
)

func (e *LineError) Error() string {
	if e.N == 0 {
		return e.Reason
	}
	return "line " + strconv.Itoa(e.N) + ": " + e.Reason
}

// Choose turns a choice of numbered lines into the actions it submits, in
// order: a whole line is its action; options of one prompt that takes
// several, given one after another, are one answer to that prompt with
// those options ("2 5": discard the cards of lines 2 and 5). A number no
// line has, a number given twice, options of one prompt split by another
// line, and two options of a prompt that takes exactly one are refused
// with a *LineError. How many options a prompt takes is Apply's to check.
func Choose(lines []Line, numbers []int) ([]Action, error) {
	if len(numbers) == 0 {
		return nil, &LineError{Problem: LineNoneChosen, Reason: "no line chosen"}
	}
	var out []Action
	open := -1 // the index in out of the answer whose options are being gathered
	for i, n := range numbers {
		if n < 1 || n > len(lines) {
			return nil, &LineError{N: n, Problem: LineMissing, Reason: fmt.Sprintf("there is no line %d (the list has %d)", n, len(lines))}
		}
		if slices.Contains(numbers[:i], n) {
			return nil, &LineError{N: n, Problem: LineTwice, Reason: "chosen twice"}
		}
		l := lines[n-1]
		gathering := open >= 0 && l.Prompt != "" && out[open].Prompt == l.Prompt
		answered := l.Prompt != "" && slices.ContainsFunc(out, func(a Action) bool { return a.Prompt == l.Prompt })
		switch {
		case answered && l.Whole():
			return nil, &LineError{N: n, Problem: LineOneAnswer, Reason: "that question takes one answer"}
		case answered && !gathering:
			return nil, &LineError{N: n, Problem: LineApart, Reason: "give the options of one question together"}
		case l.Whole():
			open = -1
			out = append(out, l.Action)
		case gathering:
			out[open].Choices = append(out[open].Choices, l.Option)
		default:
			out = append(out, Action{Type: ActAnswer, Prompt: l.Prompt, Choices: []string{l.Option}})
			open = len(out) - 1
		}
	}
	return out, nil
}

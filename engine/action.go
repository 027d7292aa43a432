package engine

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// System is the seat the service acts as, for example to submit a timeout.
const System = -1

// ActionType names an action.
type ActionType string

// The actions a seat (or the service, for timeout) can submit.
const (
	ActPlace    ActionType = "place"         // place a Monster or Lab Equipment from your hand in your Lab (card)
	ActPlayTool ActionType = "play_tool"     // play a Tool from your hand into your Software Build (card)
	ActPlayHack ActionType = "play_hack"     // play a Hack from your hand (card)
	ActClaim    ActionType = "claim"         // complete your build, claiming Market challenges (challenges)
	ActAbandon  ActionType = "abandon_build" // abandon your open build
	ActActivate ActionType = "activate"      // use an activated ability of a card in your Lab (card)
	ActEndTurn  ActionType = "end_turn"      // end your Action phase, and with it your turn
	ActAnswer   ActionType = "answer"        // answer a prompt (prompt, choices)
	ActStanding ActionType = "standing"      // set your standing interrupt answers (standing)
	ActVoteEnd  ActionType = "vote_end"      // vote to end the game as it stands
	ActResign   ActionType = "resign"        // leave the game
	ActTimeout  ActionType = "timeout"       // System only: a deadline passed
)

func (t ActionType) String() string { return string(t) }

// Action is one action. Which fields matter depends on Type.
type Action struct {
	Type       ActionType `json:"type"`
	Card       string     `json:"card,omitempty"`       // instance id of a card in your hand or Lab
	Challenges []string   `json:"challenges,omitempty"` // instance ids of Market challenges
	Prompt     string     `json:"prompt,omitempty"`     // prompt id being answered
	Choices    []string   `json:"choices,omitempty"`    // option ids chosen
	Standing   *Standing  `json:"standing,omitempty"`
}

func (a Action) String() string {
	switch {
	case a.Prompt != "":
		return fmt.Sprintf("%s %s %v", a.Type, a.Prompt, a.Choices)
	case len(a.Challenges) > 0:
		return fmt.Sprintf("%s %v", a.Type, a.Challenges)
	case a.Card != "":
		return fmt.Sprintf("%s %s", a.Type, a.Card)
	}
	return string(a.Type)
}

// PromptKind names the decision a prompt asks for.
type PromptKind string

// Prompt kinds.
const (
	PromptDiscard   PromptKind = "discard"       // choose cards of your hand to discard
	PromptKeep      PromptKind = "keep"          // choose which of two same-name cards stays in your Lab
	PromptChoose    PromptKind = "choose"        // choose one option of an effect
	PromptLook      PromptKind = "look"          // choose one of the cards you look at
	PromptRecover   PromptKind = "recover"       // choose cards of your Recycle Bin to take
	PromptPlayer    PromptKind = "target_player" // choose an opponent
	PromptCard      PromptKind = "target_card"   // choose a card in a Lab
	PromptRefresh   PromptKind = "refresh"       // choose Market challenges to put away
	PromptInterrupt PromptKind = "interrupt"     // play an interrupt Hack, or pass
)

func (k PromptKind) String() string { return string(k) }

// Pass is the option id that declines an interrupt window.
const Pass = "pass"

// Option is one element of a prompt's answers: an answer names between the
// prompt's Min and Max distinct option ids.
type Option struct {
	ID   string `json:"id"`
	Card string `json:"card,omitempty"` // card id, when the option is a card
	Text string `json:"text"`           // what choosing it does, for the prompt's seat ("Discard Data Lake (TECH 0, SCI 2)", "Pass")
}

// UnmarshalJSON reads an option; one stored before options had a text gives
// its "label" as the text.
func (o *Option) UnmarshalJSON(data []byte) error {
	var w struct {
		ID    string `json:"id"`
		Card  string `json:"card"`
		Text  string `json:"text"`
		Label string `json:"label"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*o = Option{ID: w.ID, Card: w.Card, Text: cmp.Or(w.Text, w.Label)}
	return nil
}

// Prompt is a decision that a seat owes. It describes every answer at
// once: an answer names between Min and Max distinct ids of Options, in any
// order (Check). Text says what is asked, for the prompt's seat.
type Prompt struct {
	ID      string     `json:"id"`
	Seat    int        `json:"seat"`
	Kind    PromptKind `json:"kind"`
	Text    string     `json:"text"`
	Min     int        `json:"min"`
	Max     int        `json:"max"`
	Options []Option   `json:"options"`
	Event   EventKind  `json:"event,omitempty"` // interrupt: the proposed event
	Actor   int        `json:"actor"`           // interrupt: who proposed it; otherwise the prompt's seat
	Source  string     `json:"source,omitempty"`
}

// Default is the answer a timeout gives: pass, or the first Min options.
func (p *Prompt) Default() []string {
	if p.Kind == PromptInterrupt {
		return []string{Pass}
	}
	out := make([]string, 0, p.Min)
	for _, o := range p.Options[:p.Min] {
		out = append(out, o.ID)
	}
	return out
}

// Check reports why choices are not an answer to p, naming the prompt and
// the offending option, or nil if p admits them: between Min and Max
// choices, each the id of one of p's options, none twice.
func (p *Prompt) Check(choices []string) error {
	return p.check(choices, explain)
}

func (p *Prompt) check(choices []string, v verdict) error {
	if len(choices) < p.Min || len(choices) > p.Max {
		return v.fail(ErrAnswer, func() string {
			if p.Min == p.Max {
				return fmt.Sprintf("prompt %s (%s) takes exactly %s, got %d", p.ID, p.Kind, plural(p.Min, "choice"), len(choices))
			}
			return fmt.Sprintf("prompt %s (%s) takes %d to %d choices, got %d", p.ID, p.Kind, p.Min, p.Max, len(choices))
		})
	}
	for k, ch := range choices {
		if !slices.ContainsFunc(p.Options, func(o Option) bool { return o.ID == ch }) {
			return v.fail(ErrAnswer, func() string { return fmt.Sprintf("%q is not an option of prompt %s (%s)", ch, p.ID, p.Kind) })
		}
		if slices.Contains(choices[:k], ch) {
			return v.fail(ErrAnswer, func() string {
				return fmt.Sprintf("option %q (%s) is chosen twice in the answer to prompt %s", ch, p.optionText(ch), p.ID)
			})
		}
	}
	return nil
}

// optionText is the text of the option with id, or "" if p has none.
func (p *Prompt) optionText(id string) string {
	for _, o := range p.Options {
		if o.ID == id {
			return o.Text
		}
	}
	return ""
}

// IllegalActionError says why an action is not legal. Code is stable and
// machine-readable; Reason is for people and names the card or rule. It
// matches the sentinel errors below with errors.Is.
type IllegalActionError struct {
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

func (e *IllegalActionError) Error() string {
	if e.Reason == "" {
		return e.Code
	}
	return e.Reason
}

// Is matches errors with the same Code.
func (e *IllegalActionError) Is(target error) bool {
	var t *IllegalActionError
	return errors.As(target, &t) && t.Code == e.Code
}

// Sentinel errors, one per kind of illegal action.
var (
	ErrGameOver    = &IllegalActionError{Code: "game_over"}
	ErrNotYourTurn = &IllegalActionError{Code: "not_your_turn"}
	ErrWrongPhase  = &IllegalActionError{Code: "wrong_phase"}
	ErrWaiting     = &IllegalActionError{Code: "waiting_for_prompt"}
	ErrNoCard      = &IllegalActionError{Code: "no_such_card"}
	ErrCardType    = &IllegalActionError{Code: "wrong_card_type"}
	ErrRequirement = &IllegalActionError{Code: "requirement_not_met"}
	ErrLimit       = &IllegalActionError{Code: "limit"}
	ErrPlacement   = &IllegalActionError{Code: "placement"}
	ErrBuild       = &IllegalActionError{Code: "build"}
	ErrNoPrompt    = &IllegalActionError{Code: "no_such_prompt"}
	ErrAnswer      = &IllegalActionError{Code: "bad_answer"}
	ErrActivated   = &IllegalActionError{Code: "ability"}
	ErrBadAction   = &IllegalActionError{Code: "bad_action"}
)

// illegal builds an IllegalActionError of the sentinel's kind.
func illegal(kind *IllegalActionError, format string, a ...any) error {
	return &IllegalActionError{Code: kind.Code, Reason: fmt.Sprintf(format, a...)}
}

// Event is something that happened. Events with private content are only
// shown to Only; everyone else sees Public, their redacted twin, or nothing.
type Event struct {
	Kind   string    `json:"kind"`
	Seat   int       `json:"seat"`             // who did it; -1 for the game itself
	Card   string    `json:"card,omitempty"`   // card id
	Inst   string    `json:"inst,omitempty"`   // instance id
	Cards  []string  `json:"cards,omitempty"`  // card ids
	Insts  []string  `json:"insts,omitempty"`  // instance ids
	N      int       `json:"n,omitempty"`      // a count
	Target int       `json:"target,omitempty"` // another seat involved
	On     EventKind `json:"on,omitempty"`     // the proposed event concerned
	Prompt string    `json:"prompt,omitempty"`
	Scores []int     `json:"scores,omitempty"`
	Seats  []int     `json:"seats,omitempty"`
	Text   string    `json:"text"`
	Only   []int     `json:"only,omitempty"`   // seats that may see this event as is
	Public *Event    `json:"public,omitempty"` // what everyone else sees
}

// For returns the version of e that seat (or a spectator, seat < 0) may see,
// and false if they see nothing.
func (e Event) For(seat int) (Event, bool) {
	if e.Only == nil {
		e.Public = nil
		return e, true
	}
	for _, s := range e.Only {
		if s == seat {
			e.Only, e.Public = nil, nil
			return e, true
		}
	}
	if e.Public == nil {
		return Event{}, false
	}
	return e.Public.For(seat)
}

// EventsFor filters and redacts events for seat (a spectator when seat < 0).
func EventsFor(events []Event, seat int) []Event {
	out := make([]Event, 0, len(events))
	for _, e := range events {
		if v, ok := e.For(seat); ok {
			out = append(out, v)
		}
	}
	return out
}

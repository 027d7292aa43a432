package engine

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A scenario sets up a game position, runs a list of steps (actions and
// prompt answers) and checks expected outcomes after each. docs/scenarios.md
// is the reference of the file format. Scenarios are the engine's rule
// tests, puzzle and tutorial setups, and the bug-report format.

// Scenario is a parsed scenario file.
type Scenario struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Cards are inline card definitions, added to the standard card set.
	Cards []Card `yaml:"cards"`
	// Setup starts the game with NewGame instead of a written position.
	Setup *ScenarioSetup `yaml:"setup"`

	// The position, when Setup is nil.
	Seed          uint64           `yaml:"seed"`
	Mode          Mode             `yaml:"mode"`
	Office        bool             `yaml:"office"`
	Policy        Policy           `yaml:"policy"`
	Players       []ScenarioPlayer `yaml:"players"`
	SharedDeck    []string         `yaml:"shared_deck"`
	SharedBin     []string         `yaml:"shared_bin"`
	Market        []string         `yaml:"market"`
	ChallengeDeck []string         `yaml:"challenge_deck"`
	Global        []ScenarioGlobal `yaml:"global"`
	Build         *ScenarioBuild   `yaml:"build"`
	Active        int              `yaml:"active"`
	Turn          int              `yaml:"turn"`
	Phase         Phase            `yaml:"phase"`

	// Expect is checked after the setup (step 0).
	Expect *Expect        `yaml:"expect"`
	Steps  []ScenarioStep `yaml:"steps"`
}

// ScenarioSetup is a game started by NewGame.
type ScenarioSetup struct {
	Seed       uint64              `yaml:"seed"`
	Mode       Mode                `yaml:"mode"`
	Office     bool                `yaml:"office"`
	Policy     Policy              `yaml:"policy"`
	OfficeDeck *ScenarioDeck       `yaml:"office_deck"`
	Players    []ScenarioSetupSeat `yaml:"players"`
}

// ScenarioSetupSeat is one seat of a NewGame setup.
type ScenarioSetupSeat struct {
	Name string       `yaml:"name"`
	Deck ScenarioDeck `yaml:"deck"`
}

// ScenarioDeck is a deck list: the id of a prebuilt deck, a list of card
// ids (one per copy), or a list of {card, count} entries.
type ScenarioDeck struct {
	Deck Deck
}

// UnmarshalYAML accepts the three deck forms.
func (d *ScenarioDeck) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		deck, ok := Standard().Deck(n.Value)
		if !ok {
			return fmt.Errorf("line %d: no prebuilt deck %q", n.Line, n.Value)
		}
		d.Deck = deck
		return nil
	case yaml.SequenceNode:
		d.Deck = Deck{ID: "scenario", Name: "Scenario deck"}
		for _, item := range n.Content {
			if item.Kind == yaml.ScalarNode {
				d.add(item.Value, 1)
				continue
			}
			var e DeckEntry
			if err := item.Decode(&e); err != nil {
				return err
			}
			d.add(e.Card, e.Count)
		}
		return nil
	}
	return fmt.Errorf("line %d: a deck is a prebuilt deck id or a list of cards", n.Line)
}

func (d *ScenarioDeck) add(card string, count int) {
	if k := len(d.Deck.Cards) - 1; k >= 0 && d.Deck.Cards[k].Card == card {
		d.Deck.Cards[k].Count += count
		return
	}
	d.Deck.Cards = append(d.Deck.Cards, DeckEntry{Card: card, Count: count})
}

// ScenarioPlayer is one seat of a written position. Cards are named by card
// id; the runner gives every card an instance id.
type ScenarioPlayer struct {
	Name     string            `yaml:"name"`
	Hand     []string          `yaml:"hand"`
	Deck     []string          `yaml:"deck"` // top first
	Bin      []string          `yaml:"bin"`
	Lab      []string          `yaml:"lab"`
	Ranking  []string          `yaml:"ranking"`
	DeckList []string          `yaml:"deck_list"` // default: every card id the seat has anywhere
	Limited  bool              `yaml:"limited"`
	Used     []string          `yaml:"used"` // Lab card ids whose ability was used this turn
	Resigned bool              `yaml:"resigned"`
	VotedEnd bool              `yaml:"voted_end"`
	Standing *ScenarioStanding `yaml:"standing"`
}

// ScenarioStanding is a seat's standing interrupt answers.
type ScenarioStanding struct {
	Pass  bool `yaml:"pass"`
	Plays []struct {
		On   EventKind `yaml:"on"`
		Card string    `yaml:"card"`
	} `yaml:"plays"`
}

func (st *ScenarioStanding) standing() *Standing {
	out := &Standing{Pass: st.Pass}
	for _, p := range st.Plays {
		out.Plays = append(out.Plays, StandingPlay{On: p.On, Card: p.Card})
	}
	return out
}

// ScenarioGlobal is a card in the Global zone.
type ScenarioGlobal struct {
	Card  string `yaml:"card"`
	Owner int    `yaml:"owner"`
}

// ScenarioBuild is an open Software Build of the active player. Tech and
// Sci default to the printed values of the Tools.
type ScenarioBuild struct {
	Tools []string `yaml:"tools"`
	Tech  *int     `yaml:"tech"`
	Sci   *int     `yaml:"sci"`
}

// StringList is a YAML scalar or list of strings.
type StringList []string

// UnmarshalYAML accepts a scalar as a one-element list.
func (l *StringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = StringList{n.Value}
		return nil
	}
	var out []string
	if err := n.Decode(&out); err != nil {
		return err
	}
	*l = out
	return nil
}

// ScenarioStep is one step: an action, an answer, a batch, or only checks.
type ScenarioStep struct {
	Note string `yaml:"note"`
	// Seat acting. Default: the active seat for actions, System for
	// timeout, the owner of the prompt for answers.
	Seat *int `yaml:"seat"`
	// Do is the action type (place, play_tool, play_hack, claim,
	// abandon_build, activate, end_turn, answer, standing, vote_end, resign,
	// timeout). It may be left out when Answer is given.
	Do         ActionType        `yaml:"do"`
	Card       string            `yaml:"card"`
	Challenges StringList        `yaml:"challenges"`
	Prompt     string            `yaml:"prompt"`
	Answer     *StringList       `yaml:"answer"`
	Standing   *ScenarioStanding `yaml:"standing"`
	// Batch submits several actions of one seat with ApplyBatch.
	Batch    []ScenarioStep    `yaml:"batch"`
	Remember map[string]Locate `yaml:"remember"`
	Expect   *Expect           `yaml:"expect"`
}

// Locate names a card instance: the first (or Nth) card with that card id
// in a seat's zone. Remember stores its instance id under a name; $name in
// card fields and visibility checks stands for it.
type Locate struct {
	Seat int    `yaml:"seat"`
	Zone string `yaml:"zone"` // hand, deck, bin, lab, ranking, market, global, build
	Card string `yaml:"card"`
}

// Expect lists expected outcomes of a step. Every field is optional.
type Expect struct {
	Error *ErrorExpect `yaml:"error"`

	Phase          *Phase        `yaml:"phase"`
	Active         *int          `yaml:"active"`
	Turn           *int          `yaml:"turn"`
	Over           *bool         `yaml:"over"`
	Winners        *[]int        `yaml:"winners"`
	Awaiting       *[]int        `yaml:"awaiting"`
	Market         *StringList   `yaml:"market"`
	MarketCount    *int          `yaml:"market_count"`
	ChallengeDeck  *int          `yaml:"challenge_deck_count"`
	Global         *StringList   `yaml:"global"`
	SharedDeck     *int          `yaml:"shared_deck_count"`
	SharedBin      *StringList   `yaml:"shared_bin"`
	SharedBinCount *int          `yaml:"shared_bin_count"`
	Build          *BuildExpect  `yaml:"build"`
	Window         *WindowExpect `yaml:"window"`
	Queued         *int          `yaml:"queued"`
	// Challenges counts the game's challenges (Market, Challenge Deck and
	// Rankings) that are basic and hard.
	Challenges *ChallengeMix       `yaml:"challenges"`
	Seats      map[int]*SeatExpect `yaml:"seats"`
	Events     []EventExpect       `yaml:"events"`
	Visible    []VisibleExpect     `yaml:"visible"`
	Legal      []LegalExpect       `yaml:"legal"`
}

// ErrorExpect is an expected illegal-action error: a code, a substring of
// the reason, or both. As a scalar it matches either.
type ErrorExpect struct {
	Code     string `yaml:"code"`
	Contains string `yaml:"contains"`
	scalar   string
}

// UnmarshalYAML accepts a scalar or a {code, contains} map.
func (e *ErrorExpect) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		e.scalar = n.Value
		return nil
	}
	type plain ErrorExpect
	var p plain
	if err := decodeStrict(n, &p); err != nil {
		return err
	}
	*e = ErrorExpect(p)
	return nil
}

func (e *ErrorExpect) String() string {
	if e.scalar != "" {
		return fmt.Sprintf("an error %q", e.scalar)
	}
	var parts []string
	if e.Code != "" {
		parts = append(parts, "code "+e.Code)
	}
	if e.Contains != "" {
		parts = append(parts, fmt.Sprintf("reason containing %q", e.Contains))
	}
	if len(parts) == 0 {
		return "an error"
	}
	return "an error with " + strings.Join(parts, " and ")
}

func (e *ErrorExpect) match(err error) bool {
	code := ""
	var ia *IllegalActionError
	if errors.As(err, &ia) {
		code = ia.Code
	}
	msg := err.Error()
	if e.scalar != "" {
		return code == e.scalar || strings.Contains(msg, e.scalar)
	}
	if e.Code != "" && code != e.Code {
		var de *DeckError
		if !errors.As(err, &de) || string(de.Rule) != e.Code {
			return false
		}
	}
	return e.Contains == "" || strings.Contains(msg, e.Contains)
}

// ChallengeMix counts basic and hard challenges.
type ChallengeMix struct {
	Basic *int `yaml:"basic"`
	Hard  *int `yaml:"hard"`
}

// SeatExpect lists expected facts about one seat. Card lists compare as
// multisets of card ids, except Deck, which is in order, top first.
type SeatExpect struct {
	Hand         *StringList     `yaml:"hand"`
	HandHas      *StringList     `yaml:"hand_has"`
	HandLacks    *StringList     `yaml:"hand_lacks"`
	HandCount    *int            `yaml:"hand_count"`
	Deck         *StringList     `yaml:"deck"`
	DeckHas      *StringList     `yaml:"deck_has"`
	DeckCount    *int            `yaml:"deck_count"`
	Bin          *StringList     `yaml:"bin"`
	BinHas       *StringList     `yaml:"bin_has"`
	BinCount     *int            `yaml:"bin_count"`
	Lab          *StringList     `yaml:"lab"`
	LabHas       *StringList     `yaml:"lab_has"`
	LabLacks     *StringList     `yaml:"lab_lacks"`
	LabCount     *int            `yaml:"lab_count"`
	Ranking      *StringList     `yaml:"ranking"`
	RankingCount *int            `yaml:"ranking_count"`
	Score        *int            `yaml:"score"`
	Limited      *bool           `yaml:"limited"`
	Resigned     *bool           `yaml:"resigned"`
	VotedEnd     *bool           `yaml:"voted_end"`
	Prompts      *[]PromptExpect `yaml:"prompts"`
	PromptCount  *int            `yaml:"prompt_count"`
}

// PromptExpect describes an open prompt. Options compare as a multiset;
// each expected option matches an option by id, card id or text.
type PromptExpect struct {
	Kind    PromptKind  `yaml:"kind"`
	Min     *int        `yaml:"min"`
	Max     *int        `yaml:"max"`
	Event   EventKind   `yaml:"event"`
	Actor   *int        `yaml:"actor"`
	Options *StringList `yaml:"options"`
	Text    string      `yaml:"text"` // substring
}

// BuildExpect describes the open Software Build.
type BuildExpect struct {
	Open  *bool       `yaml:"open"`
	Tech  *int        `yaml:"tech"`
	Sci   *int        `yaml:"sci"`
	Tools *StringList `yaml:"tools"`
}

// WindowExpect describes the open interrupt window as every seat sees it.
type WindowExpect struct {
	Open     *bool     `yaml:"open"`
	On       EventKind `yaml:"on"`
	Actor    *int      `yaml:"actor"`
	Seats    *[]int    `yaml:"seats"`
	Answered *[]int    `yaml:"answered"`
}

// EventExpect matches one event of the step. Expected events are found in
// order (other events may come between them). With As set, the events are
// those seat As sees (-1: a spectator), redacted; otherwise the full events.
// With Not, no event of the step may match.
type EventExpect struct {
	Kind   string      `yaml:"kind"`
	As     *int        `yaml:"as"`
	Not    bool        `yaml:"not"`
	Seat   *int        `yaml:"seat"`
	Card   string      `yaml:"card"`
	Cards  *StringList `yaml:"cards"`
	N      *int        `yaml:"n"`
	Target *int        `yaml:"target"`
	On     EventKind   `yaml:"on"`
	Seats  *[]int      `yaml:"seats"`
	Scores *[]int      `yaml:"scores"`
	Text   string      `yaml:"text"`   // substring
	Hidden bool        `yaml:"hidden"` // no card or instance ids in the event
}

// VisibleExpect checks what a seat can see: its View (as JSON) and the
// step's events as redacted for it. Has must all appear in the view; Lacks
// must appear in neither the view nor the events. $name stands for a
// remembered instance id.
type VisibleExpect struct {
	Seat  int        `yaml:"seat"`
	Has   StringList `yaml:"has"`
	Lacks StringList `yaml:"lacks"`
}

// LegalExpect checks Legal for a seat: Has lists actions that must be
// listed, Lacks actions that must not be; Count the number listed. Each
// action is written as "type" or "type card-id"; an open prompt is listed
// once, as "answer KIND" (its answers are not enumerated).
type LegalExpect struct {
	Seat  int        `yaml:"seat"`
	Has   StringList `yaml:"has"`
	Lacks StringList `yaml:"lacks"`
	Count *int       `yaml:"count"`
	// Says lists pieces of text, each of which the text of some listed
	// action or of an option of a listed prompt (Moves) must contain.
	Says StringList `yaml:"says"`
	// Agree checks that every listed action is accepted by Apply (on a
	// copy), that a listed prompt admits exactly the answers Apply accepts
	// (every selection of up to 10 options, or a sample of larger ones,
	// with a repeated and an unknown option), and that no other action a
	// step could submit is accepted.
	Agree bool `yaml:"agree"`
}

// ScenarioFailure is one expectation that did not hold.
type ScenarioFailure struct {
	Step     int    `json:"step"` // 0: the setup
	Note     string `json:"note,omitempty"`
	What     string `json:"what"`
	Expected string `json:"expected"`
	Found    string `json:"found"`
}

func (f ScenarioFailure) String() string {
	step := fmt.Sprintf("step %d", f.Step)
	if f.Step == 0 {
		step = "setup"
	}
	if f.Note != "" {
		step += " (" + f.Note + ")"
	}
	return fmt.Sprintf("%s: %s: expected %s, found %s", step, f.What, f.Expected, f.Found)
}

// ScenarioEvent is an event with the step that emitted it.
type ScenarioEvent struct {
	Step int `json:"step"`
	Event
}

// ScenarioResult is the outcome of a scenario: the final views (one per
// seat, then a spectator's), every event, and the failed expectations.
type ScenarioResult struct {
	Name      string            `json:"name,omitempty"`
	Views     []*View           `json:"views"`
	Spectator *View             `json:"spectator"`
	Events    []ScenarioEvent   `json:"events"`
	Failures  []ScenarioFailure `json:"failures"`
	// State is the final state, for Go tests; it is never printed.
	State *State `json:"-"`
}

// Failed reports whether any expectation failed.
func (r *ScenarioResult) Failed() bool { return len(r.Failures) > 0 }

// ParseScenario reads a scenario file. Unknown fields are errors.
func ParseScenario(data []byte) (*Scenario, error) {
	var sc Scenario
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil && err != io.EOF {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return &sc, nil
}

func decodeStrict(n *yaml.Node, v any) error {
	data, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	return dec.Decode(v)
}

// RunScenario parses and runs a scenario. The error is for a file that
// cannot be read or a position that cannot be set up (unless the setup
// step expects that error); failed expectations are in the result.
func RunScenario(data []byte) (*ScenarioResult, error) {
	sc, err := ParseScenario(data)
	if err != nil {
		return nil, err
	}
	return sc.Run()
}

// runner holds a scenario run in progress.
type runner struct {
	sc    *Scenario
	s     *State
	res   *ScenarioResult
	step  int
	note  string
	vars  map[string]string
	after func(step int, s *State, events []Event)
	// raw is set while resolving a step that expects an error: a card or
	// option that cannot be found is passed to the engine as written, so
	// that the engine's own rejection can be checked.
	raw bool
}

func (r *runner) fail(what, expected, found string) {
	r.res.Failures = append(r.res.Failures, ScenarioFailure{Step: r.step, Note: r.note, What: what, Expected: expected, Found: found})
}

// Run runs a parsed scenario.
func (sc *Scenario) Run() (*ScenarioResult, error) { return sc.run(nil) }

// run runs the scenario; after calls after the setup and after every step
// with the state and the step's events (tests use it for invariants).
func (sc *Scenario) run(after func(step int, s *State, events []Event)) (*ScenarioResult, error) {
	r := &runner{sc: sc, res: &ScenarioResult{Name: sc.Name, Events: []ScenarioEvent{}, Failures: []ScenarioFailure{}}, vars: map[string]string{}, after: after}
	var events []Event
	var err error
	if sc.Setup != nil {
		r.s, events, err = sc.newGame()
	} else {
		r.s, events, err = sc.position()
	}
	if err != nil {
		if sc.Expect != nil && sc.Expect.Error != nil {
			if !sc.Expect.Error.match(err) {
				r.fail("setup error", sc.Expect.Error.String(), fmt.Sprintf("%q", err))
			}
			return r.res, nil
		}
		return nil, err
	}
	if sc.Expect != nil && sc.Expect.Error != nil {
		r.fail("setup error", sc.Expect.Error.String(), "no error")
	}
	r.record(events)
	if sc.Expect != nil {
		r.check(sc.Expect, nil, events)
	}
	for i := range sc.Steps {
		r.step, r.note = i+1, sc.Steps[i].Note
		r.raw = sc.Steps[i].Expect != nil && sc.Steps[i].Expect.Error != nil
		if !r.run(&sc.Steps[i]) {
			break
		}
	}
	r.res.State = r.s
	for i := range r.s.Players {
		r.res.Views = append(r.res.Views, r.s.View(i))
	}
	r.res.Spectator = r.s.View(Spectator)
	return r.res, nil
}

func (r *runner) record(events []Event) {
	if r.after != nil {
		r.after(r.step, r.s, events)
	}
	for _, e := range events {
		if !IsEventKind(e.Kind) {
			r.fail("events", "events of the kinds EventKinds lists", eventString(e))
		}
		r.res.Events = append(r.res.Events, ScenarioEvent{Step: r.step, Event: e})
	}
}

// newGame starts the game with NewGame.
func (sc *Scenario) newGame() (*State, []Event, error) {
	if len(sc.Players) > 0 || len(sc.Market) > 0 || len(sc.ChallengeDeck) > 0 || sc.Build != nil || len(sc.Global) > 0 {
		return nil, nil, errors.New("scenario: setup and a written position (players, market, ...) exclude each other")
	}
	su := sc.Setup
	setup := Setup{Seed: su.Seed, Mode: su.Mode, Office: su.Office, Policy: su.Policy, Cards: sc.Cards}
	if su.OfficeDeck != nil {
		setup.OfficeDeck = su.OfficeDeck.Deck
	}
	for _, p := range su.Players {
		setup.Players = append(setup.Players, SeatSetup{Name: p.Name, Deck: p.Deck.Deck})
	}
	return NewGame(setup)
}

// position builds the written position.
func (sc *Scenario) position() (*State, []Event, error) {
	n := len(sc.Players)
	if n < MinPlayers || n > MaxPlayers {
		return nil, nil, fmt.Errorf("scenario: %d players, the game takes %d to %d", n, MinPlayers, MaxPlayers)
	}
	cat, err := Standard().with(sc.Cards)
	if err != nil {
		return nil, nil, fmt.Errorf("scenario: inline cards: %w", err)
	}
	s := &State{Secret: SeedSecret(sc.Seed), Mode: sc.Mode, Office: sc.Office, Policy: sc.Policy, Extra: sc.Cards, cat: cat,
		Players: make([]Player, n), Active: sc.Active, Turn: sc.Turn, Phase: PhaseAction}
	if s.Mode == "" {
		s.Mode = ModeStandard
	}
	if s.Policy == "" {
		s.Policy = Holders
	}
	if s.Mode != ModeStandard && s.Mode != ModeFast {
		return nil, nil, fmt.Errorf("scenario: mode %q (standard or fast)", s.Mode)
	}
	if s.Policy != Holders && s.Policy != Conceal {
		return nil, nil, fmt.Errorf("scenario: policy %q (holders or conceal)", s.Policy)
	}
	if s.Turn == 0 {
		s.Turn = 1
	}
	if s.Active < 0 || s.Active >= n {
		return nil, nil, fmt.Errorf("scenario: active seat %d of %d", s.Active, n)
	}
	var bad error
	zone := func(where string, ids []string, types ...CardType) []Inst {
		out := make([]Inst, 0, len(ids))
		for _, id := range ids {
			c := cat.Card(id)
			switch {
			case c == nil:
				bad = cmp.Or(bad, fmt.Errorf("scenario: %s: unknown card %q", where, id))
			case len(types) > 0 && !slices.Contains(types, c.Type):
				bad = cmp.Or(bad, fmt.Errorf("scenario: %s: %s is a %s", where, id, c.Type.Title()))
			}
			out = append(out, Inst{ID: s.newID(), Card: id})
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	labTypes := []CardType{Monster, LabEquipment, Tool, Hack}
	for i, sp := range sc.Players {
		p := &s.Players[i]
		where := fmt.Sprintf("seat %d", i)
		p.Name = sp.Name
		p.Hand = zone(where+" hand", sp.Hand, labTypes...)
		p.Deck = zone(where+" deck", sp.Deck, labTypes...)
		p.Bin = zone(where+" bin", sp.Bin, labTypes...)
		p.Lab = zone(where+" lab", sp.Lab, Monster, LabEquipment)
		p.Ranking = zone(where+" ranking", sp.Ranking, Challenge)
		p.Limited, p.Resigned, p.VotedEnd = sp.Limited, sp.Resigned, sp.VotedEnd
		if sc.Office && (len(sp.Deck) > 0 || len(sp.Bin) > 0) {
			bad = cmp.Or(bad, fmt.Errorf("scenario: %s: the office variant uses shared_deck and shared_bin", where))
		}
		for _, id := range sp.Used {
			in, ok := nth(p.Lab, id)
			if !ok {
				bad = cmp.Or(bad, fmt.Errorf("scenario: %s used: %s is not in the Lab", where, id))
				continue
			}
			p.Used = append(p.Used, in.ID)
		}
		p.DeckList = sp.DeckList
		if p.DeckList == nil {
			p.DeckList = distinct(slices.Concat(sp.Hand, sp.Deck, sp.Bin, sp.Lab, sc.SharedDeck, sc.SharedBin))
		}
		zone(where+" deck_list", p.DeckList)
		if sp.Standing != nil {
			st := sp.Standing.standing()
			if err := s.checkStanding(st, explain); err != nil {
				bad = cmp.Or(bad, fmt.Errorf("scenario: %s standing: %w", where, err))
			}
			p.Standing = *st
		}
	}
	s.SharedDeck = zone("shared_deck", sc.SharedDeck, labTypes...)
	s.SharedBin = zone("shared_bin", sc.SharedBin, labTypes...)
	s.Market = zone("market", sc.Market, Challenge)
	s.ChallengeDeck = zone("challenge_deck", sc.ChallengeDeck, Challenge)
	for _, gl := range sc.Global {
		in := zone("global", []string{gl.Card}, Hack)
		if gl.Owner < 0 || gl.Owner >= n {
			bad = cmp.Or(bad, fmt.Errorf("scenario: global %s: owner %d", gl.Card, gl.Owner))
		}
		s.Global = append(s.Global, Global{Inst: in[0], Owner: gl.Owner})
	}
	if sc.Build != nil {
		b := &Build{Tools: zone("build", sc.Build.Tools, Tool)}
		for _, t := range b.Tools {
			b.Tech += cat.Card(t.Card).Tech
			b.Sci += cat.Card(t.Card).Sci
		}
		if sc.Build.Tech != nil {
			b.Tech = *sc.Build.Tech
		}
		if sc.Build.Sci != nil {
			b.Sci = *sc.Build.Sci
		}
		s.Build = b
	}
	if bad != nil {
		return nil, nil, bad
	}
	g := &game{s: s}
	switch cmp.Or(sc.Phase, PhaseAction) {
	case PhaseAction:
	case PhaseBeginning:
		g.push(Task{Kind: TaskAction, Seat: s.Active}, Task{Kind: TaskHandLimit, Seat: s.Active}, Task{Kind: TaskDraw, Seat: s.Active}, Task{Kind: TaskBegin, Seat: s.Active})
	case PhaseDraw:
		g.push(Task{Kind: TaskAction, Seat: s.Active}, Task{Kind: TaskHandLimit, Seat: s.Active}, Task{Kind: TaskDraw, Seat: s.Active})
	case PhaseEnd:
		g.push(Task{Kind: TaskNext, Seat: s.Active}, Task{Kind: TaskEnd, Seat: s.Active})
	default:
		return nil, nil, fmt.Errorf("scenario: phase %q (beginning, draw, action or end)", sc.Phase)
	}
	g.loop()
	s.Version = 1
	return s, g.events, nil
}

// nth finds the instance of a card: "card" is the first copy, "card#2" the
// second.
func nth(pile []Inst, ref string) (Inst, bool) {
	id, k := ref, 1
	if i := strings.LastIndexByte(ref, '#'); i > 0 {
		if v, err := strconv.Atoi(ref[i+1:]); err == nil && v > 0 {
			id, k = ref[:i], v
		}
	}
	for _, in := range pile {
		if in.Card == id || in.ID == id {
			if k--; k == 0 {
				return in, true
			}
		}
	}
	return Inst{}, false
}

// zone returns a seat's zone by name.
func (r *runner) zone(seat int, name string) ([]Inst, error) {
	s := r.s
	switch name {
	case "market":
		return s.Market, nil
	case "challenge_deck":
		return s.ChallengeDeck, nil
	case "global":
		var out []Inst
		for _, g := range s.Global {
			out = append(out, g.Inst)
		}
		return out, nil
	case "build":
		if s.Build == nil {
			return nil, nil
		}
		return s.Build.Tools, nil
	}
	if seat < 0 || seat >= len(s.Players) {
		return nil, fmt.Errorf("no seat %d", seat)
	}
	p := &s.Players[seat]
	switch name {
	case "hand":
		return p.Hand, nil
	case "deck":
		return *s.deck(seat), nil
	case "bin":
		return *s.bin(seat), nil
	case "lab":
		return p.Lab, nil
	case "ranking":
		return p.Ranking, nil
	}
	return nil, fmt.Errorf("unknown zone %q", name)
}

// resolve turns a card reference into an instance id of pile. Already used
// instances (earlier in the same batch) are skipped.
func (r *runner) resolve(pile []Inst, ref, where string, used map[string]bool) (string, error) {
	if v, ok := r.vars[strings.TrimPrefix(ref, "$")]; ok && strings.HasPrefix(ref, "$") {
		return v, nil
	}
	var free []Inst
	for _, in := range pile {
		if !used[in.ID] {
			free = append(free, in)
		}
	}
	in, ok := nth(free, ref)
	if !ok {
		// Naming a card again (for example the same challenge twice) is
		// left to the engine to judge.
		if in, ok = nth(pile, ref); !ok {
			if r.raw {
				return ref, nil
			}
			return "", fmt.Errorf("%s has no %s (it has %s)", where, ref, cardIDs(pile))
		}
	}
	used[in.ID] = true
	return in.ID, nil
}

// action resolves a step into an action and the seat that submits it.
func (r *runner) action(st *ScenarioStep, used map[string]bool) (int, Action, error) {
	s := r.s
	a := Action{Type: st.Do}
	if a.Type == "" && st.Answer != nil {
		a.Type = ActAnswer
	}
	seat := s.Active
	if a.Type == ActTimeout {
		seat = System
	}
	if st.Seat != nil {
		seat = *st.Seat
	}
	switch a.Type {
	case "":
		return 0, a, errors.New("the step has no action (do:)")
	case ActPlace, ActPlayTool, ActPlayHack, ActActivate:
		if st.Card == "" {
			return 0, a, fmt.Errorf("%s needs card:", a.Type)
		}
		zone := "hand"
		if a.Type == ActActivate {
			zone = "lab"
		}
		pile, err := r.zone(seat, zone)
		if err != nil {
			return 0, a, err
		}
		id, err := r.resolve(pile, st.Card, fmt.Sprintf("seat %d's %s", seat, zone), used)
		if err != nil {
			return 0, a, err
		}
		a.Card = id
	case ActClaim:
		for _, ref := range st.Challenges {
			id, err := r.resolve(s.Market, ref, "the Market", used)
			if err != nil {
				return 0, a, err
			}
			a.Challenges = append(a.Challenges, id)
		}
	case ActStanding:
		if st.Standing == nil {
			return 0, a, errors.New("standing needs standing:")
		}
		a.Standing = st.Standing.standing()
	case ActAnswer:
		p, err := r.findPrompt(st)
		if err != nil && r.raw && st.Prompt != "" {
			p, err = &Prompt{ID: st.Prompt, Seat: seat}, nil
		}
		if err != nil {
			return 0, a, err
		}
		if st.Seat == nil {
			seat = p.Seat
		}
		a.Prompt = p.ID
		if st.Answer == nil {
			return 0, a, errors.New("answer needs answer:")
		}
		taken := map[string]bool{}
		a.Choices = []string{}
		for _, tok := range *st.Answer {
			id, err := matchOption(p, tok, taken)
			if err != nil && r.raw {
				id, err = tok, nil
			}
			if err != nil {
				return 0, a, err
			}
			a.Choices = append(a.Choices, id)
		}
	}
	return seat, a, nil
}

// findPrompt picks the prompt a step answers: by id ("p7"), by position
// among the seat's open prompts ("2"), or the seat's first open prompt.
func (r *runner) findPrompt(st *ScenarioStep) (*Prompt, error) {
	s := r.s
	var mine []*Prompt
	for i := range s.Prompts {
		if st.Seat == nil || s.Prompts[i].Seat == *st.Seat {
			mine = append(mine, &s.Prompts[i])
		}
	}
	who := "the game"
	if st.Seat != nil {
		who = fmt.Sprintf("seat %d", *st.Seat)
	}
	if st.Prompt != "" {
		if k, err := strconv.Atoi(st.Prompt); err == nil {
			if k < 1 || k > len(mine) {
				return nil, fmt.Errorf("%s has %d open prompts, no prompt %d", who, len(mine), k)
			}
			return mine[k-1], nil
		}
		for _, p := range mine {
			if p.ID == st.Prompt {
				return p, nil
			}
		}
		return nil, fmt.Errorf("%s has no open prompt %s", who, st.Prompt)
	}
	if len(mine) == 0 {
		return nil, fmt.Errorf("%s has no open prompt", who)
	}
	return mine[0], nil
}

// matchOption finds the option a token names: its id, "pass", "#n" (the nth
// option), a card id, its text, or a unique piece of its text.
func matchOption(p *Prompt, tok string, taken map[string]bool) (string, error) {
	try := func(f func(o Option) bool) (string, bool) {
		for _, o := range p.Options {
			if !taken[o.ID] && f(o) {
				taken[o.ID] = true
				return o.ID, true
			}
		}
		return "", false
	}
	if strings.HasPrefix(tok, "#") {
		if k, err := strconv.Atoi(tok[1:]); err == nil && k >= 1 && k <= len(p.Options) {
			taken[p.Options[k-1].ID] = true
			return p.Options[k-1].ID, nil
		}
	}
	for _, f := range []func(o Option) bool{
		func(o Option) bool { return o.ID == tok },
		func(o Option) bool { return o.Card != "" && o.Card == tok },
		func(o Option) bool { return strings.EqualFold(o.Text, tok) },
	} {
		if id, ok := try(f); ok {
			return id, nil
		}
	}
	var hits []Option
	for _, o := range p.Options {
		if !taken[o.ID] && strings.Contains(strings.ToLower(o.Text), strings.ToLower(tok)) {
			hits = append(hits, o)
		}
	}
	if len(hits) == 1 {
		taken[hits[0].ID] = true
		return hits[0].ID, nil
	}
	return "", fmt.Errorf("prompt %s (%s) has no option %q; options: %s", p.ID, p.Kind, tok, optionList(p.Options))
}

func optionList(opts []Option) string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.ID
		if o.Card != "" {
			out[i] += "=" + o.Card
		}
		if o.Text != "" && o.Text != o.Card {
			out[i] += fmt.Sprintf(" (%s)", o.Text)
		}
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// run runs one step. It reports false when the scenario cannot go on.
func (r *runner) run(st *ScenarioStep) bool {
	if err := st.validate(); err != nil {
		r.fail("step", "a well-formed step", err.Error())
		return false
	}
	for name, loc := range st.Remember {
		pile, err := r.zone(loc.Seat, loc.Zone)
		if err == nil {
			var in Inst
			var ok bool
			if in, ok = nth(pile, loc.Card); !ok {
				err = fmt.Errorf("seat %d's %s has no %s", loc.Seat, loc.Zone, loc.Card)
			}
			r.vars[name] = in.ID
		}
		if err != nil {
			r.fail("remember "+name, "a card to remember", err.Error())
			return false
		}
	}
	var events []Event
	var err error
	var before *State
	switch {
	case len(st.Batch) > 0:
		before = r.s.Clone()
		events, err = r.batch(st)
		if err == errResolve {
			return false
		}
	case st.Do != "" || st.Answer != nil:
		seat, a, rerr := r.action(st, map[string]bool{})
		if rerr != nil {
			r.fail("action", "an action that can be submitted", rerr.Error())
			return false
		}
		before = r.s.Clone()
		events, err = Apply(r.s, seat, a)
	}
	if err != nil {
		if st.Expect == nil || st.Expect.Error == nil {
			r.fail("action", "the action to be accepted", fmt.Sprintf("error %q", err))
			return false
		}
		if !st.Expect.Error.match(err) {
			r.fail("error", st.Expect.Error.String(), fmt.Sprintf("%q", err))
		}
		if before != nil && before.Hash() != r.s.Hash() {
			r.fail("state after an illegal action", "the state unchanged", "a changed state")
		}
	} else if st.Expect != nil && st.Expect.Error != nil {
		r.fail("error", st.Expect.Error.String(), "the action was accepted")
	}
	r.record(events)
	if st.Expect != nil {
		r.check(st.Expect, st, events)
	}
	return true
}

// validate rejects steps whose fields contradict each other.
func (st *ScenarioStep) validate() error {
	if len(st.Batch) > 0 && (st.Do != "" || st.Answer != nil || st.Card != "") {
		return errors.New("a step has either batch: or an action, not both")
	}
	if st.Answer != nil && st.Do != "" && st.Do != ActAnswer {
		return fmt.Errorf("answer: goes with do: answer, not do: %s", st.Do)
	}
	for i, b := range st.Batch {
		if b.Expect != nil || len(b.Batch) > 0 || len(b.Remember) > 0 {
			return fmt.Errorf("batch action %d: expect, remember and batch belong to the step, not to its actions", i+1)
		}
	}
	return nil
}

var errResolve = errors.New("scenario: batch could not be resolved")

// batch submits a step's batch with ApplyBatch.
func (r *runner) batch(st *ScenarioStep) ([]Event, error) {
	used := map[string]bool{}
	var actions []Action
	seat := -2
	for i := range st.Batch {
		b := st.Batch[i]
		if b.Seat == nil {
			b.Seat = st.Seat
		}
		sb, a, err := r.action(&b, used)
		if err != nil {
			r.fail(fmt.Sprintf("batch action %d", i+1), "an action that can be submitted", err.Error())
			return nil, errResolve
		}
		if seat == -2 {
			seat = sb
		}
		actions = append(actions, a)
	}
	next, events, idx, err := ApplyBatch(r.s, seat, actions)
	if err != nil {
		return nil, fmt.Errorf("batch action %d: %w", idx+1, err)
	}
	r.s = next
	return events, nil
}

// check compares the state and the step's events with the expectations.
func (r *runner) check(e *Expect, st *ScenarioStep, events []Event) {
	s := r.s
	if e.Phase != nil && s.Phase != *e.Phase {
		r.fail("phase", string(*e.Phase), string(s.Phase))
	}
	if e.Active != nil && s.Active != *e.Active {
		r.fail("active seat", strconv.Itoa(*e.Active), strconv.Itoa(s.Active))
	}
	if e.Turn != nil && s.Turn != *e.Turn {
		r.fail("turn", strconv.Itoa(*e.Turn), strconv.Itoa(s.Turn))
	}
	if e.Over != nil && s.Over() != *e.Over {
		r.fail("game over", strconv.FormatBool(*e.Over), strconv.FormatBool(s.Over()))
	}
	if e.Winners != nil {
		r.ints("winners", *e.Winners, s.Winners)
	}
	if e.Awaiting != nil {
		r.ints("awaiting", *e.Awaiting, Awaiting(s))
	}
	r.cards("market", e.Market, s.Market, false)
	r.count("market count", e.MarketCount, len(s.Market))
	r.count("challenge deck count", e.ChallengeDeck, len(s.ChallengeDeck))
	if e.Global != nil {
		var gl []Inst
		for _, g := range s.Global {
			gl = append(gl, g.Inst)
		}
		r.cards("global zone", e.Global, gl, false)
	}
	r.count("shared deck count", e.SharedDeck, len(s.SharedDeck))
	r.cards("shared bin", e.SharedBin, s.SharedBin, false)
	r.count("shared bin count", e.SharedBinCount, len(s.SharedBin))
	if b := e.Build; b != nil {
		if b.Open != nil && (s.Build != nil) != *b.Open {
			r.fail("build open", strconv.FormatBool(*b.Open), strconv.FormatBool(s.Build != nil))
		}
		r.count("build TECH", b.Tech, s.BuildTech())
		r.count("build SCI", b.Sci, s.BuildSci())
		if b.Tools != nil {
			var tools []Inst
			if s.Build != nil {
				tools = s.Build.Tools
			}
			r.cards("build tools", b.Tools, tools, false)
		}
	}
	if w := e.Window; w != nil {
		v := s.View(Spectator).Window
		if w.Open != nil && (v != nil) != *w.Open {
			r.fail("interrupt window open", strconv.FormatBool(*w.Open), strconv.FormatBool(v != nil))
		}
		if v == nil {
			if w.On != "" || w.Seats != nil || w.Answered != nil || w.Actor != nil {
				r.fail("interrupt window", "an open window", "none")
			}
		} else {
			if w.On != "" && v.On != w.On {
				r.fail("interrupt window event", string(w.On), string(v.On))
			}
			r.count("interrupt window actor", w.Actor, v.Actor)
			if w.Seats != nil {
				r.ints("interrupt window seats", *w.Seats, v.Seats)
			}
			if w.Answered != nil {
				r.ints("interrupt window answered", *w.Answered, v.Answered)
			}
		}
	}
	if e.Queued != nil {
		n := 0
		if s.Queue != nil {
			n = len(s.Queue.Actions)
		}
		r.count("queued actions", e.Queued, n)
	}
	if m := e.Challenges; m != nil {
		basic, hard := 0, 0
		all := slices.Concat(s.Market, s.ChallengeDeck)
		for i := range s.Players {
			all = append(all, s.Players[i].Ranking...)
		}
		for _, in := range all {
			if s.card(in.Card).Hard {
				hard++
			} else {
				basic++
			}
		}
		r.count("basic challenges", m.Basic, basic)
		r.count("hard challenges", m.Hard, hard)
	}
	seats := make([]int, 0, len(e.Seats))
	for k := range e.Seats {
		seats = append(seats, k)
	}
	sort.Ints(seats)
	for _, seat := range seats {
		r.checkSeat(seat, e.Seats[seat])
	}
	r.checkEvents(e.Events, events)
	for _, v := range e.Visible {
		r.checkVisible(v, events)
	}
	for _, l := range e.Legal {
		r.checkLegal(l)
	}
}

func (r *runner) checkSeat(seat int, e *SeatExpect) {
	s := r.s
	if seat < 0 || seat >= len(s.Players) {
		r.fail(fmt.Sprintf("seat %d", seat), "a seat of the game", fmt.Sprintf("%d seats", len(s.Players)))
		return
	}
	p := &s.Players[seat]
	at := func(what string) string { return fmt.Sprintf("seat %d %s", seat, what) }
	r.cards(at("hand"), e.Hand, p.Hand, false)
	r.has(at("hand"), e.HandHas, p.Hand, true)
	r.has(at("hand"), e.HandLacks, p.Hand, false)
	r.count(at("hand count"), e.HandCount, len(p.Hand))
	deck, bin := *s.deck(seat), *s.bin(seat)
	r.cards(at("deck (top first)"), e.Deck, deck, true)
	r.has(at("deck"), e.DeckHas, deck, true)
	r.count(at("deck count"), e.DeckCount, len(deck))
	r.cards(at("Recycle Bin"), e.Bin, bin, false)
	r.has(at("Recycle Bin"), e.BinHas, bin, true)
	r.count(at("Recycle Bin count"), e.BinCount, len(bin))
	r.cards(at("Lab"), e.Lab, p.Lab, false)
	r.has(at("Lab"), e.LabHas, p.Lab, true)
	r.has(at("Lab"), e.LabLacks, p.Lab, false)
	r.count(at("Lab count"), e.LabCount, len(p.Lab))
	r.cards(at("Ranking"), e.Ranking, p.Ranking, false)
	r.count(at("Ranking count"), e.RankingCount, len(p.Ranking))
	r.count(at("score"), e.Score, s.Score(seat))
	r.flag(at("limited"), e.Limited, p.Limited)
	r.flag(at("resigned"), e.Resigned, p.Resigned)
	r.flag(at("voted to end"), e.VotedEnd, p.VotedEnd)
	open := PromptsFor(s, seat)
	r.count(at("open prompts"), e.PromptCount, len(open))
	if e.Prompts != nil {
		want := *e.Prompts
		if len(want) != len(open) {
			r.fail(at("open prompts"), fmt.Sprintf("%d prompts", len(want)), promptList(open))
			return
		}
		for i, w := range want {
			r.checkPrompt(at(fmt.Sprintf("prompt %d", i+1)), w, &open[i])
		}
	}
}

func promptList(ps []Prompt) string {
	if len(ps) == 0 {
		return "no prompts"
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprintf("%s %s %s", p.ID, p.Kind, optionList(p.Options))
	}
	return strings.Join(out, "; ")
}

func (r *runner) checkPrompt(what string, w PromptExpect, p *Prompt) {
	if w.Kind != "" && p.Kind != w.Kind {
		r.fail(what+" kind", string(w.Kind), string(p.Kind))
	}
	r.count(what+" min", w.Min, p.Min)
	r.count(what+" max", w.Max, p.Max)
	r.count(what+" actor", w.Actor, p.Actor)
	if w.Event != "" && p.Event != w.Event {
		r.fail(what+" event", string(w.Event), string(p.Event))
	}
	if w.Text != "" && !strings.Contains(p.Text, w.Text) {
		r.fail(what+" text", fmt.Sprintf("containing %q", w.Text), fmt.Sprintf("%q", p.Text))
	}
	if w.Options != nil {
		taken := map[string]bool{}
		ok := len(*w.Options) == len(p.Options)
		for _, tok := range *w.Options {
			if !ok {
				break
			}
			if _, err := matchOption(p, tok, taken); err != nil {
				ok = false
			}
		}
		if !ok {
			r.fail(what+" options", "["+strings.Join(*w.Options, ", ")+"]", optionList(p.Options))
		}
	}
}

func (r *runner) checkEvents(want []EventExpect, events []Event) {
	from := map[int]int{} // per viewpoint: where the next search starts
	for _, w := range want {
		if w.Kind != "" && !IsEventKind(w.Kind) {
			r.fail("events", "an event kind of EventKinds", fmt.Sprintf("kind %q", w.Kind))
			continue
		}
		as := -99
		evs := events
		if w.As != nil {
			as = *w.As
			evs = EventsFor(events, as)
		}
		if w.Not {
			for _, e := range evs {
				if w.match(e) {
					r.fail("events", "no event "+w.String(), eventString(e))
					break
				}
			}
			continue
		}
		found := false
		for k := from[as]; k < len(evs); k++ {
			if w.match(evs[k]) {
				from[as], found = k+1, true
				break
			}
		}
		if !found {
			r.fail("events", "an event "+w.String()+" (in order)", kindsOf(evs[from[as]:]))
		}
	}
}

func (w *EventExpect) match(e Event) bool {
	switch {
	case w.Kind != "" && e.Kind != w.Kind,
		w.Seat != nil && e.Seat != *w.Seat,
		w.Card != "" && e.Card != w.Card,
		w.N != nil && e.N != *w.N,
		w.Target != nil && e.Target != *w.Target,
		w.On != "" && e.On != w.On,
		w.Text != "" && !strings.Contains(e.Text, w.Text),
		w.Hidden && (e.Card != "" || e.Inst != "" || len(e.Cards) > 0 || len(e.Insts) > 0):
		return false
	}
	if w.Cards != nil && !sameMultiset(*w.Cards, e.Cards) {
		return false
	}
	if w.Seats != nil && !slices.Equal(*w.Seats, e.Seats) {
		return false
	}
	if w.Scores != nil && !slices.Equal(*w.Scores, e.Scores) {
		return false
	}
	return true
}

func (w *EventExpect) String() string {
	var parts []string
	add := func(k string, v any) { parts = append(parts, fmt.Sprintf("%s=%v", k, v)) }
	if w.Kind != "" {
		add("kind", w.Kind)
	}
	if w.As != nil {
		add("as seen by seat", *w.As)
	}
	if w.Seat != nil {
		add("seat", *w.Seat)
	}
	if w.Card != "" {
		add("card", w.Card)
	}
	if w.Cards != nil {
		add("cards", []string(*w.Cards))
	}
	if w.N != nil {
		add("n", *w.N)
	}
	if w.Target != nil {
		add("target", *w.Target)
	}
	if w.On != "" {
		add("on", w.On)
	}
	if w.Seats != nil {
		add("seats", *w.Seats)
	}
	if w.Scores != nil {
		add("scores", *w.Scores)
	}
	if w.Text != "" {
		add("text~", fmt.Sprintf("%q", w.Text))
	}
	if w.Hidden {
		parts = append(parts, "hidden")
	}
	return "{" + strings.Join(parts, " ") + "}"
}

func eventString(e Event) string {
	data, _ := json.Marshal(e)
	return string(data)
}

// kindsOf lists events briefly: their kinds, seats and cards.
func kindsOf(evs []Event) string {
	if len(evs) == 0 {
		return "no further events"
	}
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = fmt.Sprintf("%s(seat %d", e.Kind, e.Seat)
		if e.Card != "" {
			out[i] += " card " + e.Card
		}
		if len(e.Cards) > 0 {
			out[i] += fmt.Sprintf(" cards %v", e.Cards)
		}
		if e.N != 0 {
			out[i] += fmt.Sprintf(" n %d", e.N)
		}
		out[i] += ")"
	}
	return strings.Join(out, ", ")
}

func (r *runner) expand(tok string) string {
	if v, ok := r.vars[strings.TrimPrefix(tok, "$")]; ok && strings.HasPrefix(tok, "$") {
		return v
	}
	return tok
}

func (r *runner) checkVisible(v VisibleExpect, events []Event) {
	view, err := json.Marshal(r.s.View(v.Seat))
	if err != nil {
		r.fail("view", "a view", err.Error())
		return
	}
	evs, _ := json.Marshal(EventsFor(events, v.Seat))
	who := fmt.Sprintf("seat %d", v.Seat)
	if v.Seat < 0 {
		who = "a spectator"
	}
	for _, tok := range v.Has {
		if !bytes.Contains(view, []byte(r.expand(tok))) {
			r.fail("what "+who+" sees", fmt.Sprintf("the view to show %q", tok), "it does not")
		}
	}
	for _, tok := range v.Lacks {
		x := []byte(r.expand(tok))
		if bytes.Contains(view, x) {
			r.fail("what "+who+" sees", fmt.Sprintf("the view not to show %q", tok), "it does")
		}
		if bytes.Contains(evs, x) {
			r.fail("what "+who+" sees", fmt.Sprintf("the step's events not to show %q", tok), "they do")
		}
	}
}

// describe writes an action as "type card-id ..." for legal checks.
func (r *runner) describe(a Action) string {
	s := r.s
	out := string(a.Type)
	name := func(pile []Inst, id string) string {
		if in, ok := find(pile, id); ok {
			return in.Card
		}
		return id
	}
	switch a.Type {
	case ActPlace, ActPlayTool, ActPlayHack:
		if s.live(s.Active) {
			out += " " + name(s.Players[s.Active].Hand, a.Card)
		}
	case ActActivate:
		out += " " + name(s.Players[s.Active].Lab, a.Card)
	case ActClaim:
		for _, id := range a.Challenges {
			out += " " + name(s.Market, id)
		}
	case ActAnswer:
		i := slices.IndexFunc(s.Prompts, func(p Prompt) bool { return p.ID == a.Prompt })
		if a.Choices == nil && i >= 0 {
			return out + " " + string(s.Prompts[i].Kind)
		}
		for _, ch := range a.Choices {
			if i >= 0 {
				if k := slices.IndexFunc(s.Prompts[i].Options, func(o Option) bool { return o.ID == ch }); k >= 0 && s.Prompts[i].Options[k].Card != "" {
					ch = s.Prompts[i].Options[k].Card
				}
			}
			out += " " + ch
		}
	}
	return out
}

func (r *runner) checkLegal(l LegalExpect) {
	s := r.s
	legal := Legal(s, l.Seat)
	var got []string
	for _, a := range legal {
		got = append(got, r.describe(a))
	}
	what := fmt.Sprintf("legal actions of seat %d", l.Seat)
	for _, h := range l.Has {
		if !slices.Contains(got, h) {
			r.fail(what, fmt.Sprintf("to include %q", h), "["+strings.Join(got, ", ")+"]")
		}
	}
	for _, h := range l.Lacks {
		if slices.Contains(got, h) {
			r.fail(what, fmt.Sprintf("not to include %q", h), "["+strings.Join(got, ", ")+"]")
		}
	}
	r.count(what+" count", l.Count, len(got))
	if len(l.Says) > 0 {
		var texts []string
		for _, m := range Moves(s, l.Seat) {
			texts = append(texts, m.Text)
			for _, o := range m.Options {
				texts = append(texts, o.Text)
			}
		}
		for _, w := range l.Says {
			if !slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(t, w) }) {
				r.fail(what+" texts", fmt.Sprintf("one containing %q", w), fmt.Sprintf("%q", texts))
			}
		}
	}
	if !l.Agree {
		return
	}
	for _, a := range legal {
		if a.Type == ActAnswer && a.Choices == nil {
			r.agreeAnswers(what, l.Seat, a.Prompt)
			continue
		}
		if _, err := Apply(s.Clone(), l.Seat, a); err != nil {
			r.fail(what, fmt.Sprintf("listed %s to be accepted", r.describe(a)), err.Error())
		}
	}
	// Every action built from the cards the seat can see, and not listed,
	// must be rejected.
	var cands []Action
	if l.Seat >= 0 && l.Seat < len(s.Players) {
		p := &s.Players[l.Seat]
		for _, in := range p.Hand {
			for _, t := range []ActionType{ActPlace, ActPlayTool, ActPlayHack} {
				cands = append(cands, Action{Type: t, Card: in.ID})
			}
		}
		for _, in := range p.Lab {
			cands = append(cands, Action{Type: ActActivate, Card: in.ID})
		}
	}
	for _, m := range s.Market {
		cands = append(cands, Action{Type: ActClaim, Challenges: []string{m.ID}})
	}
	cands = append(cands, Action{Type: ActAbandon}, Action{Type: ActEndTurn})
	for _, p := range PromptsFor(s, l.Seat) {
		for _, o := range p.Options {
			cands = append(cands, Action{Type: ActAnswer, Prompt: p.ID, Choices: []string{o.ID}})
		}
	}
	for _, a := range cands {
		listed := slices.ContainsFunc(legal, func(b Action) bool {
			if a.Type == ActAnswer {
				return b.Type == ActAnswer && b.Prompt == a.Prompt && b.Choices == nil
			}
			return b.Type == a.Type && b.Card == a.Card && slices.Equal(b.Challenges, a.Challenges)
		})
		if _, err := Apply(s.Clone(), l.Seat, a); err == nil && !listed {
			r.fail(what, fmt.Sprintf("%s, accepted by Apply, to be listed", r.describe(a)), "it is not listed")
		}
	}
}

// agreeAnswers checks that prompt id, listed for seat, admits exactly the
// answers Apply accepts: every selection of its options when it has at most
// 10 (a sample of 500 otherwise) of every size from none to one more than
// Max, and answers naming an option twice or an unknown one.
func (r *runner) agreeAnswers(what string, seat int, id string) {
	s := r.s
	i := slices.IndexFunc(s.Prompts, func(p Prompt) bool { return p.ID == id })
	if i < 0 {
		r.fail(what, "listed prompt "+id+" to be open", "it is not")
		return
	}
	p := s.Prompts[i]
	var tries [][]string
	n := len(p.Options)
	if n <= 10 {
		for mask := range 1 << n {
			var pick []string
			for k := range n {
				if mask&(1<<k) != 0 {
					pick = append(pick, p.Options[k].ID)
				}
			}
			if len(pick) <= p.Max+1 {
				tries = append(tries, pick)
			}
		}
	} else {
		rng := rand.New(rand.NewPCG(uint64(n), uint64(p.Max)))
		for range 500 {
			pick := []string{}
			for _, k := range rng.Perm(n)[:rng.IntN(min(n, p.Max+1)+1)] {
				pick = append(pick, p.Options[k].ID)
			}
			tries = append(tries, pick)
		}
	}
	if n > 0 {
		first := p.Options[0].ID
		tries = append(tries, []string{first, first}, []string{"no-such-option"}, append(slices.Repeat([]string{first}, max(p.Min, 1)-1), "no-such-option"))
	}
	for _, pick := range tries {
		_, err := Apply(s.Clone(), seat, Action{Type: ActAnswer, Prompt: id, Choices: pick})
		if admitted := describedAnswer(p, pick); admitted != (err == nil) {
			found := "it is accepted"
			if err != nil {
				found = "it is refused: " + err.Error()
			}
			r.fail(what, fmt.Sprintf("prompt %s (%s, %d to %d of %d options) to admit %v exactly if Apply accepts it", id, p.Kind, p.Min, p.Max, n, pick), found)
			return
		}
	}
}

// describedAnswer reports whether pick is an answer as a prompt describes
// its answers: Min to Max distinct ids of its options.
func describedAnswer(p Prompt, pick []string) bool {
	if len(pick) < p.Min || len(pick) > p.Max {
		return false
	}
	seen := map[string]bool{}
	for _, id := range pick {
		if seen[id] || !slices.ContainsFunc(p.Options, func(o Option) bool { return o.ID == id }) {
			return false
		}
		seen[id] = true
	}
	return true
}

func (r *runner) count(what string, want *int, got int) {
	if want != nil && *want != got {
		r.fail(what, strconv.Itoa(*want), strconv.Itoa(got))
	}
}

func (r *runner) flag(what string, want *bool, got bool) {
	if want != nil && *want != got {
		r.fail(what, strconv.FormatBool(*want), strconv.FormatBool(got))
	}
}

func (r *runner) ints(what string, want, got []int) {
	if !slices.Equal(want, got) && !(len(want) == 0 && len(got) == 0) {
		r.fail(what, fmt.Sprint(want), fmt.Sprint(got))
	}
}

// cards compares a zone with expected card ids: in order, or as multisets.
func (r *runner) cards(what string, want *StringList, got []Inst, ordered bool) {
	if want == nil {
		return
	}
	ids := cardIDsOf(got)
	same := sameMultiset(*want, ids)
	if ordered {
		same = slices.Equal(*want, ids) || (len(*want) == 0 && len(ids) == 0)
	}
	if !same {
		r.fail(what, "["+strings.Join(*want, ", ")+"]", cardIDs(got))
	}
}

// has checks that every expected card is in the zone (present) or that
// none is (absent). Repeated ids need as many copies.
func (r *runner) has(what string, want *StringList, got []Inst, present bool) {
	if want == nil {
		return
	}
	ids := cardIDsOf(got)
	for _, w := range *want {
		i := slices.Index(ids, w)
		switch {
		case present && i < 0:
			r.fail(what, "to hold "+w, cardIDs(got))
		case present:
			ids = slices.Delete(ids, i, i+1)
		case i >= 0:
			r.fail(what, "not to hold "+w, cardIDs(got))
		}
	}
}

func cardIDsOf(pile []Inst) []string {
	out := make([]string, len(pile))
	for i, in := range pile {
		out[i] = in.Card
	}
	return out
}

func cardIDs(pile []Inst) string {
	if len(pile) == 0 {
		return "[]"
	}
	return "[" + strings.Join(cardIDsOf(pile), ", ") + "]"
}

func sameMultiset(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

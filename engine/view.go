package engine

import "slices"

// Spectator is the seat number of a view for someone not playing.
const Spectator = -1

// CardView is a card as a seat sees it, with what a player needs to read it
// without looking the card up: a field that does not apply is zero (and
// left out of the JSON).
type CardView struct {
	ID      string   `json:"id"`   // opaque instance id
	Card    string   `json:"card"` // card id in the catalogue
	Name    string   `json:"name"`
	Type    CardType `json:"type"`
	Level   Level    `json:"level,omitempty"`   // Monster
	Classes []Class  `json:"classes,omitempty"` // Monster; shared with the card data: do not change
	Tech    int      `json:"tech,omitempty"`    // Tool, Challenge
	Sci     int      `json:"sci,omitempty"`     // Tool, Challenge
	Points  int      `json:"points,omitempty"`  // Challenge: Big Data Points
	Hard    bool     `json:"hard,omitempty"`    // a hard Challenge
	Unique  bool     `json:"unique,omitempty"`  // Lab Equipment of which a Lab holds one
	// Text is how the card plays: the lines of CardText after its type
	// line, without the deck marker (keywords, recipe, requirements,
	// effects); empty for a card without any.
	Text string `json:"text,omitempty"`
}

// PlayerView is what everyone may know of a seat.
type PlayerView struct {
	Seat      int        `json:"seat"`
	Name      string     `json:"name"`
	HandCount int        `json:"hand_count"`
	DeckCount int        `json:"deck_count"`
	BinCount  int        `json:"bin_count"`
	Lab       []CardView `json:"lab"`
	Ranking   []CardView `json:"ranking"`
	Points    int        `json:"points"`
	Limited   bool       `json:"limited"`
	Resigned  bool       `json:"resigned"`
	VotedEnd  bool       `json:"voted_end"`
}

// GlobalView is a card in the Global zone.
type GlobalView struct {
	CardView
	Owner int `json:"owner"`
}

// BuildView is the open Software Build.
type BuildView struct {
	Tools []CardView `json:"tools"`
	Tech  int        `json:"tech"`
	Sci   int        `json:"sci"`
}

// WindowView is an open interrupt window, without the sealed answers.
type WindowView struct {
	On       EventKind `json:"on"`
	Actor    int       `json:"actor"`
	Text     string    `json:"text"`
	Seats    []int     `json:"seats"`
	Answered []int     `json:"answered"`
	// Card is the card about to be placed or played, face up; nil for a
	// draw or a claim.
	Card *CardView `json:"card,omitempty"`
	// Challenges are the Market challenges about to be claimed; empty for
	// other events.
	Challenges []CardView `json:"challenges,omitempty"`
}

// View is what one seat (or a spectator) may know of a game. It never holds
// the secret, another seat's hand, deck order or Recycle Bin, or sealed answers.
type View struct {
	Seat          int          `json:"seat"`
	Version       int          `json:"version"`
	Mode          Mode         `json:"mode"`
	Office        bool         `json:"office"`
	Policy        Policy       `json:"policy"`
	Turn          int          `json:"turn"`
	Active        int          `json:"active"`
	Phase         Phase        `json:"phase"`
	Players       []PlayerView `json:"players"`
	Market        []CardView   `json:"market"`
	ChallengeDeck int          `json:"challenge_deck"`
	SharedDeck    int          `json:"shared_deck,omitempty"`
	SharedBin     int          `json:"shared_bin,omitempty"`
	Global        []GlobalView `json:"global"`
	Build         *BuildView   `json:"build,omitempty"`
	Window        *WindowView  `json:"window,omitempty"`
	Awaiting      []int        `json:"awaiting"`
	Hand          []CardView   `json:"hand,omitempty"`
	Bin           []CardView   `json:"bin,omitempty"`
	Prompts       []Prompt     `json:"prompts,omitempty"`
	Queued        []Action     `json:"queued,omitempty"`
	Standing      *Standing    `json:"standing,omitempty"`
	Winners       []int        `json:"winners,omitempty"`

	cat *Catalog // the game's card set, for View.Text
}

// View returns what seat may see; a seat outside the game (Spectator) sees
// only public parts.
func (s *State) View(seat int) *View {
	return new(Viewer).View(s, seat)
}

// Viewer builds views in memory it keeps from one view to the next, for a
// caller that needs a view at every decision and keeps none, such as a bot.
// The zero Viewer is ready to use. It is not safe for concurrent use.
type Viewer struct {
	v        View
	cards    []CardView // every card of the view, in one backing array
	written  int        // how many entries of cards the views have written
	cat      *Catalog   // the catalogue that named the cards written
	players  []PlayerView
	global   []GlobalView
	awaiting []int
	prompts  []Prompt
	answered []int
	build    BuildView
	window   WindowView
	standing Standing
}

// View returns s.View(seat), built in the Viewer's memory: the view and
// everything it holds stay valid only until the Viewer's next call, and
// must not be changed (the next view starts from the cards this one shows).
func (vb *Viewer) View(s *State, seat int) *View {
	if seat < 0 || seat >= len(s.Players) {
		seat = Spectator
	}
	n := len(s.Market)
	for i := range s.Players {
		n += len(s.Players[i].Lab) + len(s.Players[i].Ranking)
	}
	if s.Build != nil {
		n += len(s.Build.Tools)
	}
	if seat != Spectator {
		n += len(s.Players[seat].Hand)
		if !s.Office {
			n += len(s.Players[seat].Bin)
		}
	}
	if vb.cards == nil || cap(vb.cards) < n {
		// Room to spare once the Viewer is in use, for the piles that grow.
		vb.cards, vb.written = make([]CardView, 0, max(n, 2*cap(vb.cards))), 0
	}
	if cat := s.catalog(); vb.cat != cat {
		vb.cat, vb.written = cat, 0
	}
	all, used := vb.cards[:cap(vb.cards)], 0
	views := func(ins []Inst) []CardView {
		start := used
		for _, in := range ins {
			// An entry that an earlier view wrote for the same card, in the
			// same catalogue, is right as it is.
			if c := &all[used]; used >= vb.written || c.ID != in.ID || c.Card != in.Card {
				*c = s.cardView(in)
			}
			used++
		}
		vb.written = max(vb.written, used)
		return all[start:used:used]
	}
	if vb.global == nil || cap(vb.global) < len(s.Global) {
		vb.global = make([]GlobalView, 0, len(s.Global))
	}
	if vb.players == nil || cap(vb.players) < len(s.Players) {
		vb.players = make([]PlayerView, 0, len(s.Players))
	}
	vb.awaiting = AppendAwaiting(vb.awaiting[:0], s)
	v := &vb.v
	*v = View{Seat: seat, Version: s.Version, Mode: s.Mode, Office: s.Office, Policy: s.Policy, Turn: s.Turn,
		Active: s.Active, Phase: s.Phase, Market: views(s.Market), ChallengeDeck: len(s.ChallengeDeck),
		Global: vb.global[:0], Awaiting: vb.awaiting, Winners: s.Winners, Players: vb.players[:0], cat: s.catalog()}
	if v.Awaiting == nil {
		v.Awaiting = []int{}
	}
	if s.Office {
		v.SharedDeck, v.SharedBin = len(s.SharedDeck), len(s.SharedBin)
	}
	mods := s.allStatMods()
	for i := range s.Players {
		p := &s.Players[i]
		v.Players = append(v.Players, PlayerView{Seat: i, Name: p.Name, HandCount: len(p.Hand), DeckCount: len(p.Deck),
			BinCount: len(p.Bin), Lab: views(p.Lab), Ranking: views(p.Ranking), Points: s.scoreWith(i, mods[i].points),
			Limited: p.Limited, Resigned: p.Resigned, VotedEnd: p.VotedEnd})
	}
	for _, gl := range s.Global {
		v.Global = append(v.Global, GlobalView{CardView: s.cardView(gl.Inst), Owner: gl.Owner})
	}
	if s.Build != nil {
		// BuildTech and BuildSci, with the modifiers computed above.
		vb.build = BuildView{Tools: views(s.Build.Tools), Tech: max(s.Build.Tech+mods[s.Active].tech, 0), Sci: max(s.Build.Sci+mods[s.Active].sci, 0)}
		v.Build = &vb.build
	}
	for _, t := range s.Stack {
		if t.Ev == nil || t.Ev.Window == nil {
			continue
		}
		w := t.Ev.Window
		if vb.answered == nil {
			vb.answered = []int{}
		}
		wv := WindowView{On: t.Ev.Kind, Actor: t.Ev.Actor, Text: s.proposalText(t.Ev), Seats: w.Seats, Answered: vb.answered[:0]}
		if t.Ev.Card != nil {
			c := s.cardView(*t.Ev.Card)
			wv.Card = &c
		}
		for _, id := range t.Ev.Challenges {
			if in, ok := find(s.Market, id); ok {
				wv.Challenges = append(wv.Challenges, s.cardView(in))
			}
		}
		for _, seat := range w.Seats {
			open := slices.ContainsFunc(s.Prompts, func(p Prompt) bool { return p.Seat == seat && slices.Contains(w.Prompts, p.ID) })
			if !open {
				wv.Answered = append(wv.Answered, seat)
			}
		}
		vb.answered = wv.Answered
		vb.window = wv
		v.Window = &vb.window
	}
	if seat == Spectator {
		return v
	}
	p := &s.Players[seat]
	v.Hand = views(p.Hand)
	if !s.Office {
		v.Bin = views(p.Bin)
	}
	if vb.prompts = appendPrompts(vb.prompts[:0], s, seat); len(vb.prompts) > 0 {
		v.Prompts = vb.prompts
	}
	if s.Queue != nil && s.Queue.Seat == seat {
		v.Queued = s.Queue.Actions
	}
	if len(p.Standing.Plays) > 0 || p.Standing.Pass {
		vb.standing = p.Standing
		v.Standing = &vb.standing
	}
	return v
}

func (s *State) cardView(in Inst) CardView {
	c := s.card(in.Card)
	return CardView{ID: in.ID, Card: in.Card, Name: c.Name, Type: c.Type, Level: c.Level, Classes: c.Classes,
		Tech: c.Tech, Sci: c.Sci, Points: c.Points, Hard: c.Hard, Unique: c.Unique, Text: c.words().rules}
}

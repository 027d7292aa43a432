package notifier

import (
	"strconv"
	"strings"

	"github.com/datamonsters/turns/engine"
)

// Board is the game as a decision email shows it to its recipient: the
// Market, the Global zone, every seat's Lab, Ranking and score, the open
// build, and what the recipient may do, numbered (engine.Numbered) at the
// version the email was written for. Everything in it is already redacted
// for the recipient (it is built from their view).
type Board struct {
	Seat          int   // the recipient's seat
	Version       int64 // the game's version the lines are numbered at
	Market        []Challenge
	ChallengeDeck int // challenges left in the Challenge Deck
	Global        []BoardCard
	Seats         []BoardSeat
	Build         *BoardBuild // the open Software Build; nil: none
	Lines         []Line      // what the recipient may do, numbered; empty: nothing now
	// Digest is engine.Digest of the lines, which the reply address and
	// the links carry; 0 in a board queued before digests.
	Digest uint32 `json:",omitempty"`
}

// Challenge is a challenge in the Market.
type Challenge struct {
	Name   string
	Tech   int
	Sci    int
	Points int // Big Data Points
	Hard   bool
	Text   string // its effects, "" for none
}

// BoardCard is a card on the table: its name and a short line of what it is.
type BoardCard struct {
	Name  string
	About string // type and stats, e.g. "Senior Monster", "TECH 2 · SCI 1"
	Owner string // Global zone: whose Hack it is
}

// BoardSeat is one seat of the game.
type BoardSeat struct {
	Name      string
	You       bool
	Active    bool // whose turn it is
	Points    int  // Big Data Points
	HandCount int
	DeckCount int
	Resigned  bool
	Lab       []BoardCard
	Ranking   []BoardCard // the challenges won
}

// BoardBuild is the open Software Build.
type BoardBuild struct {
	Owner string
	Tech  int
	Sci   int
	Tools []string
}

// Line is one numbered line of what the recipient may do (engine.Line in
// words), with the link that opens it (filled in as the email is sent).
type Line struct {
	N      int
	Text   string
	Prompt bool   // an option of a prompt, not a turn action
	Whole  bool   // choosing the line alone is an action (engine.Line.Whole)
	URL    string `json:",omitempty"` // the line's one-click link (ActionURL, whole lines), set as the email is sent; "" hides it
}

// Links says which of the board's lines carry a one-click link, for the
// email's words on how to choose: "all", "some" or "none" (a choice of
// several options at once, such as a discard of two, has none).
func (b *Board) Links() string {
	n := 0
	for _, l := range b.Lines {
		if l.URL != "" {
			n++
		}
	}
	switch n {
	case len(b.Lines):
		return "all"
	case 0:
		return "none"
	}
	return "some"
}

// newBoard builds the board of seat from its view v of the game at
// version, with lines, the numbered moves at that version
// (engine.Numbered(v.Moves(engine.Legal(st, seat)))).
func newBoard(v *engine.View, version int64, lines []engine.Line) *Board {
	boardsBuilt.Add(1)
	b := &Board{Seat: v.Seat, Version: version, ChallengeDeck: v.ChallengeDeck}
	b.Market = make([]Challenge, 0, len(v.Market))
	for _, c := range v.Market {
		b.Market = append(b.Market, Challenge{Name: c.Name, Tech: c.Tech, Sci: c.Sci, Points: c.Points, Hard: c.Hard,
			Text: strings.ReplaceAll(c.Text, "\n", " ")})
	}
	name := func(seat int) string {
		if seat >= 0 && seat < len(v.Players) {
			return v.Players[seat].Name
		}
		return ""
	}
	for _, g := range v.Global {
		b.Global = append(b.Global, BoardCard{Name: g.Name, About: about(g.CardView), Owner: name(g.Owner)})
	}
	b.Seats = make([]BoardSeat, 0, len(v.Players))
	for _, p := range v.Players {
		s := BoardSeat{Name: p.Name, You: p.Seat == v.Seat, Active: p.Seat == v.Active, Points: p.Points,
			HandCount: p.HandCount, DeckCount: p.DeckCount, Resigned: p.Resigned}
		for _, c := range p.Lab {
			s.Lab = append(s.Lab, BoardCard{Name: c.Name, About: about(c)})
		}
		for _, c := range p.Ranking {
			s.Ranking = append(s.Ranking, BoardCard{Name: c.Name, About: about(c)})
		}
		b.Seats = append(b.Seats, s)
	}
	if v.Build != nil {
		bb := &BoardBuild{Owner: name(v.Active), Tech: v.Build.Tech, Sci: v.Build.Sci}
		for _, t := range v.Build.Tools {
			bb.Tools = append(bb.Tools, t.Name)
		}
		b.Build = bb
	}
	b.Lines, b.Digest = make([]Line, len(lines)), engine.Digest(lines)
	for i, l := range lines {
		b.Lines[i] = Line{N: l.N, Text: l.Text, Prompt: l.Prompt != "", Whole: l.Whole()}
	}
	return b
}

// SeatBoard builds the board of seat from st at the game's version: v,
// the seat's view of st (st.View(seat), which the caller has already),
// and the seat's legal moves, numbered.
func SeatBoard(st *engine.State, v *engine.View, seat int, version int64) *Board {
	return newBoard(v, version, engine.Numbered(v.Moves(engine.Legal(st, seat))))
}

// about is a card's type and stats in a few words: "Senior Monster",
// "Tool · TECH 2 · SCI 1", "Challenge · TECH 4 · SCI 2 · 3 Big Data Points".
func about(c engine.CardView) string {
	t := c.Type.Title()
	if c.Type == engine.Monster && c.Level != "" {
		t = c.Level.Title() + " " + t
	}
	parts := []string{t}
	if c.Tech != 0 || c.Sci != 0 {
		parts = append(parts, "TECH "+strconv.Itoa(c.Tech)+" · SCI "+strconv.Itoa(c.Sci))
	}
	if c.Points != 0 {
		parts = append(parts, plural(c.Points, "Big Data Point"))
	}
	return strings.Join(parts, " · ")
}

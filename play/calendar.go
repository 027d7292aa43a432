package play

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// DeadlineKind says what a player must do by a deadline.
type DeadlineKind int

// The kinds of deadline.
const (
	DeadlineTurn   DeadlineKind = iota + 1 // end their turn
	DeadlinePrompt                         // answer a prompt of theirs (a decision, an interrupt window)
)

// String is the kind in one word: "turn" or "prompt".
func (k DeadlineKind) String() string {
	switch k {
	case DeadlineTurn:
		return "turn"
	case DeadlinePrompt:
		return "prompt"
	}
	return "deadline"
}

// Deadline is one running deadline of a player: a game waits for their
// seat until At. Only the player's own deadlines are listed: what the
// other seats owe is theirs to keep, and is on the board.
type Deadline struct {
	GameID int64
	Seat   int
	Kind   DeadlineKind
	// Wait names what is awaited within the game, the same while the
	// same turn or prompt waits, however often its deadline moves:
	// "turn-12" (the game's 12th turn) or "prompt-p7".
	Wait string
	At   time.Time
	// Revision grows every time the game's deadline is set or moved, and
	// RevisedAt is when that last happened: a calendar's SEQUENCE and
	// DTSTAMP.
	Revision  int64
	RevisedAt time.Time
	Turn      int      // the game's turn
	Players   []string // the other players' names, in seat order
	// Quiet: the deadline was moved out of the player's quiet hours, to
	// their end (see models.Game.QuietSeats).
	Quiet bool
}

// Deadlines returns user uid's running deadlines, soonest first: one per
// running game that waits for their seat (not played by the bot after
// their timeouts). A game that moved on between the list and its read is
// left out; the next read has it as it is then.
func (s *Service) Deadlines(ctx context.Context, uid int64) ([]Deadline, error) {
	rows, err := s.store.AwaitedDeadlines(ctx, uid)
	if err != nil {
		return nil, err
	}
	out := make([]Deadline, 0, len(rows))
	for _, r := range rows {
		err := s.Read(ctx, r.GameID, uid, func(g *models.Game, seat int, st *engine.State) error {
			if st == nil || seat != r.Seat || g.Status != models.StatusActive || g.DeadlineAt == nil ||
				!g.DeadlineAt.Equal(r.DeadlineAt) || !slices.Contains(engine.Awaiting(st), seat) {
				return nil // moved on meanwhile
			}
			d := Deadline{GameID: g.ID, Seat: seat, Kind: DeadlineTurn, Wait: "turn-" + strconv.Itoa(st.Turn), At: r.DeadlineAt.UTC(),
				Revision: r.Seq, RevisedAt: r.SetAt.UTC(), Turn: st.Turn, Quiet: slices.Contains(g.QuietSeats(), seat)}
			if ps := engine.PromptsFor(st, seat); len(ps) > 0 {
				d.Kind, d.Wait = DeadlinePrompt, "prompt-"+ps[0].ID
			}
			for _, o := range g.Seats {
				if o.SeatNo != seat {
					d.Players = append(d.Players, o.Username)
				}
			}
			out = append(out, d)
			return nil
		})
		if err != nil && !errors.Is(err, models.ErrNotFound) {
			return nil, err
		}
	}
	return out, nil
}

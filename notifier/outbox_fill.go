package notifier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/bounded"
	"github.com/datamonsters/turns/internal/jsonenc"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
)

// Fill is what the workers add to a notification once the change that
// caused it has committed: the parts that cost the most to build (the
// recipient's hand with its card texts, their prompts, the board with its
// numbered lines, the final scores), from the game's engine state at
// Version as Seat sees it. The change's transaction leaves them out, so
// that it holds the game's lock no longer than it must; what the recipient
// is shown is the same.
type Fill struct {
	GameID  int64 `json:"game_id"`
	Version int64 `json:"version"`
	Seat    int   `json:"seat"`
	// Prompts names the prompts to show (those the change opened); nil
	// shows every prompt waiting for the seat.
	Prompts []string `json:"prompts,omitempty"`
	// NoPrompts shows none (a turn that goes on once another seat's
	// interrupt window closed).
	NoPrompts bool `json:"no_prompts,omitempty"`
}

// States gives the engine state of a game at a version that may have
// passed (the play path implements it: the state it keeps, the snapshot,
// or the action log replayed). The caller may change what it gets.
type States interface {
	StateAt(ctx context.Context, gameID, version int64) (*engine.State, error)
}

// boardsBuilt counts the boards built (newBoard), for the test that no
// change's transaction builds one.
var boardsBuilt atomic.Int64

// filled returns d with what f adds to it, built from the game's state at
// f.Version.
func (o *Outbox) filled(ctx context.Context, d Data, f *Fill) (Data, error) {
	d, _, err := o.filledState(ctx, d, f)
	return d, err
}

// filledState is filled, with the state it read (nil for none).
func (o *Outbox) filledState(ctx context.Context, d Data, f *Fill) (Data, *engine.State, error) {
	if f == nil {
		return d, nil, nil
	}
	st, err := o.stateAt(ctx, f.GameID, f.Version)
	if errors.Is(err, play.ErrNoState) || errors.Is(err, models.ErrNotFound) {
		// Never to be had: the notification goes out with what the change
		// said, without what the state would have added.
		o.log.Warn("notification without the game's state", "game", f.GameID, "version", f.Version, "error", err)
		d, err = fillData(d, nil, *f)
		return d, nil, err
	}
	if err != nil {
		return nil, nil, err
	}
	d, err = fillData(d, st, *f)
	return d, st, err
}

// fillData adds to d what f names, from st, the game's state at
// f.Version; a nil st adds empty lists and no board.
func fillData(d Data, st *engine.State, f Fill) (Data, error) {
	if st == nil {
		return unfilled(d), nil
	}
	if f.Seat < 0 || f.Seat >= len(st.Players) {
		return nil, fmt.Errorf("notifier: fill of seat %d of a %d-seat game", f.Seat, len(st.Players))
	}
	v := st.View(f.Seat)
	ps := engine.PromptsFor(st, f.Seat)
	if f.Prompts != nil {
		ps = slices.DeleteFunc(slices.Clone(ps), func(p engine.Prompt) bool { return !slices.Contains(f.Prompts, p.ID) })
	}
	board := func() *Board { return SeatBoard(st, v, f.Seat, f.Version) }
	switch x := d.(type) {
	case GameStarted:
		x.Hand, x.Board = Hand(v), board()
		return x, nil
	case YourTurn:
		x.Hand, x.Board = Hand(v), board()
		if !f.NoPrompts {
			x.Prompts = Prompts(st, ps, x.Deadline)
		}
		return x, nil
	case PromptWaiting:
		x.Prompts, x.Hand, x.Board = Prompts(st, ps, x.Deadline), Hand(v), board()
		return x, nil
	case DeadlineReminder:
		x.Prompts, x.Hand, x.Board = Prompts(st, ps, x.Deadline), Hand(v), board()
		return x, nil
	case SeatReclaimed:
		x.Hand, x.Prompts = Hand(v), Prompts(st, ps, x.Deadline)
		return x, nil
	case GameOver:
		return finalOf(x, st, v, f.Seat, f.Version), nil
	}
	return nil, fmt.Errorf("notifier: nothing to fill in a %s notification", d.Kind())
}

// Final is the end of a finished game as seat sees it in its state st at
// version: the scores by rank with the tie-break, the final board and the
// fairness check, with how it ended (reason, "" for not said) and the
// command that replays it (replay). The game-over email says it, and so
// does the answer to the reply that ended the game, which stands for that
// email.
func Final(st *engine.State, seat int, version int64, reason, replay string) GameOver {
	return finalOf(GameOver{Reason: reason, Replay: replay}, st, st.View(seat), seat, version)
}

// finalOf is x with the scores, the final board and the fairness check of
// st as seat sees it (v).
func finalOf(x GameOver, st *engine.State, v *engine.View, seat int, version int64) GameOver {
	x.Scores, x.TieBreak = ranked(v)
	x.Board = SeatBoard(st, v, seat, version)
	for i := range x.Board.Seats {
		x.Board.Seats[i].Active = false // nobody plays now
	}
	if secret, salt, ok := st.Reveal(); ok {
		x.Secret, x.Salt, x.Commitment = secret.String(), salt.String(), st.Commitment()
	}
	return x
}

// unfilled is d with empty lists where a fill would have put its lists,
// and no board.
func unfilled(d Data) Data {
	switch x := d.(type) {
	case GameStarted:
		x.Hand = []Card{}
		return x
	case YourTurn:
		x.Hand, x.Prompts = []Card{}, []Prompt{}
		return x
	case PromptWaiting:
		x.Hand, x.Prompts = []Card{}, []Prompt{}
		return x
	case DeadlineReminder:
		x.Hand, x.Prompts = []Card{}, []Prompt{}
		return x
	case SeatReclaimed:
		x.Hand, x.Prompts = []Card{}, []Prompt{}
		return x
	case GameOver:
		x.Scores = []Score{}
		return x
	}
	return d
}

// ranked are the players' final scores as v shows them, by rank: the
// winners first, then by Big Data Points and, on a tie, by the most
// valuable challenge won (the rulebook's tie-break); and how a tie for
// the win was decided ("" for none).
func ranked(v *engine.View) ([]Score, string) {
	type row struct {
		Score
		best     int    // the most valuable challenge won, in Big Data Points
		bestName string // its name
		seat     int
	}
	rows := make([]row, 0, len(v.Players))
	for _, p := range v.Players {
		r := row{Score: Score{Player: p.Name, Points: p.Points, Winner: slices.Contains(v.Winners, p.Seat), You: p.Seat == v.Seat}, seat: p.Seat}
		for _, c := range p.Ranking {
			if c.Points > r.best {
				r.best, r.bestName = c.Points, c.Name
			}
		}
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		switch {
		case a.Winner != b.Winner:
			if a.Winner {
				return -1
			}
			return 1
		case a.Points != b.Points:
			return b.Points - a.Points
		}
		return b.best - a.best
	})
	out := make([]Score, len(rows))
	var winners []row
	for i, r := range rows {
		r.Rank = i + 1
		if r.Winner {
			r.Rank = 1
			winners = append(winners, r)
		} else if i > 0 && !rows[i-1].Winner && rows[i-1].Points == r.Points && rows[i-1].best == r.best {
			r.Rank = out[i-1].Rank
		}
		out[i] = r.Score
	}
	if len(winners) == 0 {
		return out, ""
	}
	top, tied := winners[0].Points, 0
	for _, r := range rows {
		if r.Points == top {
			tied++
		}
	}
	switch {
	case len(winners) > 1:
		return out, "Tied on " + plural(top, "Big Data Point") + " and on the most valuable challenge won: a shared win."
	case tied > 1:
		w := winners[0]
		return out, "Tied on " + plural(top, "Big Data Point") + ": " + w.Player + " wins with the most valuable challenge, " +
			w.bestName + " (" + plural(w.best, "Big Data Point") + ")."
	}
	return out, ""
}

// stateAt returns the engine state of a game at version, the caller's to
// change: a copy of the one the change left, when this process made it and
// still keeps it, else from the play path (States: its cache, the
// snapshot, or the action log's replay).
func (o *Outbox) stateAt(ctx context.Context, gameID, version int64) (*engine.State, error) {
	if st := o.recent.get(gameID, version); st != nil {
		return st, nil
	}
	st, err := o.cfg.States.StateAt(ctx, gameID, version)
	if err == nil {
		o.recent.put(gameID, version, st) // the change's other notifications need it too
	}
	return st, err
}

// recentStates keeps a copy of the engine state that each change which
// notified someone left, by game and version, taken once the change has
// committed: the workers build those notifications from it, most often a
// few milliseconds later, without decoding the snapshot or replaying the
// log. It holds at most max states, dropping the oldest first; a state
// it no longer holds is built again from the store (see stateAt).
type recentStates struct {
	m *bounded.Map[stateKey, *engine.State]
}

type stateKey struct{ game, version int64 }

func newRecentStates(max int) *recentStates {
	return &recentStates{bounded.New[stateKey, *engine.State](max)}
}

// put keeps a copy of st, the state of game at version.
func (r *recentStates) put(game, version int64, st *engine.State) {
	r.m.Put(stateKey{game, version}, st.Clone())
}

// get returns a copy of the state of game at version, or nil. The kept
// state itself is never handed out: it is only ever copied, so that
// readers share nothing they may write.
func (r *recentStates) get(game, version int64) *engine.State {
	if st, ok := r.m.Get(stateKey{game, version}); ok {
		return st.Clone()
	}
	return nil
}

// pendingNote is what a stored notification's Fill holds until it is
// first read: its data as the change's transaction wrote it (Go field
// names, as decodeData reads them) and what to add to it.
type pendingNote struct {
	Data json.RawMessage `json:"data"`
	Fill *Fill           `json:"fill"`
}

// pending is the Fill of a stored notification of data (its JSON) that
// f completes; "" for f nil.
func pending(data []byte, f *Fill) (string, error) {
	if f == nil {
		return "", nil
	}
	b, err := jsonenc.Marshal(pendingNote{Data: data, Fill: f})
	return string(b), err
}

// Complete returns ns with the body of each that its change's transaction
// left to complete (Fill) built, and stores those bodies, so that the
// next reader finds them whole: the live stream calls it on what it
// sends. A body that cannot be built now goes out with empty lists and
// no board, and is stored as it is for the next reader to try again.
func (o *Outbox) Complete(ctx context.Context, ns []models.Notification) []models.Notification {
	for i := range ns {
		n := &ns[i]
		if n.Fill == "" {
			continue
		}
		body, whole, err := o.completeBody(ctx, n)
		if err != nil {
			o.log.Warn("notification sent before its board could be built", "notification", n.ID, "error", err)
		}
		n.Body = string(body)
		if !whole {
			continue
		}
		n.Fill = ""
		if err := o.store.CompleteNotification(ctx, n.ID, n.Body); err != nil {
			o.log.Warn("store a completed notification", "notification", n.ID, "error", err)
		}
	}
	return ns
}

// completeBody builds the public body of a notification stored with a
// Fill; whole is false when it could not (the body has empty lists).
func (o *Outbox) completeBody(ctx context.Context, n *models.Notification) (body json.RawMessage, whole bool, err error) {
	var p pendingNote
	if err = json.Unmarshal([]byte(n.Fill), &p); err != nil {
		return json.RawMessage(n.Body), true, err // a Fill no one can read: the body stands
	}
	d, err := decodeData(Kind(n.Kind), p.Data)
	if err != nil {
		return json.RawMessage(n.Body), true, err
	}
	full, ferr := o.filled(ctx, d, p.Fill)
	if ferr != nil {
		full, err = unfilled(d), ferr
	}
	raw, merr := encodeLists(full)
	if merr == nil {
		body, merr = publicJSON(raw)
	}
	if merr != nil {
		return json.RawMessage(n.Body), true, merr
	}
	return body, ferr == nil, err
}

// publicBody is the webhook and stream form of a notification: its data
// as the change wrote it, completed with f.
func (o *Outbox) publicBody(ctx context.Context, kind Kind, data []byte, f *Fill) (json.RawMessage, error) {
	d, err := decodeData(kind, data)
	if err != nil {
		return nil, err
	}
	if d, err = o.filled(ctx, d, f); err != nil {
		return nil, err
	}
	raw, err := encodeLists(d)
	if err != nil {
		return nil, err
	}
	return publicJSON(raw)
}

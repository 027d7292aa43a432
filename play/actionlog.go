package play

import (
	"context"
	"encoding/json"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// ActionLog is a finished game's setup, revealed secret and whole action
// log: with them anyone replays the game to its final state
// (docs/fairness.md). GET /v1/games/{id}/actions answers it as it is;
// datamonsters replay and the tests read that answer back into it.
type ActionLog struct {
	GameID  int64    `json:"game_id"`
	Version int64    `json:"version"`
	Setup   LogSetup `json:"setup"`
	// Fairness is nil for a game started before commitments, which
	// cannot be replayed.
	Fairness  *Fairness      `json:"fairness"`
	FinalHash string         `json:"final_hash"` // engine.State.Hash of the final state
	Winners   []int          `json:"winners"`
	Scores    []int          `json:"scores"` // Big Data Points by seat
	Actions   []LoggedAction `json:"actions"`
}

// LogSetup is a game's engine setup without its secret.
type LogSetup struct {
	Mode       engine.Mode   `json:"mode"`
	Office     bool          `json:"office"`
	Policy     engine.Policy `json:"policy"`
	Seats      []LogSeat     `json:"seats"`
	OfficeDeck *engine.Deck  `json:"office_deck"` // nil unless office
}

// LogSeat is one seat of a LogSetup.
type LogSeat struct {
	Seat int         `json:"seat"`
	Name string      `json:"name"`
	Deck engine.Deck `json:"deck"`
}

// LoggedAction is one entry of the log, with the time it was taken (in
// whole seconds, UTC, as the API writes every time).
type LoggedAction struct {
	engine.LoggedAction
	CreatedAt time.Time `json:"created_at"`
}

// MarshalJSON writes the entry in the API's words, which differ from the
// engine's stored form in one place: a standing answer always shows its
// pass and its list of plays, [] for none.
func (a LoggedAction) MarshalJSON() ([]byte, error) {
	type standing struct {
		Pass  bool                  `json:"pass"`
		Plays []engine.StandingPlay `json:"plays"`
	}
	type action struct {
		engine.Action
		Standing *standing `json:"standing,omitempty"` // in place of the engine's
	}
	out := struct {
		Seq       int64     `json:"seq"`
		Version   int64     `json:"version"`
		Seat      int       `json:"seat"`
		Action    action    `json:"action"`
		CreatedAt time.Time `json:"created_at"`
	}{a.Seq, a.Version, a.Seat, action{Action: a.Action}, a.CreatedAt}
	if s := a.Action.Standing; s != nil {
		out.Action.Standing = &standing{Pass: s.Pass, Plays: s.Plays}
		if s.Plays == nil {
			out.Action.Standing.Plays = []engine.StandingPlay{}
		}
	}
	return json.Marshal(out)
}

// Fairness is a game's commitment to its secret (SHA-256 of salt and
// secret), and once it is over the secret and salt (nil until then).
type Fairness struct {
	Commitment string  `json:"commitment"`
	Secret     *string `json:"secret"`
	Salt       *string `json:"salt"`
}

// FairnessOf is st's commitment, with its secret and salt once it is over;
// nil for a game that has no commitment (stored before secrets).
func FairnessOf(st *engine.State) *Fairness {
	c := st.Commitment()
	if c == "" {
		return nil
	}
	out := &Fairness{Commitment: c}
	if secret, salt, ok := st.Reveal(); ok {
		a, b := secret.String(), salt.String()
		out.Secret, out.Salt = &a, &b
	}
	return out
}

// Entries are the entries of st's log for engine.Replay.
func (l *ActionLog) Entries() []engine.LoggedAction {
	out := make([]engine.LoggedAction, len(l.Actions))
	for i, a := range l.Actions {
		out[i] = a.LoggedAction
	}
	return out
}

// ErrNotOver refuses the action log of a game still running: the log
// holds sealed interrupt answers and hidden choices.
var ErrNotOver = conflict("game_not_over", "the action log is readable once the game is over: until then it would show sealed answers and hidden choices")

// ActionLog returns the action log of game id, for user uid (0: a reader
// signed in nowhere), who must be allowed to see the game; ErrNotOver
// while it runs.
func (s *Service) ActionLog(ctx context.Context, id, uid int64) (*ActionLog, error) {
	var out *ActionLog
	err := s.Read(ctx, id, uid, func(g *models.Game, _ int, st *engine.State) error {
		if g.Status != models.StatusOver || st == nil { // over without a state: nothing was played
			return ErrNotOver
		}
		setup, err := s.SetupOf(g)
		if err != nil {
			return err
		}
		records, err := s.store.Actions(ctx, g.ID)
		if err != nil {
			return err
		}
		entries, err := loggedActions(records)
		if err != nil {
			return err
		}
		out = &ActionLog{GameID: g.ID, Version: g.Version, Fairness: FairnessOf(st), FinalHash: st.Hash(),
			Winners: g.WinnerSeats(), Scores: []int{}, Actions: make([]LoggedAction, len(records)),
			Setup: LogSetup{Mode: setup.Mode, Office: setup.Office, Policy: setup.Policy, Seats: []LogSeat{}}}
		if out.Winners == nil {
			out.Winners = []int{}
		}
		for i, p := range setup.Players {
			out.Setup.Seats = append(out.Setup.Seats, LogSeat{Seat: i, Name: p.Name, Deck: p.Deck})
		}
		if setup.Office {
			out.Setup.OfficeDeck = &setup.OfficeDeck
		}
		for _, p := range st.View(engine.Spectator).Players {
			out.Scores = append(out.Scores, p.Points)
		}
		for i, r := range records {
			out.Actions[i] = LoggedAction{LoggedAction: entries[i], CreatedAt: r.CreatedAt.UTC().Truncate(time.Second)}
		}
		return nil
	})
	return out, err
}

// loggedActions reads stored action records as log entries.
func loggedActions(records []models.ActionRecord) ([]engine.LoggedAction, error) {
	out := make([]engine.LoggedAction, len(records))
	for i, r := range records {
		out[i] = engine.LoggedAction{Seq: r.Seq, Version: r.Version, Seat: r.Seat}
		if err := json.Unmarshal([]byte(r.Body), &out[i].Action); err != nil {
			return nil, err
		}
	}
	return out, nil
}

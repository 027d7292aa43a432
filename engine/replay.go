package engine

import "fmt"

// LoggedAction is one entry of a game's action log: its place in the log
// (Seq), the version its submission made (the actions of one submission
// share it), the seat that made it (System for the service's timeouts)
// and the action.
type LoggedAction struct {
	Seq     int64  `json:"seq"`
	Version int64  `json:"version"`
	Seat    int    `json:"seat"`
	Action  Action `json:"action"`
}

// ReplayError is why Replay stopped: the entry that could not be applied
// (or the first of its submission) and the reason.
type ReplayError struct {
	At  LoggedAction
	Err error
}

func (e *ReplayError) Error() string {
	return fmt.Sprintf("action seq %d (version %d, seat %d, %s): %v", e.At.Seq, e.At.Version, e.At.Seat, e.At.Action, e.Err)
}

func (e *ReplayError) Unwrap() error { return e.Err }

// Replay applies log to s submission by submission, as the game took them:
// each run of entries that share a version is one batch of their seat,
// applied with ApplyBatch. After each submission it calls each (unless
// nil) with the submission's first entry, its events and the state it
// left (each must not change it); an error of each stops the replay and
// is returned as it is. s is not changed. An empty
// log gives s back. A submission of two seats, one after the game is over
// or one that the rules refuse stops the replay with a *ReplayError.
func Replay(s *State, log []LoggedAction, each func(first LoggedAction, events []Event, after *State) error) (*State, error) {
	for i := 0; i < len(log); {
		first, j := log[i], i
		var batch []Action // a fresh one: the state may keep queued actions
		for ; j < len(log) && log[j].Version == first.Version; j++ {
			if log[j].Seat != first.Seat {
				return nil, &ReplayError{At: log[j], Err: fmt.Errorf("the actions of version %d are of two seats", first.Version)}
			}
			batch = append(batch, log[j].Action)
		}
		if s.Over() {
			return nil, &ReplayError{At: first, Err: fmt.Errorf("the game was over before it")}
		}
		next, events, idx, err := ApplyBatch(s, first.Seat, batch)
		if err != nil {
			return nil, &ReplayError{At: log[i+idx], Err: err}
		}
		if each != nil {
			if err := each(first, events, next); err != nil {
				return nil, err
			}
		}
		s, i = next, j
	}
	return s, nil
}

package api

import (
	"net/http"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// fairnessOf is the game's commitment, with its secret and salt once it is
// over; nil for a game that has no commitment (stored before secrets).
func fairnessOf(st *engine.State) *fairnessResponse {
	return (*fairnessResponse)(play.FairnessOf(st))
}

// actionLog is a finished game's setup, revealed secret and whole action
// log (play.ActionLog), for anyone who may see the game: with them,
// datamonsters replay (or any checker, docs/fairness.md) replays the game
// to its final state.
func (s *Server) actionLog(c *gin.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	l, err := s.play.ActionLog(c.Request.Context(), id, userID(c))
	if err != nil {
		return err
	}
	out := actionLogResponse{GameID: l.GameID, Version: l.Version, Fairness: (*fairnessResponse)(l.Fairness), FinalHash: l.FinalHash,
		Winners: l.Winners, Scores: l.Scores, Actions: make([]loggedAction, len(l.Actions)),
		Setup: setupResponse{Mode: string(l.Setup.Mode), Office: l.Setup.Office, Policy: string(l.Setup.Policy),
			Seats: make([]setupSeat, len(l.Setup.Seats)), OfficeDeck: l.Setup.OfficeDeck}}
	for i, st := range l.Setup.Seats {
		out.Setup.Seats[i] = setupSeat(st)
	}
	for i, a := range l.Actions {
		out.Actions[i] = loggedAction{Seq: a.Seq, Version: a.Version, Seat: a.Seat, Action: actionOut(a.Action), CreatedAt: rfc3339(a.CreatedAt)}
	}
	writeJSON(c, http.StatusOK, out)
	return nil
}

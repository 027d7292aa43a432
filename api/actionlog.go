package api

import (
	"encoding/json"
	"net/http"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

// fairnessOf is the game's commitment, with its secret and salt once it is
// over; nil for a game that has no commitment (stored before secrets).
func fairnessOf(st *engine.State) *fairnessResponse {
	c := st.Commitment()
	if c == "" {
		return nil
	}
	out := &fairnessResponse{Commitment: c}
	if secret, salt, ok := st.Reveal(); ok {
		a, b := secret.String(), salt.String()
		out.Secret, out.Salt = &a, &b
	}
	return out
}

// errNotOver answers a request for the action log of a game still running:
// the log holds sealed interrupt answers and hidden choices.
var errNotOver = conflict("game_not_over", "the action log is readable once the game is over: until then it would show sealed answers and hidden choices")

// actionLog is a finished game's setup, revealed secret and whole action
// log, for anyone who may see the game: with them, datamonsters replay (or
// any checker, docs/fairness.md) replays the game to its final state.
func (s *Server) actionLog(c *gin.Context) {
	g, _, err := s.loadVisible(c)
	if err == nil && g.Status != models.StatusOver {
		err = errNotOver
	}
	if err != nil {
		writeError(c, err)
		return
	}
	st, err := s.takeState(g)
	if err == nil && st == nil {
		err = errNotOver // over without a state: nothing was played
	}
	if err != nil {
		writeError(c, err)
		return
	}
	defer s.states.put(g.ID, g.Version, st)
	setup, err := s.setupOf(g)
	if err != nil {
		writeError(c, err)
		return
	}
	records, err := s.store.Actions(c.Request.Context(), g.ID)
	if err != nil {
		writeError(c, err)
		return
	}
	out := actionLogResponse{GameID: g.ID, Version: g.Version, Fairness: fairnessOf(st), FinalHash: st.Hash(),
		Winners: g.WinnerSeats(), Scores: []int{}, Actions: make([]loggedAction, 0, len(records)),
		Setup: setupResponse{Mode: string(setup.Mode), Office: setup.Office, Policy: string(setup.Policy), Seats: []setupSeat{}}}
	if out.Winners == nil {
		out.Winners = []int{}
	}
	for i, p := range setup.Players {
		out.Setup.Seats = append(out.Setup.Seats, setupSeat{Seat: i, Name: p.Name, Deck: p.Deck})
	}
	if setup.Office {
		out.Setup.OfficeDeck = &setup.OfficeDeck
	}
	for _, p := range st.View(engine.Spectator).Players {
		out.Scores = append(out.Scores, p.Points)
	}
	for _, r := range records {
		var a engine.Action
		if err := json.Unmarshal([]byte(r.Body), &a); err != nil {
			writeError(c, err)
			return
		}
		out.Actions = append(out.Actions, loggedAction{Seq: r.Seq, Version: r.Version, Seat: r.Seat, Action: actionOut(a), CreatedAt: rfc3339(r.CreatedAt)})
	}
	c.JSON(http.StatusOK, out)
}

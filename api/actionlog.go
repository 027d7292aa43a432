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
	id, err := pathID(c, "id")
	if err != nil {
		writeError(c, err)
		return
	}
	var out actionLogResponse
	err = s.play.Read(c.Request.Context(), id, userID(c), func(g *models.Game, _ int, st *engine.State) error {
		if g.Status != models.StatusOver || st == nil { // over without a state: nothing was played
			return errNotOver
		}
		setup, err := s.play.SetupOf(g)
		if err != nil {
			return err
		}
		records, err := s.store.Actions(c.Request.Context(), g.ID)
		if err != nil {
			return err
		}
		out = actionLogResponse{GameID: g.ID, Version: g.Version, Fairness: fairnessOf(st), FinalHash: st.Hash(),
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
				return err
			}
			out.Actions = append(out.Actions, loggedAction{Seq: r.Seq, Version: r.Version, Seat: r.Seat, Action: actionOut(a), CreatedAt: rfc3339(r.CreatedAt)})
		}
		return nil
	})
	if err != nil {
		writeError(c, err)
		return
	}
	c.JSON(http.StatusOK, out)
}

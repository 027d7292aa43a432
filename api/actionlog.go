package api

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// actionLog is a finished game's setup, revealed secret and whole action
// log (play.ActionLog), for anyone who may see the game: with them,
// datamonsters replay (or any checker, docs/fairness.md) replays the game
// to its final state.
func (s *Server) actionLog(c *gin.Context, id int64) error {
	l, err := s.play.ActionLog(c.Request.Context(), id, userID(c))
	if err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, l)
	return nil
}

package api

import (
	"errors"
	"math"
	"net/http"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// userProfileResponse is what anyone may know of a player: their name and
// their rating (see docs/ratings.md).
type userProfileResponse struct {
	Username    string  `json:"username"`
	Rating      int     `json:"rating"`
	Deviation   int     `json:"deviation"`
	Volatility  float64 `json:"volatility"`
	Provisional bool    `json:"provisional"`
	Games       int     `json:"games"`
	Wins        int     `json:"wins"`
}

// profileOut is the public profile of username with rating r.
func profileOut(username string, r play.PlayerRating) userProfileResponse {
	return userProfileResponse{Username: username, Rating: int(math.Round(r.Rating.Rating)), Deviation: int(math.Round(r.Deviation)),
		Volatility: math.Round(r.Volatility*1e6) / 1e6, Provisional: r.Provisional(), Games: r.Games, Wins: r.Wins}
}

// getUser is a player's public profile: their rating, rated games and
// wins. No authentication; a name that is no account's (a deleted one's
// included) is not found.
func (s *Server) getUser(c *gin.Context) error {
	name := c.Param("name")
	noSuch := newError(http.StatusNotFound, "not_found", "Not found", "no player is named %q", name)
	if !accounts.ValidUsername(name) {
		return noSuch
	}
	u, err := s.store.UserByUsername(c.Request.Context(), name)
	if errors.Is(err, models.ErrNotFound) {
		err = noSuch
	}
	if err != nil {
		return err
	}
	r, err := s.play.RatingOf(c.Request.Context(), u.ID)
	if err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, profileOut(u.Username, r))
	return nil
}

package web

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// playersPath is where a player's page is: playersPath + their username.
const playersPath = "/users/"

// playerPath is the page of the player named name.
func playerPath(name string) string { return playersPath + url.PathEscape(name) }

// playerView is a player's page: their name and rating.
type playerView struct {
	Name        string
	Rating      int
	Deviation   int
	Provisional bool
	Games, Wins int
	You         bool   // the page of the signed-in user
	Near        string // the lobby's list of open games near this rating, for a signed-in reader
}

// player is a player's page, open to anyone: their rating, rated games
// and wins. A name that is no account's (a deleted one's too) is not found.
func (p *Pages) player(c *gin.Context) error {
	name := c.Param("name")
	if !accounts.ValidUsername(name) {
		return errNotFound
	}
	u, err := p.store.UserByUsername(c.Request.Context(), name)
	if errors.Is(err, models.ErrNotFound) {
		err = errNotFound
	}
	if err != nil {
		return err
	}
	r, err := p.play.RatingOf(c.Request.Context(), u.ID)
	if err != nil {
		return err
	}
	pv := playerView{Name: u.Username, Rating: round(r.Rating.Rating), Deviation: round(r.Deviation), Provisional: r.Provisional(),
		Games: r.Games, Wins: r.Wins, You: userOf(c) == u.ID}
	if userOf(c) != 0 {
		pv.Near = "/?near=" + strconv.Itoa(pv.Rating) + "#public"
	}
	p.render(c, http.StatusOK, "player", view{Data: pv})
	return nil
}

func round(x float64) int { return int(math.Round(x)) }

// ratingLine is how a rated game moved one player's rating.
type ratingLine struct {
	Name, Path    string
	Before, After int
	Change        string // "+24", "−13", "±0"
}

// ratingLines are the lines of game id's ratings, in seat order (none for
// a game that is not rated); players are the board's, for their names.
func (p *Pages) ratingLines(ctx context.Context, id int64, players []playerItem) ([]ratingLine, error) {
	lines, err := p.store.RatingChanges(ctx, id)
	if err != nil || len(lines) == 0 {
		return nil, err
	}
	var out []ratingLine
	for _, l := range lines {
		name := ""
		if l.Seat < len(players) {
			name = players[l.Seat].Name
		}
		rl := ratingLine{Name: name, Path: playerPath(name), Before: round(l.RatingBefore), After: round(l.RatingAfter)}
		switch d := rl.After - rl.Before; {
		case d > 0:
			rl.Change = "+" + strconv.Itoa(d)
		case d < 0:
			rl.Change = "−" + strconv.Itoa(-d)
		default:
			rl.Change = "±0"
		}
		out = append(out, rl)
	}
	return out, nil
}

// nearRating is the lobby's filter of the public games: those near the
// rating the request's "near" names (its page's link; a number 0 to
// 4000), or nil for none.
func nearRating(c *gin.Context) *models.GameFilter {
	n, err := strconv.Atoi(c.Query("near"))
	if err != nil || n < 0 || n > 4000 {
		return nil
	}
	f := &models.GameFilter{Open: true, Limit: lobbyGames}
	play.NearRating(f, float64(n), play.NearRatingWithin)
	return f
}

package web

import (
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// gameItem is one game in a list or on its page: what the lobby and the
// board (still to come) build on.
type gameItem struct {
	ID       int64
	Status   string // in words
	Public   bool
	Players  int
	Seats    []seatItem
	YourTurn bool      // the game waits for the signed-in user
	Reclaim  bool      // the service's bot plays the signed-in user's seat since their timeouts
	Deadline time.Time // when the awaited seats run out of time; zero: none
	FormKey  string    // the Idempotency-Key of the page's forms
}

// seatItem is one seat of a game.
type seatItem struct {
	No      int
	Name    string // "" for an open seat
	You     bool
	Awaited bool
	Bot     bool
	Winner  bool
}

// statusWords says a game's status for people.
var statusWords = map[string]string{
	models.StatusOpen:      "Waiting for players",
	models.StatusActive:    "In play",
	models.StatusOver:      "Over",
	models.StatusCancelled: "Cancelled",
}

// gameOf describes g as userID (0: nobody signed in) sees it.
func gameOf(g *models.Game, userID int64) gameItem {
	it := gameItem{ID: g.ID, Status: statusWords[g.Status], Public: g.Public, Players: g.Players}
	if g.DeadlineAt != nil && g.Status == models.StatusActive {
		it.Deadline = *g.DeadlineAt
	}
	winners := g.WinnerSeats()
	for _, s := range g.Seats {
		you := userID != 0 && s.UserID != nil && *s.UserID == userID
		it.Seats = append(it.Seats, seatItem{No: s.SeatNo + 1, Name: s.Username, You: you, Awaited: s.Awaited,
			Bot: s.Bot != "", Winner: slices.Contains(winners, s.SeatNo)})
		if you && s.Awaited && g.Status == models.StatusActive {
			it.YourTurn = true
		}
		if you && s.Bot == models.BotTakeover && g.Status == models.StatusActive {
			it.Reclaim = true
		}
	}
	return it
}

// homeView is the home page's data: the signed-in user's games, those
// that wait for them first.
type homeView struct {
	Waiting []gameItem
	Others  []gameItem
}

// home is the front page: for a visitor, what the service is and how to
// join; for a user, their games.
func (p *Pages) home(c *gin.Context) {
	a := account(c)
	if a == nil {
		p.render(c, http.StatusOK, "home", view{})
		return
	}
	games, err := p.store.ListGames(c.Request.Context(), models.GameFilter{UserID: a.ID, Limit: 50})
	if err != nil {
		p.fail(c, err)
		return
	}
	var hv homeView
	for i := range games {
		it := gameOf(&games[i], a.ID)
		if it.YourTurn {
			hv.Waiting = append(hv.Waiting, it)
		} else {
			hv.Others = append(hv.Others, it)
		}
	}
	p.render(c, http.StatusOK, "home", view{Data: hv})
}

// game is a game's page: for now its status, its players and whose turn
// it is. A public game's page is open to anyone; another game's only to
// its players (a visitor is asked to sign in first).
func (p *Pages) game(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		p.fail(c, errNotFound)
		return
	}
	g, err := p.store.GameNoState(c.Request.Context(), id)
	if err != nil {
		p.fail(c, err)
		return
	}
	a := account(c)
	var uid int64
	if a != nil {
		uid = a.ID
	}
	if !g.Public && (a == nil || g.SeatOf(uid) < 0) {
		if a == nil {
			redirect(c, "/login?next="+url.QueryEscape(gamePath(id)))
			return
		}
		p.fail(c, errNotFound)
		return
	}
	it := gameOf(g, uid)
	it.FormKey = hex.EncodeToString(notifier.NewNonce())
	p.render(c, http.StatusOK, "game", view{Data: it})
}

// reclaim takes the signed-in user's seat back from the bot that plays it
// after their timeouts, and shows the game.
func (p *Pages) reclaim(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		p.fail(c, errNotFound)
		return
	}
	if err := p.callAPI(c, http.MethodPost, "/v1/games/"+strconv.FormatInt(id, 10)+"/reclaim", nil, nil, c.PostForm("key")); err != nil {
		p.fail(c, err)
		return
	}
	redirect(c, gamePath(id)+"?done=reclaimed")
}

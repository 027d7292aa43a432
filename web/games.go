package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// gameItem is one game in a list or at the top of its page.
type gameItem struct {
	ID        int64
	Status    string // in words
	Open      bool   // waiting for players
	Active    bool   // in play
	Public    bool
	Players   int
	Mode      string // in words
	Seats     []seatItem
	Creator   string // the creator's username
	Mine      bool   // the signed-in user created it
	Seated    bool   // the signed-in user has a seat (joined, or invited)
	Joined    bool   // the signed-in user joined with a deck
	Invited   bool   // the signed-in user is invited and has not joined
	OpenSeats int    // seats nobody holds
	Ready     bool   // before the start: every seat is taken, the game may start
	YourTurn  bool   // the game waits for the signed-in user
	Reclaim   bool   // the service's bot plays the signed-in user's seat since their timeouts
	Deadline  time.Time
	FormKey   string // the Idempotency-Key of the page's forms
	// Result is a finished game's outcome for the reader ("You won, 7 to
	// 5"), for the lobby; "" otherwise.
	Result string
	// DeadlineText is Deadline in the reader's time zone, for the lobby.
	DeadlineText string
}

// seatItem is one seat of a game.
type seatItem struct {
	No      int
	Name    string // "" for an open seat
	You     bool
	Awaited bool
	Bot     bool
	Winner  bool
	Invited bool // invited, not joined yet
}

// statusWords says a game's status for people.
var statusWords = map[string]string{
	models.StatusOpen:      "Waiting for players",
	models.StatusActive:    "In play",
	models.StatusOver:      "Over",
	models.StatusCancelled: "Cancelled",
}

// modeWords names the game modes.
var modeWords = map[string]string{"standard": "standard game", "fast": "fast game"}

// gameOf describes g as userID (0: nobody signed in) sees it.
func gameOf(g *models.Game, userID int64) gameItem {
	it := gameItem{ID: g.ID, Status: statusWords[g.Status], Open: g.Status == models.StatusOpen, Active: g.Status == models.StatusActive,
		Public: g.Public, Players: g.Players, Mode: modeWords[g.Mode], Mine: userID != 0 && g.CreatedBy == userID}
	if g.DeadlineAt != nil && g.Status == models.StatusActive {
		it.Deadline = *g.DeadlineAt
	}
	winners := g.WinnerSeats()
	it.Ready = it.Open
	for _, s := range g.Seats {
		if !s.Joined {
			it.Ready = false
		}
		you := userID != 0 && s.UserID != nil && *s.UserID == userID
		it.Seats = append(it.Seats, seatItem{No: s.SeatNo + 1, Name: s.Username, You: you, Awaited: s.Awaited,
			Bot: s.Bot != "", Winner: slices.Contains(winners, s.SeatNo), Invited: s.Invited && !s.Joined})
		if s.UserID != nil && *s.UserID == g.CreatedBy {
			it.Creator = s.Username
		}
		if s.UserID == nil {
			it.OpenSeats++
		}
		if !you {
			continue
		}
		it.Seated, it.Joined = true, s.Joined
		it.Invited = s.Invited && !s.Joined
		if s.Awaited && g.Status == models.StatusActive {
			it.YourTurn = true
		}
		if s.Bot == models.BotTakeover && g.Status == models.StatusActive {
			it.Reclaim = true
		}
	}
	return it
}

// lobbyView is the front page of a signed-in user: their games, those
// that wait for them first, then the invitations to answer and the public
// games with an open seat.
type lobbyView struct {
	Waiting  []gameItem // in play, waiting for the user
	Others   []gameItem // the user's other games
	Invites  []gameItem // invited, not joined yet
	Public   []gameItem // public games with an open seat, not the user's
	Decks    []deckOption
	FormKey  string
	NewGame  string // the new game form's path
	MoreMine bool   // the user has more games than listed
	Rating   int    // the user's rating, rounded
	Near     int    // the rating the public games listed are near; -1: any rating
	Within   int    // how near
	// Token names what the lobby shows (lobbyToken): the page's script
	// reads the lobby again when /lobby/state answers another one.
	Token string
}

// lobbyGames is how many of the user's games, and of the public games,
// the lobby lists.
const lobbyGames = 50

// home is the front page: for a visitor, what the service is and how to
// join; for a user, the lobby.
func (p *Pages) home(c *gin.Context) error {
	a := account(c)
	if a == nil {
		p.render(c, http.StatusOK, "home", view{})
		return nil
	}
	ctx := c.Request.Context()
	filter, near := lobbyFilter(c)
	mine, open, err := p.lobbyGames(ctx, a.ID, filter)
	if err != nil {
		return err
	}
	r, err := p.play.RatingOf(ctx, a.ID)
	if err != nil {
		return err
	}
	lv := lobbyView{FormKey: newFormKey(), NewGame: newGamePath, Token: lobbyToken(mine, open), Rating: round(r.Rating.Rating),
		Near: near, Within: play.NearRatingWithin}
	if len(mine) > lobbyGames {
		mine, lv.MoreMine = mine[:lobbyGames], true
	}
	results, err := p.results(ctx, mine, a.ID)
	if err != nil {
		return err
	}
	for i := range mine {
		it := gameOf(&mine[i], a.ID)
		it.Result, it.DeadlineText = results[it.ID], when(a, it.Deadline)
		switch {
		case it.YourTurn:
			lv.Waiting = append(lv.Waiting, it)
		case it.Invited && it.Open:
			lv.Invites = append(lv.Invites, it)
		default:
			lv.Others = append(lv.Others, it)
		}
	}
	for i := range open {
		if it := gameOf(&open[i], a.ID); !it.Seated && it.OpenSeats > 0 {
			lv.Public = append(lv.Public, it)
		}
	}
	if len(lv.Invites)+len(lv.Public) > 0 {
		if lv.Decks, err = p.deckOptions(c, a.ID); err != nil {
			return err
		}
	}
	p.render(c, http.StatusOK, "home", view{Data: lv, YourMove: len(lv.Waiting) > 0})
	return nil
}

// lobbyToken names the state of the games a lobby lists, the user's and
// the public open ones: it changes with any of their versions (a seat
// taken, a start, a move, a new invitation is a new game in the list).
func lobbyToken(lists ...[]models.Game) string {
	h := sha256.New()
	for _, gs := range lists {
		for _, g := range gs {
			fmt.Fprintf(h, "%d.%d.%s;", g.ID, g.Version, g.Status)
		}
		h.Write([]byte("|"))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// lobbyState answers the lobby's script with the token of what the
// signed-in user's lobby would show now (lobbyToken), as plain text.
func (p *Pages) lobbyState(c *gin.Context) error {
	filter, _ := lobbyFilter(c)
	mine, open, err := p.lobbyGames(c.Request.Context(), account(c).ID, filter)
	if err != nil {
		return err
	}
	c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte(lobbyToken(mine, open)))
	return nil
}

// lobbyGames reads the games user uid's lobby lists: theirs (one more
// than it shows, to know there are more) and the public ones open names.
func (p *Pages) lobbyGames(ctx context.Context, uid int64, open models.GameFilter) (mine, public []models.Game, err error) {
	if mine, err = p.store.ListGames(ctx, models.GameFilter{UserID: uid, Limit: lobbyGames + 1}); err != nil {
		return nil, nil, err
	}
	public, err = p.store.ListGames(ctx, open)
	return mine, public, err
}

// lobbyFilter is the filter of the public games the lobby lists, and the
// rating they are near (-1: any rating): the request's ?near=, else all
// the open games.
func lobbyFilter(c *gin.Context) (models.GameFilter, int) {
	if f := nearRating(c); f != nil {
		return *f, round(*f.Near)
	}
	return models.GameFilter{Open: true, Limit: lobbyGames}, -1
}

// gameState answers an open game's page script with the game's version,
// as plain text: it reads the page again when it changes (a seat taken,
// the start). The game must be one the reader may see. As the board, it
// checks the reader's session along the game's read (boardSession): one
// statement a poll.
func (p *Pages) gameState(c *gin.Context) error {
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	read := func() (*models.Game, error) {
		g, _, err := p.play.GameChecked(c.Request.Context(), id, userOf(c), sessionCheck(c))
		return g, err
	}
	g, err := read()
	if !p.sessionConfirmed(c) {
		g, err = read()
	}
	if err != nil {
		return err
	}
	c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte(strconv.FormatInt(g.Version, 10)))
	return nil
}

// results words the outcome of each finished game of games for user uid,
// from its last event (game_over), by game id.
func (p *Pages) results(ctx context.Context, games []models.Game, uid int64) (map[int64]string, error) {
	var ids []int64
	for _, g := range games {
		if g.Status == models.StatusOver {
			ids = append(ids, g.ID)
		}
	}
	recs, err := p.store.LastEvents(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := map[int64]string{}
	for _, r := range recs {
		var e engine.Event
		i := slices.IndexFunc(games, func(g models.Game) bool { return g.ID == r.GameID })
		if i >= 0 && json.Unmarshal([]byte(r.Body), &e) == nil && e.Kind == engine.KindGameOver {
			out[r.GameID] = resultWords(&games[i], games[i].SeatOf(uid), e.Scores, e.Seats)
		}
	}
	return out, nil
}

// resultWords says how game g ended for seat (-1: someone who did not
// play), from the final scores and the winners' seats.
func resultWords(g *models.Game, seat int, scores, winners []int) string {
	score := func(s int) int {
		if s >= 0 && s < len(scores) {
			return scores[s]
		}
		return 0
	}
	bdp := func(n int) string { return count(n, "Big Data Point", "Big Data Points") }
	var who []string
	for _, w := range winners {
		if w >= 0 && w < len(g.Seats) {
			who = append(who, g.Seats[w].Username)
		}
	}
	switch {
	case len(winners) == 0:
		return "nobody won"
	case slices.Contains(winners, seat) && len(winners) > 1:
		return "you shared the win, with " + bdp(score(seat))
	case slices.Contains(winners, seat):
		best := -1
		for s := range scores {
			if s != seat {
				best = max(best, score(s))
			}
		}
		if best < 0 {
			return "you won, with " + bdp(score(seat))
		}
		return "you won, " + strconv.Itoa(score(seat)) + " to " + strconv.Itoa(best)
	case seat >= 0:
		return names(who) + " won with " + bdp(score(winners[0])) + "; you had " + strconv.Itoa(score(seat))
	}
	return names(who) + " won with " + bdp(score(winners[0]))
}

// gameID is the game id of the request's path; 0 for a malformed one.
func gameID(c *gin.Context) int64 {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0
	}
	return id
}

// userOf is the id of the request's account, 0 for none.
func userOf(c *gin.Context) int64 {
	if a := account(c); a != nil {
		return a.ID
	}
	return 0
}

// game is a game's page: before the start, its seats and settings, with
// the forms to join, leave, start or cancel it; then its board. A public
// game's page is open to anyone, as a spectator's board; another game's
// only to its players (a visitor is asked to sign in first).
func (p *Pages) game(c *gin.Context) error {
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	bv, err := p.board(c, id, userOf(c), boardOptions{})
	if !p.sessionConfirmed(c) {
		bv, err = p.board(c, id, userOf(c), boardOptions{})
	}
	if err == nil {
		err = p.withNews(c.Request.Context(), bv, sinceOf(c, id))
	}
	if err != nil {
		return p.gameFailed(c, id, err)
	}
	if bv.Started && bv.Seat >= 0 {
		p.markSeen(c, id, bv.Version)
	}
	return p.renderBoard(c, http.StatusOK, "", bv)
}

// gameLog is a game's whole event log, as its reader may see it.
func (p *Pages) gameLog(c *gin.Context) error {
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	bv, err := p.board(c, id, userOf(c), boardOptions{whole: true})
	if err != nil {
		return p.gameFailed(c, id, err)
	}
	p.render(c, http.StatusOK, "log", view{Data: bv})
	return nil
}

// gameFailed answers a game that cannot be shown: a visitor is asked to
// sign in (it may be theirs), anyone else gets the error page.
func (p *Pages) gameFailed(c *gin.Context, id int64, err error) error {
	if errors.Is(err, models.ErrNotFound) && account(c) == nil {
		redirect(c, "/login?next="+url.QueryEscape(gamePath(id)))
		return nil
	}
	return err
}

// boardAgain shows game id's page again with what went wrong (status and
// the problem's words), for a move or a lobby form that was refused: the
// page as it is now, so that the reader sees why.
func (p *Pages) boardAgain(c *gin.Context, id int64, err error) error {
	status, ev := problemFor(err)
	if status >= 500 || status == http.StatusNotFound || status == http.StatusTooManyRequests {
		return err
	}
	bv, berr := p.board(c, id, userOf(c), boardOptions{})
	if berr == nil {
		// What happened since the page the form came from.
		since, _ := strconv.ParseInt(c.PostForm("v"), 10, 64)
		berr = p.withNews(c.Request.Context(), bv, since)
	}
	if berr != nil {
		return berr
	}
	return p.renderBoard(c, status, ev.Title+". "+ev.Message, bv)
}

// reclaim takes the signed-in user's seat back from the bot that plays it
// after their timeouts, and shows the game.
func (p *Pages) reclaim(c *gin.Context) error {
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	uid := account(c).ID
	res, err := p.play.Reclaim(c.Request.Context(), id, uid, p.formRecord(c, uid, gamePath(id)+"?done=reclaimed"))
	return p.changed(c, id, res, err, gamePath(id)+"?done=reclaimed")
}

// changed answers a form that made a change through the play path: on
// success (or a repeat of a form sent before, whose change is done) the
// game's page at next; a refusal (or the form's key sent before with other
// values: formAgain) shows the page again with it.
func (p *Pages) changed(c *gin.Context, id int64, res *play.Result, err error, next string) error {
	if err == nil {
		res.Done()
		redirect(c, next)
		return nil
	}
	rec, err := p.formAgain(c, err)
	if rec != nil {
		redirect(c, next)
		return nil
	}
	return p.boardAgain(c, id, err)
}

package web

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// A turn is played on the board as clicks, each form one action applied
// at once through the play path (play.Service.Submit) at the version the
// page showed, with an idempotency key per form: a stale page is told that
// the game moved on and shown the board as it is, and a form sent twice
// does its action once.

// errIncomplete is a board form without what every one of them carries.
var errIncomplete = &pageError{http.StatusUnprocessableEntity, "This form is incomplete",
	"It did not say which version of the game it was made for. Reload the game and try again."}

// errConfirm is a resignation without its confirmation.
var errConfirm = &pageError{http.StatusUnprocessableEntity, "Not resigned",
	"Tick the box that confirms you want to leave the game, then press the button again."}

// movesAnchor is where a move's answer lands: the top of the board, so
// that what happened (the banner under the board's heading), an open
// window and the moves come in that order, the first in view.
const movesAnchor = "#board"

// playAction applies the action of one of the board's forms for the
// signed-in user's seat.
func (p *Pages) playAction(c *gin.Context) {
	id := gameID(c)
	if id == 0 {
		p.fail(c, errNotFound)
		return
	}
	version, err := strconv.ParseInt(c.PostForm("v"), 10, 64)
	if err != nil || version <= 0 {
		p.boardAgain(c, id, errIncomplete)
		return
	}
	a, err := actionOfForm(c)
	if err != nil {
		p.boardAgain(c, id, err)
		return
	}
	uid := account(c).ID
	// The board that answers shows what happened since the page the move
	// was made on: its news start at the form's version.
	next := gamePath(id) + "?since=" + strconv.FormatInt(version, 10) + movesAnchor
	rec := p.formRecord(c, uid, next)
	ctx := c.Request.Context()
	var res *play.Result
	switch a.Type {
	case engine.ActResign:
		if c.PostForm("confirm") == "" {
			p.boardAgain(c, id, errConfirm)
			return
		}
		res, err = p.play.Resign(ctx, id, uid, rec)
	case engine.ActVoteEnd:
		res, err = p.play.VoteEnd(ctx, id, uid, rec)
	default:
		res, err = p.play.Submit(ctx, id, uid, &version, []engine.Action{a}, rec)
	}
	p.changed(c, id, res, err, next)
}

// formActions are the action types a board form may send (timeout is the
// service's).
var formActions = []engine.ActionType{engine.ActPlace, engine.ActPlayTool, engine.ActPlayHack, engine.ActClaim, engine.ActAbandon,
	engine.ActActivate, engine.ActEndTurn, engine.ActAnswer, engine.ActStanding, engine.ActVoteEnd, engine.ActResign}

// Bounds of a board form's fields, far above what any game has.
const (
	maxFormID      = 64 // an instance, prompt, option or card id
	maxFormChoices = 64
)

// errBadForm is a board form whose fields no page of the site makes.
var errBadForm = &pageError{http.StatusUnprocessableEntity, "This form is not one of the game's",
	"Reload the game and use its buttons."}

// actionOfForm reads the action a board form sends: its type, and the
// card, challenges, prompt and choices, or the standing answers, it names.
// Whether the action is legal is the play path's to say.
func actionOfForm(c *gin.Context) (engine.Action, error) {
	a := engine.Action{Type: engine.ActionType(c.PostForm("type")), Card: c.PostForm("card"), Prompt: c.PostForm("prompt"),
		Challenges: c.PostFormArray("challenge"), Choices: c.PostFormArray("choice")}
	if !slices.Contains(formActions, a.Type) || len(a.Challenges) > maxFormChoices || len(a.Choices) > maxFormChoices {
		return a, errBadForm
	}
	ids := append([]string{a.Card, a.Prompt}, a.Challenges...)
	for _, s := range append(ids, a.Choices...) {
		if len(s) > maxFormID || !printable(s) && s != "" {
			return a, errBadForm
		}
	}
	if a.Type == engine.ActAnswer && a.Choices == nil {
		a.Choices = []string{} // none ticked: an answer with no choice
	}
	if a.Type == engine.ActStanding {
		st := &engine.Standing{Pass: c.PostForm("pass") != ""}
		plays := c.PostFormArray("play")
		if len(plays) > maxFormChoices {
			return a, errBadForm
		}
		for _, v := range plays {
			on, card, ok := strings.Cut(v, ":")
			if !ok || len(card) > maxFormID || !printable(card) {
				return a, errBadForm
			}
			st.Plays = append(st.Plays, engine.StandingPlay{On: engine.EventKind(on), Card: card})
		}
		a.Standing = st
	}
	return a, nil
}

package web

import (
	"errors"
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
func (p *Pages) playAction(c *gin.Context) error {
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	version, err := strconv.ParseInt(c.PostForm("v"), 10, 64)
	if err != nil || version <= 0 {
		return p.boardAgain(c, id, errIncomplete)
	}
	a, err := actionOfForm(c)
	if err != nil {
		return p.boardAgain(c, id, err)
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
			return p.boardAgain(c, id, errConfirm)
		}
		res, err = p.play.Resign(ctx, id, uid, rec)
	case engine.ActVoteEnd:
		res, err = p.play.VoteEnd(ctx, id, uid, rec)
	default:
		res, err = p.play.Submit(ctx, id, uid, &version, []engine.Action{a}, rec)
		if stale := (*play.StaleVersionError)(nil); errors.As(err, &stale) && stale.Current < version {
			err = errFutureVersion // no page of the game showed it
		}
	}
	return p.changed(c, id, res, err, next)
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

// errBadField is a board form whose field no page of the site makes so:
// the page names it.
func errBadField(field string) error {
	return &pageError{http.StatusUnprocessableEntity, "This form is not one of the game's",
		"Its field “" + field + "” is not as the game's buttons send it. Reload the game and use its buttons."}
}

// errFutureVersion is a board form made for a version the game has not
// reached.
var errFutureVersion = &pageError{http.StatusUnprocessableEntity, "This form is not one of the game's",
	"It names a version of the game that the game has not reached. Reload the game and use its buttons."}

// formOnce are the fields a board form sends once at most: another copy
// of one is a form no page makes, and which copy counts is not the
// pages' to guess.
var formOnce = []string{"v", "key", "type", "card", "prompt", "pass", "confirm"}

// actionOfForm reads the action a board form sends: its type, and the
// card, challenges, prompt and choices, or the standing answers, it names.
// Whether the action is legal is the play path's to say.
func actionOfForm(c *gin.Context) (engine.Action, error) {
	a := engine.Action{Type: engine.ActionType(c.PostForm("type")), Card: c.PostForm("card"), Prompt: c.PostForm("prompt"),
		Challenges: c.PostFormArray("challenge"), Choices: c.PostFormArray("choice")}
	for _, f := range formOnce {
		if len(c.PostFormArray(f)) > 1 {
			return a, errBadField(f)
		}
	}
	if key := c.PostForm("key"); key != "" && (len(key) > maxFormKey || !printable(key)) {
		return a, errBadField("key") // else the form would go without its record
	}
	switch {
	case !slices.Contains(formActions, a.Type):
		return a, errBadField("type")
	case len(a.Challenges) > maxFormChoices:
		return a, errBadField("challenge")
	case len(a.Choices) > maxFormChoices:
		return a, errBadField("choice")
	}
	for _, f := range [...]struct {
		name   string
		values []string
	}{{"card", []string{a.Card}}, {"prompt", []string{a.Prompt}}, {"challenge", a.Challenges}, {"choice", a.Choices}} {
		for _, s := range f.values {
			if len(s) > maxFormID || !printable(s) && s != "" {
				return a, errBadField(f.name)
			}
		}
	}
	if a.Type == engine.ActAnswer && a.Choices == nil {
		a.Choices = []string{} // none ticked: an answer with no choice
	}
	if a.Type == engine.ActStanding {
		st := &engine.Standing{Pass: c.PostForm("pass") != ""}
		plays := c.PostFormArray("play")
		if len(plays) > maxFormChoices {
			return a, errBadField("play")
		}
		for _, v := range plays {
			on, card, ok := strings.Cut(v, ":")
			if !ok || len(card) > maxFormID || !printable(card) {
				return a, errBadField("play")
			}
			st.Plays = append(st.Plays, engine.StandingPlay{On: engine.EventKind(on), Card: card})
		}
		a.Standing = st
	}
	return a, nil
}

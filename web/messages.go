package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// Table talk on the board: the game's messages as the reader may read
// them (play.LatestMessages), a form to write one (to the table, or in a
// game of 3 or 4 to one player), and a button to mute them. It is drawn
// around the board, never in a board kept drawn, since every reader sees
// their own. A new message comes on the board's live stream as an event
// "message", and the board's script shows it in place.

// talkShown is the most messages the board shows.
const talkShown = 50

func init() {
	// The settings page names the kinds of notification (kindWords).
	kindWords[notifier.KindMessage] = "A message at the table, in an email of its own"
}

// talkView is the table talk of a board.
type talkView struct {
	ID       int64
	Messages []talkItem
	Earlier  bool // more messages came before those shown
	Last     int64
	Muted    bool
	CanPost  bool
	Player   bool // the reader has a seat: they may mute
	To       []play.Seat
	ToSeat   string // the seat chosen in the form shown again
	FormKey  string
	Max      int
	Value    string // the text of a message refused, shown again
	Error    string // why it was refused
}

// talkItem is one message as the board shows it.
type talkItem struct {
	From    string
	To      string // for a private one: its reader's name
	Private bool
	Mine    bool // the reader wrote it
	Text    string
	When    string // in the reader's time zone
	ISO     string
}

// withTalk sets the table talk of bv for the request's reader (none
// before the start, nor for a spectator of a game that hides its
// messages). A message refused (bv.talkError) is shown again in its form.
func (p *Pages) withTalk(c *gin.Context, bv *boardView) error {
	if !bv.Started {
		return nil
	}
	var t *play.Talk
	var err error
	if bv.game != nil { // read with the board: not again
		t, err = p.play.LatestMessagesIn(c.Request.Context(), bv.game, userOf(c), talkShown)
	} else {
		t, err = p.play.LatestMessages(c.Request.Context(), bv.ID, userOf(c), talkShown)
	}
	if errors.Is(err, play.ErrMessagesHidden) {
		return nil
	}
	if err != nil {
		return err
	}
	tv := &talkView{ID: bv.ID, Earlier: t.Earlier, Muted: t.Muted, CanPost: t.CanPost, Player: t.Seat >= 0, FormKey: newFormKey(),
		Max: play.MaxMessageRunes, Value: bv.talkValue, Error: bv.talkError, ToSeat: bv.talkTo, Messages: []talkItem{}}
	if t.Private {
		tv.To = t.To
	}
	a := account(c)
	for _, m := range t.Messages {
		tv.Messages = append(tv.Messages, talkItem{From: m.From, To: m.To, Private: m.ToSeat != nil, Mine: m.Seat == t.Seat && t.Seat >= 0,
			Text: m.Text, When: when(a, m.At), ISO: iso(m.At)})
		tv.Last = m.ID
	}
	if t.Muted {
		tv.Messages, tv.Earlier = nil, false
	}
	bv.Talk = tv
	return nil
}

// talkSince is the messages of game id after the one with id last that
// the reader may read, as events of the board's live stream; none when
// they may read none, or muted them.
func (p *Pages) talkSince(c *gin.Context, id, last int64) []notifier.Event {
	t, err := p.play.Messages(c.Request.Context(), id, userOf(c), last, talkShown)
	if err != nil || t.Muted {
		return nil
	}
	out := make([]notifier.Event, len(t.Messages))
	for i, m := range t.Messages {
		out[i] = notifier.MessageBodyEvent(notifier.NewMessageBody(m.ID, m.Seat, m.From, m.ToSeat, m.To, m.Text, m.At), nil)
	}
	return out
}

// postMessage posts the reader's message from the board's form, and shows
// the board at its talk; a message refused is shown again with why.
func (p *Pages) postMessage(c *gin.Context) error {
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	uid := account(c).ID
	say := play.Say{Text: c.PostForm("text")}
	if to := c.PostForm("to"); to != "" {
		n, err := strconv.Atoi(to)
		if err != nil {
			return p.talkAgain(c, id, http.StatusUnprocessableEntity, "Choose whom the message is for.")
		}
		say.ToSeat = &n
	}
	next := gamePath(id) + "#talk"
	_, err := p.play.Say(c.Request.Context(), id, uid, say, p.formRecord(c, uid, next))
	if err != nil {
		_, err = p.formAgain(c, err) // nil for the form sent again: posted once
	}
	var perr *play.Error
	var many *play.TooManyMessagesError
	switch {
	case err == nil:
		redirect(c, next)
	case errors.As(err, &many):
		c.Header("Retry-After", strconv.Itoa(many.Seconds()))
		return p.talkAgain(c, id, http.StatusTooManyRequests, sentence(many.Error()))
	case errors.As(err, &perr) && perr.Kind == play.Invalid:
		return p.talkAgain(c, id, http.StatusUnprocessableEntity, sentence(strings.TrimPrefix(perr.Detail, "text: ")))
	default:
		return p.boardAgain(c, id, err)
	}
	return nil
}

// talkAgain shows game id's board again with the message of the form,
// refused for why, in its form.
func (p *Pages) talkAgain(c *gin.Context, id int64, status int, why string) error {
	bv, err := p.board(c, id, userOf(c), boardOptions{})
	if err != nil {
		return err
	}
	bv.talkValue, bv.talkError, bv.talkTo = c.PostForm("text"), why, c.PostForm("to")
	return p.renderBoard(c, status, "Your message was not sent. "+why, bv)
}

// muteMessages mutes or unmutes the game's messages for the reader, a
// player of the game.
func (p *Pages) muteMessages(c *gin.Context) error {
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	if err := p.play.MuteMessages(c.Request.Context(), id, account(c).ID, c.PostForm("muted") == "on"); err != nil {
		return p.boardAgain(c, id, err)
	}
	redirect(c, gamePath(id)+"#talk")
	return nil
}

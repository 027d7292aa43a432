package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// Table talk: the players' messages of a game (see play's Say). Posting
// one changes no version of the game; the other players are told on their
// live stream, their webhooks and in their next email of the game.

type messageRequest struct {
	Text   string `json:"text"`
	ToSeat *int   `json:"to_seat"`
}

type messageList struct {
	Messages   []notifier.MessageBody `json:"messages"`
	NextCursor *string                `json:"next_cursor"`
	// Muted is whether the caller muted the game's messages (false for a
	// spectator).
	Muted bool `json:"muted"`
}

type muteRequest struct {
	Muted *bool `json:"muted"`
}

type muteResponse struct {
	GameID int64 `json:"game_id"`
	Muted  bool  `json:"muted"`
}

// messageOut is m as the API gives it (the game's live stream the same).
func messageOut(m play.Said) notifier.MessageBody {
	return notifier.NewMessageBody(m.ID, m.Seat, m.From, m.ToSeat, m.To, m.Text, m.At)
}

// listMessages is a game's table talk as the caller may read it, oldest
// first, after the cursor.
func (s *Server) listMessages(c *gin.Context, id int64) error {
	after, err := decodeCursor(c, "message")
	if err != nil {
		return err
	}
	limit, err := queryInt(c, "limit", 50, 1, 200)
	if err != nil {
		return err
	}
	t, err := s.play.Messages(c.Request.Context(), id, userID(c), after, int(limit)+1)
	if err != nil {
		return err
	}
	out := messageList{Messages: []notifier.MessageBody{}, Muted: t.Muted}
	ms := t.Messages
	if len(ms) > int(limit) {
		ms = ms[:limit]
		out.NextCursor = encodeCursor("message", ms[len(ms)-1].ID)
	}
	for _, m := range ms {
		out.Messages = append(out.Messages, messageOut(m))
	}
	writeJSON(c, http.StatusOK, out)
	return nil
}

// messageLimit is the limit of a player's messages in one game, as the
// RateLimit fields name it.
var messageLimit = accounts.Limit{Name: "messages", Rate: models.RateLimit{Burst: play.MessageBurst, Every: play.MessageEvery}}

// postMessage posts the caller's message to the table, or to one seat.
// With an Idempotency-Key a repeat posts nothing more. A message counted
// in the limit says how it stands (RateLimit).
func (s *Server) postMessage(c *gin.Context) error {
	var req messageRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	counted := func(st models.RateState) {
		router.RateHeaders(c, accounts.Tally{Limits: []accounts.Limit{messageLimit}, States: []models.RateState{st}})
	}
	call := s.gameCall(c, func(ctx context.Context, id, uid int64, rec *play.Record) (*play.Result, error) {
		res, err := s.play.Say(ctx, id, uid, play.Say{Text: req.Text, ToSeat: req.ToSeat}, rec)
		var many *play.TooManyMessagesError
		if errors.As(err, &many) {
			counted(many.State)
			c.Header("Retry-After", strconv.Itoa(many.Seconds()))
			return nil, newError(http.StatusTooManyRequests, "rate_limited", "Too many requests", "%s", many.Error())
		}
		if err == nil {
			counted(res.Rate)
		}
		return res, err
	})
	return s.mutateGame(c, call, func(r *play.Result) response {
		return response{status: http.StatusCreated, body: messageOut(*r.Message)}
	})
}

// muteMessages records whether the caller, a player of the game, mutes
// its messages: a muted game notifies them of none, by any channel.
func (s *Server) muteMessages(c *gin.Context, id int64) error {
	var req muteRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if req.Muted == nil {
		return invalid("muted: required, true or false")
	}
	if err := s.play.MuteMessages(c.Request.Context(), id, userID(c), *req.Muted); err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, muteResponse{GameID: id, Muted: *req.Muted})
	return nil
}

package api

import (
	"context"
	"crypto/subtle"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"time"

	"github.com/datamonsters/turns/refusal"
	"github.com/gin-gonic/gin"
)

// Inbound takes the raw messages that mail providers post (the inbound
// package implements it): the outcome and its reason, or for a sender who
// sent too many replies how long to wait (retry > 0); err is a failure to
// handle the message.
type Inbound interface {
	ReceiveRaw(ctx context.Context, raw []byte) (outcome, reason string, retry time.Duration, err error)
}

// SetInbound installs the inbound mail path behind POST /v1/inbound/email,
// authenticated by secret; without it (or with an empty secret) the route
// answers 503.
func (s *Server) SetInbound(in Inbound, secret string) { s.inbound, s.inboundSecret = in, secret }

// inboundResponse is the answer to a posted message.
type inboundResponse struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
}

// errInboundOff is the answer of the inbound route with no inbound path.
var errInboundOff = newError(http.StatusServiceUnavailable, "inbound_disabled", "Service unavailable",
	"inbound email is not configured (INBOUND_SECRET)")

// inboundEmail takes one raw RFC 5322 message posted by a mail provider:
// the body itself (message/rfc822, text/plain or application/octet-stream)
// or a form field holding it ("email", "body-mime", "message" or "raw").
// The shared secret comes as a bearer token or as the password of basic
// authentication.
func (s *Server) inboundEmail(c *gin.Context) error {
	if s.inbound == nil || s.inboundSecret == "" {
		return errInboundOff
	}
	if !s.inboundAuthorized(c.Request) {
		return newError(http.StatusUnauthorized, "unauthorized", "Unauthorized", "the inbound secret is required")
	}
	raw, err := inboundBody(c.Request)
	if err != nil {
		return err
	}
	outcome, reason, retry, err := s.inbound.ReceiveRaw(c.Request.Context(), raw)
	if err != nil {
		return err
	}
	if retry > 0 {
		return &refusal.RateLimitError{Retry: retry}
	}
	writeJSON(c, http.StatusOK, inboundResponse{Outcome: outcome, Reason: reason})
	return nil
}

func (s *Server) inboundAuthorized(r *http.Request) bool {
	got := ""
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		got = strings.TrimPrefix(h, "Bearer ")
	} else if _, pw, ok := r.BasicAuth(); ok {
		got = pw
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.inboundSecret)) == 1
}

// inboundFields are the form fields that carry the raw message, as the
// providers that post forms name them.
var inboundFields = []string{"email", "body-mime", "message", "raw"}

// inboundBody reads the posted message.
func inboundBody(r *http.Request) ([]byte, error) {
	ct, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "multipart/form-data":
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return nil, invalid("the form has no field %s holding the message", strings.Join(inboundFields, ", "))
			}
			if err != nil {
				return nil, badRequest("the form cannot be read: %v", err)
			}
			for _, f := range inboundFields {
				if p.FormName() == f {
					return readNonEmpty(p)
				}
			}
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, badRequest("the form cannot be read")
		}
		for _, f := range inboundFields {
			if v := r.PostForm.Get(f); v != "" {
				return []byte(v), nil
			}
		}
		return nil, invalid("the form has no field %s holding the message", strings.Join(inboundFields, ", "))
	case "", "message/rfc822", "text/plain", "application/octet-stream":
		return readNonEmpty(r.Body)
	}
	return nil, newError(http.StatusUnsupportedMediaType, "unsupported_media_type", "Unsupported media type",
		"post the raw message as message/rfc822, or in a form field %s", strings.Join(inboundFields, ", "))
}

func readNonEmpty(r io.Reader) ([]byte, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, invalid("the message is empty")
	}
	return raw, nil
}

// gameRepliesRequest turns reply-by-email on or off for one game.
type gameRepliesRequest struct {
	Enabled *bool `json:"enabled"`
}

// gameRepliesResponse is the caller's reply-by-email choice for a game.
type gameRepliesResponse struct {
	GameID  int64 `json:"game_id"`
	Enabled bool  `json:"enabled"`
}

// setGameReplies records whether the caller answers a game's decisions by
// email; only a player of the game may.
func (s *Server) setGameReplies(c *gin.Context, id int64) error {
	var req gameRepliesRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if req.Enabled == nil {
		return invalid("enabled: required, true or false")
	}
	g, seat, err := s.play.Game(c.Request.Context(), id, userID(c))
	if err != nil {
		return err
	}
	if seat < 0 {
		return forbidden("not_a_player", "you have no seat in this game")
	}
	if err := s.store.SetGameEmailReplies(c.Request.Context(), userID(c), g.ID, *req.Enabled); err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, gameRepliesResponse{GameID: g.ID, Enabled: *req.Enabled})
	return nil
}

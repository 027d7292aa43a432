package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// Error is an API error with a stable machine-readable Code.
type Error struct {
	Status int
	Code   string
	Title  string
	Detail string
}

func (e *Error) Error() string { return e.Code + ": " + e.Detail }

// newError returns an *Error with a formatted detail.
func newError(status int, code, title, format string, a ...any) *Error {
	return &Error{Status: status, Code: code, Title: title, Detail: fmt.Sprintf(format, a...)}
}

func badRequest(format string, a ...any) *Error {
	return newError(http.StatusBadRequest, "bad_request", "Bad request", format, a...)
}

func invalid(format string, a ...any) *Error {
	return newError(http.StatusUnprocessableEntity, "invalid", "Invalid request", format, a...)
}

func conflict(code, format string, a ...any) *Error {
	return newError(http.StatusConflict, code, "Conflict", format, a...)
}

func forbidden(code, format string, a ...any) *Error {
	return newError(http.StatusForbidden, code, "Forbidden", format, a...)
}

var (
	errUnauthorized = newError(http.StatusUnauthorized, "unauthorized", "Unauthorized", "a valid bearer token is required")
	errNotFound     = newError(http.StatusNotFound, "not_found", "Not found", "no such resource")
)

// RateLimitError is too many attempts; retry after RetryAfter seconds.
type RateLimitError struct{ RetryAfter int }

func (e *RateLimitError) Error() string { return "rate limited" }

// Problem is an RFC 9457 problem detail.
type Problem struct {
	Type           string   `json:"type"`
	Title          string   `json:"title"`
	Status         int      `json:"status"`
	Detail         string   `json:"detail"`
	Code           string   `json:"code"`
	RequestID      string   `json:"request_id,omitempty"`
	Index          *int     `json:"index,omitempty"`           // illegal_action: the failing action
	Reason         string   `json:"reason,omitempty"`          // illegal_action: the engine's code
	Card           string   `json:"card,omitempty"`            // invalid_deck: the card at fault
	Rule           string   `json:"rule,omitempty"`            // invalid_deck: the rule broken
	CurrentVersion *int64   `json:"current_version,omitempty"` // stale_version
	Step           *int     `json:"step,omitempty"`            // command_refused: the move of the plan at fault, from 1
	Command        string   `json:"command,omitempty"`         // command_refused: the command at fault
	Moves          []string `json:"moves,omitempty"`           // command_refused: the moves at that step, in words
}

// playStatus and playTitle are the status and title of each kind of
// refusal of the play path.
var (
	playStatus = map[play.Kind]int{play.Invalid: http.StatusUnprocessableEntity, play.Conflict: http.StatusConflict,
		play.Forbidden: http.StatusForbidden}
	playTitle = map[play.Kind]string{play.Invalid: "Invalid request", play.Conflict: "Conflict", play.Forbidden: "Forbidden"}
)

// problemType is the stable type URI of a problem code.
func problemType(code string) string { return "urn:datamonsters:problem:" + code }

// problemFor maps any error to the response a client sees. It is the only
// place that decides statuses and codes for errors; unexpected errors become
// a 500 without their text.
func problemFor(err error) Problem {
	var (
		apiErr   *Error
		playErr  *play.Error
		stale    *play.StaleVersionError
		batch    *play.BatchError
		illegal  *engine.IllegalActionError
		deckErr  *engine.DeckError
		rateErr  *RateLimitError
		maxBytes *http.MaxBytesError
		command  *play.CommandError
	)
	p := Problem{Status: http.StatusInternalServerError, Code: "internal", Title: "Internal error",
		Detail: "the server failed to handle the request; it has been logged"}
	switch {
	case errors.As(err, &apiErr):
		p = Problem{Status: apiErr.Status, Code: apiErr.Code, Title: apiErr.Title, Detail: apiErr.Detail}
	case errors.As(err, &playErr):
		p = Problem{Status: playStatus[playErr.Kind], Code: playErr.Code, Title: playTitle[playErr.Kind], Detail: playErr.Detail}
	case errors.As(err, &stale):
		cur := stale.Current
		p = Problem{Status: http.StatusConflict, Code: "stale_version", Title: "Stale version",
			Detail: fmt.Sprintf("the game is at version %d; reload and resubmit", cur), CurrentVersion: &cur}
	case errors.As(err, &command):
		p = Problem{Status: http.StatusUnprocessableEntity, Code: "command_refused", Title: "Command refused",
			Detail: command.Error(), Command: command.Command, Moves: command.Moves}
		if command.Line > 0 {
			idx := command.Line - 1
			p.Index = &idx
		}
		if command.Step > 0 {
			step := command.Step
			p.Step = &step
		}
	case errors.As(err, &batch) && errors.As(err, &illegal):
		idx := batch.Index
		p = Problem{Status: http.StatusUnprocessableEntity, Code: "illegal_action", Title: "Illegal action",
			Detail: fmt.Sprintf("action %d: %s", idx, illegal.Error()), Index: &idx, Reason: illegal.Code}
	case errors.As(err, &illegal):
		p = Problem{Status: http.StatusUnprocessableEntity, Code: "illegal_action", Title: "Illegal action",
			Detail: illegal.Error(), Reason: illegal.Code}
	case errors.As(err, &deckErr):
		p = Problem{Status: http.StatusUnprocessableEntity, Code: "invalid_deck", Title: "Invalid deck",
			Detail: deckErr.Error(), Card: deckErr.Card, Rule: string(deckErr.Rule)}
	case errors.As(err, &rateErr):
		p = Problem{Status: http.StatusTooManyRequests, Code: "rate_limited", Title: "Too many requests",
			Detail: "too many attempts; retry after " + strconv.Itoa(rateErr.RetryAfter) + " seconds"}
	case errors.As(err, &maxBytes):
		p = Problem{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large", Title: "Request body too large",
			Detail: fmt.Sprintf("the body exceeds %d bytes", maxBytes.Limit)}
	case errors.Is(err, models.ErrUnavailable):
		p = Problem{Status: http.StatusServiceUnavailable, Code: "database_unavailable", Title: "Service unavailable",
			Detail: "the database cannot be reached; retry after " + strconv.Itoa(unavailableRetry) + " seconds"}
	case errors.Is(err, models.ErrUnstorableText):
		p = Problem{Status: http.StatusUnprocessableEntity, Code: "invalid", Title: "Invalid request",
			Detail: "a text holds a character that cannot be stored"}
	case errors.Is(err, models.ErrNotFound):
		p = Problem{Status: http.StatusNotFound, Code: "not_found", Title: "Not found", Detail: "no such resource"}
	case errors.Is(err, models.ErrTokenReuse), errors.Is(err, models.ErrInvalidToken):
		p = Problem{Status: http.StatusUnauthorized, Code: "invalid_token", Title: "Invalid token",
			Detail: "the token is unknown, expired or revoked"}
	case errors.Is(err, models.ErrConflict):
		p = Problem{Status: http.StatusConflict, Code: "conflict", Title: "Conflict", Detail: "the resource already exists or changed meanwhile"}
	}
	p.Type = problemType(p.Code)
	return p
}

// unavailableRetry is the Retry-After, in seconds, of a request that
// found the database unreachable (models.ErrUnavailable).
const unavailableRetry = 5

// writeError responds with the problem for err and logs server errors.
func writeError(c *gin.Context, err error) {
	p := problemFor(err)
	p.RequestID = c.GetString(ctxRequestID)
	if p.Status >= 500 {
		c.Error(err) // logged by the request logger
	}
	var rateErr *RateLimitError
	switch {
	case errors.As(err, &rateErr):
		c.Header("Retry-After", strconv.Itoa(rateErr.RetryAfter))
	case errors.Is(err, models.ErrUnavailable):
		c.Header("Retry-After", strconv.Itoa(unavailableRetry))
	}
	if p.Status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", `Bearer realm="datamonsters"`)
	}
	c.Header("Content-Type", "application/problem+json")
	c.AbortWithStatusJSON(p.Status, p)
}

package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/refusal"
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

func forbidden(code, format string, a ...any) *Error {
	return newError(http.StatusForbidden, code, "Forbidden", format, a...)
}

var (
	errUnauthorized = newError(http.StatusUnauthorized, "unauthorized", "Unauthorized", "a valid bearer token is required")
	errNotFound     = newError(http.StatusNotFound, "not_found", "Not found", "no such resource")
)

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

// problemType is the stable type URI of a problem code.
func problemType(code string) string { return "urn:datamonsters:problem:" + code }

// kindProblem is the one place the API says a refusal's kind: a problem
// with the status of the kind (the shared table's, as the pages answer
// it), the kind's title, and code and detail.
func kindProblem(k refusal.Kind, code, detail string) Problem {
	titles := map[refusal.Kind]string{refusal.Invalid: "Invalid request", refusal.Conflict: "Conflict",
		refusal.Forbidden: "Forbidden", refusal.NotFound: "Not found", refusal.Unauthorized: "Unauthorized",
		refusal.RateLimited: "Too many requests", refusal.TooLarge: "Request body too large",
		refusal.Unavailable: "Service unavailable", refusal.Internal: "Internal error"}
	return Problem{Status: k.Status(), Code: code, Title: titles[k], Detail: detail}
}

// ProblemFor maps any error to the response a client sees. It is the only
// place that decides codes for errors (their statuses are their kind's;
// see kindProblem); unexpected errors become a 500 without their text.
func ProblemFor(err error) Problem {
	var (
		apiErr   *Error
		re       *refusal.Error
		stale    *play.StaleVersionError
		batch    *play.BatchError
		illegal  *engine.IllegalActionError
		deckErr  *engine.DeckError
		rateErr  *refusal.RateLimitError
		maxBytes *http.MaxBytesError
		command  *play.CommandError
		resume   *notifier.ResumeError
	)
	k := router.KindOf(err)
	p := kindProblem(refusal.Internal, "internal", "the server failed to handle the request; it has been logged")
	switch {
	case errors.As(err, &apiErr):
		p = Problem{Status: apiErr.Status, Code: apiErr.Code, Title: apiErr.Title, Detail: apiErr.Detail}
	case errors.As(err, &re):
		p = kindProblem(k, re.Code, re.Detail)
	case errors.As(err, &stale):
		cur := stale.Current
		p = kindProblem(k, "stale_version", fmt.Sprintf("the game is at version %d; reload and resubmit", cur))
		p.Title, p.CurrentVersion = "Stale version", &cur
	case errors.As(err, &command):
		p = kindProblem(k, "command_refused", command.Error())
		p.Title, p.Command, p.Moves = "Command refused", command.Command, command.Moves
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
		p = kindProblem(k, "illegal_action", fmt.Sprintf("action %d: %s", idx, illegal.Error()))
		p.Title, p.Index, p.Reason = "Illegal action", &idx, illegal.Code
	case errors.As(err, &illegal):
		p = kindProblem(k, "illegal_action", illegal.Error())
		p.Title, p.Reason = "Illegal action", illegal.Code
	case errors.As(err, &deckErr):
		p = kindProblem(k, "invalid_deck", deckErr.Error())
		p.Title, p.Card, p.Rule = "Invalid deck", deckErr.Card, string(deckErr.Rule)
	case errors.As(err, &rateErr):
		p = kindProblem(k, "rate_limited", "too many attempts; retry after "+strconv.Itoa(rateErr.RetryAfter())+" seconds")
	case errors.As(err, &resume):
		p = Problem{Status: http.StatusBadRequest, Code: "bad_request", Title: "Bad request", Detail: resume.Error()}
	case errors.As(err, &maxBytes):
		p = kindProblem(k, "body_too_large", fmt.Sprintf("the body exceeds %d bytes", maxBytes.Limit))
	case k == refusal.Unavailable:
		p = kindProblem(k, "database_unavailable", "the database did not answer in time; retry after "+strconv.Itoa(unavailableRetry)+" seconds")
	case errors.Is(err, models.ErrUnstorableText):
		p = kindProblem(k, "invalid", "a text holds a character that cannot be stored")
	case k == refusal.NotFound:
		p = kindProblem(k, "not_found", "no such resource")
	case k == refusal.Unauthorized: // the store's: a refresh token unknown, expired, revoked or reused
		p = kindProblem(k, "invalid_token", "the token is unknown, expired or revoked")
		p.Title = "Invalid token"
	case k == refusal.Conflict:
		p = kindProblem(k, "conflict", "the resource already exists or changed meanwhile")
	}
	p.Type = problemType(p.Code)
	return p
}

// unavailableRetry is the Retry-After, in seconds, of a request that
// found the database unreachable (models.ErrUnavailable).
const unavailableRetry = 5

// handle adapts a handler that returns its refusal: the handler writes
// its own success, and writeError answers every error it returns, so
// that a refusal is written in one place.
func handle(h func(*gin.Context) error) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			writeError(c, err)
		}
	}
}

// handleID is handle for a route that names its resource by ":id" in the
// path: an id that is not a positive integer is refused (400) before h
// runs.
func handleID(h func(c *gin.Context, id int64) error) gin.HandlerFunc {
	return handle(func(c *gin.Context) error {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		return h(c, id)
	})
}

// writeError responds with the problem for err and logs server errors.
func writeError(c *gin.Context, err error) {
	p := ProblemFor(err)
	p.RequestID = c.GetString(ctxRequestID)
	if p.Status >= 500 {
		c.Error(err) // logged by the request logger
	}
	var rateErr *refusal.RateLimitError
	switch {
	case errors.As(err, &rateErr):
		c.Header("Retry-After", strconv.Itoa(rateErr.RetryAfter()))
	case errors.Is(err, models.ErrUnavailable):
		c.Header("Retry-After", strconv.Itoa(unavailableRetry))
	}
	if p.Status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", `Bearer realm="datamonsters"`)
	}
	c.Header("Content-Type", "application/problem+json")
	c.AbortWithStatusJSON(p.Status, p)
}

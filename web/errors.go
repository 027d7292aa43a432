package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// pageError is an error with what the error page says: its status, a
// heading and a sentence for the reader.
type pageError struct {
	Status  int
	Title   string
	Message string
}

func (e *pageError) Error() string { return e.Title + ": " + e.Message }

var (
	errNotFound    = &pageError{http.StatusNotFound, "Page not found", "There is nothing at this address, or it is not yours to see."}
	errCrossOrigin = &pageError{http.StatusForbidden, "Request refused", "This form was sent from another site. Open the page on this site and send it again."}
	errMethod      = &pageError{http.StatusMethodNotAllowed, "Not here", "This address takes no such request. Use the page's own links and buttons."}
	errNoMail      = &pageError{http.StatusServiceUnavailable, "Mail unavailable", "This server cannot send email right now. Try again later."}
)

// rateLimited is too many attempts: try again after RetryAfter seconds.
type rateLimited struct{ RetryAfter int }

func (e *rateLimited) Error() string { return "rate limited" }

// apiProblem is an error answer of the JSON API to a call of the pages:
// its status, code and detail (which names the field at fault).
type apiProblem struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

func (e *apiProblem) Error() string { return e.Code + ": " + e.Detail }

// errorView is the error page's data.
type errorView struct {
	Title   string
	Message string
}

// problemFor maps any error to the error page's status, heading and text.
// It is the only place that decides them; an unexpected error is a 500
// without its text.
func problemFor(err error) (int, errorView) {
	var (
		pe    *pageError
		rate  *rateLimited
		ap    *apiProblem
		mb    *http.MaxBytesError
		stale *play.StaleVersionError
		ill   *engine.IllegalActionError
		perr  *play.Error
		deck  *engine.DeckError
	)
	switch {
	case errors.As(err, &pe):
		return pe.Status, errorView{pe.Title, pe.Message}
	case errors.As(err, &stale):
		return http.StatusConflict, errorView{"The game moved on", "Someone acted since this page was shown; here is the game as it is now. Nothing of yours was applied."}
	case errors.As(err, &ill): // a *play.BatchError's, or the engine's own
		return http.StatusUnprocessableEntity, errorView{"That move is not possible", sentence(ill.Error())}
	case errors.As(err, &deck):
		why := deck.Reason
		if deck.Card != "" {
			why = deck.Card + ": " + why
		}
		return http.StatusUnprocessableEntity, errorView{"That deck cannot be played", sentence(why)}
	case errors.As(err, &perr):
		status := http.StatusUnprocessableEntity
		switch perr.Kind {
		case play.Conflict:
			status = http.StatusConflict
		case play.Forbidden:
			status = http.StatusForbidden
		}
		return status, errorView{"That did not work", sentence(perr.Detail)}
	case errors.As(err, &rate):
		return http.StatusTooManyRequests, errorView{"Too many attempts",
			"Wait " + strconv.Itoa(rate.RetryAfter) + " seconds, then try again."}
	case errors.As(err, &ap) && ap.Status < 500:
		return ap.Status, errorView{"That did not work", sentence(ap.Detail)}
	case errors.As(err, &mb):
		return http.StatusRequestEntityTooLarge, errorView{"Too much data", "The form sent more than this server accepts."}
	case errors.Is(err, models.ErrNotFound):
		return errNotFound.Status, errorView{errNotFound.Title, errNotFound.Message}
	}
	return http.StatusInternalServerError, errorView{"Something went wrong",
		"The server could not handle this request; it has been logged. Try again in a moment."}
}

// fail answers with the error page for err, and logs server errors.
func (p *Pages) fail(c *gin.Context, err error) {
	status, ev := problemFor(err)
	if status >= 500 {
		c.Error(err) // logged by the request logger
	}
	var rate *rateLimited
	if errors.As(err, &rate) {
		c.Header("Retry-After", strconv.Itoa(rate.RetryAfter))
	}
	p.render(c, status, "error", view{Data: ev})
}

// sentence makes an API detail ("ends_at: after starts_at") read as a
// sentence on a page.
func sentence(s string) string {
	if s == "" {
		return s
	}
	b := []byte(s)
	if b[0] >= 'a' && b[0] <= 'z' {
		b[0] -= 'a' - 'A'
	}
	if last := b[len(b)-1]; last != '.' && last != '?' && last != '!' {
		b = append(b, '.')
	}
	return string(b)
}

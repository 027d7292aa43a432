package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/refusal"
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

// errorView is the error page's data.
type errorView struct {
	Title   string
	Message string
}

// kindPage is the one place the pages say a refusal's kind: the status
// (the shared table's, as the API answers it) and what the error page
// says of a refusal of kind k, for one that says no more of itself.
func kindPage(k refusal.Kind) (int, errorView) {
	views := map[refusal.Kind]errorView{
		refusal.Invalid:      {"That did not work", "This request cannot be done as sent."},
		refusal.Conflict:     {"That did not work", "This cannot be done now: something changed meanwhile."},
		refusal.Forbidden:    {"That did not work", "This is not yours to do."},
		refusal.NotFound:     {errNotFound.Title, errNotFound.Message},
		refusal.Unauthorized: {"That did not work", "Sign in again, then try again."},
		refusal.RateLimited:  {"Too many attempts", "Wait a while, then try again."},
		refusal.TooLarge:     {"Too much data", "The form sent more than this server accepts."},
		refusal.Unavailable: {"Service unavailable",
			"The server's database did not answer in time. In a moment, open the page again to see what was saved, then try again."},
		refusal.Internal: {"Something went wrong",
			"The server could not handle this request; it has been logged. Try again in a moment."},
	}
	v, ok := views[k]
	if !ok {
		k, v = refusal.Internal, views[refusal.Internal]
	}
	return k.Status(), v
}

// problemFor maps any error to the error page's status, heading and text.
// It is the only place that decides them (statuses are their kind's; see
// kindPage); an unexpected error is a 500 without its text.
func problemFor(err error) (int, errorView) {
	var (
		pe    *pageError
		rate  *refusal.RateLimitError
		stale *play.StaleVersionError
		ill   *engine.IllegalActionError
		re    *refusal.Error
		deck  *engine.DeckError
		resu  *notifier.ResumeError
	)
	if errors.As(err, &pe) {
		return pe.Status, errorView{pe.Title, pe.Message}
	}
	if errors.As(err, &resu) { // malformed as sent, as the API answers it
		return http.StatusBadRequest, errorView{"That did not work", sentence(resu.Error())}
	}
	status, v := kindPage(router.KindOf(err))
	switch {
	case errors.As(err, &stale):
		v = errorView{"The game moved on", "Someone acted since this page was shown; here is the game as it is now. Nothing of yours was applied."}
	case errors.As(err, &ill): // a *play.BatchError's, or the engine's own
		v = errorView{"That move is not possible", sentence(ill.Error())}
	case errors.As(err, &deck):
		why := deck.Reason
		if deck.Card != "" {
			why = deck.Card + ": " + why
		}
		v = errorView{"That deck cannot be played", sentence(why)}
	case errors.As(err, &re):
		v.Message = sentence(re.Detail)
	case errors.As(err, &rate):
		v.Message = "Wait " + strconv.Itoa(rate.RetryAfter()) + " seconds, then try again."
	}
	return status, v
}

// ErrorPage is what the pages answer err with (problemFor): the status,
// and the error page's heading and sentence.
func ErrorPage(err error) (status int, heading, message string) {
	status, v := problemFor(err)
	return status, v.Title, v.Message
}

// handle adapts a handler that returns its refusal: the handler writes
// its own page, and fail answers every error it returns, so that an error
// page is written in one place.
func (p *Pages) handle(h func(*gin.Context) error) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			p.fail(c, err)
		}
	}
}

// fail answers with the error page for err, and logs server errors.
func (p *Pages) fail(c *gin.Context, err error) {
	status, ev := problemFor(err)
	if status >= 500 {
		c.Error(err) // logged by the request logger
	}
	var rate *refusal.RateLimitError
	if errors.As(err, &rate) {
		c.Header("Retry-After", strconv.Itoa(rate.RetryAfter()))
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

package main

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/api"
	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/inbound"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/refusal"
	"github.com/datamonsters/turns/web"
)

// TestEveryKindThroughEveryDoor walks every kind of refusal through the
// three front doors: the API and the pages answer it with the one status
// of the shared table (so that they cannot disagree: a database out of
// reach is 503 on both), each with words of its own, and an email reply
// refused for it is answered (with the refusal's own detail) unless the
// kind is temporary, when it is refused for now and delivered again.
// Each kind goes through as a typed refusal and as the errors of its kind
// the store, the engine and the play path give.
func TestEveryKindThroughEveryDoor(t *testing.T) {
	natural := map[refusal.Kind][]error{
		refusal.Invalid: {&engine.IllegalActionError{Code: "not_your_turn", Reason: "it is not your turn"},
			&engine.DeckError{Reason: "too many copies"}, &play.CommandError{Reason: "no such move"}, models.ErrUnstorableText},
		refusal.Conflict:     {&play.StaleVersionError{Current: 7}, fmt.Errorf("save: %w", models.ErrConflict)},
		refusal.NotFound:     {fmt.Errorf("game 3: %w", models.ErrNotFound)},
		refusal.Unauthorized: {models.ErrInvalidToken, models.ErrTokenReuse},
		refusal.RateLimited:  {&refusal.RateLimitError{Retry: 3 * time.Second}},
		refusal.TooLarge:     {&http.MaxBytesError{Limit: 1 << 20}},
		refusal.Unavailable:  {fmt.Errorf("read: %w", models.ErrUnavailable)},
		refusal.Internal:     {errors.New("disk on fire")},
	}
	for _, k := range refusal.Kinds {
		errs := append([]error{&refusal.Error{Kind: k, Code: "test_refusal", Detail: "the detail of the refusal"}}, natural[k]...)
		for _, err := range errs {
			name := fmt.Sprintf("%v/%T", k, err)
			p := api.ProblemFor(err)
			if p.Status != k.Status() || p.Title == "" || p.Code == "" || p.Type == "" {
				t.Errorf("%s: the API answers %+v, want status %d", name, p, k.Status())
			}
			status, heading, message := web.ErrorPage(err)
			if status != k.Status() || heading == "" || message == "" {
				t.Errorf("%s: the page answers %d %q %q, want status %d", name, status, heading, message, k.Status())
			}
			// A change the database left unanswered may have been made
			// at its last moment: no door may say that nothing changed.
			if k == refusal.Unavailable && (strings.Contains(message, "nothing") || strings.Contains(p.Detail, "nothing")) {
				t.Errorf("%s: %q / %q says nothing changed, which it cannot know", name, p.Detail, message)
			}
			if errors.As(err, new(*http.MaxBytesError)) {
				continue // a body past the limit is the HTTP doors'; mail is bounded by the SMTP server (552)
			}
			text, answered := inbound.RefusalAnswer(err, 3, "nothing was played")
			if text == "" || answered == k.Temporary() {
				t.Errorf("%s: the email door answers %q (answered %v)", name, text, answered)
			}
			if answered && err == errs[0] && !strings.Contains(text, "The detail of the refusal") {
				t.Errorf("%s: the answer %q does not give the refusal's detail", name, text)
			}
		}
	}
}

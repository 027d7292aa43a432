package refusal

import (
	"errors"
	"fmt"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// Kind says what sort of refusal an error is, for a front door to say in
// its own medium.
type Kind int

// The kinds of refusal. A new one is added here, to Kinds and to the
// table, and then to the one function of each door that says it (the
// test of the doors fails until every door does).
const (
	Invalid      Kind = iota + 1 // the request itself is wrong: a field, a deck, a move, a name
	Conflict                     // the state of things does not allow it now
	Forbidden                    // the caller may not do it
	NotFound                     // no such thing, or not the caller's to see
	Unauthorized                 // no credential, or one that is no good (any more)
	RateLimited                  // too many attempts; one more is taken later
	TooLarge                     // the request is larger than taken
	Unavailable                  // the database cannot be reached or did not answer in time; the same request may work later
	Internal                     // a failure of the server, not of the request
)

// Kinds lists every kind, in the order above.
var Kinds = []Kind{Invalid, Conflict, Forbidden, NotFound, Unauthorized, RateLimited, TooLarge, Unavailable, Internal}

// kinds is the table: each kind's name, the HTTP status both HTTP doors
// (the API and the pages) answer it with, and whether the same request
// may succeed later as it is.
var kinds = map[Kind]struct {
	name      string
	status    int
	temporary bool
}{
	Invalid:      {"invalid", 422, false},
	Conflict:     {"conflict", 409, false},
	Forbidden:    {"forbidden", 403, false},
	NotFound:     {"not found", 404, false},
	Unauthorized: {"unauthorized", 401, false},
	RateLimited:  {"rate limited", 429, true},
	TooLarge:     {"too large", 413, false},
	Unavailable:  {"unavailable", 503, true},
	Internal:     {"internal", 500, true},
}

// String is the kind's name ("not found"); an unknown kind is "kind(n)".
func (k Kind) String() string {
	if e, ok := kinds[k]; ok {
		return e.name
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Status is the HTTP status of a refusal of kind k, the same on the API
// and on the pages; an unknown kind is 500.
func (k Kind) Status() int {
	if e, ok := kinds[k]; ok {
		return e.status
	}
	return 500
}

// Temporary reports whether a request refused for k may succeed later as
// it is (too many attempts, the database away, a failure of the server):
// the answer asks to try again rather than to change something.
func (k Kind) Temporary() bool {
	e, ok := kinds[k]
	return !ok || e.temporary
}

// Error is a refusal of the play path or of the accounts. Code is stable
// and machine-readable ("game_not_open", "bad_credentials", "invalid",
// …); Detail is for people and names the field, seat or rule.
type Error struct {
	Kind   Kind
	Code   string
	Detail string
}

func (e *Error) Error() string { return e.Code + ": " + e.Detail }

// New returns an *Error of kind k with code and a formatted detail.
func New(k Kind, code, format string, a ...any) *Error {
	return &Error{Kind: k, Code: code, Detail: fmt.Sprintf(format, a...)}
}

// RateLimitError is too many attempts: one more is taken after Retry.
// Nothing of the refused attempt was done. It is the one rate-limit error
// of every door (sign-ins, forms, email replies).
type RateLimitError struct{ Retry time.Duration }

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("too many attempts; try again in %v", e.Retry.Round(time.Second))
}

// RetryAfter is Retry in whole seconds, past the second it ends in (at
// least 1): the Retry-After of an answer.
func (e *RateLimitError) RetryAfter() int { return int(e.Retry/time.Second) + 1 }

// Limit is one of the attempt limits: its name, which keys its buckets
// apart from the other limits' (and names it to clients, "login
// account"), and its rate.
type Limit struct {
	Name string
	Rate models.RateLimit
}

// Tally is how the buckets an attempt was counted in stand after it: the
// limits in the order counted, and the state of each bucket reached (a
// refused attempt stops at the first bucket with none left, so the later
// ones are in Limits alone). The zero Tally counted nothing.
type Tally struct {
	Limits []Limit
	States []models.RateState
}

// Kinded is an error of another package that says its kind (a stale
// version is a Conflict, a refused command Invalid).
type Kinded interface {
	error
	RefusalKind() Kind
}

// KindOf is the kind of refusal err is: an *Error's own, a
// *RateLimitError's, a Kinded error's, the engine's refusals (Invalid),
// and the store's sentinel errors (unreachable, not found, a token that is
// no good, a conflict, a text it cannot keep); anything else is Internal.
// A nil error has no kind (0).
func KindOf(err error) Kind {
	var (
		re      *Error
		rl      *RateLimitError
		kinded  Kinded
		illegal *engine.IllegalActionError
		deck    *engine.DeckError
	)
	switch {
	case err == nil:
		return 0
	case errors.As(err, &re):
		return re.Kind
	case errors.As(err, &rl):
		return RateLimited
	case errors.As(err, &kinded):
		return kinded.RefusalKind()
	case errors.As(err, &illegal), errors.As(err, &deck):
		return Invalid
	case errors.Is(err, models.ErrUnavailable):
		return Unavailable
	case errors.Is(err, models.ErrUnstorableText):
		return Invalid
	case errors.Is(err, models.ErrNotFound):
		return NotFound
	case errors.Is(err, models.ErrTokenReuse), errors.Is(err, models.ErrInvalidToken):
		return Unauthorized
	case errors.Is(err, models.ErrConflict):
		return Conflict
	}
	return Internal
}

// LimitReached refuses to make one more of what (a plural: "open games")
// for an account that has max of them, the most one account may have at
// once; instead says how to make room ("start or cancel one first").
func LimitReached(max int, what, instead string) *Error {
	return New(Conflict, "limit_reached", "you have %d %s, the most one account may have; %s", max, what, instead)
}

package play

import (
	"fmt"

	"github.com/datamonsters/turns/refusal"
)

// Kind says what sort of refusal an Error is, for a front door to map to
// its own terms (an HTTP status, a page, a reply email): the kinds of
// package refusal, which the accounts share.
type Kind = refusal.Kind

// The kinds of refusal the play path gives.
const (
	Invalid   = refusal.Invalid   // the request itself is wrong: a setting, a deck, a name
	Conflict  = refusal.Conflict  // the game is not in a state that allows it
	Forbidden = refusal.Forbidden // the caller may not do it in this game
)

// Error is a refusal of the play path. Code is stable and machine-readable
// ("game_not_open", "not_creator", "invalid", …); Detail is for people and
// names the field, seat or rule.
type Error = refusal.Error

func invalid(format string, a ...any) *Error {
	return &Error{Kind: Invalid, Code: "invalid", Detail: fmt.Sprintf(format, a...)}
}

func conflict(code, format string, a ...any) *Error {
	return &Error{Kind: Conflict, Code: code, Detail: fmt.Sprintf(format, a...)}
}

func forbidden(code, format string, a ...any) *Error {
	return &Error{Kind: Forbidden, Code: code, Detail: fmt.Sprintf(format, a...)}
}

// Refusals more than one operation gives.
var (
	ErrNotOpen   = conflict("game_not_open", "the game has already started or was cancelled")
	ErrNotPlayer = forbidden("not_a_player", "you have no seat in this game")
	// ErrAccountDeleted refuses a change or a sign-in of an account
	// deleted meanwhile, as a request after the deletion is refused.
	ErrAccountDeleted = refusal.New(refusal.Unauthorized, "account_deleted", "your account has been deleted")
)

// StaleVersionError is a submission computed from an old version of the
// game; Current is the version it is at.
type StaleVersionError struct {
	Current int64
	// standing: a seat of the game has set standing answers (and may have
	// cleared them), so that the versions since may have been moved by
	// them alone (afterStanding).
	standing bool
}

func (e *StaleVersionError) Error() string {
	return fmt.Sprintf("stale version; current is %d", e.Current)
}

// RefusalKind is Conflict: the game moved on.
func (e *StaleVersionError) RefusalKind() refusal.Kind { return refusal.Conflict }

// BatchError is an illegal action at Index of a submitted batch; Err is
// the engine's *engine.IllegalActionError.
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string { return fmt.Sprintf("action %d: %v", e.Index, e.Err) }
func (e *BatchError) Unwrap() error { return e.Err }

// Package accounts is the player's life beside the game's (package
// play): registration, sign-in attempts and their limits, password
// hashing and checks, the address and its verification, password reset,
// sessions and tokens of every kind (access tokens, rotating refresh
// tokens, personal API tokens, browser sessions), the profile and
// notification preferences, vacations, the calendar feed's token, and
// deleting an account.
//
// The JSON API and the web pages both call it, each translating a request
// into a call and the answer into its medium; neither calls the other.
// Refusals are typed: *refusal.Error (with a Kind and a stable Code, as
// play's), *refusal.RateLimitError for too many attempts, and the store's
// errors (models.ErrNotFound, models.ErrInvalidToken, …). An attempt that
// counts against a limit returns a Tally of the buckets it was counted in,
// for a door that tells its client how they stand.
//
// What the links of emails carry, and the mail itself, are the doors'
// (notifier signs links, the pages word the mail); this package says
// what a link is bound to (the address it verifies, the password a reset
// replaces) and does what the link allows. It knows nothing of HTTP: it
// imports neither net/http nor gin, directly or through another package
// of the project.
package accounts

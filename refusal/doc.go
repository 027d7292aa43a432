// Package refusal is the one table of the ways a request is refused,
// shared by play, accounts and the three front doors. A refusal has a
// Kind (Invalid, Conflict, NotFound, RateLimited, Unavailable, …); each
// door says a kind in its medium in one small function (the API a status
// and a problem, a page a status and a heading, an email an answer), and
// the HTTP status of a kind is this table's, so the API and the pages
// cannot disagree. A new refusal is added here once.
//
// Error is the typed refusal of play and accounts (a Kind, a stable Code
// and a Detail for people); RateLimitError is the one "too many attempts"
// of every door; KindOf says the kind of any error. The package knows
// nothing of HTTP.
package refusal

// Package rating is the Glicko-2 rating system of Mark Glickman ("Example
// of the Glicko-2 system", Boston University, 2013), with a pairwise
// extension to games of three and four players. It is pure: the standard
// library only, no clock, no storage.
//
// Every player has a rating r, a rating deviation RD (how uncertain r is)
// and a volatility σ (how erratic the player's results are). Update is
// Glickman's steps 1 to 8 for one player over one rating period; Table
// rates one finished game of two to four players, each pair of them being
// one game of the period between them, scored by their final ranks (the
// better rank wins, equal ranks draw); Idle is the growth of RD over
// rating periods without games.
//
// The service's choices (see docs/ratings.md): τ = 0.5; a new player has
// r = 1500, RD = 350 and σ = 0.06; RD never grows past 350; each finished
// rated game is one rating period for its players, and every whole week
// (IdlePeriod) without a rated game counts as a period without games.
package rating

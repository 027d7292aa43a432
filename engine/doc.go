// Package engine implements the rules of Data Monsters: Gather and Measure
// as a pure, deterministic function of a state and an action.
//
// A game is a *State created by NewGame. Apply validates one action of one
// seat and, if it is legal, changes the state and returns the events;
// otherwise it returns an *IllegalActionError and leaves the state as it
// was. Legal lists the actions a seat may take now, using the same
// predicates that Apply checks; an open prompt is listed once, its answers
// described by its options and Min/Max, never enumerated. Moves gives the
// same list in words for the seat, each action and option with its text
// (View.Text writes them from the seat's view, so they reveal nothing the
// view does not). View returns what one seat (or a spectator) may know;
// EventsFor redacts events for a seat. News words what changed for a seat
// in a run of events, in the sentences a board's banner and an email's
// first lines show. For teaching the game, Glossary explains every word
// the cards print (Card.Terms, a card's own), BlockedCards says why a card
// of the hand cannot be played, Move.Warning what a move loses, and
// View.Hint how the seat plays now.
//
// The engine never blocks. Every decision is a Prompt stored in the state,
// and the work in progress (the turn's phases, an effect half-way through,
// an event waiting for its interrupt window) is a stack of Tasks, so a game
// can wait days between two answers and still serialize to JSON.
//
// Randomness comes from the 256-bit secret inside the state (Setup.Secret):
// each action draws its shuffles and random choices from one ChaCha8
// stream and its instance ids from another, both keyed by the secret and
// the state's version, so ids say nothing of shuffles and a replay does not
// depend on how much earlier actions drew. A game publishes Commitment at
// the start and Reveal gives its secret at the end, so that anyone can
// replay it (docs/fairness.md). Time enters only through the timeout
// action. The package uses no clock, no global random source, and no map
// iteration that affects results. Cards are data (see docs/cards.md).
package engine

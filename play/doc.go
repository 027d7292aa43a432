// Package play is the game's life between the front doors and the store:
// creating a game, the lobby (join, leave, decline, start, cancel, a
// rematch of a finished game), turns (a batch
// of actions at a version, prompt answers, resigning, voting to end), the
// clock (timeouts) and the seats the service plays (bot moves, forfeits,
// takeovers and seats taken back).
//
// Every change goes through one function, Service.change, which locks the
// game in a store transaction, lets the operation decide, and records what
// it decided: for a lobby change the game and its seats with a new version;
// for a change of the engine state the snapshot, the action and event log,
// the prompts, who is awaited, the deadline, the status and the winners,
// each seat's run of timeouts and any takeover. The store writes the
// notifications of the change in the same transaction (models.Outbox).
//
// The table talk (messages.go: Say, SayLine, Messages, MuteMessages) is
// the one thing a player adds to a game outside the rules: a message is
// stored with its notifications (models.MessageOutbox) but changes no
// version, and play decides who may write and who reads what.
//
// Front doors (the JSON API, web pages, email replies) translate a request
// into a call and the Result into a response; they decide nothing about a
// game. Refusals are typed: *Error (with a Kind and a stable Code; the
// kinds are package refusal's, which the accounts share),
// *StaleVersionError, *BatchError wrapping the engine's
// *engine.IllegalActionError, *engine.DeckError, and models.ErrNotFound for
// a game the caller may not see. News words what changed for a seat since
// a version, for the doors that tell players. The package knows nothing
// of HTTP.
package play

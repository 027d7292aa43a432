package api

import (
	"fmt"
	"unicode/utf8"
)

// Bounds on what one request may ask for, besides the body size limit
// (Config.MaxBodyBytes): a list or string that the service keeps (in the
// game state, a webhook row, the preferences) or works through item by
// item is held to what any legitimate client needs, so that no request
// makes the server allocate, store or loop over more than a bounded
// amount. A request past a bound gets 422 naming the field. Deck counts
// are the engine's to bound (engine.ValidateDeck holds each to its card's
// copy limit before any sum), so that the error names the card and rule.
const (
	maxIDLength      = 128  // a card, instance, prompt, option or event id
	maxChallenges    = 32   // challenges claimed by one action (the Market holds far fewer)
	maxChoices       = 256  // options chosen by one answer
	maxStandingPlays = 64   // standing answers of a seat: (event, card) pairs
	maxDeckEntries   = 200  // entries of a deck list
	maxDeckName      = 64   // characters of a deck's name, as openapi.yaml counts them
	maxWebhookURL    = 2000 // bytes of a webhook URL
	maxWebhookEvents = 20   // kinds a webhook names
	maxPreferences   = 100  // preferences set by one request
)

// checkActionLimits holds each action of a batch to the bounds above; the
// error names the action's index and the field.
func checkActionLimits(actions []submittedAction) error {
	for i, a := range actions {
		if field, bound := actionLimit(a.actionInput); field != "" {
			return invalid("actions[%d].%s: %s", i, field, bound)
		}
	}
	return nil
}

// actionLimit returns the field of a that breaks a bound and the bound, or
// "" if a keeps them all.
func actionLimit(a actionInput) (field, bound string) {
	long := fmt.Sprintf("at most %d characters", maxIDLength)
	switch {
	case len(a.Type) > maxIDLength:
		return "type", long
	case len(a.Card) > maxIDLength:
		return "card", long
	case len(a.Prompt) > maxIDLength:
		return "prompt", long
	case len(a.Challenges) > maxChallenges:
		return "challenges", fmt.Sprintf("at most %d entries", maxChallenges)
	case len(a.Choices) > maxChoices:
		return "choices", fmt.Sprintf("at most %d entries", maxChoices)
	}
	for j, id := range a.Challenges {
		if len(id) > maxIDLength {
			return fmt.Sprintf("challenges[%d]", j), long
		}
	}
	for j, id := range a.Choices {
		if len(id) > maxIDLength {
			return fmt.Sprintf("choices[%d]", j), long
		}
	}
	if a.Standing == nil {
		return "", ""
	}
	if len(a.Standing.Plays) > maxStandingPlays {
		return "standing.plays", fmt.Sprintf("at most %d entries", maxStandingPlays)
	}
	for j, p := range a.Standing.Plays {
		if len(p.On) > maxIDLength || len(p.Card) > maxIDLength {
			return fmt.Sprintf("standing.plays[%d]", j), "on and card " + long
		}
	}
	return "", ""
}

// checkDeckLimits holds a deck request's name and list to their bounds,
// before the engine's deck-building rules look at its cards.
func checkDeckLimits(req deckRequest) error {
	switch {
	case req.Name == "" || utf8.RuneCountInString(req.Name) > maxDeckName:
		return invalid("name: 1 to %d characters", maxDeckName)
	case len(req.Cards) > maxDeckEntries:
		return invalid("cards: at most %d entries", maxDeckEntries)
	}
	for i, e := range req.Cards {
		if len(e.Card) > maxIDLength {
			return invalid("cards[%d].card: at most %d characters", i, maxIDLength)
		}
	}
	return nil
}

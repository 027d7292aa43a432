package engine

import "slices"

// The kinds of the events the engine records (Event.Kind), as they are
// stored and sent: every event the engine makes has one of these, and
// EventKinds lists them all. (A proposed event's kind, which interrupts
// answer, is an EventKind: EvDraw and the others.)
const (
	KindGameStarted        = "game_started"        // the game begins: its players, who goes first
	KindTurnStarted        = "turn_started"        // a turn begins (N: its number)
	KindTurnEnded          = "turn_ended"          // the active player's turn ends
	KindDrew               = "drew"                // cards drawn (the cards for their owner only)
	KindDeckReshuffled     = "deck_reshuffled"     // a Recycle Bin shuffled into a new Laboratory Deck
	KindDiscarded          = "discarded"           // cards discarded from a hand
	KindPlayed             = "played"              // a card played from a hand: a Hack, a Tool, a card to place
	KindWindowOpened       = "window_opened"       // an interrupt window opens on a proposed event
	KindAnswered           = "answered"            // a seat answered a window or a question
	KindWindowClosed       = "window_closed"       // an interrupt window closes (N: the interrupts played)
	KindPrompt             = "prompt"              // a question to a seat (for that seat)
	KindWaiting            = "waiting"             // the game waits for a seat's answer (for the others)
	KindCancelled          = "cancelled"           // an interrupt cancelled a proposed event
	KindAltered            = "altered"             // an interrupt changed a proposed event
	KindHackResolved       = "hack_resolved"       // a Hack's effect applied
	KindToolPlayed         = "tool_played"         // a Tool added to the Software Build
	KindRecipeCompleted    = "recipe_completed"    // a stack Tool's recipe is in the build: its effect applies
	KindBoosted            = "boosted"             // an effect added TECH or SCI to the build
	KindClaimFailed        = "claim_failed"        // a claim that the build no longer covers
	KindBuildCompleted     = "build_completed"     // a claim won (N: the Big Data Points)
	KindChallengeRevealed  = "challenge_revealed"  // a challenge opens in the Market
	KindBuildAbandoned     = "build_abandoned"     // an open build given up
	KindPlaced             = "placed"              // a card placed in a Lab
	KindKept               = "kept"                // of two cards of a name, the one in the Lab stays
	KindPlaceFailed        = "place_failed"        // a placement the Lab no longer allows
	KindActivated          = "activated"           // a Lab card's once-per-turn ability used
	KindLooked             = "looked"              // cards looked at on top of a deck, one taken
	KindRecovered          = "recovered"           // cards taken back from a Recycle Bin
	KindRecycled           = "recycled"            // a Recycle Bin shuffled into a Laboratory Deck by an effect
	KindChallengeRefreshed = "challenge_refreshed" // a Market challenge put under the Challenge Deck
	KindBounce             = "bounce"              // a card sent from a Lab back to its owner's hand
	KindScrap              = "scrap"               // a card sent from a Lab to its owner's Recycle Bin
	KindGlobalExpired      = "global_expired"      // a Global card leaves the Global zone
	KindStandingSet        = "standing_set"        // a seat's standing answers saved (for that seat)
	KindVotedEnd           = "voted_end"           // a vote to end the game
	KindResigned           = "resigned"            // a player resigns
	KindTimeout            = "timeout"             // time ran out for seats
	KindGameOver           = "game_over"           // the end, with the scores and the winners
	KindQueued             = "queued"              // actions of a batch wait for the game (for their seat)
	KindQueueResumed       = "queue_resumed"       // waiting actions went on (for their seat)
	KindQueueDropped       = "queue_dropped"       // waiting actions no longer apply (for their seat)
	KindResealed           = "resealed"            // the game got a new random source (Reseal)
)

// eventKinds is every kind of event, in the order of the constants.
var eventKinds = [...]string{
	KindGameStarted, KindTurnStarted, KindTurnEnded, KindDrew, KindDeckReshuffled, KindDiscarded, KindPlayed,
	KindWindowOpened, KindAnswered, KindWindowClosed, KindPrompt, KindWaiting, KindCancelled, KindAltered,
	KindHackResolved, KindToolPlayed, KindRecipeCompleted, KindBoosted, KindClaimFailed, KindBuildCompleted,
	KindChallengeRevealed, KindBuildAbandoned, KindPlaced, KindKept, KindPlaceFailed, KindActivated, KindLooked,
	KindRecovered, KindRecycled, KindChallengeRefreshed, KindBounce, KindScrap, KindGlobalExpired, KindStandingSet,
	KindVotedEnd, KindResigned, KindTimeout, KindGameOver, KindQueued, KindQueueResumed, KindQueueDropped, KindResealed,
}

// EventKinds lists every kind of event the engine records (a new slice).
func EventKinds() []string { return slices.Clone(eventKinds[:]) }

// IsEventKind reports whether kind is the kind of an event the engine
// records.
func IsEventKind(kind string) bool { return slices.Contains(eventKinds[:], kind) }

// ownMoves are the kinds of the events that word a seat's move as the seat
// made it (see Event.Echoes).
var ownMoves = [...]string{
	KindPlayed, KindPlaced, KindToolPlayed, KindActivated, KindBuildAbandoned, KindTurnEnded, KindAnswered,
	KindStandingSet, KindVotedEnd, KindResigned,
}

// chosenMoves are the kinds of the events that carry out a question's
// answer, which name the question when the seat chose the answer itself
// (Event.Prompt): cards discarded, taken from a deck's top or from a
// Recycle Bin.
var chosenMoves = [...]string{KindDiscarded, KindLooked, KindRecovered}

// Echoes reports whether e words a move of seat as seat made it (a card
// played or placed, a Tool played, an ability used, a build given up, a
// turn ended, an answer, the cards its answer chose discarded or taken,
// standing answers saved, a vote, a resignation): what an answer to the
// move already says in the move's own words, where only what came of it
// (a draw, a cancellation, a claim won or failed, the next turn, cards
// discarded at random or by a default answer at a timeout) is news to
// them.
func (e Event) Echoes(seat int) bool {
	return seat >= 0 && e.Seat == seat && (slices.Contains(ownMoves[:], e.Kind) || e.Chosen())
}

// Chosen reports whether e carries out an answer its seat chose itself
// (cards discarded, taken from a deck's top or a Recycle Bin), as seen by
// that seat: the others' copy does not name the question.
func (e Event) Chosen() bool { return e.Prompt != "" && slices.Contains(chosenMoves[:], e.Kind) }

// Unasked is the log's lines of views, events as their reader sees them
// (For), less the empty ones and those that ask again the questions ps
// put to that reader (asked): what a message that shows those questions
// on their own lists of what happened.
func Unasked(views []Event, ps []Prompt) []string {
	again := asked(views, ps)
	var out []string
	for i, v := range views {
		if v.Text != "" && !again[i] {
			out = append(out, v.Text)
		}
	}
	return out
}

// asked marks the events that ask again the questions ps put to their
// reader (Unasked). They are each question's own event and, for an
// interrupt question put to its reader alone, the event that opened its
// window ("Ben is about to play ...; Ana may answer"), the last such, so
// that an earlier window on a like event, closed since, keeps its line. A
// window that asks others too keeps its line, which names them.
func asked(events []Event, ps []Prompt) []bool {
	out := make([]bool, len(events))
	for _, p := range ps {
		opened := -1
		for i, e := range events {
			switch {
			case e.Kind == KindPrompt && e.Prompt == p.ID:
				out[i] = true
			case e.Kind == KindWindowOpened && p.Kind == PromptInterrupt && e.Seat == p.Actor && e.On == p.Event && slices.Equal(e.Seats, []int{p.Seat}):
				opened = i
			}
		}
		if opened >= 0 {
			out[opened] = true
		}
	}
	return out
}

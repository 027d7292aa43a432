package notifier

import (
	"strconv"
	"strings"

	"github.com/datamonsters/turns/engine"
)

// Subject is the subject of every email about c's game, the same from
// the first to the last so that every mail client keeps them in one
// conversation: "[Data Monsters] Game #12, hosted by ana" (the game's
// title and its host, c.Host, who is in the game from its invitations to
// its end, when the other players may still change before the start).
// What changed is each email's headline. Mail about no game (the digest)
// has a subject of its own.
func Subject(c Common) string {
	s := "[Data Monsters] " + gameName(c)
	if c.Host != "" {
		s += ", hosted by " + c.Host
	}
	return s
}

// gameName is the game as the emails name it: its title, else its id.
func gameName(c Common) string {
	if c.GameTitle != "" {
		return c.GameTitle
	}
	if c.GameID != "" {
		return "game " + c.GameID
	}
	return "your games"
}

// Headline says in one sentence what changed for the recipient of d: the
// first line of its email's body, below the greeting, where a mail client
// shows it beside the subject, which names the game and never changes.
func Headline(d Data) string {
	c := d.base()
	switch x := d.(type) {
	case Invitation:
		return x.Inviter + ` invites you to play "` + gameName(c) + `", a ` + strconv.Itoa(x.Seats) + "-player " + x.Mode +
			" game of Data Monsters."
	case GameStarted:
		if x.YourTurn {
			return "The game has started: you play first."
		}
		return "The game has started: " + x.FirstPlayer + " plays first."
	case YourTurn:
		return "It is your turn" + turnWords(x.Turn) + "."
	case PromptWaiting:
		what := "A decision waits"
		if len(x.Prompts) > 1 {
			what = strconv.Itoa(len(x.Prompts)) + " decisions wait"
		}
		s := what + " for you"
		if x.InYourTurn {
			s += " during your turn" + turnWords(x.Turn)
		} else if x.TurnOf != "" {
			s += " during " + x.TurnOf + "'s turn" + turnWords(x.Turn)
		}
		return s + "."
	case QueuedActions:
		if x.Dropped {
			return "Your queued actions were dropped after the interrupt window closed" + turnWords(x.Turn) + "."
		}
		return "Your queued actions were played" + turnWords(x.Turn) + ": the interrupt window closed."
	case DeadlineReminder:
		when := c.Until(x.Deadline)
		if when == "" {
			when = "soon"
		}
		if x.Prompt {
			return "Reminder: your answer is due " + when + "."
		}
		return "Reminder: your turn ends " + when + "."
	case TimeoutApplied:
		who := x.Player
		if x.You {
			who = "You"
		}
		if x.Prompt {
			return who + " ran out of time: the default answers applied."
		}
		return who + " ran out of time: the turn ended with the default choices."
	case GameOver:
		s := "Game over"
		if x.Reason != "" {
			s += ": " + x.Reason
		}
		return s + "." + winnersWords(x.Scores)
	case VacationNotice:
		return x.Player + " is away until " + c.Date(x.Until) + ": their clocks are paused."
	case SeatReclaimed:
		return "Your seat is yours again: you play it yourself from now on" + turnWords(x.Turn) + "."
	case TableTalk:
		if x.Private {
			return x.From + " wrote to you, and to no one else at the table."
		}
		return x.From + " wrote to the table."
	case ReplyAnswer:
		switch {
		case len(x.Applied) > 0 && x.Over != nil:
			return "Your moves were played. " + Headline(*x.Over)
		case len(x.Applied) > 0:
			return "Your moves were played."
		case x.Taken:
			return "That decision was already taken; nothing was played."
		case len(x.Said) > 1:
			return "Your messages were posted."
		case len(x.Said) > 0:
			return "Your message was posted."
		}
		return "Nothing was played."
	}
	return ""
}

// DeadlineLabel says what the deadline d's email gives is the deadline
// of: "answer by" when a prompt of another seat's turn waits for its
// recipient, else "your turn ends" (a turn, and the choices it asks for,
// are due together). The email says "Deadline: your turn ends <when>".
func DeadlineLabel(d Data) string {
	var ps []Prompt
	switch x := d.(type) {
	case PromptWaiting:
		ps = x.Prompts
	case DeadlineReminder:
		if !x.Prompt {
			return "your turn ends"
		}
		ps = x.Prompts
		if len(ps) == 0 {
			return "answer by"
		}
	case YourTurn:
		ps = x.Prompts
	case SeatReclaimed:
		ps = x.Prompts
	case ReplyAnswer:
		ps = x.Prompts
	}
	for _, p := range ps {
		if !p.OwnTurn {
			return "answer by"
		}
	}
	return "your turn ends"
}

func turnWords(turn int) string {
	if turn <= 0 {
		return ""
	}
	return " (turn " + strconv.Itoa(turn) + ")"
}

// winnersWords names the winners of a finished game: " You won.", " Cleo
// won.", " Ana and you share the win."
func winnersWords(scores []Score) string {
	var names []string
	you := false
	for _, s := range scores {
		if !s.Winner {
			continue
		}
		if s.You {
			you = true
			names = append(names, "you")
		} else {
			names = append(names, s.Player)
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(names) == 1 && you:
		return " You won."
	case len(names) == 1:
		return " " + names[0] + " won."
	}
	s := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " share the win."
	return " " + engine.Capitalize(s)
}

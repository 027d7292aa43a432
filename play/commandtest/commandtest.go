// Package commandtest holds the table of the command language's tests:
// positions and, for each text of commands, what it must play or why it
// is refused. The play path's own tests and the API's tests of command
// batches run the same table, each door its own way.
package commandtest

// Position is the table's game, a scenario position: Ana (seat 0) is in
// her Action phase with two Glitchys in hand (a Junior, which asks which
// of two stays, and a Senior, which replaces the Junior of her Lab, whose
// Glitchy adds 1 TECH to her builds), three Tools that together cover
// Landing Page, and Hiring Freeze; Ben holds no interrupt, so no window
// opens. Her lines: 1 and 2 place the Glitchys, 3 to 5 play the Tools in
// that order, 6 ends the turn.
const Position = `
name: the command language's table
players:
  - name: Ana
    hand: [glitchy-junior, glitchy-senior, frontend-framework, rapid-prototype, open-source-library, hiring-freeze]
    lab: [glitchy-junior]
    deck: [data-lake, proof-of-concept, design-system]
  - name: Ben
    hand: [open-source-library]
    deck: [rapid-prototype, data-lake]
market: [landing-page, spam-filter, todo-app]
challenge_deck: [sales-dashboard, booking-system]
`

// Question is a position where a question of several options waits for
// Ana: on his turn Ben played Layoffs (each opponent discards 2 cards)
// and, in the same batch, placed Qubo, which waits behind her answer.
// Her lines are the five cards of her hand, to discard two: 1 Data Lake,
// 2 Glitchy (Junior), 3 Doodle (Junior), 4 Hiring Freeze, 5 Rapid
// Prototype. Once she has answered, Ben's place goes on and, if she kept
// Hiring Freeze, opens an interrupt window for her. Her standing answers
// already play Scope Creep when a claim is proposed.
const Question = `
name: the command language's table, a question of several options
cards:
  - {id: t-layoffs, name: Layoffs, type: hack, effects: [{trigger: play, do: [{op: discard, n: 2, who: opponents}]}]}
players:
  - name: Ana
    hand: [data-lake, glitchy-junior, doodle-junior, hiring-freeze, rapid-prototype]
    deck: [proof-of-concept, design-system]
    standing: {plays: [{on: claim, card: scope-creep}]}
  - name: Ben
    hand: [t-layoffs, qubo-junior]
    deck: [rapid-prototype, data-lake]
active: 1
market: [landing-page, spam-filter, todo-app]
challenge_deck: [sales-dashboard, booking-system]
steps:
  - seat: 1
    batch:
      - {do: play_hack, card: t-layoffs}
      - {do: place, card: qubo-junior}
`

// Window is Question once Ana has discarded Data Lake and Doodle: Ben's
// place of Qubo opens an interrupt window for her. Her lines: 1 Pass, 2
// Play Hiring Freeze.
const Window = Question + `  - {seat: 0, answer: [data-lake, doodle-junior]}
`

// Positions are the table's positions, for a fuzz test to try any text
// on each.
var Positions = []string{Position, Question, Window}

// Case is one text of commands, written by Ana (seat 0) at At (a
// scenario of the table; "" is Position). Played are the texts of the
// moves it plays, in order (the engine's words for the seat at each
// step); or else Step and Err say where and why it is refused (Step 0:
// the text itself). Skipped are the parts an email reply skips as no
// command; the API, where each command is one element of a list, refuses
// them instead.
type Case struct {
	Name    string
	At      string
	Text    string
	Played  []string
	Skipped []string
	Step    int
	Err     string
}

// Scenario is the position the case's text answers.
func (c Case) Scenario() string {
	if c.At == "" {
		return Position
	}
	return c.At
}

// Cases are the table's rows.
var Cases = []Case{
	{Name: "a claim named after the plays that make it legal", Text: "play frontend framework\nplay rapid prototype\nplay open source library\nclaim landing page\nend",
		Played: []string{"Play Frontend Framework (TECH 2, SCI 0), starting a Software Build",
			"Play Rapid Prototype (TECH 1, SCI 2) into your build (TECH 3, SCI 0 so far)",
			"Play Open Source Library (TECH 1, SCI 1) into your build (TECH 4, SCI 2 so far)",
			"Claim Landing Page (TECH 4, SCI 2, 1 BDP) with your build (TECH 5, SCI 3)", "End your turn"}},
	{Name: "the same in one line, commas between", Text: "play front, play rapid, play open, claim landing, end",
		Played: []string{"Play Frontend Framework (TECH 2, SCI 0), starting a Software Build",
			"Play Rapid Prototype (TECH 1, SCI 2) into your build (TECH 3, SCI 0 so far)",
			"Play Open Source Library (TECH 1, SCI 1) into your build (TECH 4, SCI 2 so far)",
			"Claim Landing Page (TECH 4, SCI 2, 1 BDP) with your build (TECH 5, SCI 3)", "End your turn"}},
	{Name: "a command that fails at step 3 names step 3", Text: "play frontend framework\nplay open source library\nclaim spam filter\nend",
		Step: 3, Err: `no move at this step reads "claim spam filter"`},
	{Name: "a claim that the build does not cover yet", Text: "play frontend framework\nclaim landing page",
		Step: 2, Err: `no move at this step reads "claim landing page"`},
	{Name: "nothing after the end of the turn", Text: "end\nplay rapid prototype", Step: 2, Err: "nothing waits for you at this step: it is Ben's turn"},
	{Name: "a range is its lines", Text: "3-4", Played: []string{"Play Frontend Framework (TECH 2, SCI 0), starting a Software Build",
		"Play Rapid Prototype (TECH 1, SCI 2) into your build (TECH 3, SCI 0 so far)"}},
	{Name: "a range going down is refused", Text: "5-4", Err: "the range 5-4 goes down"},
	{Name: "a negative number is refused, not read as 1", Text: "-1", Err: `"-1" is not a line's number`},
	{Name: "a decimal is refused, not read as 1 and 5", Text: "1.5", Err: `"1.5" is not a line's number`},
	{Name: "a number after a sentence's end", Text: "4.", Played: []string{"Play Rapid Prototype (TECH 1, SCI 2), starting a Software Build"}},
	{Name: "chatty lines skipped", Text: "Hi,\nplay rapid prototype\nend\nThanks! Good luck\nSent with Proton Mail secure email.\nVon Outlook für Android gesendet",
		Played:  []string{"Play Rapid Prototype (TECH 1, SCI 2), starting a Software Build", "End your turn, abandoning your build of 1 Tool"},
		Skipped: []string{"Hi", "Thanks! Good luck", "Sent with Proton Mail secure email.", "Von Outlook für Android gesendet"}},
	{Name: "an ambiguous line refuses the reply", Text: "place glitchy\nend", Step: 1, Err: `"place glitchy" could be lines 1 or 2`},
	{Name: "a line with a verb that names nothing", Text: "please place my best card", Step: 1, Err: `no line of the email's list reads "please place my best card"`},
	{Name: "a line with a card name is no chatter", Text: "end\nI love Glitchy", Step: 2, Err: "nothing waits for you at this step"},
	{Name: "only chatter", Text: "Thanks!", Err: "holds no command"},
	{Name: "numbers name the list, words the step", Text: "2\nplay front, end", Played: []string{"Place Glitchy (Senior): replaces your Glitchy (Junior)",
		"Play Frontend Framework (TECH 2, SCI 0), starting a Software Build", "End your turn, abandoning your build of 1 Tool"}},
	{Name: "a move and end on one line", Text: "place glitchy senior end", Played: []string{"Place Glitchy (Senior): replaces your Glitchy (Junior)", "End your turn"}},
	{Name: "a number no line has", Text: "42", Step: 1, Err: "the list you answered has no move 42 (it numbers 6)"},
	{Name: "a standing answer", Text: "always pass", Played: []string{"Set your standing interrupt answers: always pass"}},
	{Name: "a standing play named by the card", Text: "hiring freeze when place", Played: []string{"Set your standing interrupt answers: play Hiring Freeze when place"}},
	{Name: "a standing play named with play", Text: "always pass\nplay hiring freeze when place",
		Played: []string{"Set your standing interrupt answers: always pass", "Set your standing interrupt answers: always pass; play Hiring Freeze when place"}},
	{Name: "accents and case do not matter, the last word may be cut", Text: "PLACE Glîtchy SÉN end",
		Played: []string{"Place Glitchy (Senior): replaces your Glitchy (Junior)", "End your turn"}},
	{Name: "a line chosen twice", Text: "3 3", Step: 1, Err: "3 is given twice"},
	{Name: "a signature after the commands", Text: "4\nend\n\nAna", Played: []string{"Play Rapid Prototype (TECH 1, SCI 2), starting a Software Build",
		"End your turn, abandoning your build of 1 Tool"}, Skipped: []string{"Ana"}},
	{Name: "nothing at all", Text: "", Err: "holds no command"},
	{Name: "a standing play for no event", Text: "play hiring freeze when lunch", Err: `after "when" name an event`},
	{Name: "a line by its number", Text: "2", Played: []string{"Place Glitchy (Senior): replaces your Glitchy (Junior)"}},
	{Name: "numbers on one line", Text: "2 3 6", Played: []string{"Place Glitchy (Senior): replaces your Glitchy (Junior)",
		"Play Frontend Framework (TECH 2, SCI 0), starting a Software Build", "End your turn, abandoning your build of 1 Tool"}},
	{Name: "numbers and end, a line each", Text: "2\n3\nend", Played: []string{"Place Glitchy (Senior): replaces your Glitchy (Junior)",
		"Play Frontend Framework (TECH 2, SCI 0), starting a Software Build", "End your turn, abandoning your build of 1 Tool"}},
	{Name: "numbers and end, commas between", Text: "2, 3, end", Played: []string{"Place Glitchy (Senior): replaces your Glitchy (Junior)",
		"Play Frontend Framework (TECH 2, SCI 0), starting a Software Build", "End your turn, abandoning your build of 1 Tool"}},
	{Name: "a Tool by its name cut short, in any case", Text: "Play Rap", Played: []string{"Play Rapid Prototype (TECH 1, SCI 2), starting a Software Build"}},
	{Name: "a claim in capitals, its name cut short", Text: "play frontend framework\nplay rapid prototype\nplay open source library\nCLAIM LANDING",
		Played: []string{"Play Frontend Framework (TECH 2, SCI 0), starting a Software Build",
			"Play Rapid Prototype (TECH 1, SCI 2) into your build (TECH 3, SCI 0 so far)",
			"Play Open Source Library (TECH 1, SCI 1) into your build (TECH 4, SCI 2 so far)",
			"Claim Landing Page (TECH 4, SCI 2, 1 BDP) with your build (TECH 5, SCI 3)"}},
	{Name: "a Junior by its level", Text: "place glitchy junior", Played: []string{"Place Glitchy (Junior): you choose which Glitchy stays"}},
	{Name: "a Senior by its level", Text: "place glitchy senior", Played: []string{"Place Glitchy (Senior): replaces your Glitchy (Junior)"}},
	{Name: "a card that is not in the hand", Text: "place unicorn", Step: 1, Err: `no line of the email's list reads "place unicorn"`},

	// A sign-off at the end: words of no form of the language that name no
	// card and hold no number, and match no move at their step.
	{Name: "a sign-off after the commands is skipped", Text: "4\nend\n\nTake care", Played: []string{
		"Play Rapid Prototype (TECH 1, SCI 2), starting a Software Build", "End your turn, abandoning your build of 1 Tool"}, Skipped: []string{"Take care"}},
	{Name: "a sentence with when after the commands is skipped", Text: "2\nend\nLet me know when you can",
		Played: []string{"Place Glitchy (Senior): replaces your Glitchy (Junior)", "End your turn"}, Skipped: []string{"Let me know when you can"}},
	{Name: "a control's word in a sign-off does nothing", Text: "4\nend\nresign now", Played: []string{
		"Play Rapid Prototype (TECH 1, SCI 2), starting a Software Build", "End your turn, abandoning your build of 1 Tool"}, Skipped: []string{"resign now"}},
	{Name: "a sign-off and nothing else refuses the reply", Text: "Take care", Step: 1, Err: `no line of the email's list reads "take care"`},
	{Name: "such words before a command refuse the reply", Text: "take care\nend", Step: 1, Err: `no line of the email's list reads "take care"`},
	{Name: "such words at the end that name a move play it", Text: "3\nabandon your build", Played: []string{
		"Play Frontend Framework (TECH 2, SCI 0), starting a Software Build", "Abandon your build (TECH 3, SCI 0): its Tool goes to your Recycle Bin"}},
	{Name: "such words at the end that name several moves refuse the reply", Text: "3\nplay", Step: 2, Err: `"play" could be`},

	// A question of several options: the options go together, by their
	// numbers or by their words, and the plan goes on past it.
	{Name: "options of a question by their numbers", At: Question, Text: "discard 1 3",
		Played: []string{"Discard Data Lake (TECH 0, SCI 2) and Doodle (Junior)"}},
	{Name: "options of a question by their words, in the order written", At: Question, Text: "discard doodle, discard data lake",
		Played: []string{"Discard Doodle (Junior) and Data Lake (TECH 0, SCI 2)"}},
	{Name: "the answer, then the window it lets open", At: Question, Text: "1 3\npass",
		Played: []string{"Discard Data Lake (TECH 0, SCI 2) and Doodle (Junior)", "Pass"}},
	// engine.Choose refuses options of one question split by another line;
	// no seat has another line beside a question of several options, so
	// here the three numbers are three options of a question that takes 2.
	{Name: "three options of a question that takes two", At: Question, Text: "1 5 2", Step: 1, Err: `takes 2 options, given together on one line (as "2 5"), and this gives 3`},
	{Name: "one option of a question that takes two", At: Question, Text: "1", Step: 1,
		Err: `is not possible at this step: the question "Layoffs: discard 2 cards" takes 2 options, given together on one line (as "2 5"), and this gives 1`},
	{Name: "a pass while no window waits", At: Question, Text: "PASS", Step: 1, Err: "passing (no interrupt window waits for you) is not among your moves"},
	{Name: "a window that the answer keeps from opening", At: Question, Text: "discard hiring freeze, discard data lake\npass",
		Step: 2, Err: "nothing waits for you at this step: it is Ben's turn"},
	{Name: "a standing play added to those the seat has", At: Question, Text: "hiring freeze when place",
		Played: []string{"Set your standing interrupt answers: play Scope Creep when claim; play Hiring Freeze when place"}},
	{Name: "a standing play that answers the window the plan opens", At: Question, Text: "hiring freeze when place\n1 3",
		Played: []string{"Set your standing interrupt answers: play Scope Creep when claim; play Hiring Freeze when place",
			"Discard Data Lake (TECH 0, SCI 2) and Doodle (Junior)"}},

	// An interrupt window.
	{Name: "a pass in capitals", At: Window, Text: "PASS", Played: []string{"Pass"}},
	{Name: "an interrupt by its words", At: Window, Text: "play hiring freeze", Played: []string{"Play Hiring Freeze: cancel it"}},
	{Name: "a pass and a signature", At: Window, Text: "pass\n\nAna", Played: []string{"Pass"}, Skipped: []string{"Ana"}},
	{Name: "a pass and thanks that say pass", At: Window, Text: "pass\nThanks, I'll pass on the next one", Played: []string{"Pass"},
		Skipped: []string{"Thanks", "I'll pass on the next one"}},
	{Name: "both options of a question that takes one", At: Window, Text: "1 2", Step: 1,
		Err: `1 and 2 both answer the question "Ben is about to place Qubo (Junior). Play an interrupt Hack, or pass", which takes one answer: give one of them`},
	{Name: "the end of a turn that is not hers", At: Window, Text: "end", Step: 1, Err: "ending your turn is not among your moves"},
	// The email's example reads "1 4 end": after her answer nothing waits
	// for her, and an "end" that ends the reply is skipped, not refused
	// (a refusal would hold Ben's turn until she replied again).
	{Name: "a pass, then the end of a turn that is not hers", At: Window, Text: "pass\nend", Played: []string{"Pass"}, Skipped: []string{"end"}},
	{Name: "a pass by number, then end", At: Window, Text: "1 end", Played: []string{"Pass"}, Skipped: []string{"end"}},
	{Name: "a pass, an end, then a move in Ben's turn", At: Window, Text: "pass\nend\n2", Step: 2, Err: "nothing waits for you at this step: it is Ben's turn"},
}

package notifier

import (
	"bytes"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"regexp"
	"slices"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"
)

// Kind names a notification and its templates (templates/<kind>.txt and
// templates/<kind>.html).
type Kind string

// Notification kinds, one per thing the service tells a player.
const (
	KindInvitation       Kind = "invitation"        // you were invited to a game
	KindGameStarted      Kind = "game_started"      // the game you are in has started
	KindYourTurn         Kind = "your_turn"         // it is your turn
	KindPromptWaiting    Kind = "prompt_waiting"    // a prompt waits for your answer
	KindQueuedActions    Kind = "queued_actions"    // your queued actions were resumed or dropped
	KindDeadlineReminder Kind = "deadline_reminder" // most of your time is used up
	KindTimeoutApplied   Kind = "timeout_applied"   // a deadline passed and the default was applied
	KindGameOver         Kind = "game_over"         // final scores
	KindVacation         Kind = "vacation"          // another player is away; clocks pause
	KindSeatReclaimed    Kind = "seat_reclaimed"    // you took your seat back from the bot: what it did
	KindDigest           Kind = "digest"            // the daily summary
	KindMessage          Kind = "message"           // a player wrote to the table, or to you
	// KindReplyAnswer is the answer to a reply with moves; it is an email
	// only, so it is not in Kinds.
	KindReplyAnswer Kind = "reply_answer"
)

// Kinds lists every kind, in the order above.
var Kinds = []Kind{
	KindInvitation, KindGameStarted, KindYourTurn, KindPromptWaiting, KindQueuedActions,
	KindDeadlineReminder, KindTimeoutApplied, KindGameOver, KindVacation, KindSeatReclaimed, KindDigest, KindMessage,
}

// Data is the input of Render: one of the structs below. All of them hold
// plain strings and times that the caller has already redacted for the
// recipient; templates print them as given (HTML-escaped in the HTML body).
type Data interface {
	Kind() Kind
	base() Common
}

// Common holds what every notification has. Methods on Common format times
// for the templates.
type Common struct {
	Recipient string // the recipient's display name
	GameID    string // "" for mail about no single game (the digest)
	GameTitle string // the game's title as its creator typed it
	GameURL   string // link to the game in a client; "" hides the link
	// Host is the game's host, its creator, who holds a seat of it from
	// before the start to the end: the subject of its every email names
	// them (see Subject); "": the subject names the game only.
	Host string

	UnsubscribeURL string // one-click unsubscribe for this kind of mail; "" hides it
	SettingsURL    string // notification preferences; "" hides it

	// Now is the rendering time, for relative phrases ("in 3 hours"); the
	// zero value leaves them out, so output depends only on the data.
	Now time.Time
	// Location is the recipient's time zone; nil means UTC.
	Location *time.Location
	// TimeZone names the recipient's time zone (IANA), from which the email
	// worker sets Location as it renders; "" means UTC.
	TimeZone string
	// ReplyTo is the reply address of a decision email, set as it is sent
	// when its recipient answers by email (see Board); "" says that replies
	// are not read. It is never stored.
	ReplyTo string
	// TalkReply says that ReplyTo is a message's own address (Reply.Talk):
	// a reply to it is posted as a message, not read as moves. Never
	// stored.
	TalkReply bool `json:"-"`
	// Talk is the table talk of the game that the recipient's emails have
	// not shown yet, oldest first, and TalkEarlier how many messages
	// before those are left out; the email worker sets both as it renders
	// (see withTalk). Never stored nor sent to webhooks or streams.
	Talk        []TalkLine
	TalkEarlier int
	// Quiet, when the game's deadline was moved out of quiet hours, says
	// so (QuietNote, QuietLine); nil: it was not.
	Quiet *QuietMove `json:",omitempty"`
}

// TalkLine is a message of the table talk as an email shows it: its
// author, whether it was written to the recipient only, when, and its
// text as written (escaped in the HTML body).
type TalkLine struct {
	From    string
	Private bool
	At      time.Time
	Text    string
}

// Lines is the text's lines: broken at CRLF, LF and at a CR alone, which
// a mail reader breaks at too (the quoted-printable body writes it as a
// line break), so that every line of the text is indented as its own.
func (t TalkLine) Lines() []string { return splitLines(t.Text) }

// splitLines is s's lines, broken at CRLF, LF and a CR alone.
func splitLines(s string) []string {
	return strings.Split(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n"), "\n")
}

func (c Common) base() Common { return c }

// When formats t for the recipient, e.g. "Tue 1 Dec 2026, 14:00 UTC"; ""
// for the zero time.
func (c Common) When(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	loc := c.Location
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("Mon 2 Jan 2006, 15:04 MST")
}

// Date formats the day of t for the recipient, e.g. "Tue 1 Dec 2026"; ""
// for the zero time.
func (c Common) Date(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	loc := c.Location
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("Mon 2 Jan 2006")
}

// Until describes how far t lies after Now: "in 2 days 3 hours",
// "in 45 minutes", "in less than a minute", or "overdue". It is "" when Now
// or t is zero.
func (c Common) Until(t time.Time) string {
	if t.IsZero() || c.Now.IsZero() {
		return ""
	}
	d := t.Sub(c.Now)
	if d <= 0 {
		return "overdue"
	}
	return "in " + HumanDuration(d)
}

// Due formats t with When and, if known, Until: "Tue 1 Dec 2026,
// 14:00 UTC (in 2 days 3 hours)".
func (c Common) Due(t time.Time) string {
	s := c.When(t)
	if u := c.Until(t); u != "" && s != "" {
		s += " (" + u + ")"
	}
	return s
}

// HumanDuration writes d in at most two units, rounded down: "3 days",
// "2 days 3 hours", "1 hour 5 minutes", "45 minutes", "less than a
// minute".
func HumanDuration(d time.Duration) string {
	if d < time.Minute {
		return "less than a minute"
	}
	units := []struct {
		size time.Duration
		name string
	}{{24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}}
	var parts []string
	for _, u := range units {
		if n := int(d / u.size); n > 0 {
			parts = append(parts, plural(n, u.name))
			d -= time.Duration(n) * u.size
		} else if len(parts) > 0 {
			break
		}
		if len(parts) == 2 {
			break
		}
	}
	return strings.Join(parts, " ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// Card is a card in the recipient's hand: its name and the text lines the
// engine generates for it (type and stats, then effects).
type Card struct {
	Name  string
	Lines []string
}

// Prompt is a decision waiting for the recipient: the question and the
// answers they may give (the engine's legal answers, already worded).
type Prompt struct {
	Text     string
	Options  []string
	Deadline time.Time // zero: no deadline of its own
	// OnTimeout says what an unanswered prompt takes at its deadline, for
	// its seat ("you pass", "the first option is chosen: ..."); "" says
	// nothing.
	OnTimeout string
	// OwnTurn: a choice of the recipient's own turn, due when the turn
	// ends (its deadline is the turn's).
	OwnTurn bool
}

// Score is one player's final result.
type Score struct {
	Player string
	Points int // Big Data Points
	Winner bool
	You    bool // this row is the recipient
	// Rank is the player's place, 1 for the winners; 0 in a notification
	// written before ranks.
	Rank int `json:",omitempty"`
}

// Invitation: someone invited the recipient to a game.
type Invitation struct {
	Common
	Inviter string
	Players []string // seated and invited players so far
	// Joined are the players who have joined with a deck, Invited those
	// invited who have not (the recipient among them), and Open the seats
	// nobody holds yet: who has joined, truthfully.
	Joined         []string
	Invited        []string
	Open           int
	Seats          int           // 2-4
	Mode           string        // "standard", "fast" or "office"
	TurnDeadline   time.Duration // 0: not shown
	PromptDeadline time.Duration // 0: not shown
	JoinURL        string        // where to accept; "" falls back to GameURL
}

// GameStarted: the game has started.
type GameStarted struct {
	Common
	Players     []string  // in seat order
	FirstPlayer string    // whose turn comes first
	YourTurn    bool      // the recipient plays first
	Deadline    time.Time // the first turn's deadline; zero: none
	Hand        []Card    // YourTurn: the recipient's hand
	Board       *Board    // YourTurn: the game and the recipient's numbered moves; nil hides them
}

// YourTurn: it is the recipient's turn.
type YourTurn struct {
	Common
	Turn  int      // turn number; 0 hides it
	Since []string // what happened since the recipient last acted, redacted for them
	// News is what changed for the recipient, in the sentences of the
	// board's banner (News): the first lines of the email. It is not part
	// of the notification's public payload.
	News []string
	// Told are the lines of Since that News tells: the email leaves them
	// out of its list (the "since" partial). Not part of the public
	// payload either.
	Told     []string
	Hand     []Card    // the recipient's hand
	Prompts  []Prompt  // prompts also waiting for the recipient
	Deadline time.Time // when the turn times out; zero: no deadline
	Board    *Board    // the game and the recipient's numbered moves; nil hides them
}

// PromptWaiting: a prompt waits for the recipient, usually during another
// player's turn (an interrupt window, a choice).
type PromptWaiting struct {
	Common
	TurnOf string   // whose turn it is ("" to leave out)
	Turn   int      // turn number; 0 hides it
	Since  []string // what happened since the recipient last acted
	// InYourTurn: the turn is the recipient's own (a card of theirs asks
	// them to choose, an opponent's interrupt lets them answer), which the
	// email says as "your turn". Not part of the public payload, whose
	// turn_of names the seat.
	InYourTurn bool
	// News and Told: what changed for the recipient, and the lines of
	// Since it tells, as YourTurn says.
	News     []string
	Told     []string
	Prompts  []Prompt  // at least one
	Hand     []Card    // the recipient's hand, to decide with
	Deadline time.Time // when unanswered prompts pass; zero: no deadline
	Board    *Board    // the game and the recipient's numbered moves; nil hides them
}

// QueuedActions: actions the recipient queued behind an interrupt window
// were resumed, or dropped because one of them became illegal.
type QueuedActions struct {
	Common
	Dropped bool     // false: all resumed
	Actions []string // what ran of the queue, in words (the engine's events)
	Reason  string   // Dropped: which action was dropped, and why
	Turn    int      // the turn whose queue it was; 0 hides it
	// News: what changed for the recipient, as YourTurn.News says.
	News []string
}

// DeadlineReminder: most of the recipient's time is used up.
type DeadlineReminder struct {
	Common
	Prompt   bool      // the deadline is for prompts, not the turn
	Prompts  []Prompt  // the prompts still waiting (Prompt true)
	Deadline time.Time // required
	Hand     []Card    // the recipient's hand, to decide with
	Board    *Board    // the game and the recipient's numbered moves; nil hides them
}

// ReplyAnswer: the answer to the recipient's email reply with moves. It
// goes to the recipient only, in the game's thread, and is not a stored
// notification (it is not in Kinds).
type ReplyAnswer struct {
	Common
	Applied []string // what was applied, worded; empty: nothing was
	// Refused says why nothing was applied: the line of the reply, the
	// number and the engine's reason; "" when the moves were applied.
	Refused string
	Line    string // the reply's line at fault, as written; "" for none
	// Moves are what the recipient could do at the step of the reply that
	// was refused, in words; empty: not told.
	Moves []string
	// QuietUntil, on a refusal, is set when it is the last refused reply
	// answered for now (the limits against mail loops): one refused
	// before then gets no answer. Zero: more would be answered.
	QuietUntil time.Time
	// Skipped are the parts of the reply read as no command (a greeting,
	// thanks, a mail app's line), skipped.
	Skipped []string
	// Help is the command language in short, when the reply asked for it.
	Help string
	// Said are the reply's messages ("say" lines) that were posted, in
	// words ("Posted to the table: ..."); SayRefused says why the next one
	// was not ("" when all were).
	Said       []string
	SayRefused string
	Taken      bool   // the reply answered a decision that was already taken
	Next       string // what happens next ("It is still your turn.", "Ben's turn.")
	// News and Told: what changed for the recipient, and the lines of
	// Since it tells, as YourTurn says.
	News    []string
	Told    []string
	Since   []string
	Hand    []Card
	Prompts []Prompt
	// Board is the game now, with the recipient's fresh numbered moves and
	// a fresh reply address; nil when they have nothing to do now.
	Board    *Board
	Deadline time.Time // the recipient's deadline now; zero: none
	// InReplyTo is the Message-ID of the reply answered (no angle
	// brackets), "" if it had none: the answer also refers to it.
	InReplyTo string
	// Offer, when the reply ended the recipient's own turn, is what they
	// may answer now to the interrupt windows of the others' coming turn
	// (StandingOffer); none: no offer.
	Offer []string
	// Over is the end of the game when it is over (Final): the answer to
	// the reply that ended it stands for the game-over email, which the
	// change then sends the recipient no more. nil: the game goes on.
	Over *GameOver `json:",omitempty"`
}

// TimeoutApplied: a deadline passed and the engine's default was applied.
type TimeoutApplied struct {
	Common
	Player      string   // who timed out
	You         bool     // the recipient timed out
	Prompt      bool     // a prompt timed out (it passed), not a turn
	Applied     []string // what the default did, worded
	Consecutive int      // consecutive timeouts of that seat so far
	Limit       int      // timeouts before takeover; 0: no takeover rule
	TakeOver    string   // "" (nothing yet), "bot" or "forfeit": what happened now
	ReclaimURL  string   // where the recipient takes their seat back (You and TakeOver "bot"); "" hides it
}

// SeatReclaimed: the recipient took their seat back from the bot that
// played it after their timeouts.
type SeatReclaimed struct {
	Common
	BotDid   []string  // what the bot did in the seat meanwhile, worded for the recipient
	Turn     int       // turn number; 0 hides it
	YourTurn bool      // it is the recipient's turn now (whatever else the game waits for)
	Prompts  []Prompt  // prompts waiting for the recipient now
	Hand     []Card    // the recipient's hand
	Deadline time.Time // the recipient's deadline, when awaited; zero: none
}

// GameOver: the game has ended.
type GameOver struct {
	Common
	Reason string  // how it ended, e.g. "the last challenge was won"
	Scores []Score // in ranking order
	// TieBreak says how a tie on points was decided ("" for none): by the
	// most valuable challenge won, or a shared win.
	TieBreak string
	// Board is the final board as the recipient sees it; nil hides it.
	Board *Board
	// The fairness check: the game's secret and salt, revealed now, and
	// the commitment to them it published at the start ("" for a game
	// that had none); Replay is the command that replays the game from its
	// public log and checks all three.
	Secret, Salt, Commitment string
	Replay                   string
	// News: what changed for the recipient, as YourTurn.News says.
	News []string
}

// VacationNotice: another player is away; their clocks pause.
type VacationNotice struct {
	Common
	Player string
	From   time.Time
	Until  time.Time
}

// Digest: what happened in the recipient's games since their last
// digest (at most one every few hours, as they chose).
type Digest struct {
	Common
	Day   time.Time // when it was written
	Since time.Time // the start of the stretch it sums up; zero: not said
	Games []DigestGame
}

// DigestGame is one game in a digest.
type DigestGame struct {
	Title    string
	URL      string
	YourTurn bool      // the recipient is awaited (turn or prompt)
	Deadline time.Time // the recipient's deadline, if awaited
	Lines    []string  // what happened, redacted for the recipient
}

// TableTalk: a player of the game wrote to the table, or to the recipient
// only. It goes by email only to those who chose so (see DefaultOn); the
// others read it in the next email of the game they get anyway (Talk).
type TableTalk struct {
	Common
	MessageID int64
	From      string // the author's username
	Private   bool   // written to the recipient only
	Text      string // as written
	At        time.Time
}

// Kind returns KindInvitation.
func (Invitation) Kind() Kind { return KindInvitation }

// Kind returns KindGameStarted.
func (GameStarted) Kind() Kind { return KindGameStarted }

// Kind returns KindYourTurn.
func (YourTurn) Kind() Kind { return KindYourTurn }

// Kind returns KindPromptWaiting.
func (PromptWaiting) Kind() Kind { return KindPromptWaiting }

// Kind returns KindQueuedActions.
func (QueuedActions) Kind() Kind { return KindQueuedActions }

// Kind returns KindDeadlineReminder.
func (DeadlineReminder) Kind() Kind { return KindDeadlineReminder }

// Kind returns KindTimeoutApplied.
func (TimeoutApplied) Kind() Kind { return KindTimeoutApplied }

// Kind returns KindGameOver.
func (GameOver) Kind() Kind { return KindGameOver }

// Kind returns KindVacation.
func (VacationNotice) Kind() Kind { return KindVacation }

// Kind returns KindSeatReclaimed.
func (SeatReclaimed) Kind() Kind { return KindSeatReclaimed }

// Kind returns KindDigest.
func (Digest) Kind() Kind { return KindDigest }

// Kind returns KindMessage.
func (TableTalk) Kind() Kind { return KindMessage }

// Kind returns KindReplyAnswer.
func (ReplyAnswer) Kind() Kind { return KindReplyAnswer }

// templateKinds are the kinds that have templates: Kinds and the answers to
// replies.
var templateKinds = append(slices.Clone(Kinds), KindReplyAnswer)

//go:embed templates
var templateFS embed.FS

type kindTemplates struct {
	text *texttemplate.Template // defines "subject" and "text"
	html *htmltemplate.Template // the layout, executed as "layout.html"
}

var templatesByKind = mustParseTemplates()

var funcs = map[string]any{
	"plural":  plural,
	"join":    strings.Join,
	"without": without,
	"dur": func(d time.Duration) string {
		if d <= 0 {
			return ""
		}
		return HumanDuration(d)
	},
	"inc":           func(i int) int { return i + 1 },
	"headline":      Headline,
	"deadlineLabel": DeadlineLabel,
	"offerLine":     OfferLine,
	"subject":       func(d Data) string { return Subject(d.base()) },
}

func mustParseTemplates() map[Kind]kindTemplates {
	m := make(map[Kind]kindTemplates, len(templateKinds))
	for _, k := range templateKinds {
		tt := texttemplate.Must(texttemplate.New(string(k)).Funcs(funcs).ParseFS(templateFS,
			"templates/partials.txt", "templates/"+string(k)+".txt"))
		ht := htmltemplate.Must(htmltemplate.New("layout.html").Funcs(funcs).ParseFS(templateFS,
			"templates/layout.html", "templates/partials.html", "templates/"+string(k)+".html"))
		for _, name := range []string{"subject", "text"} {
			if tt.Lookup(name) == nil {
				panic(fmt.Sprintf("notifier: templates/%s.txt defines no %q", k, name))
			}
		}
		if ht.Lookup("content") == nil {
			panic(fmt.Sprintf("notifier: templates/%s.html defines no \"content\"", k))
		}
		m[k] = kindTemplates{text: tt, html: ht}
	}
	return m
}

var (
	blankRuns   = regexp.MustCompile(`\n{3,}`)
	lineEndings = regexp.MustCompile(`[ \t]+\n`)
)

// Render produces a notification's subject (one line, cleaned with
// CleanHeaderText), text body and HTML body. The text body has trailing
// spaces removed and at most one blank line in a row.
func Render(d Data) (subject, text, html string, err error) {
	if d == nil {
		return "", "", "", fmt.Errorf("notifier: render nil data")
	}
	t, ok := templatesByKind[d.Kind()]
	if !ok {
		return "", "", "", fmt.Errorf("notifier: no templates for %q", d.Kind())
	}
	var b bytes.Buffer
	if err := t.text.ExecuteTemplate(&b, "subject", d); err != nil {
		return "", "", "", fmt.Errorf("notifier: render %s subject: %w", d.Kind(), err)
	}
	subject = CleanHeaderText(b.String(), maxSubjectRunes)
	b.Reset()
	if err := t.text.ExecuteTemplate(&b, "text", d); err != nil {
		return "", "", "", fmt.Errorf("notifier: render %s text: %w", d.Kind(), err)
	}
	text = lineEndings.ReplaceAllString(b.String(), "\n")
	text = blankRuns.ReplaceAllString(strings.TrimLeft(text, "\n"), "\n\n")
	text = strings.TrimRight(text, "\n") + "\n"
	b.Reset()
	if err := t.html.ExecuteTemplate(&b, "layout.html", d); err != nil {
		return "", "", "", fmt.Errorf("notifier: render %s html: %w", d.Kind(), err)
	}
	return subject, text, b.String(), nil
}

// Compose renders d and wraps it into a Message for to: subject and bodies
// from Render, a stable Message-ID from deliveryKey (see
// DeliveryMessageID), the game's thread headers (none for mail about no
// game), and d's UnsubscribeURL as List-Unsubscribe. domain is the
// Message-ID domain, normally EmailConfig.Domain().
func Compose(domain string, to Address, d Data, deliveryKey string) (Message, error) {
	subject, text, html, err := Render(d)
	if err != nil {
		return Message{}, err
	}
	c := d.base()
	m := Message{
		To: to, Subject: subject, Text: text, HTML: html,
		MessageID:      DeliveryMessageID(c.GameID, deliveryKey, domain),
		UnsubscribeURL: c.UnsubscribeURL,
	}
	if c.GameID != "" {
		m.InReplyTo, m.References = ThreadHeaders(c.GameID, domain)
	}
	return m, nil
}

// without is lines without one of each of drop, in order: the "since"
// partial lists what happened without what the news told (Told), so that
// an email says each thing once.
func without(lines, drop []string) []string {
	if len(drop) == 0 {
		return lines
	}
	left := map[string]int{}
	for _, l := range drop {
		left[l]++
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if left[l] > 0 {
			left[l]--
			continue
		}
		out = append(out, l)
	}
	return out
}

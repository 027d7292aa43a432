package web

import (
	"bytes"
	"html"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// The board: a game as its reader may see it (engine.View of their seat,
// a spectator's for anyone else), with what the seat may do now as forms
// (engine.Moves), and the event log redacted for the reader
// (engine.Event.For). Everything here words what the engine gives; nothing
// about the game is decided.

// boardView is a game's page.
type boardView struct {
	gameItem
	Version    int64
	Seat       int  // the reader's seat; -1 for a spectator
	Started    bool // the game has a state (it started)
	Over       bool
	Turn       int
	ActiveName string // whose turn it is: "bob’s", "your"
	Phase      string // the turn's phase, in words
	Awaited    []string
	Market     []cardItem
	Deck       int // cards left in the Challenge Deck
	Office     bool
	Shared     int // office variant: cards in the shared Laboratory Deck
	SharedBin  int
	Global     []cardItem
	Players    []playerItem
	Hand       []cardItem
	Bin        []cardItem
	Build      *buildItem
	Window     *windowItem
	Prompts    []promptItem
	Actions    []actionItem
	Standing   *standingView
	Voted      bool // the reader voted to end the game
	// VoteNote says why a vote to end cannot pass (a bot seat never
	// votes); "" when it can.
	VoteNote string
	// Hint is how the reader plays now, in a line (engine.View.Hint).
	Hint string
	// News is the banner of what changed for the reader since they last
	// looked (newsHTML); in a board kept drawn (HTML), newsSlot, which
	// the page replaces with the reader's own.
	News       template.HTML
	Result     *resultView
	Fairness   *fairnessView // a finished game's fairness check; nil before the end or without a commitment
	Rematch    bool          // the reader played this finished game and may ask for a rematch
	RematchNow bool          // the rematch has no one to wait for (the others are bots): it starts at once
	Events     []eventItem
	Log        template.HTML // Events drawn: an ordered list
	Earlier    bool          // the log shown starts after the game's first events
	LastSeq    int64         // the last event shown: where the live stream resumes
	Live       string        // the live stream's path; "" for none
	Settings   []string
	Invites    []invitationItem // before the start: the addresses invited
	JoinLink   string           // before the start: a link to share for the open seats
	Decks      []deckOption     // before the start, for the join form
	Confirm    *confirmView     // the page of an action link of an email
	FormKey    string
	CreatedBy  int64
	CreatedAt  time.Time
	EventSeq   int64 // the game's last event at the version read
	// DeadlineText is the deadline in the reader's time zone, and
	// DeadlineLabel what it is the deadline of: "your turn ends" (a turn
	// and the choices it asks for are due together), "answer by" (a
	// prompt of another player's turn), "answers are due", "the turn ends".
	DeadlineText  string
	DeadlineLabel string
	// DeadlineMoved says that the deadline was moved out of the quiet
	// hours of the players it awaits: "moved out of bob's quiet hours";
	// "" when it was not.
	DeadlineMoved string
	// table is the game's players' names and card set, for the news of
	// any reader of this version.
	table engine.Table
	// zip is the board drawn (boardHTML) when it was read
	// into the cache of boards, cut at its news slot and compressed,
	// shared by every copy of it; nil for a board drawn for one page.
	zip *zipBoard
	// HTML stands for the board in the page drawn around it: the mark
	// where renderBoard puts zip's pieces; "" to draw the board there.
	HTML template.HTML
	// Talk is the table talk as the reader sees it, drawn around the
	// board (withTalk); nil for none. talkValue, talkError and talkTo are
	// a message refused, to show again in its form.
	Talk                         *talkView
	talkValue, talkError, talkTo string
	// game is the game as the read of this board read it, with its seats
	// (the talk is read for it); nil in a board kept drawn.
	game *models.Game
}

// cardItem is a card as the board draws it.
type cardItem struct {
	ID        string
	Card      string // the card's id in the catalogue
	Name      string
	TypeLine  string // level, type and classes: "Junior Monster · Engineer, Designer"
	StatsLine string // "TECH 4 · SCI 2 · 1 BDP" for a Tool or a Challenge; "" for others
	Type      string // "Monster", "Tool", ...
	Kind      string // the card type's id, for the style
	Level     string // a Monster's, in words
	Classes   string // a Monster's, joined
	Tech, Sci int
	Points    int
	Stats     bool // TECH and SCI apply (a Tool, a Challenge)
	Hard      bool
	Text      []string // how it plays, a line each
	Owner     string   // a Global card's owner
	Claimable bool     // a Market challenge the reader's open build may claim now
	// Terms explain the keywords and markers the card prints (the
	// glossary's entries), in place.
	Terms []engine.Term
	// Note says why a card of the reader's hand cannot be played now;
	// "" for others (and for a second copy, which says nothing twice).
	Note string
}

var (
	// eventWords say what an interrupt answers, for the standing answers.
	eventWords = map[engine.EventKind]string{engine.EvDraw: "draw in their Draw phase", engine.EvPlace: "place a card in their Lab",
		engine.EvPlayTool: "play a Tool", engine.EvPlayHack: "play a Hack", engine.EvClaim: "claim challenges"}
)

// cardOf draws c. The view's memory is not kept: every field is copied.
func cardOf(c engine.CardView) cardItem {
	it := cardItem{ID: c.ID, Card: c.Card, Name: c.Name, Type: c.Type.Title(), Kind: strings.ReplaceAll(string(c.Type), "_", "-"),
		Level: c.Level.Title(), Tech: c.Tech, Sci: c.Sci, Points: c.Points, Hard: c.Hard,
		Stats: c.Type == engine.Tool || c.Type == engine.Challenge}
	if it.Type == "" {
		it.Type = string(c.Type)
	}
	var classes []string
	for _, cl := range c.Classes {
		classes = append(classes, string(cl))
	}
	it.Classes = strings.Join(classes, ", ")
	it.TypeLine = it.Type
	if it.Level != "" {
		it.TypeLine = it.Level + " " + it.TypeLine
	}
	if it.Hard {
		it.TypeLine += " · hard"
	}
	if it.Classes != "" {
		it.TypeLine += " · " + it.Classes
	}
	if it.Stats {
		it.StatsLine = "TECH " + strconv.Itoa(it.Tech) + " · SCI " + strconv.Itoa(it.Sci)
		if it.Points != 0 {
			it.StatsLine += " · " + strconv.Itoa(it.Points) + " BDP"
		}
	}
	if c.Text != "" {
		it.Text = strings.Split(c.Text, "\n")
	}
	if card := engine.Standard().Card(c.Card); card != nil {
		it.Terms = card.Terms()
	}
	return it
}

// HTML is the card drawn, as the "cards" template lists it: a list item
// with its name, type line, numbers, text, the meaning of its keywords
// and flags, every text escaped. It depends only on the catalogue's card
// and the flags, so it is drawn once per card and flags (a card with an
// owner, in the Global zone, every time).
func (c cardItem) HTML() template.HTML { return c.html("li") }

// Block is the card drawn as a block of its own (a div), beside a choice
// or in an interrupt window.
func (c cardItem) Block() template.HTML { return c.html("div") }

// html draws the card in the element tag.
func (c cardItem) html(tag string) template.HTML {
	key := tag + "\x00" + c.Card + "\x00" + strconv.FormatBool(c.Claimable) + "\x00" + c.Note
	if c.Owner == "" {
		if h, ok := cardHTML.Load(key); ok {
			return h.(template.HTML)
		}
	}
	var b strings.Builder
	esc := html.EscapeString
	b.WriteString(`<` + tag + ` class="card card-` + esc(c.Kind))
	if c.Claimable {
		b.WriteString(` claimable`)
	}
	b.WriteString(`">` + "\n" + `<span class="card-name">` + esc(c.Name) + `</span>` + "\n" + `<span class="card-type">` + esc(c.TypeLine) + `</span>`)
	if c.StatsLine != "" {
		b.WriteString("\n" + `<span class="card-stats">` + esc(c.StatsLine) + `</span>`)
	}
	if len(c.Text) > 0 {
		b.WriteString("\n" + `<span class="card-text">`)
		for _, line := range c.Text {
			b.WriteString(`<span>` + esc(line) + `</span>`)
		}
		b.WriteString(`</span>`)
	}
	if len(c.Terms) > 0 {
		words := make([]string, len(c.Terms))
		for i, t := range c.Terms {
			words[i] = t.Word
		}
		b.WriteString("\n" + `<details class="terms"><summary>What ` + esc(names(words)) + ` mean` + map[bool]string{true: "s", false: ""}[len(words) == 1] + `</summary><dl>`)
		for _, t := range c.Terms {
			b.WriteString(`<dt>` + esc(t.Word) + `</dt><dd>` + esc(t.Text) + `</dd>`)
		}
		b.WriteString(`</dl></details>`)
	}
	if c.Owner != "" {
		b.WriteString("\n" + `<span class="card-owner">Played by ` + esc(c.Owner) + `</span>`)
	}
	if c.Claimable {
		b.WriteString("\n" + `<span class="card-flag">Your build can claim it</span>`)
	}
	if c.Note != "" {
		b.WriteString("\n" + `<span class="card-note">Not playable now: ` + esc(c.Note) + `.</span>`)
	}
	b.WriteString("\n</" + tag + ">")
	h := template.HTML(b.String())
	if c.Owner == "" && c.Card != "" {
		cardHTML.Store(key, h)
	}
	return h
}

// cardList draws cards as a list: each card's HTML, in one call of the
// template rather than one per card.
func cardList(cards []cardItem) template.HTML {
	var b bytes.Buffer
	htmlWriter{&b}.cardList(cards)
	return template.HTML(b.String())
}

// cardHTML holds the cards drawn, by card id and flags.
var cardHTML sync.Map

func cardsOf(cs []engine.CardView) []cardItem {
	out := make([]cardItem, len(cs))
	for i, c := range cs {
		out[i] = cardOf(c)
	}
	return out
}

// playerItem is a seat at the table.
type playerItem struct {
	Seat      int
	Name      string
	You       bool
	Active    bool
	Awaited   bool
	Bot       bool
	Resigned  bool
	VotedEnd  bool
	Limited   bool
	Winner    bool
	Points    int
	HandCount int
	DeckCount int
	BinCount  int
	Lab       []cardItem
	Ranking   []cardItem
}

// buildItem is the open Software Build.
type buildItem struct {
	Owner     string
	Mine      bool
	Tools     []cardItem
	Tech, Sci int
}

// windowItem is an open interrupt window, with what it is about: the
// card about to be placed or played, or the challenges about to be
// claimed with the build that claims them.
type windowItem struct {
	Text       string
	Waiting    []string
	Answered   []string
	Card       template.HTML // the card, drawn whole; "" for a draw or a claim
	Challenges []cardItem
	Build      *buildItem // a claim: the build that claims
	Claim      string     // a claim: what the challenges need, "TECH 7, SCI 6"
}

// promptItem is a decision the reader owes: one button per option when it
// takes exactly one, else a box per option, between Min and Max ticked.
type promptItem struct {
	ID        string
	Text      string
	Kind      string
	Min, Max  int
	Single    bool
	Interrupt bool
	Options   []optionItem
	Hint      string // how many to choose, in words
	Key       string
	// OnTimeout says what the prompt takes if the reader does not answer
	// by the deadline (notifier.TimeoutWords).
	OnTimeout string
	Cards     bool // an option names a card, drawn beside it
}

// optionItem is an option of a prompt.
type optionItem struct {
	ID   string
	Text string
	// Form is the option as a button of its own (moveForm), for a prompt
	// that takes one option; "" for a prompt of several choices.
	Form template.HTML
	// Card is the card the option names, drawn whole; "" for none.
	Card template.HTML
}

// actionItem is a turn action the reader may take, as a button: Form is
// the list item with its form (moveForm).
type actionItem struct {
	Form template.HTML
}

// moveForm draws a move as the board lists it: a list item with a form
// that posts to game id's play route at the page's version, its hidden
// fields (fields: name, value, name, value...), and its button, then what
// the move's card does (rules, lines of text) and what the move costs
// (warn): a warned move's form asks before it is sent (data-confirm, for
// the script) and its button says it is one; said: the text says the cost
// already, and the page does not say it twice. Values and texts are
// escaped; attrs (escaped by the caller) go into the form's tag; an
// element with id gets id-r and id-w. The moves are the board's longest
// list, so they are drawn here, not by the template (as cards are).
func moveForm(id, version int64, attrs string, fields []string, text string, secondary bool, elem string, rules []string, warn string, said bool) template.HTML {
	var b strings.Builder
	esc := html.EscapeString
	b.WriteString(`<li><form method="post" action="/games/` + strconv.FormatInt(id, 10) + `/play"` + attrs)
	if warn != "" {
		b.WriteString(` data-confirm="` + esc(warn) + `"`)
	}
	b.WriteString(`><input type="hidden" name="v" value="` + strconv.FormatInt(version, 10) + `">`)
	for i := 0; i+1 < len(fields); i += 2 {
		b.WriteString(`<input type="hidden" name="` + esc(fields[i]) + `" value="` + esc(fields[i+1]) + `">`)
	}
	b.WriteString("\n" + `<button type="submit"`)
	switch {
	case warn != "":
		b.WriteString(` class="warned"`)
	case secondary:
		b.WriteString(` class="secondary"`)
	}
	var described []string
	if len(rules) > 0 {
		described = append(described, elem+"-r")
	}
	if warn != "" && !said {
		described = append(described, elem+"-w")
	}
	if len(described) > 0 {
		b.WriteString(` aria-describedby="` + esc(strings.Join(described, " ")) + `"`)
	}
	b.WriteString(`>` + esc(text) + `</button></form>`)
	if len(rules) > 0 {
		b.WriteString("\n" + `<p class="move-rules" id="` + esc(elem) + `-r">` + esc(strings.Join(rules, " ")) + `</p>`)
	}
	if warn != "" && !said {
		b.WriteString("\n" + `<p class="move-warn" id="` + esc(elem) + `-w">` + esc(warn) + `</p>`)
	}
	b.WriteString(`</li>`)
	return template.HTML(b.String())
}

// standingView is the form of the reader's standing answers to interrupt
// windows: always pass, or play a card of their deck whenever the event
// it answers is proposed.
type standingView struct {
	Pass  bool
	Plays []standingPlay
	Key   string
	// Offer, during another player's turn, says in one line what the
	// reader may answer now so that no window of it waits for them
	// (notifier.StandingOffer); "" for nothing to offer.
	Offer string
}

// standingPlay is one box of the standing answers.
type standingPlay struct {
	Value   string // "<event>:<card id>"
	Label   string
	Checked bool
}

// fairnessView is how anyone checks a finished game's randomness: the
// commitment published at the start, the secret and salt revealed at the
// end, and where the action log is.
type fairnessView struct {
	Commitment, Secret, Salt string
	Log                      string // the action log's path (GET /v1/games/{id}/actions)
	Replay                   string // the replay command
}

// resultView is a finished game's outcome.
type resultView struct {
	Reason   string // how the game ended, as its last event says
	Scores   []scoreItem
	Winners  string
	TieBreak string       // how a tie on points was broken, "" for none
	Shared   bool         // several seats won
	Ratings  []ratingLine // how the game moved its players' ratings; none for a game that is not rated
}

// scoreItem is one seat's final score.
type scoreItem struct {
	Rank       int // 1 for the winners, then by points and best challenge
	Name       string
	Points     int
	Winner     bool
	Best       string // the most valuable challenge in their Ranking
	BestPoints int
}

// eventItem is one line of the game's log.
type eventItem struct {
	Seq   int64
	Kind  string // the event's kind
	Seat  int    // who did it; -1 for the game
	N     int    // turn_started: the turn
	Text  string
	At    time.Time
	Clock string // At in the reader's time zone, short
	ISO   string // At for the datetime attribute
}

// boardOptions shape a board.
type boardOptions struct {
	whole    bool // the whole log
	spectate bool // the public board, though user uid has a seat
}

// boardKey names a board as a reader sees it: a game in play at a
// version and deadline, from a seat, in a time zone. Nothing of a board so
// named changes: a change of the game is a new version.
type boardKey struct {
	id, version, deadline int64
	seat                  int
	zone                  string
}

// board reads game id as user uid (0: nobody signed in) sees it, drawn;
// a private game of others is models.ErrNotFound. It is the one read of a
// board:
//
//   - the game, the reader's seat and its state come from the play path
//     (play.Service.Read), the events of its log from play.Service.Events
//     (the last play.RecentEvents, or with o.whole or once the game is over
//     the whole log);
//   - one cache, Pages.boards, keeps the boards of games in play drawn, by
//     boardKey: game, version, deadline, seat (-1 for a visitor) and the
//     reader's time zone. Nothing of a board so named changes but by a new
//     version or deadline, which is another key: an entry is never made
//     stale, only forgotten, the oldest first, when the cache is full. A
//     read that finds its board takes it as it is (its state not used); a
//     whole log, a spectator's view of a seated reader and a board before
//     the start are drawn at every read. Entries are
//     never changed: a reader gets a copy, and adds its own parts (its
//     news, withNews) to the copy.
func (p *Pages) board(c *gin.Context, id, uid int64, o boardOptions) (*boardView, error) {
	cacheable := !o.whole && !o.spectate
	zone := location(account(c)).String()
	var hit *boardView
	var k boardKey
	ctx := c.Request.Context()
	var bv boardView
	key := newFormKey()
	var read *models.Game
	err := p.play.ReadChecked(ctx, id, uid, sessionCheck(c), func(g *models.Game, seat int, st *engine.State) error {
		read = g
		if cacheable && st != nil {
			var deadline int64
			if g.DeadlineAt != nil {
				deadline = g.DeadlineAt.UnixMicro()
			}
			k = boardKey{id: id, version: g.Version, deadline: deadline, seat: seat, zone: zone}
			if hit, _ = p.boards.Get(k); hit != nil {
				return nil
			}
		}
		if o.spectate {
			bv = boardOf(g, engine.Spectator, st, 0, key)
		} else {
			bv = boardOf(g, seat, st, uid, key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if hit != nil {
		cp := *hit
		cp.game = read
		return &cp, nil
	}
	bv.game = read
	if !bv.Started {
		return &bv, p.openGameOf(c, &bv, uid)
	}
	if err := p.boardLog(c, &bv, o.whole); err != nil {
		return nil, err
	}
	if !cacheable {
		return &bv, nil
	}
	b := buffers.Get().(*bytes.Buffer)
	bv.News = newsSlot // each reader's own news goes there (withNews)
	boardHTML(b, &bv)
	bv.News = ""
	bv.zip = newZipBoard(bytes.Clone(b.Bytes()))
	putBuffer(b)
	cp := bv
	cp.game = nil
	p.boards.Put(k, &cp)
	return &bv, nil
}

// boardLog adds to bv (of a started game) its deadline in the reader's
// words, its log (whole: every event; so too once the game is over), the
// ratings of a finished game, and the address of its live stream.
func (p *Pages) boardLog(c *gin.Context, bv *boardView, whole bool) error {
	ctx := c.Request.Context()
	a := account(c)
	bv.DeadlineText = when(a, bv.Deadline)
	events, err := p.play.Events(ctx, bv.ID, bv.EventSeq, whole || bv.Over)
	if err != nil {
		return err
	}
	if !whole && !bv.Over {
		bv.Earlier = len(events) > 0 && events[0].Seq > 1
	}
	if bv.Fairness != nil {
		bv.Fairness.Replay = "datamonsters replay --url " + p.cfg.BaseURL + " " + strconv.FormatInt(bv.ID, 10)
	}
	bv.Events = make([]eventItem, 0, len(events))
	for _, e := range events {
		if e.Version > bv.Version {
			break // recorded after the state read: the live stream brings it
		}
		bv.LastSeq = e.Seq
		if v, ok := e.Event.For(bv.Seat); ok && v.Text != "" {
			bv.Events = append(bv.Events, eventOf(e.Seq, e.At, v, clock(a, e.At)))
			if v.Kind == "game_over" && bv.Result != nil {
				bv.Result.Reason = endedBecause(v)
			}
		}
	}
	bv.Log = groupedLogHTML(bv.Events, bv.Players, bv.Seat, whole || bv.Over)
	if bv.Result != nil {
		if bv.Result.Ratings, err = p.ratingLines(ctx, bv.ID, bv.Players); err != nil {
			return err
		}
	}
	if p.cfg.Hub != nil && !bv.Over {
		bv.Live = gamePath(bv.ID) + "/live?last_event_id=" + strconv.FormatInt(bv.LastSeq, 10)
	}
	return nil
}

// boardOf builds the board of g for seat (-1: a spectator) from st, its
// state (nil before the start), as user uid reads it. It keeps nothing of
// st: the state is lent (play.Service.Read).
func boardOf(g *models.Game, seat int, st *engine.State, uid int64, key string) boardView {
	bv := boardView{gameItem: gameOf(g, uid), Version: g.Version, Seat: seat, FormKey: key, CreatedBy: g.CreatedBy, CreatedAt: g.CreatedAt,
		EventSeq: g.EventSeq}
	bv.Settings = settingsWords(g)
	if st == nil {
		return bv
	}
	v := st.View(seat)
	bv.Started, bv.Over = true, st.Over()
	bv.Turn, bv.Phase = v.Turn, v.Phase.Title()
	bv.Deck, bv.Office, bv.Shared, bv.SharedBin = v.ChallengeDeck, v.Office, v.SharedDeck, v.SharedBin
	name := func(s int) string {
		if s >= 0 && s < len(v.Players) {
			return v.Players[s].Name
		}
		return "the game"
	}
	bv.ActiveName = name(v.Active) + "’s"
	if v.Active == seat {
		bv.ActiveName = "your"
	}
	for _, s := range v.Awaiting {
		if s == seat {
			bv.Awaited = append(bv.Awaited, "you")
		} else {
			bv.Awaited = append(bv.Awaited, name(s))
		}
	}
	bv.DeadlineLabel = deadlineLabel(v)
	if m := notifier.QuietMoveOf(g, seat); m != nil {
		bv.DeadlineMoved = m.Note()
	}
	var moves []engine.Move
	if seat >= 0 && g.Status == models.StatusActive {
		moves = v.Moves(engine.Legal(st, seat))
	}
	claimable := map[string]bool{}
	for _, m := range moves {
		for _, ch := range m.Challenges {
			claimable[ch] = true
		}
	}
	bv.Market = cardsOf(v.Market)
	for i := range bv.Market {
		bv.Market[i].Claimable = claimable[bv.Market[i].ID]
	}
	for _, gl := range v.Global {
		it := cardOf(gl.CardView)
		it.Owner = name(gl.Owner)
		bv.Global = append(bv.Global, it)
	}
	for i, pv := range v.Players {
		pi := playerItem{Seat: pv.Seat, Name: pv.Name, You: i == seat, Active: i == v.Active && !bv.Over,
			Awaited: slices.Contains(v.Awaiting, i), Resigned: pv.Resigned, VotedEnd: pv.VotedEnd, Limited: pv.Limited,
			Winner: slices.Contains(v.Winners, i), Points: pv.Points, HandCount: pv.HandCount, DeckCount: pv.DeckCount,
			BinCount: pv.BinCount, Lab: cardsOf(pv.Lab), Ranking: cardsOf(pv.Ranking)}
		if i < len(g.Seats) {
			pi.Bot = g.Seats[i].Bot != ""
		}
		bv.Players = append(bv.Players, pi)
	}
	bv.Hand, bv.Bin = cardsOf(v.Hand), cardsOf(v.Bin)
	said := map[string]bool{}
	for _, b := range engine.BlockedCards(st, seat) {
		if i := slices.IndexFunc(bv.Hand, func(c cardItem) bool { return c.ID == b.Card }); i >= 0 && !said[bv.Hand[i].Card] {
			bv.Hand[i].Note, said[bv.Hand[i].Card] = b.Reason, true // two copies say it once
		}
	}
	if v.Build != nil {
		bv.Build = &buildItem{Owner: name(v.Active), Mine: v.Active == seat, Tools: cardsOf(v.Build.Tools), Tech: v.Build.Tech, Sci: v.Build.Sci}
	}
	if w := v.Window; w != nil {
		wi := &windowItem{Text: w.Text, Challenges: cardsOf(w.Challenges)}
		for _, s := range w.Seats {
			who := name(s)
			if s == seat {
				who = "you"
			}
			if slices.Contains(w.Answered, s) {
				wi.Answered = append(wi.Answered, who)
			} else {
				wi.Waiting = append(wi.Waiting, who)
			}
		}
		if w.Card != nil {
			wi.Card = cardOf(*w.Card).Block()
		}
		if len(w.Challenges) > 0 {
			wi.Build = bv.Build
			tech, sci := 0, 0
			for _, c := range w.Challenges {
				tech, sci = tech+c.Tech, sci+c.Sci
			}
			wi.Claim = "TECH " + strconv.Itoa(tech) + ", SCI " + strconv.Itoa(sci)
		}
		bv.Window = wi
	}
	bv.Hint = v.Hint(moves)
	n := 0
	formKey := func() string {
		n++
		return key + "-" + strconv.Itoa(n)
	}
	for i, m := range engine.Distinct(moves) {
		if m.Type != engine.ActAnswer {
			fields := []string{"key", formKey(), "type", string(m.Type)}
			if m.Card != "" {
				fields = append(fields, "card", m.Card)
			}
			for _, ch := range m.Challenges {
				fields = append(fields, "challenge", ch)
			}
			bv.Actions = append(bv.Actions, actionItem{Form: moveForm(g.ID, g.Version, "", fields, m.Text, m.Type != engine.ActClaim,
				"mv-"+strconv.Itoa(i), moveRules(v, m), m.Warning, saysCost(m))})
			continue
		}
		pi := promptItem{ID: m.Prompt, Text: m.Text, Min: m.Min, Max: m.Max, Single: m.Min == 1 && m.Max == 1, Key: formKey()}
		for _, pr := range v.Prompts {
			if pr.ID == m.Prompt {
				pi.Text, pi.Kind, pi.OnTimeout = pr.Text, string(pr.Kind), notifier.TimeoutWords(pr)
			}
		}
		pi.Interrupt = pi.Kind == string(engine.PromptInterrupt)
		pi.Hint = chooseHint(m.Min, m.Max)
		for _, o := range m.Options {
			oi := optionItem{ID: o.ID, Text: o.Text}
			if c, ok := v.CardOf(o.Card); ok && o.Card != "" {
				oi.Card, pi.Cards = cardOf(c).Block(), true
			}
			if pi.Single {
				oi.Form = moveForm(g.ID, g.Version, ` data-kind="`+html.EscapeString(pi.Kind)+`"`,
					[]string{"key", formKey(), "type", "answer", "prompt", pi.ID, "choice", o.ID}, o.Text, o.ID == engine.Pass, "", nil, "", false)
			}
			pi.Options = append(pi.Options, oi)
		}
		bv.Prompts = append(bv.Prompts, pi)
	}
	if seat >= 0 && g.Status == models.StatusActive && !v.Players[seat].Resigned {
		bv.Standing = standingOf(st.Players[seat].DeckList, v.Standing, formKey())
		bv.Standing.Offer = offerOf(v)
		bv.Voted = v.Players[seat].VotedEnd
		bv.VoteNote = voteNote(g, v)
	}
	if bv.Over {
		bv.Result = resultOf(v)
		bv.Rematch = seat >= 0 && uid != 0
		bv.RematchNow = bv.Rematch && !slices.ContainsFunc(g.Seats, func(st models.Seat) bool {
			return st.SeatNo != seat && st.Bot != models.BotFromStart
		})
		if secret, salt, ok := st.Reveal(); ok {
			bv.Fairness = &fairnessView{Commitment: st.Commitment(), Secret: secret.String(), Salt: salt.String(),
				Log: "/v1/games/" + strconv.FormatInt(g.ID, 10) + "/actions"}
		}
	}
	bv.table = st.Table()
	return bv
}

// saysCost reports whether move m's text says already what its warning
// says (giving up a build: "Abandon your build...: its 2 Tools go to
// your Recycle Bin"), so that the page says it once; its form still asks
// before it is sent.
func saysCost(m engine.Move) bool { return m.Type == engine.ActAbandon || m.Type == engine.ActEndTurn }

// moveRules is what the card of move m does, for a move whose text does
// not say it (placing a card, playing a Tool): its rules text, a line
// each; nil for others.
func moveRules(v *engine.View, m engine.Move) []string {
	if m.Type != engine.ActPlace && m.Type != engine.ActPlayTool {
		return nil
	}
	for _, c := range v.Hand {
		if c.ID == m.Card && c.Text != "" {
			return strings.Split(c.Text, "\n")
		}
	}
	return nil
}

// voteNote says why a vote to end game g cannot pass: a seat still in it
// that the service's bot plays never votes. "" when every such seat is a
// person's.
func voteNote(g *models.Game, v *engine.View) string {
	var bots []string
	for i, s := range g.Seats {
		if s.Bot != "" && i < len(v.Players) && !v.Players[i].Resigned && !v.Players[i].VotedEnd {
			bots = append(bots, s.Username)
		}
	}
	if len(bots) == 0 {
		return ""
	}
	verb := "is"
	if len(bots) > 1 {
		verb = "are"
	}
	return names(bots) + " " + verb + " played by the service’s bot, which never votes: a vote cannot end this game. Play it to its end, or resign."
}

// chooseHint says how many options a prompt takes.
func chooseHint(lo, hi int) string {
	switch {
	case lo == hi:
		return "Choose exactly " + strconv.Itoa(lo) + "."
	case lo == 0:
		return "Choose up to " + strconv.Itoa(hi) + "."
	}
	return "Choose " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi) + "."
}

// deadlineLabel says what the game's deadline is the deadline of, for the
// reader of v: the awaited turn's end (with the choices it asks of the
// player whose turn it is), or the answers to an interrupt window or a
// choice of another player's turn.
func deadlineLabel(v *engine.View) string {
	others := slices.ContainsFunc(v.Awaiting, func(s int) bool { return s != v.Active })
	switch {
	case others && slices.Contains(v.Awaiting, v.Seat) && v.Seat != v.Active:
		return "answer by"
	case others:
		return "answers are due"
	case v.Active == v.Seat:
		return "your turn ends"
	}
	return "the turn ends"
}

// offerOf is the standing answers the reader of v may give now, in one
// line, while another player's turn runs and the reader has none set and
// nothing to answer: the board's part of the offer made at the end of a
// turn (the reply's answer email makes it too).
func offerOf(v *engine.View) string {
	if v.Active == v.Seat || v.Standing != nil || len(v.Prompts) > 0 {
		return ""
	}
	offer := notifier.StandingOffer(v)
	if len(offer) == 0 {
		return ""
	}
	return "For " + v.Players[v.Active].Name + "’s turn, answer its interrupt windows now: “" + strings.Join(offer, "”, “") +
		"”, or nothing to be asked when one opens."
}

// standingOf is the form of a seat's standing answers: a box per
// interrupt of the cards its deck was built from (deckList, which the
// engine asks the seat by too) and event it answers, ticked as cur has it.
func standingOf(deckList []string, cur *engine.Standing, key string) *standingView {
	sv := &standingView{Key: key}
	if cur != nil {
		sv.Pass = cur.Pass
	}
	cat := engine.Standard()
	for _, id := range deckList {
		c := cat.Card(id)
		if c == nil || !c.Has(engine.KwInterrupt) {
			continue
		}
		for _, e := range c.Effects {
			if e.Trigger != engine.OnInterrupt {
				continue
			}
			sp := standingPlay{Value: string(e.Answers) + ":" + c.ID,
				Label: "Play " + c.Name + " whenever an opponent is about to " + eventWords[e.Answers]}
			if cur != nil {
				sp.Checked = slices.Contains(cur.Plays, engine.StandingPlay{On: e.Answers, Card: c.ID})
			}
			sv.Plays = append(sv.Plays, sp)
		}
	}
	return sv
}

// endedBecause is how a game ended, as its game_over event e says
// (engine.EndReason), in a sentence of its own: the result box names the
// winners itself.
func endedBecause(e engine.Event) string {
	if r := engine.EndReason(e); r != "" {
		return "It ended because " + r + "."
	}
	return e.Text
}

// resultOf is the outcome of a finished game: the scores, the winners,
// and how a tie on points was broken (the rule: the most valuable single
// challenge; still tied, a shared win).
func resultOf(v *engine.View) *resultView {
	rv := &resultView{Shared: len(v.Winners) > 1}
	top := -1 << 31
	var names []string
	for i, pv := range v.Players {
		si := scoreItem{Name: pv.Name, Points: pv.Points, Winner: slices.Contains(v.Winners, i)}
		for _, c := range pv.Ranking {
			if c.Points > si.BestPoints {
				si.Best, si.BestPoints = c.Name, c.Points
			}
		}
		if si.Winner {
			names = append(names, pv.Name)
			top = max(top, pv.Points)
		}
		rv.Scores = append(rv.Scores, si)
	}
	rv.Winners = strings.Join(names, " and ")
	// In rank order: the winners, then the most points, then the most
	// valuable challenge (the tie-break), seat order last.
	slices.SortStableFunc(rv.Scores, func(a, b scoreItem) int {
		switch {
		case a.Winner != b.Winner:
			return map[bool]int{true: -1, false: 1}[a.Winner]
		case a.Points != b.Points:
			return b.Points - a.Points
		}
		return b.BestPoints - a.BestPoints
	})
	for i := range rv.Scores {
		rv.Scores[i].Rank = i + 1
		if prev := rv.Scores[max(i-1, 0)]; i > 0 && prev.Winner == rv.Scores[i].Winner && prev.Points == rv.Scores[i].Points &&
			prev.BestPoints == rv.Scores[i].BestPoints {
			rv.Scores[i].Rank = prev.Rank
		}
	}
	tied := 0
	for _, s := range rv.Scores {
		if s.Points == top {
			tied++
		}
	}
	switch {
	case len(names) == 0:
	case tied > len(names):
		w := rv.Scores[slices.IndexFunc(rv.Scores, func(s scoreItem) bool { return s.Winner })]
		rv.TieBreak = "Tied on " + strconv.Itoa(top) + " Big Data Points: the tie goes to the most valuable challenge, " +
			w.Best + " (" + strconv.Itoa(w.BestPoints) + " BDP)."
	case rv.Shared:
		rv.TieBreak = "Tied on " + strconv.Itoa(top) + " Big Data Points and on the most valuable challenge: a shared win."
	}
	return rv
}

// settingsWords says a game's settings, a phrase each.
func settingsWords(g *models.Game) []string {
	set := g.SettingsOf()
	out := []string{strconv.Itoa(g.Players) + " players", modeWords[g.Mode]}
	if g.Office {
		out = append(out, "office variant (one shared Laboratory Deck)")
	}
	if g.Policy == string(engine.Conceal) {
		out = append(out, "interrupt windows ask every player whose deck could answer")
	} else {
		out = append(out, "interrupt windows ask only players holding an answer")
	}
	out = append(out, durationWords(set.TurnDeadlineSeconds)+" per turn", durationWords(set.PromptDeadlineSeconds)+" per decision")
	switch {
	case set.TimeoutLimit == 0:
		out = append(out, "no limit on timeouts")
	case set.OnTimeouts == "forfeit":
		out = append(out, "a player who runs out of time "+strconv.Itoa(set.TimeoutLimit)+" times in a row forfeits")
	default:
		out = append(out, "after "+strconv.Itoa(set.TimeoutLimit)+" timeouts in a row a bot plays the seat")
	}
	if set.IgnoreQuietHours {
		out = append(out, "deadlines may fall in the players’ quiet hours")
	} else {
		out = append(out, "a deadline in its player’s quiet hours moves to their end")
	}
	if g.Public {
		out = append(out, "public: anyone may join or watch")
	} else {
		out = append(out, "private: by invitation")
	}
	return out
}

// durationWords says a deadline of secs seconds.
func durationWords(secs int) string {
	for _, o := range deadlineOptions {
		if o.Seconds == secs {
			return o.Label
		}
	}
	d := time.Duration(secs) * time.Second
	switch {
	case d%(24*time.Hour) == 0:
		return strconv.Itoa(int(d/(24*time.Hour))) + " days"
	case d%time.Hour == 0:
		return strconv.Itoa(int(d/time.Hour)) + " hours"
	}
	return strconv.Itoa(int(d/time.Minute)) + " minutes"
}

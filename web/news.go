package web

import (
	"bytes"
	"context"
	"html"
	"html/template"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// What happened, at the top of the board: since the reader's last visit
// or action, the sentences of play.News (the engine's, which the emails
// share) in a banner. A move's answer names the version the move was made
// at (?since=), and the live script keeps it while the board follows the
// game, so the banner grows with what answers the move. A plain visit
// takes the version the reader last saw in this browser (a cookie), or
// else what happened since they last ended a turn.

// newsSlot marks where a board kept drawn takes its reader's news.
const newsSlot template.HTML = `<!--news-->`

// newsMax is the most sentences the banner shows; the log has the rest.
const newsMax = 8

// seenCookie keeps, per browser, the version of each game its reader
// last saw: "id.version" entries, newest first, seenGames at most.
const (
	seenCookie = "dm_seen"
	seenGames  = 20
)

// sinceOf is the version the reader's news start after for game id: the
// request's since, else the version this browser last showed them; 0 for
// none.
func sinceOf(c *gin.Context, id int64) int64 {
	if v, err := strconv.ParseInt(c.Query("since"), 10, 64); err == nil && v > 0 {
		return v
	}
	_, v := seenVersions(c, id)
	return v
}

// seenVersions reads the seen cookie: its entries, and game id's version
// in it (0 for none).
func seenVersions(c *gin.Context, id int64) ([]string, int64) {
	raw, err := c.Cookie(seenCookie)
	if err != nil {
		return nil, 0
	}
	var out []string
	var version int64
	want := strconv.FormatInt(id, 10) + "."
	for _, e := range strings.Split(raw, "-") {
		g, v, ok := strings.Cut(e, ".")
		if !ok || len(out) >= seenGames {
			continue
		}
		if _, err := strconv.ParseInt(g, 10, 64); err != nil {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			continue
		}
		if strings.HasPrefix(e, want) {
			version = n
			continue
		}
		out = append(out, e)
	}
	return out, version
}

// markSeen records in the reader's browser that they saw game id at
// version.
func (p *Pages) markSeen(c *gin.Context, id, version int64) {
	rest, _ := seenVersions(c, id)
	entries := append([]string{strconv.FormatInt(id, 10) + "." + strconv.FormatInt(version, 10)}, rest...)
	if len(entries) > seenGames {
		entries = entries[:seenGames]
	}
	http.SetCookie(c.Writer, &http.Cookie{Name: seenCookie, Value: strings.Join(entries, "-"), Path: "/",
		MaxAge: int((90 * 24 * time.Hour).Seconds()), HttpOnly: true, Secure: p.secure, SameSite: http.SameSiteLaxMode})
}

// withNews sets the reader's news since version since on board bv
// (bv.News): the template draws them, or, for a board drawn already,
// renderBoard puts them in its slot. A board before the start gets none.
func (p *Pages) withNews(ctx context.Context, bv *boardView, since int64) error {
	if !bv.Started {
		return nil
	}
	sentences, earlier, err := p.newsOf(ctx, bv, since)
	bv.News = newsHTML(sentences, earlier)
	return err
}

// boardMark stands for the board in a page drawn around a board kept
// drawn (renderBoard).
const boardMark template.HTML = "<!--board-->"

// renderBoard writes the game page of bv with status and problem. A
// board kept drawn (bv.zip) is not drawn again nor compressed again: the
// page around it is drawn with boardMark in its place, and the pieces
// (the page before the board, the board up to its news slot, the news,
// the rest of the board, the page after it) go out as one response, each
// half of the board compressed once for every reader, the small pieces
// of the reader's own sent stored (writeParts, storedPart).
func (p *Pages) renderBoard(c *gin.Context, status int, problem string, bv *boardView) error {
	if err := p.withTalk(c, bv); err != nil {
		return err
	}
	v := view{Problem: problem, Data: bv, YourMove: bv.YourTurn}
	if bv.zip == nil {
		p.render(c, status, "game", v)
		return nil
	}
	cp := *bv
	cp.HTML = boardMark
	v.Data = &cp
	b, ok := p.draw(c, "game", v)
	defer putBuffer(b)
	if !ok {
		return nil
	}
	page := b.Bytes()
	before, after, found := bytes.Cut(page, []byte(boardMark))
	if !found { // no board on this page after all
		writeBody(c, status, "text/html; charset=utf-8", page)
		c.Abort()
		return nil
	}
	const typ = "text/html; charset=utf-8"
	if acceptsGzip(c.Request) {
		halves := bv.zip.halves()
		writeParts(c, status, typ, storedPart(before), halves[0], storedPart([]byte(bv.News)), halves[1], storedPart(after))
	} else { // sent as it is: the board is not compressed for it
		writeParts(c, status, typ, gzPart{raw: before}, gzPart{raw: bv.zip.head}, gzPart{raw: []byte(bv.News)}, gzPart{raw: bv.zip.tail},
			gzPart{raw: after})
	}
	c.Abort()
	return nil
}

// zipBoard is a board kept drawn, cut at its news slot (head, tail),
// each half compressed once, when a page first needs it compressed.
type zipBoard struct {
	head, tail []byte
	once       sync.Once
	parts      [2]gzPart
}

// newZipBoard keeps the board html, drawn with newsSlot.
func newZipBoard(html []byte) *zipBoard {
	head, tail, _ := bytes.Cut(html, []byte(newsSlot))
	return &zipBoard{head: head, tail: tail}
}

// storedHead is the size under which the board's first half (its title,
// its lead and its hint, a few hundred bytes) is sent stored: compressing
// it would save a few hundred bytes for the cost of a second round of
// Huffman tables, the bulk of a small piece's compression.
const storedHead = 2048

func (z *zipBoard) halves() [2]gzPart {
	z.once.Do(func() {
		head := storedPart(z.head)
		if len(z.head) >= storedHead {
			head = newPart(z.head)
		}
		z.parts = [2]gzPart{head, newPart(z.tail)}
	})
	return z.parts
}

// newsOf is what changed for the reader of bv after version since: the
// events of the versions after it up to the board's (since 0: after the
// reader's last turn_ended), worded by play.News. Only the events a board
// keeps (the last play.RecentEvents) are read, whatever since says: earlier
// reports that more happened before them, which the log has.
func (p *Pages) newsOf(ctx context.Context, bv *boardView, since int64) (sentences []string, earlier bool, err error) {
	if since >= bv.Version || bv.Seat < 0 && since <= 0 {
		return nil, false, nil
	}
	events, err := p.play.Events(ctx, bv.ID, bv.EventSeq, false)
	if err != nil || len(events) == 0 {
		return nil, false, err
	}
	if since <= 0 {
		for i := len(events) - 1; i >= 0; i-- {
			if e := events[i]; e.Kind == engine.KindTurnEnded && e.Seat == bv.Seat {
				since = e.Version
				break
			}
		}
		if since <= 0 {
			return nil, false, nil
		}
	}
	earlier = events[0].Version > since+1 && events[0].Seq > 1
	// In order of their versions: those up to the board's are a prefix.
	upTo := events[:sort.Search(len(events), func(i int) bool { return events[i].Version > bv.Version })]
	return play.News(bv.table, bv.Seat, upTo, since), earlier, nil
}

// newsHTML draws the banner of sentences: at most newsMax, the last of
// them pointing to the log for the rest (or, earlier, for what came
// before them); "" for none.
func newsHTML(sentences []string, earlier bool) template.HTML {
	if len(sentences) == 0 {
		return ""
	}
	more := 0
	if len(sentences) > newsMax {
		more = len(sentences) - newsMax + 1
		sentences = sentences[:newsMax-1]
	}
	var b strings.Builder
	b.WriteString(`<section id="news" class="news" aria-labelledby="news-title">` + "\n" +
		`<h2 id="news-title">Since you last looked</h2>` + "\n" + `<ul>`)
	for _, s := range sentences {
		b.WriteString("\n<li>" + html.EscapeString(s) + "</li>")
	}
	switch {
	case more > 0:
		b.WriteString("\n" + `<li><a href="#log">` + strconv.Itoa(more) + ` more in the log below</a></li>`)
	case earlier:
		b.WriteString("\n" + `<li><a href="#log">More happened before: the log has it</a></li>`)
	}
	b.WriteString("\n</ul>\n</section>")
	return template.HTML(b.String())
}

// logTurn is the events of one turn as the log shows them, oldest first.
type logTurn struct {
	Turn   int    // 0: before the first turn the log holds
	Player string // whose turn
	Events []eventItem
}

// turnsOf groups events by the turn they belong to (each turn_started
// opens one), in the order they happened.
func turnsOf(events []eventItem, players []playerItem) []logTurn {
	var out []logTurn
	for i, e := range events {
		if e.Kind == engine.KindTurnStarted || len(out) == 0 {
			t := logTurn{}
			if e.Kind == engine.KindTurnStarted {
				t.Turn = e.N
				if e.Seat >= 0 && e.Seat < len(players) {
					t.Player = players[e.Seat].Name
				}
			}
			out = append(out, t)
		}
		last := &out[len(out)-1]
		if last.Events == nil {
			last.Events = events[i:i] // a turn's events follow each other: a window on events
		}
		last.Events = last.Events[:len(last.Events)+1]
	}
	return out
}

// turnTitle is a turn's heading in the log.
func (t logTurn) title(reader int, players []playerItem) string {
	switch {
	case t.Turn == 0:
		return "Earlier"
	case t.Player == "":
		return "Turn " + strconv.Itoa(t.Turn)
	}
	who := t.Player + "’s turn"
	for _, p := range players {
		if p.You && p.Name == t.Player && reader >= 0 {
			who = "your turn"
		}
	}
	return "Turn " + strconv.Itoa(t.Turn) + ": " + who
}

// setupTitle names the group of events before the first turn, when the
// log starts with the game.
const setupTitle = "The start"

// groupedLogHTML draws a log by turn, the newest turn first, each turn's
// events in the order they happened, with their times (escaped here,
// since a log runs to hundreds of lines). The newest event is marked, for
// the live script's announcement.
func groupedLogHTML(events []eventItem, players []playerItem, reader int, whole bool) template.HTML {
	turns := turnsOf(events, players)
	var b strings.Builder
	n := 64
	for _, e := range events {
		n += 64 + len(e.Text)
	}
	b.Grow(n + 96*len(turns))
	b.WriteString(`<div class="log">`)
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		title := t.title(reader, players)
		if t.Turn == 0 && (whole || t.Events[0].Kind == engine.KindGameStarted) {
			title = setupTitle
		}
		b.WriteString("\n" + `<section class="log-turn"><h3>` + html.EscapeString(title) + `</h3>` + "\n<ol>")
		for j, e := range t.Events {
			if j == 0 && e.Kind == engine.KindTurnStarted && len(t.Events) > 1 {
				continue // the turn's heading says it
			}
			class := ""
			if i == len(turns)-1 && j == len(t.Events)-1 {
				class = ` class="newest"`
			}
			b.WriteString("\n<li" + class + `><time datetime="` + e.ISO + `">` + html.EscapeString(e.Clock) + `</time> ` + html.EscapeString(e.Text) + `</li>`)
		}
		b.WriteString("\n</ol></section>")
	}
	b.WriteString("\n</div>")
	return template.HTML(b.String())
}

// eventOf is the log line of event v, as stored at seq and time at, read
// by the reader of account a.
func eventOf(seq int64, at time.Time, v engine.Event, clockText string) eventItem {
	return eventItem{Seq: seq, Kind: v.Kind, Seat: v.Seat, N: v.N, Text: v.Text, At: at, Clock: clockText, ISO: iso(at)}
}

package web

import (
	"bytes"
	"html/template"
	"strconv"
	"strings"
)

// The board of a started game is drawn here, in Go, not by a template: it
// is the page read most, and html/template spends most of a board's
// drawing on calling its escapers through reflection, one call for each
// value. Every text is escaped as html/template escapes it (escape); the
// parts drawn already (cards, moves, the log, the news) go in as they are.

// boardHTML draws the board of bv into b.
func boardHTML(b *bytes.Buffer, bv *boardView) {
	w := htmlWriter{b}
	id := strconv.FormatInt(bv.ID, 10)
	version := strconv.FormatInt(bv.Version, 10)
	w.raw(`
<div id="board" class="board"`)
	if bv.Live != "" {
		w.raw(` data-live="`, esc(bv.Live), `"`)
	}
	w.raw(` data-version="`, version, `">
<h1>Game #`, id, `</h1>
<p class="lead"><span class="status">`, esc(bv.Status), `</span> · `)
	if bv.Over {
		w.raw(`after `, strconv.Itoa(bv.Turn), ` turns`)
	} else {
		w.raw(`turn `, strconv.Itoa(bv.Turn), ` · `, esc(bv.ActiveName), ` `, esc(bv.Phase), ` phase`)
	}
	if bv.YourTurn {
		w.raw(` · <strong>it is your move</strong>`)
	}
	w.raw(`</p>`)
	if !bv.Over {
		w.raw("\n" + `<p class="waiting">`)
		if len(bv.Awaited) > 0 {
			w.raw(`Waiting for <strong>`, esc(names(bv.Awaited)), `</strong>.`)
		}
		if bv.DeadlineText != "" {
			w.raw(` Deadline: `, esc(bv.DeadlineLabel), ` <time datetime="`, iso(bv.Deadline), `">`, esc(bv.DeadlineText), `</time>`)
			if bv.DeadlineMoved != "" {
				w.raw(` (`, esc(bv.DeadlineMoved), `)`)
			}
		}
		w.raw(`</p>`)
	}
	if bv.Seat == -1 {
		w.raw("\n" + `<p class="aside">You are watching: you see what every player sees, not their hands.</p>`)
	}
	if bv.Hint != "" {
		w.raw("\n"+`<p class="how">`, esc(bv.Hint), ` <a href="/rules">How to play</a></p>`)
	}
	w.raw("\n", string(bv.News))
	if bv.Reclaim {
		w.raw(`
<section aria-labelledby="reclaim" class="notice">
<h2 id="reclaim">A bot plays your seat</h2>
<p>After your timeouts the service’s bot took your seat over, and you get no turn emails for this game. Take it back to play again yourself: the bot stops at once, and you are told what it did.</p>
<form method="post" action="/games/`, id, `/reclaim">
<input type="hidden" name="key" value="reclaim-`, esc(bv.FormKey), `">
<button type="submit">Take my seat back</button>
</form>
</section>`)
	}
	if r := bv.Result; r != nil {
		resultHTML(w, bv, r, id)
	}
	if f := bv.Fairness; f != nil {
		w.raw(`
<section aria-labelledby="fair-title" class="fairness">
<h2 id="fair-title">Check that the shuffles were fair</h2>
<p>Every shuffle of this game came from a secret fixed at its start, when its commitment was published; now that it is over the secret is revealed. Anyone can replay the game from it and compare: run <code>`, esc(f.Replay), `</code>, or read <a href="`, esc(f.Log), `">the action log</a> and <a href="/rules#fair-play">how the check works</a>.</p>
<dl class="fair">
<dt>Commitment (published at the start)</dt><dd><code>`, esc(f.Commitment), `</code></dd>
<dt>Secret</dt><dd><code>`, esc(f.Secret), `</code></dd>
<dt>Salt</dt><dd><code>`, esc(f.Salt), `</code></dd>
</dl>
</section>`)
	}
	if r := bv.Result; r != nil && len(r.Ratings) > 0 {
		w.raw(`
<section aria-labelledby="ratings-title" class="result">
<h2 id="ratings-title">Ratings</h2>
<ul class="ratings">`)
		for _, l := range r.Ratings {
			w.raw("\n"+`<li><a href="`, esc(l.Path), `">`, esc(l.Name), `</a>: `, strconv.Itoa(l.Before), ` → <strong>`, strconv.Itoa(l.After),
				`</strong> (`, esc(l.Change), `)</li>`)
		}
		w.raw("\n</ul>\n</section>")
	}
	if win := bv.Window; win != nil {
		windowHTML(w, win)
	}
	if bv.Seat >= 0 && bv.Active {
		movesHTML(w, bv, id, version)
	}
	w.raw(`

<section aria-labelledby="table-title" class="table">
<h2 id="table-title">The Market</h2>
<p>`, esc(count(len(bv.Market), "open challenge", "open challenges")), ` · `, strconv.Itoa(bv.Deck), ` left in the Challenge Deck`)
	if bv.Office {
		w.raw(` · the shared Laboratory Deck holds `, esc(count(bv.Shared, "card", "cards")), `, the shared Recycle Bin `, strconv.Itoa(bv.SharedBin))
	}
	w.raw(`.</p>`)
	if len(bv.Market) > 0 {
		w.cards(bv.Market)
	}
	if len(bv.Global) > 0 {
		w.raw("\n<h3>The Global zone</h3>")
		w.cards(bv.Global)
	}
	if bd := bv.Build; bd != nil {
		if bd.Mine {
			w.raw("\n<h3>Your Software Build")
		} else {
			w.raw("\n<h3>", esc(bd.Owner), `’s Software Build`)
		}
		w.raw(`: TECH `, strconv.Itoa(bd.Tech), `, SCI `, strconv.Itoa(bd.Sci), `</h3>`)
		w.cards(bd.Tools)
		if bd.Mine {
			w.raw("\n" + `<p class="aside">A challenge marked “your build can claim it” needs no more TECH and SCI than the build has.</p>`)
		}
	}
	w.raw("\n</section>")
	if bv.Seat >= 0 {
		w.raw(`
<section aria-labelledby="hand-title">
<h2 id="hand-title">Your hand (`, strconv.Itoa(len(bv.Hand)), `)</h2>`)
		if len(bv.Hand) > 0 {
			w.cards(bv.Hand)
		} else {
			w.raw("\n<p>Your hand is empty.</p>")
		}
		w.raw("\n</section>")
	}
	w.raw(`

<section aria-labelledby="players-title" class="players-section">
<h2 id="players-title">Players</h2>
<div class="players-grid">`)
	for i := range bv.Players {
		playerHTML(w, &bv.Players[i])
	}
	w.raw("\n</div>\n</section>")
	if bv.Seat >= 0 && !bv.Office {
		w.raw(`
<section aria-labelledby="bin-title">
<h2 id="bin-title">Your Recycle Bin (`, strconv.Itoa(len(bv.Bin)), `)</h2>`)
		if len(bv.Bin) > 0 {
			w.cards(bv.Bin)
		} else {
			w.raw("\n<p>Your Recycle Bin is empty.</p>")
		}
		w.raw("\n</section>")
	}
	if st := bv.Standing; st != nil {
		standingHTML(w, st, id, version)
	}
	w.raw(`

<section id="log" aria-labelledby="log-title">
<h2 id="log-title">What happened</h2>`)
	if bv.Earlier {
		w.raw("\n"+`<p><a href="/games/`, id, `/log">Read the whole log</a></p>`)
	}
	w.raw("\n", string(bv.Log), "\n</section>")
	if bv.Standing != nil {
		endHTML(w, bv, id, version)
	}
	w.raw("\n</div>\n")
}

// resultHTML draws a finished game's scores and its rematch.
func resultHTML(w htmlWriter, bv *boardView, r *resultView, id string) {
	w.raw(`
<section aria-labelledby="result-title" class="result">
<h2 id="result-title">Final scores</h2>`)
	if r.Reason != "" {
		w.raw("\n<p>", esc(r.Reason), "</p>")
	}
	w.raw("\n" + `<p class="lead">`)
	switch {
	case r.Shared:
		w.raw(`A shared win: <strong>`, esc(r.Winners), `</strong>.`)
	case r.Winners != "":
		w.raw(`The winner is <strong>`, esc(r.Winners), `</strong>.`)
	default:
		w.raw(`Nobody won.`)
	}
	w.raw(`</p>`)
	if r.TieBreak != "" {
		w.raw("\n<p>", esc(r.TieBreak), "</p>")
	}
	w.raw(`
<div class="scroll">
<table>
<caption>Big Data Points at the end, in rank order</caption>
<thead><tr><th scope="col">Rank</th><th scope="col">Player</th><th scope="col">Big Data Points</th><th scope="col">Most valuable challenge</th></tr></thead>
<tbody>`)
	for _, s := range r.Scores {
		w.raw("\n<tr><td>", strconv.Itoa(s.Rank), `</td><th scope="row">`, esc(s.Name))
		if s.Winner {
			w.raw(` <span class="badge">winner</span>`)
		}
		w.raw(`</th><td>`, strconv.Itoa(s.Points), `</td><td>`)
		if s.Best != "" {
			w.raw(esc(s.Best), ` (`, strconv.Itoa(s.BestPoints), ` BDP)`)
		} else {
			w.raw(`none`)
		}
		w.raw(`</td></tr>`)
	}
	w.raw("\n</tbody>\n</table>\n</div>")
	if bv.Rematch {
		w.raw("\n"+`<form method="post" action="/games/`, id, `/rematch"><input type="hidden" name="key" value="rematch-`, esc(bv.FormKey), `">
<p><button type="submit">Rematch: the same players and settings</button> <span class="aside">`)
		if bv.RematchNow {
			w.raw(`It starts at once.`)
		} else {
			w.raw(`The others are invited; the game starts once they have all joined.`)
		}
		w.raw("</span></p>\n</form>")
	}
	w.raw("\n</section>")
}

// windowHTML draws an open interrupt window with what it is about.
func windowHTML(w htmlWriter, win *windowItem) {
	w.raw(`
<section aria-labelledby="window-title" class="window">
<h2 id="window-title">Interrupt window</h2>
<p>`, esc(win.Text), `. `)
	if len(win.Waiting) > 0 {
		w.raw(`Waiting for an answer from <strong>`, esc(names(win.Waiting)), `</strong>`)
		if len(win.Answered) > 0 {
			w.raw(`; `)
		}
	}
	if len(win.Answered) > 0 {
		w.raw(esc(names(win.Answered)), ` answered`)
	}
	w.raw(`. Answers stay sealed until the window closes.</p>`)
	if win.Card != "" {
		w.raw("\n"+`<div class="window-card">`, string(win.Card), `</div>`)
	}
	if len(win.Challenges) > 0 {
		w.raw("\n<p>The claim needs ", esc(win.Claim))
		if bd := win.Build; bd != nil {
			if bd.Mine {
				w.raw(`; your`)
			} else {
				w.raw(`; `, esc(bd.Owner), `’s`)
			}
			w.raw(` Software Build has TECH `, strconv.Itoa(bd.Tech), `, SCI `, strconv.Itoa(bd.Sci))
		}
		w.raw(`.</p>`)
		w.cards(win.Challenges)
	}
	w.raw("\n</section>")
}

// movesHTML draws what the reader owes and may do: the prompts, then the
// turn's actions.
func movesHTML(w htmlWriter, bv *boardView, id, version string) {
	w.raw(`
<section id="moves" aria-labelledby="moves-title" class="moves" tabindex="-1">
<h2 id="moves-title">Your move</h2>`)
	for i := range bv.Prompts {
		p := &bv.Prompts[i]
		n := strconv.Itoa(i)
		if p.Single {
			w.raw("\n" + `<div class="prompt`)
			if p.Interrupt {
				w.raw(` interrupt`)
			}
			w.raw(`" role="group" aria-labelledby="q-`, n, `">
<p id="q-`, n, `" class="question">`, esc(p.Text), `</p>
<ul class="choices`)
			if p.Cards {
				w.raw(` with-cards`)
			}
			w.raw(`">`)
			for _, o := range p.Options {
				if o.Card != "" {
					w.raw("\n"+`<li class="choice-card"><ul class="bare">`, string(o.Form), `</ul>`, string(o.Card), `</li>`)
				} else {
					w.raw("\n", string(o.Form))
				}
			}
			w.raw("\n</ul>")
			w.onTimeout(p.OnTimeout)
			w.raw("\n</div>")
			continue
		}
		w.raw("\n"+`<form method="post" action="/games/`, id, `/play" class="prompt choose" data-kind="`, esc(p.Kind), `" data-min="`,
			strconv.Itoa(p.Min), `" data-max="`, strconv.Itoa(p.Max), `">
<input type="hidden" name="v" value="`, version, `"><input type="hidden" name="key" value="`, esc(p.Key),
			`"><input type="hidden" name="type" value="answer"><input type="hidden" name="prompt" value="`, esc(p.ID), `">
<fieldset>
<legend class="question">`, esc(p.Text), `</legend>
<p class="hint" id="h-`, n, `">`, esc(p.Hint), `</p>`)
		for j, o := range p.Options {
			box := "c-" + n + "-" + strconv.Itoa(j)
			w.raw("\n"+`<div class="choice"><input type="checkbox" id="`, box, `" name="choice" value="`, esc(o.ID), `" aria-describedby="h-`, n,
				`"> <label for="`, box, `">`, esc(o.Text), `</label>`, string(o.Card), `</div>`)
		}
		w.raw("\n</fieldset>\n" + `<p class="count" aria-live="polite"></p>`)
		w.onTimeout(p.OnTimeout)
		w.raw("\n" + `<p><button type="submit">Send my choice</button></p>` + "\n</form>")
	}
	if len(bv.Actions) > 0 {
		w.raw("\n" + `<ul class="actions-list">`)
		for _, a := range bv.Actions {
			w.raw("\n", string(a.Form))
		}
		w.raw("\n</ul>")
	}
	if len(bv.Prompts) == 0 && len(bv.Actions) == 0 {
		w.raw("\n<p>Nothing for you to do now")
		if len(bv.Awaited) > 0 {
			w.raw(`: the game waits for `, esc(names(bv.Awaited)))
		}
		w.raw(`. This page shows what happens as it happens.</p>`)
	}
	w.raw("\n</section>")
}

// playerHTML draws a seat at the table.
func playerHTML(w htmlWriter, pl *playerItem) {
	seat := strconv.Itoa(pl.Seat)
	w.raw("\n" + `<article class="player`)
	if pl.Active {
		w.raw(` active`)
	}
	w.raw(`" aria-labelledby="player-`, seat, `">
<h3 id="player-`, seat, `">`, esc(pl.Name))
	if pl.You {
		w.raw(` (you)`)
	}
	if pl.Bot {
		w.raw(` · bot`)
	}
	w.raw(`</h3>
<p class="counts"><strong>`, strconv.Itoa(pl.Points), `</strong> `)
	if pl.Points == 1 {
		w.raw(`Big Data Point`)
	} else {
		w.raw(`Big Data Points`)
	}
	w.raw(` · hand `, strconv.Itoa(pl.HandCount), ` · deck `, strconv.Itoa(pl.DeckCount), ` · Recycle Bin `, strconv.Itoa(pl.BinCount))
	if pl.Active {
		if pl.You {
			w.raw(` · <span class="badge">your turn</span>`)
		} else {
			w.raw(` · <span class="badge">their turn</span>`)
		}
	}
	for _, flag := range [...]struct {
		on   bool
		text string
	}{{pl.Awaited, ` · to move`}, {pl.Winner, ` · <span class="badge">winner</span>`}, {pl.Resigned, ` · resigned`},
		{pl.VotedEnd, ` · voted to end`}, {pl.Limited, ` · played a limit card`}} {
		if flag.on {
			w.raw(flag.text)
		}
	}
	w.raw("</p>\n<h4>Lab</h4>")
	if len(pl.Lab) > 0 {
		w.cards(pl.Lab)
	} else {
		w.raw("\n" + `<p class="aside">Empty.</p>`)
	}
	w.raw("\n<h4>Ranking</h4>")
	if len(pl.Ranking) > 0 {
		w.cards(pl.Ranking)
	} else {
		w.raw("\n" + `<p class="aside">No challenge won yet.</p>`)
	}
	w.raw("\n</article>")
}

// standingHTML draws the form of the reader's standing answers.
func standingHTML(w htmlWriter, st *standingView, id, version string) {
	w.raw(`
<section id="standing" aria-labelledby="standing-title">
<h2 id="standing-title">Standing answers</h2>
<p>Answer interrupt windows before they open, so that the game need not wait for you. A play below applies when you hold the card; otherwise you are asked, unless you always pass.</p>`)
	if st.Offer != "" {
		w.raw("\n"+`<p class="offer"><strong>`, esc(st.Offer), `</strong></p>`)
	}
	w.raw(`
<form method="post" action="/games/`, id, `/play" class="stack">
<input type="hidden" name="v" value="`, version, `"><input type="hidden" name="key" value="`, esc(st.Key), `"><input type="hidden" name="type" value="standing">
<fieldset>
<legend>When an interrupt window opens for me</legend>`)
	for i, sp := range st.Plays {
		box := "st-" + strconv.Itoa(i)
		w.raw("\n"+`<p><input type="checkbox" id="`, box, `" name="play" value="`, esc(sp.Value), `"`)
		if sp.Checked {
			w.raw(` checked`)
		}
		w.raw(`> <label for="`, box, `">`, esc(sp.Label), `</label></p>`)
	}
	w.raw("\n" + `<p><input type="checkbox" id="st-pass" name="pass" value="on"`)
	if st.Pass {
		w.raw(` checked`)
	}
	w.raw(`> <label for="st-pass">Otherwise always pass</label></p>
</fieldset>
<p><button type="submit" class="secondary">Save my standing answers</button></p>
</form>
</section>`)
}

// endHTML draws the vote to end the game and the resignation.
func endHTML(w htmlWriter, bv *boardView, id, version string) {
	w.raw(`
<section id="end" aria-labelledby="end-title">
<h2 id="end-title">End the game</h2>`)
	switch {
	case bv.Voted:
		w.raw("\n<p>You voted to end the game as it stands; it ends once every player still in it has.</p>")
	case bv.VoteNote != "":
		w.raw("\n<p>", esc(bv.VoteNote), "</p>")
	default:
		w.raw("\n"+`<form method="post" action="/games/`, id, `/play"><input type="hidden" name="v" value="`, version,
			`"><input type="hidden" name="key" value="`, esc(bv.FormKey), `-vote"><input type="hidden" name="type" value="vote_end">
<p><button type="submit" class="secondary">Vote to end the game as it stands</button></p>
</form>`)
	}
	w.raw("\n"+`<form method="post" action="/games/`, id, `/play"><input type="hidden" name="v" value="`, version,
		`"><input type="hidden" name="key" value="`, esc(bv.FormKey), `-resign"><input type="hidden" name="type" value="resign">
<p><input type="checkbox" id="resign-confirm" name="confirm" value="yes" required> <label for="resign-confirm">I leave this game for good: I can no longer win it</label></p>
<p><button type="submit" class="danger">Resign</button></p>
</form>
</section>`)
}

// htmlWriter writes a page's HTML into a buffer.
type htmlWriter struct{ b *bytes.Buffer }

// raw writes parts as they are: HTML, or texts escaped already.
func (w htmlWriter) raw(parts ...string) {
	for _, s := range parts {
		w.b.WriteString(s)
	}
}

// cards writes cards as a list on a line of its own.
func (w htmlWriter) cards(cs []cardItem) {
	w.b.WriteString("\n")
	w.cardList(cs)
}

// cardList writes cards as a list: each card's HTML (cardItem.HTML).
func (w htmlWriter) cardList(cs []cardItem) {
	w.b.WriteString(`<ul class="cards">`)
	for _, c := range cs {
		w.b.WriteString("\n")
		w.b.WriteString(string(c.HTML()))
	}
	w.b.WriteString("\n</ul>")
}

// onTimeout writes what a prompt takes at the deadline, if anything.
func (w htmlWriter) onTimeout(s string) {
	if s != "" {
		w.raw("\n"+`<p class="aside">If you do not answer by the deadline, `, esc(s), `.</p>`)
	}
}

// escaper escapes a text as html/template does in a text or a quoted
// attribute: the five characters HTML gives a meaning, and + (which
// some encodings of a page could read as the start of a tag). It is not
// html.EscapeString (which the cards and the moves use): the parts drawn
// here were the template's, and write what it wrote (a rating's "&#43;24").
var escaper = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;")

// esc is s escaped for HTML text and quoted attributes.
func esc(s string) string {
	if !strings.ContainsAny(s, "\x00\"&'+<>") {
		return s
	}
	return escaper.Replace(s)
}

// boardFunc draws a board for a page's template: a board not kept drawn
// (a whole log, a spectator's view of a seated reader).
func boardFunc(bv *boardView) template.HTML {
	var b bytes.Buffer
	boardHTML(&b, bv)
	return template.HTML(b.String())
}

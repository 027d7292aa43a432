package web

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
	"golang.org/x/net/html"
)

// fullBoard is a board with every part drawn (a result, its fairness and
// ratings, a window, both kinds of prompt, actions, a build, the standing
// answers) and every text s.
func fullBoard(s string) *boardView {
	card := cardItem{Card: "x-" + s, Name: s, Kind: "tool", TypeLine: s, Text: []string{s}}
	build := &buildItem{Owner: s, Tools: []cardItem{card}, Tech: 3, Sci: 4}
	bv := &boardView{Version: 9, Seat: 0, Started: true, Turn: 4, ActiveName: s, Phase: s, Awaited: []string{s, s},
		Market: []cardItem{card}, Deck: 3, Office: true, Shared: 1, SharedBin: 2, Global: []cardItem{card}, Hand: []cardItem{card},
		Build: build, Voted: false, VoteNote: "", Hint: s, News: template.HTML("<p>news</p>"), Rematch: true,
		Log: template.HTML("<ol><li>log</li></ol>"), Earlier: true, Live: "/games/1/live?" + s,
		DeadlineText: s, DeadlineLabel: s, DeadlineMoved: s}
	bv.ID, bv.Status, bv.YourTurn, bv.Reclaim, bv.Active, bv.FormKey, bv.Deadline = 1, s, true, true, true, s, time.Unix(0, 0)
	bv.Players = []playerItem{{Seat: 0, Name: s, You: true, Active: true, Awaited: true, Bot: true, Resigned: true, VotedEnd: true, Limited: true,
		Winner: true, Points: 1, Lab: []cardItem{card}}, {Seat: 1, Name: s, Ranking: []cardItem{card}}}
	bv.Result = &resultView{Reason: s, Winners: s, TieBreak: s, Shared: true,
		Scores:  []scoreItem{{Rank: 1, Name: s, Points: 5, Winner: true, Best: s, BestPoints: 3}, {Rank: 2, Name: s}},
		Ratings: []ratingLine{{Name: s, Path: "/players/" + s, Before: 1500, After: 1510, Change: s}}}
	bv.Fairness = &fairnessView{Commitment: s, Secret: s, Salt: s, Log: "/v1/" + s, Replay: s}
	bv.Window = &windowItem{Text: s, Waiting: []string{s}, Answered: []string{s}, Card: template.HTML("<div>card</div>"),
		Challenges: []cardItem{card}, Build: build, Claim: s}
	bv.Prompts = []promptItem{
		{ID: s, Text: s, Kind: s, Single: true, Interrupt: true, Cards: true, OnTimeout: s,
			Options: []optionItem{{ID: s, Text: s, Form: template.HTML("<li>f</li>"), Card: template.HTML("<div>c</div>")}, {ID: s, Text: s, Form: template.HTML("<li>g</li>")}}},
		{ID: s, Text: s, Kind: s, Min: 0, Max: 2, Hint: s, Key: s, OnTimeout: s, Options: []optionItem{{ID: s, Text: s}, {ID: s, Text: s}}},
	}
	bv.Actions = []actionItem{{Form: template.HTML("<li>a</li>")}}
	bv.Standing = &standingView{Pass: true, Key: s, Offer: s, Plays: []standingPlay{{Value: s, Label: s, Checked: true}}}
	return bv
}

// shape is the markup of a page: each tag with its attributes' names, in
// order, without the texts and values.
func shape(t *testing.T, page string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatal(z.Err())
			}
			return b.String()
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			tok := z.Token()
			fmt.Fprintf(&b, "<%s", tok.Data)
			for _, a := range tok.Attr {
				fmt.Fprintf(&b, " %s", a.Key)
			}
			b.WriteString(">")
		}
	}
}

// TestBoardHTMLEscapes: whatever the board's texts hold (names, card
// texts, keys), they come out as text and attribute values: the page has
// the markup of a board of plain words, and each text reads back as it
// was.
func TestBoardHTMLEscapes(t *testing.T) {
	evil := `"><script>alert(1)</script><b x='1' y=2>&amp;+`
	draw := func(s string) string {
		var b bytes.Buffer
		boardHTML(&b, fullBoard(s))
		return b.String()
	}
	plain, hostile := draw("word"), draw(evil)
	if got, want := shape(t, hostile), shape(t, plain); got != want {
		t.Fatalf("the hostile texts changed the markup:\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(hostile, "<script") || strings.Contains(hostile, "<b x") {
		t.Fatal("a text came out as markup")
	}
	// Each text reads back whole: as many times as the plain word does.
	if got, want := strings.Count(html.UnescapeString(hostile), evil), strings.Count(plain, "word"); got != want || want < 40 {
		t.Fatalf("the hostile text reads back %d times, the plain word %d", got, want)
	}
}

// TestLayoutEscapes: the layout's texts (the reader's name, a notice, a
// problem) come out as text, whatever they hold.
func TestLayoutEscapes(t *testing.T) {
	a, err := loadAssets()
	if err != nil {
		t.Fatal(err)
	}
	pages, err := parsePages(a)
	if err != nil {
		t.Fatal(err)
	}
	evil := `"><script>alert(1)</script>`
	p := &Pages{assets: a, pages: pages}
	var plain, hostile bytes.Buffer
	draw := func(b *bytes.Buffer, s string) {
		v := view{Account: &models.Account{}, Notice: s, Problem: s, Data: map[string]any{}}
		v.Account.Username = s
		if err := p.layout(b, pages["rules"], v); err != nil {
			t.Fatal(err)
		}
	}
	draw(&plain, "word")
	draw(&hostile, evil)
	if got, want := shape(t, hostile.String()), shape(t, plain.String()); got != want {
		t.Fatalf("the hostile texts changed the markup:\n%s\nwant\n%s", got, want)
	}
	if n := strings.Count(html.UnescapeString(hostile.String()), evil); n != 3 {
		t.Fatalf("the hostile text reads back %d times, want 3", n)
	}
}

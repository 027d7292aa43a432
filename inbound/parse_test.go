package inbound_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/inbound"
)

// TestCutClientLayouts: the reply's own text is kept and the quoted
// original cut, in the layouts of the mail clients people reply with.
func TestCutClientLayouts(t *testing.T) {
	t.Parallel()
	original := "Hello Ana,\n\nIt is your turn.\n\nWhat you can do now (version 7):\n  1. Place Glitchy (Junior) in your Lab\n  2. End your turn\n"
	quote := func(prefix string) string {
		var b strings.Builder
		for _, l := range strings.Split(original, "\n") {
			b.WriteString(prefix + l + "\n")
		}
		return b.String()
	}
	for _, tc := range []struct{ client, body, want string }{
		{"Gmail", "1 2\n\nOn Tue, Dec 1, 2026 at 10:00 AM Data Monsters <turns@dm.example> wrote:\n\n" + quote("> "), "1 2"},
		{"Gmail, attribution wrapped", "place glitchy\nend\n\nOn Tue, Dec 1, 2026 at 10:00 AM Data Monsters <\nturns@dm.example> wrote:\n" + quote("> "), "place glitchy\nend"},
		{"Outlook desktop", "2\r\n\r\n________________________________\r\nFrom: Data Monsters <turns@dm.example>\r\nSent: Tuesday, December 1, 2026 10:00 AM\r\nTo: Ana <ana@example.com>\r\nSubject: [Data Monsters] Game #1: your turn\r\n\r\n" + original, "2"},
		{"Outlook, Original Message", "1\n\n-----Original Message-----\nFrom: Data Monsters\nSent: Tuesday\n" + original, "1"},
		{"Outlook web, bold headers", "end\n\n*From:* Data Monsters <turns@dm.example>\n*Sent:* Tuesday\n" + original, "end"},
		{"Apple Mail", "1\n\n> On 1 Dec 2026, at 10:00, Data Monsters <turns@dm.example> wrote:\n>\n" + quote("> "), "1"},
		{"iPhone", "pass\n\nSent from my iPhone\n\n> On 1 Dec 2026, at 10:00, Data Monsters <turns@dm.example> wrote:\n" + quote("> "), "pass"},
		{"Android Gmail", "discard 2 5\n\nOn Tue, 1 Dec 2026, 10:00 Data Monsters, <turns@dm.example> wrote:\n\n" + quote("> "), "discard 2 5"},
		{"Outlook for iOS", "1, 2\n\nGet Outlook for iOS\n________________________________\nFrom: Data Monsters\n" + original, "1, 2"},
		{"Thunderbird", "3\n\nOn 01/12/2026 10:00, Data Monsters wrote:\n" + quote("> "), "3"},
		{"Thunderbird, signature", "3\n\n-- \nAna Lovelace\nAnalytical Engines Ltd\n\nOn 01/12/2026 10:00, Data Monsters wrote:\n" + quote("> "), "3"},
		{"French client", "1\n\nLe mar. 1 déc. 2026 à 10:00, Data Monsters <turns@dm.example> a écrit :\n" + quote("> "), "1"},
		{"German client", "1\n\nAm Di., 1. Dez. 2026 um 10:00 Uhr schrieb Data Monsters <turns@dm.example>:\n" + quote("> "), "1"},
		{"bottom posting, no prefix", "end", "end"},
		{"quoted only", quote("> "), ""},
	} {
		if got := inbound.Cut(tc.body); got != tc.want {
			t.Errorf("%s: Cut = %q, want %q", tc.client, got, tc.want)
		}
	}
}

// TestHTMLOnlyReplies: the HTML of replies that have no text part reads
// as the reply's own text, the quoted original left out.
func TestHTMLOnlyReplies(t *testing.T) {
	t.Parallel()
	orig := `<p>It is your turn.</p><ol><li value="1">Place Glitchy</li><li value="2">End your turn</li></ol>`
	for _, tc := range []struct{ client, html, want string }{
		{"Gmail", `<div dir="ltr">1<div>end</div></div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Tue, Dec 1, 2026 Data Monsters wrote:<br></div><blockquote class="gmail_quote">` + orig + `</blockquote></div>`, "1\nend"},
		{"Outlook", `<html><head><style>p{}</style></head><body><div>2</div><div id="appendonsend"></div><hr><div id="divRplyFwdMsg"><b>From:</b> Data Monsters</div>` + orig + `</body></html>`, "2"},
		{"Apple Mail", `<html><body><div>place glitchy</div><div><br><blockquote type="cite"><div>On 1 Dec 2026, Data Monsters wrote:</div>` + orig + `</blockquote></div></body></html>`, "place glitchy"},
		{"Thunderbird", `<p>pass<br></p><div class="moz-cite-prefix">On 01/12/2026 Data Monsters wrote:<br></div><blockquote type="cite">` + orig + `</blockquote>`, "pass"},
		{"Yahoo", `<div>1, 2</div><div class="yahoo_quoted"><div>On Tuesday, Data Monsters wrote:</div>` + orig + `</div>`, "1, 2"},
		{"unclosed tags", `<div>3<p>end`, "3\nend"},
	} {
		raw := "From: ana@example.com\r\nTo: play-x@dm.example\r\nSubject: Re: turn\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + tc.html
		m, err := inbound.Parse([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", tc.client, err)
		}
		if !m.HTMLOnly {
			t.Errorf("%s: not read as HTML", tc.client)
		}
		if got := inbound.Cut(m.Text); got != tc.want {
			t.Errorf("%s: text %q, want %q", tc.client, got, tc.want)
		}
	}
}

// TestParseCharsets: a Latin-1, quoted-printable text part and a base64
// one read as UTF-8; the text part wins over the HTML part.
func TestParseCharsets(t *testing.T) {
	t.Parallel()
	raw := "From: =?iso-8859-1?q?Ana_L=F6we?= <Ana@Example.com>\r\nTo: play-x@dm.example\r\nSubject: =?utf-8?b?UmU6IHTDvHJu?=\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain; charset=iso-8859-1\r\n" +
		"Content-Transfer-Encoding: quoted-printable\r\n\r\nplace gl=EEtchy\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>other</p>\r\n--b--\r\n"
	m, err := inbound.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if m.From != "ana@example.com" || m.FromName != "Ana Löwe" || m.Subject != "Re: türn" || strings.TrimSpace(m.Text) != "place glîtchy" || m.HTMLOnly {
		t.Fatalf("%+v", m)
	}
}

// lines is a numbered list as engine.Numbered gives one: a discard prompt
// taking 2 of 3, an interrupt window, then the turn's actions.
var lines = []engine.Line{
	{N: 1, Text: "Discard Data Lake (TECH 0, SCI 2)", Prompt: "p1", Option: "c1"},
	{N: 2, Text: "Discard Glitchy (Junior)", Prompt: "p1", Option: "c2"},
	{N: 3, Text: "Discard Overfit Goblin", Prompt: "p1", Option: "c3"},
	{N: 4, Text: "Pass", Prompt: "p2", Option: engine.Pass, Action: engine.Action{Type: engine.ActAnswer, Prompt: "p2", Choices: []string{engine.Pass}}},
	{N: 5, Text: "Place Glitchy (Junior) in your Lab", Action: engine.Action{Type: engine.ActPlace, Card: "i1"}},
	{N: 6, Text: "Place Glîtchy (Senior): replaces your Glitchy (Junior)", Action: engine.Action{Type: engine.ActPlace, Card: "i2"}},
	{N: 7, Text: "Play Pipeline Runner, starting a Software Build", Action: engine.Action{Type: engine.ActPlayTool, Card: "i3"}},
	{N: 8, Text: "Claim Cache Invalidation with your build (TECH 4, SCI 2)", Action: engine.Action{Type: engine.ActClaim, Challenges: []string{"m1"}}},
	{N: 9, Text: "End your turn", Action: engine.Action{Type: engine.ActEndTurn}},
}

func TestCommands(t *testing.T) {
	t.Parallel()
	place := func(c string) engine.Action { return engine.Action{Type: engine.ActPlace, Card: c} }
	end := engine.Action{Type: engine.ActEndTurn}
	discard := func(cs ...string) engine.Action {
		return engine.Action{Type: engine.ActAnswer, Prompt: "p1", Choices: cs}
	}
	pass := engine.Action{Type: engine.ActAnswer, Prompt: "p2", Choices: []string{engine.Pass}}
	for _, tc := range []struct {
		body string
		want []engine.Action
		err  string // in the error, when the reply is refused
	}{
		{body: "5", want: []engine.Action{place("i1")}},
		{body: "5 7 9", want: []engine.Action{place("i1"), lines[6].Action, end}},
		{body: "5\n7\nend", want: []engine.Action{place("i1"), lines[6].Action, end}},
		{body: "5, 7, end", want: []engine.Action{place("i1"), lines[6].Action, end}},
		{body: "discard 1 3", want: []engine.Action{discard("c1", "c3")}},
		{body: "1 3\npass", want: []engine.Action{discard("c1", "c3"), pass}},
		{body: "PASS", want: []engine.Action{pass}},
		{body: "play pipeline runner", want: []engine.Action{lines[6].Action}},
		{body: "Play Pipe", want: []engine.Action{lines[6].Action}},
		{body: "claim cache invalidation", want: []engine.Action{lines[7].Action}},
		{body: "CLAIM CACHE", want: []engine.Action{lines[7].Action}},
		{body: "place glitchy junior", want: []engine.Action{place("i1")}},
		{body: "place glitchy senior", want: []engine.Action{place("i2")}},
		{body: "place glîtchy sénior end", want: []engine.Action{place("i2"), end}},
		{body: "discard overfit goblin, discard data lake", want: []engine.Action{discard("c3", "c1")}},
		{body: "5\nend\n\nAna", want: []engine.Action{place("i1"), end}},
		{body: "always pass", want: []engine.Action{{Type: engine.ActStanding, Standing: &engine.Standing{Pass: true}}}},
		{body: "place glitchy", err: `could be lines 5 or 6`},
		{body: "place unicorn", err: `no line of the email's list reads "place unicorn"`},
		{body: "12", err: "there is no line 12"},
		{body: "5 5", err: "chosen twice"},
		{body: "1 5 2", err: "give the options of one question together"},
		{body: "Thanks!", err: "no line"},
		{body: "", err: "holds no command"},
		{body: "play null pointer when lunch", err: `after "when" name an event`},
	} {
		r := &inbound.Resolver{Lines: lines, Catalog: engine.Standard()}
		items, err := r.Read(tc.body)
		var acts []engine.Action
		if err == nil {
			acts, err = r.Actions(items)
		}
		if tc.err != "" {
			var ce *inbound.CommandError
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ce) {
				t.Errorf("%q: error %v, want %q", tc.body, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.body, err)
			continue
		}
		if !slices.EqualFunc(acts, tc.want, func(a, b engine.Action) bool { return reflect.DeepEqual(a, b) }) {
			t.Errorf("%q: %v, want %v", tc.body, acts, tc.want)
		}
	}
}

// TestStandingPlay: "play <card> when <event>" names a Hack of the hand
// or the catalogue and adds to the standing answers the seat has.
func TestStandingPlay(t *testing.T) {
	t.Parallel()
	cat := engine.Standard()
	var hack *engine.Card
	for _, c := range cat.Cards() {
		if c.Type == engine.Hack && strings.Contains(engine.CardText(c), "Interrupt") {
			hack = c
			break
		}
	}
	if hack == nil {
		t.Skip("no interrupt Hack in the catalogue")
	}
	r := &inbound.Resolver{Lines: lines, Catalog: cat, Standing: engine.Standing{Pass: true}}
	items, err := r.Read("play " + strings.ToLower(hack.Name) + " when claim")
	if err != nil {
		t.Fatal(err)
	}
	acts, err := r.Actions(items)
	if err != nil || len(acts) != 1 || acts[0].Type != engine.ActStanding {
		t.Fatalf("%v %v", acts, err)
	}
	st := acts[0].Standing
	if !st.Pass || len(st.Plays) != 1 || st.Plays[0] != (engine.StandingPlay{On: engine.EvClaim, Card: hack.ID}) {
		t.Fatalf("standing %+v", st)
	}
}

// FuzzCommands: any body gives items or a *CommandError, never a panic,
// and every item names a line of the list or a standing answer.
func FuzzCommands(f *testing.F) {
	for _, s := range []string{"1", "1 4 end", "discard 2 5", "place glitchy", "always pass", "play null pointer when claim",
		"pass\n\nAna", "none", "5,,,;;7", strings.Repeat("1 ", 400), "\x00\xff", "claim ćache"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r := &inbound.Resolver{Lines: lines, Catalog: engine.Standard()}
		items, err := r.Read(body)
		if err != nil {
			var ce *inbound.CommandError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		for _, it := range items {
			if it.Standing == nil && it.Answer == nil && it.N == 0 {
				t.Fatalf("item %+v names nothing", it)
			}
		}
		if _, err := r.Actions(items); err != nil {
			var ce *inbound.CommandError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v", err, err)
			}
		}
	})
}

// FuzzCut: any body, cut or parsed as a message, gives text, never a
// panic, and the cut text is a part of the body.
func FuzzCut(f *testing.F) {
	for _, s := range []string{"1\n> q", "On Tue wrote:\n", "a\r\n-- \r\nsig", "<div class=gmail_quote>x</div>",
		"From: a\nSent: b", strings.Repeat(">", 5000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got := inbound.Cut(body)
		if !strings.Contains(strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n"), got) {
			t.Fatalf("Cut(%q) = %q, not a part of it", body, got)
		}
		inbound.HTMLText(strings.NewReader(body))
		inbound.Parse([]byte("From: a@b.c\r\nContent-Type: text/html\r\n\r\n" + body))
		inbound.Parse([]byte(body))
	})
}

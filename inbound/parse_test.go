package inbound_test

import (
	"strings"
	"testing"

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
		{"Thunderbird, bottom posting", "On 01/12/2026 10:00, Data Monsters wrote:\n" + quote("> ") + "\n3\nend\n", "3\nend"},
		{"bottom posting, signature", "On 01/12/2026 10:00, Data Monsters wrote:\n" + quote("> ") + "1\n\n-- \nAna\n", "1"},
		{"bottom posting, attribution wrapped", "\nOn Tue, Dec 1, 2026 at 10:00 AM Data Monsters <\nturns@dm.example> wrote:\n" + quote("> ") + "place glitchy\n", "place glitchy"},
		{"interleaved: the first answer only", quote("> ") + "2\n" + quote("> ") + "thanks\n", "2"},
		{"Apple Mail, quoted attribution, bottom", "> On 1 Dec 2026, at 10:00, Data Monsters <turns@dm.example> wrote:\n" + quote("> ") + "\r\n1\r\n", "1"},
		{"Outlook header block, nothing above", "________________________________\nFrom: Data Monsters\nSent: Tuesday\n" + original, ""},
		{"an unquoted original below a separator", "-----Original Message-----\n" + original + "\n> 2\nend", ""},
		{"quoted, then a signature only", quote("> ") + "-- \nAna\n", ""},
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

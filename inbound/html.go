package inbound

import (
	"io"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// maxHTMLTokens bounds the work of reading one HTML part.
const maxHTMLTokens = 200000

// quoteClasses and quoteIDs mark the quoted original in the HTML of
// replies: Gmail's gmail_quote, Thunderbird's moz-cite-prefix, Yahoo's
// yahoo_quoted, Outlook's divRplyFwdMsg and appendonsend (after which
// everything is the original).
var (
	quoteClasses = []string{"gmail_quote", "gmail_extra", "moz-cite-prefix", "yahoo_quoted", "protonmail_quote", "zmail_extra"}
	stopIDs      = []string{"divrplyfwdmsg", "appendonsend", "mail-editor-reference-message-container"}
)

// HTMLText renders an HTML body as plain text for reading commands: block
// elements and <br> break lines, scripts, styles and the head are left
// out, and so is the quoted original (a <blockquote>, or an element that
// a client marks as the quote); at an element after which a client puts
// only the original, reading stops.
func HTMLText(r io.Reader) string {
	z := html.NewTokenizer(r)
	var b strings.Builder
	type open struct {
		tag  string
		left bool // the element is left out
	}
	var stack []open
	leftOut := func() bool { return len(stack) > 0 && stack[len(stack)-1].left }
	newline := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
	}
	for n := 0; n < maxHTMLTokens; n++ {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if leftOut() {
				continue
			}
			if t := strings.Join(strings.Fields(string(z.Text())), " "); t != "" {
				if s := b.String(); len(s) > 0 && !strings.HasSuffix(s, "\n") && !strings.HasSuffix(s, " ") {
					b.WriteByte(' ')
				}
				b.WriteString(t)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			quoted, stop := false, false
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				key, val := string(k), strings.ToLower(string(v))
				switch key {
				case "class":
					for _, c := range strings.Fields(val) {
						quoted = quoted || slices.Contains(quoteClasses, c)
					}
				case "id":
					stop = stop || slices.Contains(stopIDs, val)
				}
			}
			if stop && !leftOut() {
				return b.String()
			}
			if tt == html.SelfClosingTagToken || voidTags[tag] {
				if tag == "br" && !leftOut() {
					b.WriteByte('\n')
				}
				continue
			}
			left := leftOut() || quoted || tag == "blockquote" || tag == "script" || tag == "style" || tag == "head" || tag == "title"
			stack = append(stack, open{tag, left})
			if !left && blockTags[tag] {
				newline()
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			i := len(stack) - 1
			for i >= 0 && stack[i].tag != tag {
				i--
			}
			if i < 0 {
				continue // a stray end tag
			}
			stack = stack[:i]
			if blockTags[tag] && !leftOut() {
				newline()
			}
		}
	}
	return b.String()
}

var voidTags = map[string]bool{"br": true, "img": true, "hr": true, "meta": true, "link": true, "input": true, "wbr": true,
	"area": true, "base": true, "col": true, "embed": true, "source": true, "track": true}

var blockTags = map[string]bool{"p": true, "div": true, "li": true, "tr": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "ul": true, "ol": true, "table": true, "pre": true, "section": true, "article": true,
	"header": true, "footer": true, "body": true}

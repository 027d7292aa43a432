package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// pageForm is a form of a page as a browser would send it: its action,
// its fields (hidden inputs, the first option of a menu, ticked boxes),
// the text of its submit button, and its boxes.
type pageForm struct {
	Action string
	Fields url.Values
	Button string
	Boxes  []box
	Legend string
	Kind   string // a prompt's kind (data-kind)
	Min    int    // a prompt of boxes: how many to tick at least (data-min)
	Max    int
}

// box is a checkbox of a form, with its label.
type box struct {
	Name, Value, Label string
	Checked            bool
}

// formsOf returns the post forms of a page.
func formsOf(t testing.TB, body string) []pageForm {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{}
	var walkLabels func(n *html.Node)
	walkLabels = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "label" {
			labels[attr(n, "for")] = textOf(n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walkLabels(c)
		}
	}
	walkLabels(doc)
	var out []pageForm
	var walk func(n *html.Node, f *pageForm)
	walk = func(n *html.Node, f *pageForm) {
		if n.Type == html.ElementNode {
			switch {
			case n.Data == "form" && attr(n, "method") == "post":
				nf := pageForm{Action: attr(n, "action"), Fields: url.Values{}, Kind: attr(n, "data-kind")}
				nf.Min, _ = strconv.Atoi(attr(n, "data-min"))
				nf.Max, _ = strconv.Atoi(attr(n, "data-max"))
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					walk(c, &nf)
				}
				out = append(out, nf)
				return
			case f != nil && n.Data == "input":
				switch attr(n, "type") {
				case "hidden", "text", "email", "password", "":
					if attr(n, "name") != "" {
						f.Fields.Add(attr(n, "name"), attr(n, "value"))
					}
				case "checkbox", "radio":
					_, checked := attrOK(n, "checked")
					b := box{Name: attr(n, "name"), Value: attr(n, "value"), Label: labels[attr(n, "id")], Checked: checked}
					f.Boxes = append(f.Boxes, b)
					if checked {
						f.Fields.Add(b.Name, b.Value)
					}
				}
			case f != nil && n.Data == "select":
				var first, selected string
				for o := n.FirstChild; o != nil; o = o.NextSibling {
					if o.Type == html.ElementNode && o.Data == "option" {
						if first == "" {
							first = attr(o, "value")
						}
						if _, ok := attrOK(o, "selected"); ok {
							selected = attr(o, "value")
						}
					}
				}
				if selected == "" {
					selected = first
				}
				f.Fields.Set(attr(n, "name"), selected)
			case f != nil && n.Data == "button":
				f.Button = strings.TrimSpace(textOf(n))
			case f != nil && n.Data == "legend":
				f.Legend = strings.TrimSpace(textOf(n))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, f)
		}
	}
	walk(doc, nil)
	return out
}

func attr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// findForm returns the first form of the page whose button starts with
// prefix (and whose action ends with suffix, if given); ok is false for
// none.
func findForm(t testing.TB, body, prefix string) (pageForm, bool) {
	t.Helper()
	for _, f := range formsOf(t, body) {
		if strings.HasPrefix(f.Button, prefix) {
			return f, true
		}
	}
	return pageForm{}, false
}

// mustForm is findForm that fails the test without such a form.
func mustForm(t testing.TB, body, prefix string) pageForm {
	t.Helper()
	f, ok := findForm(t, body, prefix)
	if !ok {
		var buttons []string
		for _, f := range formsOf(t, body) {
			buttons = append(buttons, f.Button)
		}
		t.Fatalf("no form with a button %q…; the page has %q\n%s", prefix, buttons, clip(body))
	}
	return f
}

// send posts f as c, with more fields set.
func (c *client) send(f pageForm, set ...string) resp {
	c.s.t.Helper()
	v := url.Values{}
	for k, vs := range f.Fields {
		v[k] = append([]string(nil), vs...)
	}
	for i := 0; i+1 < len(set); i += 2 {
		v.Set(set[i], set[i+1])
	}
	return c.post(f.Action, v)
}

var gameIDPattern = regexp.MustCompile(`^/games/(\d+)`)

// gameIDOf is the game id of a path or URL of a game's page.
func gameIDOf(t testing.TB, loc string) int64 {
	t.Helper()
	if u, err := url.Parse(loc); err == nil {
		loc = u.Path
	}
	m := gameIDPattern.FindStringSubmatch(loc)
	if m == nil {
		t.Fatalf("%q is not a game's page", loc)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

// follow303 follows a 303 of r as c and returns the page it leads to.
func (c *client) follow303(t testing.TB, r resp) resp {
	t.Helper()
	if r.Status != http.StatusSeeOther {
		t.Fatalf("status %d, want 303; body:\n%s", r.Status, clip(r.Body))
	}
	return c.get(r.Header.Get("Location"))
}

package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

//go:embed templates
var templateFS embed.FS

// page is one page's template: the partials and the page's own file,
// which defines "title" and "content" (drawn in the layout, Pages.layout).
type page struct {
	t *template.Template
}

// static is what every Pages of the process shares, read-only: the
// embedded assets and the templates parsed with them.
type static struct {
	assets *assets
	pages  map[string]*page
}

// loadStatic loads the assets and parses the pages once per process: both
// come from the binary, and compressing the assets and parsing the
// templates is most of what New costs (a test builds many Pages).
var loadStatic = sync.OnceValues(func() (static, error) {
	a, err := loadAssets()
	if err != nil {
		return static{}, err
	}
	pages, err := parsePages(a)
	return static{assets: a, pages: pages}, err
})

// parsePages parses every templates/*.html but the partials as a page.
func parsePages(a *assets) (map[string]*page, error) {
	funcs := template.FuncMap{
		"asset":  a.url,
		"field":  newField,
		"when":   when,
		"date":   date,
		"dict":   dict,
		"names":  names,
		"cards":  cardList,
		"board":  boardFunc,
		"count":  count,
		"clock":  clock,
		"iso":    iso,
		"player": playerPath,
		"list":   func(xs ...option) []option { return xs },
		"opt":    func(value, label string) option { return option{value, label} },
		"deadlines": func(ds []durationOption) []option {
			out := make([]option, len(ds))
			for i, d := range ds {
				out[i] = option{strconv.Itoa(d.Seconds), d.Label}
			}
			return out
		},
	}
	base, err := template.New("partials.html").Funcs(funcs).ParseFS(templateFS, "templates/partials.html", "templates/parts/*.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*page{}
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".html")
		if name == "partials" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, err
		}
		for _, def := range []string{"title", "content"} {
			if t.Lookup(def) == nil {
				return nil, fmt.Errorf("web: templates/%s.html defines no %q", name, def)
			}
		}
		out[name] = &page{t: t}
	}
	return out, nil
}

// view is what every page template gets.
type view struct {
	Account *models.Account // the signed-in user; nil for none
	Notice  string          // a confirmation shown at the top (role=status)
	Problem string          // what went wrong, shown at the top (role=alert)
	// Section is the part of the page the problem belongs to ("" for the
	// page): settings shows it in that form.
	Section string
	Form    form // the values and errors of the form shown again
	Data    any  // the page's own data
	// YourMove says that a game of the page waits for the reader: the
	// tab's title starts with it.
	YourMove bool
}

// form is a submitted form shown again: its values (never passwords) and
// an error per field.
type form struct {
	Values map[string]string
	Errors map[string]string
}

// invalid returns a form whose field has the error msg.
func (f form) invalid(field, msg string) form {
	if f.Errors == nil {
		f.Errors = map[string]string{}
	}
	f.Errors[field] = msg
	return f
}

// formOf keeps the named fields of the request's form, to show them again.
func formOf(c *gin.Context, names ...string) form {
	f := form{Values: map[string]string{}}
	for _, n := range names {
		f.Values[n] = c.PostForm(n)
	}
	return f
}

// field is what the "field" partial draws: a labelled input with its hint
// and error, tied to it with aria-describedby.
type field struct {
	Name, Label, Type, Value, Error, Hint, Autocomplete string
	Required                                            bool
}

// ID is the input's id.
func (f field) ID() string { return "f-" + f.Name }

// Describe is the input's aria-describedby: its hint and error.
func (f field) Describe() string {
	var ids []string
	if f.Hint != "" {
		ids = append(ids, f.ID()+"-hint")
	}
	if f.Error != "" {
		ids = append(ids, f.ID()+"-error")
	}
	return strings.Join(ids, " ")
}

// newField is the template function "field": field v name label type
// [autocomplete [hint]]. Password fields are never filled in again. Every
// field is required unless its autocomplete is prefixed with "optional ".
func newField(v view, name, label, typ string, more ...string) field {
	f := field{Name: name, Label: label, Type: typ, Error: v.Form.Errors[name], Required: true}
	if typ != "password" {
		f.Value = v.Form.Values[name]
	}
	if len(more) > 0 {
		f.Autocomplete = more[0]
		if rest, ok := strings.CutPrefix(f.Autocomplete, "optional "); ok {
			f.Autocomplete, f.Required = rest, false
		}
	}
	if len(more) > 1 {
		f.Hint = more[1]
	}
	return f
}

// option is one choice of a menu.
type option struct{ Value, Label string }

// dict is the template function that makes a map of its key and value
// arguments, for a partial that takes several.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, fmt.Errorf("dict: odd number of arguments")
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

// when formats t in the account's time zone: "Tue 1 Dec 2026, 14:00 CET".
func when(a *models.Account, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(location(a)).Format("Mon 2 Jan 2006, 15:04 MST")
}

// date formats the day of t in the account's time zone: "Tue 1 Dec 2026".
func date(a *models.Account, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(location(a)).Format("Mon 2 Jan 2006")
}

// clock formats t in the account's time zone, short: "1 Dec 14:00".
func clock(a *models.Account, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(location(a)).Format("2 Jan 15:04")
}

// iso formats t for a datetime attribute.
func iso(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// count is n with its noun, one or many: "1 open challenge", "no open
// challenges" for 0.
func count(n int, one, many string) string {
	switch n {
	case 0:
		return "no " + many
	case 1:
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// names joins names for a sentence: "ana", "ana and bob", "ana, bob and eve".
func names(ns []string) string {
	switch len(ns) {
	case 0:
		return ""
	case 1:
		return ns[0]
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1]
}

// location is the account's time zone; UTC for none or an unknown one.
func location(a *models.Account) *time.Location {
	if a == nil || a.TimeZone == "" || a.TimeZone == "UTC" {
		return time.UTC
	}
	if loc, ok := locations.Load(a.TimeZone); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(a.TimeZone)
	if err != nil {
		return time.UTC
	}
	locations.Store(a.TimeZone, loc)
	return loc
}

// locations are the time zones loaded, by name (time.LoadLocation reads
// and parses the zone's data on every call).
var locations sync.Map

// render writes the page name with status. The account and the notice
// named by the "done" query parameter are filled in.
func (p *Pages) render(c *gin.Context, status int, name string, v view) {
	b, ok := p.draw(c, name, v)
	if ok {
		writeBody(c, status, "text/html; charset=utf-8", b.Bytes())
	}
	putBuffer(b)
	c.Abort()
}

// draw draws the page name into a buffer of buffers (the caller gives it
// back), with the account and the notice filled in as render does. A
// template that fails answers 500 itself, and ok is false.
func (p *Pages) draw(c *gin.Context, name string, v view) (b *bytes.Buffer, ok bool) {
	pg, found := p.pages[name]
	if !found {
		panic("web: no page " + name)
	}
	if v.Account == nil {
		v.Account = account(c)
	}
	if v.Notice == "" {
		v.Notice = notices[c.Query("done")]
	}
	b = buffers.Get().(*bytes.Buffer)
	if err := p.layout(b, pg, v); err != nil {
		p.log.Error("render page", "page", name, "error", err)
		c.Data(http.StatusInternalServerError, "text/plain; charset=utf-8", []byte("The page could not be shown."))
		c.Abort()
		return b, false
	}
	return b, true
}

// buffers hold the pages being drawn, so that a page does not grow a new
// buffer to its size every time.
var buffers = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 64<<10)) }}

// putBuffer gives b back to buffers, unless it grew far beyond a page.
func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 {
		b.Reset()
		buffers.Put(b)
	}
}

// notices are the confirmations a redirect after a form names with
// ?done=: fixed texts, so that a link cannot make a page say anything.
var notices = map[string]string{
	"registered":      "Welcome! Your account is ready. We sent you a link to verify your address.",
	"registered-x":    "Welcome! Your account is ready. We could not send the verification mail; send it again from the settings.",
	"signedout":       "You are signed out.",
	"ended":           "You are signed out everywhere.",
	"verified":        "Your address is verified.",
	"reset":           "Your new password is set. Every other sign-in has ended.",
	"email":           "Your address is changed. We sent a link to verify it.",
	"email-x":         "Your address is changed. We could not send the verification mail; try again below.",
	"sent":            "We sent a new verification link.",
	"time-zone":       "Your time zone is saved.",
	"notify":          "Your notification preferences are saved.",
	"quiet":           "Your quiet hours are saved.",
	"quiet-off":       "You have no quiet hours now.",
	"vacation":        "Your vacation is booked.",
	"vacation-ended":  "Your vacation is over: the days you did not use are back in this year's allowance.",
	"revoked":         "The API token is revoked.",
	"calendar":        "Your calendar feed has a new address; the old one no longer works.",
	"calendar-off":    "Your calendar feed is off; its address no longer works.",
	"deleted":         "Your account is deleted. Thank you for playing.",
	"created":         "Your game is open. It starts when every seat is taken and you press Start.",
	"created-x":       "Your game is open, but an invitation mail could not be sent; invite again below.",
	"joined":          "You have a seat in this game.",
	"left":            "You left the game.",
	"started":         "The game has started.",
	"cancelled":       "The game is cancelled.",
	"invited":         "The invitation is on its way.",
	"reclaimed":       "Your seat is yours again: the bot has stopped.",
	"declined":        "You declined the invitation: the seat is open for someone else.",
	"rematch":         "Your rematch is open: the other players are invited, and it starts once they have joined.",
	"rematch-started": "Your rematch has started.",
}

// layout draws page pg of v in the site's layout: the head, the header
// with its navigation, the notice or problem, the page's "content", the
// footer. It is drawn here, not by a template: every page has it, and a
// template spends most of a small page on calling its escapers through
// reflection. The page's "title" and "content" are its templates'.
func (p *Pages) layout(b *bytes.Buffer, pg *page, v view) error {
	w := htmlWriter{b}
	w.raw(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>`)
	if v.YourMove {
		w.raw(`Your move · `)
	}
	if err := pg.t.ExecuteTemplate(b, "title", v); err != nil {
		return err
	}
	w.raw(` · Data Monsters</title>
<link rel="icon" href="`, p.head[0], `" type="image/svg+xml">
<link rel="stylesheet" href="`, p.head[1], `">
<script src="`, p.head[2], `" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header class="site">
<div class="bar">
<a class="brand" href="/">Data Monsters</a>
<nav aria-label="Main">
<ul>
<li><a href="/rules">How to play</a></li>`)
	if v.Account != nil {
		w.raw(`
<li><a href="/">Games</a></li>
<li><a href="/settings">Settings</a></li>
<li><form method="post" action="/logout"><button type="submit" class="as-link">Sign out <span class="who">(`, esc(v.Account.Username),
			`)</span></button></form></li>`)
	} else {
		w.raw(`
<li><a href="/login">Sign in</a></li>
<li><a href="/register">Register</a></li>`)
	}
	w.raw(`
</ul>
</nav>
</div>
</header>
<main id="main" tabindex="-1">`)
	if v.Notice != "" {
		w.raw("\n"+`<p class="notice" role="status">`, esc(v.Notice), `</p>`)
	}
	if v.Problem != "" && v.Section == "" {
		w.raw("\n"+`<p class="problem" role="alert">`, esc(v.Problem), `</p>`)
	}
	w.raw("\n")
	if err := pg.t.ExecuteTemplate(b, "content", v); err != nil {
		return err
	}
	w.raw(`
</main>
<footer class="site">
<p>Data Monsters turn service · <a href="/openapi.yaml">API</a></p>
</footer>
</body>
</html>
`)
	return nil
}

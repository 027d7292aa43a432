package api

import (
	"bytes"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// oneClickBody is the form field and value of an RFC 8058 one-click
// unsubscribe request: the body "List-Unsubscribe=One-Click".
const (
	oneClickField = "List-Unsubscribe"
	oneClickValue = "One-Click"
)

var errBadUnsubscribeToken = badRequest("the unsubscribe token is not valid")

// unsubscribeTarget reads the token of an unsubscribe link and returns the
// user it was made for, its scope (a kind, or "all") and the kinds of
// email that scope turns off.
func (s *Server) unsubscribeTarget(c *gin.Context) (uid int64, scope string, kinds []notifier.Kind, err error) {
	if s.notify == nil || s.notify.UnsubscribeSecret == nil {
		return 0, "", nil, errNotifyOff
	}
	uidText, scope, err := notifier.VerifyUnsubscribeToken(s.notify.UnsubscribeSecret, c.Query("token"))
	if err != nil {
		return 0, "", nil, errBadUnsubscribeToken
	}
	if uid, err = strconv.ParseInt(uidText, 10, 64); err != nil {
		return 0, "", nil, errBadUnsubscribeToken
	}
	switch {
	case scope == "all":
		kinds = notifier.Kinds
	case knownKind(scope):
		kinds = []notifier.Kind{notifier.Kind(scope)}
	default:
		return 0, "", nil, errBadUnsubscribeToken
	}
	return uid, scope, kinds, nil
}

// unsubscribePage is what a person who follows the List-Unsubscribe link
// sees: what the link turns off, and a button that sends the one-click
// request. It changes nothing, so a mail scanner that opens every link
// of a message unsubscribes nobody.
func (s *Server) unsubscribePage(c *gin.Context) error {
	_, scope, _, err := s.unsubscribeTarget(c)
	if err != nil {
		return err
	}
	if s.notify.UnsubscribePage != nil {
		s.notify.UnsubscribePage(c, scope, c.Request.URL.RequestURI(), false)
		return nil
	}
	return writeUnsubscribePage(c, unsubscribeView{What: unsubscribeWhat(scope), Action: c.Request.URL.RequestURI()})
}

// unsubscribe is the RFC 8058 one-click unsubscribe: a POST of the form
// body List-Unsubscribe=One-Click (urlencoded or multipart, as a mailbox
// provider or the confirmation page's button sends it) turns off the
// token's kind of email ("all": every kind) for the token's user. A
// browser gets a page saying so, other clients a JSON status. A POST
// without that body changes nothing.
func (s *Server) unsubscribe(c *gin.Context) error {
	uid, scope, kinds, err := s.unsubscribeTarget(c)
	if err != nil {
		return err
	}
	if c.PostForm(oneClickField) != oneClickValue {
		return badRequest("the body must be the form %s=%s (RFC 8058)", oneClickField, oneClickValue)
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	if err := s.acc.StopEmails(c.Request.Context(), uid, names); err != nil {
		return err
	}
	if c.NegotiateFormat(gin.MIMEJSON, gin.MIMEHTML) == gin.MIMEHTML {
		if s.notify.UnsubscribePage != nil {
			s.notify.UnsubscribePage(c, scope, "", true)
			return nil
		}
		return writeUnsubscribePage(c, unsubscribeView{What: unsubscribeWhat(scope), Done: true})
	}
	writeJSON(c, http.StatusOK, statusResponse{Status: "unsubscribed"})
	return nil
}

// unsubscribeWhat names the emails a scope turns off, for the page.
func unsubscribeWhat(scope string) string {
	if scope == "all" {
		return "all Data Monsters emails"
	}
	return "the " + strings.ReplaceAll(scope, "_", " ") + " emails of Data Monsters"
}

// unsubscribeView is what the page shows: before the button (Done false,
// with the URL the form posts to) or after it.
type unsubscribeView struct {
	What   string
	Action string
	Done   bool
}

var unsubscribeTemplate = template.Must(template.New("unsubscribe").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Unsubscribe - Data Monsters</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.5rem 1rem}</style>
</head>
<body>
{{if .Done}}<h1>Unsubscribed</h1>
<p>You will no longer receive {{.What}}. You can turn them back on in your notification preferences.</p>
{{else}}<h1>Unsubscribe?</h1>
<p>This stops {{.What}} to you.</p>
<form method="post" action="{{.Action}}">
<input type="hidden" name="` + oneClickField + `" value="` + oneClickValue + `">
<button type="submit">Unsubscribe</button>
</form>
{{end}}</body>
</html>
`))

// writeUnsubscribePage writes the page, kept out of caches and frames and
// with no referrer (its URL holds the token).
func writeUnsubscribePage(c *gin.Context, v unsubscribeView) error {
	var buf bytes.Buffer
	if err := unsubscribeTemplate.Execute(&buf, v); err != nil {
		return err
	}
	h := c.Writer.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	c.Data(http.StatusOK, "text/html; charset=utf-8", buf.Bytes())
	return nil
}

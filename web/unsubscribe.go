package web

import (
	"net/http"

	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// unsubscribeView is the page of an unsubscribe link: what it turns off,
// and the button that does it (Action) or that it is done.
type unsubscribeView struct {
	What   string // "the “Your turn” emails", "every email of Data Monsters"
	All    bool   // the link turns off every kind
	Action string // where the button posts; "" once done
	Done   bool
}

// Unsubscribe draws the page of an unsubscribe link (the API decides what
// the link's token turns off, and does it): what the link of the email
// said it stops, the kind of email in the words of the settings, with the
// button that stops it, or that it is stopped and how to undo it. Its
// address holds the token: no referrer leaves it.
func (p *Pages) Unsubscribe(c *gin.Context, scope, action string, done bool) {
	setHeaders(c)
	c.Header("Referrer-Policy", "no-referrer")
	p.loadSession(c)
	v := unsubscribeView{Action: action, Done: done, All: scope == "all", What: "every email of Data Monsters"}
	if !v.All {
		name := kindWords[notifier.Kind(scope)]
		if name == "" {
			name = scope
		}
		v.What = "the emails “" + name + "”"
	}
	p.render(c, http.StatusOK, "unsubscribe", view{Data: v})
}

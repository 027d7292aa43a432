package web

import (
	"net/http"

	"github.com/datamonsters/turns/engine"
	"github.com/gin-gonic/gin"
)

// rulesPath is the rules page: how to play, for players, with the
// glossary of every word the cards print (engine.Glossary).
const rulesPath = "/rules"

// rulesView is the rules page's data.
type rulesView struct {
	Glossary []engine.Term
	Replies  bool // moves may be played by replying to emails
}

// rules shows how to play.
func (p *Pages) rules(c *gin.Context) {
	p.render(c, http.StatusOK, "rules", view{Data: rulesView{Glossary: engine.Glossary, Replies: p.cfg.Replies}})
}

package web

import (
	"github.com/datamonsters/turns/accounts"
	"github.com/gin-gonic/gin"
)

// repliesOn reports whether the signed-in user plays by replying to
// decision emails.
func (p *Pages) repliesOn(c *gin.Context) (bool, error) {
	pr, err := p.acc.Profile(c.Request.Context(), account(c).ID)
	return pr.Replies, err
}

// changeEmailReplies turns playing by email reply on or off for all the
// user's games.
func (p *Pages) changeEmailReplies(c *gin.Context) error {
	on := c.PostForm("replies") == "on"
	if _, err := p.acc.UpdateProfile(c.Request.Context(), account(c).ID, accounts.ProfileChange{Replies: &on}); err != nil {
		return p.settingsFailed(c, "replies", err, form{})
	}
	redirect(c, "/settings?done=replies#replies")
	return nil
}

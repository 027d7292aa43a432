package web

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// repliesOn reports whether the signed-in user plays by replying to
// decision emails (GET /v1/me, notifications.replies).
func (p *Pages) repliesOn(c *gin.Context) (bool, error) {
	var me struct {
		Notifications struct {
			Replies *bool `json:"replies"`
		} `json:"notifications"`
	}
	if err := p.callAPI(c, http.MethodGet, "/v1/me", nil, &me, ""); err != nil {
		return false, err
	}
	return me.Notifications.Replies == nil || *me.Notifications.Replies, nil
}

// changeEmailReplies turns playing by email reply on or off for all the
// user's games (PATCH /v1/me, notifications.replies).
func (p *Pages) changeEmailReplies(c *gin.Context) {
	on := c.PostForm("replies") == "on"
	acc := account(c)
	body := map[string]any{"notifications": map[string]bool{"email": acc.NotifyEmail, "turns": acc.NotifyTurns, "replies": on}}
	if err := p.callAPI(c, http.MethodPatch, "/v1/me", body, nil, ""); err != nil {
		p.settingsFailed(c, "replies", err, form{})
		return
	}
	redirect(c, "/settings?done=replies#replies")
}

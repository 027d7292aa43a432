package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// The push settings page (pushPath): a player turns Web Push on in the
// browser they are using and sees the browsers that receive it. The page's
// script (assets/push.js) registers the service worker (assets/sw.js),
// asks the browser's permission, subscribes with the server's VAPID key
// and posts the subscription here; the page hands it to the JSON API (POST
// /v1/me/push-subscriptions), whose rules apply unchanged. Turning a
// browser off works without the script. Which kinds go by push is the Push
// column of the notification settings.

const pushPath = "/settings/push"

func init() {
	channelWords[notifier.ChannelPush] = "Push"
	notices["push-on"] = "Push notifications are on in this browser."
	notices["push-off"] = "Push notifications are off there."
}

// The shapes of the JSON API's answers the push page reads.
type (
	apiVapidKey struct {
		PublicKey string `json:"public_key"`
	}
	apiPushSubscription struct {
		ID        int64     `json:"id"`
		Endpoint  string    `json:"endpoint"`
		CreatedAt time.Time `json:"created_at"`
	}
	apiPushSubscriptions struct {
		Subscriptions []apiPushSubscription `json:"subscriptions"`
	}
)

// Service names the push service of the subscription, which says which
// browser it is.
func (s apiPushSubscription) Service() string {
	u, err := url.Parse(s.Endpoint)
	if err != nil {
		return "A browser"
	}
	host := u.Hostname()
	switch {
	case host == "fcm.googleapis.com" || host == "android.googleapis.com":
		return "Chrome, Edge or another browser of Google's push service"
	case strings.HasSuffix(host, ".mozilla.com"):
		return "Firefox"
	case strings.HasSuffix(host, ".push.apple.com"):
		return "Safari"
	case strings.HasSuffix(host, ".notify.windows.com"):
		return "A browser of Microsoft's push service"
	}
	return "A browser of " + host
}

// pushView is the push page's data.
type pushView struct {
	Key     string // the VAPID public key; "" when the server sends no push
	Worker  string // the service worker's address
	Devices []apiPushSubscription
}

// pushPage shows the push settings.
func (p *Pages) pushPage(c *gin.Context) {
	p.pushAgain(c, http.StatusOK, "")
}

// pushAgain shows the push page with status and, if not "", the problem
// msg.
func (p *Pages) pushAgain(c *gin.Context, status int, msg string) {
	v := pushView{}
	var key apiVapidKey
	err := p.callAPI(c, http.MethodGet, "/v1/push/vapid-key", nil, &key, "")
	var ap *apiProblem
	if err != nil && !(errors.As(err, &ap) && ap.Status == http.StatusServiceUnavailable) {
		p.fail(c, err)
		return
	}
	if v.Key = key.PublicKey; v.Key != "" {
		if v.Worker, err = p.assets.url("sw.js"); err != nil {
			p.fail(c, err)
			return
		}
	}
	var subs apiPushSubscriptions
	if err := p.callAPI(c, http.MethodGet, "/v1/me/push-subscriptions", nil, &subs, ""); err != nil {
		p.fail(c, err)
		return
	}
	v.Devices = subs.Subscriptions
	p.render(c, status, "push", view{Problem: msg, Data: v})
}

// pushOn stores this browser's subscription (POST
// /v1/me/push-subscriptions), which the page's script posts: endpoint,
// p256dh and auth.
func (p *Pages) pushOn(c *gin.Context) {
	req := map[string]any{"endpoint": c.PostForm("endpoint"),
		"keys": map[string]string{"p256dh": c.PostForm("p256dh"), "auth": c.PostForm("auth")}}
	if err := p.callAPI(c, http.MethodPost, "/v1/me/push-subscriptions", req, nil, ""); err != nil {
		p.pushFailed(c, err)
		return
	}
	redirect(c, pushPath+"?done=push-on")
}

// pushOff stops the pushes to the subscription at the form's endpoint
// (DELETE /v1/me/push-subscriptions?endpoint=): this browser's, which the
// script has just unsubscribed. Off already, nothing changes.
func (p *Pages) pushOff(c *gin.Context) {
	if endpoint := c.PostForm("endpoint"); endpoint != "" {
		if err := p.callAPI(c, http.MethodDelete, "/v1/me/push-subscriptions?endpoint="+url.QueryEscape(endpoint), nil, nil, ""); !notFound(err) {
			p.pushFailed(c, err)
			return
		}
	}
	redirect(c, pushPath+"?done=push-off")
}

// pushDeviceOff stops the pushes to one of the user's browsers (DELETE
// /v1/me/push-subscriptions/{id}); gone already, nothing changes.
func (p *Pages) pushDeviceOff(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		p.fail(c, errNotFound)
		return
	}
	if err := p.callAPI(c, http.MethodDelete, "/v1/me/push-subscriptions/"+strconv.FormatInt(id, 10), nil, nil, ""); !notFound(err) {
		p.pushFailed(c, err)
		return
	}
	redirect(c, pushPath+"?done=push-off")
}

// notFound reports whether err is nil or the API's 404: what was to go is
// gone.
func notFound(err error) bool {
	var ap *apiProblem
	return err == nil || errors.As(err, &ap) && ap.Status == http.StatusNotFound
}

// pushFailed shows the page again with what the API refused (4xx), else
// the error page.
func (p *Pages) pushFailed(c *gin.Context, err error) {
	var ap *apiProblem
	if errors.As(err, &ap) && ap.Status < 500 && ap.Status != http.StatusTooManyRequests {
		p.pushAgain(c, ap.Status, "This browser's subscription was refused ("+ap.Detail+").")
		return
	}
	p.fail(c, err)
}

package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/refusal"
	"github.com/gin-gonic/gin"
)

// The push settings page (pushPath): a player turns Web Push on in the
// browser they are using and sees the browsers that receive it. The page's
// script (assets/push.js) registers the service worker (assets/sw.js),
// asks the browser's permission, subscribes with the server's VAPID key
// and posts the subscription here; the page hands it to the accounts
// (accounts.SubscribePush), as the API does. Turning a
// browser off works without the script. Which kinds go by push is the Push
// column of the notification settings.

const pushPath = "/settings/push"

func init() {
	channelWords[notifier.ChannelPush] = "Push"
	notices["push-on"] = "Push notifications are on in this browser."
	notices["push-off"] = "Push notifications are off there."
}

// pushDevice is one of the browsers a player receives pushes in.
type pushDevice struct{ models.PushSubscription }

// Service names the push service of the subscription, which says which
// browser it is.
func (s pushDevice) Service() string {
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
	Devices []pushDevice
}

// pushPage shows the push settings.
func (p *Pages) pushPage(c *gin.Context) error {
	return p.pushAgain(c, http.StatusOK, "")
}

// pushAgain shows the push page with status and, if not "", the problem
// msg.
func (p *Pages) pushAgain(c *gin.Context, status int, msg string) error {
	v := pushView{}
	key, err := p.acc.PushKey()
	if err != nil && !errors.Is(err, accounts.ErrPushOff) {
		return err
	}
	if v.Key = key; v.Key != "" {
		if v.Worker, err = p.assets.url("sw.js"); err != nil {
			return err
		}
	}
	subs, err := p.acc.PushSubscriptions(c.Request.Context(), account(c).ID)
	if err != nil {
		return err
	}
	for _, s := range subs {
		v.Devices = append(v.Devices, pushDevice{s})
	}
	p.render(c, status, "push", view{Problem: msg, Data: v})
	return nil
}

// pushOn stores this browser's subscription, which the page's script
// posts: endpoint, p256dh and auth.
func (p *Pages) pushOn(c *gin.Context) error {
	_, _, err := p.acc.SubscribePush(c.Request.Context(), account(c).ID, c.PostForm("endpoint"), c.PostForm("p256dh"), c.PostForm("auth"))
	if err != nil {
		return p.pushFailed(c, err)
	}
	redirect(c, pushPath+"?done=push-on")
	return nil
}

// pushOff stops the pushes to the subscription at the form's endpoint:
// this browser's, which the script has just unsubscribed. Off already,
// nothing changes.
func (p *Pages) pushOff(c *gin.Context) error {
	if endpoint := c.PostForm("endpoint"); endpoint != "" {
		if err := p.acc.UnsubscribePushEndpoint(c.Request.Context(), account(c).ID, endpoint); !gone(err) {
			return p.pushFailed(c, err)
		}
	}
	redirect(c, pushPath+"?done=push-off")
	return nil
}

// pushDeviceOff stops the pushes to one of the user's browsers; gone
// already, nothing changes.
func (p *Pages) pushDeviceOff(c *gin.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return errNotFound
	}
	if err := p.acc.UnsubscribePush(c.Request.Context(), account(c).ID, id); !gone(err) {
		return p.pushFailed(c, err)
	}
	redirect(c, pushPath+"?done=push-off")
	return nil
}

// gone reports whether err is nil or a NotFound refusal: what was to go is
// gone.
func gone(err error) bool { return err == nil || refusal.KindOf(err) == refusal.NotFound }

// pushFailed shows the page again with what the accounts refused (a
// refusal the user can do something about), else the error page.
func (p *Pages) pushFailed(c *gin.Context, err error) error {
	var re *refusal.Error
	if errors.As(err, &re) && !re.Kind.Temporary() {
		return p.pushAgain(c, re.Kind.Status(), "This browser's subscription was refused ("+re.Detail+").")
	}
	return err
}

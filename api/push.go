package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// Web Push: a browser subscribes with the server's VAPID public key (GET
// /v1/push/vapid-key) and hands the subscription to the caller's account
// (POST /v1/me/push-subscriptions), as PushSubscription.toJSON() gives it;
// the outbox then pushes the notifications the player takes by push (the
// "push" channel of their preferences) to it. See docs/push.md.

var errPushOff = newError(http.StatusServiceUnavailable, "push_unavailable", "Push unavailable",
	"push notifications are not configured on this server")

type vapidKeyResponse struct {
	PublicKey string `json:"public_key"`
}

// pushSubscriptionRequest is a browser's PushSubscription as toJSON()
// gives it.
type pushSubscriptionRequest struct {
	Endpoint string `json:"endpoint"`
	// ExpirationTime is when the browser lets the subscription lapse (ms
	// since the epoch), null for never; read and not kept: a lapsed
	// subscription's push service answers 404 or 410, which deletes it.
	ExpirationTime *float64 `json:"expirationTime"`
	Keys           struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
}

type pushSubscriptionResponse struct {
	ID        int64  `json:"id"`
	Endpoint  string `json:"endpoint"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

type pushSubscriptionList struct {
	Subscriptions []pushSubscriptionResponse `json:"subscriptions"`
}

func pushSubscriptionOut(p models.PushSubscription) pushSubscriptionResponse {
	return pushSubscriptionResponse{ID: p.ID, Endpoint: p.Endpoint, CreatedAt: rfc3339(p.CreatedAt), UpdatedAt: rfc3339(p.UpdatedAt)}
}

// push is the push sender, or nil when push is off.
func (s *Server) push() *notifier.PushSender {
	if s.notify == nil {
		return nil
	}
	return s.notify.Push
}

// vapidKey gives the server's VAPID public key, which browsers subscribe
// with (no authentication).
func (s *Server) vapidKey(c *gin.Context) {
	p := s.push()
	if p == nil {
		writeError(c, errPushOff)
		return
	}
	c.JSON(http.StatusOK, vapidKeyResponse{PublicKey: p.PublicKey()})
}

// listPushSubscriptions lists the caller's subscriptions, oldest first
// (login session only).
func (s *Server) listPushSubscriptions(c *gin.Context) {
	subs, err := s.store.PushSubscriptions(c.Request.Context(), userID(c))
	if err != nil {
		writeError(c, err)
		return
	}
	out := pushSubscriptionList{Subscriptions: []pushSubscriptionResponse{}}
	for _, p := range subs {
		out.Subscriptions = append(out.Subscriptions, pushSubscriptionOut(p))
	}
	c.JSON(http.StatusOK, out)
}

// createPushSubscription stores a browser's subscription for the caller
// (login session only): 201 for a new endpoint; 200 for one stored
// already, whose keys, and account, become the request's (the browser
// subscribed again, or for the account now signed in to it).
func (s *Server) createPushSubscription(c *gin.Context) {
	if s.push() == nil {
		writeError(c, errPushOff)
		return
	}
	var req pushSubscriptionRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	if err := notifier.CheckPushSubscription(req.Endpoint, req.Keys.P256dh, req.Keys.Auth, s.notify.AllowPrivate); err != nil {
		writeError(c, invalid("%s", err.Error()))
		return
	}
	p := &models.PushSubscription{UserID: userID(c), Endpoint: req.Endpoint, P256dh: req.Keys.P256dh, Auth: req.Keys.Auth}
	created, err := s.store.SavePushSubscription(c.Request.Context(), p)
	if err != nil {
		writeError(c, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		c.Header("Location", "/v1/me/push-subscriptions/"+strconv.FormatInt(p.ID, 10))
	}
	c.JSON(status, pushSubscriptionOut(*p))
}

var errNoPushSubscription = newError(http.StatusNotFound, "not_found", "Not found", "you have no push subscription there")

// deletePushSubscription deletes one of the caller's subscriptions by id
// (login session only).
func (s *Server) deletePushSubscription(c *gin.Context) {
	id, err := pathID(c, "id")
	if err != nil {
		writeError(c, err)
		return
	}
	pushDeleted(c, s.store.DeletePushSubscription(c.Request.Context(), userID(c), id))
}

// deletePushEndpoint deletes the caller's subscription at the endpoint
// the query names, as the browser that unsubscribes knows it (login
// session only).
func (s *Server) deletePushEndpoint(c *gin.Context) {
	endpoint := c.Query("endpoint")
	switch {
	case endpoint == "":
		writeError(c, badRequest("endpoint: the subscription's endpoint is required"))
		return
	case !models.Storable(endpoint):
		writeError(c, errNoPushSubscription) // no subscription has such an endpoint, on either database
		return
	}
	pushDeleted(c, s.store.DeletePushEndpoint(c.Request.Context(), userID(c), endpoint))
}

// pushDeleted answers a deletion: 204, or 404 when there was nothing.
func pushDeleted(c *gin.Context, err error) {
	if errors.Is(err, models.ErrNotFound) {
		err = errNoPushSubscription
	}
	if err != nil {
		writeError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

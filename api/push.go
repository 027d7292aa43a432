package api

import (
	"net/http"
	"strconv"

	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

// Web Push: a browser subscribes with the server's VAPID public key (GET
// /v1/push/vapid-key) and hands the subscription to the caller's account
// (POST /v1/me/push-subscriptions), as PushSubscription.toJSON() gives it;
// the outbox then pushes the notifications the player takes by push (the
// "push" channel of their preferences) to it. See docs/push.md.

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

// vapidKey answers the VAPID public key browsers subscribe with; 503
// when the server sends no push.
func (s *Server) vapidKey(c *gin.Context) error {
	key, err := s.acc.PushKey()
	if err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, vapidKeyResponse{PublicKey: key})
	return nil
}

// listPushSubscriptions lists the caller's subscriptions, without their
// keys.
func (s *Server) listPushSubscriptions(c *gin.Context) error {
	subs, err := s.acc.PushSubscriptions(c.Request.Context(), userID(c))
	if err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, pushSubscriptionList{Subscriptions: listed(subs, pushSubscriptionOut)})
	return nil
}

// createPushSubscription registers a browser's subscription for the
// caller: 201 when new, 200 when its endpoint was registered before.
func (s *Server) createPushSubscription(c *gin.Context) error {
	if _, err := s.acc.PushKey(); err != nil {
		return err
	}
	var req pushSubscriptionRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	p, created, err := s.acc.SubscribePush(c.Request.Context(), userID(c), req.Endpoint, req.Keys.P256dh, req.Keys.Auth)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		c.Header("Location", "/v1/me/push-subscriptions/"+strconv.FormatInt(p.ID, 10))
	}
	writeJSON(c, status, pushSubscriptionOut(p))
	return nil
}

// deletePushSubscription stops the pushes to one of the caller's
// subscriptions, by id.
func (s *Server) deletePushSubscription(c *gin.Context, id int64) error {
	return pushDeleted(c, s.acc.UnsubscribePush(c.Request.Context(), userID(c), id))
}

// deletePushEndpoint stops the pushes to the caller's subscription of an
// endpoint (?endpoint=), the browser's own.
func (s *Server) deletePushEndpoint(c *gin.Context) error {
	endpoint := c.Query("endpoint")
	if endpoint == "" {
		return badRequest("endpoint: the subscription's endpoint is required")
	}
	return pushDeleted(c, s.acc.UnsubscribePushEndpoint(c.Request.Context(), userID(c), endpoint))
}

func pushDeleted(c *gin.Context, err error) error {
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

package accounts

import (
	"context"
	"errors"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
)

// Pusher is what the accounts need of Web Push (docs/push.md), which the
// outbox sends (*notifier.PushSender): the key browsers subscribe with,
// and the check of what a browser gives of its subscription.
type Pusher interface {
	// PublicKey is the VAPID public key (base64url).
	PublicKey() string
	// CheckSubscription says why a browser's subscription cannot be
	// pushed to (its error names the field), nil if it can.
	CheckSubscription(endpoint, p256dh, auth string) error
}

// The refusals of the push settings.
var (
	ErrPushOff            = refusal.New(refusal.Unavailable, "push_unavailable", "push notifications are not configured on this server")
	errNoPushSubscription = refusal.New(refusal.NotFound, "not_found", "you have no push subscription there")
)

// PushKey is the VAPID public key browsers subscribe with; ErrPushOff when
// the server sends no push.
func (s *Service) PushKey() (string, error) {
	if s.cfg.Push == nil {
		return "", ErrPushOff
	}
	return s.cfg.Push.PublicKey(), nil
}

// PushSubscriptions are the browsers user userID receives pushes in,
// oldest first ([] for none).
func (s *Service) PushSubscriptions(ctx context.Context, userID int64) ([]models.PushSubscription, error) {
	return s.store.PushSubscriptions(ctx, userID)
}

// SubscribePush registers a browser's subscription for user userID: its
// endpoint and keys (p256dh, auth), as the browser gives them. An endpoint
// registered before is updated (and moves to userID if another account
// had it); created says whether it is new. ErrPushOff without push.
func (s *Service) SubscribePush(ctx context.Context, userID int64, endpoint, p256dh, auth string) (models.PushSubscription, bool, error) {
	if _, err := s.PushKey(); err != nil {
		return models.PushSubscription{}, false, err
	}
	if err := s.cfg.Push.CheckSubscription(endpoint, p256dh, auth); err != nil {
		return models.PushSubscription{}, false, refusal.New(refusal.Invalid, "invalid", "%s", err.Error())
	}
	p := models.PushSubscription{UserID: userID, Endpoint: endpoint, P256dh: p256dh, Auth: auth}
	created, err := s.store.SavePushSubscription(ctx, &p)
	return p, created, err
}

// UnsubscribePush stops the pushes to user userID's subscription id;
// not theirs, or gone, is a NotFound refusal.
func (s *Service) UnsubscribePush(ctx context.Context, userID, id int64) error {
	return pushGone(s.store.DeletePushSubscription(ctx, userID, id))
}

// UnsubscribePushEndpoint stops the pushes to user userID's subscription
// of endpoint (the browser's own, which it has just unsubscribed); none
// such is a NotFound refusal.
func (s *Service) UnsubscribePushEndpoint(ctx context.Context, userID int64, endpoint string) error {
	if !models.Storable(endpoint) {
		return errNoPushSubscription // no subscription has such an endpoint, on either database
	}
	return pushGone(s.store.DeletePushEndpoint(ctx, userID, endpoint))
}

func pushGone(err error) error {
	if errors.Is(err, models.ErrNotFound) {
		return errNoPushSubscription
	}
	return err
}

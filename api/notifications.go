package api

import (
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// Notifications is what the notification routes need: the outbox (for
// redelivery), the live-stream hub and presence, the secret of unsubscribe
// links, and whether webhooks may target internal addresses.
type Notifications struct {
	Outbox            *notifier.Outbox
	Hub               *notifier.Hub
	Presence          *notifier.Presence // nil: a connection silences emails worked in this process only
	UnsubscribeSecret []byte
	AllowPrivate      bool // WEBHOOK_ALLOW_PRIVATE
	// Heartbeat is the live streams' ": ping" interval, at which they
	// also check that their credential is still good (0: 25 s).
	Heartbeat time.Duration
	// UnsubscribePage draws the page of an unsubscribe link in the pages'
	// look (main gives web.Pages.Unsubscribe): what it turns off (scope: a
	// notification kind, or "all"), and, before it is done, the button
	// that posts the one-click request to action. nil: a plain page of the
	// API's own.
	UnsubscribePage func(c *gin.Context, scope, action string, done bool)
}

// SetNotifications installs the notification dependencies; without them
// the stream and redelivery routes answer 503.
func (s *Server) SetNotifications(n Notifications) { s.notify = &n }

var errNotifyOff = newError(http.StatusServiceUnavailable, "notifications_unavailable", "Notifications unavailable",
	"notifications are not configured on this server")

// maxWebhooks is how many webhooks one user may register.
const maxWebhooks = 20

type createWebhookRequest struct {
	URL    string   `json:"url"`
	Events []string `json:"events"`
	Secret string   `json:"secret"`
}

type webhookResponse struct {
	ID             int64    `json:"id"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	TokenID        *int64   `json:"token_id"`
	Failures       int      `json:"failures"`
	Disabled       bool     `json:"disabled"`
	DisabledAt     *string  `json:"disabled_at"`
	DisabledReason string   `json:"disabled_reason"`
	CreatedAt      string   `json:"created_at"`
	Secret         string   `json:"secret,omitempty"`
}

type webhookList struct {
	Webhooks []webhookResponse `json:"webhooks"`
}

type deliveryResponse struct {
	ID          string  `json:"id"`
	Event       string  `json:"event"`
	Status      string  `json:"status"`
	Attempts    int     `json:"attempts"`
	LastCode    int     `json:"last_code"`
	LastError   string  `json:"last_error"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
	DeliveredAt *string `json:"delivered_at"`
}

type deliveryList struct {
	Deliveries []deliveryResponse `json:"deliveries"`
}

type preference struct {
	Kind    string `json:"kind"`
	Channel string `json:"channel"`
	Enabled bool   `json:"enabled"`
	// Hours is the digest's least time between two digests (its row only;
	// 0, absent: unchanged, or the default).
	Hours int `json:"hours,omitempty"`
}

type preferenceList struct {
	Preferences []preference `json:"preferences"`
}

func webhookOut(w models.Webhook) webhookResponse {
	out := webhookResponse{ID: w.ID, URL: w.URL, Events: []string{}, TokenID: w.TokenID, Failures: w.Failures,
		Disabled: w.DisabledAt != nil, DisabledAt: rfc3339p(w.DisabledAt), DisabledReason: w.DisabledReason,
		CreatedAt: rfc3339(w.CreatedAt)}
	if w.Events != "" {
		out.Events = strings.Split(w.Events, ",")
	}
	return out
}

func deliveryOut(d models.WebhookDelivery) deliveryResponse {
	return deliveryResponse{ID: d.ID, Event: d.Event, Status: d.Status, Attempts: d.Attempts, LastCode: d.LastCode,
		LastError: d.LastError, CreatedAt: rfc3339(d.CreatedAt), UpdatedAt: rfc3339(d.UpdatedAt), DeliveredAt: rfc3339p(d.DeliveredAt)}
}

func knownKind(k string) bool {
	return slices.Contains(notifier.Kinds, notifier.Kind(k))
}

// listWebhooks lists the caller's webhooks, without their secrets.
func (s *Server) listWebhooks(c *gin.Context) error {
	hooks, err := s.store.Webhooks(c.Request.Context(), userID(c))
	if err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, webhookList{Webhooks: listed(hooks, webhookOut)})
	return nil
}

// createWebhook registers a URL for the caller (or, with an API token, for
// that token: it goes when the token is revoked). The secret is shown only
// in this response (and in the sealed idempotency record, for a repeat
// with the key). The limit on webhooks is checked after a repeat is
// answered, so that a repeat of the last allowed one is not refused, and
// counted so that concurrent creations cannot pass it (models.Store.Room).
func (s *Server) createWebhook(c *gin.Context) error {
	var req createWebhookRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if len(req.URL) > maxWebhookURL {
		return invalid("url: at most %d characters", maxWebhookURL)
	}
	if len(req.Events) > maxWebhookEvents {
		return invalid("events: at most %d entries", maxWebhookEvents)
	}
	allowPrivate := s.notify != nil && s.notify.AllowPrivate
	if _, err := notifier.CheckWebhookURL(req.URL, allowPrivate); err != nil {
		return invalid("url: %s", strings.TrimPrefix(err.Error(), "notifier: "))
	}
	for _, e := range req.Events {
		if !knownKind(e) {
			return invalid("events: unknown event %q", e)
		}
	}
	if req.Secret != "" && (len(req.Secret) < 16 || len(req.Secret) > 200) {
		return invalid("secret: 16 to 200 characters, or leave it out to get a generated one")
	}
	if req.Secret == "" {
		req.Secret = "whsec_" + hex.EncodeToString(randomBytes(24))
	}
	w := &models.Webhook{UserID: userID(c), URL: req.URL, Secret: req.Secret, Events: strings.Join(req.Events, ",")}
	if tid := c.GetInt64(ctxTokenID); tid != 0 {
		w.TokenID = &tid
	}
	return s.idempotentCreate(c, func(st *models.Store) (response, error) {
		// Concurrent creations count one after another (Room), and none
		// goes past the limit.
		ok, err := st.Room(c.Request.Context(), w.UserID, models.Webhooks, maxWebhooks)
		if err != nil {
			return response{}, err
		}
		if !ok {
			return response{}, invalid("at most %d webhooks per user", maxWebhooks)
		}
		if err := st.CreateWebhook(c.Request.Context(), w); err != nil {
			return response{}, err
		}
		out := webhookOut(*w)
		out.Secret = w.Secret
		return response{status: http.StatusCreated, body: out,
			header: map[string]string{"Location": "/v1/webhooks/" + strconv.FormatInt(w.ID, 10)}}, nil
	})
}

// deleteWebhook removes one of the caller's webhooks and its delivery log.
func (s *Server) deleteWebhook(c *gin.Context, id int64) error {
	if err := s.store.DeleteWebhook(c.Request.Context(), userID(c), id); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// enableWebhook re-enables a webhook that was disabled after failures. A
// repeat with the Idempotency-Key gets the stored response, not the
// webhook as it is by then.
func (s *Server) enableWebhook(c *gin.Context, id int64) error {
	return s.idempotentCreate(c, func(st *models.Store) (response, error) {
		if err := st.EnableWebhook(c.Request.Context(), userID(c), id); err != nil {
			return response{}, err
		}
		w, err := st.Webhook(c.Request.Context(), userID(c), id)
		if err != nil {
			return response{}, err
		}
		return response{status: http.StatusOK, body: webhookOut(*w)}, nil
	})
}

// listDeliveries is a webhook's delivery log, newest first.
func (s *Server) listDeliveries(c *gin.Context, id int64) error {
	limit, err := queryInt(c, "limit", 50, 1, 200)
	if err != nil {
		return err
	}
	if _, err := s.store.Webhook(c.Request.Context(), userID(c), id); err != nil {
		return err
	}
	ds, err := s.store.Deliveries(c.Request.Context(), id, int(limit))
	if err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, deliveryList{Deliveries: listed(ds, deliveryOut)})
	return nil
}

// redeliver queues one delivery again, with the same Webhook-Id. A repeat
// with the Idempotency-Key gets the stored response and queues nothing.
func (s *Server) redeliver(c *gin.Context, id int64) error {
	if s.notify == nil || s.notify.Outbox == nil {
		return errNotifyOff
	}
	did := c.Param("delivery")
	if !models.Storable(did) {
		return errNotFound
	}
	// The job queue writes through its own connection, outside the store's
	// transaction: the record is written once the job is queued.
	return s.idempotent(c, idemScope{outside: true}, func(st *models.Store) (response, error) {
		if err := s.notify.Outbox.Redeliver(c.Request.Context(), userID(c), id, did); err != nil {
			return response{}, err
		}
		d, err := st.Delivery(c.Request.Context(), id, did)
		if err != nil {
			return response{}, err
		}
		return response{status: http.StatusAccepted, body: deliveryOut(*d)}, nil
	})
}

// getPreferences lists, for every notification kind and channel, whether
// the caller receives it (on unless turned off).
func (s *Server) getPreferences(c *gin.Context) error {
	ps, err := s.acc.Preferences(c.Request.Context(), userID(c))
	if err != nil {
		return err
	}
	out := preferenceList{Preferences: []preference{}}
	for _, p := range ps {
		out.Preferences = append(out.Preferences, preference(p))
	}
	writeJSON(c, http.StatusOK, out)
	return nil
}

// updatePreferences sets the preferences listed; others stay as they are.
func (s *Server) updatePreferences(c *gin.Context) error {
	var req preferenceList
	if err := decode(c, &req); err != nil {
		return err
	}
	if len(req.Preferences) > maxPreferences {
		return invalid("preferences: at most %d entries", maxPreferences)
	}
	ps := make([]accounts.Preference, len(req.Preferences))
	for i, p := range req.Preferences {
		ps[i] = accounts.Preference(p)
	}
	if err := s.acc.SetPreferences(c.Request.Context(), userID(c), ps); err != nil {
		return err
	}
	return s.getPreferences(c)
}

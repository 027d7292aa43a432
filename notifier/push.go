package notifier

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/SherClockHolmes/webpush-go"
	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river"
)

// Web Push (RFC 8030): a player's browser subscribes with the push
// service it uses (Google's for Chrome, Mozilla's for Firefox, Apple's for
// Safari) and the page gives the server the subscription's endpoint and
// keys. To tell the player something, a push job posts one message to the
// endpoint, encrypted for that browser (RFC 8291, aes128gcm) and signed by
// the server's VAPID key (RFC 8292), with github.com/SherClockHolmes/webpush-go;
// the browser wakes the page's service worker, which shows it as a
// notification. A push carries what a notification's headline says and a
// link to the board: never a hand, a card drawn or anything else a view
// hides (see pushMessage).

// Environment variables of the VAPID identity (see PushConfig).
const (
	EnvVAPIDPublicKey  = "VAPID_PUBLIC_KEY"
	EnvVAPIDPrivateKey = "VAPID_PRIVATE_KEY"
	EnvVAPIDSubject    = "VAPID_SUBJECT"
)

// PushConfig is the server's VAPID identity (RFC 8292): the P-256 key pair
// that signs every push, whose public half the browsers subscribe with,
// and a contact for the push services' operators.
type PushConfig struct {
	// PublicKey is the uncompressed P-256 point (65 bytes), base64url
	// without padding: the applicationServerKey of the browsers'
	// subscriptions.
	PublicKey string
	// PrivateKey is the private scalar (32 bytes), base64url without
	// padding.
	PrivateKey string
	// Subject is the JWT's sub: "mailto:" and an address, or an https URL.
	Subject string
}

// NewVAPIDKey makes a new VAPID private key, base64url (see PushConfig).
func NewVAPIDKey() (string, error) {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	return b64.EncodeToString(k.Bytes()), nil
}

// VAPIDPublicKey is the public key of the VAPID private key priv, both
// base64url (see PushConfig).
func VAPIDPublicKey(priv string) (string, error) {
	raw, err := decodeKey(priv)
	if err != nil {
		return "", fmt.Errorf("%s: %w", EnvVAPIDPrivateKey, err)
	}
	k, err := ecdh.P256().NewPrivateKey(raw)
	if err != nil {
		return "", fmt.Errorf("%s: not a P-256 private key (32 bytes, base64url): %w", EnvVAPIDPrivateKey, err)
	}
	return b64.EncodeToString(k.PublicKey().Bytes()), nil
}

// Check reports what is wrong with c: a private key that is not a P-256
// key, a public key that is not its public half, or a subject that is no
// mailto: or https: URI.
func (c PushConfig) Check() error {
	pub, err := VAPIDPublicKey(c.PrivateKey)
	if err != nil {
		return err
	}
	if raw, err := decodeKey(c.PublicKey); err != nil || b64.EncodeToString(raw) != pub {
		return fmt.Errorf("%s is not the public key of %s (it is %s)", EnvVAPIDPublicKey, EnvVAPIDPrivateKey, pub)
	}
	u, err := url.Parse(c.Subject)
	switch {
	case err != nil:
		return fmt.Errorf("%s %q: %w", EnvVAPIDSubject, c.Subject, err)
	case u.Scheme == "mailto" && strings.Contains(u.Opaque, "@"), u.Scheme == "https" && u.Host != "":
		return nil
	}
	return fmt.Errorf("%s %q: want mailto:an@address or an https:// URL", EnvVAPIDSubject, c.Subject)
}

// decodeKey decodes a key in base64url, with or without padding, or in
// standard base64 (as some push libraries print them).
func decodeKey(s string) ([]byte, error) {
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	if raw, err := b64.DecodeString(s); err == nil {
		return raw, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// maxPushEndpoint is the longest endpoint a subscription may have.
const maxPushEndpoint = 2048

// CheckPushSubscription checks what a browser gives of its subscription:
// an endpoint that is an absolute https URL (http too when allowPrivate,
// for a push service on the local network) that the SSRF guard lets the
// server reach (see CheckWebhookURL), p256dh a P-256 public key (65 bytes)
// and auth a 16-byte secret, both base64url. Its error names the field.
func CheckPushSubscription(endpoint, p256dh, auth string, allowPrivate bool) error {
	if len(endpoint) > maxPushEndpoint {
		return fmt.Errorf("endpoint: at most %d characters", maxPushEndpoint)
	}
	u, err := CheckWebhookURL(endpoint, allowPrivate)
	if err != nil {
		return fmt.Errorf("endpoint: %s", strings.TrimPrefix(err.Error(), "notifier: "))
	}
	if u.Scheme != "https" && !allowPrivate {
		return errors.New("endpoint: want an https URL")
	}
	if raw, err := decodeKey(p256dh); err != nil || len(raw) != 65 {
		return errors.New("keys.p256dh: want the browser's P-256 public key, 65 bytes in base64url")
	} else if _, err := ecdh.P256().NewPublicKey(raw); err != nil {
		return errors.New("keys.p256dh: not a point of P-256")
	}
	if raw, err := decodeKey(auth); err != nil || len(raw) != 16 {
		return errors.New("keys.auth: want the subscription's auth secret, 16 bytes in base64url")
	}
	return nil
}

// PushMessage is what one push says, as JSON in the encrypted payload;
// the service worker (web/assets/sw.js) shows it as a notification.
type PushMessage struct {
	Title  string `json:"title"`             // the game: "Game #12: ana, bob"
	Body   string `json:"body"`              // what changed: the notification's headline
	URL    string `json:"url"`               // the game's board
	Tag    string `json:"tag,omitempty"`     // one notification per game on the device: "game-12"
	Kind   Kind   `json:"kind"`              // the notification's kind
	GameID int64  `json:"game_id,omitempty"` // the game
}

// PushTarget is the subscription a push goes to.
type PushTarget struct {
	Endpoint, P256dh, Auth string
}

// PushOutcome is what a push job does after an attempt.
type PushOutcome int

// Push outcomes, from classifyPush.
const (
	PushSent   PushOutcome = iota // the push service took it (2xx)
	PushRetry                     // try again later: 429, 5xx, a timeout, no connection
	PushGone                      // the subscription is gone (404, 410): delete it
	PushFailed                    // refused for good (another 4xx, a bad key): give up
)

// PushResult is one attempt.
type PushResult struct {
	Status   int         // the push service's answer; 0 with no answer
	Outcome  PushOutcome // see the outcomes
	Response string      // up to 1 KB of the answer's body
	Err      error       // what failed without an answer
}

// pushTTL is how long a push service keeps a message for a browser that
// is offline (its TTL header), and how long a push job keeps trying: a
// turn's news a day late is no use.
const pushTTL = 24 * time.Hour

// PushSender posts encrypted, signed pushes. It is safe for concurrent
// use.
type PushSender struct {
	cfg  PushConfig
	http *pushHTTP
}

// NewPushSender returns a sender with the VAPID identity cfg, which
// reaches push services through the webhooks' guarded client (timeouts,
// no proxy, and with opts.AllowPrivate off, no internal address).
func NewPushSender(cfg PushConfig, opts WebhookOptions) (*PushSender, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "DataMonsters-Push/1"
	}
	wc := NewWebhookClient(opts)
	return &PushSender{cfg: cfg, http: &pushHTTP{c: wc.http, ua: opts.UserAgent, allowPrivate: opts.AllowPrivate}}, nil
}

// PublicKey is the VAPID public key that browsers subscribe with.
func (p *PushSender) PublicKey() string { return p.cfg.PublicKey }

// CheckSubscription is CheckPushSubscription, with the private addresses
// allowed that the sender may reach.
func (p *PushSender) CheckSubscription(endpoint, p256dh, auth string) error {
	return CheckPushSubscription(endpoint, p256dh, auth, p.http.allowPrivate)
}

// pushHTTP is the client webpush-go posts with: the guarded client, with
// the target checked first and our User-Agent.
type pushHTTP struct {
	c            *http.Client
	ua           string
	allowPrivate bool
}

func (h *pushHTTP) Do(req *http.Request) (*http.Response, error) {
	if err := checkURL(req.URL, h.allowPrivate); err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", h.ua)
	return h.c.Do(req)
}

// Send posts msg to the subscription to, encrypted for it, with the
// Topic of its game (a newer push of the same game replaces one the
// service still holds) and high urgency when urgent (a decision waits).
func (p *PushSender) Send(ctx context.Context, to PushTarget, msg PushMessage, urgent bool) PushResult {
	body, err := json.Marshal(msg)
	if err != nil {
		return PushResult{Outcome: PushFailed, Err: err}
	}
	urgency := webpush.UrgencyNormal
	if urgent {
		urgency = webpush.UrgencyHigh
	}
	resp, err := webpush.SendNotificationWithContext(ctx, body, &webpush.Subscription{Endpoint: to.Endpoint,
		Keys: webpush.Keys{P256dh: canonicalKey(to.P256dh), Auth: canonicalKey(to.Auth)}}, &webpush.Options{
		HTTPClient: p.http,
		// webpush-go writes "mailto:" before a subject that is not https.
		Subscriber:      strings.TrimPrefix(p.cfg.Subject, "mailto:"),
		VAPIDPublicKey:  p.cfg.PublicKey,
		VAPIDPrivateKey: p.cfg.PrivateKey,
		TTL:             int(pushTTL / time.Second),
		Topic:           msg.Tag,
		Urgency:         urgency,
	})
	if err != nil {
		return PushResult{Outcome: classifyPush(0, err), Err: err}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxDrainedResponse))
	return PushResult{Status: resp.StatusCode, Outcome: classifyPush(resp.StatusCode, nil), Response: truncateUTF8(b, maxLoggedResponse)}
}

// canonicalKey is a subscription's key in any form CheckPushSubscription
// takes (decodeKey's: padded or not, either alphabet, white space around
// it) written as base64url without padding, which webpush-go reads; a key
// that does not decode is left as it is (the library refuses it).
func canonicalKey(key string) string {
	if raw, err := decodeKey(key); err == nil {
		return b64.EncodeToString(raw)
	}
	return key
}

// classifyPush maps an attempt to its outcome: 2xx sent; 404 and 410 (and
// an endpoint the SSRF guard refuses now) gone; 408, 429 and 5xx, and a
// failure without an answer, retried; any other answer failed.
func classifyPush(status int, err error) PushOutcome {
	switch {
	case errors.Is(err, ErrForbiddenTarget):
		return PushGone
	case errors.Is(err, webpush.ErrMaxPadExceeded):
		return PushFailed
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) || errors.Is(err, context.DeadlineExceeded) {
			return PushRetry
		}
		return PushFailed // the library refused the keys: no attempt helps
	case status >= 200 && status <= 299:
		return PushSent
	case status == http.StatusNotFound || status == http.StatusGone:
		return PushGone
	case status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500:
		return PushRetry
	}
	return PushFailed
}

// pushKind is the River job kind of a push.
const pushKind = "dm_push"

// PushArgs is one push job: one notification to one of its recipient's
// subscriptions. Key is unique per (event, recipient, subscription).
type PushArgs struct {
	Key            string      `json:"key" river:"unique"`
	SubscriptionID int64       `json:"subscription_id"`
	UserID         int64       `json:"user_id"`
	Seat           int         `json:"seat"` // the recipient's seat in Message.GameID; -1 for none
	Urgent         bool        `json:"urgent,omitempty"`
	Message        PushMessage `json:"message"`
	// Deadline is the recipient's deadline the notification names (zero:
	// none), which says whether it waits for their quiet hours to end.
	Deadline time.Time `json:"deadline,omitzero"`
}

// Kind is the River job kind.
func (PushArgs) Kind() string { return pushKind }

type pushWorker struct {
	river.WorkerDefaults[PushArgs]
	o *Outbox
}

// Work sends one push. A subscription deleted since, or that has moved
// to another account (the browser subscribed again for someone else),
// gets nothing; like their emails, a "your turn" or prompt push is skipped
// while its recipient follows the game live, and one that is not urgent
// waits while they are in their quiet hours (see quiet.go); a
// subscription the push service says is gone is deleted.
func (w *pushWorker) Work(ctx context.Context, job *river.Job[PushArgs]) error {
	a := job.Args
	o := w.o
	sub, err := o.store.PushSubscriptionByID(ctx, a.SubscriptionID)
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if sub.UserID != a.UserID {
		return nil
	}
	k := a.Message.Kind
	if (k == KindYourTurn || k == KindPromptWaiting) && o.onStream(ctx, a.UserID, a.Message.GameID, a.Seat) {
		o.log.Info("push skipped: recipient is on the live stream", "key", a.Key)
		return nil
	}
	if err := o.waitQuiet(ctx, a.UserID, a.Deadline, a.Key); err != nil {
		return err
	}
	if o.cfg.Push == nil {
		return errors.New("push is not configured in this process")
	}
	if o.now().Sub(job.CreatedAt) > pushTTL {
		return river.JobCancel(fmt.Errorf("push %s: not sent within %s", a.Key, pushTTL))
	}
	res := o.cfg.Push.Send(ctx, PushTarget{Endpoint: sub.Endpoint, P256dh: sub.P256dh, Auth: sub.Auth}, a.Message, a.Urgent)
	what := res.Response
	if res.Err != nil {
		what = res.Err.Error()
	}
	switch res.Outcome {
	case PushSent:
		return nil
	case PushGone:
		if _, err := o.store.DeleteGonePushSubscription(ctx, sub.ID); err != nil {
			return err
		}
		o.log.Info("push subscription gone: deleted", "subscription_id", sub.ID, "user_id", sub.UserID, "status", res.Status)
		return river.JobCancel(fmt.Errorf("push subscription %d gone (HTTP %d): %s", sub.ID, res.Status, what))
	case PushFailed:
		return river.JobCancel(fmt.Errorf("push to subscription %d refused (HTTP %d): %s", sub.ID, res.Status, what))
	}
	return fmt.Errorf("push to subscription %d (HTTP %d): %s", sub.ID, res.Status, what)
}

// NextRetry backs off from PushRetryBase doubling to an hour.
func (w *pushWorker) NextRetry(job *river.Job[PushArgs]) time.Time {
	return w.o.now().Add(Backoff(job.Attempt, w.o.cfg.PushRetryBase, time.Hour, 0.2))
}

// pushPlan is which notes of one dispatch go by push: by the note's index,
// the headlines of the others it stands for (one push per person per
// change, like the emails), and each recipient's subscriptions.
type pushPlan struct {
	chosen map[int][]string
	subs   map[int64][]models.PushSubscription
}

// planPush picks the notes that go by push among notes (those of
// dispatch, in order): for each recipient with a subscription, the most
// pressing of their notes whose kind they take by push (on unless turned
// off; "your turn", prompts and reminders only with the profile's turn
// notifications on), none to a seat the change's door answers itself. nil
// when nobody gets one.
func (o *Outbox) planPush(r *models.Recipients, notes []note, answered []int, wants func(int64, Kind, string) bool) *pushPlan {
	if o.cfg.Push == nil || len(r.Push) == 0 {
		return nil
	}
	p := &pushPlan{subs: map[int64][]models.PushSubscription{}}
	for _, s := range r.Push {
		p.subs[s.UserID] = append(p.subs[s.UserID], s)
	}
	pushes := func(n note) bool {
		u := r.Users[n.userID]
		return u != nil && len(p.subs[n.userID]) > 0 && wants(n.userID, n.kind, ChannelPush) && (u.NotifyTurns || !turnKind(n.kind))
	}
	p.chosen = oneEmailEach(notes, answered, pushes)
	return p
}

// turnKind reports whether k is about a decision that waits for its
// recipient: the profile's turn notifications switch turns it off.
func turnKind(k Kind) bool {
	return k == KindYourTurn || k == KindPromptWaiting || k == KindDeadlineReminder
}

// enqueuePush writes the push jobs of note i of a dispatch (n, its
// common fields filled in), one per subscription of its recipient, if
// the plan sends it.
func (o *Outbox) enqueuePush(ctx context.Context, tx *sql.Tx, p *pushPlan, i int, n note) error {
	if p == nil {
		return nil
	}
	also, ok := p.chosen[i]
	if !ok {
		return nil
	}
	msg, urgent := o.pushMessage(n, also)
	for _, s := range p.subs[n.userID] {
		args := PushArgs{Key: string(n.key.n("push", s.ID)), SubscriptionID: s.ID, UserID: n.userID,
			Seat: n.seat, Urgent: urgent, Message: msg, Deadline: deadlineOf(deref(n.data))}
		if err := o.insert(ctx, tx, args, time.Time{}); err != nil {
			return err
		}
	}
	return nil
}

// maxPushBody bounds what a push says, in bytes (a phone shows a few
// lines; a push's payload is at most about 4 KB).
const maxPushBody = 600

// pushMessage is what the push of note n says: the game (the email
// subject's words), what changed (its headline, then the headlines of
// the notes it stands for, also), and the link to the board; urgent when
// a decision waits. It is made of what the note's data says before its
// fill, which holds the recipient's hand and prompts: nothing that a view
// hides reaches a push service.
func (o *Outbox) pushMessage(n note, also []string) (PushMessage, bool) {
	d := withCommon(deref(n.data), func(c *Common) { c.Now = o.now() })
	c := d.base()
	body := strings.Join(append([]string{Headline(d)}, also...), " ")
	if len(body) > maxPushBody {
		cut := maxPushBody - len("…")
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		body = body[:cut] + "…"
	}
	urgent := turnKind(n.kind)
	if g, ok := d.(GameStarted); ok && g.YourTurn {
		urgent = true
	}
	gid, _ := strconv.ParseInt(c.GameID, 10, 64)
	return PushMessage{Title: strings.TrimPrefix(Subject(c), "[Data Monsters] "), Body: body, URL: c.GameURL,
		Tag: "game-" + c.GameID, Kind: n.kind, GameID: gid}, urgent
}

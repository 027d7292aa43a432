package notifier

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Webhook header names. A delivery is a JSON POST carrying:
//
//	Webhook-Id: <delivery id, stable across retries of one delivery>
//	Webhook-Timestamp: <unix seconds when this attempt was signed>
//	Webhook-Signature: v1=<hex HMAC-SHA256(secret, timestamp + "." + body)>
//
// Webhook-Signature may hold several space-separated "v1=" values (during a
// secret rotation the service signs with both secrets); a receiver accepts
// the request if any one matches.
const (
	HeaderWebhookID        = "Webhook-Id"
	HeaderWebhookTimestamp = "Webhook-Timestamp"
	HeaderWebhookSignature = "Webhook-Signature"
)

// DefaultWebhookTolerance is how far a Webhook-Timestamp may be from the
// receiver's clock before Verify refuses it (replay window).
const DefaultWebhookTolerance = 5 * time.Minute

// Verification errors returned by Verify.
var (
	ErrWebhookNoSignature = errors.New("webhook: missing Webhook-Timestamp or Webhook-Signature")
	ErrWebhookTimestamp   = errors.New("webhook: timestamp malformed or outside tolerance")
	ErrWebhookSignature   = errors.New("webhook: no matching signature")
)

// Sign returns the Webhook-Signature value for body signed at timestamp
// (unix seconds): "v1=" followed by the lower-case hex HMAC-SHA256, keyed
// with secret, of the decimal timestamp, a '.', and the body bytes.
func Sign(secret []byte, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(strconv.FormatInt(timestamp, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify checks a received webhook: header must carry Webhook-Timestamp
// within tolerance of now (tolerance <= 0 means DefaultWebhookTolerance)
// and a Webhook-Signature with a "v1=" value equal to Sign(secret,
// timestamp, body). body must be the raw request body, byte for byte, read
// before any JSON decoding. The comparison is constant-time. Receivers
// should also drop a Webhook-Id they have already processed.
func Verify(secret []byte, header http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	tsText, sigs := header.Get(HeaderWebhookTimestamp), header.Get(HeaderWebhookSignature)
	if tsText == "" || sigs == "" {
		return ErrWebhookNoSignature
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return ErrWebhookTimestamp
	}
	if tolerance <= 0 {
		tolerance = DefaultWebhookTolerance
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return ErrWebhookTimestamp
	}
	want := []byte(Sign(secret, ts, body))
	for _, s := range strings.Fields(sigs) {
		if hmac.Equal([]byte(s), want) {
			return nil
		}
	}
	return ErrWebhookSignature
}

// WebhookBody is the JSON envelope of every delivery. The delivery id is
// inside the signed body as well as in Webhook-Id, so a replayed body
// cannot pose as a new delivery.
type WebhookBody struct {
	ID        string          `json:"id"`         // delivery id, equal to Webhook-Id
	Event     string          `json:"event"`      // the notification kind, e.g. "your_turn", "game_over"
	CreatedAt time.Time       `json:"created_at"` // when the event happened (RFC 3339, UTC)
	Data      json.RawMessage `json:"data"`       // event-specific payload
}

// NewWebhookBody marshals a delivery envelope around data.
func NewWebhookBody(id, event string, createdAt time.Time, data any) ([]byte, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("webhook: marshal data: %w", err)
	}
	return json.Marshal(WebhookBody{ID: id, Event: event, CreatedAt: createdAt.UTC(), Data: raw})
}

// WebhookOptions configure a WebhookClient. Zero values take the defaults
// noted on each field.
type WebhookOptions struct {
	// AllowPrivate lets deliveries reach loopback, private, link-local and
	// other internal addresses. Off by default; an operator turns it on for
	// receivers on the same network, tests for httptest servers.
	AllowPrivate bool
	Timeout      time.Duration // whole request, including the body (default 10 s)
	DialTimeout  time.Duration // TCP connect (default 5 s)
	MaxRedirects int           // 307/308 redirects followed (default 3; -1: none)
	UserAgent    string        // default "DataMonsters-Webhooks/1"
}

// Environment variables read by LoadWebhookOptions.
const (
	EnvWebhookAllowPrivate = "WEBHOOK_ALLOW_PRIVATE" // "true"/"1": allow internal targets
	EnvWebhookTimeout      = "WEBHOOK_TIMEOUT"       // Go duration, e.g. "10s"
)

// LoadWebhookOptions reads WEBHOOK_ALLOW_PRIVATE (a boolean, default
// false) and WEBHOOK_TIMEOUT (a duration such as "10s", default 10 s)
// through getenv (pass os.Getenv).
func LoadWebhookOptions(getenv func(string) string) (WebhookOptions, error) {
	var o WebhookOptions
	if v := strings.TrimSpace(getenv(EnvWebhookAllowPrivate)); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return WebhookOptions{}, fmt.Errorf("notifier: %s %q: want true or false", EnvWebhookAllowPrivate, v)
		}
		o.AllowPrivate = b
	}
	if v := strings.TrimSpace(getenv(EnvWebhookTimeout)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > 5*time.Minute {
			return WebhookOptions{}, fmt.Errorf("notifier: %s %q: want a duration up to 5m, e.g. 10s", EnvWebhookTimeout, v)
		}
		o.Timeout = d
	}
	return o, nil
}

// WebhookClient posts signed webhook deliveries. It never uses a proxy from
// the environment (a proxy would hide the real target from the SSRF
// guard). It is safe for concurrent use.
type WebhookClient struct {
	http         *http.Client
	allowPrivate bool
	userAgent    string
	now          func() time.Time
}

// NewWebhookClient returns a client with the SSRF guard wired into its
// dialer, timeouts, and the redirect policy: only 307 and 308 (which keep
// the method and body) are followed, each target checked again; any other
// 3xx is returned as the result.
func NewWebhookClient(opts WebhookOptions) *WebhookClient {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 5 * time.Second
	}
	if opts.MaxRedirects == 0 {
		opts.MaxRedirects = 3
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "DataMonsters-Webhooks/1"
	}
	dialer := guardedDialer(opts.AllowPrivate, net.Dialer{Timeout: opts.DialTimeout, KeepAlive: 30 * time.Second})
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: opts.Timeout,
		ExpectContinueTimeout: time.Second,
	}
	c := &WebhookClient{allowPrivate: opts.AllowPrivate, userAgent: opts.UserAgent, now: time.Now}
	c.http = &http.Client{
		Transport: transport,
		Timeout:   opts.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.Response != nil && req.Response.StatusCode != http.StatusTemporaryRedirect &&
				req.Response.StatusCode != http.StatusPermanentRedirect {
				return http.ErrUseLastResponse
			}
			if len(via) > opts.MaxRedirects {
				return fmt.Errorf("webhook: more than %d redirects", max(opts.MaxRedirects, 0))
			}
			return checkURL(req.URL, c.allowPrivate)
		},
	}
	return c
}

// SetClock replaces the clock that stamps Webhook-Timestamp (tests).
func (c *WebhookClient) SetClock(now func() time.Time) { c.now = now }

// Outcome is what the caller should do after a delivery attempt.
type Outcome int

// Outcomes, from Classify.
const (
	OutcomeOK      Outcome = iota // delivered: mark done, reset the failure count
	OutcomeRetry                  // failed: count a failure, retry after Backoff
	OutcomeDisable                // the receiver is gone (410) or forbidden: disable the webhook
)

// String returns "ok", "retry" or "disable".
func (o Outcome) String() string {
	switch o {
	case OutcomeOK:
		return "ok"
	case OutcomeRetry:
		return "retry"
	case OutcomeDisable:
		return "disable"
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// Classify maps an attempt's result to an outcome: a 2xx status is OK;
// 410 Gone disables the webhook; a target refused by the SSRF guard
// (ErrForbiddenTarget) disables it too, since the URL now points inside
// the network; every other status (3xx, 4xx, 5xx) and every transport
// error (timeout, refused, TLS) is retried. status is 0 when err is set.
func Classify(status int, err error) Outcome {
	switch {
	case errors.Is(err, ErrForbiddenTarget):
		return OutcomeDisable
	case err != nil:
		return OutcomeRetry
	case status >= 200 && status <= 299:
		return OutcomeOK
	case status == http.StatusGone:
		return OutcomeDisable
	}
	return OutcomeRetry
}

// WebhookResult describes one delivery attempt, for the delivery log.
type WebhookResult struct {
	Status    int           // HTTP status; 0 if no response
	Outcome   Outcome       // see Classify
	Duration  time.Duration // from send to the end of the response
	Timestamp int64         // the Webhook-Timestamp sent
	Response  string        // up to 1 KB of the response body, valid UTF-8
	Err       error         // transport or guard error; nil with a response
}

// maxLoggedResponse bounds WebhookResult.Response; maxDrainedResponse
// bounds how much of a response body is read at all.
const (
	maxLoggedResponse  = 1 << 10
	maxDrainedResponse = 64 << 10
)

// Deliver signs body with secret and POSTs it to target with the delivery
// id. It returns the attempt's result; it never returns an error of its
// own (failures are in WebhookResult.Err and Outcome). A target refused by
// the URL check is not contacted at all.
func (c *WebhookClient) Deliver(ctx context.Context, target string, secret []byte, id string, body []byte) WebhookResult {
	now := c.now()
	res := WebhookResult{Timestamp: now.Unix()}
	if _, err := CheckWebhookURL(target, c.allowPrivate); err != nil {
		res.Err, res.Outcome = err, Classify(0, err)
		return res
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		res.Err, res.Outcome = fmt.Errorf("%w: %v", ErrForbiddenTarget, err), OutcomeDisable
		return res
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set(HeaderWebhookID, CleanHeaderText(id, 200))
	req.Header.Set(HeaderWebhookTimestamp, strconv.FormatInt(res.Timestamp, 10))
	req.Header.Set(HeaderWebhookSignature, Sign(secret, res.Timestamp, body))

	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		res.Duration = time.Since(start)
		res.Err, res.Outcome = err, Classify(0, err)
		return res
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxDrainedResponse))
	res.Duration = time.Since(start)
	res.Status = resp.StatusCode
	res.Response = truncateUTF8(b, maxLoggedResponse)
	res.Outcome = Classify(resp.StatusCode, nil)
	return res
}

// truncateUTF8 returns at most n bytes of b as valid UTF-8.
func truncateUTF8(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return strings.ToValidUTF8(string(b), string(utf8.RuneError))
}

// Backoff returns how long to wait before retry number attempt (1 for the
// first retry): base doubled for each earlier attempt, capped at max, then
// "equal jitter": half of that fixed and half scaled by jitter, a number
// in [0, 1) the caller draws (math/rand/v2 Float64), so the function stays
// pure. attempt < 1 counts as 1; base <= 0 gives 0.
//
// With base 30 s and max 6 h the unjittered waits are 30 s, 1 m, 2 m, 4 m,
// ... 4 h 16 m, then 6 h; with jitter the wait lies in [d/2, d).
func Backoff(attempt int, base, max time.Duration, jitter float64) time.Duration {
	if base <= 0 {
		return 0
	}
	if attempt < 1 {
		attempt = 1
	}
	d := float64(base) * math.Pow(2, float64(attempt-1))
	if max > 0 && d > float64(max) {
		d = float64(max)
	}
	if d > math.MaxInt64/2 {
		d = math.MaxInt64 / 2
	}
	jitter = math.Min(math.Max(jitter, 0), 1)
	return time.Duration(d/2 + jitter*d/2)
}

// Default retry policy for webhooks: DefaultWebhookBackoff spaces the
// retries, and a webhook is disabled after DefaultWebhookDisableAfter
// consecutive failed deliveries (about two days of retrying).
const (
	DefaultWebhookBackoffBase  = 30 * time.Second
	DefaultWebhookBackoffMax   = 6 * time.Hour
	DefaultWebhookDisableAfter = 20
)

// ShouldDisable reports whether a webhook with this many consecutive failed
// attempts (reset to 0 by any success) must be disabled: failures >= limit.
// limit <= 0 means DefaultWebhookDisableAfter.
func ShouldDisable(consecutiveFailures, limit int) bool {
	if limit <= 0 {
		limit = DefaultWebhookDisableAfter
	}
	return consecutiveFailures >= limit
}

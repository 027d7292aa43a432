package notifier

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// independentVerify checks a delivery the way a receiver following the
// documentation would, with crypto/hmac directly and nothing from this
// package.
func independentVerify(secret string, h http.Header, body []byte) error {
	ts := h.Get("Webhook-Timestamp")
	n, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("timestamp %q", ts)
	}
	if d := time.Since(time.Unix(n, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return fmt.Errorf("timestamp %d too old", n)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(body)))
	want := "v1=" + hex.EncodeToString(mac.Sum(nil))
	for _, got := range strings.Fields(h.Get("Webhook-Signature")) {
		if hmac.Equal([]byte(got), []byte(want)) {
			return nil
		}
	}
	return fmt.Errorf("signature %q, want %q", h.Get("Webhook-Signature"), want)
}

type capture struct {
	Header http.Header
	Body   []byte
	Method string
}

// receiver is an httptest server that records requests and answers with
// the next status from statuses (the last one repeats).
func receiver(t *testing.T, statuses ...int) (*httptest.Server, func() []capture) {
	t.Helper()
	var mu sync.Mutex
	var got []capture
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, capture{r.Header.Clone(), b, r.Method})
		i := min(len(got)-1, len(statuses)-1)
		mu.Unlock()
		w.WriteHeader(statuses[i])
		fmt.Fprint(w, "thanks")
	}))
	t.Cleanup(srv.Close)
	return srv, func() []capture {
		mu.Lock()
		defer mu.Unlock()
		return append([]capture(nil), got...)
	}
}

func TestWebhookDeliverSigned(t *testing.T) {
	t.Parallel()
	srv, got := receiver(t, http.StatusNoContent)
	c := NewWebhookClient(WebhookOptions{AllowPrivate: true})
	body, err := NewWebhookBody("dlv-1", "turn.awaiting", time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC), map[string]any{"game_id": 42, "seat": 1})
	if err != nil {
		t.Fatal(err)
	}
	res := c.Deliver(context.Background(), srv.URL+"/hook", []byte("whsec_test"), "dlv-1", body)
	if res.Err != nil || res.Status != 204 || res.Outcome != OutcomeOK {
		t.Fatalf("result = %+v", res)
	}
	reqs := got()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Webhook-Id") != "dlv-1" {
		t.Errorf("method %s, headers %v", r.Method, r.Header)
	}
	if string(r.Body) != string(body) {
		t.Errorf("body = %s, want %s", r.Body, body)
	}
	if err := independentVerify("whsec_test", r.Header, r.Body); err != nil {
		t.Errorf("independent verifier: %v", err)
	}
	if err := independentVerify("other secret", r.Header, r.Body); err == nil {
		t.Error("independent verifier accepted the wrong secret")
	}
	if err := Verify([]byte("whsec_test"), r.Header, r.Body, time.Now(), 0); err != nil {
		t.Errorf("Verify: %v", err)
	}
	var env WebhookBody
	if err := json.Unmarshal(r.Body, &env); err != nil || env.ID != "dlv-1" || env.Event != "turn.awaiting" ||
		string(env.Data) != `{"game_id":42,"seat":1}` || env.CreatedAt.Format(time.RFC3339) != "2026-11-29T21:00:00Z" {
		t.Errorf("envelope = %+v (%v)", env, err)
	}
}

func TestSignKnownVector(t *testing.T) {
	t.Parallel()
	// Computed with: printf '%s' '1700000000.{"a":1}' | openssl dgst -sha256 -hmac secret -hex
	const want = "v1=49f24e537407743fa4a0242bb63b94b9a47ee99cbbe071ccd8a22550ae411686"
	if got := Sign([]byte("secret"), 1700000000, []byte(`{"a":1}`)); got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	secret, body := []byte("s3cret"), []byte(`{"id":"d1"}`)
	now := time.Unix(1_800_000_000, 0)
	hdr := func(ts int64, sig string) http.Header {
		h := http.Header{}
		h.Set(HeaderWebhookTimestamp, strconv.FormatInt(ts, 10))
		h.Set(HeaderWebhookSignature, sig)
		return h
	}
	good := Sign(secret, now.Unix(), body)
	for _, tc := range []struct {
		name string
		h    http.Header
		body []byte
		want error
	}{
		{"good", hdr(now.Unix(), good), body, nil},
		{"rotation, second matches", hdr(now.Unix(), Sign([]byte("old"), now.Unix(), body)+" "+good), body, nil},
		{"4 min old", hdr(now.Unix()-240, Sign(secret, now.Unix()-240, body)), body, nil},
		{"6 min old", hdr(now.Unix()-360, Sign(secret, now.Unix()-360, body)), body, ErrWebhookTimestamp},
		{"6 min ahead", hdr(now.Unix()+360, Sign(secret, now.Unix()+360, body)), body, ErrWebhookTimestamp},
		{"timestamp swapped", hdr(now.Unix()-1, good), body, ErrWebhookSignature},
		{"body changed", hdr(now.Unix(), good), []byte(`{"id":"d2"}`), ErrWebhookSignature},
		{"upper-case hex", hdr(now.Unix(), strings.ToUpper(good)), body, ErrWebhookSignature},
		{"no prefix", hdr(now.Unix(), strings.TrimPrefix(good, "v1=")), body, ErrWebhookSignature},
		{"bad timestamp", hdr(0, good), body, ErrWebhookTimestamp},
		{"missing", http.Header{}, body, ErrWebhookNoSignature},
	} {
		if err := Verify(secret, tc.h, tc.body, now, 0); !errors.Is(err, tc.want) {
			t.Errorf("%s: Verify = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestWebhookClassification(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		want   Outcome
	}{
		{200, OutcomeOK}, {201, OutcomeOK}, {204, OutcomeOK},
		{301, OutcomeRetry}, {302, OutcomeRetry},
		{400, OutcomeRetry}, {404, OutcomeRetry}, {410, OutcomeDisable}, {429, OutcomeRetry},
		{500, OutcomeRetry}, {503, OutcomeRetry},
	} {
		srv, _ := receiver(t, tc.status)
		res := NewWebhookClient(WebhookOptions{AllowPrivate: true}).Deliver(context.Background(), srv.URL, []byte("k"), "d", []byte("{}"))
		if res.Status != tc.status || res.Outcome != tc.want {
			t.Errorf("status %d: got status %d outcome %v, want %v (%v)", tc.status, res.Status, res.Outcome, tc.want, res.Err)
		}
	}
	if got := Classify(0, errors.New("connection refused")); got != OutcomeRetry {
		t.Errorf("transport error: %v", got)
	}
	if got := Classify(0, fmt.Errorf("dial: %w", ErrForbiddenTarget)); got != OutcomeDisable {
		t.Errorf("forbidden target: %v", got)
	}
}

// A receiver that never answers in time is a retry, and the client does not
// hang past its timeout.
func TestWebhookTimeout(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(block) })
	c := NewWebhookClient(WebhookOptions{AllowPrivate: true, Timeout: 200 * time.Millisecond})
	start := time.Now()
	res := c.Deliver(context.Background(), srv.URL, []byte("k"), "d", []byte("{}"))
	if res.Err == nil || res.Outcome != OutcomeRetry {
		t.Errorf("result = %+v, want a retried timeout", res)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Deliver took %v", d)
	}
}

func TestSSRFGuardRefusesInternalTargets(t *testing.T) {
	t.Parallel()
	// A listener on loopback: the guard must refuse it before any byte is sent.
	srv, got := receiver(t, 200)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	c := NewWebhookClient(WebhookOptions{DialTimeout: time.Second, Timeout: 2 * time.Second})
	for _, target := range []string{
		srv.URL,
		fmt.Sprintf("http://localhost:%d/", port),
		fmt.Sprintf("http://[::1]:%d/", port),
		"http://10.1.2.3/hook",
		"http://169.254.169.254/latest/meta-data/",
		"http://100.64.0.1/",
		"http://192.168.1.1/",
		"http://[fd00::1]/",
		"http://[::ffff:127.0.0.1]/",
		"http://0.0.0.0/",
		"ftp://example.com/",
		"file:///etc/passwd",
		"http://user:pw@example.com/",
	} {
		res := c.Deliver(context.Background(), target, []byte("k"), "d", []byte("{}"))
		if !errors.Is(res.Err, ErrForbiddenTarget) || res.Outcome != OutcomeDisable {
			t.Errorf("%s: result %+v, want ErrForbiddenTarget and disable", target, res)
		}
	}
	if n := len(got()); n != 0 {
		t.Errorf("loopback receiver got %d requests", n)
	}
}

// The dial-time check catches names that resolve to loopback, which a
// URL check cannot see ("127.0.0.1.nip.io"-style names, DNS rebinding).
// The dialer's Control hook is exercised directly with the resolved address.
func TestSSRFGuardAtDialTime(t *testing.T) {
	t.Parallel()
	srv, got := receiver(t, 200)
	d := guardedDialer(false, net.Dialer{Timeout: time.Second})
	if _, err := d.DialContext(context.Background(), "tcp", srv.Listener.Addr().String()); !errors.Is(err, ErrForbiddenTarget) {
		t.Errorf("dial loopback: %v, want ErrForbiddenTarget", err)
	}
	// "localhost" is resolved by the dialer; the resolved address is refused.
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	if _, err := d.DialContext(context.Background(), "tcp", net.JoinHostPort("localhost", port)); !errors.Is(err, ErrForbiddenTarget) {
		t.Errorf("dial localhost: %v, want ErrForbiddenTarget", err)
	}
	// The client's own transport carries the guard, and no proxy.
	tr := NewWebhookClient(WebhookOptions{}).http.Transport.(*http.Transport)
	if _, err := tr.DialContext(context.Background(), "tcp", net.JoinHostPort("localhost", port)); !errors.Is(err, ErrForbiddenTarget) {
		t.Errorf("client transport dial localhost: %v, want ErrForbiddenTarget", err)
	}
	if tr.Proxy != nil {
		t.Error("webhook transport uses a proxy")
	}
	// End to end: a name that is not "localhost" but resolves to this
	// machine passes the URL check and is refused at dial time.
	if host, err := os.Hostname(); err == nil {
		lookupCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		addrs, _ := net.DefaultResolver.LookupHost(lookupCtx, host)
		cancel()
		internal := len(addrs) > 0
		for _, a := range addrs {
			ip, err := netip.ParseAddr(a)
			internal = internal && err == nil && ForbiddenIP(ip)
		}
		if internal {
			target := "http://" + net.JoinHostPort(host, port) + "/"
			if _, err := CheckWebhookURL(target, false); err != nil {
				t.Fatalf("URL check refused %s already: %v", target, err)
			}
			res := NewWebhookClient(WebhookOptions{}).Deliver(context.Background(), target, []byte("k"), "d", []byte("{}"))
			if !errors.Is(res.Err, ErrForbiddenTarget) || res.Outcome != OutcomeDisable || len(got()) != 0 {
				t.Errorf("%s (resolves to %v): %+v, receiver got %d requests", target, addrs, res, len(got()))
			}
		} else {
			t.Logf("host name %q resolves to %v: end-to-end dial check skipped", host, addrs)
		}
	}
	open := guardedDialer(true, net.Dialer{Timeout: time.Second})
	conn, err := open.DialContext(context.Background(), "tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatalf("AllowPrivate dial: %v", err)
	}
	conn.Close()
}

// A public-looking first hop that redirects to an internal address is
// refused at the redirect; 302 is not followed at all.
func TestWebhookRedirects(t *testing.T) {
	t.Parallel()
	final, got := receiver(t, 200)
	redirect := func(code int, to string) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to, code)
		}))
		t.Cleanup(s.Close)
		return s
	}
	allow := NewWebhookClient(WebhookOptions{AllowPrivate: true})

	r307 := redirect(http.StatusTemporaryRedirect, final.URL+"/moved")
	if res := allow.Deliver(context.Background(), r307.URL, []byte("k"), "d", []byte(`{"x":1}`)); res.Outcome != OutcomeOK {
		t.Errorf("307 with AllowPrivate: %+v", res)
	}
	if reqs := got(); len(reqs) != 1 || string(reqs[0].Body) != `{"x":1}` || reqs[0].Method != "POST" {
		t.Errorf("307 target got %v", reqs)
	} else if err := independentVerify("k", reqs[0].Header, reqs[0].Body); err != nil {
		t.Errorf("307 target signature: %v", err)
	}

	r302 := redirect(http.StatusFound, final.URL)
	if res := allow.Deliver(context.Background(), r302.URL, []byte("k"), "d", []byte("{}")); res.Status != 302 || res.Outcome != OutcomeRetry {
		t.Errorf("302: %+v, want status 302 retried", res)
	}
	if n := len(got()); n != 1 {
		t.Errorf("302 was followed: final got %d requests", n)
	}

	// The redirect check itself, without AllowPrivate: a hop to a private
	// literal or to another scheme is refused.
	c := NewWebhookClient(WebhookOptions{})
	for _, to := range []string{"http://10.0.0.1/x", "http://[::1]/x", "ftp://example.com/x"} {
		req, _ := http.NewRequest("POST", to, nil)
		req.Response = &http.Response{StatusCode: 307}
		if err := c.http.CheckRedirect(req, []*http.Request{{}}); !errors.Is(err, ErrForbiddenTarget) {
			t.Errorf("redirect to %s: %v", to, err)
		}
	}
}

func TestForbiddenIP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ip        string
		forbidden bool
	}{
		{"127.0.0.1", true}, {"127.255.0.9", true}, {"::1", true},
		{"10.0.0.1", true}, {"172.16.5.4", true}, {"172.31.255.255", true}, {"192.168.0.1", true},
		{"169.254.169.254", true}, {"fe80::1", true},
		{"0.0.0.0", true}, {"::", true}, {"0.1.2.3", true},
		{"224.0.0.1", true}, {"ff02::1", true}, {"255.255.255.255", true},
		{"100.64.0.1", true}, {"100.127.255.254", true},
		{"fc00::1", true}, {"fd12:3456::1", true},
		{"::ffff:10.0.0.1", true}, {"::ffff:127.0.0.1", true},
		{"64:ff9b::7f00:1", true}, {"2002:7f00:1::", true}, {"2002:a00:1::1", true},
		{"8.8.8.8", false}, {"1.1.1.1", false}, {"172.32.0.1", false}, {"100.128.0.1", false},
		{"2606:4700:4700::1111", false}, {"::ffff:8.8.8.8", false}, {"64:ff9b::808:808", false},
	} {
		if got := ForbiddenIP(netip.MustParseAddr(tc.ip)); got != tc.forbidden {
			t.Errorf("ForbiddenIP(%s) = %v, want %v", tc.ip, got, tc.forbidden)
		}
	}
	if !ForbiddenIP(netip.Addr{}) {
		t.Error("zero Addr allowed")
	}
}

func TestCheckWebhookURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url          string
		allowPrivate bool
		ok           bool
	}{
		{"https://hooks.example.com/dm", false, true},
		{"http://hooks.example.com:8080/dm?x=1", false, true},
		{"http://127.0.0.1:8080/", false, false},
		{"http://127.0.0.1:8080/", true, true},
		{"http://LOCALHOST./", false, false},
		{"http://api.localhost/", false, false},
		{"gopher://example.com/", true, false},
		{"javascript:alert(1)", true, false},
		{"/relative", true, false},
		{"https://u:p@example.com/", true, false},
	} {
		_, err := CheckWebhookURL(tc.url, tc.allowPrivate)
		if (err == nil) != tc.ok {
			t.Errorf("CheckWebhookURL(%q, %v) = %v, want ok=%v", tc.url, tc.allowPrivate, err, tc.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	base, cap := 30*time.Second, 6*time.Hour
	for _, tc := range []struct {
		attempt int
		jitter  float64
		want    time.Duration
	}{
		{1, 0, 15 * time.Second},
		{1, 0.999999, 30 * time.Second},
		{1, 0.5, 22500 * time.Millisecond},
		{2, 0, 30 * time.Second},
		{3, 0, time.Minute},
		{0, 0, 15 * time.Second},
		{-5, 0, 15 * time.Second},
		{10, 0, 128 * time.Minute}, // 30 s * 512 = 256 m, halved
		{11, 0, 3 * time.Hour},     // capped at 6 h, halved
		{500, 0, 3 * time.Hour},    // no overflow
		{500, 1, 6 * time.Hour},
		{3, 7, 2 * time.Minute}, // jitter clamped to 1
	} {
		got := Backoff(tc.attempt, base, cap, tc.jitter)
		if d := got - tc.want; d > time.Millisecond || d < -time.Millisecond {
			t.Errorf("Backoff(%d, jitter %v) = %v, want %v", tc.attempt, tc.jitter, got, tc.want)
		}
	}
	// Monotone in attempt at fixed jitter, never above the cap.
	prev := time.Duration(0)
	for a := 1; a < 80; a++ {
		d := Backoff(a, base, cap, 0.7)
		if d < prev || d > cap {
			t.Fatalf("attempt %d: %v after %v", a, d, prev)
		}
		prev = d
	}
	if Backoff(3, 0, cap, 0.5) != 0 {
		t.Error("zero base should give zero")
	}
}

func TestShouldDisable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		failures, limit int
		want            bool
	}{
		{0, 5, false}, {4, 5, false}, {5, 5, true}, {6, 5, true},
		{19, 0, false}, {20, 0, true}, {20, -1, true},
	} {
		if got := ShouldDisable(tc.failures, tc.limit); got != tc.want {
			t.Errorf("ShouldDisable(%d, %d) = %v", tc.failures, tc.limit, got)
		}
	}
}

// The retry rules together: a receiver that fails four times and then
// answers 200 is delivered on the fifth attempt, every attempt carries the
// same Webhook-Id and a valid signature, and the failure count never
// reaches the disable limit.
func TestWebhookRetryUntilDelivered(t *testing.T) {
	t.Parallel()
	srv, got := receiver(t, 500, 503, 429, 404, 200)
	c := NewWebhookClient(WebhookOptions{AllowPrivate: true})
	failures, attempts := 0, 0
	var waited time.Duration
	for attempts = 1; attempts <= 10; attempts++ {
		res := c.Deliver(context.Background(), srv.URL, []byte("k"), "dlv-9", []byte(`{"n":9}`))
		if res.Outcome == OutcomeOK {
			break
		}
		failures++
		if ShouldDisable(failures, 5) {
			t.Fatalf("disabled after %d failures", failures)
		}
		waited += Backoff(failures, time.Second, time.Minute, 0.5)
	}
	if attempts != 5 || failures != 4 {
		t.Errorf("delivered on attempt %d after %d failures, want 5 and 4", attempts, failures)
	}
	if waited != 750*time.Millisecond+1500*time.Millisecond+3*time.Second+6*time.Second {
		t.Errorf("total backoff %v", waited)
	}
	for i, r := range got() {
		if r.Header.Get("Webhook-Id") != "dlv-9" {
			t.Errorf("attempt %d: Webhook-Id %q", i+1, r.Header.Get("Webhook-Id"))
		}
		if err := independentVerify("k", r.Header, r.Body); err != nil {
			t.Errorf("attempt %d: %v", i+1, err)
		}
	}
}

// A receiver that keeps answering 500 is disabled by the rule after the
// limit; one that answers 410 is disabled at once.
func TestWebhookDisable(t *testing.T) {
	t.Parallel()
	srv, _ := receiver(t, 500)
	c := NewWebhookClient(WebhookOptions{AllowPrivate: true})
	failures := 0
	for !ShouldDisable(failures, 3) {
		if res := c.Deliver(context.Background(), srv.URL, []byte("k"), "d", []byte("{}")); res.Outcome != OutcomeRetry {
			t.Fatalf("500: %v", res.Outcome)
		}
		failures++
	}
	if failures != 3 {
		t.Errorf("disabled after %d failures, want 3", failures)
	}
	gone, _ := receiver(t, 410)
	if res := c.Deliver(context.Background(), gone.URL, []byte("k"), "d", []byte("{}")); res.Outcome != OutcomeDisable || res.Response != "thanks" {
		t.Errorf("410: %+v", res)
	}
}

func TestLoadWebhookOptions(t *testing.T) {
	t.Parallel()
	o, err := LoadWebhookOptions(mapEnv(nil))
	if err != nil || o.AllowPrivate || o.Timeout != 0 {
		t.Errorf("defaults = %+v, %v", o, err)
	}
	o, err = LoadWebhookOptions(mapEnv(map[string]string{EnvWebhookAllowPrivate: "true", EnvWebhookTimeout: "3s"}))
	if err != nil || !o.AllowPrivate || o.Timeout != 3*time.Second {
		t.Errorf("set = %+v, %v", o, err)
	}
	for _, env := range []map[string]string{
		{EnvWebhookAllowPrivate: "maybe"},
		{EnvWebhookTimeout: "10"},
		{EnvWebhookTimeout: "-1s"},
		{EnvWebhookTimeout: "1h"},
	} {
		if _, err := LoadWebhookOptions(mapEnv(env)); err == nil {
			t.Errorf("%v: no error", env)
		}
	}
}

package notifier

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// TestAttackWebhookTricklingReceiver: a receiver that answers its headers
// and then trickles its body a byte at a time, for ever. The attempt ends
// at the client's timeout, as one to retry.
func TestAttackWebhookTricklingReceiver(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		for r.Context().Err() == nil {
			w.Write([]byte("x"))
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond)
		}
	}))
	t.Cleanup(srv.Close)
	c := NewWebhookClient(WebhookOptions{AllowPrivate: true, Timeout: 300 * time.Millisecond})
	start := time.Now()
	res := c.Deliver(context.Background(), srv.URL, []byte("k"), "d", []byte("{}"))
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Deliver to a trickling receiver took %v", d)
	}
	if res.Outcome == OutcomeDisable {
		t.Fatalf("a slow receiver disabled the webhook: %+v", res)
	}
}

// TestAttackWebhookHugeResponse: a receiver answers 200 with 32 MB of
// invalid UTF-8. The attempt is delivered, the logged response is at most
// 1 KB of valid UTF-8, and not much more than 64 KB is read.
func TestAttackWebhookHugeResponse(t *testing.T) {
	t.Parallel()
	var written atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		chunk := []byte(strings.Repeat("\xff\xfe\xe2\x82", 16<<10))
		for range 512 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	c := NewWebhookClient(WebhookOptions{AllowPrivate: true, Timeout: 5 * time.Second})
	res := c.Deliver(context.Background(), srv.URL, []byte("k"), "d", []byte("{}"))
	if res.Outcome != OutcomeOK || res.Status != 200 {
		t.Fatalf("result %+v", res.Outcome)
	}
	if len(res.Response) > 1<<10+8 || !utf8.ValidString(res.Response) {
		t.Fatalf("logged response: %d bytes, valid %v", len(res.Response), utf8.ValidString(res.Response))
	}
	if n := written.Load(); n > 16<<20 {
		t.Fatalf("the client read %d bytes of the response", n)
	}
}

// TestAttackWebhookRedirectLoop: 307 to itself for ever, and a 308 chain
// one hop longer than allowed: both stop after MaxRedirects hops with an
// error to retry.
func TestAttackWebhookRedirectLoop(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, srv.URL+"/again", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	c := NewWebhookClient(WebhookOptions{AllowPrivate: true, MaxRedirects: 3})
	res := c.Deliver(context.Background(), srv.URL, []byte("k"), "d", []byte("{}"))
	if res.Err == nil || res.Outcome != OutcomeRetry {
		t.Fatalf("a redirect loop: %+v", res)
	}
	if n := hits.Load(); n != 4 {
		t.Fatalf("the loop was followed %d times, want 1 + 3 redirects", n)
	}
}

// TestAttackWebhookVerifyOddTimestamps: Verify refuses timestamps at the
// ends of int64 (no overflow lets them through), signs and padding that
// ParseInt accepts but the signer never writes, and a delivery replayed
// after the tolerance.
func TestAttackWebhookVerifyOddTimestamps(t *testing.T) {
	t.Parallel()
	secret, body := []byte("whsec_attack"), []byte(`{"id":"d1"}`)
	now := time.Unix(1_900_000_000, 0)
	h := func(ts string, sig string) http.Header {
		x := http.Header{}
		x.Set(HeaderWebhookTimestamp, ts)
		x.Set(HeaderWebhookSignature, sig)
		return x
	}
	for _, ts := range []int64{math.MaxInt64, math.MinInt64, math.MaxInt64 / 1_000_000_000, -1, 0, now.Unix() - 301, now.Unix() + 301} {
		if err := Verify(secret, h(strconv.FormatInt(ts, 10), Sign(secret, ts, body)), body, now, 0); !errors.Is(err, ErrWebhookTimestamp) {
			t.Errorf("timestamp %d: %v, want ErrWebhookTimestamp", ts, err)
		}
	}
	// A replay inside the window verifies: the receiver must drop a
	// Webhook-Id it has seen (documented); the id is in the signed body.
	good := Sign(secret, now.Unix(), body)
	if err := Verify(secret, h(strconv.FormatInt(now.Unix(), 10), good), []byte(`{"id":"d2"}`), now, 0); !errors.Is(err, ErrWebhookSignature) {
		t.Errorf("a signature moved to a body with another id: %v", err)
	}
	// Whatever spelling of the same number, the signature is over the
	// number as the signer wrote it: nothing new is accepted.
	for _, ts := range []string{"+" + strconv.FormatInt(now.Unix(), 10), "0" + strconv.FormatInt(now.Unix(), 10)} {
		forged := "v1=" + strings.TrimPrefix(Sign(secret, now.Unix()+1, body), "v1=")
		if err := Verify(secret, h(ts, forged), body, now, 0); err == nil {
			t.Errorf("timestamp %q with another second's signature verified", ts)
		}
	}
	if err := Verify(secret, h(strconv.FormatInt(now.Unix(), 10), strings.Repeat("v1=00 ", 10000)+good), body, now, 0); err != nil {
		t.Errorf("the good signature after many bad ones: %v", err)
	}
	if err := Verify(nil, h(strconv.FormatInt(now.Unix(), 10), good), body, now, 0); !errors.Is(err, ErrWebhookSignature) {
		t.Errorf("an empty secret verified the real signature: %v", err)
	}
}

// TestAttackWebhookTranslatedLoopback: IPv6 forms that a translator may
// turn into an internal IPv4 address, as the NAT64 prefix 64:ff9b::/96
// already is: the local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215), and
// the deprecated IPv4-compatible (::a.b.c.d) and IPv4-translated
// (::ffff:0:a.b.c.d, SIIT) forms. None is a public webhook's address; all
// are refused at registration and when dialing.
func TestAttackWebhookTranslatedLoopback(t *testing.T) {
	t.Parallel()
	for _, ip := range []string{"64:ff9b:1::7f00:1", "64:ff9b:1:7f00:1::", "64:ff9b:1:a9fe:a9:fe00::", "::7f00:1", "::a9fe:a9fe",
		"::ffff:0:7f00:1", "::ffff:0:a00:1"} {
		if !ForbiddenIP(netip.MustParseAddr(ip)) {
			t.Errorf("ForbiddenIP(%s) = false", ip)
		}
		if _, err := CheckWebhookURL(fmt.Sprintf("http://[%s]/hook", ip), false); !errors.Is(err, ErrForbiddenTarget) {
			t.Errorf("CheckWebhookURL(%s) = %v", ip, err)
		}
	}
	for _, ip := range []string{"64:ff9b::808:808", "::ffff:8.8.8.8", "2606:4700:4700::1111"} {
		if ForbiddenIP(netip.MustParseAddr(ip)) {
			t.Errorf("ForbiddenIP(%s) = true: a public address refused", ip)
		}
	}
}

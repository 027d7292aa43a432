// Package pushtest stands in for the two parties of a Web Push that the
// service does not run, for the tests of the push channel (the notifier's
// and the pages'): Service is a push service (RFC 8030) on 127.0.0.1 that
// keeps every push it gets, and Subscriber the browser that subscribed,
// with the subscription's private key and auth secret. A push is read as
// a browser reads it: its VAPID signature checked (RFC 8292, CheckVAPID)
// and its payload decrypted (RFC 8291 with the aes128gcm coding of
// RFC 8188, Decrypt), both written here from the RFCs, with the standard
// library and golang-jwt, not with the library that sends.
package pushtest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

var b64 = base64.RawURLEncoding

// Request is one push the service got.
type Request struct {
	Path   string
	Header http.Header
	Body   []byte
}

// Service is a local push service: it keeps every push and answers 201
// Created, or the statuses queued for a subscription's path, in turn.
type Service struct {
	URL    string // its origin, http://127.0.0.1:port: the aud of its VAPID tokens
	mu     sync.Mutex
	got    []Request
	answer map[string][]int
}

// NewService starts a push service until the test ends.
func NewService(t testing.TB) *Service {
	s := &Service{answer: map[string][]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.got = append(s.got, Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		status := http.StatusCreated
		if q := s.answer[r.URL.Path]; len(q) > 0 {
			status, s.answer[r.URL.Path] = q[0], q[1:]
		}
		s.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// AnswerWith queues statuses for the pushes to path.
func (s *Service) AnswerWith(path string, statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer[path] = append(s.answer[path], statuses...)
}

// Requests returns the pushes got so far, to path if not "".
func (s *Service) Requests(path string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.got {
		if path == "" || r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// Subscriber is a browser's subscription: its P-256 key pair and auth
// secret, and the endpoint its push service gave it.
type Subscriber struct {
	Key      *ecdh.PrivateKey
	Secret   []byte // the auth secret, 16 bytes
	Path     string // the endpoint's path at the service
	Endpoint string
}

// NewSubscriber makes a subscription of s with fresh keys, at path
// /push/name.
func NewSubscriber(t testing.TB, s *Service, name string) *Subscriber {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b := &Subscriber{Key: k, Secret: make([]byte, 16), Path: "/push/" + name}
	rand.Read(b.Secret)
	b.Endpoint = s.URL + b.Path
	return b
}

// P256dh is the subscription's public key as a browser gives it
// (base64url).
func (b *Subscriber) P256dh() string { return b64.EncodeToString(b.Key.PublicKey().Bytes()) }

// Auth is the auth secret as a browser gives it (base64url).
func (b *Subscriber) Auth() string { return b64.EncodeToString(b.Secret) }

// Decrypt decrypts a push's body as the browser does (RFC 8291 §3.4 and
// RFC 8188 §2): the header (salt, record size, the sender's one-time
// public key), the keys from ECDH and HKDF-SHA256 with the auth secret,
// then each record with AES-128-GCM, its padding and delimiter taken off.
func (b *Subscriber) Decrypt(body []byte) ([]byte, error) {
	if len(body) > 4096 {
		return nil, fmt.Errorf("%d bytes: a push service takes at most 4096 (RFC 8291 §4)", len(body))
	}
	if len(body) < 21 {
		return nil, errors.New("shorter than the aes128gcm header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idlen != 65 || len(body) < 21+idlen || rs < 18 {
		return nil, fmt.Errorf("header: key id of %d bytes (want 65, the sender's public key), record size %d", idlen, rs)
	}
	asPublic := body[21 : 21+idlen]
	as, err := ecdh.P256().NewPublicKey(asPublic)
	if err != nil {
		return nil, err
	}
	secret, err := b.Key.ECDH(as)
	if err != nil {
		return nil, err
	}
	prkKey, err := hkdf.Extract(sha256.New, secret, b.Secret)
	if err != nil {
		return nil, err
	}
	ikm, err := hkdf.Expand(sha256.New, prkKey, "WebPush: info\x00"+string(b.Key.PublicKey().Bytes())+string(asPublic), 32)
	if err != nil {
		return nil, err
	}
	prk, err := hkdf.Extract(sha256.New, ikm, salt)
	if err != nil {
		return nil, err
	}
	cek, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	var out []byte
	rest := body[21+idlen:]
	for seq := uint64(0); len(rest) > 0; seq++ {
		n := min(int(rs), len(rest))
		record := rest[:n]
		rest = rest[n:]
		iv := slices.Clone(nonce) // the nonce XOR the record's number (RFC 8188 §2.3)
		for i := range 8 {
			iv[11-i] ^= byte(seq >> (8 * i))
		}
		plain, err := gcm.Open(nil, iv, record, nil)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", seq, err)
		}
		end := len(plain) - 1
		for end >= 0 && plain[end] == 0 {
			end--
		}
		switch {
		case end < 0:
			return nil, fmt.Errorf("record %d has no delimiter", seq)
		case len(rest) == 0 && plain[end] != 2, len(rest) > 0 && plain[end] != 1:
			return nil, fmt.Errorf("record %d: delimiter %d", seq, plain[end])
		}
		out = append(out, plain[:end]...)
	}
	return out, nil
}

// CheckVAPID checks a push's headers as a push service does (RFC 8292
// §3): Authorization "vapid t=<JWT>, k=<public key>", k the sender's key
// publicKey, the JWT signed with it (ES256), for the service's origin,
// expiring within 24 hours, with the sender's contact subject; and the
// payload's coding (aes128gcm) and a TTL.
func CheckVAPID(r Request, origin, publicKey, subject string) error {
	auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "vapid ")
	if !ok {
		return fmt.Errorf("authorization %q: want the vapid scheme", r.Header.Get("Authorization"))
	}
	params := map[string]string{}
	for _, p := range strings.Split(auth, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		params[k] = v
	}
	if params["k"] != publicKey {
		return fmt.Errorf("k=%q, want the sender's public key %q", params["k"], publicKey)
	}
	raw, err := b64.DecodeString(params["k"])
	if err != nil {
		return err
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		return err
	}
	var claims jwt.RegisteredClaims
	_, err = jwt.ParseWithClaims(params["t"], &claims, func(*jwt.Token) (any, error) { return pub, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(origin), jwt.WithExpirationRequired())
	if err != nil {
		return fmt.Errorf("VAPID JWT: %w", err)
	}
	if left := time.Until(claims.ExpiresAt.Time); left <= 0 || left > 24*time.Hour {
		return fmt.Errorf("the VAPID JWT expires in %s: want at most 24 hours", left)
	}
	if claims.Subject != subject {
		return fmt.Errorf("VAPID sub %q, want %q", claims.Subject, subject)
	}
	if r.Header.Get("Content-Encoding") != "aes128gcm" || r.Header.Get("TTL") == "" {
		return fmt.Errorf("content-Encoding %q, TTL %q", r.Header.Get("Content-Encoding"), r.Header.Get("TTL"))
	}
	return nil
}

package mac

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"testing"
)

// TestSum: the tag is HMAC-SHA256 of the label, a zero byte and the
// parts (the bytes the records and buckets stored before it was shared),
// and another label or parts give another tag.
func TestSum(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	h := hmac.New(sha256.New, secret)
	h.Write([]byte("rate limit\x00login\x00ana"))
	if got := Sum(secret, "rate limit", []byte("login"), []byte{0}, []byte("ana")); !bytes.Equal(got, h.Sum(nil)) {
		t.Fatal("Sum is not HMAC-SHA256 of label, 0 and parts")
	}
	if bytes.Equal(Sum(secret, "a", []byte("b")), Sum(secret, "ab")) {
		t.Fatal("a label and its parts run together")
	}
	a := AEAD(secret, "seal", []byte("request"))
	sealed := a.Seal(nil, make([]byte, 12), []byte("answer"), nil)
	if _, err := AEAD(secret, "seal", []byte("other request")).Open(nil, make([]byte, 12), sealed, nil); err == nil {
		t.Fatal("another request opens the seal")
	}
	if got, err := AEAD(secret, "seal", []byte("request")).Open(nil, make([]byte, 12), sealed, nil); err != nil || string(got) != "answer" {
		t.Fatalf("the same request: %q %v", got, err)
	}
}

// Package mac derives tags and keys from the server's secret for one use
// each: HMAC-SHA256 of a label naming the use and the parts it covers, so
// that one secret serves many uses and no use's tag stands for another's.
// The API's idempotency records, the accounts' and the email replies'
// rate-limit buckets and the pages' form records take theirs here.
package mac

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
)

// Sum is the HMAC-SHA256 under secret of label, a zero byte, then parts
// one after another (32 bytes).
func Sum(secret []byte, label string, parts ...[]byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(label))
	h.Write([]byte{0})
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// AEAD is AES-256-GCM under the key Sum(secret, label, parts...): what
// seals a record that only the same label and parts open again.
func AEAD(secret []byte, label string, parts ...[]byte) cipher.AEAD {
	block, err := aes.NewCipher(Sum(secret, label, parts...))
	if err != nil {
		panic(err) // a 32-byte key is always taken
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err) // AES's 16-byte blocks are always taken
	}
	return aead
}

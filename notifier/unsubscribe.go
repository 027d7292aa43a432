package notifier

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
)

// UnsubscribePath is the route the one-click unsubscribe URL points to
// (RFC 8058: the mailbox provider POSTs "List-Unsubscribe=One-Click" to
// it; a person following the link GETs it). The API serves it.
const UnsubscribePath = "/v1/unsubscribe"

// ErrBadUnsubscribeToken is returned by VerifyUnsubscribeToken for a token
// that was not made with the secret or is malformed.
var ErrBadUnsubscribeToken = errors.New("notifier: invalid unsubscribe token")

var b64 = base64.RawURLEncoding

// UnsubscribeToken returns a token that proves "userID asked to stop the
// emails of scope" (a Kind, or "all"), without storing anything: the user
// id and scope followed by a truncated HMAC-SHA256 under secret, in
// URL-safe base64. Tokens do not expire, as unsubscribe links in old mail
// must keep working; rotating the secret voids them all.
func UnsubscribeToken(secret []byte, userID, scope string) string {
	payload := b64.EncodeToString([]byte(userID)) + "." + b64.EncodeToString([]byte(scope))
	return payload + "." + b64.EncodeToString(unsubscribeMAC(secret, payload))
}

func unsubscribeMAC(secret []byte, payload string) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("dm-unsubscribe-v1." + payload))
	return mac.Sum(nil)[:16]
}

// VerifyUnsubscribeToken checks token and returns the user id and scope it
// was made for.
func VerifyUnsubscribeToken(secret []byte, token string) (userID, scope string, err error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || len(token) > 512 {
		return "", "", ErrBadUnsubscribeToken
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || !hmac.Equal(sig, unsubscribeMAC(secret, parts[0]+"."+parts[1])) {
		return "", "", ErrBadUnsubscribeToken
	}
	u, err1 := b64.DecodeString(parts[0])
	s, err2 := b64.DecodeString(parts[1])
	if err1 != nil || err2 != nil || len(u) == 0 {
		return "", "", ErrBadUnsubscribeToken
	}
	return string(u), string(s), nil
}

// UnsubscribeURL returns baseURL + UnsubscribePath + "?token=" + token,
// the value for Message.UnsubscribeURL and Common.UnsubscribeURL.
func UnsubscribeURL(baseURL, token string) string {
	return strings.TrimRight(baseURL, "/") + UnsubscribePath + "?token=" + url.QueryEscape(token)
}

package notifier

import (
	"errors"
	"strings"
	"testing"
)

func TestUnsubscribeToken(t *testing.T) {
	t.Parallel()
	secret := []byte("unsubscribe secret")
	tok := UnsubscribeToken(secret, "42", string(KindYourTurn))
	u, s, err := VerifyUnsubscribeToken(secret, tok)
	if err != nil || u != "42" || s != "your_turn" {
		t.Fatalf("Verify = %q, %q, %v", u, s, err)
	}
	if strings.ContainsAny(tok, "+/=?&# ") {
		t.Errorf("token %q is not URL-safe", tok)
	}
	other := UnsubscribeToken(secret, "43", "all")
	parts, oparts := strings.Split(tok, "."), strings.Split(other, ".")
	for name, bad := range map[string]string{
		"other secret":   UnsubscribeToken([]byte("x"), "42", "your_turn"),
		"swapped user":   oparts[0] + "." + parts[1] + "." + parts[2],
		"swapped scope":  parts[0] + "." + oparts[1] + "." + parts[2],
		"truncated mac":  tok[:len(tok)-2],
		"two parts":      parts[0] + "." + parts[1],
		"empty":          "",
		"not base64 mac": parts[0] + "." + parts[1] + ".!!!",
		"empty user":     UnsubscribeToken(secret, "", "all"),
		"long":           strings.Repeat("a", 600),
	} {
		if _, _, err := VerifyUnsubscribeToken(secret, bad); !errors.Is(err, ErrBadUnsubscribeToken) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if got := UnsubscribeURL("https://dm.example/", "a.b.c"); got != "https://dm.example/v1/unsubscribe?token=a.b.c" {
		t.Errorf("UnsubscribeURL = %q", got)
	}
}

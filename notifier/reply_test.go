package notifier

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"
)

// TestParseReplyAddress: an address made by Address reads back whole and
// valid; a cut, a number too large, a number missing or bytes left over
// give ErrBadReply, never a panic or a wrong reply.
func TestParseReplyAddress(t *testing.T) {
	secret := []byte("reply secret")
	r := Reply{GameID: 42, Seat: 2, UserID: 7, Version: 19, Expires: time.Unix(1_800_000_000, 0).UTC()}
	addr := r.Address(secret, "dm.example")
	got, err := ParseReplyAddress("<" + addr + ">")
	if err != nil || !got.Valid(secret) || got.GameID != 42 || got.Seat != 2 || got.UserID != 7 || got.Version != 19 ||
		!got.Expires.Equal(r.Expires) {
		t.Fatalf("%q: %+v, %v", addr, got, err)
	}
	// A token of the payload p with some MAC, as an address.
	tokenOf := func(p []byte) string {
		return ReplyPrefix + b32.EncodeToString(append(p, make([]byte, replyMACLen)...)) + "@dm.example"
	}
	huge := []byte{1}
	huge = binary.AppendUvarint(huge, 1<<62+1) // a game id over 2^62
	for _, n := range []uint64{1, 1, 1, 1} {
		huge = binary.AppendUvarint(huge, n)
	}
	short := binary.AppendUvarint([]byte{1}, 42) // one number of five
	extra := append(r.payload(), 9)              // a number too many
	bad := []string{"", "play-@dm.example", addr[:len(ReplyPrefix)+10] + "@dm.example", tokenOf(huge), tokenOf(short),
		tokenOf(extra), "someone@dm.example"}
	for _, b := range bad {
		if got, err := ParseReplyAddress(b); !errors.Is(err, ErrBadReply) {
			t.Errorf("%q: %+v, %v", b, got, err)
		}
	}
}

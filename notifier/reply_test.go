package notifier

import (
	"encoding/binary"
	"errors"
	"strings"
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
	// Format 2 carries the digest of the email's lines: it round-trips,
	// and is signed with the rest.
	d := r
	d.Lines = 0xdeadbeef
	da := d.Address(secret, "dm.example")
	if got, err := ParseReplyAddress(da); err != nil || !got.Valid(secret) || got.GameID != 42 || got.Seat != 2 || got.UserID != 7 ||
		got.Version != 19 || !got.Expires.Equal(r.Expires) || got.Lines != 0xdeadbeef {
		t.Fatalf("%q: %+v, %v", da, got, err)
	}
	if local := strings.Split(da, "@")[0]; len(local) > 64 {
		t.Fatalf("the local part %q has %d octets, over 64", local, len(local))
	}
	moved := d
	moved.Lines = 0xdeadbeee
	swapped := ReplyPrefix + b32.EncodeToString(append(moved.payload(), replyMAC(secret, d.payload())...)) + "@dm.example"
	if got, err := ParseReplyAddress(swapped); err != nil || got.Valid(secret) {
		t.Fatalf("another digest under the MAC of the first: %+v, %v", got, err)
	}
	withoutDigest := d.payload()
	withoutDigest = withoutDigest[:len(withoutDigest)-4] // format 2 with no digest
	zero := append(d.payload()[:len(d.payload())-4:len(d.payload())-4], 0, 0, 0, 0)
	bad := []string{"", "play-@dm.example", addr[:len(ReplyPrefix)+10] + "@dm.example", tokenOf(huge), tokenOf(short),
		tokenOf(extra), "someone@dm.example", tokenOf(withoutDigest), tokenOf(zero), tokenOf(append(d.payload(), 1))}
	for _, b := range bad {
		if got, err := ParseReplyAddress(b); !errors.Is(err, ErrBadReply) {
			t.Errorf("%q: %+v, %v", b, got, err)
		}
	}
}

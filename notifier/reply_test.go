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
	// Format 4, a message's own address, carries the seat its reply goes
	// to (-1: the table), signed with the rest.
	for _, to := range []int{-1, 0, 3} {
		tk := Reply{GameID: 42, Seat: 2, UserID: 7, Version: 19, Expires: r.Expires, General: true, Talk: true, To: to}
		ta := tk.Address(secret, "dm.example")
		got, err := ParseReplyAddress(ta)
		if err != nil || !got.Valid(secret) || !got.Talk || !got.General || got.To != to || got.GameID != 42 || got.Lines != 0 {
			t.Fatalf("talk to %d, %q: %+v, %v", to, ta, got, err)
		}
		if local := strings.Split(ta, "@")[0]; len(local) > 64 {
			t.Fatalf("the local part %q has %d octets, over 64", local, len(local))
		}
		other := tk
		other.To = to + 1 // another seat under the first's MAC
		forged := ReplyPrefix + b32.EncodeToString(append(other.payload(), replyMAC(secret, tk.payload())...)) + "@dm.example"
		if got, err := ParseReplyAddress(forged); err != nil || got.Valid(secret) {
			t.Fatalf("another seat under the MAC of the first: %+v, %v", got, err)
		}
	}
	talkless := Reply{GameID: 42, Seat: 2, UserID: 7, Version: 19, Expires: r.Expires, Talk: true}.payload()
	talkless = talkless[:len(talkless)-1] // format 4 without its seat
	farSeat := append(Reply{GameID: 42, Seat: 2, UserID: 7, Version: 19, Expires: r.Expires, Talk: true, To: -1}.payload()[:len(talkless)], 66)
	withoutDigest := d.payload()
	withoutDigest = withoutDigest[:len(withoutDigest)-4] // format 2 with no digest
	zero := append(d.payload()[:len(d.payload())-4:len(d.payload())-4], 0, 0, 0, 0)
	bad := []string{"", "play-@dm.example", addr[:len(ReplyPrefix)+10] + "@dm.example", tokenOf(huge), tokenOf(short),
		tokenOf(extra), "someone@dm.example", tokenOf(withoutDigest), tokenOf(zero), tokenOf(append(d.payload(), 1)), tokenOf(talkless), tokenOf(farSeat)}
	for _, b := range bad {
		if got, err := ParseReplyAddress(b); !errors.Is(err, ErrBadReply) {
			t.Errorf("%q: %+v, %v", b, got, err)
		}
	}
}

// TestReplyAddressOneSpelling: a reply address has one spelling (but for
// case): the last character's unused bits must be zero, so that two
// addresses never play the same move. Every other last character is
// refused, as malformed or as a signature that does not match.
func TestReplyAddressOneSpelling(t *testing.T) {
	secret := []byte("reply secret")
	for _, r := range []Reply{
		{GameID: 42, Seat: 1, UserID: 7, Version: 19, Expires: time.Unix(1_800_000_000, 0).UTC(), Lines: 0xdeadbeef},
		{GameID: 3, Seat: 0, UserID: 5, Version: 2, Expires: time.Unix(1_800_000_000, 0).UTC()},
		{GameID: 900, Seat: 3, UserID: 12345, Version: 4000, Expires: time.Unix(1_900_000_000, 0).UTC(), Lines: 1},
	} {
		tok := r.Token(secret)
		if got, err := ParseReplyAddress(ReplyPrefix + strings.ToUpper(tok) + "@dm.example"); err != nil || !got.Valid(secret) {
			t.Fatalf("upper case %q: %v", tok, err)
		}
		last := strings.IndexByte(b32alphabet, tok[len(tok)-1])
		others := 0
		for i := range len(b32alphabet) {
			if i == last {
				continue
			}
			alt := tok[:len(tok)-1] + b32alphabet[i:i+1]
			got, err := ParseReplyAddress(ReplyPrefix + alt + "@dm.example")
			if err == nil && got.Valid(secret) {
				t.Errorf("%q (the address %q with its last character changed) is taken as %+v", alt, tok, got)
			}
			others++
		}
		if others != 31 {
			t.Fatalf("%d other last characters", others)
		}
	}
}

package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
)

// Secret is 32 bytes: a game's random secret, or the salt of its
// commitment. It is written as 64 lowercase hex digits. The zero Secret
// means none.
type Secret [32]byte

// IsZero reports whether s is the zero Secret (none).
func (s Secret) IsZero() bool { return s == Secret{} }

// String is s in hex.
func (s Secret) String() string { return hex.EncodeToString(s[:]) }

// MarshalText writes s in hex.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads 64 hex digits.
func (s *Secret) UnmarshalText(b []byte) error {
	v, err := ParseSecret(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ErrSecret means a secret or salt is not 64 hex digits.
var ErrSecret = errors.New("a secret is 64 hex digits")

// ParseSecret reads a Secret written in hex (either case).
func ParseSecret(text string) (Secret, error) {
	var s Secret
	if len(text) != 2*len(s) {
		return s, fmt.Errorf("%w, not %d characters", ErrSecret, len(text))
	}
	if _, err := hex.Decode(s[:], []byte(text)); err != nil {
		return Secret{}, fmt.Errorf("%w: %w", ErrSecret, err)
	}
	return s, nil
}

// SeedSecret is the secret of a game set up with only a 64-bit seed
// (Setup.Secret zero): SHA-256 of "datamonsters seed " and the seed as 8
// little-endian bytes. It is for tests, simulations and scenarios, whose
// games must repeat from a short number; it has only 64 bits of entropy, so
// a served game draws its Secret from a cryptographic source instead.
func SeedSecret(seed uint64) Secret {
	var b [len(seedLabel) + 8]byte
	copy(b[:], seedLabel)
	binary.LittleEndian.PutUint64(b[len(seedLabel):], seed)
	return sha256.Sum256(b[:])
}

const seedLabel = "datamonsters seed "

// Commitment is the commitment to secret that a game publishes while it
// runs: SHA-256 of the 32 bytes of salt followed by the 32 bytes of
// secret, in hex. Once the secret and salt are revealed, anyone can check
// them against it (docs/fairness.md).
func Commitment(secret, salt Secret) string {
	var b [64]byte
	copy(b[:32], salt[:])
	copy(b[32:], secret[:])
	sum := sha256.Sum256(b[:])
	return hex.EncodeToString(sum[:])
}

// Commitment returns the commitment to the game's secret (the package
// function Commitment of its Secret and Salt), or "" for a game that did
// not have its secret from the start (stored before secrets), whose
// randomness cannot be checked.
func (s *State) Commitment() string {
	if s.Secret.IsZero() || s.Resealed > 0 {
		return ""
	}
	return Commitment(s.Secret, s.Salt)
}

// Reveal returns the game's secret and salt once the game is over, when
// they may be published, and false while it runs or for a game without a
// commitment (see Commitment).
func (s *State) Reveal() (secret, salt Secret, ok bool) {
	if !s.Over() || s.Commitment() == "" {
		return Secret{}, Secret{}, false
	}
	return s.Secret, s.Salt, true
}

// The labels of the random streams (see streamKey).
const (
	labelShuffle       = "shuffle"
	labelID            = "id"
	labelResealShuffle = "reseal shuffle"
	labelResealID      = "reseal id"
)

// streamKey is the ChaCha8 key of one random stream of one action:
// SHA-256 of the 32-byte secret, the stream's label in ASCII, and the
// state's version before the action (0 for the setup) as 8 little-endian
// bytes. Every action thus has its own two streams, independent of how
// much earlier actions drew, and the id stream is unrelated to the
// shuffle stream: ids, which players see, say nothing of the shuffles.
func streamKey(secret *Secret, label string, version int) [32]byte {
	var b [32 + len(labelResealShuffle) + 8]byte
	n := copy(b[:], secret[:])
	n += copy(b[n:], label)
	binary.LittleEndian.PutUint64(b[n:], uint64(version))
	return sha256.Sum256(b[:n+8])
}

// sources are the random sources of one action, keyed when first used:
// shuffles and other random choices draw from one ChaCha8 stream, instance
// ids from another. A game stored before secrets draws both from one PCG
// stream seeded by its Seed and version, as it always did. They are kept
// from one action to the next only to spare allocations.
type sources struct {
	version int  // the State.Version the streams are keyed for
	reseal  bool // keyed for Reseal rather than an action
	deal    bool // whether dealSrc (or legacy) is keyed
	id      bool // whether idSrc (or legacy) is keyed

	dealSrc  rand.ChaCha8
	dealRand *rand.Rand // over dealSrc
	idSrc    rand.ChaCha8

	legacy     rand.PCG
	legacyRand *rand.Rand // over legacy
}

// sources returns the state's random sources, reset for the action in
// progress: keying them again is due when the version has moved on.
func (s *State) sources() *sources {
	r := s.rnd
	if r == nil {
		r = &sources{version: -1}
		r.dealRand, r.legacyRand = rand.New(&r.dealSrc), rand.New(&r.legacy)
		s.rnd = r
	}
	if r.version != s.Version || r.reseal != s.resealing() {
		r.version, r.reseal, r.deal, r.id = s.Version, s.resealing(), false, false
	}
	return r
}

// resealing reports whether Reseal is running: the version at which it
// gives the game its secret has no action of its own yet.
func (s *State) resealing() bool { return s.Resealed < 0 }

// random returns the action's source of shuffles and random choices.
func (s *State) random() *rand.Rand {
	r := s.sources()
	if s.Secret.IsZero() {
		return r.keyLegacy(s)
	}
	r.key(&r.dealSrc, &r.deal, s, labelShuffle, labelResealShuffle)
	return r.dealRand
}

// ids returns the action's source of instance ids: each id spells one
// Uint64 of it (appendID).
func (s *State) ids() rand.Source {
	r := s.sources()
	if s.Secret.IsZero() {
		return r.keyLegacy(s)
	}
	r.key(&r.idSrc, &r.id, s, labelID, labelResealID)
	return &r.idSrc
}

// key seeds src with the stream of label (resealLabel while Reseal runs)
// for the action in progress, unless keyed says it is done.
func (r *sources) key(src *rand.ChaCha8, keyed *bool, s *State, label, resealLabel string) {
	if *keyed {
		return
	}
	if r.reseal {
		label = resealLabel
	}
	src.Seed(streamKey(&s.Secret, label, s.Version))
	*keyed = true
}

// keyLegacy seeds the one PCG stream of a game stored before secrets, as
// the engine did before them.
func (r *sources) keyLegacy(s *State) *rand.Rand {
	if !r.deal {
		r.legacy.Seed(s.Seed, uint64(s.Version)*0x9e3779b97f4a7c15+1)
		r.deal, r.id = true, true
	}
	return r.legacyRand
}

// NeedsSecret reports whether s is a game stored before secrets, still
// drawing from a stream that its public ids give away: the service gives
// it a secret with Reseal before its next change.
func NeedsSecret(s *State) bool { return s.Secret.IsZero() }

// Reseal gives a game stored before secrets (NeedsSecret) the secret it
// lacks, and returns the public event saying what changed; a game that has
// a secret is left as it is (no events). From then on the game draws from
// streams keyed by secret, like any other.
//
// The 64-bit seed of such a game can be computed from a few public ids, and
// with it every order the seed decided. So Reseal reshuffles, with fresh
// ids, the hidden piles whose order came from the seed: each Laboratory
// Deck (the shared one in the office variant) and the Challenge Deck. Cards
// known to lie at the bottom of a pile (put there by an effect) lose that
// place. Hands, Recycle Bins and everything in play stay as they are, ids
// included, so that prompts and queued actions still name their cards:
// what the seed gave away up to now stays known (which cards each hand and
// Recycle Bin holds); what is drawn, shuffled or chosen at random from now
// on is not. The game has no commitment (Commitment is ""): its shuffles
// cannot be checked after the end.
func Reseal(s *State, secret Secret) []Event {
	if !NeedsSecret(s) || secret.IsZero() {
		return nil
	}
	s.Secret, s.Seed, s.Resealed = secret, 0, -1
	var n int
	if s.Office {
		s.shuffle(s.SharedDeck)
		n += len(s.SharedDeck)
	}
	for i := range s.Players {
		s.shuffle(s.Players[i].Deck)
		n += len(s.Players[i].Deck)
	}
	s.shuffle(s.ChallengeDeck)
	s.Resealed = max(s.Version, 1)
	return []Event{{Kind: KindResealed, Seat: -1, N: n + len(s.ChallengeDeck),
		Text: "The game gets a new random source: the Laboratory Decks and the Challenge Deck are reshuffled."}}
}

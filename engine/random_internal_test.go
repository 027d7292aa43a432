package engine

import (
	"fmt"
	"math"
	"testing"
)

// vectorSecret returns the secret and salt of the example of
// docs/fairness.md: the bytes 0 to 31, and 32 to 63.
func vectorSecret() (secret, salt Secret) {
	for i := range secret {
		secret[i], salt[i] = byte(i), byte(32+i)
	}
	return secret, salt
}

// TestStreamVectors pins the algorithm docs/fairness.md describes, with its
// example values, so that an independent checker can test itself on them.
func TestStreamVectors(t *testing.T) {
	secret, salt := vectorSecret()
	s := &State{Secret: secret, Salt: salt, Version: 7}
	var deal, ids []uint64
	for range 3 {
		deal = append(deal, s.random().Uint64())
		ids = append(ids, s.ids().Uint64())
	}
	check := func(what string, got, want any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v, docs/fairness.md says %v", what, got, want)
		}
	}
	check("commitment", Commitment(secret, salt), "84e4bd6ca2af96412fdc62fe44d4e9709cdc31933081a62486a48a154b582d53")
	check("shuffle key of version 7", Secret(streamKey(&secret, labelShuffle, 7)), "b6c915e11be4c56c3d7c82e03c86769e2f67a1c558db3d0005d960b8c14ecb5d")
	check("id key of version 7", Secret(streamKey(&secret, labelID, 7)), "7a706ff02fe36f1254933cc6f0425dfe9dcae2374ac33115658ce245b09f2ee2")
	check("shuffle stream of version 7", deal, []uint64{6485177199783152465, 16030320413108445575, 6501830677695627446})
	check("id stream of version 7", ids, []uint64{15319340698822045472, 13124674188990943958, 9034055503619075403})
	check("first id of version 7", string(appendID(nil, ids[0])), "0svh71d6v9")
	for range 997 {
		ids = append(ids, s.ids().Uint64())
	}
	check("id 1000 of version 7 (after the generator rekeyed itself)", ids[999], uint64(14624410038975835775))
	fresh := &State{Secret: secret, Version: 7}
	check("Perm(10) from the shuffle stream of version 7", fresh.random().Perm(10), []int{1, 2, 4, 8, 0, 5, 9, 6, 7, 3})
	// The setup example: two seats with the prebuilt decks, standard mode.
	a, _ := Standard().Deck("running-a-startup")
	b, _ := Standard().Deck("working-for-the-enterprise")
	g, _, err := NewGame(Setup{Secret: secret, Salt: salt, Players: []SeatSetup{{Name: "Ana", Deck: a}, {Name: "Ben", Deck: b}}})
	if err != nil {
		t.Fatal(err)
	}
	check("first player of the example setup", g.Active, 1)
	check("Market of the example setup", g.Market, "[{5eqx62assd spam-filter} {90qa5ynmhs climate-model} {1ttk2ggp17 landing-page}]")
	check("top of seat 0's Laboratory Deck", g.Players[0].Deck[:3], "[{1ap5kdvy6q full-stack-app} {0gq4mbfqb0 doodle-chief} {9w2hynn4wa rust-rewrite}]")
	check("top of the Challenge Deck", g.ChallengeDeck[:3], "[{chq1v8y6jy voice-assistant} {41xq0zcwrt recommendation-engine} {n0sr2setg2 online-store}]")
	check("seed secret of seed 1", SeedSecret(1), "81dbae00e0b1af9dfc3fa58de3cfc40a663777e7576d6e14f6556a93d910a797")
}

// TestIDStreamUnrelatedToShuffleStream compares the two streams of 2,000
// versions of one secret, output by output: 10^5 pairs, whose xor has
// every bit balanced within 8 standard deviations, and no output in both.
func TestIDStreamUnrelatedToShuffleStream(t *testing.T) {
	secret, _ := vectorSecret()
	s := &State{Secret: secret}
	const versions, per = 2000, 50
	var ones [64]int
	seen := map[uint64]bool{}
	for v := range versions {
		s.Version = v
		for range per {
			a, b := s.random().Uint64(), s.ids().Uint64()
			if seen[a] || seen[b] || a == b {
				t.Fatalf("version %d: an output repeats", v)
			}
			seen[a], seen[b] = true, true
			for k := range 64 {
				ones[k] += int((a ^ b) >> k & 1)
			}
		}
	}
	n := float64(versions * per)
	for k, c := range ones {
		if math.Abs(float64(c)-n/2) > 8*math.Sqrt(n)/2 {
			t.Fatalf("bit %d of the xor is set in %d of %v pairs", k, c, n)
		}
	}
}

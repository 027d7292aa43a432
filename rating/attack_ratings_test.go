package rating

import (
	"math"
	"testing"
	"time"
)

// sane reports whether r is a rating the store can keep and the pages can
// show: finite, with an RD above zero and at most the initial one, and a
// volatility above zero.
func sane(r Rating) bool {
	return !math.IsNaN(r.Rating) && !math.IsInf(r.Rating, 0) && r.Deviation > 0 && r.Deviation <= Default.Initial.Deviation &&
		!math.IsNaN(r.Volatility) && !math.IsInf(r.Volatility, 0) && r.Volatility > 0
}

// TestAttackRatingsNumericEdges feeds Table the extremes a long life of
// ratings can reach: ratings thousands of points apart, deviations from a
// near-certain one to a newcomer's, volatilities from tiny to huge, in
// games of two and four with every kind of result. What must hold: every
// rating that comes out is sane (no NaN, no infinity, 0 < RD ≤ 350,
// σ > 0); a player who beats everyone never loses points and one who
// loses to everyone never gains any.
func TestAttackRatingsNumericEdges(t *testing.T) {
	ratings := []float64{-1000, 0, 800, 1500, 2500, 4000}
	deviations := []float64{1e-6, 1, 30, 110, 349.9, 350}
	volatilities := []float64{1e-6, 0.01, 0.06, 0.5, 3}
	bad := 0
	for _, r1 := range ratings {
		for _, r2 := range ratings {
			for _, d1 := range deviations {
				for _, d2 := range deviations {
					for _, v := range volatilities {
						players := []Rating{{r1, d1, v}, {r2, d2, 0.06}, {r1, d2, 0.06}, {r2, d1, v}}
						for _, ranks := range [][]int{{0, 1}, {1, 0}, {0, 0}, {0, 1, 2, 3}, {3, 2, 1, 0}, {0, 0, 3, 3}, {1, 1, 1, 1}} {
							in := players[:len(ranks)]
							out := Default.Table(in, ranks)
							for i, o := range out {
								best, worst := true, true
								for j := range ranks {
									if j != i {
										best = best && ranks[i] < ranks[j]
										worst = worst && ranks[i] > ranks[j]
									}
								}
								if !sane(o) || best && o.Rating < in[i].Rating || worst && o.Rating > in[i].Rating {
									if bad++; bad <= 10 {
										t.Errorf("players %+v, places %v: seat %d becomes %+v", in, ranks, i, o)
									}
								}
							}
						}
					}
				}
			}
		}
	}
	if bad > 10 {
		t.Errorf("%d bad ratings in all", bad)
	}
}

// TestAttackRatingsFarming: one player beats a newcomer (a throwaway
// account) game after game, and a throwaway account loses to a settled
// player game after game, twenty thousand times. What must hold: the
// ratings stay sane; each win gains less than the one before it (farming
// has diminishing returns) and the farmer's rating stays within a few
// thousand points; the loser's falls ever more slowly.
func TestAttackRatingsFarming(t *testing.T) {
	farmer, victim := Default.Initial, Default.Initial
	settled := Rating{Rating: 1500, Deviation: 50, Volatility: 0.06}
	lastGain, lastLoss := math.Inf(1), math.Inf(1)
	for i := range 20000 {
		next := Default.Table([]Rating{farmer, Default.Initial}, []int{0, 1})[0]
		lost := Default.Table([]Rating{victim, settled}, []int{1, 0})[0]
		if !sane(next) || !sane(lost) {
			t.Fatalf("game %d: farmer %+v, victim %+v", i, next, lost)
		}
		gain, loss := next.Rating-farmer.Rating, victim.Rating-lost.Rating
		if gain < 0 || loss < 0 {
			t.Fatalf("game %d: a win lost %v points, or a loss gained %v", i, -gain, -loss)
		}
		// Past the first games (whose RD falls), each gain is smaller.
		if i > 50 && (gain > lastGain+1e-9 || loss > lastLoss+1e-9) {
			t.Fatalf("game %d: gain %v after %v, loss %v after %v", i, gain, lastGain, loss, lastLoss)
		}
		farmer, victim, lastGain, lastLoss = next, lost, gain, loss
	}
	if farmer.Rating > 1500+4000 || victim.Rating < 1500-4000 {
		t.Errorf("after 20000 games: farmer %+v, victim %+v", farmer, victim)
	}
}

// TestAttackRatingsIdleExtremes: a player back after the longest absence
// there can be, or whose last game is dated after now (a clock that went
// back). What must hold: the RD grows to the initial one and no further,
// the periods are never negative, and nothing overflows.
func TestAttackRatingsIdleExtremes(t *testing.T) {
	r := Rating{Rating: 1732, Deviation: 40, Volatility: 0.06}
	for _, n := range []int{-1, 0, 1, 1 << 20, math.MaxInt32, math.MaxInt} {
		got := Default.Idle(r, n)
		if !sane(got) || got.Rating != r.Rating || got.Volatility != r.Volatility || got.Deviation < r.Deviation {
			t.Errorf("Idle(%d) = %+v", n, got)
		}
		if n > 1<<19 && got.Deviation != Default.Initial.Deviation {
			t.Errorf("Idle(%d): RD %v, want %v", n, got.Deviation, Default.Initial.Deviation)
		}
	}
	now := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	for _, last := range []time.Time{{}, now.Add(time.Hour), now, time.Unix(0, 0), time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC),
		time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if n := IdlePeriods(last, now); n < 0 {
			t.Errorf("IdlePeriods(%v, now) = %d", last, n)
		}
	}
	if n := IdlePeriods(time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)); n < 0 {
		t.Errorf("IdlePeriods over ten thousand years = %d", n)
	}
}

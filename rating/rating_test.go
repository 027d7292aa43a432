package rating

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// The worked example of Glickman's "Example of the Glicko-2 system"
// (2013): a player rated 1500, RD 200, σ 0.06, with τ = 0.5, beats a
// player rated 1400 (RD 30) and loses to players rated 1550 (RD 100) and
// 1700 (RD 300) in one rating period.
var (
	example        = Rating{Rating: 1500, Deviation: 200, Volatility: 0.06}
	exampleResults = []Result{
		{Opponent: Rating{Rating: 1400, Deviation: 30, Volatility: 0.06}, Score: Win},
		{Opponent: Rating{Rating: 1550, Deviation: 100, Volatility: 0.06}, Score: Loss},
		{Opponent: Rating{Rating: 1700, Deviation: 300, Volatility: 0.06}, Score: Loss},
	}
)

// near fails unless got is want to within tol.
func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, the paper says %v (±%v)", what, got, want, tol)
	}
}

// TestGlickmanExample follows the paper's example step by step. The paper
// rounds as it goes, so each step is computed from the figures the paper
// printed for the steps before it, and checked against the figure it
// prints, to half a unit of its last digit (a unit where the paper cut a
// figure short rather than rounding it: g(φ2) = 0.953156 and σ' = 0.059996
// are printed 0.9531 and 0.05999). Step 7's μ' takes the sum of step 4 at
// full precision, as the paper did (with its rounded figures the sum gives
// −0.2067). Then the whole update, at full
// precision, is checked against the paper's result: it differs from it by
// the rounding the paper carried along (at full precision v is 1.77898,
// not 1.7785, and r' 1464.05), well within 0.02.
func TestGlickmanExample(t *testing.T) {
	paperE := []float64{0.639, 0.432, 0.303}
	paperG := []float64{0.9955, 0.9531, 0.7242}
	scores := []float64{Win, Loss, Loss}
	sigma, _ := Default.volatility(0.06, 1.1513, 1.7785, -0.4834)
	phi, _ := after(0, 1.152862, 1.7785, -0.4834)
	out, full := Default.update(example, exampleResults)
	rows := []struct {
		what      string
		got, want float64
		tol       float64
	}{
		{"step 2: μ of 1500", (1500 - 1500) / scale, 0, 0.00005},
		{"step 2: φ of RD 200", 200 / scale, 1.1513, 0.00005},
		{"step 2: μ1 of 1400", (1400 - 1500) / scale, -0.5756, 0.00005},
		{"step 2: φ1 of RD 30", 30 / scale, 0.1727, 0.00005},
		{"step 2: μ3 of 1700", (1700 - 1500) / scale, 1.1513, 0.00005},
		{"step 2: φ3 of RD 300", 300 / scale, 1.7269, 0.00005},
		{"step 3: g(φ1)", gOf(0.1727), 0.9955, 0.00005},
		{"step 3: g(φ2)", gOf(0.5756), 0.9531, 0.0001},
		{"step 3: g(φ3)", gOf(1.7269), 0.7242, 0.00005},
		{"step 3: E(μ, μ1, φ1)", expected(0, -0.5756, 0.9955), 0.639, 0.0005},
		{"step 3: E(μ, μ2, φ2)", expected(0, 0.2878, 0.9531), 0.432, 0.0005},
		{"step 3: E(μ, μ3, φ3)", expected(0, 1.1513, 0.7242), 0.303, 0.0005},
		{"step 3: v", variance(paperG, paperE), 1.7785, 0.00005},
		{"step 4: Δ", 1.7785 * improvement(paperG, paperE, scores), -0.4834, 0.00005},
		{"step 5: σ'", sigma, 0.05999, 0.00001},
		{"step 6: φ*", preRating(1.1513, 0.05999), 1.152862, 0.0000005},
		{"step 7: φ'", phi, 0.8722, 0.00005},
		{"step 7: μ'", 0.8722 * 0.8722 * improvement(full.g, full.e, scores), -0.2069, 0.00005},
		{"step 8: r' of μ' = −0.2069", scale*-0.2069 + 1500, 1464.06, 0.005},
		{"step 8: RD' of φ' = 0.8722", scale * 0.8722, 151.52, 0.005},
	}
	for _, r := range rows {
		near(t, r.what, r.got, r.want, r.tol)
	}
	near(t, "r'", out.Rating, 1464.06, 0.02)
	near(t, "RD'", out.Deviation, 151.52, 0.02)
	near(t, "σ'", out.Volatility, 0.05999, 0.00001)
	if full.iterations == 0 || full.iterations > 10 {
		t.Errorf("step 5 took %d iterations; the Illinois algorithm needs a few", full.iterations)
	}
	// The opponents' order is no part of the result.
	rev := []Result{exampleResults[2], exampleResults[0], exampleResults[1]}
	if got := Default.Update(example, rev); math.Abs(got.Rating-out.Rating) > 1e-9 || math.Abs(got.Deviation-out.Deviation) > 1e-9 {
		t.Errorf("the order of the results changed the update: %+v and %+v", got, out)
	}
}

// TestVolatilityBranches covers both starts of step 5: Δ² above φ² + v
// (a surprising period: B = ln(Δ² − φ² − v)) and below it (B found by
// stepping down by τ), and the iteration's fixed point: a period whose
// results are as expected leaves σ where it was, near enough.
func TestVolatilityBranches(t *testing.T) {
	steady := Rating{Rating: 1500, Deviation: 150, Volatility: 0.06}
	weak := Rating{Rating: 1100, Deviation: 50, Volatility: 0.06}
	var upsets []Result
	for range 20 {
		upsets = append(upsets, Result{Opponent: Rating{Rating: 1900, Deviation: 50, Volatility: 0.06}, Score: Win})
	}
	_, s := Default.update(weak, upsets)
	if s.delta*s.delta <= s.phi*s.phi+s.v {
		t.Fatalf("twenty upsets should make Δ² (%.3f) exceed φ² + v (%.3f)", s.delta*s.delta, s.phi*s.phi+s.v)
	}
	if s.sigma <= 0.06 {
		t.Errorf("twenty upsets in a row left σ at %.5f: erratic results raise it", s.sigma)
	}
	out := Default.Update(steady, []Result{{Opponent: steady, Score: Draw}})
	near(t, "σ' after an expected draw", out.Volatility, 0.06, 0.0005)
	near(t, "r' after a draw between equals", out.Rating, 1500, 1e-9)
	if out.Deviation >= steady.Deviation {
		t.Errorf("a game left RD at %.2f (from %.2f): a game tells something", out.Deviation, steady.Deviation)
	}
}

func TestIdle(t *testing.T) {
	r := Rating{Rating: 1700, Deviation: 50, Volatility: 0.06}
	one := Default.Idle(r, 1)
	// Step 6 alone: φ* = √(φ² + σ²).
	near(t, "RD after a period without games", one.Deviation, scale*math.Sqrt(math.Pow(50/scale, 2)+0.0036), 1e-9)
	if one.Rating != r.Rating || one.Volatility != r.Volatility {
		t.Errorf("a period without games changed the rating or σ: %+v", one)
	}
	near(t, "RD after a year without games", Default.Idle(r, 52).Deviation, scale*math.Sqrt(math.Pow(50/scale, 2)+52*0.0036), 1e-9)
	if got := Default.Idle(r, 10000).Deviation; got != 350 {
		t.Errorf("RD after ages without games = %.2f, want the cap 350", got)
	}
	if got := Default.Idle(r, 0); got != r {
		t.Errorf("no period changed %+v into %+v", r, got)
	}
	if got := Default.Update(r, nil); got != one {
		t.Errorf("Update without games = %+v, want Idle's %+v", got, one)
	}
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		last, now time.Time
		want      int
	}{
		{time.Time{}, start, 0},
		{start, start, 0},
		{start, start.Add(IdlePeriod - time.Second), 0},
		{start, start.Add(IdlePeriod), 1},
		{start, start.Add(3*IdlePeriod + time.Hour), 3},
		{start.Add(time.Hour), start, 0},
	} {
		if got := IdlePeriods(c.last, c.now); got != c.want {
			t.Errorf("IdlePeriods(%v, %v) = %d, want %d", c.last, c.now, got, c.want)
		}
	}
}

// TestTable checks the pairwise extension: each pair of players is one
// game of the period, scored by rank.
func TestTable(t *testing.T) {
	fresh := Default.Initial
	t.Run("two players are Glicko-2's own update", func(t *testing.T) {
		a, b := example, exampleResults[0].Opponent
		got := Default.Table([]Rating{a, b}, []int{0, 1})
		if want := Default.Update(a, []Result{{Opponent: b, Score: Win}}); got[0] != want {
			t.Errorf("winner %+v, want %+v", got[0], want)
		}
		if want := Default.Update(b, []Result{{Opponent: a, Score: Loss}}); got[1] != want {
			t.Errorf("loser %+v, want %+v", got[1], want)
		}
	})
	t.Run("three players update all three", func(t *testing.T) {
		got := Default.Table([]Rating{fresh, fresh, fresh}, []int{1, 0, 2})
		if !(got[1].Rating > 1500 && got[0].Rating == 1500 && got[2].Rating < 1500) {
			t.Fatalf("first, second and third of three equals: %v", got)
		}
		// The one in the middle won one and lost one against equals: the
		// rating stays, the RD shrinks.
		near(t, "the second's rating", got[0].Rating, 1500, 1e-9)
		for i, r := range got {
			if r.Deviation >= 350 {
				t.Errorf("seat %d: RD %.2f after a game", i, r.Deviation)
			}
		}
		near(t, "first and last move alike", got[1].Rating-1500, 1500-got[2].Rating, 1e-9)
		// It is the first's Glicko-2 period with two wins.
		want := Default.Update(fresh, []Result{{Opponent: fresh, Score: Win}, {Opponent: fresh, Score: Win}})
		if got[1] != want {
			t.Errorf("the first: %+v, want two wins' %+v", got[1], want)
		}
	})
	t.Run("ties are draws", func(t *testing.T) {
		strong := Rating{Rating: 1800, Deviation: 80, Volatility: 0.06}
		weak := Rating{Rating: 1400, Deviation: 80, Volatility: 0.06}
		got := Default.Table([]Rating{strong, weak, fresh, fresh}, []int{0, 0, 2, 2})
		want := Default.Update(weak, []Result{{Opponent: strong, Score: Draw}, {Opponent: fresh, Score: Win}, {Opponent: fresh, Score: Win}})
		if got[1] != want {
			t.Errorf("the weak player sharing first: %+v, want %+v", got[1], want)
		}
		if got[0].Rating >= 1800+60 || got[1].Rating <= 1400 {
			t.Errorf("a draw with a weaker player should cost the stronger: %+v", got[:2])
		}
		near(t, "the two who shared the last place move alike", got[2].Rating, got[3].Rating, 1e-9)
	})
	t.Run("the seats' order does not matter", func(t *testing.T) {
		a, b, c := example, exampleResults[1].Opponent, exampleResults[2].Opponent
		one := Default.Table([]Rating{a, b, c}, []int{2, 0, 1})
		two := Default.Table([]Rating{c, a, b}, []int{1, 2, 0})
		if one[0] != two[1] || one[1] != two[2] || one[2] != two[0] {
			t.Errorf("%v and %v", one, two)
		}
	})
	t.Run("nothing to rate", func(t *testing.T) {
		for _, c := range []struct {
			players []Rating
			ranks   []int
		}{{nil, nil}, {[]Rating{example}, []int{0}}, {[]Rating{example, fresh}, []int{0}}} {
			if got := Default.Table(c.players, c.ranks); fmt.Sprint(got) != fmt.Sprint(c.players) {
				t.Errorf("Table(%v, %v) = %v, want it unchanged", c.players, c.ranks, got)
			}
		}
	})
}

func TestBadInputStops(t *testing.T) {
	nan := Rating{Rating: math.NaN(), Deviation: math.NaN(), Volatility: math.NaN()}
	done := make(chan Rating, 1)
	go func() { done <- Default.Update(nan, exampleResults) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("an update of NaN did not end")
	}
}

func TestProvisional(t *testing.T) {
	if !Default.Initial.Provisional() {
		t.Error("a new player's rating is provisional")
	}
	r, settled := Default.Initial, Rating{Rating: 1500, Deviation: 60, Volatility: 0.06}
	for n := 1; n <= 20; n++ {
		r = Default.Update(r, []Result{{Opponent: settled, Score: Draw}})
		if !r.Provisional() {
			if n < 5 || n > 15 {
				t.Errorf("provisional for %d games against settled players; about ten, we say", n)
			}
			return
		}
	}
	t.Error("still provisional after twenty games")
}

// ExampleParams_Table rates a game of three: Ana first, Bob second and
// Cyd, who resigned, last.
func ExampleParams_Table() {
	ana := rating1500()
	bob := Rating{Rating: 1600, Deviation: 90, Volatility: 0.06}
	cyd := Rating{Rating: 1450, Deviation: 200, Volatility: 0.06}
	for _, r := range Default.Table([]Rating{ana, bob, cyd}, []int{0, 1, 2}) {
		fmt.Printf("%.0f ± %.0f\n", r.Rating, r.Deviation)
	}
	// Output:
	// 1768 ± 218
	// 1595 ± 88
	// 1352 ± 169
}

func rating1500() Rating { return Default.Initial }

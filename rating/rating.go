package rating

import (
	"math"
	"time"
)

// Rating is a player's standing on the Glicko scale (a new player: 1500,
// 350, 0.06). The zero value is no rating: use Params.Initial.
type Rating struct {
	Rating     float64 // r; about 1500 for an average player
	Deviation  float64 // RD: one standard deviation of r
	Volatility float64 // σ: the expected fluctuation of r between periods
}

// Provisional reports whether r is still too uncertain to say much: an RD
// above ProvisionalDeviation.
func (r Rating) Provisional() bool { return r.Deviation > ProvisionalDeviation }

// ProvisionalDeviation is the RD above which a rating is provisional: a
// player's first games (a new player's 350 falls under it after about ten
// games against settled players, more against new ones) or a long
// absence.
const ProvisionalDeviation = 110

// IdlePeriod is the rating period of a player who plays no rated game: each
// whole IdlePeriod since their last rated game counts as one period without
// games (Idle), in which their RD grows.
const IdlePeriod = 7 * 24 * time.Hour

// Params are the system's constants. The zero value is not usable: start
// from Default.
type Params struct {
	// Tau (τ) bounds how much the volatility may change in one period;
	// Glickman advises 0.3 to 1.2, smaller for steadier ratings.
	Tau float64
	// Initial is a new player's rating; its Deviation is also the most an
	// RD ever grows to.
	Initial Rating
	// Epsilon is the tolerance of the volatility's iteration (step 5).
	Epsilon float64
}

// Default are the service's parameters: τ 0.5, a new player 1500 ± 350
// with σ 0.06, and Glickman's tolerance of 0.000001.
var Default = Params{Tau: 0.5, Initial: Rating{Rating: 1500, Deviation: 350, Volatility: 0.06}, Epsilon: 0.000001}

// scale converts between the Glicko scale and Glicko-2's (step 2).
const scale = 173.7178

// Result is one game of a rating period: the opponent's rating at the
// start of the period and the player's score, 1 for a win, 0.5 for a draw
// and 0 for a loss.
type Result struct {
	Opponent Rating
	Score    float64
}

// Scores of a Result.
const (
	Loss = 0.0
	Draw = 0.5
	Win  = 1.0
)

// Update returns r after a rating period whose games are results
// (Glickman's steps 2 to 8). With no results only the RD grows, as for a
// period without games (step 6 alone, capped at the initial RD).
func (p Params) Update(r Rating, results []Result) Rating {
	out, _ := p.update(r, results)
	return out
}

// steps holds the intermediate quantities of one update, on the Glicko-2
// scale, for the tests that follow the worked example step by step.
type steps struct {
	mu, phi    float64   // step 2: the player
	g, e       []float64 // step 3: g(φj) and E(μ, μj, φj) for each result
	v          float64   // step 3: the estimated variance from the results
	delta      float64   // step 4: the estimated improvement Δ
	sigma      float64   // step 5: the new volatility σ'
	phiStar    float64   // step 6: the pre-period φ*
	phiNew     float64   // step 7: φ'
	muNew      float64   // step 7: μ'
	iterations int       // step 5: the iterations of the Illinois algorithm
}

// update is Update with its intermediate quantities.
func (p Params) update(r Rating, results []Result) (Rating, steps) {
	var s steps
	s.mu, s.phi = (r.Rating-1500)/scale, r.Deviation/scale
	if len(results) == 0 {
		return p.Idle(r, 1), s
	}
	scores := make([]float64, len(results))
	for i, res := range results {
		g := gOf(res.Opponent.Deviation / scale)
		s.g, s.e = append(s.g, g), append(s.e, expected(s.mu, (res.Opponent.Rating-1500)/scale, g))
		scores[i] = res.Score
	}
	s.v = variance(s.g, s.e)
	s.delta = s.v * improvement(s.g, s.e, scores)
	s.sigma, s.iterations = p.volatility(r.Volatility, s.phi, s.v, s.delta)
	s.phiStar = preRating(s.phi, s.sigma)
	s.phiNew, s.muNew = after(s.mu, s.phiStar, s.v, s.delta)
	return Rating{Rating: scale*s.muNew + 1500, Deviation: min(scale*s.phiNew, p.Initial.Deviation), Volatility: s.sigma}, s
}

// gOf is step 3's g(φ) of an opponent's deviation φ: how much a game
// against them tells.
func gOf(phi float64) float64 { return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi)) }

// expected is step 3's E(μ, μj, φj): the score a player of rating mu
// expects against one of rating muJ whose g(φj) is g.
func expected(mu, muJ, g float64) float64 { return 1 / (1 + math.Exp(-g*(mu-muJ))) }

// variance is step 3's v: the estimated variance of the player's rating
// from the games alone, given each game's g(φj) and E.
func variance(g, e []float64) float64 {
	var inv float64
	for i := range g {
		inv += g[i] * g[i] * e[i] * (1 - e[i])
	}
	return 1 / inv
}

// improvement is step 4's sum Σ g(φj)(sj − E): Δ is v times it, and step
// 7 moves μ by φ'² times it.
func improvement(g, e, scores []float64) float64 {
	var sum float64
	for i := range g {
		sum += g[i] * (scores[i] - e[i])
	}
	return sum
}

// preRating is step 6: the pre-period deviation φ* of a player of
// deviation phi and new volatility sigma.
func preRating(phi, sigma float64) float64 { return math.Sqrt(phi*phi + sigma*sigma) }

// after is step 7: the new deviation φ' and rating μ' of a player of
// rating mu and pre-period deviation phiStar, whose period gave v and Δ.
func after(mu, phiStar, v, delta float64) (phi, muNew float64) {
	phi = 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	return phi, mu + phi*phi*delta/v
}

// maxIterations bounds each loop of the volatility's iteration; Glickman's
// example needs five, and a bad input (a NaN) stops the loops at once.
const maxIterations = 100

// volatility is step 5: σ' by the Illinois algorithm (a regula falsi),
// for a player of volatility sigma and deviation phi whose period gave the
// variance v and the improvement delta. It returns σ' and how many times
// the main loop ran.
func (p Params) volatility(sigma, phi, v, delta float64) (float64, int) {
	a := math.Log(sigma * sigma)
	tau2 := p.Tau * p.Tau
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/tau2
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*p.Tau) < 0 && k < maxIterations {
			k++
		}
		B = a - k*p.Tau
	}
	fA, fB := f(A), f(B)
	n := 0
	for math.Abs(B-A) > p.Epsilon && n < maxIterations {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
		n++
	}
	return math.Exp(A / 2), n
}

// Idle returns r after n rating periods without games: the rating and
// volatility stay, and the RD grows as step 6 says for each period
// (φ² + nσ²), never past the initial RD. n ≤ 0 changes nothing.
func (p Params) Idle(r Rating, n int) Rating {
	if n <= 0 {
		return r
	}
	phi := r.Deviation / scale
	grown := scale * math.Sqrt(phi*phi+float64(n)*r.Volatility*r.Volatility)
	r.Deviation = min(max(grown, r.Deviation), p.Initial.Deviation)
	return r
}

// IdlePeriods is how many whole IdlePeriods passed from last (a player's
// last rated game; zero: none) to now: the rating periods without games
// before one that ends now.
func IdlePeriods(last, now time.Time) int {
	if last.IsZero() || !now.After(last) {
		return 0
	}
	return int(now.Sub(last) / IdlePeriod)
}

// Table rates one finished game: players are the ratings of its seats at
// the start of the rating period, ranks their final places (0 first;
// equal places are a tie), and it returns each seat's new rating, in the
// same order. Each pair of players is one game of the period between them:
// the better place wins it, equal places draw it. A player's results are
// all rated at once against the others' ratings before the game (one
// period), so the order of the seats does not matter. Fewer than two
// players, or ranks that do not match players, change nothing.
func (p Params) Table(players []Rating, ranks []int) []Rating {
	out := make([]Rating, len(players))
	copy(out, players)
	if len(players) < 2 || len(ranks) != len(players) {
		return out
	}
	for i := range players {
		results := make([]Result, 0, len(players)-1)
		for j := range players {
			if j != i {
				results = append(results, Result{Opponent: players[j], Score: Score(ranks[i], ranks[j])})
			}
		}
		out[i] = p.Update(players[i], results)
	}
	return out
}

// Score is the result for a player placed rank against one placed other
// (0 is first): Win for the better place, Draw for the same, else Loss.
func Score(rank, other int) float64 {
	switch {
	case rank < other:
		return Win
	case rank == other:
		return Draw
	}
	return Loss
}

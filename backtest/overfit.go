package backtest

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// The statistics of this file say how far a sweep's best result can be
// trusted: the probability of backtest overfitting by combinatorially
// symmetric cross-validation, the deflated Sharpe ratio and bootstrap
// intervals. Formulas and sources are in docs/metrics.md.

// DefaultPartitions is the number of blocks CSCV splits the returns into.
const DefaultPartitions = 16

// Moments are the count and power sums of a stretch of per-bar returns:
// enough to combine stretches and to get their Sharpe ratio, skewness and
// kurtosis without keeping the returns.
type Moments struct {
	N  int     `json:"n"`
	S1 float64 `json:"s1"`
	S2 float64 `json:"s2"`
	S3 float64 `json:"s3"`
	S4 float64 `json:"s4"`
}

// Add counts one return.
func (m *Moments) Add(r float64) {
	r2 := r * r
	m.N++
	m.S1 += r
	m.S2 += r2
	m.S3 += r2 * r
	m.S4 += r2 * r2
}

// Plus is the moments of both stretches together.
func (m Moments) Plus(o Moments) Moments {
	return Moments{N: m.N + o.N, S1: m.S1 + o.S1, S2: m.S2 + o.S2, S3: m.S3 + o.S3, S4: m.S4 + o.S4}
}

// Mean is the mean return.
func (m Moments) Mean() float64 {
	if m.N == 0 {
		return 0
	}
	return m.S1 / float64(m.N)
}

// Std is the sample standard deviation (n − 1).
func (m Moments) Std() float64 {
	if m.N < 2 {
		return 0
	}
	n := float64(m.N)
	v := (m.S2 - m.S1*m.S1/n) / (n - 1)
	if v <= 0 {
		return 0
	}
	return math.Sqrt(v)
}

// Sharpe is the per-period Sharpe ratio, mean / sample standard deviation,
// 0 when the returns do not vary.
func (m Moments) Sharpe() float64 {
	sd := m.Std()
	if sd == 0 {
		return 0
	}
	return m.Mean() / sd
}

// central returns the second, third and fourth central moments (divided
// by n).
func (m Moments) central() (m2, m3, m4 float64) {
	n := float64(m.N)
	mu := m.S1 / n
	a2, a3, a4 := m.S2/n, m.S3/n, m.S4/n
	m2 = a2 - mu*mu
	m3 = a3 - 3*mu*a2 + 2*mu*mu*mu
	m4 = a4 - 4*mu*a3 + 6*mu*mu*a2 - 3*mu*mu*mu*mu
	return m2, m3, m4
}

// Skew is the skewness m3 / m2^1.5 (0 when the returns do not vary).
func (m Moments) Skew() float64 {
	if m.N == 0 {
		return 0
	}
	m2, m3, _ := m.central()
	if m2 <= 0 {
		return 0
	}
	return m3 / math.Pow(m2, 1.5)
}

// Kurtosis is m4 / m2² (3 for a normal distribution; 3 when the returns
// do not vary).
func (m Moments) Kurtosis() float64 {
	if m.N == 0 {
		return 3
	}
	m2, _, m4 := m.central()
	if m2 <= 0 {
		return 3
	}
	return m4 / (m2 * m2)
}

// returnsOf yields the curve's per-bar returns e_i / e_{i−1} − 1, skipping
// those after a non-positive equity, as Compute does.
func returnsOf(c Curve, f func(r float64)) {
	v := c.Values
	for i := 1; i < len(v); i++ {
		if v[i-1] > 0 {
			f(v[i]/v[i-1] - 1)
		}
	}
}

// ReturnBlocks splits the curve's per-bar returns into s contiguous blocks
// (block k holds returns k·n/s up to (k+1)·n/s) and returns their moments.
// The returns are gone through twice, to count them and then to add each
// to its block, rather than gathered into a slice (a sweep computes the
// blocks of every run, and the slice was a fifth of what its runs
// allocated).
func ReturnBlocks(c Curve, s int) []Moments {
	out := make([]Moments, s)
	if s == 0 {
		return out
	}
	n := 0
	returnsOf(c, func(float64) { n++ })
	k, j := 0, 0 // return j goes to block k: k·n/s ≤ j < (k+1)·n/s
	returnsOf(c, func(r float64) {
		for j >= (k+1)*n/s {
			k++
		}
		out[k].Add(r)
		j++
	})
	return out
}

// PBO is the probability of backtest overfitting by combinatorially
// symmetric cross-validation (Bailey, Borwein, López de Prado and Zhu,
// 2017). blocks[j] are configuration j's return blocks, the same number S
// (even) for every configuration. For each of the C(S, S/2) ways to take
// half the blocks as in-sample, the configuration with the best in-sample
// Sharpe ratio (the first on ties) is ranked among all by its Sharpe ratio
// on the other half: ω = rank / (N + 1) (rank 1 the worst; ties count
// half), λ = ln(ω / (1 − ω)). PBO is the share of splits with λ ≤ 0. It
// returns the PBO and the number of splits.
func PBO(blocks [][]Moments) (float64, int, error) {
	n := len(blocks)
	if n < 2 {
		return 0, 0, fmt.Errorf("pbo: %d configurations, need at least 2", n)
	}
	s := len(blocks[0])
	if s < 2 || s%2 != 0 || s > 24 {
		return 0, 0, fmt.Errorf("pbo: %d partitions, need an even number from 2 to 24", s)
	}
	for j, b := range blocks {
		if len(b) != s {
			return 0, 0, fmt.Errorf("pbo: configuration %d has %d partitions, the first %d", j, len(b), s)
		}
		for k, m := range b {
			if m.N < 2 {
				return 0, 0, fmt.Errorf("pbo: configuration %d, partition %d has %d returns, need at least 2", j, k, m.N)
			}
		}
	}
	totals := make([]Moments, n)
	for j, b := range blocks {
		for _, m := range b {
			totals[j] = totals[j].Plus(m)
		}
	}
	// The splits, each as the indices of its in-sample blocks in
	// ascending order (C(16, 8) = 12,870 of them by default).
	half := s / 2
	var in []uint8
	for mask := uint32(0); mask < 1<<s; mask++ {
		if bits.OnesCount32(mask) == half {
			for k := range s {
				if mask&(1<<k) != 0 {
					in = append(in, uint8(k))
				}
			}
		}
	}
	splits := len(in) / half
	// Each configuration's blocks as the count and the two sums a Sharpe
	// ratio reads, side by side: a sweep of 1,500 configurations reads
	// them 12,870 times.
	sums := make([]sharpeSums, n*s)
	for j, b := range blocks {
		for k, m := range b {
			sums[j*s+k] = sharpeSums{n: m.N, s1: m.S1, s2: m.S2}
		}
	}
	// The splits are counted apart on every core: the sums are the same
	// additions in the same order whichever core does them, so the count
	// is too.
	workers := max(1, min(runtime.GOMAXPROCS(0), splits*n/pboSplitWork))
	counts := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*splits/workers, (w+1)*splits/workers
		wg.Go(func() { counts[w] = pboOverfit(sums, totals, in[lo*half:hi*half], s) })
	}
	wg.Wait()
	overfit := 0
	for _, c := range counts {
		overfit += c
	}
	return float64(overfit) / float64(splits), splits, nil
}

// sharpeSums are what Moments.Sharpe reads: the count and the first two
// power sums.
type sharpeSums struct {
	n      int
	s1, s2 float64
}

// pboSplitWork is about the fewest configurations times splits worth a
// core of their own (a few milliseconds).
const pboSplitWork = 1 << 18

// pboOverfit counts the splits, given as their in-sample blocks' indices
// (s/2 to a split), whose in-sample best configuration is overfit: PBO's
// loop, on the blocks' sums (sums[j*s+k] is configuration j's block k)
// and each configuration's totals.
func pboOverfit(sums []sharpeSums, totals []Moments, in []uint8, s int) int {
	n, half := len(totals), s/2
	oos := make([]float64, n)
	overfit := 0
	for len(in) > 0 {
		split := in[:half]
		in = in[half:]
		best, bestSR := 0, math.Inf(-1)
		for j := range n {
			b := sums[j*s : (j+1)*s]
			var m Moments // in-sample: the blocks' sums added in their order, as Plus adds them
			for _, k := range split {
				m.N += b[k].n
				m.S1 += b[k].s1
				m.S2 += b[k].s2
			}
			if sr := m.Sharpe(); sr > bestSR {
				best, bestSR = j, sr
			}
			out := totals[j]
			out.N -= m.N
			out.S1 -= m.S1
			out.S2 -= m.S2
			oos[j] = out.Sharpe()
		}
		if overfitSplit(oos, best) {
			overfit++
		}
	}
	return overfit
}

// overfitSplit reports whether the in-sample best configuration best is
// overfit in a split whose out-of-sample Sharpe ratios are oos: ranked
// among all (1 the worst, ties counting half), ω = rank / (N + 1) and
// λ = ln(ω / (1 − ω)) ≤ 0.
func overfitSplit(oos []float64, best int) bool {
	rank := 1.0
	for j, v := range oos {
		switch {
		case j == best:
		case v < oos[best]:
			rank++
		case v == oos[best]:
			rank += 0.5
		}
	}
	w := rank / float64(len(oos)+1)
	return math.Log(w/(1-w)) <= 0
}

// eulerGamma is the Euler–Mascheroni constant.
const eulerGamma = 0.5772156649015329

// normCDF is the standard normal distribution function.
func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// normQuantile is its inverse.
func normQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// ExpectedMaxSharpe is the Sharpe ratio the best of trials independent
// tries would reach by luck alone when their Sharpe ratios have variance
// v (Bailey and López de Prado, 2014): √v · ((1 − γ) Φ⁻¹(1 − 1/N) +
// γ Φ⁻¹(1 − 1/(N e))), γ the Euler–Mascheroni constant; 0 for one trial.
func ExpectedMaxSharpe(trials int, v float64) float64 {
	if trials < 2 || v <= 0 {
		return 0
	}
	n := float64(trials)
	return math.Sqrt(v) * ((1-eulerGamma)*normQuantile(1-1/n) + eulerGamma*normQuantile(1-1/(n*math.E)))
}

// DeflatedSharpe is the probability that the true Sharpe ratio exceeds
// sr0 given an observed per-period Sharpe ratio sr over t returns with
// the given skewness and kurtosis (Bailey and López de Prado, 2014):
// Φ((sr − sr0) √(t − 1) / √(1 − skew·sr + (kurt − 1)/4 · sr²)).
func DeflatedSharpe(sr, sr0 float64, t int, skew, kurt float64) float64 {
	if t < 2 {
		return 0
	}
	d := 1 - skew*sr + (kurt-1)/4*sr*sr
	if d <= 0 {
		return 0
	}
	return normCDF((sr - sr0) * math.Sqrt(float64(t-1)) / math.Sqrt(d))
}

// Interval is a two-sided bootstrap interval.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// quantile is the p-quantile of sorted x with linear interpolation
// between order statistics (x[(len−1)·p]).
func quantile(x []float64, p float64) float64 {
	h := float64(len(x)-1) * p
	i := int(math.Floor(h))
	if i+1 >= len(x) {
		return x[len(x)-1]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

// interval95 sorts x and returns its 2.5 % and 97.5 % quantiles.
func interval95(x []float64) Interval {
	slices.Sort(x)
	return Interval{Lo: quantile(x, 0.025), Hi: quantile(x, 0.975)}
}

// compound returns the total return and the maximum drawdown, both in
// percent, of the returns (fractions) r(0), r(1), … r(n−1) applied in turn
// to an equity of 1.
func compound(n int, r func(int) float64) (ret, maxDD float64) {
	eq, peak := 1.0, 1.0
	for i := range n {
		eq *= 1 + r(i)
		if eq > peak {
			peak = eq
		} else if dd := (peak - eq) / peak; dd > maxDD {
			maxDD = dd
		}
	}
	return (eq - 1) * 100, maxDD * 100
}

// newRand is the seeded generator of the bootstraps.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// BootstrapTrades resamples the trades' returns (in percent of the
// equity, see tradeEquityReturns) with replacement, as many as there are,
// samples times with a generator seeded by seed, compounds each resample,
// and returns the 95 % intervals of the total return and of the
// maximum drawdown, in percent.
func BootstrapTrades(returnsPct []float64, samples int, seed uint64) (ret, dd Interval, err error) {
	n := len(returnsPct)
	if n == 0 || samples < 1 {
		return Interval{}, Interval{}, errors.New("bootstrap: no trades")
	}
	rng := newRand(seed)
	rs, dds := make([]float64, samples), make([]float64, samples)
	pick := make([]int, n)
	for b := range samples {
		for i := range pick {
			pick[i] = rng.IntN(n)
		}
		rs[b], dds[b] = compound(n, func(i int) float64 { return returnsPct[pick[i]] / 100 })
	}
	return interval95(rs), interval95(dds), nil
}

// BootstrapBlocks resamples the per-bar returns (fractions) in blocks of
// block consecutive returns (circular: a block may wrap to the start),
// each starting at a uniformly drawn index, until a resample is as long as
// the returns; samples times, seeded. It returns the 95 % intervals of
// the total return and of the maximum drawdown, in percent.
func BootstrapBlocks(returns []float64, block, samples int, seed uint64) (ret, dd Interval, err error) {
	n := len(returns)
	if n == 0 || samples < 1 {
		return Interval{}, Interval{}, errors.New("bootstrap: no returns")
	}
	if block < 1 || block > n {
		return Interval{}, Interval{}, fmt.Errorf("bootstrap: block length %d, need 1 to %d", block, n)
	}
	rng := newRand(seed)
	rs, dds := make([]float64, samples), make([]float64, samples)
	idx := make([]int, n)
	for b := range samples {
		for i := 0; i < n; i += block {
			start := rng.IntN(n)
			for k := 0; k < block && i+k < n; k++ {
				idx[i+k] = (start + k) % n
			}
		}
		rs[b], dds[b] = compound(n, func(i int) float64 { return returns[idx[i]] })
	}
	return interval95(rs), interval95(dds), nil
}

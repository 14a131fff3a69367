package backtest

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func moments(rs ...float64) Moments {
	var m Moments
	for _, r := range rs {
		m.Add(r)
	}
	return m
}

func close12(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestMoments: returns 0.01, −0.01, 0.02, 0 have mean 0.005, deviations
// ±0.005 and ±0.015, so m2 = 0.000125, m3 = 0, m4 = 2.5625e−8 and the
// kurtosis is 2.5625e−8 / 1.5625e−8 = 1.64; the sample variance is
// 0.0005 / 3, so the Sharpe ratio is 0.005 / √(0.0005/3) = √0.15.
func TestMoments(t *testing.T) {
	t.Parallel()
	m := moments(0.01, -0.01).Plus(moments(0.02, 0))
	if m.N != 4 || !close12(m.Mean(), 0.005) || !close12(m.Sharpe(), math.Sqrt(0.15)) || math.Abs(m.Skew()) > 1e-9 || !close12(m.Kurtosis(), 1.64) {
		t.Fatalf("n %d mean %v sharpe %v skew %v kurt %v", m.N, m.Mean(), m.Sharpe(), m.Skew(), m.Kurtosis())
	}
	if flat := moments(0.01, 0.01); flat.Sharpe() != 0 || flat.Skew() != 0 || flat.Kurtosis() != 3 {
		t.Errorf("constant returns: sharpe %v skew %v kurt %v, want 0 0 3", flat.Sharpe(), flat.Skew(), flat.Kurtosis())
	}
}

func TestReturnBlocks(t *testing.T) {
	t.Parallel()
	var c Curve
	for i, v := range []float64{100, 110, 99, 99, 108.9, 108.9} { // returns 0.1, −0.1, 0, 0.1, 0
		c.Append(int64(i)*3600_000, v)
	}
	bs := ReturnBlocks(c, 2) // 5 returns: block 0 holds returns 0–1, block 1 returns 2–4
	if bs[0].N != 2 || bs[1].N != 3 || !close12(bs[0].S1, 0) || !close12(bs[1].S1, 0.1) || !close12(bs[0].S2, 0.02) {
		t.Fatalf("blocks %+v", bs)
	}
	// More blocks than returns: block k holds returns k·2/4 up to
	// (k+1)·2/4, so blocks 0 and 2 are empty. A point after a zero value
	// has no return.
	var few Curve
	for i, v := range []float64{0, 50, 100, 90} { // returns 1 and −0.1
		few.Append(int64(i)*3600_000, v)
	}
	bs = ReturnBlocks(few, 4)
	if bs[0].N != 0 || bs[1].N != 1 || bs[2].N != 0 || bs[3].N != 1 || bs[1].S1 != 1 || !close12(bs[3].S1, -0.1) {
		t.Fatalf("blocks %+v", bs)
	}
	if got := ReturnBlocks(few, 0); len(got) != 0 {
		t.Fatalf("no blocks: %+v", got)
	}
	// Against the returns gathered and cut: the same sums, bit for bit.
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		var rc Curve
		v := 100.0
		for i := range r.IntN(60) {
			if r.IntN(10) == 0 {
				rc.Append(int64(i)*60_000, 0)
				continue
			}
			v *= 1 + (r.Float64()-0.5)/10
			rc.Append(int64(i)*60_000, v)
		}
		s := 1 + r.IntN(12)
		var rs []float64
		returnsOf(rc, func(x float64) { rs = append(rs, x) })
		want := make([]Moments, s)
		for k := range want {
			for _, x := range rs[k*len(rs)/s : (k+1)*len(rs)/s] {
				want[k].Add(x)
			}
		}
		if got := ReturnBlocks(rc, s); !reflect.DeepEqual(got, want) {
			t.Fatalf("%d returns in %d blocks: %+v, want %+v", len(rs), s, got, want)
		}
	}
}

// TestPBO: in the first case each configuration is good in one half and
// flat in the other, so the in-sample winner is the out-of-sample loser
// (rank 1 of 2, ω = 1/3, λ < 0) in both splits: PBO 1. In the second, A
// is better in both halves: it wins in sample and ranks 2 of 2 out of
// sample (ω = 2/3, λ > 0): PBO 0. Identical configurations tie: the first
// wins in sample and ranks 1.5 out of sample, ω = 1/2, λ = 0, which counts
// as overfit. With four partitions, A good in the first two, B flat and C
// good in the last two: in-sample {0,1} picks A, which out of sample ties
// B below C (rank 1.5 of 3, ω = 3/8: overfit), {2,3} likewise picks C; the
// four mixed splits tie A and C in sample, pick A, and A ties C above B out
// of sample (rank 2.5, ω = 5/8): PBO 2/6.
func TestPBO(t *testing.T) {
	t.Parallel()
	good, flat := moments(0.02, 0), moments(-0.01, 0.01)
	cases := []struct {
		name   string
		blocks [][]Moments
		pbo    float64
		splits int
	}{
		{"each good in one half", [][]Moments{{good, flat}, {flat, good}}, 1, 2},
		{"one dominates", [][]Moments{{good, good}, {flat, flat}}, 0, 2},
		{"ties", [][]Moments{{good, flat, good, flat}, {good, flat, good, flat}}, 1, 6},
		{"four partitions", [][]Moments{{good, good, flat, flat}, {flat, flat, flat, flat}, {flat, flat, good, good}}, 2.0 / 6, 6},
	}
	for _, c := range cases {
		pbo, splits, err := PBO(c.blocks)
		if err != nil || pbo != c.pbo || splits != c.splits {
			t.Errorf("%s: PBO %v over %d splits, %v; want %v over %d", c.name, pbo, splits, err, c.pbo, c.splits)
		}
	}
	for _, bad := range []struct {
		blocks [][]Moments
		want   string
	}{
		{[][]Moments{{good, good}}, "pbo: 1 configurations, need at least 2"},
		{[][]Moments{{good, good, good}, {good, good, good}}, "pbo: 3 partitions, need an even number from 2 to 24"},
		{[][]Moments{{good, good}, {good}}, "pbo: configuration 1 has 1 partitions, the first 2"},
		{[][]Moments{{good, moments(0.1)}, {good, good}}, "pbo: configuration 0, partition 1 has 1 returns, need at least 2"},
	} {
		if _, _, err := PBO(bad.blocks); err == nil || err.Error() != bad.want {
			t.Errorf("PBO error %v, want %q", err, bad.want)
		}
	}
}

// naivePBO is PBO as first written: every mask of the s bits, its blocks
// added with Plus, on one goroutine. TestPBOMatchesNaive holds PBO to it.
func naivePBO(blocks [][]Moments) (float64, int) {
	n, s := len(blocks), len(blocks[0])
	totals := make([]Moments, n)
	for j, b := range blocks {
		for _, m := range b {
			totals[j] = totals[j].Plus(m)
		}
	}
	oos := make([]float64, n)
	var splits, overfit int
	for mask := uint32(0); mask < 1<<s; mask++ {
		if bits.OnesCount32(mask) != s/2 {
			continue
		}
		splits++
		best, bestSR := 0, math.Inf(-1)
		for j, b := range blocks {
			var in Moments
			for k := range s {
				if mask&(1<<k) != 0 {
					in = in.Plus(b[k])
				}
			}
			if sr := in.Sharpe(); sr > bestSR {
				best, bestSR = j, sr
			}
			out := totals[j]
			out.N -= in.N
			out.S1 -= in.S1
			out.S2 -= in.S2
			oos[j] = out.Sharpe()
		}
		if overfitSplit(oos, best) { // the ranking, unchanged; the sums are what moved
			overfit++
		}
	}
	return float64(overfit) / float64(splits), splits
}

// PBO, its splits counted on every core over the blocks' sums, gives what
// the first implementation gave: random configurations (some identical,
// for ties), from 2 partitions to 16, from 3 configurations to 150 (which
// takes more than one core).
func TestPBOMatchesNaive(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ n, s int }{{3, 2}, {5, 4}, {40, 8}, {12, 12}, {150, 16}} {
		blocks := make([][]Moments, c.n)
		for j := range blocks {
			if j > 0 && r.IntN(5) == 0 {
				blocks[j] = blocks[j-1] // a tie
				continue
			}
			drift := (r.Float64() - 0.5) / 100
			blocks[j] = make([]Moments, c.s)
			for k := range blocks[j] {
				for range 3 + r.IntN(20) {
					blocks[j][k].Add(drift + r.NormFloat64()/100)
				}
			}
		}
		pbo, splits, err := PBO(blocks)
		want, wantSplits := naivePBO(blocks)
		if err != nil || math.Float64bits(pbo) != math.Float64bits(want) || splits != wantSplits {
			t.Fatalf("%d configurations, %d partitions: PBO %v over %d splits (%v), the first implementation %v over %d",
				c.n, c.s, pbo, splits, err, want, wantSplits)
		}
		if c.n == 150 && (pbo == 0 || pbo == 1) {
			t.Fatalf("PBO %v: the random configurations do not exercise the ranking", pbo)
		}
	}
}

// TestDeflatedSharpe: with skewness 0.05, kurtosis 3 and Sharpe 0.1 the
// denominator is 1 − 0.005 + 0.005 = 1, so over 101 returns the statistic
// is (0.1 − sr0) · 10: Φ(1) without deflation, Φ(0.5) with sr0 = 0.05.
// The expected maximum of 100 trials with Sharpe variance 0.0004 is
// 0.02 · (0.4228 Φ⁻¹(0.99) + 0.5772 Φ⁻¹(1 − 1/(100 e))), checked against
// Python's statistics.NormalDist.
func TestDeflatedSharpe(t *testing.T) {
	t.Parallel()
	if got := DeflatedSharpe(0.1, 0, 101, 0.05, 3); !close12(got, 0.8413447460685429) {
		t.Errorf("DSR without trials %v, want Φ(1) = 0.8413447460685429", got)
	}
	if got := DeflatedSharpe(0.1, 0.05, 101, 0.05, 3); !close12(got, 0.6914624612740131) {
		t.Errorf("DSR with sr0 0.05 %v, want Φ(0.5) = 0.6914624612740131", got)
	}
	if got := ExpectedMaxSharpe(100, 0.0004); math.Abs(got-0.050612057864033694) > 1e-12 {
		t.Errorf("expected max Sharpe %v, want 0.050612057864033694", got)
	}
	if got := ExpectedMaxSharpe(1, 0.0004); got != 0 {
		t.Errorf("one trial: %v, want 0", got)
	}
}

// TestBootstrap: two trades of +10 % and −10 % resample to four equally
// likely pairs: +21 % (no drawdown), −1 % twice (drawdown 10 %) and −19 %
// (drawdown 19 %). With 1000 resamples each extreme fills far more than
// the 25 order statistics below 2.5 % and above 97.5 %, so the intervals
// are exactly [−19, 21] and [0, 19]. Blocks of both returns give −1 %
// either way round, with a drawdown of 10 %.
func TestBootstrap(t *testing.T) {
	t.Parallel()
	ret, dd, err := BootstrapTrades([]float64{10, -10}, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	same := func(what string, got, want Interval) {
		if !close12(got.Lo, want.Lo) || !close12(got.Hi, want.Hi) {
			t.Errorf("%s interval %+v, want %+v", what, got, want)
		}
	}
	same("trade return", ret, Interval{Lo: -19, Hi: 21})
	same("trade drawdown", dd, Interval{Lo: 0, Hi: 19})
	ret, dd, err = BootstrapBlocks([]float64{0.1, -0.1}, 2, 200, 7)
	if err != nil {
		t.Fatal(err)
	}
	same("block return", ret, Interval{Lo: -1, Hi: -1})
	same("block drawdown", dd, Interval{Lo: 10, Hi: 10})
	// The same seed draws the same resamples.
	rs := []float64{3, -1, 4, -1, 5, -9, 2, 6}
	a, _, _ := BootstrapTrades(rs, 300, 42)
	b, _, _ := BootstrapTrades(rs, 300, 42)
	c, _, _ := BootstrapTrades(rs, 300, 43)
	if a != b || a == c {
		t.Errorf("seed 42 twice: %+v %+v; seed 43: %+v", a, b, c)
	}
	if _, _, err := BootstrapBlocks(rs, 9, 10, 1); err == nil || !strings.Contains(err.Error(), "block length 9, need 1 to 8") {
		t.Errorf("block longer than the returns: %v", err)
	}
}

// TestTradeEquityReturns: a trade's PnL over the equity at its entry (the
// last point at or before it): 50 on 1000 is 5 %, −20 on 1000 + 50 = 1050
// is −1.904…%.
func TestTradeEquityReturns(t *testing.T) {
	t.Parallel()
	var res Result
	for i, v := range []float64{1000, 1000, 1050, 1050} {
		res.Curve.Append(int64(i)*60_000, v)
	}
	res.Trades = []Trade{{EntryTime: time.UnixMilli(30_000), PnL: decimal.NewFromInt(50)}, {EntryTime: time.UnixMilli(120_000), PnL: decimal.NewFromInt(-20)}}
	got := tradeEquityReturns(&res)
	if len(got) != 2 || !close12(got[0], 5) || !close12(got[1], -20.0/1050*100) {
		t.Fatalf("returns %v, want [5 %v]", got, -20.0/1050*100)
	}
}

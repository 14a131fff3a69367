package backtest

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// naiveCurveStats is the per-point arithmetic of Compute written the
// plain way, one pass per quantity and no stretch of flat points taken
// at once: the oracle TestComputeFlatStretches holds Compute to.
func naiveCurveStats(c []float64, at func(int) int64) (peak, n int, sum, ss, down, maxDD float64, maxDur time.Duration, avgDD float64) {
	for i, v := range c {
		if v > c[peak] {
			peak = i
		}
	}
	ret := func(i int) (float64, bool) {
		a := c[i-1]
		if c[i] == a {
			return 0, a > 0
		}
		return c[i]/a - 1, a > 0
	}
	for i := 1; i < len(c); i++ {
		if r, ok := ret(i); ok {
			sum += r
			n++
		}
	}
	if n > 0 {
		mean := sum / float64(n)
		for i := 1; i < len(c); i++ {
			if r, ok := ret(i); ok {
				ss += (r - mean) * (r - mean)
				if r < 0 {
					down += r * r
				}
			}
		}
	}
	pk, pkIdx := c[0], 0
	var depth, total float64
	periods := 0
	ended := func(i int) {
		total += depth
		periods++
		if d := time.Duration(at(i)-at(pkIdx)) * time.Millisecond; d > maxDur {
			maxDur = d
		}
	}
	for i, v := range c {
		if v >= pk {
			if depth > 0 {
				ended(i)
			}
			pk, pkIdx, depth = v, i, 0
			continue
		}
		// Compared, not max: a NaN depth (an infinite peak) deepens nothing.
		dd := (pk - v) / pk
		if dd > depth {
			depth = dd
		}
		if dd > maxDD {
			maxDD = dd
		}
	}
	if depth > 0 {
		ended(len(c) - 1)
	}
	if periods > 0 {
		avgDD = total / float64(periods)
	}
	return
}

// TestComputeFlatStretches checks Compute's statistics, which take
// stretches of equal points at once, against naiveCurveStats over random
// curves made mostly of flat stretches (rises, falls, recoveries, equal
// peaks, a stretch at the end, zeros of both signs and negative values),
// to the bit.
func TestComputeFlatStretches(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for k := range 400 {
		n := 2 + r.IntN(300)
		c := make([]float64, n)
		v := 100.0
		for i := range c {
			switch x := r.IntN(20); {
			case x < 2:
				v *= 1 + (r.Float64()-0.5)*0.1
			case x == 2 && k%4 == 0:
				v = math.Copysign(0, float64(r.IntN(2))-0.5) // +0 or −0
			case x == 3 && k%8 == 1:
				v = -v
			case x == 4:
				v = math.Round(v) // a value met before, maybe
			}
			c[i] = v
		}
		checkCurveStats(t, k, c)
	}
}

// checkCurveStats holds Compute's curve statistics over c (points a
// minute apart, with an hour's gap every 50) to naiveCurveStats', to the
// bit; k names the curve in a failure.
func checkCurveStats(t *testing.T, k int, c []float64) {
	t.Helper()
	n := len(c)
	var cv Curve
	for i, v := range c {
		cv.Append(int64(i)*60_000+int64(i/50)*3_600_000, v)
	}
	m := Compute(ComputeInput{Curve: cv})
	peak, nn, sum, ss, down, maxDD, maxDur, avgDD := naiveCurveStats(c, cv.At)
	ppy := periodsPerYear(cv)
	want := Metrics{MaxDrawdownPct: maxDD * 100, MaxDrawdownDur: maxDur.String(), AvgDrawdownPct: avgDD * 100}
	if f0, f1 := c[0], c[n-1]; nn > 1 && ppy > 0 && f0 > 0 && f1 > 0 {
		mean := sum / float64(nn)
		sd := math.Sqrt(ss / float64(nn-1))
		want.AnnVolPct = sd * math.Sqrt(ppy) * 100
		if sd > 0 {
			want.Sharpe = mean / sd * math.Sqrt(ppy)
		}
		if dd := math.Sqrt(down / float64(nn)); dd > 0 {
			want.Sortino = mean / dd * math.Sqrt(ppy)
		}
		want.AnnReturnPct = (math.Pow(f1/f0, ppy/float64(nn)) - 1) * 100
	}
	got := Metrics{MaxDrawdownPct: m.MaxDrawdownPct, MaxDrawdownDur: m.MaxDrawdownDur, AvgDrawdownPct: m.AvgDrawdownPct,
		AnnVolPct: m.AnnVolPct, Sharpe: m.Sharpe, Sortino: m.Sortino, AnnReturnPct: m.AnnReturnPct}
	bits := func(x Metrics) [7]uint64 {
		return [7]uint64{math.Float64bits(x.MaxDrawdownPct), math.Float64bits(x.AvgDrawdownPct), math.Float64bits(x.AnnVolPct),
			math.Float64bits(x.Sharpe), math.Float64bits(x.Sortino), math.Float64bits(x.AnnReturnPct), uint64(len(x.MaxDrawdownDur))}
	}
	if bits(got) != bits(want) || got.MaxDrawdownDur != want.MaxDrawdownDur || m.EquityPeak != exactAt(cv, nil, peak) {
		t.Fatalf("curve %d (%d points): got %+v peak %s,\nwant %+v peak %s\n%v", k, n, got, m.EquityPeak, want, exactAt(cv, nil, peak), c)
	}
}

// TestComputeMovingCurves is TestComputeFlatStretches over curves that
// move at most points, as a run holding a position does (returns of
// random sign, new highs and new lows, so every branch Compute takes
// without one goes both ways), with a few flat stretches, zeros of both
// signs, negative values, infinities and NaNs.
func TestComputeMovingCurves(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for k := range 600 {
		n := 2 + r.IntN(2000)
		c := make([]float64, n)
		v := 100.0
		drift := (r.Float64() - 0.5) * 0.004
		for i := range c {
			switch x := r.IntN(200); {
			case x < 150:
				v *= 1 + drift + (r.Float64()-0.5)*0.02
			case x < 180:
				// flat: the point before's value
			case x < 185:
				v *= 1 + (r.Float64()-0.5)*1e-15 // a return that may round to 0
			case x == 185 && k%3 == 0:
				v = math.Copysign(0, float64(r.IntN(2))-0.5)
			case x == 186 && k%5 == 1:
				v = -v
			case x == 187 && k%7 == 2:
				v = math.Inf(1 - 2*r.IntN(2))
			case x == 188 && k%11 == 3:
				v = math.NaN()
			case x == 189 && k%13 == 4:
				v = math.MaxFloat64
			default:
				if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) || v == math.MaxFloat64 {
					v = 100 * (0.5 + r.Float64())
				}
			}
			c[i] = v
		}
		checkCurveStats(t, k, c)
	}
}

package indicator

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNonFiniteInputsAreIgnored feeds every indicator the real bars with
// NaN, +Inf and −Inf (and, for VWAP, a negative volume) slipped into each
// field it reads, before and after it is ready. A bad bar must leave every
// output exactly as it was, and every later output must be exactly that
// of the run without bad bars.
func TestNonFiniteInputsAreIgnored(t *testing.T) {
	t.Parallel()
	clean := loadBars(t)[:300]
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			want := run(a.make(t), clean)
			s := a.make(t)
			prev := s.outs()
			var injected int
			for i, b := range clean {
				if i%7 == 0 { // at 0 (nothing seen yet), at 14 (during warm-up), ... at 294
					for _, bad := range badBars(b, a.fields) {
						s.update(bad)
						injected++
						if got := s.outs(); !sameAll(got, prev) {
							t.Fatalf("bar %d: bad bar %+v changed outputs %v to %v", i, bad, prev, got)
						}
					}
				}
				s.update(b)
				prev = s.outs()
				if !sameAll(prev, want[i]) {
					t.Fatalf("bar %d: outputs %v, want %v as without bad bars", i, prev, want[i])
				}
			}
			if injected < 3*43 {
				t.Fatalf("only %d bad bars", injected)
			}
		})
	}
}

// badBars returns copies of b with one field it reads made invalid.
func badBars(b bar, fields string) []bar {
	var out []bar
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, f := range fields {
			x := b
			switch f {
			case 'h':
				x.h = bad
			case 'l':
				x.l = bad
			case 'c':
				x.c = bad
			case 'v':
				x.v = bad
			}
			out = append(out, x)
		}
	}
	if strings.ContainsRune(fields, 'v') {
		x := b
		x.v = -1
		out = append(out, x)
	}
	return out
}

func sameAll(a, b []float64) bool {
	for i := range a {
		if !same(a[i], b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

// TestReset checks that Reset forgets everything: nothing is defined right
// after it, and the outputs that follow are exactly those of a new
// indicator.
func TestReset(t *testing.T) {
	t.Parallel()
	bars := loadBars(t)[:400]
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			want := run(a.make(t), bars)
			s := a.make(t)
			run(s, bars[100:250])
			s.reset()
			for j, v := range s.outs() {
				if !math.IsNaN(v) {
					t.Fatalf("output %d defined (%v) right after Reset", j, v)
				}
			}
			got := run(s, bars)
			for i := range got {
				if !sameAll(got[i], want[i]) {
					t.Fatalf("bar %d after Reset: %v, want %v", i, got[i], want[i])
				}
			}
		})
	}
}

// TestRollingMaxMinMatchesBruteForce compares the deques, and the block
// method the Stochastic uses, with a scan of the window on random data full
// of ties.
func TestRollingMaxMinMatchesBruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 3000)
	for i := range vals {
		vals[i] = float64(rng.IntN(7) - 3)
	}
	for n := 1; n <= 12; n++ {
		hi, lo := must(NewMax(n))(t), must(NewMin(n))(t)
		blk := newBlockMax(n)
		for i, v := range vals {
			hi.Update(v)
			lo.Update(v)
			blk.push(v)
			if i+1 < n {
				if blk.ready() {
					t.Fatalf("n=%d: block method ready after %d values", n, i+1)
				}
				continue
			}
			wantHi, wantLo := math.Inf(-1), math.Inf(1)
			for _, x := range vals[i+1-n : i+1] {
				wantHi, wantLo = max(wantHi, x), min(wantLo, x)
			}
			if hi.Value() != wantHi || lo.Value() != wantLo || !blk.ready() || blk.value() != wantHi {
				t.Fatalf("n=%d at %d: max %v min %v block max %v, want %v %v", n, i, hi.Value(), lo.Value(), blk.value(), wantHi, wantLo)
			}
		}
	}
}

// TestNoDriftAfterScaleChange runs the rolling-window indicators through a
// long stretch of prices near 1e6 and then prices near 0.01 (a coin losing
// eight orders of magnitude), and compares them with the window recomputed
// from scratch. A plain running sum would carry the rounding error of the
// large values, about 1e-10 per update, into the small ones for ever.
func TestNoDriftAfterScaleChange(t *testing.T) {
	t.Parallel()
	const n = 20
	rng := rand.New(rand.NewPCG(3, 4))
	var xs, vs []float64
	for i := range 60000 {
		scale := 1e6
		if i >= 50000 {
			scale = 0.01
		}
		xs = append(xs, scale*(1+0.05*rng.Float64()))
		vs = append(vs, 1+100*rng.Float64())
	}
	sma, wma := must(NewSMA(n))(t), must(NewWMA(n))(t)
	bb, vw := must(NewBollinger(n, 2))(t), must(NewRollingVWAP(n))(t)
	var worst [5]float64
	for i, x := range xs {
		sma.Update(x)
		wma.Update(x)
		bb.Update(x)
		vw.Update(x, x, x, vs[i])
		if i < 50000+n {
			continue
		}
		win, vol := xs[i+1-n:i+1], vs[i+1-n:i+1]
		var s, ws, pv, v ksum
		for j, x := range win {
			s.add(x)
			ws.add(float64(j+1) * x)
			pv.add(vol[j] * x)
			v.add(vol[j])
		}
		mean := s.value() / n
		var m2 float64
		for _, x := range win {
			m2 += (x - mean) * (x - mean)
		}
		for k, pair := range [][2]float64{
			{sma.Value(), mean},
			{wma.Value(), ws.value() / (n * (n + 1) / 2)},
			{bb.Middle(), mean},
			{bb.StdDev(), math.Sqrt(m2 / n)},
			{vw.Value(), pv.value() / v.value()},
		} {
			worst[k] = max(worst[k], math.Abs(pair[0]-pair[1])/math.Abs(pair[1]))
		}
	}
	for k, name := range []string{"SMA", "WMA", "Bollinger middle", "Bollinger stddev", "rolling VWAP"} {
		if worst[k] > 1e-12 {
			t.Errorf("%s: relative error %.3g after the scale change", name, worst[k])
		}
		t.Logf("%s: largest relative error %.3g", name, worst[k])
	}
}

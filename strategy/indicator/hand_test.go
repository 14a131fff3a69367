package indicator

import (
	"math"
	"testing"
)

// near allows one rounding of a hand-computed fraction.
func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*max(math.Abs(want), 1)
}

// checkSeq feeds values one at a time and checks the output after each:
// NaN in want means "not ready yet" (and Value must then be 0).
func checkSeq(t *testing.T, a average, in, want []float64) {
	t.Helper()
	for i, v := range in {
		a.Update(v)
		switch {
		case math.IsNaN(want[i]):
			if a.Ready() || a.Value() != 0 {
				t.Fatalf("after %v (#%d): Ready %v Value %v, want not ready and 0", v, i+1, a.Ready(), a.Value())
			}
		case !a.Ready() || !near(a.Value(), want[i]):
			t.Fatalf("after %v (#%d): Ready %v Value %v, want %v", v, i+1, a.Ready(), a.Value(), want[i])
		}
	}
}

var nan = math.NaN()

func TestHandAverages(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		a    average
		in   []float64
		want []float64
	}{
		{"SMA(1)", must(NewSMA(1))(t), []float64{5, -2, 7}, []float64{5, -2, 7}},
		{"SMA(3)", must(NewSMA(3))(t), []float64{1, 2, 3, 4, 5, 10}, []float64{nan, nan, 2, 3, 4, 19.0 / 3}},
		// α = 2/(3+1) = 0.5; the seed is the mean of 2, 4, 6.
		{"EMA(3)", must(NewEMA(3))(t), []float64{2, 4, 6, 8, 10, 0}, []float64{nan, nan, 4, 6, 8, 4}},
		// α = 2/5: the seed (1+2+3+6)/4 = 3, then 3 + (8−3)·2/5 = 5.
		{"EMA(4) seed then step", must(NewEMA(4))(t), []float64{1, 2, 3, 6, 8}, []float64{nan, nan, nan, 3, 5}},
		{"EMA(1) is the input", must(NewEMA(1))(t), []float64{3, 9, -1}, []float64{3, 9, -1}},
		// Weights 1, 2, 3 over 6: (1+4+9)/6, (2+6+12)/6, (3+8+15)/6 ... then (4+10+0)/6.
		{"WMA(3)", must(NewWMA(3))(t), []float64{1, 2, 3, 4, 5, 0}, []float64{nan, nan, 14.0 / 6, 20.0 / 6, 26.0 / 6, 14.0 / 6}},
		{"Max(3)", must(NewMax(3))(t), []float64{5, 1, 3, 2, 4, 0, -1, -1, -2}, []float64{nan, nan, 5, 3, 4, 4, 4, 0, -1}},
		{"Min(3)", must(NewMin(3))(t), []float64{5, 1, 3, 2, 4, 0, -1, 7, 8, 9}, []float64{nan, nan, 1, 1, 2, 0, -1, -1, -1, 7}},
		{"Max(1)", must(NewMax(1))(t), []float64{3, 1, 2}, []float64{3, 1, 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkSeq(t, tt.a, tt.in, tt.want)
		})
	}
}

func TestHandRSI(t *testing.T) {
	t.Parallel()
	r := must(NewRSI(2))(t)
	// Changes +1, −1 average to gain 0.5 and loss 0.5 (RSI 50); then +2
	// gives gain (0.5+2)/2 = 1.25 and loss 0.25; then 0 gives 0.625 and
	// 0.125; then −3 gives 0.3125 and 1.5625.
	in := []float64{1, 2, 1, 3, 3, 0}
	want := []struct{ rsi, gain, loss float64 }{
		{nan, 0, 0}, {nan, 0, 0},
		{50, 0.5, 0.5},
		{100 * 1.25 / 1.5, 1.25, 0.25},
		{100 * 0.625 / 0.75, 0.625, 0.125},
		{100 * 0.3125 / 1.875, 0.3125, 1.5625},
	}
	for i, v := range in {
		r.Update(v)
		w := want[i]
		if math.IsNaN(w.rsi) {
			if r.Ready() || r.Value() != 0 || r.AvgGain() != 0 || r.AvgLoss() != 0 {
				t.Fatalf("#%d: ready too early", i+1)
			}
			continue
		}
		if !r.Ready() || !near(r.Value(), w.rsi) || r.AvgGain() != w.gain || r.AvgLoss() != w.loss {
			t.Fatalf("#%d: RSI %v gain %v loss %v, want %+v", i+1, r.Value(), r.AvgGain(), r.AvgLoss(), w)
		}
	}
}

func TestHandRSIDegenerate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		in   []float64
		want float64
	}{
		{"flat", []float64{5, 5, 5, 5}, 50},
		{"only rises", []float64{1, 2, 3, 4}, 100},
		{"only falls", []float64{4, 3, 2, 1}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := must(NewRSI(3))(t)
			for _, v := range tt.in {
				r.Update(v)
			}
			if !r.Ready() || r.Value() != tt.want {
				t.Fatalf("RSI %v (ready %v), want %v", r.Value(), r.Ready(), tt.want)
			}
		})
	}
}

func TestHandMACD(t *testing.T) {
	t.Parallel()
	m := must(NewMACD(2, 3, 2))(t)
	// fast EMA(2), α = 2/3: 2, 2, 14/3, 38/9, 182/27 from the 2nd value;
	// slow EMA(3), α = 1/2: 2, 4, 4, 6 from the 3rd; line = fast − slow:
	// 0, 2/3, 2/9, 20/27; signal EMA(2) of the line: 1/3, 7/27, 47/81.
	in := []float64{1, 3, 2, 6, 4, 8}
	want := []struct{ line, signal, hist float64 }{
		{nan, nan, nan}, {nan, nan, nan},
		{0, nan, nan},
		{2.0 / 3, 1.0 / 3, 1.0 / 3},
		{2.0 / 9, 7.0 / 27, -1.0 / 27},
		{20.0 / 27, 47.0 / 81, 13.0 / 81},
	}
	for i, v := range in {
		m.Update(v)
		w := want[i]
		if m.LineReady() == math.IsNaN(w.line) || m.Ready() == math.IsNaN(w.signal) {
			t.Fatalf("#%d: LineReady %v Ready %v", i+1, m.LineReady(), m.Ready())
		}
		if !math.IsNaN(w.line) && !near(m.Value(), w.line) {
			t.Fatalf("#%d: line %v, want %v", i+1, m.Value(), w.line)
		}
		if math.IsNaN(w.signal) {
			if m.Signal() != 0 || m.Histogram() != 0 {
				t.Fatalf("#%d: signal %v histogram %v before Ready", i+1, m.Signal(), m.Histogram())
			}
			continue
		}
		if !near(m.Signal(), w.signal) || !near(m.Histogram(), w.hist) {
			t.Fatalf("#%d: signal %v histogram %v, want %v %v", i+1, m.Signal(), m.Histogram(), w.signal, w.hist)
		}
	}
}

func TestHandBollinger(t *testing.T) {
	t.Parallel()
	b := must(NewBollinger(3, 2))(t)
	// Windows (2,4,6) and (4,6,8) have means 4 and 6 and the same
	// population variance (4+0+4)/3 = 8/3; then (6,8,8): mean 22/3,
	// variance (16/9+4/9+4/9)/3 = 8/9.
	sd1, sd2 := math.Sqrt(8.0/3), math.Sqrt(8.0/9)
	in := []float64{2, 4, 6, 8, 8}
	want := []struct{ mid, sd, last float64 }{
		{nan, 0, 0}, {nan, 0, 0}, {4, sd1, 6}, {6, sd1, 8}, {22.0 / 3, sd2, 8},
	}
	for i, v := range in {
		b.Update(v)
		w := want[i]
		if math.IsNaN(w.mid) {
			if b.Ready() || b.Value() != 0 || b.Upper() != 0 || b.Lower() != 0 || b.StdDev() != 0 || b.PercentB() != 0 {
				t.Fatalf("#%d: defined too early", i+1)
			}
			continue
		}
		up, lo := w.mid+2*w.sd, w.mid-2*w.sd
		if !near(b.Middle(), w.mid) || b.Value() != b.Middle() || !near(b.StdDev(), w.sd) ||
			!near(b.Upper(), up) || !near(b.Lower(), lo) || !near(b.PercentB(), (w.last-lo)/(up-lo)) {
			t.Fatalf("#%d: mid %v sd %v up %v lo %v %%b %v, want %v %v %v %v", i+1,
				b.Middle(), b.StdDev(), b.Upper(), b.Lower(), b.PercentB(), w.mid, w.sd, up, lo)
		}
	}
	flat := must(NewBollinger(3, 2))(t)
	for range 5 {
		flat.Update(7)
	}
	if flat.StdDev() != 0 || flat.Upper() != 7 || flat.Lower() != 7 || flat.PercentB() != 0.5 {
		t.Errorf("flat window: sd %v bands %v..%v %%b %v", flat.StdDev(), flat.Lower(), flat.Upper(), flat.PercentB())
	}
}

func TestHandATR(t *testing.T) {
	t.Parallel()
	a := must(NewATR(2))(t)
	// True ranges: 3 (high−low), 1 (|low − previous close|), 5 (a gap up:
	// |high − previous close|), 7 (a gap down: |low − previous close|).
	bars := []struct{ h, l, c, tr, atr float64 }{
		{10, 8, 9, 0, nan},
		{12, 9, 11, 3, nan},
		{11, 10, 10, 1, 2},
		{15, 12, 14, 5, 3.5},
		{9, 7, 8, 7, 5.25},
	}
	for i, b := range bars {
		a.Update(b.h, b.l, b.c)
		if a.TrueRange() != b.tr {
			t.Fatalf("#%d: true range %v, want %v", i+1, a.TrueRange(), b.tr)
		}
		if math.IsNaN(b.atr) {
			if a.Ready() || a.Value() != 0 {
				t.Fatalf("#%d: ready too early", i+1)
			}
			continue
		}
		if !a.Ready() || a.Value() != b.atr {
			t.Fatalf("#%d: ATR %v, want %v", i+1, a.Value(), b.atr)
		}
	}
}

func TestHandStochastic(t *testing.T) {
	t.Parallel()
	s := must(NewStochastic(3, 2))(t)
	bars := []struct{ h, l, c, k, d float64 }{
		{10, 6, 8, nan, nan},
		{12, 7, 11, nan, nan},
		{11, 9, 10, 100 * 4.0 / 6, nan},          // range 6..12
		{13, 10, 13, 100, (100*4.0/6 + 100) / 2}, // range 7..13
		{9, 8, 8, 0, 50},                         // range 8..13
		{8, 8, 8, 0, 0},                          // range 8..13, close at the low
	}
	for i, b := range bars {
		s.Update(b.h, b.l, b.c)
		if s.KReady() == math.IsNaN(b.k) || s.Ready() == math.IsNaN(b.d) {
			t.Fatalf("#%d: KReady %v Ready %v", i+1, s.KReady(), s.Ready())
		}
		if !math.IsNaN(b.k) && (!near(s.K(), b.k) || s.Value() != s.K()) {
			t.Fatalf("#%d: %%K %v, want %v", i+1, s.K(), b.k)
		}
		if !math.IsNaN(b.d) && !near(s.D(), b.d) {
			t.Fatalf("#%d: %%D %v, want %v", i+1, s.D(), b.d)
		}
	}
	flat := must(NewStochastic(2, 1))(t)
	flat.Update(5, 5, 5)
	flat.Update(5, 5, 5)
	if !flat.Ready() || flat.K() != 0 || flat.D() != 0 {
		t.Errorf("zero range: %%K %v %%D %v", flat.K(), flat.D())
	}
}

func TestHandVWAP(t *testing.T) {
	t.Parallel()
	type b struct{ h, l, c, v float64 }
	// Typical prices 2, 4, 9, 1 (the first bar has no volume).
	bars := []b{{3, 1, 2, 0}, {3, 1, 2, 1}, {6, 3, 3, 3}, {9, 9, 9, 0}, {1, 1, 1, 2}}
	for _, tt := range []struct {
		name string
		w    *VWAP
		want []float64
	}{
		// (2·1 + 4·3)/4 = 3.5, unchanged by a zero-volume bar, then (14 + 2)/6.
		{"cumulative", NewVWAP(), []float64{nan, 2, 3.5, 3.5, 16.0 / 6}},
		// Over 2 bars: (2+12)/4, then 12/3, then (0 + 2)/2.
		{"rolling 2", must(NewRollingVWAP(2))(t), []float64{nan, 2, 3.5, 4, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for i, x := range bars {
				tt.w.Update(x.h, x.l, x.c, x.v)
				if math.IsNaN(tt.want[i]) {
					if tt.w.Ready() || tt.w.Value() != 0 {
						t.Fatalf("#%d: ready with no volume", i+1)
					}
					continue
				}
				if !tt.w.Ready() || !near(tt.w.Value(), tt.want[i]) {
					t.Fatalf("#%d: VWAP %v, want %v", i+1, tt.w.Value(), tt.want[i])
				}
			}
		})
	}
	if NewVWAP().Period() != 0 || must(NewRollingVWAP(5))(t).Period() != 5 {
		t.Error("Period")
	}
	// A rolling window of zero-volume bars has no price.
	w := must(NewRollingVWAP(2))(t)
	for _, x := range []b{{3, 1, 2, 5}, {3, 1, 2, 0}, {3, 1, 2, 0}} {
		w.Update(x.h, x.l, x.c, x.v)
	}
	if w.Ready() || w.Value() != 0 {
		t.Errorf("zero-volume window: ready %v value %v", w.Ready(), w.Value())
	}
	// Volumes whose sum rounds: after they leave the window, nothing of
	// them may remain to fake a price.
	r := must(NewRollingVWAP(3))(t)
	for _, v := range []float64{0.1, 0.2, 0.7, 0, 0, 0} {
		r.Update(1.0/3, 1.0/7, 0.3, v)
	}
	if r.Ready() || r.Value() != 0 {
		t.Errorf("after traded bars left: ready %v value %v", r.Ready(), r.Value())
	}
	r.Update(3, 1, 2, 0.5)
	if !r.Ready() || r.Value() != 2 {
		t.Errorf("one traded bar at typical price 2: ready %v value %v", r.Ready(), r.Value())
	}
}

func TestConstructorErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"SMA", second(NewSMA(0)), "indicator: NewSMA: n must be at least 1, got 0"},
		{"EMA", second(NewEMA(-3)), "indicator: NewEMA: n must be at least 1, got -3"},
		{"WMA", second(NewWMA(0)), "indicator: NewWMA: n must be at least 1, got 0"},
		{"RSI", second(NewRSI(0)), "indicator: NewRSI: n must be at least 1, got 0"},
		{"MACD fast", second(NewMACD(0, 26, 9)), "indicator: NewMACD: fast must be at least 1, got 0"},
		{"MACD slow", second(NewMACD(12, 12, 9)), "indicator: NewMACD: slow must be greater than fast (12), got 12"},
		{"MACD signal", second(NewMACD(12, 26, 0)), "indicator: NewMACD: signal must be at least 1, got 0"},
		{"Bollinger n", second(NewBollinger(0, 2)), "indicator: NewBollinger: n must be at least 1, got 0"},
		{"Bollinger k zero", second(NewBollinger(20, 0)), "indicator: NewBollinger: k must be finite and positive, got 0"},
		{"Bollinger k NaN", second(NewBollinger(20, math.NaN())), "indicator: NewBollinger: k must be finite and positive, got NaN"},
		{"Bollinger k Inf", second(NewBollinger(20, math.Inf(1))), "indicator: NewBollinger: k must be finite and positive, got +Inf"},
		{"ATR", second(NewATR(0)), "indicator: NewATR: n must be at least 1, got 0"},
		{"Stochastic n", second(NewStochastic(0, 3)), "indicator: NewStochastic: n must be at least 1, got 0"},
		{"Stochastic d", second(NewStochastic(14, 0)), "indicator: NewStochastic: d must be at least 1, got 0"},
		{"Max", second(NewMax(0)), "indicator: NewMax: n must be at least 1, got 0"},
		{"Min", second(NewMin(0)), "indicator: NewMin: n must be at least 1, got 0"},
		{"RollingVWAP", second(NewRollingVWAP(0)), "indicator: NewRollingVWAP: n must be at least 1, got 0"},
	} {
		if tt.err == nil || tt.err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, tt.err, tt.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestPeriods(t *testing.T) {
	t.Parallel()
	got := []int{must(NewSMA(4))(t).Period(), must(NewEMA(5))(t).Period(), must(NewWMA(6))(t).Period(),
		must(NewRSI(7))(t).Period(), must(NewATR(8))(t).Period(), must(NewMax(9))(t).Period(), must(NewMin(10))(t).Period()}
	for i, g := range got {
		if g != i+4 {
			t.Errorf("Period #%d = %d, want %d", i, g, i+4)
		}
	}
}

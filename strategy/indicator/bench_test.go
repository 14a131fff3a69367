package indicator

import "testing"

// benchBars returns 4096 real bars (a power of two, so the loop can wrap
// with a mask).
func benchBars(b *testing.B) []bar {
	b.Helper()
	return loadBars(b)[:4096]
}

// Each benchmark measures one Update on real data. Targets: ≤ 25 ns and 0
// allocations per update.

func benchValue(b *testing.B, update func(float64)) {
	bars := benchBars(b)
	closes := make([]float64, len(bars))
	for i, x := range bars {
		closes[i] = x.c
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		update(closes[i&4095])
		i++
	}
}

func benchBar(b *testing.B, update func(bar)) {
	bars := benchBars(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		update(bars[i&4095])
		i++
	}
}

func BenchmarkSMA(b *testing.B)  { benchValue(b, must(NewSMA(20))(b).Update) }
func BenchmarkEMA(b *testing.B)  { benchValue(b, must(NewEMA(20))(b).Update) }
func BenchmarkWMA(b *testing.B)  { benchValue(b, must(NewWMA(20))(b).Update) }
func BenchmarkRSI(b *testing.B)  { benchValue(b, must(NewRSI(14))(b).Update) }
func BenchmarkMACD(b *testing.B) { benchValue(b, must(NewMACD(12, 26, 9))(b).Update) }
func BenchmarkMax(b *testing.B)  { benchValue(b, must(NewMax(20))(b).Update) }
func BenchmarkMin(b *testing.B)  { benchValue(b, must(NewMin(20))(b).Update) }

func BenchmarkBollinger(b *testing.B) {
	bb := must(NewBollinger(20, 2))(b)
	benchValue(b, bb.Update)
}

func BenchmarkATR(b *testing.B) {
	a := must(NewATR(14))(b)
	benchBar(b, func(x bar) { a.Update(x.h, x.l, x.c) })
}

func BenchmarkStochastic(b *testing.B) {
	s := must(NewStochastic(14, 3))(b)
	benchBar(b, func(x bar) { s.Update(x.h, x.l, x.c) })
}

func BenchmarkVWAP(b *testing.B) {
	w := NewVWAP()
	benchBar(b, func(x bar) { w.Update(x.h, x.l, x.c, x.v) })
}

func BenchmarkRollingVWAP(b *testing.B) {
	w := must(NewRollingVWAP(24))(b)
	benchBar(b, func(x bar) { w.Update(x.h, x.l, x.c, x.v) })
}

// BenchmarkBollinger200 shows the cost of the once-per-window exact
// recomputation on a long window, amortised over the updates.
func BenchmarkBollinger200(b *testing.B) {
	bb := must(NewBollinger(200, 2))(b)
	benchValue(b, bb.Update)
}

// BenchmarkBlockMax is the block method the Stochastic uses for its two
// extremes, for comparison with BenchmarkMax (the monotonic deque).
func BenchmarkBlockMax(b *testing.B) {
	m := newBlockMax(20)
	benchValue(b, m.push)
}

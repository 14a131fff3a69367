package backtest

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// BenchmarkCompute is the metrics over a million-point equity curve that
// is flat 60% of the time (no position) and moves otherwise, as a
// smacross run's does: points/s.
func BenchmarkCompute(b *testing.B) {
	benchMovingCurve(b, 7, func(i int) bool { return (i/50)%5 >= 3 })
}

// benchMovingCurve measures Compute over a million-point curve from
// 10,000 whose point i moves by a random return (of seed) where moves(i),
// and is flat elsewhere: points/s.
func benchMovingCurve(b *testing.B, seed uint64, moves func(i int) bool) {
	const n = 1_000_000
	r := rand.New(rand.NewPCG(seed, seed+1))
	var c Curve
	v := 10_000.0
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for i := range n {
		if moves(i) {
			v *= 1 + (r.Float64()-0.5)*0.002
		}
		c.Append(t0+int64(i)*60_000, v)
	}
	in := ComputeInput{Curve: c, Exact: map[int]decimal.Decimal{0: decimal.NewFromInt(10_000)}}
	b.ReportAllocs()
	for b.Loop() {
		if m := Compute(in); m.Bars != n {
			b.Fatal(m.Bars)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

// BenchmarkComputeFlat is BenchmarkCompute over a curve that never moves
// (a run that never trades, as BenchmarkMillionBarsNoOrders'), with an
// hourly gap every 10,000 points: points/s.
func BenchmarkComputeFlat(b *testing.B) {
	const n = 1_000_000
	var c Curve
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for i := range n {
		if i%10_000 == 0 {
			at += 3_600_000
		}
		c.Append(at, 0.25)
		at += 60_000
	}
	in := ComputeInput{Curve: c, Exact: map[int]decimal.Decimal{0: decimal.RequireFromString("0.25")}}
	b.ReportAllocs()
	for b.Loop() {
		if m := Compute(in); m.Bars != n || m.MaxDrawdownPct != 0 || m.ReturnPct != 0 {
			b.Fatal(m.Bars, m.MaxDrawdownPct, m.ReturnPct)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

// BenchmarkComputeMoving is BenchmarkCompute over a curve that moves at
// 85% of its points (a run holding a position most of the time, as the
// million-bar smacross run's does), returns of random sign, in stretches
// between flat ones: points/s.
func BenchmarkComputeMoving(b *testing.B) {
	benchMovingCurve(b, 9, func(i int) bool { return (i/20)%20 >= 3 })
}

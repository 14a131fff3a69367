package indicator

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkAdvancePair steps a 10 and a 30 simple average over a million
// values of a random walk generated afresh, as a crossover strategy's
// fast path does: AdvancePair up to the next cross, the value there taken
// with Update, and on with the standing flipped.
func BenchmarkAdvancePair(b *testing.B) {
	vals := randomWalk(rand.New(rand.NewPCG(11, 3)), 1_000_000, 20_000, 1000, 0)
	b.ReportAllocs()
	stops := 0
	for b.Loop() {
		fast, slow := must(NewSMA(10))(b), must(NewSMA(30))(b)
		above := false
		stops = 0
		for i := 0; i < len(vals); {
			i += AdvancePair(fast, slow, vals[i:], !above, above)
			if i < len(vals) {
				fast.Update(vals[i])
				slow.Update(vals[i])
				above = fast.Value() > slow.Value()
				stops++
				i++
			}
		}
	}
	b.ReportMetric(float64(len(vals))*float64(b.N)/b.Elapsed().Seconds(), "bars/s")
	b.ReportMetric(float64(stops), "stops")
}

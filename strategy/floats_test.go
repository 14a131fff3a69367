package strategy

import (
	"math"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// TestBarsFloats checks the float view of a run's fields against
// exchange.Fixed.Float64, bit for bit: coefficients around 2^53 (past it
// the division would not be exact, so the decimal is built), zero (a
// volume), and exponents from 0 to -36 (10^22 is the last exact power);
// At and Fill agree, and Fill stops at the run's end.
func TestBarsFloats(t *testing.T) {
	prices := []int64{1, 7, 123456789, 1<<53 - 1, 1 << 53, 1<<53 + 1, 1<<62 + 12345, math.MaxInt64}
	vols := []int64{0, 3, 1<<53 + 1, 1 << 53, 99, 1<<53 - 1, 0, 1 << 60}
	for _, exp := range []int32{0, -1, -2, -8, -21, -22, -23, -24, -36} {
		n := len(prices)
		times := make([]int64, n)
		for i := range times {
			times[i] = int64(i) * 60_000
		}
		s, err := marketdata.NewSeries("X", exchange.Interval1m, exp, exp, times, prices, prices, prices, prices, vols)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []marketdata.Field{marketdata.Close, marketdata.Volume} {
			col := s.Ints(f)
			for lo := 0; lo <= 3; lo++ {
				v := NewBars(s, lo, n).Floats(f)
				if v.Len() != n-lo {
					t.Fatalf("exp %d from %d: Len %d, want %d", exp, lo, v.Len(), n-lo)
				}
				dst := make([]float64, n+5)
				if got := v.Fill(dst, 1); got != n-lo-1 {
					t.Fatalf("exp %d from %d: Fill set %d, want %d", exp, lo, got, n-lo-1)
				}
				for i := range v.Len() {
					want := exchange.Fixed{Coef: col[lo+i], Exp: exp}.Float64()
					if got := v.At(i); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%s, exp %d, coefficient %d: At %v, want %v", f, exp, col[lo+i], got, want)
					}
					if i > 0 && math.Float64bits(dst[i-1]) != math.Float64bits(want) {
						t.Fatalf("%s, exp %d, coefficient %d: Fill %v, want %v", f, exp, col[lo+i], dst[i-1], want)
					}
				}
			}
		}
	}
}

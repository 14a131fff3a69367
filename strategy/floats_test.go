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

// TestFloatCache checks the closes' cache: Closes converts a chunk on a
// miss, appends the next chunk after the ones it holds (keeping the last
// quarter when full) and starts over when the bars are elsewhere; Held
// answers for a run only when all of it is held; Floats.Fill over bars
// with the cache copies what it holds and converts the rest; every value
// is the column's Float64, bit for bit.
func TestFloatCache(t *testing.T) {
	const n = 100
	times, closes, others := make([]int64, n), make([]int64, n), make([]int64, n)
	for i := range n {
		times[i] = int64(i) * 60_000
		closes[i] = 1_000_000 + int64(i)*7919%1000
		if i == 40 {
			closes[i] = 1<<53 + 1 // converted through the decimal
		}
		others[i] = 5
	}
	s, err := marketdata.NewSeries("X", exchange.Interval1m, -3, 0, times, others, closes, others, closes, others)
	if err != nil {
		t.Fatal(err)
	}
	other, err := marketdata.NewSeries("Y", exchange.Interval1m, -3, 0, times, others, closes, others, closes, others)
	if err != nil {
		t.Fatal(err)
	}
	want := func(i int) float64 { return exchange.Fixed{Coef: closes[i], Exp: -3}.Float64() }
	same := func(what string, got []float64, from int) {
		t.Helper()
		for j, v := range got {
			if math.Float64bits(v) != math.Float64bits(want(from+j)) {
				t.Fatalf("%s: close %d is %v, want %v", what, from+j, v, want(from+j))
			}
		}
	}
	c := NewFloatCache(16)
	if c.Cap() != 16 {
		t.Fatalf("Cap %d", c.Cap())
	}
	bars := NewBars(s, 10, 60).WithCache(c)
	if bars.Cache() != c || NewBars(s, 0, 1).Cache() != nil {
		t.Fatal("Cache does not return the cache the bars carry")
	}
	for _, step := range []struct {
		at, size     int
		len          int // of the slice returned
		from, cached int // the cache's state after
	}{
		{0, 4, 4, 10, 4},    // a miss: bars 10-13 converted
		{2, 4, 2, 10, 4},    // a hit: what is held from there on
		{4, 8, 8, 10, 12},   // right after the held ones: appended
		{12, 8, 4, 10, 16},  // appended up to the room left
		{16, 3, 3, 22, 7},   // full: the last quarter kept, then appended
		{1, 50, 16, 11, 16}, // before the held ones: started over, at most Cap
		{48, 9, 2, 58, 2},   // none past the bars' end
		{50, 4, 0, 58, 2},   // past the end: nothing
	} {
		got := c.Closes(bars, step.at, step.size)
		if len(got) != step.len || c.from != step.from || len(c.vals) != step.cached {
			t.Fatalf("Closes(%d, %d): %d values, cache from %d holding %d; want %d, %d, %d",
				step.at, step.size, len(got), c.from, len(c.vals), step.len, step.from, step.cached)
		}
		same("Closes", got, 10+step.at)
		same("cache", c.vals, c.from)
	}
	// Another series' bars at the same positions are not taken for these.
	if got := c.Closes(NewBars(other, 58, 60), 0, 2); len(got) != 2 || c.s != other {
		t.Fatalf("other series: %d values, cache of %v", len(got), c.s)
	}
	c.Closes(bars, 30, 8) // bars 40-47 held
	for _, h := range []struct {
		lo, hi int
		ok     bool
	}{{40, 48, true}, {41, 45, true}, {39, 45, false}, {44, 49, false}} {
		got, ok := c.Held(NewBars(s, h.lo, h.hi))
		if ok != h.ok || ok && len(got) != h.hi-h.lo {
			t.Fatalf("Held(%d, %d): %d values %v, want %v", h.lo, h.hi, len(got), ok, h.ok)
		}
		same("Held", got, h.lo)
	}
	if _, ok := c.Held(NewBars(other, 40, 48)); ok {
		t.Fatal("Held answers for another series")
	}
	if _, ok := (*FloatCache)(nil).Held(bars); ok {
		t.Fatal("a nil cache holds bars")
	}
	// Fill over cached bars: before, inside, across and after what is
	// held (40-47), values the same as converting.
	for _, lo := range []int{30, 38, 40, 43, 47, 48, 55} {
		dst := make([]float64, 12)
		b := NewBars(s, lo, n).WithCache(c)
		got := b.Floats(marketdata.Close).Fill(dst, 1)
		if got != min(12, n-lo-1) {
			t.Fatalf("Fill from %d set %d", lo+1, got)
		}
		same("Fill", dst[:got], lo+1)
		if b.Head(3).Len() != 3 || b.Head(3).Cache() != c || b.Head(1000).Len() != n-lo {
			t.Fatalf("Head from %d", lo)
		}
	}
}

package indicator

import (
	"math"
	"testing"
)

// peeker is what Peek is checked on.
type peeker interface {
	Peek(v float64) (float64, bool)
	Update(v float64)
	Value() float64
	Ready() bool
}

// checkPeek feeds vals to ind, checking at each that Peek returned, bit
// for bit, the Value and Ready that Update then gave, and the readiness
// wanted.
func checkPeek(t *testing.T, ind peeker, vals []float64, wantReady []bool) {
	t.Helper()
	for i, v := range vals {
		pv, pr := ind.Peek(v)
		ind.Update(v)
		if pr != ind.Ready() || math.Float64bits(pv) != math.Float64bits(ind.Value()) {
			t.Fatalf("value %d (%v): Peek gave %v, %v; Update then Value, Ready %v, %v", i, v, pv, pr, ind.Value(), ind.Ready())
		}
		if pr != wantReady[i] {
			t.Fatalf("value %d: ready %v, want %v", i, pr, wantReady[i])
		}
	}
}

// TestSMAPeek checks Peek over values whose Kahan sum carries a
// correction, across the window filling and wrapping, and for
// non-finite values (ignored by both).
func TestSMAPeek(t *testing.T) {
	s, err := NewSMA(3)
	if err != nil {
		t.Fatal(err)
	}
	checkPeek(t, s, []float64{0.1, 1e16, 0.3, math.NaN(), -1e16, 0.7, 1.1, math.Inf(1), 2.2, 0.1},
		[]bool{false, false, true, true, true, true, true, true, true, true})
	// The window holds the last three finite values: the average of a
	// fresh SMA given only 1.1, 2.2 and 0.1.
	fresh, _ := NewSMA(3)
	for _, v := range []float64{1.1, 2.2, 0.1} {
		fresh.Update(v)
	}
	if got, want := s.Value(), fresh.Value(); got != want {
		t.Fatalf("final value %v, want %v", got, want)
	}
}

// TestEMAPeek is TestSMAPeek for the EMA, through its seed and after.
func TestEMAPeek(t *testing.T) {
	e, err := NewEMA(2)
	if err != nil {
		t.Fatal(err)
	}
	checkPeek(t, e, []float64{1, math.NaN(), 2, 4, 3.5}, []bool{false, false, true, true, true})
	// Seed 1.5 (the mean of 1 and 2), then each value moves it by α = 2/3
	// of its distance.
	want := 1.5
	want += (4 - want) * (2.0 / 3)
	want += (3.5 - want) * (2.0 / 3)
	if got := e.Value(); got != want {
		t.Fatalf("final value %v, want %v", got, want)
	}
}

// An SMA that peeked at values it was then not given ends as one that
// never peeked: Peek(v) then Update(w) adds w, and a peek survives only
// until the next Update or Reset.
func TestSMAPeekNotTaken(t *testing.T) {
	a, _ := NewSMA(4)
	b, _ := NewSMA(4)
	for i, v := range []float64{1.5, 2.25, 1e15, 3.125, 0.1, 7, 0.3} {
		a.Peek(v + 1)
		a.Peek(math.NaN())
		a.Update(v)
		b.Update(v)
		if i == 4 {
			a.Peek(v)
			a.Reset()
			b.Reset()
		}
		if math.Float64bits(a.Value()) != math.Float64bits(b.Value()) || a.Ready() != b.Ready() {
			t.Fatalf("after %d values: %v, %v against %v, %v", i+1, a.Value(), a.Ready(), b.Value(), b.Ready())
		}
	}
	if got := b.Value(); got != 0 || b.Ready() {
		t.Fatalf("two values after a reset: %v, ready %v", got, b.Ready())
	}
}

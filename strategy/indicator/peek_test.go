package indicator

import (
	"math"
	"testing"
)

// TestSMAPeek checks that Peek returns, bit for bit, the Value and Ready
// that Update then gives, over values whose Kahan sum carries a
// correction, across the window filling and wrapping, and for a
// non-finite value (ignored by both).
func TestSMAPeek(t *testing.T) {
	s, err := NewSMA(3)
	if err != nil {
		t.Fatal(err)
	}
	vals := []float64{0.1, 1e16, 0.3, math.NaN(), -1e16, 0.7, 1.1, math.Inf(1), 2.2, 0.1}
	wantReady := []bool{false, false, true, true, true, true, true, true, true, true}
	for i, v := range vals {
		pv, pr := s.Peek(v)
		s.Update(v)
		if pr != s.Ready() || math.Float64bits(pv) != math.Float64bits(s.Value()) {
			t.Fatalf("value %d (%v): Peek gave %v, %v; Update then Value, Ready %v, %v", i, v, pv, pr, s.Value(), s.Ready())
		}
		if pr != wantReady[i] {
			t.Fatalf("value %d: ready %v, want %v", i, pr, wantReady[i])
		}
	}
	// The window holds the last three finite values: 1.1, 2.2, 0.1.
	if got, want := s.Value(), (1.1+2.2+0.1)/3; math.Abs(got-want) > 1e-15 {
		t.Fatalf("final value %v, want %v", got, want)
	}
}

// TestEMAPeek is TestSMAPeek for the EMA, through its seed and after.
func TestEMAPeek(t *testing.T) {
	e, err := NewEMA(2)
	if err != nil {
		t.Fatal(err)
	}
	vals := []float64{1, math.NaN(), 2, 4, 3.5}
	wantReady := []bool{false, false, true, true, true}
	for i, v := range vals {
		pv, pr := e.Peek(v)
		e.Update(v)
		if pr != e.Ready() || math.Float64bits(pv) != math.Float64bits(e.Value()) {
			t.Fatalf("value %d (%v): Peek gave %v, %v; Update then Value, Ready %v, %v", i, v, pv, pr, e.Value(), e.Ready())
		}
		if pr != wantReady[i] {
			t.Fatalf("value %d: ready %v, want %v", i, pr, wantReady[i])
		}
	}
	// Seed 1.5 (mean of 1 and 2), then α = 2/3: 1.5 + (4-1.5)·2/3 = 3.1666…,
	// then + (3.5 - 3.1666…)·2/3 = 3.3888…
	if got, want := e.Value(), 1.5+(4-1.5)*(2.0/3); math.Abs(got-(want+(3.5-want)*(2.0/3))) > 1e-12 {
		t.Fatalf("final value %v", got)
	}
}

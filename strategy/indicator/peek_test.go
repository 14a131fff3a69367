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

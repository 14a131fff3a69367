package indicator

import (
	"math"
	"testing"
)

// copier is an average CopyTo is checked on.
type copier[T any] interface {
	*T
	Advance(v float64) (float64, bool)
	Undo()
	Value() float64
	CopyTo(dst *T)
}

// checkCopy feeds an average the first half of vals, copies it (into a
// dst of the wrong window length first, then into one that copy already
// sized), and feeds the original, the copies and a fresh copy the rest:
// every value must agree bit for bit, and the copy's updates must leave
// the original where it was.
func checkCopy[T any, P copier[T]](t *testing.T, orig P, dst P, vals []float64, want float64) {
	t.Helper()
	half := len(vals) / 2
	for _, v := range vals[:half] {
		orig.Advance(v)
	}
	at := orig.Value()
	orig.CopyTo((*T)(dst))
	// The copy runs ahead alone: the original must not move.
	for _, v := range vals[half:] {
		dst.Advance(v)
	}
	if math.Float64bits(orig.Value()) != math.Float64bits(at) {
		t.Fatalf("the copy's updates moved the original: %v, was %v", orig.Value(), at)
	}
	orig.CopyTo((*T)(dst)) // again, into a window of the right length
	for i, v := range vals[half:] {
		a, _ := orig.Advance(v)
		b, _ := dst.Advance(v)
		if math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("value %d: the original %v, the copy %v", half+i, a, b)
		}
	}
	// Undo after a copy takes back the copy's own last Advance.
	dst.Undo()
	orig.Undo()
	if math.Float64bits(orig.Value()) != math.Float64bits(dst.Value()) || orig.Value() != want {
		t.Fatalf("after Undo: the original %v, the copy %v; want %v", orig.Value(), dst.Value(), want)
	}
}

var copyVals = []float64{1e16, 1, -1e16, 3, 0.1, 0.2, 0.3, math.NaN(), 5, 7, 11, 13, 17}

func TestSMACopyTo(t *testing.T) {
	s, _ := NewSMA(3)
	d, _ := NewSMA(5) // the wrong length: CopyTo makes its own window
	// After Undo the window holds 7, 11, 13.
	checkCopy(t, s, d, copyVals, 31.0/3)
}

func TestEMACopyTo(t *testing.T) {
	e, _ := NewEMA(3)
	d, _ := NewEMA(7)
	// The EMA after 1e16, 1, -1e16, 3, 0.1, ... , 13 (Undo takes 17
	// back): computed by the same Update, so only the copy's agreement
	// and the value below are checked.
	ref, _ := NewEMA(3)
	for _, v := range copyVals[:len(copyVals)-1] {
		ref.Update(v)
	}
	checkCopy(t, e, d, copyVals, ref.Value())
}

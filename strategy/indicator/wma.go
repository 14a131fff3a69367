package indicator

import "math"

// WMA is the linearly weighted moving average of the last n values: the
// newest has weight n, the oldest weight 1, divided by n(n+1)/2. Its first
// value is defined by the n-th update.
//
// It keeps the window's plain sum S and weighted sum W: when the window
// slides, every weight drops by one (W − S) and the new value enters with
// weight n, so an update is O(1).
type WMA struct {
	buf      []float64
	next     int
	count    int
	sum      ksum // S
	weighted ksum // W
}

// NewWMA returns a WMA over n values; n must be at least 1.
func NewWMA(n int) (*WMA, error) {
	if n < 1 {
		return nil, periodError("NewWMA", "n", n, 1)
	}
	return &WMA{buf: make([]float64, n)}, nil
}

// Update adds a value, dropping the oldest once the window is full.
// A non-finite v is ignored.
func (w *WMA) Update(v float64) {
	if !finite(v) {
		return
	}
	n := len(w.buf)
	if w.count == n {
		// W − S, subtracting both halves of S so its compensation is kept.
		w.weighted.add(-w.sum.s)
		w.weighted.add(-w.sum.c)
		w.sum.add(-w.buf[w.next])
	} else {
		// While filling, the values already held keep their weights 1..count.
		w.count++
	}
	// The product's rounding error goes into the compensation too:
	// W is never recomputed, so an error left in it would stay for ever.
	c := float64(w.count)
	p := c * v
	w.weighted.add(p)
	w.weighted.c += math.FMA(c, v, -p)
	w.sum.add(v)
	w.buf[w.next] = v
	if w.next++; w.next == n {
		w.next = 0
	}
}

// Ready reports whether n values have arrived.
func (w *WMA) Ready() bool { return w.count == len(w.buf) }

// Value returns the weighted average, or 0 before Ready.
func (w *WMA) Value() float64 {
	if !w.Ready() {
		return 0
	}
	n := float64(len(w.buf))
	return w.weighted.value() / (n * (n + 1) / 2)
}

// Period returns n.
func (w *WMA) Period() int { return len(w.buf) }

// Reset forgets all values.
func (w *WMA) Reset() { w.next, w.count, w.sum, w.weighted = 0, 0, ksum{}, ksum{} }

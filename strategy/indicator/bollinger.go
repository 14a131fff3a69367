package indicator

import (
	"fmt"
	"math"
)

// Bollinger is Bollinger Bands over n values: the middle band is their SMA,
// the upper and lower bands the middle ± k standard deviations. The
// standard deviation is the population one (divided by n, not n−1), as in
// Bollinger's definition, TA-Lib and technicalindicators. The bands are
// defined by the n-th update.
//
// The sum of squared deviations is updated in O(1) per value (Welford's
// update for a value replacing another) and recomputed exactly from the
// window each time the window has turned over. That bounds rounding drift
// to one window's worth of updates, at an amortised cost of a few
// floating-point operations per update (the recomputation is O(n), once
// every n updates).
type Bollinger struct {
	k     float64
	buf   []float64
	next  int
	count int
	sum   ksum
	m2    float64 // sum of squared deviations from the mean
	last  float64
}

// NewBollinger returns Bollinger Bands over n values (at least 1) at k
// standard deviations (finite and positive; 2 is usual).
func NewBollinger(n int, k float64) (*Bollinger, error) {
	if n < 1 {
		return nil, periodError("NewBollinger", "n", n, 1)
	}
	if !finite(k) || k <= 0 {
		return nil, fmt.Errorf("indicator: NewBollinger: k must be finite and positive, got %v", k)
	}
	return &Bollinger{k: k, buf: make([]float64, n)}, nil
}

// Update adds a value, dropping the oldest once the window is full.
// A non-finite v is ignored.
func (b *Bollinger) Update(v float64) {
	if !finite(v) {
		return
	}
	n := len(b.buf)
	oldMean := b.sum.value() / float64(max(b.count, 1))
	if b.count == n {
		old := b.buf[b.next]
		b.sum.add(-old)
		b.sum.add(v)
		mean := b.sum.value() / float64(n)
		b.m2 += (v - old) * (v - mean + old - oldMean)
	} else {
		b.count++
		b.sum.add(v)
		mean := b.sum.value() / float64(b.count)
		b.m2 += (v - oldMean) * (v - mean)
	}
	b.buf[b.next] = v
	b.last = v
	if b.next++; b.next == n {
		b.next = 0
		b.resync()
	}
}

// resync recomputes the sum and the squared deviations from the window.
func (b *Bollinger) resync() {
	var s ksum
	for _, x := range b.buf[:b.count] {
		s.add(x)
	}
	mean := s.value() / float64(b.count)
	var m2 float64
	for _, x := range b.buf[:b.count] {
		m2 += (x - mean) * (x - mean)
	}
	b.sum, b.m2 = s, m2
}

// Ready reports whether n values have arrived.
func (b *Bollinger) Ready() bool { return b.count == len(b.buf) }

// Value returns the middle band, or 0 before Ready.
func (b *Bollinger) Value() float64 { return b.Middle() }

// Middle returns the SMA of the window, or 0 before Ready.
func (b *Bollinger) Middle() float64 {
	if !b.Ready() {
		return 0
	}
	return b.sum.value() / float64(len(b.buf))
}

// StdDev returns the population standard deviation of the window, or 0
// before Ready.
func (b *Bollinger) StdDev() float64 {
	if !b.Ready() || b.m2 <= 0 {
		return 0
	}
	return math.Sqrt(b.m2 / float64(len(b.buf)))
}

// Upper returns the middle band plus k standard deviations, or 0 before
// Ready.
func (b *Bollinger) Upper() float64 { return b.Middle() + b.k*b.StdDev() }

// Lower returns the middle band minus k standard deviations, or 0 before
// Ready.
func (b *Bollinger) Lower() float64 { return b.Middle() - b.k*b.StdDev() }

// PercentB returns where the latest value lies between the bands: 0 at the
// lower band, 1 at the upper. When the bands coincide (a flat window) it is
// 0.5. It is 0 before Ready.
func (b *Bollinger) PercentB() float64 {
	if !b.Ready() {
		return 0
	}
	lo, hi := b.Lower(), b.Upper()
	if hi == lo {
		return 0.5
	}
	return (b.last - lo) / (hi - lo)
}

// Reset forgets all values.
func (b *Bollinger) Reset() { b.next, b.count, b.sum, b.m2, b.last = 0, 0, ksum{}, 0, 0 }

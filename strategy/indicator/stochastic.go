package indicator

// Stochastic is the (fast) stochastic oscillator: %K places the close in
// the range of the last n bars, 100·(close − lowest low)/(highest high −
// lowest low), and %D is the SMA of the last d %K values. When the range is
// zero (every high and low equal) %K is 0, as in TA-Lib and
// technicalindicators.
//
// %K is defined by update n and %D (and Ready) by update n+d−1.
type Stochastic struct {
	high *Max
	low  *Min
	d    *SMA
	k    float64
}

// NewStochastic returns a stochastic oscillator over n bars with %D the
// SMA of d %K values, for example 14 and 3; both must be at least 1.
func NewStochastic(n, d int) (*Stochastic, error) {
	if n < 1 {
		return nil, periodError("NewStochastic", "n", n, 1)
	}
	if d < 1 {
		return nil, periodError("NewStochastic", "d", d, 1)
	}
	hi, _ := NewMax(n)
	lo, _ := NewMin(n)
	sd, _ := NewSMA(d)
	return &Stochastic{high: hi, low: lo, d: sd}, nil
}

// Update adds a bar. A bar with a non-finite field is ignored.
func (s *Stochastic) Update(high, low, close float64) {
	if !finite(high) || !finite(low) || !finite(close) {
		return
	}
	s.high.Update(high)
	s.low.Update(low)
	if !s.high.Ready() {
		return
	}
	lo := s.low.Value()
	s.k = 0
	if r := s.high.Value() - lo; r != 0 {
		s.k = (close - lo) / r * 100
	}
	s.d.Update(s.k)
}

// KReady reports whether %K is defined (n bars have arrived).
func (s *Stochastic) KReady() bool { return s.high.Ready() }

// Ready reports whether %K and %D are both defined.
func (s *Stochastic) Ready() bool { return s.d.Ready() }

// Value returns %K, or 0 before KReady.
func (s *Stochastic) Value() float64 { return s.k }

// K returns %K, or 0 before KReady.
func (s *Stochastic) K() float64 { return s.k }

// D returns %D, or 0 before Ready.
func (s *Stochastic) D() float64 { return s.d.Value() }

// Reset forgets all bars.
func (s *Stochastic) Reset() {
	s.high.Reset()
	s.low.Reset()
	s.d.Reset()
	s.k = 0
}

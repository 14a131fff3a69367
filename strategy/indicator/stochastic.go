package indicator

// Stochastic is the (fast) stochastic oscillator: %K places the close in
// the range of the last n bars, 100·(close − lowest low)/(highest high −
// lowest low), and %D is the SMA of the last d %K values. When the range is
// zero (every high and low equal) %K is 0, as in TA-Lib and
// technicalindicators.
//
// %K is defined by update n and %D (and Ready) by update n+d−1.
type Stochastic struct {
	// The extremes use the block method rather than Max and Min: this
	// update needs two of them, and the deques' data-dependent branches
	// would be mispredicted about twice per update.
	high blockMax // of the highs
	low  blockMax // of the negated lows
	k    float64

	// %D is the mean of the last d %K values, kept in a ring with a plain
	// running sum. %K lies in [0, 100], so the sum cannot lose a scale the
	// way a price sum can, and it is recomputed from the ring each time the
	// ring wraps, which keeps rounding from accumulating (O(d) once every d
	// updates).
	ks     []float64
	kNext  int
	kCount int
	kSum   float64
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
	return &Stochastic{high: newBlockMax(n), low: newBlockMax(n), ks: make([]float64, d)}, nil
}

// Update adds a bar. A bar with a non-finite field is ignored.
func (s *Stochastic) Update(high, low, close float64) {
	if !finite(high) || !finite(low) || !finite(close) {
		return
	}
	s.high.push(high)
	s.low.push(-low)
	if !s.high.ready() {
		return
	}
	lo := -s.low.value()
	s.k = 0
	if r := s.high.value() - lo; r != 0 {
		s.k = (close - lo) / r * 100
	}
	if s.kCount == len(s.ks) {
		s.kSum -= s.ks[s.kNext]
	} else {
		s.kCount++
	}
	s.kSum += s.k
	s.ks[s.kNext] = s.k
	if s.kNext++; s.kNext == len(s.ks) {
		s.kNext = 0
		s.kSum = 0
		for _, k := range s.ks[:s.kCount] {
			s.kSum += k
		}
	}
}

// KReady reports whether %K is defined (n bars have arrived).
func (s *Stochastic) KReady() bool { return s.high.ready() }

// Ready reports whether %K and %D are both defined.
func (s *Stochastic) Ready() bool { return s.kCount == len(s.ks) }

// Value returns %K, or 0 before KReady.
func (s *Stochastic) Value() float64 { return s.k }

// K returns %K, or 0 before KReady.
func (s *Stochastic) K() float64 { return s.k }

// D returns %D, or 0 before Ready.
func (s *Stochastic) D() float64 {
	if !s.Ready() {
		return 0
	}
	return s.kSum / float64(len(s.ks))
}

// Reset forgets all bars.
func (s *Stochastic) Reset() {
	s.high.reset()
	s.low.reset()
	s.k, s.kNext, s.kCount, s.kSum = 0, 0, 0, 0
}

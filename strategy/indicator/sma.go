package indicator

import "math"

// SMA is the simple moving average: the mean of the last n values. Its
// first value is defined by the n-th update.
type SMA struct {
	buf   []float64 // the window, a ring; next is the slot to overwrite
	next  int
	count int
	sum   ksum
	// peek is the state Peek computed for a value; an Update with the
	// same value (the same bits) takes it instead of adding again.
	peek struct {
		ok    bool
		v     float64
		sum   ksum
		count int
	}
	// undo is the state before the last Advance, for Undo.
	undo struct {
		ok    bool
		sum   ksum
		count int
		next  int
		old   float64 // the slot's value Advance overwrote
	}
}

// NewSMA returns an SMA over n values; n must be at least 1.
func NewSMA(n int) (*SMA, error) {
	if n < 1 {
		return nil, periodError("NewSMA", "n", n, 1)
	}
	return &SMA{buf: make([]float64, n)}, nil
}

// Update adds a value, dropping the oldest once the window is full.
// A non-finite v is ignored.
func (s *SMA) Update(v float64) {
	s.undo.ok = false
	if !finite(v) {
		return
	}
	if p := &s.peek; p.ok {
		p.ok = false
		if math.Float64bits(p.v) == math.Float64bits(v) {
			s.sum, s.count = p.sum, p.count
			s.push(v)
			return
		}
	}
	s.add(v)
}

// add takes a finite v into the window: the oldest value out once the
// window is full, v in.
func (s *SMA) add(v float64) {
	if s.count == len(s.buf) {
		s.sum.add(-s.buf[s.next])
	} else {
		s.count++
	}
	s.sum.add(v)
	s.push(v)
}

// push puts v in the window's next slot.
func (s *SMA) push(v float64) {
	s.buf[s.next] = v
	if s.next++; s.next == len(s.buf) {
		s.next = 0
	}
}

// Peek returns what Value and Ready would return after Update(v),
// without updating: the same float64, bit for bit. A strategy's fast path
// (strategy.Skipper) looks at a bar's averages before it decides whether
// the bar is one it consumes.
func (s *SMA) Peek(v float64) (value float64, ready bool) {
	if !finite(v) {
		return s.Value(), s.Ready()
	}
	sum, count := s.sum, s.count
	if count == len(s.buf) {
		sum.add(-s.buf[s.next])
	} else {
		count++
	}
	sum.add(v)
	s.peek.ok, s.peek.v, s.peek.sum, s.peek.count = true, v, sum, count
	if count != len(s.buf) {
		return 0, false
	}
	return sum.value() / float64(len(s.buf)), true
}

// Advance is Update(v) followed by Value and Ready, in one call: the
// same float64, bit for bit. Undo takes the value back. A strategy's fast
// path (strategy.Skipper) advances its averages bar by bar and takes back
// the one bar it leaves for OnKline, one call a bar where a Peek, then an
// Update, took two (and Value and Ready two more); AdvancePair steps two
// SMAs over a run faster still.
func (s *SMA) Advance(v float64) (value float64, ready bool) {
	u := &s.undo
	u.ok, u.sum, u.count, u.next, u.old = true, s.sum, s.count, s.next, s.buf[s.next]
	s.peek.ok = false
	if finite(v) { // Update ignores the others
		s.add(v)
	}
	return s.Value(), s.Ready()
}

// Undo takes back the last Advance, leaving the average as it was before
// it; it does nothing when the last change was not an Advance, or was
// already taken back.
func (s *SMA) Undo() {
	u := &s.undo
	if !u.ok {
		return
	}
	u.ok, s.peek.ok = false, false
	s.buf[u.next] = u.old
	s.sum, s.count, s.next = u.sum, u.count, u.next
}

// Ready reports whether n values have arrived.
func (s *SMA) Ready() bool { return s.count == len(s.buf) }

// Value returns the mean of the last n values, or 0 before Ready.
func (s *SMA) Value() float64 {
	if !s.Ready() {
		return 0
	}
	return s.sum.value() / float64(len(s.buf))
}

// Period returns n.
func (s *SMA) Period() int { return len(s.buf) }

// CopyTo sets dst to a copy of s: the same window and state, so that the
// two go on alike, bit for bit, and neither's updates reach the other.
// dst's window is reused when it has s's length. A strategy's SkipCount
// runs its fast path over a copy of its averages (strategy.SkipCounter).
func (s *SMA) CopyTo(dst *SMA) {
	buf := dst.buf
	if len(buf) != len(s.buf) {
		buf = make([]float64, len(s.buf))
	}
	copy(buf, s.buf)
	*dst = *s
	dst.buf = buf
}

// Reset forgets all values.
func (s *SMA) Reset() { s.next, s.count, s.sum, s.peek.ok, s.undo.ok = 0, 0, ksum{}, false, false }

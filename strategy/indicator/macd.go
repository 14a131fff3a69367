package indicator

import "fmt"

// MACD is the moving average convergence/divergence: the MACD line is the
// fast EMA minus the slow EMA of the input, the signal line an EMA of the
// MACD line, and the histogram the line minus the signal. All three EMAs
// are seeded with an SMA (see EMA).
//
// Both EMAs start with the first value, so the line is defined by update
// slow and the signal (and Ready) by update slow+signal−1. This is how
// technicalindicators computes it with SimpleMAOscillator and
// SimpleMASignal off; TA-Lib instead delays the fast EMA's start so both
// seeds end on the same bar, which gives different early values.
type MACD struct {
	fast, slow, signal *EMA
}

// NewMACD returns a MACD with the given EMA periods, for example 12, 26
// and 9. fast must be at least 1, slow greater than fast, signal at least 1.
func NewMACD(fast, slow, signal int) (*MACD, error) {
	switch {
	case fast < 1:
		return nil, periodError("NewMACD", "fast", fast, 1)
	case slow <= fast:
		return nil, fmt.Errorf("indicator: NewMACD: slow must be greater than fast (%d), got %d", fast, slow)
	case signal < 1:
		return nil, periodError("NewMACD", "signal", signal, 1)
	}
	f, _ := NewEMA(fast)
	s, _ := NewEMA(slow)
	g, _ := NewEMA(signal)
	return &MACD{fast: f, slow: s, signal: g}, nil
}

// Update adds a value. A non-finite v is ignored.
func (m *MACD) Update(v float64) {
	if !finite(v) {
		return
	}
	m.fast.Update(v)
	m.slow.Update(v)
	if m.slow.Ready() {
		m.signal.Update(m.fast.value - m.slow.value)
	}
}

// LineReady reports whether the MACD line is defined (slow values have
// arrived); the signal may not be yet.
func (m *MACD) LineReady() bool { return m.slow.Ready() }

// Ready reports whether the line, the signal and the histogram are all
// defined.
func (m *MACD) Ready() bool { return m.signal.Ready() }

// Value returns the MACD line, or 0 before LineReady.
func (m *MACD) Value() float64 {
	if !m.slow.Ready() {
		return 0
	}
	return m.fast.value - m.slow.value
}

// Signal returns the signal line, or 0 before Ready.
func (m *MACD) Signal() float64 { return m.signal.Value() }

// Histogram returns the MACD line minus the signal line, or 0 before Ready.
func (m *MACD) Histogram() float64 {
	if !m.Ready() {
		return 0
	}
	return m.Value() - m.signal.value
}

// Reset forgets all values.
func (m *MACD) Reset() {
	m.fast.Reset()
	m.slow.Reset()
	m.signal.Reset()
}

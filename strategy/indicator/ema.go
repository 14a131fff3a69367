package indicator

// EMA is the exponential moving average with smoothing factor α = 2/(n+1).
// It is seeded with the SMA of the first n values, its first value, defined
// by the n-th update; after that each value v moves it by α·(v − EMA).
type EMA struct {
	n     int
	alpha float64
	count int
	seed  float64 // sum of the first n values
	value float64
	// undo is the state before the last Advance, for Undo.
	undo struct {
		ok          bool
		count       int
		seed, value float64
	}
}

// NewEMA returns an EMA of period n; n must be at least 1.
func NewEMA(n int) (*EMA, error) {
	if n < 1 {
		return nil, periodError("NewEMA", "n", n, 1)
	}
	return newSmoothed(n, 2/float64(n+1)), nil
}

// newSmoothed returns an exponential average with factor alpha, seeded by
// the mean of the first n values; Wilder's smoothing is alpha = 1/n.
func newSmoothed(n int, alpha float64) *EMA { return &EMA{n: n, alpha: alpha} }

// Update adds a value. A non-finite v is ignored.
func (e *EMA) Update(v float64) {
	e.undo.ok = false
	if !finite(v) {
		return
	}
	if e.count >= e.n {
		e.value += (v - e.value) * e.alpha
		return
	}
	e.seed += v
	if e.count++; e.count == e.n {
		e.value = e.seed / float64(e.n)
	}
}

// Peek returns what Value and Ready would return after Update(v),
// without updating: the same float64, bit for bit (SMA.Peek).
func (e *EMA) Peek(v float64) (value float64, ready bool) {
	c := *e
	c.Update(v)
	return c.value, c.Ready()
}

// Advance is Update(v) followed by Value and Ready, in one call: the
// same float64, bit for bit; Undo takes it back (SMA.Advance).
func (e *EMA) Advance(v float64) (value float64, ready bool) {
	u := e.undo
	u.ok, u.count, u.seed, u.value = true, e.count, e.seed, e.value
	e.Update(v)
	e.undo = u
	return e.value, e.count >= e.n
}

// Undo takes back the last Advance (SMA.Undo).
func (e *EMA) Undo() {
	if u := &e.undo; u.ok {
		u.ok = false
		e.count, e.seed, e.value = u.count, u.seed, u.value
	}
}

// CopyTo sets dst to a copy of e, which goes on alike (SMA.CopyTo).
func (e *EMA) CopyTo(dst *EMA) { *dst = *e }

// Ready reports whether n values have arrived.
func (e *EMA) Ready() bool { return e.count >= e.n }

// Value returns the average, or 0 before Ready.
func (e *EMA) Value() float64 { return e.value }

// Period returns n.
func (e *EMA) Period() int { return e.n }

// Reset forgets all values.
func (e *EMA) Reset() { e.count, e.seed, e.value, e.undo.ok = 0, 0, 0, false }

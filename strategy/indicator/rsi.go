package indicator

// RSI is Wilder's relative strength index over n periods. A period's gain
// is the rise of the value from the previous one (0 on a fall), its loss
// the fall. The average gain and loss start as the means of the first n
// gains and losses and are then smoothed the Wilder way,
// avg = (avg·(n−1) + x)/n. RSI = 100·gain/(gain + loss).
//
// The first value is defined by update n+1 (n changes need n+1 values).
// When the average loss is 0 the RSI is 100, when the average gain is 0 it
// is 0, and when both are 0 (a flat window) it is 50. technicalindicators
// says 100 for the flat case and rounds its RSI to 2 decimals; the average
// gain and loss, which it does not round, match exactly.
type RSI struct {
	n          int
	count      int // values seen, capped at n+1
	prev       float64
	gain, loss float64 // sums while filling, then the averages
}

// NewRSI returns an RSI of period n; n must be at least 1.
func NewRSI(n int) (*RSI, error) {
	if n < 1 {
		return nil, periodError("NewRSI", "n", n, 1)
	}
	return &RSI{n: n}, nil
}

// Update adds a value. A non-finite v is ignored.
func (r *RSI) Update(v float64) {
	if !finite(v) {
		return
	}
	if r.count == 0 {
		r.prev, r.count = v, 1
		return
	}
	var g, l float64
	if d := v - r.prev; d > 0 {
		g = d
	} else {
		l = -d
	}
	r.prev = v
	if r.count > r.n {
		fn := float64(r.n)
		r.gain = (r.gain*(fn-1) + g) / fn
		r.loss = (r.loss*(fn-1) + l) / fn
		return
	}
	r.gain += g
	r.loss += l
	if r.count++; r.count > r.n {
		r.gain /= float64(r.n)
		r.loss /= float64(r.n)
	}
}

// Ready reports whether n+1 values have arrived.
func (r *RSI) Ready() bool { return r.count > r.n }

// Value returns the RSI in [0, 100], or 0 before Ready.
func (r *RSI) Value() float64 {
	switch {
	case !r.Ready():
		return 0
	case r.gain+r.loss == 0:
		return 50
	}
	return 100 * r.gain / (r.gain + r.loss)
}

// AvgGain returns Wilder's average gain, or 0 before Ready.
func (r *RSI) AvgGain() float64 {
	if !r.Ready() {
		return 0
	}
	return r.gain
}

// AvgLoss returns Wilder's average loss (a positive number), or 0 before
// Ready.
func (r *RSI) AvgLoss() float64 {
	if !r.Ready() {
		return 0
	}
	return r.loss
}

// Period returns n.
func (r *RSI) Period() int { return r.n }

// Reset forgets all values.
func (r *RSI) Reset() { r.count, r.prev, r.gain, r.loss = 0, 0, 0, 0 }

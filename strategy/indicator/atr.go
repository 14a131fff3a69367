package indicator

import "math"

// ATR is Wilder's average true range over n bars. A bar's true range is the
// largest of high − low, |high − previous close| and |low − previous close|,
// so the first bar, having no previous close, only supplies that close. The
// ATR starts as the mean of the first n true ranges and is then smoothed
// the Wilder way (an exponential average with α = 1/n); it is defined by
// update n+1. This matches TA-Lib and technicalindicators.
type ATR struct {
	avg       *EMA
	started   bool
	prevClose float64
	tr        float64
}

// NewATR returns an ATR of period n; n must be at least 1.
func NewATR(n int) (*ATR, error) {
	if n < 1 {
		return nil, periodError("NewATR", "n", n, 1)
	}
	return &ATR{avg: newSmoothed(n, 1/float64(n))}, nil
}

// Update adds a bar. A bar with a non-finite field is ignored.
func (a *ATR) Update(high, low, close float64) {
	if !finite(high) || !finite(low) || !finite(close) {
		return
	}
	if !a.started {
		a.started, a.prevClose = true, close
		return
	}
	a.tr = max(high-low, math.Abs(high-a.prevClose), math.Abs(low-a.prevClose))
	a.prevClose = close
	a.avg.Update(a.tr)
}

// Ready reports whether n+1 bars have arrived.
func (a *ATR) Ready() bool { return a.avg.Ready() }

// Value returns the ATR, or 0 before Ready.
func (a *ATR) Value() float64 { return a.avg.Value() }

// TrueRange returns the latest bar's true range, or 0 before the second
// bar.
func (a *ATR) TrueRange() float64 { return a.tr }

// Period returns n.
func (a *ATR) Period() int { return a.avg.n }

// Reset forgets all bars.
func (a *ATR) Reset() { a.avg.Reset(); a.started, a.prevClose, a.tr = false, 0, 0 }

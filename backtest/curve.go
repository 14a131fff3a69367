package backtest

import (
	"iter"
	"slices"
	"sort"
	"time"
)

// EquityPoint is the account's mark-to-market value at a bar's close, in
// the quote asset. Value is what the statistics use; the exact decimal
// values of the points reports print (first, last, each new peak) are
// kept beside the curve (Result.Exact).
type EquityPoint struct {
	At    int64 // the bar's close, milliseconds since the epoch
	Value float64
}

// Time is the point's time in UTC.
func (p EquityPoint) Time() time.Time { return time.UnixMilli(p.At).UTC() }

// Curve is an equity curve: a point per bar close, in time order. The
// values are one flat slice; the times are kept as runs of evenly spaced
// points (bars are evenly spaced but for gaps in the data), so a million
// points take 8 MB that the garbage collector never scans.
type Curve struct {
	// Values are the points' values, in order.
	Values []float64
	runs   []timeRun
}

// timeRun is n points from index from on, at at, at+step, at+2·step, …
type timeRun struct {
	from, n  int
	at, step int64
}

// Len is the number of points.
func (c *Curve) Len() int { return len(c.Values) }

// Append adds a point.
func (c *Curve) Append(at int64, v float64) {
	c.Values = append(c.Values, v)
	if k := len(c.runs) - 1; k >= 0 {
		switch r := &c.runs[k]; {
		case r.n == 1:
			r.step, r.n = at-r.at, 2
			return
		case at == r.at+int64(r.n)*r.step:
			r.n++
			return
		}
	}
	c.runs = append(c.runs, timeRun{from: len(c.Values) - 1, n: 1, at: at})
}

// grow extends the curve by n points and returns their values, for the
// caller to set, and their times to be given with appendTimes.
func (c *Curve) grow(n int) []float64 {
	c.Values = slices.Grow(c.Values, n)
	m := len(c.Values)
	c.Values = c.Values[:m+n]
	return c.Values[m:]
}

// appendTimes gives times to the last len(opens) points (grow), at each
// open plus shift: Append's runs, built in one loop.
func (c *Curve) appendTimes(opens []int64, shift int64) {
	i := len(c.Values) - len(opens)
	for j := 0; j < len(opens); {
		at := opens[j] + shift
		k := len(c.runs) - 1
		if k < 0 {
			c.runs = append(c.runs, timeRun{from: i + j, n: 1, at: at})
			j++
			continue
		}
		r := &c.runs[k]
		if r.n == 1 {
			r.step, r.n = at-r.at, 2
			j++
			continue
		}
		// Extend the last run while the times keep its step.
		next := r.at + int64(r.n)*r.step
		for j < len(opens) && opens[j]+shift == next {
			r.n++
			next += r.step
			j++
		}
		if j < len(opens) && opens[j]+shift != next {
			c.runs = append(c.runs, timeRun{from: i + j, n: 1, at: opens[j] + shift})
			j++
		}
	}
}

// appendEven is appendTimes for n points at at, at+step, at+2·step, …
// without a column to read: the last run is extended by as many points as
// keep its step, in one addition.
func (c *Curve) appendEven(at, step int64, n int) {
	for n > 0 {
		k := len(c.runs) - 1
		if k >= 0 {
			r := &c.runs[k]
			switch {
			case r.n == 1:
				r.step, r.n = at-r.at, 2
				at, n = at+step, n-1
				continue
			case at == r.at+int64(r.n)*r.step && r.step == step:
				r.n += n
				return
			case at == r.at+int64(r.n)*r.step:
				r.n++
				at, n = at+step, n-1
				continue
			}
		}
		c.runs = append(c.runs, timeRun{from: len(c.Values) - n, n: 1, at: at})
		at, n = at+step, n-1
	}
}

// At is point i's time, milliseconds since the epoch.
func (c *Curve) At(i int) int64 {
	k := sort.Search(len(c.runs), func(k int) bool { return c.runs[k].from > i }) - 1
	r := &c.runs[k]
	return r.at + int64(i-r.from)*r.step
}

// Point is point i.
func (c *Curve) Point(i int) EquityPoint { return EquityPoint{At: c.At(i), Value: c.Values[i]} }

// All yields the points with their indices, in order.
func (c *Curve) All() iter.Seq2[int, EquityPoint] {
	return func(yield func(int, EquityPoint) bool) {
		for _, r := range c.runs {
			at := r.at
			for i := r.from; i < r.from+r.n; i++ {
				if !yield(i, EquityPoint{At: at, Value: c.Values[i]}) {
					return
				}
				at += r.step
			}
		}
	}
}

// spacings yields each spacing between consecutive points and how many
// times in a row it occurs.
func (c *Curve) spacings() iter.Seq2[int64, int] {
	return func(yield func(int64, int) bool) {
		for k, r := range c.runs {
			if k > 0 {
				p := &c.runs[k-1]
				if !yield(r.at-(p.at+int64(p.n-1)*p.step), 1) {
					return
				}
			}
			if r.n > 1 && !yield(r.step, r.n-1) {
				return
			}
		}
	}
}

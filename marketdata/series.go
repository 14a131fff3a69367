package marketdata

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// Field names one column of a Series' values.
type Field int

// The value columns of a Series.
const (
	Open Field = iota
	High
	Low
	Close
	Volume
)

var seriesFieldNames = [5]string{"open", "high", "low", "close", "volume"}

// String returns the field's name as the CSV header writes it.
func (f Field) String() string {
	if f < Open || f > Volume {
		return fmt.Sprintf("Field(%d)", int(f))
	}
	return seriesFieldNames[f]
}

// Series is one symbol's bars at one interval, held column by column as
// fixed-point integers: open times in milliseconds since the epoch, and
// open, high, low, close and volume as int64 coefficients of a per-series
// decimal exponent (one for the four prices, one for volume). A bar costs
// 48 bytes and no heap object of its own, so a million bars are 48 MB that
// the garbage collector never scans.
//
// A Series is immutable once built: every method only reads, so one Series
// may be shared by any number of goroutines (a sweep's runs), and Between
// and Slice share its columns instead of copying them. The slices Times and
// Ints return are those columns and must not be modified.
type Series struct {
	symbol   string
	interval exchange.Interval
	priceExp int32
	volExp   int32
	t        []int64
	cols     [5][]int64
	durMs    int64 // the interval's length in ms; 0 for a month, whose length varies
}

// Symbol returns the symbol the bars belong to ("" when the source does not
// say).
func (s *Series) Symbol() string { return s.symbol }

// Interval returns the bars' interval.
func (s *Series) Interval() exchange.Interval { return s.interval }

// Len returns the number of bars.
func (s *Series) Len() int { return len(s.t) }

// Exp returns the decimal exponent of field f: a coefficient c stands for
// c × 10^Exp(f). The four prices share one exponent.
func (s *Series) Exp(f Field) int32 {
	if f == Volume {
		return s.volExp
	}
	return s.priceExp
}

// OpenMs returns bar i's open time in milliseconds since the epoch.
func (s *Series) OpenMs(i int) int64 { return s.t[i] }

// OpenTime returns bar i's open time (UTC).
func (s *Series) OpenTime(i int) time.Time { return time.UnixMilli(s.t[i]).UTC() }

// Int returns bar i's coefficient of field f (see Exp).
func (s *Series) Int(f Field, i int) int64 { return s.cols[f][i] }

// Decimal returns bar i's value of field f, exactly.
func (s *Series) Decimal(f Field, i int) decimal.Decimal {
	return decimal.New(s.cols[f][i], s.Exp(f))
}

// Float returns bar i's value of field f as the float64 nearest to the
// exact decimal (for coefficients below 2^53, as strconv.ParseFloat of its
// text would give): cheap, for indicators.
func (s *Series) Float(f Field, i int) float64 {
	return scaleFloat(s.cols[f][i], s.Exp(f))
}

// Times returns the open-time column (milliseconds). Read only.
func (s *Series) Times() []int64 { return s.t }

// Ints returns the coefficient column of field f. Read only.
func (s *Series) Ints(f Field) []int64 { return s.cols[f] }

// AppendFloats appends field f of every bar as float64 to dst.
func (s *Series) AppendFloats(dst []float64, f Field) []float64 {
	col, exp := s.cols[f], s.Exp(f)
	if exp < 0 && -exp < int32(len(pow10f)) {
		div := pow10f[-exp]
		for _, c := range col {
			dst = append(dst, float64(c)/div)
		}
		return dst
	}
	for _, c := range col {
		dst = append(dst, scaleFloat(c, exp))
	}
	return dst
}

// Kline returns bar i as the exchange's kline type (CloseTime the last
// millisecond of the bar, QuoteVolume zero), its decimals carrying the
// series' exponents.
func (s *Series) Kline(i int) exchange.Kline {
	open := time.UnixMilli(s.t[i]).UTC()
	return exchange.Kline{
		OpenTime:  open,
		Open:      decimal.New(s.cols[Open][i], s.priceExp),
		High:      decimal.New(s.cols[High][i], s.priceExp),
		Low:       decimal.New(s.cols[Low][i], s.priceExp),
		Close:     decimal.New(s.cols[Close][i], s.priceExp),
		Volume:    decimal.New(s.cols[Volume][i], s.volExp),
		CloseTime: s.interval.Next(open).Add(-time.Millisecond),
	}
}

// FixedKline returns bar i in its compact form: the columns' integers
// with the series' exponents, so each number is the decimal Kline(i)
// gives without building it (FixedKlineTo).
func (s *Series) FixedKline(i int) exchange.FixedKline {
	var k exchange.FixedKline
	s.FixedKlineTo(i, &k)
	return k
}

// FixedKlineTo writes bar i into *k, field by field: a replay's buffer
// is written in place, not built aside and copied (a copy read back right
// after its fields were stored stalls the processor). The times are
// built from milliseconds (time.UnixMilli is cheaper than time.Time.Add;
// a replay calls this at every bar).
func (s *Series) FixedKlineTo(i int, k *exchange.FixedKline) {
	ms := s.t[i]
	k.OpenTime = time.UnixMilli(ms).UTC()
	if d := s.durMs; d > 0 {
		k.CloseTime = time.UnixMilli(ms + d - 1).UTC()
	} else {
		k.CloseTime = s.interval.Next(k.OpenTime).Add(-time.Millisecond)
	}
	k.Open = exchange.Fixed{Coef: s.cols[Open][i], Exp: s.priceExp}
	k.High = exchange.Fixed{Coef: s.cols[High][i], Exp: s.priceExp}
	k.Low = exchange.Fixed{Coef: s.cols[Low][i], Exp: s.priceExp}
	k.Close = exchange.Fixed{Coef: s.cols[Close][i], Exp: s.priceExp}
	k.Volume = exchange.Fixed{Coef: s.cols[Volume][i], Exp: s.volExp}
	k.QuoteVolume = exchange.Fixed{}
}

// CloseMs is the millisecond at which bar i closes (its next bar's
// open): the time a replay's clock stands at after the bar.
func (s *Series) CloseMs(i int) int64 {
	if d := s.durMs; d > 0 {
		return s.t[i] + d
	}
	return s.interval.Next(time.UnixMilli(s.t[i]).UTC()).UnixMilli()
}

// Klines materialises every bar as an exchange.Kline (for callers that
// still take klines; each costs several heap objects).
func (s *Series) Klines() []exchange.Kline {
	out := make([]exchange.Kline, len(s.t))
	for i := range out {
		out[i] = s.Kline(i)
	}
	return out
}

// Slice returns bars [lo, hi) sharing this series' columns.
func (s *Series) Slice(lo, hi int) *Series {
	c := *s
	c.t = s.t[lo:hi:hi]
	for f := range c.cols {
		c.cols[f] = s.cols[f][lo:hi:hi]
	}
	return &c
}

// Between returns the bars opening in [from, to) (a zero end is open),
// sharing this series' columns.
func (s *Series) Between(from, to time.Time) *Series {
	lo, hi := 0, len(s.t)
	if !from.IsZero() {
		ms := from.UnixMilli()
		lo = sort.Search(len(s.t), func(i int) bool { return s.t[i] >= ms })
	}
	if !to.IsZero() {
		ms := to.UnixMilli()
		hi = sort.Search(len(s.t), func(i int) bool { return s.t[i] >= ms })
	}
	if lo > hi {
		lo = hi
	}
	return s.Slice(lo, hi)
}

// Range returns the first and last open times; zero times when empty.
func (s *Series) Range() (first, last time.Time) {
	if len(s.t) == 0 {
		return time.Time{}, time.Time{}
	}
	return s.OpenTime(0), s.OpenTime(len(s.t) - 1)
}

var pow10f = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

var pow10i = [...]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// scaleFloat is c × 10^exp as a float64; one correctly rounded division
// when both c and the power are exact in float64.
func scaleFloat(c int64, exp int32) float64 {
	switch {
	case exp == 0:
		return float64(c)
	case exp < 0 && -exp < int32(len(pow10f)):
		return float64(c) / pow10f[-exp]
	case exp > 0 && exp < int32(len(pow10f)):
		return float64(c) * pow10f[exp]
	}
	return decimal.New(c, exp).InexactFloat64()
}

// NewSeries builds a Series over columns of open times (milliseconds) and
// coefficients (see Exp), applying ReadCSV's rules to every bar: open
// times on the interval's boundaries and increasing, positive prices,
// high ≥ max(open, close), low ≤ min(open, close), volume not negative. The
// columns become the series' own: the caller must not change them after.
func NewSeries(symbol string, iv exchange.Interval, priceExp, volExp int32, t, open, high, low, close, volume []int64) (*Series, error) {
	if !iv.Valid() {
		return nil, fmt.Errorf("marketdata: interval %q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", iv)
	}
	n := len(t)
	for f, col := range [5][]int64{open, high, low, close, volume} {
		if len(col) != n {
			return nil, fmt.Errorf("marketdata: %d open times but %d %s values", n, len(col), seriesFieldNames[f])
		}
	}
	if priceExp > 0 || volExp > 0 || priceExp < -2*maxDigits || volExp < -2*maxDigits {
		return nil, fmt.Errorf("marketdata: exponents %d and %d: want -36 to 0", priceExp, volExp)
	}
	if k := firstSuspect(iv, t, open, high, low, close, volume); k < n {
		if err := checkBarsFrom(k, iv, t, open, high, low, close, volume); err != nil {
			return nil, err
		}
	}
	var durMs int64
	if iv != exchange.Interval1M {
		durMs = iv.Duration().Milliseconds()
	}
	return &Series{symbol: symbol, interval: iv, priceExp: priceExp, volExp: volExp, t: t,
		cols: [5][]int64{open, high, low, close, volume}, durMs: durMs}, nil
}

// firstSuspect returns the index of the first bar that the fast checks
// cannot pass (len(t) when every bar passes): one tight pass over the
// columns, with no division for a bar that opens one interval after the
// one before it (the bar before was on a boundary, so it is too) and no
// call but for the first bar and after a gap.
func firstSuspect(iv exchange.Interval, t, open, high, low, close, volume []int64) int {
	n := len(t)
	if n < suspectSplit || runtime.GOMAXPROCS(0) < 2 {
		return suspectIn(iv, t, open, high, low, close, volume, 0, n)
	}
	// Two halves at once: a cached file's bars are mapped, and this pass
	// is the first to read them (the faults and the memory are the cost).
	mid := n / 2
	var second int
	var wg sync.WaitGroup
	wg.Go(func() { second = suspectIn(iv, t, open, high, low, close, volume, mid, n) })
	first := suspectIn(iv, t, open, high, low, close, volume, 0, mid)
	wg.Wait()
	if first < mid {
		return first
	}
	return second
}

// suspectSplit is the fewest bars firstSuspect splits between two cores.
const suspectSplit = 1 << 18

// suspectIn is firstSuspect over bars lo to hi (hi when they all pass),
// the bar before lo read as the one before.
func suspectIn(iv exchange.Interval, t, open, high, low, close, volume []int64, lo, hi int) int {
	// The bounds checks are made once, here.
	t, open, high, low, close, volume = t[:hi], open[:hi], high[:hi], low[:hi], close[:hi], volume[:hi]
	step := iv.Duration().Milliseconds() // 0 for months: every step checked
	b := builder{s: Series{interval: iv}, ivMs: step, fixed: step > 0 && iv != exchange.Interval1W}
	for i := lo; i < hi; i++ {
		ti := t[i]
		if i == 0 || ti-t[i-1] != step || step == 0 {
			if i > 0 {
				b.last, b.haveLast = t[i-1], true
			}
			if onBoundary, after := b.timeOK(ti); !onBoundary || !after {
				return i
			}
		}
		o, h, l, c := open[i], high[i], low[i], close[i]
		if o <= 0 || l <= 0 || c <= 0 || h < max(o, c) || l > min(o, c) || volume[i] < 0 {
			return i
		}
	}
	return hi
}

// checkBarsFrom applies NewSeries' rules bar by bar from bar k (the bars
// before it passed) and words the first problem.
func checkBarsFrom(k int, iv exchange.Interval, t, open, high, low, close, volume []int64) error {
	b := newBuilder("", iv, 0)
	if k > 0 {
		b.last, b.haveLast = t[k-1], true
	}
	for i := k; i < len(t); i++ {
		bad := func(field, problem string) error {
			return fmt.Errorf("marketdata: bar %d (%s): %s: %s", i, time.UnixMilli(t[i]).UTC().Format(time.RFC3339), field, problem)
		}
		switch onBoundary, after := b.timeOK(t[i]); {
		case !onBoundary:
			return bad("open time", "not on a "+string(iv)+" boundary")
		case !after:
			return bad("open time", "not after the previous bar's")
		}
		b.last, b.haveLast = t[i], true
		o, h, l, c, v := open[i], high[i], low[i], close[i], volume[i]
		switch {
		case o <= 0 || h <= 0 || l <= 0 || c <= 0:
			return bad("prices", "not all positive")
		case h < max(o, c):
			return bad("high", "below max(open, close)")
		case l > min(o, c):
			return bad("low", "above min(open, close)")
		case v < 0:
			return bad("volume", "negative")
		}
	}
	return nil
}

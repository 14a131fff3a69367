package marketdata

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// builder appends validated bars to a Series, widening the series' scale
// when a value has more decimals than any before it.
type builder struct {
	s        Series
	priceDec int // decimals of the price columns (-priceExp)
	volDec   int
	ivMs     int64 // the interval in milliseconds; 0 for months
	fixed    bool  // boundaries are multiples of ivMs (not weeks or months)
	last     int64 // previous good bar's open time
	haveLast bool
}

func newBuilder(symbol string, iv exchange.Interval, sizeHint int) *builder {
	b := &builder{s: Series{symbol: symbol, interval: iv}, ivMs: iv.Duration().Milliseconds()}
	b.fixed = b.ivMs > 0 && iv != exchange.Interval1W
	b.s.t = make([]int64, 0, sizeHint)
	for f := range b.s.cols {
		b.s.cols[f] = make([]int64, 0, sizeHint)
	}
	return b
}

// series returns the built series, its columns trimmed to their length
// when the size hint overshot by more than 1/16 (a Series stays at 48
// bytes a bar).
func (b *builder) series() *Series {
	s := b.s
	if n := len(s.t); cap(s.t) > n+n/16+64 {
		s.t = append(make([]int64, 0, n), s.t...)
		for f := range s.cols {
			s.cols[f] = append(make([]int64, 0, n), s.cols[f]...)
		}
	}
	s.priceExp, s.volExp = -int32(b.priceDec), -int32(b.volDec)
	return &s
}

// checkTime applies the time rules to an open time in milliseconds: on
// the interval's boundary and after the previous good bar. field names
// the column in the problem.
func (b *builder) checkTime(ms int64, field string) *RowError {
	onBoundary, after := b.timeOK(ms)
	if onBoundary && after {
		return nil
	}
	at := time.UnixMilli(ms).UTC().Format(time.RFC3339)
	if !onBoundary {
		return &RowError{Field: field, Problem: fmt.Sprintf("%d (%s) is not on a %s boundary", ms, at, b.s.interval)}
	}
	if !after {
		return &RowError{Field: field, Problem: fmt.Sprintf("%d (%s) is not after the previous row's %d (%s)", ms, at, b.last, time.UnixMilli(b.last).UTC().Format(time.RFC3339))}
	}
	return nil
}

// timeOK reports whether ms is on the interval's boundary and after the
// previous good bar.
func (b *builder) timeOK(ms int64) (onBoundary, after bool) {
	if b.fixed && b.haveLast && ms == b.last+b.ivMs {
		return true, true // one interval after a good bar: no division
	}
	if b.fixed {
		onBoundary = ms%b.ivMs == 0
	} else {
		t := time.UnixMilli(ms).UTC()
		onBoundary = b.s.interval.Truncate(t).Equal(t)
	}
	return onBoundary, !b.haveLast || ms > b.last
}

// add validates one bar's values (texts are the values as the source wrote
// them, for messages) and appends it; t must have passed checkTime.
func (b *builder) add(t int64, v [5]num, texts *[5][]byte) *RowError {
	// Most rows write every value at the series' scale already: compare
	// and append the integers as they are.
	if pd := b.priceDec; v[0].dec == pd && v[1].dec == pd && v[2].dec == pd && v[3].dec == pd && v[4].dec == b.volDec {
		o, h, l, c, vol := v[0].mant, v[1].mant, v[2].mant, v[3].mant, v[4].mant
		if o > 0 && l > 0 && c > 0 && h >= max(o, c) && l <= min(o, c) && vol >= 0 {
			b.s.t = append(b.s.t, t)
			b.s.cols[Open] = append(b.s.cols[Open], o)
			b.s.cols[High] = append(b.s.cols[High], h)
			b.s.cols[Low] = append(b.s.cols[Low], l)
			b.s.cols[Close] = append(b.s.cols[Close], c)
			b.s.cols[Volume] = append(b.s.cols[Volume], vol)
			b.last, b.haveLast = t, true
			return nil
		}
	}
	if rerr := checkValues(v, texts); rerr != nil {
		return rerr
	}
	rowDec := max(v[0].dec, v[1].dec, v[2].dec, v[3].dec)
	if rowDec > b.priceDec {
		if rerr := b.widen(rowDec, Open, Close); rerr != nil {
			return rerr
		}
		b.priceDec = rowDec
	}
	if v[4].dec > b.volDec {
		if rerr := b.widen(v[4].dec, Volume, Volume); rerr != nil {
			return rerr
		}
		b.volDec = v[4].dec
	}
	var c [5]int64
	for f := range c {
		dec := b.priceDec
		if Field(f) == Volume {
			dec = b.volDec
		}
		x, ok := v[f].scaleTo(dec)
		if !ok {
			return &RowError{Field: seriesFieldNames[f], Problem: fmt.Sprintf("%s with %d decimals (the series' scale) does not fit a 64-bit fixed-point value", quote(texts, f, v[f]), dec)}
		}
		c[f] = x
	}
	b.s.t = append(b.s.t, t)
	for f := range c {
		b.s.cols[f] = append(b.s.cols[f], c[f])
	}
	b.last, b.haveLast = t, true
	return nil
}

// widen rescales columns lo..hi to dec decimals; nothing changes when a
// value would overflow.
func (b *builder) widen(dec int, lo, hi Field) *RowError {
	old := b.priceDec
	if lo == Volume {
		old = b.volDec
	}
	k := dec - old
	for f := lo; f <= hi; f++ {
		for i, x := range b.s.cols[f] {
			if _, ok := mulPow10(x, k); !ok {
				return &RowError{Field: seriesFieldNames[f], Problem: fmt.Sprintf("%d decimals would take the earlier value %s at %s out of the 64-bit fixed-point range",
					dec, string(AppendDecimal(nil, num{mant: x, dec: old}.decimal())), time.UnixMilli(b.s.t[i]).UTC().Format(time.RFC3339))}
			}
		}
	}
	p := pow10i[k]
	for f := lo; f <= hi; f++ {
		col := b.s.cols[f]
		for i := range col {
			col[i] *= p
		}
	}
	return nil
}

// checkValues applies the price and volume rules: positive prices, high ≥
// max(open, close), low ≤ min(open, close), volume not negative.
func checkValues(v [5]num, texts *[5][]byte) *RowError {
	for f := Open; f <= Close; f++ {
		if v[f].mant <= 0 {
			return &RowError{Field: seriesFieldNames[f], Problem: quote(texts, int(f), v[f]) + " is not a positive price"}
		}
	}
	hiOC, loOC := v[Open], v[Close]
	if hiOC.cmp(loOC) < 0 {
		hiOC, loOC = loOC, hiOC
	}
	switch {
	case v[High].cmp(hiOC) < 0:
		return &RowError{Field: "high", Problem: fmt.Sprintf("%s is below max(open %s, close %s)", quote(texts, 1, v[1]), quote(texts, 0, v[0]), quote(texts, 3, v[3]))}
	case v[Low].cmp(loOC) > 0:
		return &RowError{Field: "low", Problem: fmt.Sprintf("%s is above min(open %s, close %s)", quote(texts, 2, v[2]), quote(texts, 0, v[0]), quote(texts, 3, v[3]))}
	case v[Volume].mant < 0:
		return &RowError{Field: "volume", Problem: quote(texts, 4, v[4]) + " is negative"}
	}
	return nil
}

// quote is value f as the source wrote it, or as decimal text.
func quote(texts *[5][]byte, f int, n num) string {
	if texts != nil {
		return truncate(texts[f])
	}
	return string(AppendDecimal(nil, n.decimal()))
}

// FromKlines builds a Series from klines, applying ReadCSV's rules (the
// error names the bar by index and open time). Each decimal must have at
// most 18 significant digits and fit the series' common scale.
func FromKlines(symbol string, iv exchange.Interval, ks []exchange.Kline) (*Series, error) {
	if !iv.Valid() {
		return nil, fmt.Errorf("marketdata: interval %q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", iv)
	}
	b := newBuilder(symbol, iv, len(ks))
	for i, k := range ks {
		at := k.OpenTime.UTC().Format(time.RFC3339)
		var v [5]num
		for f, d := range [5]decimal.Decimal{k.Open, k.High, k.Low, k.Close, k.Volume} {
			n, err := numOf(d)
			if err != nil {
				return nil, fmt.Errorf("marketdata: bar %d (%s): %s: %v", i, at, seriesFieldNames[f], err)
			}
			v[f] = n
		}
		ms := k.OpenTime.UnixMilli()
		switch onBoundary, after := b.timeOK(ms); {
		case !onBoundary:
			return nil, fmt.Errorf("marketdata: bar %d (%s): open time is not on a %s boundary", i, at, iv)
		case !after:
			return nil, fmt.Errorf("marketdata: bar %d (%s): open time is not after the previous bar's", i, at)
		}
		if rerr := b.add(ms, v, nil); rerr != nil {
			return nil, fmt.Errorf("marketdata: bar %d (%s): %s: %s", i, at, rerr.Field, rerr.Problem)
		}
	}
	return b.series(), nil
}

// Builder builds a Series bar by bar from decimal text, with the rules
// and scale handling of Read: for loaders of other sources (the store).
type Builder struct {
	b *builder
}

// NewBuilder starts a Series of symbol at interval iv (valid) with room
// for sizeHint bars.
func NewBuilder(symbol string, iv exchange.Interval, sizeHint int) *Builder {
	return &Builder{b: newBuilder(symbol, iv, sizeHint)}
}

// Append checks and appends one bar given its open time in milliseconds
// and its values as plain decimal text; a bad bar is a *RowError (Line
// zero) and leaves the series as it was.
func (b *Builder) Append(openMs int64, open, high, low, close, volume []byte) error {
	if rerr := b.b.checkTime(openMs, "open_time"); rerr != nil {
		return rerr
	}
	texts := [5][]byte{open, high, low, close, volume}
	var v [5]num
	for f, t := range texts {
		x, p := parseNum(t, false)
		if p != numOK {
			return numError(seriesFieldNames[f], t, p)
		}
		v[f] = x
	}
	if rerr := b.b.add(openMs, v, &texts); rerr != nil {
		return rerr
	}
	return nil
}

// Series returns the bars appended so far.
func (b *Builder) Series() *Series { return b.b.series() }

package strategy

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// history keeps the most recent closed bars of one feed (at most
// capacity), in one of two ways.
//
// Bars a replay reads from a series (pushFrom, pushRun) are not copied:
// while each is the next bar of the same series, the history is that
// series up to its latest bar (src, end), so delivering a bar costs two
// integers, and a run of bars the fast path took (Runtime.Skip) costs
// the same. Any other bar turns the history into a ring of compact bars
// (the series' kept bars copied in first), so delivering a bar allocates
// nothing once the ring is full and builds no decimal.
//
// The klines Context.Klines hands out are built when asked for and kept
// (a bar's kline is built once, however often it is asked for), so a
// strategy reading its last n klines at every bar costs one kline a bar,
// and one that never reads them costs none. The ring grows to its
// capacity as bars come (a short backtest in a sweep never needs the
// whole of it); while it grows start stays 0.
type history struct {
	capacity int

	// The series: bars [end-kept, end) of src, while src is set.
	src  *marketdata.Series
	end  int
	kept int
	// srcKl[j%capacity] is bar j of src as a kline when srcAt[j%capacity]
	// is j+1; both are allocated at the first request for klines.
	srcKl []exchange.Kline
	srcAt []int

	// The ring, when src is nil.
	buf   []exchange.FixedKline
	start int
	n     int
	// kl[i] is buf[i] as a kline when built[i]; both are allocated at the
	// first request for klines.
	kl    []exchange.Kline
	built []bool

	view []exchange.Kline // scratch for recent: reused, valid during a call
}

// historyStart is the ring's first size.
const historyStart = 64

func newHistory(capacity int) *history {
	return &history{capacity: max(capacity, 1)}
}

// pushFrom adds bar i of src, which k holds.
func (h *history) pushFrom(src *marketdata.Series, i int, k *exchange.FixedKline) {
	if src != nil && (h.src == src && i == h.end || h.src == nil && h.n == 0) {
		h.pushRun(src, i, i+1)
		return
	}
	h.push(k)
}

// pushRun adds bars [lo, hi) of src.
func (h *history) pushRun(src *marketdata.Series, lo, hi int) {
	switch {
	case h.src == src && lo == h.end:
	case h.src == nil && h.n == 0:
		h.src, h.kept = src, 0
	default:
		for j := max(lo, hi-h.capacity); j < hi; j++ {
			k := src.FixedKline(j)
			h.push(&k)
		}
		return
	}
	h.end = hi
	h.kept = min(h.kept+hi-lo, h.capacity)
}

// toRing copies the series' kept bars into the ring and leaves the
// series.
func (h *history) toRing() {
	src, lo, hi := h.src, h.end-h.kept, h.end
	h.src, h.end, h.kept, h.srcKl, h.srcAt = nil, 0, 0, nil, nil
	for j := lo; j < hi; j++ {
		k := src.FixedKline(j)
		h.push(&k)
	}
}

func (h *history) push(k *exchange.FixedKline) {
	if h.src != nil {
		h.toRing()
	}
	i := h.start
	if h.n < h.capacity {
		if h.n == len(h.buf) {
			buf := make([]exchange.FixedKline, min(h.capacity, max(historyStart, 2*len(h.buf))))
			copy(buf, h.buf)
			h.buf = buf
		}
		i = h.n
		h.n++
	} else {
		// A comparison, not %: a division at every bar costs more.
		if h.start++; h.start == len(h.buf) {
			h.start = 0
		}
	}
	h.buf[i] = *k
	if i < len(h.built) {
		h.built[i] = false
	}
}

// last returns the latest bar and whether there is one.
func (h *history) last() (exchange.FixedKline, bool) {
	if h.src != nil {
		return h.src.FixedKline(h.end - 1), true
	}
	if h.n == 0 {
		return exchange.FixedKline{}, false
	}
	return h.buf[(h.start+h.n-1)%len(h.buf)], true
}

// recent returns up to n most recent bars as klines, oldest first, in a
// reused slice.
func (h *history) recent(n int) []exchange.Kline {
	if h.src != nil {
		return h.recentSeries(n)
	}
	if n > h.n {
		n = h.n
	}
	if n <= 0 {
		return nil
	}
	if len(h.kl) != len(h.buf) {
		// The ring grew (start is still 0, so slots keep their index).
		kl, built := make([]exchange.Kline, len(h.buf)), make([]bool, len(h.buf))
		copy(kl, h.kl)
		copy(built, h.built)
		h.kl, h.built = kl, built
	}
	h.view = h.view[:0]
	for i := h.n - n; i < h.n; i++ {
		j := (h.start + i) % len(h.buf)
		if !h.built[j] {
			h.kl[j], h.built[j] = h.buf[j].Kline(), true
		}
		h.view = append(h.view, h.kl[j])
	}
	return h.view
}

// recentSeries is recent while the history is a series.
func (h *history) recentSeries(n int) []exchange.Kline {
	n = min(n, h.kept)
	if n <= 0 {
		return nil
	}
	if h.srcKl == nil {
		h.srcKl, h.srcAt = make([]exchange.Kline, h.capacity), make([]int, h.capacity)
	}
	h.view = h.view[:0]
	for j := h.end - n; j < h.end; j++ {
		slot := j % h.capacity
		if h.srcAt[slot] != j+1 {
			k := h.src.FixedKline(j)
			h.srcKl[slot], h.srcAt[slot] = k.Kline(), j+1
		}
		h.view = append(h.view, h.srcKl[slot])
	}
	return h.view
}

// aggregator builds bars of a higher interval from closed bars of a base
// interval. A higher bar is complete when the base bar that ends at its
// close arrives; if the base series has a gap at the end of a period, the
// bar is completed by the first base bar of a later period instead, built
// from the bars that exist. With merge set (data.resample_gaps: merge) a
// gap closes nothing: base bars keep merging into the bar being built
// until one ends at a period's close, and the bar delivered is stamped
// with the period that base bar completes (its open is the first merged
// bar's open, its volume everything merged). It works on compact bars:
// highs and lows by comparison, volumes added as decimal adds them (the
// coefficients at the smaller exponent), so its bars are the decimal
// aggregation's, number for number.
type aggregator struct {
	iv    exchange.Interval
	merge bool
	cur   exchange.FixedKline
	have  bool
}

// closeBefore completes the bar being built when its period ended at or
// before t (the base series has a gap at its end): the bar built from the
// base bars that exist.
func (a *aggregator) closeBefore(t time.Time) (exchange.FixedKline, bool) {
	if !a.have || a.merge || a.iv.Next(a.cur.OpenTime).After(t) {
		return exchange.FixedKline{}, false
	}
	a.have = false
	return a.cur, true
}

// add folds a base bar in. It writes completed higher bars to out (at most
// two: one closed by a gap, one closed by this bar) and returns how many.
func (a *aggregator) add(k *exchange.FixedKline, baseIv exchange.Interval, out *[2]exchange.FixedKline) int {
	n := 0
	open := a.iv.Truncate(k.OpenTime)
	if a.have && !a.cur.OpenTime.Equal(open) {
		if a.merge { // carried over a gap into this period
			a.cur.OpenTime = open
			a.cur.CloseTime = a.iv.Next(open).Add(-time.Millisecond)
		} else {
			out[n] = a.cur
			n++
			a.have = false
		}
	}
	if !a.have {
		a.cur = *k
		a.cur.OpenTime = open
		a.cur.CloseTime = a.iv.Next(open).Add(-time.Millisecond)
		a.have = true
	} else {
		if k.High.Cmp(a.cur.High) > 0 {
			a.cur.High = k.High
		}
		if k.Low.Cmp(a.cur.Low) < 0 {
			a.cur.Low = k.Low
		}
		a.cur.Close = k.Close
		a.cur.Volume = addVolume(a.cur.Volume, k.Volume)
		a.cur.QuoteVolume = addVolume(a.cur.QuoteVolume, k.QuoteVolume)
	}
	if !baseIv.Next(k.OpenTime).Before(a.iv.Next(open)) {
		out[n] = a.cur
		n++
		a.have = false
	}
	return n
}

// addVolume is a+b as decimal adds them; a sum past an int64 coefficient
// (never seen in real volumes) is rounded as exchange.RoundFixed does.
func addVolume(a, b exchange.Fixed) exchange.Fixed {
	if s, ok := a.Add(b); ok {
		return s
	}
	return exchange.RoundFixed(decimal.Sum(a.Decimal(), b.Decimal()))
}

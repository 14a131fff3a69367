package strategy

import (
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// history keeps the most recent closed klines of one feed in a ring, so
// delivering a bar allocates nothing once the ring is full. The ring grows
// to its capacity as bars come (a short backtest in a sweep never needs
// the whole of it); while it grows start stays 0.
type history struct {
	buf      []exchange.Kline
	capacity int
	start    int
	n        int
	view     []exchange.Kline // scratch for Klines: reused, valid during a call
}

// historyStart is the ring's first size.
const historyStart = 64

func newHistory(capacity int) *history {
	return &history{capacity: max(capacity, 1)}
}

func (h *history) push(k *exchange.Kline) {
	if h.n < h.capacity {
		if h.n == len(h.buf) {
			buf := make([]exchange.Kline, min(h.capacity, max(historyStart, 2*len(h.buf))))
			copy(buf, h.buf)
			h.buf = buf
		}
		h.buf[h.n] = *k
		h.n++
		return
	}
	h.buf[h.start] = *k
	h.start = (h.start + 1) % len(h.buf)
}

// last returns the latest kline and whether there is one.
func (h *history) last() (exchange.Kline, bool) {
	if h.n == 0 {
		return exchange.Kline{}, false
	}
	return h.buf[(h.start+h.n-1)%len(h.buf)], true
}

// recent returns up to n most recent klines, oldest first, in a reused slice.
func (h *history) recent(n int) []exchange.Kline {
	if n > h.n {
		n = h.n
	}
	if n <= 0 {
		return nil
	}
	h.view = h.view[:0]
	for i := h.n - n; i < h.n; i++ {
		h.view = append(h.view, h.buf[(h.start+i)%len(h.buf)])
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
// bar's open, its volume everything merged).
type aggregator struct {
	iv    exchange.Interval
	merge bool
	cur   exchange.Kline
	have  bool
}

// closeBefore completes the bar being built when its period ended at or
// before t (the base series has a gap at its end): the bar built from the
// base bars that exist.
func (a *aggregator) closeBefore(t time.Time) (exchange.Kline, bool) {
	if !a.have || a.merge || a.iv.Next(a.cur.OpenTime).After(t) {
		return exchange.Kline{}, false
	}
	a.have = false
	return a.cur, true
}

// add folds a base bar in. It writes completed higher bars to out (at most
// two: one closed by a gap, one closed by this bar) and returns how many.
func (a *aggregator) add(k *exchange.Kline, baseIv exchange.Interval, out *[2]exchange.Kline) int {
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
		if k.High.GreaterThan(a.cur.High) {
			a.cur.High = k.High
		}
		if k.Low.LessThan(a.cur.Low) {
			a.cur.Low = k.Low
		}
		a.cur.Close = k.Close
		a.cur.Volume = a.cur.Volume.Add(k.Volume)
		a.cur.QuoteVolume = a.cur.QuoteVolume.Add(k.QuoteVolume)
	}
	if !baseIv.Next(k.OpenTime).Before(a.iv.Next(open)) {
		out[n] = a.cur
		n++
		a.have = false
	}
	return n
}

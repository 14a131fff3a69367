package strategy

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// Skipper is an optional interface of a strategy: the fast path of a
// backtest. While nothing but the strategy's own bookkeeping can happen on
// a bar (the instance has no open order, no exits, no schedules; nothing
// else subscribes to the feed; trading has begun), the runtime may hand a
// run of the feed's next bars to Skip instead of calling OnKline once a
// bar.
//
// Skip takes the bars from the first, in order, for as long as OnKline on
// each would do nothing but update the strategy's own state (its
// indicators): place or cancel nothing and return nil. It returns how many
// bars it took, and must leave the strategy exactly as OnKline on those
// bars would have (the same float64 in every indicator, bit for bit:
// indicator.SMA.Peek and EMA.Peek look at a bar's values without taking
// it). The first bar it does not take is delivered through OnKline, as
// are all bars when it takes none.
//
// ctx is the instance's Context, to read what cannot change during the
// run (no order is open and none fills): Position, Balance, Rules,
// OpenOrders (none), WarmingUp (false). LastPrice and Now are those of the
// bar before the run, not of the bars in it: read the bars instead. An
// order placed from Skip is refused (ErrSkipping).
//
// A backtest with Skip gives the same fills, equity and reports as one
// without: backtest.VerifyFastPath runs both and names the first
// difference (backtest.Spec.Stepwise turns the fast path off).
type Skipper interface {
	Skip(ctx Context, f Feed, bars Bars) int
}

// ErrSkipping refuses an order placed from Skip.
var ErrSkipping = errors.New("strategy: orders are refused during Skip (the fast path): return the bar's index instead")

// Bars is a run of consecutive closed bars of one feed, read from the
// columns of the series a backtest replays: numbers compact, nothing
// built until asked for.
type Bars struct {
	s      *marketdata.Series
	lo, hi int
	// cache is the closes' float cache the bars' readers share (a
	// replay's: Bars.Cache), nil for none.
	cache *FloatCache
}

// NewBars is bars [lo, hi) of s.
func NewBars(s *marketdata.Series, lo, hi int) Bars { return Bars{s: s, lo: lo, hi: hi} }

// WithCache is b with c as the float cache of its closes that its readers
// share (Cache), nil for none.
func (b Bars) WithCache(c *FloatCache) Bars { b.cache = c; return b }

// Cache is the float cache of the bars' closes shared by their readers:
// a backtest's replay hands one with the bars to Skip and reads the
// closes Skip converted from it again for the equity it samples over the
// bars taken, so each close is converted once. Nil when the bars come
// without one (NewBars): a strategy then keeps its own.
func (b Bars) Cache() *FloatCache { return b.cache }

// Head is the first n bars (the ones Skip took, say), with the same
// cache.
func (b Bars) Head(n int) Bars {
	b.hi = b.lo + min(max(n, 0), b.hi-b.lo)
	return b
}

// Len is the number of bars.
func (b Bars) Len() int { return b.hi - b.lo }

// Close is bar i's close.
func (b Bars) Close(i int) exchange.Fixed {
	return exchange.Fixed{Coef: b.s.Int(marketdata.Close, b.lo+i), Exp: b.s.Exp(marketdata.Close)}
}

// Field is bar i's open, high, low, close or volume.
func (b Bars) Field(f marketdata.Field, i int) exchange.Fixed {
	return exchange.Fixed{Coef: b.s.Int(f, b.lo+i), Exp: b.s.Exp(f)}
}

// Floats is field f of the bars as float64, read straight from the
// series' column: At(i) is Field(f, i).Float64(), bit for bit, without
// building the Fixed (an indicator's input in a Skip loop). The closes'
// Fill copies the values the bars' Cache holds instead of converting
// them again.
func (b Bars) Floats(f marketdata.Field) Floats {
	v := Floats{col: b.s.Ints(f)[b.lo:b.hi], exp: b.s.Exp(f)}
	if v.exp <= 0 && v.exp >= -22 {
		v.div, v.lim = math.Pow10(int(-v.exp)), 1<<54+1 // 10^k is exact up to 1e22
	}
	if f == marketdata.Close && b.cache != nil {
		v.cache, v.s, v.lo = b.cache, b.s, b.lo
	}
	return v
}

// Floats is a field of a run of bars as float64 (Bars.Floats).
type Floats struct {
	col []int64
	// div is 10^-exp when that is an exact float64 (exp in [-22, 0]), so a
	// coefficient c of at most 2^53 in magnitude converts with one
	// correctly rounded division, as exchange.Fixed.Float64 does: then
	// lim is 2^54+1 and c+2^53, as unsigned, is below it; else lim is 0.
	div float64
	lim uint64
	exp int32
	// cache holds closes of s converted already (col is s's closes from
	// lo on), nil for none.
	cache *FloatCache
	s     *marketdata.Series
	lo    int
}

// Len is the number of bars.
func (v Floats) Len() int { return len(v.col) }

// At is bar i's value.
func (v Floats) At(i int) float64 {
	c := v.col[i]
	if uint64(c+1<<53) < v.lim {
		return float64(c) / v.div
	}
	return exactFloat(c, v.exp)
}

// Fill sets dst to the values of bars from, from+1, ... (as many as fit
// and there are) and returns how many it set: At over a run, in one loop.
// Values the bars' cache holds are copied from it.
func (v Floats) Fill(dst []float64, from int) int {
	n := min(len(dst), len(v.col)-from)
	dst = dst[:n]
	if c := v.cache; c != nil && c.s == v.s {
		// dst[a:b] is what the cache holds: bars c.from … of s.
		at := v.lo + from
		a, b := min(max(c.from-at, 0), n), min(max(c.from+len(c.vals)-at, 0), n)
		if a < b {
			v.convert(dst[:a], from)
			copy(dst[a:b], c.vals[at+a-c.from:])
			v.convert(dst[b:], from+b)
			return n
		}
	}
	v.convert(dst, from)
	return n
}

// convert sets dst to the values of bars from, from+1, … (len(dst) of
// them, all there).
func (v Floats) convert(dst []float64, from int) {
	src := v.col[from : from+len(dst)]
	for j, c := range src {
		if uint64(c+1<<53) < v.lim {
			dst[j] = float64(c) / v.div
		} else {
			dst[j] = exactFloat(c, v.exp)
		}
	}
}

// exactFloat is At through exchange.Fixed.Float64, for the values the
// division cannot convert exactly: the rare case, kept out of line.
//
//go:noinline
func exactFloat(c int64, exp int32) float64 { return exchange.Fixed{Coef: c, Exp: exp}.Float64() }

// FloatCache holds closes of a series converted to float64, as
// Bars.Floats converts them: those of bars from, from+1, … of one series,
// up to its capacity. A strategy's Skip takes closes from it a chunk at a
// time (Closes); a run that stops at a cross leaves values converted past
// it, which the next run takes instead of converting them again, and
// whoever reads the same bars' closes after Skip (the backtest sampling
// the equity over the bars taken: Bars.Cache) copies them from it.
type FloatCache struct {
	s    *marketdata.Series
	from int
	vals []float64 // a prefix of buf
	buf  []float64
}

// NewFloatCache is an empty cache of n closes (at least one).
func NewFloatCache(n int) *FloatCache { return &FloatCache{buf: make([]float64, max(n, 1))} }

// Cap is how many closes the cache holds at most.
func (c *FloatCache) Cap() int { return len(c.buf) }

// Closes returns the closes of bars at, at+1, …: the ones the cache holds
// from there on, else at most size of them (and at most the room there
// is) converted now: after the ones it holds when they end at bar at (a
// full cache keeps its last quarter for that), so a run taken a chunk at
// a time stays whole in the cache for the next reader unless longer than
// a quarter of Cap, else in place of them. At least one when at is inside
// the bars, none past their end. The slice is the cache's: read it, do not
// change it (others read the same values), and only until the next call.
func (c *FloatCache) Closes(bars Bars, at, size int) []float64 {
	i := bars.lo + at
	if at >= bars.Len() || at < 0 {
		return nil
	}
	if c.s != bars.s || i < c.from || i >= c.from+len(c.vals) {
		k := 0 // where the new values go in buf
		if c.s == bars.s && i == c.from+len(c.vals) && len(c.vals) > 0 {
			if len(c.vals) == len(c.buf) {
				// Full: the last quarter is kept, moved to the front,
				// so a run shorter than that which began in it stays
				// whole.
				keep := len(c.buf) / 4
				copy(c.buf, c.vals[len(c.vals)-keep:])
				c.from += len(c.vals) - keep
				c.vals = c.buf[:keep]
			}
			k = len(c.vals)
		}
		n := min(max(size, 1), len(c.buf)-k, bars.Len()-at)
		bars.Floats(marketdata.Close).convert(c.buf[k:k+n], at)
		if k == 0 {
			c.s, c.from = bars.s, i
		}
		c.vals = c.buf[:k+n]
	}
	return c.vals[i-c.from : min(len(c.vals), bars.hi-c.from)]
}

// Held returns the closes of all the bars when the cache holds them, read
// only as Closes's, and false when it does not (or c is nil).
func (c *FloatCache) Held(bars Bars) ([]float64, bool) {
	if c == nil || c.s != bars.s || bars.lo < c.from || bars.hi > c.from+len(c.vals) {
		return nil, false
	}
	return c.vals[bars.lo-c.from : bars.hi-c.from], true
}

// Kline is bar i whole, as OnKline would receive it.
func (b Bars) Kline(i int) exchange.FixedKline { return b.s.FixedKline(b.lo + i) }

// OpenMs is bar i's open time in milliseconds since the epoch.
func (b Bars) OpenMs(i int) int64 { return b.s.OpenMs(b.lo + i) }

// Series is the series the bars are read from and their index range in
// it.
func (b Bars) Series() (s *marketdata.Series, lo, hi int) { return b.s, b.lo, b.hi }

// SkipCounter is an optional interface of a Skipper: its fast path over
// a replay of several symbols. There the runtime offers the same instants
// of every feed together: it asks each feed's SkipCount, in the replay's
// symbol order, over at most the bars the counts before it allowed, then
// hands each feed's Skip the run they all take (the least count), feed
// after feed. So a SkipCounter's Skip must leave the strategy as OnKline
// would have over its own feed's bars whatever it has been told of the
// other feeds' bars of the same instants: a strategy whose decisions on
// one feed read another feed's bars implements Skipper alone, and its
// fast path then runs on backtests of one symbol only.
type SkipCounter interface {
	Skipper
	// SkipCount returns how many of the bars Skip would take now, with
	// the same ctx, feed and bars, and takes none: the strategy is left
	// exactly as it was (running Skip's own code over a copy of the
	// feed's state is one way: indicator.SMA.CopyTo). Orders placed
	// from it are refused, as from Skip.
	SkipCount(ctx Context, f Feed, bars Bars) int
}

// Skip offers bars of feed f to the fast path and returns how many were
// taken (0 when the fast path does not apply now: see Skipper). The bars
// taken are as if delivered by OnBarRef while trading: counted, kept in
// the feed's history, the last close the symbol's last price.
func (r *Runtime) Skip(f Feed, bars Bars) int {
	if !r.canSkip() || bars.Len() == 0 {
		return 0
	}
	st := r.cur
	if st == nil || st.feed != f {
		if st = r.feeds[f]; st == nil {
			return 0
		}
	}
	in := st.skipper()
	if in == nil {
		return 0
	}
	n := in.offer(f, bars, false)
	if n <= 0 {
		return 0
	}
	r.took(st, f, bars, n)
	if r.watching() {
		r.observeRun([]Feed{f}, []Bars{bars}, n)
	}
	return n
}

// watching reports whether the kill switch observes the equity at every
// bar (a risk limit on equity, not tripped yet).
func (r *Runtime) watching() bool { return r.opts.Valuation != "" && !r.killed }

// observeRun feeds the kill switch the equity after each bar of the
// first n instants of runs the fast path took (bars[i] feed i's, the same
// instants), as the steps would have after delivering each, feed after
// feed at each instant: the symbol's last price at the bar's close, at
// the bar's close time (the step's). The strategies took the bars first,
// as they would have seen each before its observation; a trip stops the
// observations, and the rest of the run is what OnBarRef would deliver to
// a runtime whose orders are refused (a run holds no order, by Skip's
// contract). The last prices end at the runs' last closes, as took left
// them.
func (r *Runtime) observeRun(feeds []Feed, bars []Bars, n int) {
	lasts := r.runLasts[:0]
	for _, f := range feeds {
		lasts = append(lasts, r.lastEntry(f.Symbol))
	}
	r.runLasts = lasts
	j := 0
	if len(feeds) == 1 {
		j = r.observeQuiet(feeds[0], bars[0], lasts[0], n)
	}
	r.observeEach(feeds, bars, lasts, j, n)
	for i := range feeds {
		lasts[i].setFixed(bars[i].Close(n - 1))
	}
}

// observeEach is observeRun's loop at every bar, from instant j to n.
func (r *Runtime) observeEach(feeds []Feed, bars []Bars, lasts []*lastPx, j, n int) {
	for ; j < n && !r.killed; j++ {
		for i, f := range feeds {
			if r.killed {
				break
			}
			lasts[i].setFixed(bars[i].Close(j))
			r.observeEquityAt(f.Interval.Next(time.UnixMilli(bars[i].OpenMs(j)).UTC()))
		}
	}
}

// observeQuiet is observeRun's loop for one feed's run, from its first
// bar, through the prices at which the equity is quiet (the rest of the
// account does not move during a run: risk.Quiet.PriceRange). A bar
// whose close is in that range and whose close time is in the quiet day
// would change nothing in the gate, and is passed over without summing
// the equity; any other is observed as observeRun observes it, and the
// range is found again. Nothing else changes the gate during a
// backtest's run, so the range holds until then. It returns how many
// bars it took: up to the first where no range could be found (a
// calendar interval, an equity not in int64s, a gate not yet observed),
// or n.
func (r *Runtime) observeQuiet(f Feed, bars Bars, last *lastPx, n int) int {
	dur := f.Interval.Duration().Milliseconds()
	if dur <= 0 || n <= 0 {
		return 0
	}
	exp := bars.Close(0).Exp
	j := 0
	for j < n && !r.killed {
		lo, hi, from, to, ok := r.quietPrices(f.Symbol, exp)
		if !ok {
			return j
		}
		for ; j < n; j++ {
			c, t := bars.Close(j).Coef, bars.OpenMs(j)+dur
			if c < lo || c > hi || t < from || t >= to {
				break
			}
		}
		if j == n {
			break
		}
		r.observeEach([]Feed{f}, []Bars{bars}, []*lastPx{last}, j, j+1)
		j++
	}
	return j
}

// quietPrices is the range of symbol's prices (coefficients at exp) at
// which the equity is quiet, the rest of the account as it stands, and
// the quiet day's bounds in Unix milliseconds; false where there is none
// to find.
func (r *Runtime) quietPrices(symbol string, exp int32) (lo, hi, from, to int64, ok bool) {
	if !r.refreshStale() {
		return 0, 0, 0, 0, false
	}
	if !r.opts.Gate.Current(&r.quiet) {
		r.quiet = r.opts.Gate.Quiet()
	}
	rest, held, ok := r.sumHoldings(symbol)
	if !ok {
		return 0, 0, 0, 0, false
	}
	if lo, hi, ok = r.quiet.PriceRange(rest, held, exp); !ok {
		return 0, 0, 0, 0, false
	}
	start, end := r.quiet.Day()
	return lo, hi, start.UnixMilli(), end.UnixMilli(), true
}

// SkipAll is Skip over several feeds at once: bars[i] are feed i's bars
// at the same instants as the others' (a replay of several symbols, in
// its symbol order). It returns how many instants every feed took, the
// same for all (see SkipCounter): none unless each feed's one subscriber
// is a SkipCounter that may skip now, as Skip requires of one feed's. A
// feed nobody subscribes to takes every bar, as OnBarRef would take it:
// its last close becomes the symbol's last price. A Skip that takes fewer
// bars than its SkipCount counted stops its instance, naming both; the
// run is taken all the same.
func (r *Runtime) SkipAll(feeds []Feed, bars []Bars) int {
	if len(feeds) == 1 {
		return r.Skip(feeds[0], bars[0])
	}
	if !r.canSkip() || len(feeds) == 0 || len(bars) != len(feeds) {
		return 0
	}
	n := bars[0].Len()
	for _, b := range bars[1:] {
		n = min(n, b.Len())
	}
	sts := r.skipFeeds[:0]
	for i, f := range feeds {
		st := r.feeds[f]
		if st != nil {
			in := st.skipper()
			if in == nil {
				return 0
			}
			if _, ok := in.skipper.(SkipCounter); !ok {
				return 0
			}
			if n = in.offer(f, bars[i].Head(n), true); n <= 0 {
				return 0
			}
		}
		sts = append(sts, st)
	}
	r.skipFeeds = sts
	for i, f := range feeds {
		run := bars[i].Head(n)
		if st := sts[i]; st != nil {
			if in := st.subs[0]; in.stopped == nil {
				if k := in.offer(f, run, false); k != n && in.stopped == nil {
					in.stop(fmt.Errorf("strategy: Skip took %d of %s's %d bars, all of which SkipCount counted (strategy.SkipCounter)", k, f.Symbol, n))
				}
			}
		}
		r.took(sts[i], f, run, n)
	}
	if r.watching() {
		r.observeRun(feeds, bars, n)
	}
	return n
}

// canSkip reports whether the fast path can take bars now: some instance
// is a Skipper, and none has schedules or orders open. (A kill switch
// watching the equity is fed each bar taken: observeRun.)
func (r *Runtime) canSkip() bool {
	return r.skippers && !r.scheduled && len(r.open) == 0
}

// skipper is the instance whose Skip may take the feed's bars now: its
// one subscriber, a Skipper that is trading, without exits; nil when
// there is none, or when anything else (another subscriber, a higher
// interval built from the feed, exits) must see each bar.
func (st *feedState) skipper() *instance {
	if len(st.subs) != 1 || len(st.aggs) > 0 || len(st.exitSubs) > 0 {
		return nil
	}
	in := st.subs[0]
	if in.skipper == nil || in.stopped != nil || in.warming || in.exits != nil {
		return nil
	}
	return in
}

// took records that the first n of feed f's bars were taken by the fast
// path, as OnBarRef would have recorded them: counted, in the feed's
// history, the last close the symbol's last price. st is nil for a feed
// nobody subscribes to.
func (r *Runtime) took(st *feedState, f Feed, bars Bars, n int) {
	r.stats.Bars += n
	if st == nil {
		r.lastEntry(f.Symbol).setFixed(bars.Close(n - 1))
		return
	}
	src, lo, _ := bars.Series()
	st.hist.pushRun(src, lo, lo+n)
	if st.last == nil {
		st.last = r.lastEntry(f.Symbol)
	}
	st.last.setFixed(bars.Close(n - 1))
	r.cur = st
}

// offer calls the instance's Skip, or its SkipCount when counting,
// refusing orders meanwhile and stopping the instance on a panic as
// onKline does; the count is clamped to the bars offered.
func (in *instance) offer(f Feed, bars Bars, counting bool) (n int) {
	in.skipping = true
	defer func() { in.skipping = false }()
	defer in.recoverPanic()
	if counting {
		n = in.skipper.(SkipCounter).SkipCount(in, f, bars)
	} else {
		n = in.skipper.Skip(in, f, bars)
	}
	return min(max(n, 0), bars.Len())
}

// Skips reports whether some instance has the fast path (Skipper) and
// none has schedules: whether Skip can ever take a bar.
func (r *Runtime) Skips() bool { return r.skippers && !r.scheduled }

package strategy

import (
	"errors"
	"math"

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
}

// NewBars is bars [lo, hi) of s.
func NewBars(s *marketdata.Series, lo, hi int) Bars { return Bars{s: s, lo: lo, hi: hi} }

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
// building the Fixed (an indicator's input in a Skip loop).
func (b Bars) Floats(f marketdata.Field) Floats {
	v := Floats{col: b.s.Ints(f)[b.lo:b.hi], exp: b.s.Exp(f)}
	if v.exp <= 0 && v.exp >= -22 {
		v.div, v.lim = math.Pow10(int(-v.exp)), 1<<54+1 // 10^k is exact up to 1e22
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
func (v Floats) Fill(dst []float64, from int) int {
	src := v.col[from:]
	n := min(len(dst), len(src))
	dst, src = dst[:n], src[:n]
	for j, c := range src {
		if uint64(c+1<<53) < v.lim {
			dst[j] = float64(c) / v.div
		} else {
			dst[j] = exactFloat(c, v.exp)
		}
	}
	return n
}

// exactFloat is At through exchange.Fixed.Float64, for the values the
// division cannot convert exactly: the rare case, kept out of line.
//
//go:noinline
func exactFloat(c int64, exp int32) float64 { return exchange.Fixed{Coef: c, Exp: exp}.Float64() }

// Kline is bar i whole, as OnKline would receive it.
func (b Bars) Kline(i int) exchange.FixedKline { return b.s.FixedKline(b.lo + i) }

// OpenMs is bar i's open time in milliseconds since the epoch.
func (b Bars) OpenMs(i int) int64 { return b.s.OpenMs(b.lo + i) }

// Series is the series the bars are read from and their index range in
// it.
func (b Bars) Series() (s *marketdata.Series, lo, hi int) { return b.s, b.lo, b.hi }

// Skip offers bars of feed f to the fast path and returns how many were
// taken (0 when the fast path does not apply now: see Skipper). The bars
// taken are as if delivered by OnBarRef while trading: counted, kept in
// the feed's history, the last close the symbol's last price.
func (r *Runtime) Skip(f Feed, bars Bars) int {
	if !r.skippers || r.scheduled || bars.Len() == 0 || r.opts.Valuation != "" || len(r.open) > 0 {
		return 0
	}
	st := r.cur
	if st == nil || st.feed != f {
		if st = r.feeds[f]; st == nil {
			return 0
		}
	}
	if len(st.subs) != 1 || len(st.aggs) > 0 || len(st.exitSubs) > 0 {
		return 0
	}
	in := st.subs[0]
	sk := in.skipper
	if sk == nil || in.stopped != nil || in.warming || in.exits != nil {
		return 0
	}
	n := in.skip(sk, f, bars)
	if n <= 0 {
		return 0
	}
	r.stats.Bars += n
	src, lo, _ := bars.Series()
	st.hist.pushRun(src, lo, lo+n)
	if st.last == nil {
		st.last = r.lastEntry(f.Symbol)
	}
	st.last.setFixed(bars.Close(n - 1))
	r.cur = st
	return n
}

// skip calls the instance's Skip, stopping the instance on a panic as
// onKline does; the count is clamped to the bars offered.
func (in *instance) skip(sk Skipper, f Feed, bars Bars) (n int) {
	in.skipping = true
	defer func() { in.skipping = false }()
	defer in.recoverPanic()
	n = sk.Skip(in, f, bars)
	return min(max(n, 0), bars.Len())
}

// Skips reports whether some instance has the fast path (Skipper) and
// none has schedules: whether Skip can ever take a bar.
func (r *Runtime) Skips() bool { return r.skippers && !r.scheduled }

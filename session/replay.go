package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/strategy"
)

// Replay is the Feed of historical bars: a backtest and paper-replay. The
// bars come either as compact series (Series: a backtest; the series were
// checked when built) or as klines (Data: a bar that does not open after
// the one before it ends the replay with an error naming it). Each
// step is an instant (the earliest open time among the symbols' next
// bars) with every symbol's bar at it, fed to the simulated exchange. The
// first WarmUp bars of each symbol are warm-up; once one bar is live, all
// later bars are.
type Replay struct {
	Interval exchange.Interval
	// Symbols are the symbols replayed, sorted.
	Symbols []string
	// Series holds each symbol's bars at Interval, in their compact form:
	// each step copies its bars' numbers from the columns into a buffer
	// of one compact bar a symbol, reused at the next step (the runtime
	// and the exchange copy what they keep), so the replay builds no
	// decimal and holds nothing per bar.
	Series map[string]*marketdata.Series
	// WarmUp is how many bars of each symbol are warm-up
	// (Runtime.WarmUpBars).
	WarmUp int

	started bool
	live    bool
	next    []int
	series  []*marketdata.Series
	times   [][]int64             // each series' open times
	kbuf    []exchange.FixedKline // each symbol's current bar
	durMs   int64                 // Interval's length in ms; 0 for a month, whose length varies
	feeds   []strategy.Feed
	at      []int           // the symbols with a bar at the current instant
	runs    []strategy.Bars // ahead's result, reused
	steps   int             // steps delivered, for the context's look every 256
	step    Step
	// done is the Done channel of the first call's context (a replay runs
	// under one): a receive that does not wait is cheaper than ctx.Err,
	// which takes the context's lock, at every instant.
	done <-chan struct{}
}

// Total is the number of bars replayed.
func (r *Replay) Total() int {
	n := 0
	for _, sym := range r.Symbols {
		if s := r.Series[sym]; s != nil {
			n += s.Len()
		}
	}
	return n
}

// Next implements Feed. A Replay is driven under one context: the first
// call's.
func (r *Replay) Next(ctx context.Context) (*Step, error) {
	if !r.started {
		if len(r.Symbols) == 0 || !r.Interval.Valid() {
			return nil, errors.New("session: a replay needs symbols and a valid interval")
		}
		r.started = true
		if r.Interval != exchange.Interval1M {
			r.durMs = r.Interval.Duration().Milliseconds()
		}
		n := len(r.Symbols)
		r.next = make([]int, n)
		r.feeds = make([]strategy.Feed, n)
		r.kbuf = make([]exchange.FixedKline, n)
		r.series, r.times = make([]*marketdata.Series, n), make([][]int64, n)
		for i, sym := range r.Symbols {
			r.feeds[i] = strategy.Feed{Symbol: sym, Interval: r.Interval}
			s := r.Series[sym]
			if s == nil {
				return nil, fmt.Errorf("session: no bars for %s", sym)
			}
			if s.Interval() != r.Interval {
				return nil, fmt.Errorf("session: the %s bars are %s, the replay's interval %s", sym, s.Interval(), r.Interval)
			}
			r.series[i], r.times[i] = s, s.Times()
		}
		r.step.Bars = make([]Bar, 0, n)
		r.at = make([]int, 0, n)
		r.step.Tick = true
		r.done = ctx.Done()
	}
	// The context is looked at every 256 steps: a receive that does not
	// wait still costs more than the rest of a step's bookkeeping, and
	// 256 bars replay in microseconds.
	if r.steps++; r.steps&255 == 1 {
		select {
		case <-r.done:
			return nil, ctx.Err()
		default:
		}
	}
	if len(r.times) == 1 {
		return r.nextOne()
	}
	return r.nextSeries()
}

// nextOne is nextSeries for a replay of one symbol: each step is its
// next bar.
func (r *Replay) nextOne() (*Step, error) {
	n := r.next[0]
	if n >= len(r.times[0]) {
		return nil, io.EOF
	}
	s := &r.step
	if len(s.Bars) == 0 {
		s.Bars = append(s.Bars, Bar{Feed: r.feeds[0], Sim: true, K: &r.kbuf[0], Src: strategy.BarSource{Series: r.series[0]}})
	}
	r.bar(0, n)
	if !r.live && n >= r.WarmUp {
		r.live = true
	}
	s.Bars[0].Warm = !r.live
	s.Bars[0].Src.Pos = n
	r.next[0]++
	k := &r.kbuf[0]
	s.Open = k.OpenTime
	if r.durMs > 0 {
		s.At = time.UnixMilli(r.times[0][n] + r.durMs).UTC()
	} else {
		s.At = r.Interval.Next(s.Open)
	}
	return s, nil
}

// nextSeries is Next over Series: the instant is found on the open-time
// columns, and only its bars are copied out, as compact bars.
func (r *Replay) nextSeries() (*Step, error) {
	at := r.at[:0]
	var t int64
	for i, ts := range r.times {
		n := r.next[i]
		if n >= len(ts) {
			continue
		}
		switch ot := ts[n]; {
		case len(at) == 0 || ot < t:
			t = ot
			at = append(at[:0], i)
		case ot == t:
			at = append(at, i)
		}
	}
	r.at = at
	if len(at) == 0 {
		return nil, io.EOF
	}
	s := &r.step
	s.Bars = s.Bars[:len(at)]
	for j, i := range at {
		b := &s.Bars[j]
		if b.Index != i || b.Feed.Symbol == "" {
			*b = Bar{Feed: r.feeds[i], Sim: true, Index: i, Src: strategy.BarSource{Series: r.series[i]}}
		}
		n := r.next[i]
		b.Src.Pos = n
		r.bar(i, n)
		b.K = &r.kbuf[i]
		if !r.live && n >= r.WarmUp {
			r.live = true
		}
		b.Warm = !r.live
		r.next[i]++
	}
	s.Open = r.kbuf[at[0]].OpenTime
	if r.durMs > 0 {
		s.At = time.UnixMilli(t + r.durMs).UTC()
	} else {
		s.At = r.Interval.Next(s.Open)
	}
	return s, nil
}

// aheadCap is the most instants ahead offered at once when several
// symbols are replayed: their alignment is checked over the instants
// offered, and a run rarely lasts as long (the strategies' Skip stops at
// their next signal); a longer one is offered again from where it ended.
const aheadCap = 4096

// oneAheadCap is the most bars of one symbol's replay offered at once.
// A strategy takes a long stretch in pieces this long at no cost worth
// counting, and what follows each piece moves on meanwhile: a backtest's
// progress, and its equity.csv, formatted on another core while the run
// goes on rather than in one piece once it has ended.
const oneAheadCap = 32 << 10

// ahead returns what the loop may offer the strategies' fast path
// (strategy.Runtime.SkipAll) once the replay is past its warm-up at a
// fixed interval: each symbol's bars from its next one on, as many as
// there are instants from here at which every symbol has a bar. One
// symbol's are its bars left, at most oneAheadCap; several symbols' are
// at most aheadCap instants, and none when the next instant lacks one of
// them. The slices are the replay's, valid until the next call.
func (r *Replay) ahead() ([]strategy.Feed, []strategy.Bars, bool) {
	if !r.started || !r.live || r.durMs == 0 {
		return nil, nil, false
	}
	if len(r.runs) < len(r.times) {
		r.runs = make([]strategy.Bars, len(r.times))
	}
	bars := r.runs[:len(r.times)]
	if len(r.times) == 1 {
		n := r.next[0]
		bars[0] = strategy.NewBars(r.series[0], n, min(n+oneAheadCap, len(r.times[0])))
		return r.feeds, bars, n < len(r.times[0])
	}
	m := aheadCap
	t0 := int64(0)
	for i, ts := range r.times {
		n := r.next[i]
		if n >= len(ts) || i > 0 && ts[n] != t0 {
			return nil, nil, false
		}
		t0 = ts[n]
		m = min(m, len(ts)-n)
	}
	// Every symbol has a bar at each of the m instants from t0 when each
	// symbol's m-th bar opens m-1 lengths after t0: a series' bars open
	// at least a length apart, so m of them spanning m-1 lengths are one
	// at every length. That holds for every count up to the largest, so
	// when it fails for all m the largest is searched for.
	aligned := func(m int) bool {
		last := t0 + int64(m-1)*r.durMs
		for i, ts := range r.times {
			if ts[r.next[i]+m-1] != last {
				return false
			}
		}
		return true
	}
	if !aligned(m) {
		m = sort.Search(m, func(k int) bool { return !aligned(k + 1) }) // the first count that fails, less one
	}
	for i, s := range r.series {
		bars[i] = strategy.NewBars(s, r.next[i], r.next[i]+m)
	}
	return r.feeds, bars, true
}

// skip moves the replay past n instants the fast path took (n bars of
// each symbol) and returns the last bar of each, built into the symbols'
// buffers, and the time they close.
func (r *Replay) skip(n int) ([]exchange.FixedKline, time.Time) {
	var close int64
	for i := range r.times {
		last := r.next[i] + n - 1
		r.bar(i, last)
		r.next[i] += n
		close = r.times[i][last] + r.durMs
	}
	return r.kbuf, time.UnixMilli(close).UTC()
}

// bar copies bar n of series i into its buffer (Series.FixedKline): the
// series' numbers as it was read, no decimal built.
func (r *Replay) bar(i, n int) { r.series[i].FixedKlineTo(n, &r.kbuf[i]) }

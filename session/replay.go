package session

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// Replay is the Feed of historical bars: a backtest and paper-replay. Each
// step is an instant (the earliest open time among the symbols' next
// bars) with every symbol's bar at it, fed to the simulated exchange. The
// first WarmUp bars of each symbol are warm-up; once one bar is live, all
// later bars are.
type Replay struct {
	Interval exchange.Interval
	// Symbols are the symbols replayed, sorted; Data holds each one's
	// bars at Interval, in time order.
	Symbols []string
	Data    map[string][]exchange.Kline
	// WarmUp is how many bars of each symbol are warm-up
	// (Runtime.WarmUpBars).
	WarmUp int

	started bool
	live    bool
	next    []int
	data    [][]exchange.Kline // Data by symbol index: no map look-up per bar
	feeds   []strategy.Feed
	step    Step
}

// Total is the number of bars replayed.
func (r *Replay) Total() int {
	n := 0
	for _, sym := range r.Symbols {
		n += len(r.Data[sym])
	}
	return n
}

// Next implements Feed.
func (r *Replay) Next(ctx context.Context) (*Step, error) {
	if !r.started {
		if len(r.Symbols) == 0 || !r.Interval.Valid() {
			return nil, errors.New("session: a replay needs symbols and a valid interval")
		}
		r.started = true
		n := len(r.Symbols)
		r.next = make([]int, n)
		r.feeds = make([]strategy.Feed, n)
		r.data = make([][]exchange.Kline, n)
		for i, sym := range r.Symbols {
			r.feeds[i] = strategy.Feed{Symbol: sym, Interval: r.Interval}
			r.data[i] = r.Data[sym]
		}
		r.step.Bars = make([]Bar, 0, n)
		r.step.Tick = true
	}
	// A receive that does not wait is cheaper than ctx.Err, which takes
	// the context's lock, at every instant.
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	s := &r.step
	s.Bars = s.Bars[:0]
	var t time.Time
	for i, ks := range r.data {
		if r.next[i] >= len(ks) {
			continue
		}
		switch ot := ks[r.next[i]].OpenTime; {
		case len(s.Bars) == 0 || ot.Before(t):
			t = ot
			s.Bars = append(s.Bars[:0], Bar{Index: i})
		case ot.Equal(t):
			s.Bars = append(s.Bars, Bar{Index: i})
		}
	}
	if len(s.Bars) == 0 {
		return nil, io.EOF
	}
	for j := range s.Bars {
		b := &s.Bars[j]
		i := b.Index
		b.Feed, b.K, b.Sim = r.feeds[i], &r.data[i][r.next[i]], true
		if !r.live && r.next[i] >= r.WarmUp {
			r.live = true
		}
		b.Warm = !r.live
		r.next[i]++
	}
	s.Open, s.At = t, r.Interval.Next(t)
	return s, nil
}

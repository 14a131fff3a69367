package backtest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/strategy"
)

// Replay drives a strategy runtime over historical bars against a simulated
// exchange, in the event order of docs/fill-model.md. The backtester and the
// bot's paper-replay mode both use it, so the two make the same trades.
//
// At each instant (the earliest open time among the symbols' next bars) it
// feeds the instant's bars to the exchange in symbol order (pending orders
// fill at the open, resting orders along the bar), sets the clock to the
// bars' close, syncs order updates and fills, then delivers the bars: the
// first WarmUp bars of each symbol as warm-up, the rest live, calling Begin
// once before the first live bar. After the bars come the schedules (Tick)
// and the Instant hook. A last Sync after the data picks up fills the
// exchange settled on the last bar.
type Replay struct {
	Exchange *sim.Exchange
	Runtime  *strategy.Runtime
	Interval exchange.Interval
	// Symbols are the symbols replayed, sorted; Data holds each one's
	// bars at Interval, in time order.
	Symbols []string
	Data    map[string][]exchange.Kline
	// SetClock moves the runtime's clock (to each instant's close).
	SetClock func(time.Time)
	// Begin starts the strategies (Runtime.Begin, plus whatever the
	// caller does then); nil calls Runtime.Begin.
	Begin func(ctx context.Context)
	// Bar, when set, is called with each bar before the runtime sees it:
	// i indexes Symbols; live is false for warm-up bars.
	Bar func(i int, k exchange.Kline, live bool)
	// Instant, when set, is called after each instant past warm-up with
	// the indices (into Symbols) of the symbols that had a bar; an error
	// ends the replay.
	Instant func(ctx context.Context, at []int) error
	// Step is called after each instant, warm-up included, with the bars
	// done so far.
	Step func(done int)
}

// Run replays every bar, or until ctx ends.
func (r *Replay) Run(ctx context.Context) error {
	if r.Exchange == nil || r.Runtime == nil || r.SetClock == nil {
		return errors.New("backtest: a replay needs an exchange, a runtime and a clock")
	}
	n := len(r.Symbols)
	next := make([]int, n)
	feeds := make([]strategy.Feed, n)
	data := make([][]exchange.Kline, n) // Data by symbol index: no map look-up per bar
	for i, sym := range r.Symbols {
		feeds[i] = strategy.Feed{Symbol: sym, Interval: r.Interval}
		data[i] = r.Data[sym]
	}
	warm := r.Runtime.WarmUp()
	warmed := false // past every symbol's warm-up; Begin has run
	at := make([]int, 0, n)
	done := 0
	// A receive that does not wait is cheaper than ctx.Err, which takes
	// the context's lock, at every instant.
	cancelled := ctx.Done()
	for {
		select {
		case <-cancelled:
			return ctx.Err()
		default:
		}
		at = at[:0]
		var t time.Time
		for i, ks := range data {
			if next[i] >= len(ks) {
				continue
			}
			switch ot := ks[next[i]].OpenTime; {
			case len(at) == 0 || ot.Before(t):
				t = ot
				at = append(at[:0], i)
			case ot.Equal(t):
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			break
		}
		for _, i := range at {
			if err := r.Exchange.FeedKline(r.Symbols[i], r.Interval, data[i][next[i]]); err != nil {
				return fmt.Errorf("backtest: %w", err)
			}
		}
		closeAt := r.Interval.Next(t)
		r.SetClock(closeAt)
		if err := r.Runtime.Sync(ctx); err != nil {
			return fmt.Errorf("backtest: %w", err)
		}
		trading := warmed
		for _, i := range at {
			ks := data[i]
			live := warmed || next[i] >= warm
			if r.Bar != nil {
				r.Bar(i, ks[next[i]], live)
			}
			if !live {
				r.Runtime.DeliverWarmUp(ctx, feeds[i], ks[next[i]:next[i]+1])
			} else {
				if !trading {
					// The first instant past every symbol's warm-up (the
					// first instant at all without warm-up: the exchange
					// already has its bars, the strategies not yet).
					warmed, trading = true, true
					if r.Begin != nil {
						r.Begin(ctx)
					} else {
						r.Runtime.Begin(ctx)
					}
				}
				r.Runtime.OnBar(ctx, feeds[i], ks[next[i]])
			}
			next[i]++
		}
		if trading {
			r.Runtime.Tick(ctx, closeAt)
			if r.Instant != nil {
				if err := r.Instant(ctx, at); err != nil {
					return err
				}
			}
		}
		done += len(at)
		if r.Step != nil {
			r.Step(done)
		}
	}
	if err := r.Runtime.Sync(ctx); err != nil {
		return fmt.Errorf("backtest: %w", err)
	}
	return nil
}

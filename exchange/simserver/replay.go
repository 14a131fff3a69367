package simserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
)

// ReplayOptions configure Replay.
type ReplayOptions struct {
	// Bars are the klines to replay, per symbol, each in time order.
	Bars map[string][]exchange.Kline
	// Interval is the bars' interval.
	Interval exchange.Interval
	// Speed is how many seconds of market time pass per second of the
	// clock (60: an hourly bar a minute). 0 feeds every bar at once.
	Speed float64
	// Clock paces the replay (the wall clock for a server; a fake one in
	// tests). Required.
	Clock exchange.Clock
	// Tick is how often the simulated clock is moved between bars
	// (default 100 ms of Clock time), so the server's clock runs smoothly
	// and clients can keep their timestamps in step with it.
	Tick time.Duration
}

// replayBar is one bar of one symbol in the merged replay.
type replayBar struct {
	symbol string
	k      exchange.Kline
}

// mergeBars orders the bars of several symbols by open time, then symbol.
func mergeBars(bySymbol map[string][]exchange.Kline) []replayBar {
	var bars []replayBar
	for sym, ks := range bySymbol {
		for _, k := range ks {
			bars = append(bars, replayBar{sym, k})
		}
	}
	sort.SliceStable(bars, func(i, j int) bool {
		if !bars[i].k.OpenTime.Equal(bars[j].k.OpenTime) {
			return bars[i].k.OpenTime.Before(bars[j].k.OpenTime)
		}
		return bars[i].symbol < bars[j].symbol
	})
	return bars
}

func feedBar(x *sim.Exchange, iv exchange.Interval, b replayBar) error {
	if err := x.FeedKline(b.symbol, iv, b.k); err != nil {
		return fmt.Errorf("simserver: replay %s %s bar at %s: %w", b.symbol, iv, b.k.OpenTime.UTC().Format(time.RFC3339), err)
	}
	return nil
}

// FeedAll feeds every bar to x at once, merged by open time (then
// symbol): what Replay does first at speed 0, for a caller that wants the
// market complete before it serves.
func FeedAll(x *sim.Exchange, bars map[string][]exchange.Kline, iv exchange.Interval) error {
	for _, b := range mergeBars(bars) {
		if err := feedBar(x, iv, b); err != nil {
			return err
		}
	}
	return nil
}

// Replay feeds bars to x at o.Speed: the simulated clock starts at the
// first bar's open and runs Speed times faster than o.Clock; each bar is fed
// when the simulated clock reaches its close. Bars of several symbols are
// merged by open time (then symbol). After the last bar the simulated
// clock keeps running at the same pace (in real time when Speed is 0), so
// signed requests stay inside recvWindow, until ctx ends; Replay then
// returns ctx.Err().
func Replay(ctx context.Context, x *sim.Exchange, o ReplayOptions) error {
	if o.Clock == nil {
		return errors.New("simserver: replay needs a clock")
	}
	if !o.Interval.Valid() {
		return fmt.Errorf("simserver: replay interval %q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", o.Interval)
	}
	if o.Speed < 0 {
		return fmt.Errorf("simserver: replay speed %g is negative", o.Speed)
	}
	if o.Tick <= 0 {
		o.Tick = 100 * time.Millisecond
	}
	bars := mergeBars(o.Bars)
	feed := func(b replayBar) error { return feedBar(x, o.Interval, b) }
	speed := o.Speed
	if speed == 0 {
		for _, b := range bars {
			if err := feed(b); err != nil {
				return err
			}
		}
		bars, speed = nil, 1
	}
	simStart := x.Now()
	if len(bars) > 0 {
		simStart = bars[0].k.OpenTime
		x.SetTime(simStart)
	}
	realStart := o.Clock.Now()
	for i := 0; ; {
		if err := ctx.Err(); err != nil {
			return err
		}
		simNow := simStart.Add(time.Duration(float64(o.Clock.Now().Sub(realStart)) * speed))
		for ; i < len(bars) && !o.Interval.Next(bars[i].k.OpenTime).After(simNow); i++ {
			if err := feed(bars[i]); err != nil {
				return err
			}
		}
		x.SetTime(simNow)
		wait := o.Tick
		if i < len(bars) {
			due := time.Duration(float64(o.Interval.Next(bars[i].k.OpenTime).Sub(simNow)) / speed)
			wait = max(min(wait, due), time.Millisecond)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-o.Clock.After(wait):
		}
	}
}

// SplitWarmup splits bars at the open time n intervals after the earliest
// bar: warm holds the bars before it (to feed at once, so strategies have
// history and the market has prices from the start), rest the bars from
// it (to replay at a speed).
func SplitWarmup(bars map[string][]exchange.Kline, iv exchange.Interval, n int) (warm, rest map[string][]exchange.Kline) {
	warm, rest = map[string][]exchange.Kline{}, map[string][]exchange.Kline{}
	var first time.Time
	for _, ks := range bars {
		if len(ks) > 0 && (first.IsZero() || ks[0].OpenTime.Before(first)) {
			first = ks[0].OpenTime
		}
	}
	cut := first
	for range n {
		cut = iv.Next(cut)
	}
	for sym, ks := range bars {
		i := sort.Search(len(ks), func(i int) bool { return !ks[i].OpenTime.Before(cut) })
		if i > 0 {
			warm[sym] = ks[:i]
		}
		if i < len(ks) {
			rest[sym] = ks[i:]
		}
	}
	return warm, rest
}

package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/strategy"
)

// Bar is a closed bar in a Step.
type Bar struct {
	Feed strategy.Feed
	// K is the bar, compact: the replay fills it straight from its
	// series, a poll converts the klines it fetched (exchange.FixedKlineOf).
	K *exchange.FixedKline
	// Warm marks warm-up history: the strategies see it with WarmingUp
	// and may not trade on it.
	Warm bool
	// Sim says the simulated exchange is fed this bar (the finest
	// interval fed for its symbol); other bars only reach the strategies.
	Sim bool
	// Index is the bar's series in the feed's own numbering (the replay:
	// the index of its symbol), for the Loop's Bar hook.
	Index int
	// Src is where a replay read the bar from (its series and position),
	// so the runtime's history reads bars from the series rather than
	// copying each; zero for bars from elsewhere.
	Src strategy.BarSource
}

// Step is what a Feed delivers at one instant: the closed bars opening at
// Open (sorted by symbol and interval), or none at a wake-up without bars.
type Step struct {
	// Open is the bars' open time; zero without bars.
	Open time.Time
	// At is the time of the step: the bars' close, or the wake-up time.
	// A simulated session's clock is set to it.
	At   time.Time
	Bars []Bar
	// Sync asks for an order sync at this step even where the loop would
	// not sync (a live venue syncs before a poll's first bars and at the
	// order cadence; a simulated one before every step with bars).
	Sync bool
	// Tick runs the schedules due at At, after the bars, once trading.
	Tick bool
	// Start starts trading at this step (after its sync) if no live bar
	// has yet: a polled session starts once its history is delivered.
	Start bool
	// Job, when set, runs one schedule of one instance now, after the
	// bars, and receives the outcome: a job run.
	Job *Job
	// Prices are last trade prices polled at At: once trading, the
	// runtime checks its exits against them after the sync.
	Prices []Price
}

// Price is a symbol's last trade price.
type Price struct {
	Symbol string
	Price  decimal.Decimal
}

// Job is a schedule run asked of a Loop, and its outcome.
type Job struct {
	Instance, Schedule string
	// Run and Err are Runtime.RunNow's answer.
	Run strategy.Run
	Err error
}

// A Feed delivers a session's steps in time order. Next returns io.EOF
// after the last one; a Feed that runs until its context ends returns the
// context's error.
type Feed interface {
	Next(ctx context.Context) (*Step, error)
}

// Loop drives a strategy runtime over a Feed and owns the event order
// every mode shares (docs/fill-model.md): at each step with bars it first
// delivers the higher-interval bars a data gap closed (Runtime.Advance),
// then feeds the bars to the simulated exchange (pending orders fill at
// their open, resting orders along them), moves the clock to the step's
// time, syncs order updates and fills, delivers the bars (warm-up bars as
// warm-up; the first live bar, or the first step without bars, starts
// trading with Begin, as does a step marked Start), runs the schedules
// or the step's job, and calls After. A last Sync
// after the feed's end picks up fills settled on the last bar.
type Loop struct {
	Runtime *strategy.Runtime
	// Sim is the simulated exchange the bars are fed to; nil on a live
	// venue, where the exchange moves by itself.
	Sim *sim.Exchange
	// SetClock, when set, moves the runtime's clock to each step's time
	// (simulated time); a live session runs on the wall clock.
	SetClock func(time.Time)
	// Begin starts trading (Runtime.Begin plus what the caller does
	// then); nil calls Runtime.Begin.
	Begin func(ctx context.Context)
	// Bar, when set, sees each bar before the runtime does.
	Bar func(b *Bar)
	// SyncFailed decides what a failed order sync does: nil ends the
	// run with the error; a live session logs it and carries on.
	SyncFailed func(error) error
	// After, when set, is called after each step; trading says Begin has
	// run. An error ends the run.
	After func(ctx context.Context, s *Step, trading bool) error
	// Span, when set, turns on the strategies' fast path over a replay
	// (strategy.Skipper): once trading, while the simulated exchange has
	// no order waiting for the symbols replayed, the loop offers the bars
	// ahead (of every symbol, at the instants all of them have a bar) to
	// Runtime.SkipAll, feeds the exchange the run taken
	// (sim.Exchange.FeedRun), moves the clock past it and calls Span with
	// the bars taken (runs[i] the bars of the replay's symbol i, as
	// Bar.Index; all at the same instants), in place of the steps, Bar
	// and After calls those bars would have had: nothing happens on them
	// but the strategies' own bookkeeping. A session that paces or
	// reports each bar (paper-replay) leaves it nil.
	Span func(runs []strategy.Bars)

	trading bool
	// floats are the replay's caches of closes converted to float64, one
	// a symbol, handed with the bars to Skip and to Span
	// (strategy.Bars.Cache), so the strategy's Skip and the equity Span
	// samples convert each close once.
	floats []*strategy.FloatCache
}

// spanFeed is a Feed whose bars ahead the fast path may take: a Replay.
type spanFeed interface {
	ahead() ([]strategy.Feed, []strategy.Bars, bool)
	skip(n int) ([]exchange.FixedKline, time.Time)
}

var _ spanFeed = (*Replay)(nil)

// Trading reports whether the loop has started trading (Begin ran).
func (l *Loop) Trading() bool { return l.trading }

// Run drives the feed until it ends (nil) or fails, or ctx ends.
func (l *Loop) Run(ctx context.Context, f Feed) error {
	if l.Runtime == nil || f == nil {
		return errors.New("session: a loop needs a runtime and a feed")
	}
	sf, _ := f.(spanFeed)
	if l.Span == nil || l.Sim == nil || !l.Runtime.Skips() {
		sf = nil
	}
	for {
		if sf != nil && l.trading {
			if err := l.skip(sf); err != nil {
				return err
			}
		}
		s, err := f.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := l.Step(ctx, s); err != nil {
			return err
		}
	}
	return l.sync(ctx)
}

// Step handles one step in the event order.
func (l *Loop) Step(ctx context.Context, s *Step) error {
	rt := l.Runtime
	if len(s.Bars) > 0 {
		rt.Advance(ctx, s.Open, !l.trading)
		if l.Sim != nil {
			for i := range s.Bars {
				if b := &s.Bars[i]; b.Sim {
					if err := l.Sim.FeedBar(b.Feed.Symbol, b.Feed.Interval, b.K); err != nil {
						return fmt.Errorf("session: %w", err)
					}
				}
			}
		}
	}
	if l.SetClock != nil {
		l.SetClock(s.At)
	}
	if s.Sync || l.Sim != nil && len(s.Bars) > 0 {
		if err := l.sync(ctx); err != nil {
			return err
		}
	}
	if s.Start && !l.trading {
		l.begin(ctx)
	}
	if l.trading {
		for _, p := range s.Prices {
			rt.CheckPrice(p.Symbol, p.Price, s.At)
		}
	}
	for i := range s.Bars {
		b := &s.Bars[i]
		if l.Bar != nil {
			l.Bar(b)
		}
		switch {
		case b.Warm:
			rt.DeliverWarmUpRef(ctx, b.Feed, b.K, b.Src)
			continue
		case !l.trading:
			l.begin(ctx)
		}
		rt.OnBarRef(ctx, b.Feed, b.K, b.Src)
	}
	if l.trading && s.Tick {
		rt.Tick(ctx, s.At)
	}
	if s.Job != nil {
		s.Job.Run, s.Job.Err = rt.RunNow(ctx, s.Job.Instance, s.Job.Schedule)
	}
	if l.After != nil {
		return l.After(ctx, s, l.trading)
	}
	return nil
}

// skip hands the bars ahead to the strategies' fast path while the
// exchange has no order waiting for them (see Span).
func (l *Loop) skip(sf spanFeed) error {
	feeds, bars, ok := sf.ahead()
	if !ok {
		return nil
	}
	for _, f := range feeds {
		if !l.Sim.Idle(f.Symbol) {
			return nil
		}
	}
	for len(l.floats) < len(bars) {
		l.floats = append(l.floats, strategy.NewFloatCache(1024))
	}
	for i := range bars {
		bars[i] = bars[i].WithCache(l.floats[i])
	}
	n := l.Runtime.SkipAll(feeds, bars)
	if n == 0 {
		return nil
	}
	last, at := sf.skip(n)
	for i, f := range feeds {
		if err := l.Sim.FeedRun(f.Symbol, f.Interval, n, &last[i]); err != nil {
			return fmt.Errorf("session: %w", err)
		}
		bars[i] = bars[i].Head(n)
	}
	if l.SetClock != nil {
		l.SetClock(at)
	}
	l.Span(bars)
	return nil
}

func (l *Loop) begin(ctx context.Context) {
	l.trading = true
	if l.Begin != nil {
		l.Begin(ctx)
		return
	}
	l.Runtime.Begin(ctx)
}

// sync is small enough to inline: a sync at every instant of a backtest.
func (l *Loop) sync(ctx context.Context) error {
	if err := l.Runtime.Sync(ctx); err != nil {
		return l.syncFailed(err)
	}
	return nil
}

func (l *Loop) syncFailed(err error) error {
	if l.SyncFailed != nil {
		return l.SyncFailed(err)
	}
	return fmt.Errorf("session: %w", err)
}

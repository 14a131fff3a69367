package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// KlineSource serves closed klines (the REST client's market data).
type KlineSource interface {
	KlinesRange(ctx context.Context, symbol string, iv exchange.Interval, from, to time.Time) ([]exchange.Kline, error)
}

// A bar not served yet when due is polled again after firstRetry, then
// after twice as long each time, up to maxRetry: a bar late by seconds is
// seen within seconds, and one missing for an hour (exchange maintenance)
// costs about a request a minute.
const (
	firstRetry = time.Second
	maxRetry   = time.Minute
)

// PriceSource serves a symbol's last trade price (the REST client's price
// ticker), for the exits a runtime emulates between bars.
type PriceSource interface {
	LastPrice(ctx context.Context, symbol string) (decimal.Decimal, error)
}

// PollCounts are what a Poll reports as it goes, for a status page.
type PollCounts struct {
	Polls   int // polls that brought bars
	Gaps    int // bars the exchange does not serve
	Retries int // polls that found nothing yet
}

// Poll is the Feed of live and paper sessions: the bars of every feed
// polled from the exchange shortly after they close. Its first steps are
// the warm-up history (WarmUp bars of each feed, at least the last closed
// one for its price); then a step without bars starts trading. After
// that, at each wake-up (a bar due, the order cadence, Wake's own
// schedule) it delivers the new bars one instant per step, then a step at
// the wake-up time that syncs orders when they are due and runs the
// schedules.
type Poll struct {
	Klines KlineSource
	// Clock is the wall clock; Offset the server's time minus it (the
	// client's synced offset), nil for none.
	Clock  exchange.Clock
	Offset func() time.Duration
	Feeds  []strategy.Feed
	// SimIntervals, on a simulated venue (paper), is the interval fed to
	// the simulator per symbol; nil on a live venue.
	SimIntervals map[string]exchange.Interval
	// SimFrom, when set, keeps warm-up bars closing at or before it from
	// the simulator: a restored paper account saw them in its earlier
	// session (the Loop's Bar hook may still take their prices).
	SimFrom time.Time
	// WarmUp is the history each feed needs, in its own bars.
	WarmUp int
	// KlineDelay is how long after a bar's close it is polled; Orders the
	// order-sync cadence.
	KlineDelay time.Duration
	Orders     time.Duration
	// Wake, when set, runs every WakeEvery (from the end of warm-up), at
	// the first wake-up past its time, before polling: the clock sync.
	Wake      func(ctx context.Context, now time.Time)
	WakeEvery time.Duration
	// Interrupt, when set, ends a wait early: the next step comes at once
	// (a step without bars unless some are due), so a driver acting
	// between steps (the control API) need not wait for the cadence.
	Interrupt <-chan struct{}
	// Prices, when set with PriceEvery, is polled every PriceEvery for
	// the last trade price of each of PriceSymbols (those with exits):
	// the wake-up step carries them for Runtime.CheckPrice.
	Prices       PriceSource
	PriceEvery   time.Duration
	PriceSymbols []string
	// Failed is told of a failed request that the poll retries.
	Failed func(what string, err error)
	Logger *slog.Logger

	Counts PollCounts

	started   bool
	arm       bool                        // the cadences start at the next poll
	last      map[strategy.Feed]time.Time // open time of the last bar delivered
	retry     map[strategy.Feed]time.Time // poll again at, after an empty poll
	retries   map[strategy.Feed]int       // empty polls in a row
	nextSync  time.Time
	nextWake  time.Time
	nextPrice time.Time
	queue     []Step // polled instants not yet delivered
	wake      *Step  // the wake-up step that follows them
	step      Step
}

// Next implements Feed.
func (p *Poll) Next(ctx context.Context) (*Step, error) {
	if !p.started {
		return p.warmUp(ctx)
	}
	for {
		if len(p.queue) > 0 {
			p.step = p.queue[0]
			p.queue = p.queue[1:]
			return &p.step, nil
		}
		if p.wake != nil {
			p.step, p.wake = *p.wake, nil
			return &p.step, nil
		}
		if err := p.poll(ctx); err != nil {
			return nil, err
		}
	}
}

func (p *Poll) serverNow() time.Time { return p.Clock.Now().Add(p.offset()) }

func (p *Poll) offset() time.Duration {
	if p.Offset == nil {
		return 0
	}
	return p.Offset()
}

func (p *Poll) log() *slog.Logger {
	if p.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.Logger
}

// warmUp loads each feed's history, queued as warm-up steps in time
// order, followed by the step that starts trading.
func (p *Poll) warmUp(ctx context.Context) (*Step, error) {
	if p.Klines == nil || p.Clock == nil || len(p.Feeds) == 0 {
		return nil, errors.New("session: a poll needs a kline source, a clock and feeds")
	}
	p.started = true
	p.last, p.retry, p.retries = map[strategy.Feed]time.Time{}, map[strategy.Feed]time.Time{}, map[strategy.Feed]int{}
	n := max(p.WarmUp, 1)
	var bars []Bar
	for _, f := range p.Feeds {
		boundary := f.Interval.Truncate(p.serverNow()) // open of the bar in progress
		from := boundary
		for i := 0; i < n; i++ {
			from = from.Add(-f.Interval.Duration())
		}
		if f.Interval == exchange.Interval1M {
			from = boundary.AddDate(0, -n, 0)
		}
		ks, err := p.fetch(ctx, f, from, boundary, false)
		if err != nil {
			return nil, fmt.Errorf("session: warm-up history of %s %s: %w", f.Symbol, f.Interval, err)
		}
		if len(ks) == 0 {
			return nil, fmt.Errorf("session: warm-up history of %s %s: the exchange served no closed bar", f.Symbol, f.Interval)
		}
		for i := range ks {
			sim := p.simFed(f) && (p.SimFrom.IsZero() || f.Interval.Next(ks[i].OpenTime).After(p.SimFrom))
			bars = append(bars, Bar{Feed: f, K: &ks[i], Warm: true, Sim: sim})
		}
		p.last[f] = ks[len(ks)-1].OpenTime
	}
	p.Counts.Polls++
	p.queue = appendInstants(p.queue, bars, false)
	now := p.Clock.Now()
	// The orders carried over from before a restart are brought up to
	// date before trading starts, so a strategy's Start sees the open
	// orders and balances as they are now.
	p.wake = &Step{At: now, Sync: true, Start: true}
	p.arm = true
	return p.Next(ctx)
}

// simFed says whether f's bars are fed to the simulator.
func (p *Poll) simFed(f strategy.Feed) bool {
	return p.SimIntervals != nil && p.SimIntervals[f.Symbol] == f.Interval
}

// appendInstants appends bars as steps, one per open time, in time order;
// sync marks the first for an order sync (a live venue syncs once before
// a poll's bars).
func appendInstants(steps []Step, bars []Bar, sync bool) []Step {
	// Feeds come sorted by symbol and interval; a stable sort by time keeps
	// that order within an instant.
	sort.SliceStable(bars, func(i, j int) bool { return bars[i].K.OpenTime.Before(bars[j].K.OpenTime) })
	for i := 0; i < len(bars); {
		j := i
		for j < len(bars) && bars[j].K.OpenTime.Equal(bars[i].K.OpenTime) {
			j++
		}
		open := bars[i].K.OpenTime
		steps = append(steps, Step{Open: open, At: bars[i].Feed.Interval.Next(open), Bars: bars[i:j:j], Sync: sync})
		sync = false
		i = j
	}
	return steps
}

// poll waits for the next wake-up, polls the due feeds and queues what it
// found and the wake-up step.
func (p *Poll) poll(ctx context.Context) error {
	now := p.Clock.Now()
	if p.arm {
		// The cadences start once trading has started (its start may take
		// a while: a grid lays its orders within the rate budget).
		p.arm = false
		p.nextSync, p.nextWake, p.nextPrice = now.Add(p.Orders), now.Add(p.WakeEvery), now.Add(p.PriceEvery)
	}
	wake := p.nextSync
	if p.Wake != nil && p.nextWake.Before(wake) {
		wake = p.nextWake
	}
	if p.pricing() && p.nextPrice.Before(wake) {
		wake = p.nextPrice
	}
	for _, f := range p.Feeds {
		if t := p.barDue(f); t.Before(wake) {
			wake = t
		}
	}
	if d := wake.Sub(now); d > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.Clock.After(d):
		case <-p.Interrupt:
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	now = p.Clock.Now()
	if p.Wake != nil && !now.Before(p.nextWake) {
		p.Wake(ctx, now)
		p.nextWake = now.Add(p.WakeEvery)
	}
	if err := p.pollBars(ctx, now); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p.failed("klines poll", err)
	}
	s := &Step{At: now, Tick: true}
	if !now.Before(p.nextSync) {
		s.Sync = true
		p.nextSync = now.Add(p.Orders)
	}
	if p.pricing() && !now.Before(p.nextPrice) {
		p.nextPrice = now.Add(p.PriceEvery)
		for _, sym := range p.PriceSymbols {
			px, err := p.Prices.LastPrice(ctx, sym)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				p.failed("price poll", fmt.Errorf("%s: %w", sym, err))
				continue
			}
			s.Prices = append(s.Prices, Price{Symbol: sym, Price: px})
		}
	}
	p.wake = s
	return nil
}

// pricing says whether the poll polls last trade prices.
func (p *Poll) pricing() bool {
	return p.Prices != nil && p.PriceEvery > 0 && len(p.PriceSymbols) > 0
}

func (p *Poll) failed(what string, err error) {
	if p.Failed != nil {
		p.Failed(what, err)
	}
}

// barDue is when f's next bar is to be polled: KlineDelay after it
// closes, or the retry time after an empty poll.
func (p *Poll) barDue(f strategy.Feed) time.Time {
	if t, ok := p.retry[f]; ok {
		return t
	}
	closeAt := f.Interval.Next(f.Interval.Next(p.last[f]))
	// Local time of the server's close.
	return closeAt.Add(-p.offset()).Add(p.KlineDelay)
}

// backoff schedules the next poll of f after an empty or failed one.
func (p *Poll) backoff(f strategy.Feed, now time.Time) {
	n := p.retries[f]
	p.retries[f] = n + 1
	d := maxRetry
	if n < 6 {
		d = min(firstRetry<<n, maxRetry)
	}
	p.retry[f] = now.Add(d)
}

// pollBars fetches the bars that closed since the last delivered one, for
// every due feed, and queues them. A failed feed is retried later; the
// bars of the others are delivered.
func (p *Poll) pollBars(ctx context.Context, now time.Time) error {
	var bars []Bar
	var errs []error
	polled, empty := false, false
	for _, f := range p.Feeds {
		if now.Before(p.barDue(f)) {
			continue
		}
		polled = true
		boundary := f.Interval.Truncate(p.serverNow())
		ks, err := p.fetch(ctx, f, f.Interval.Next(p.last[f]), boundary, true)
		if err != nil {
			p.backoff(f, now)
			errs = append(errs, fmt.Errorf("%s %s: %w", f.Symbol, f.Interval, err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if len(ks) == 0 {
			// Not served yet: the exchange publishes a bar shortly after
			// it closes, or not at all during maintenance.
			p.backoff(f, now)
			empty = true
			continue
		}
		delete(p.retry, f)
		delete(p.retries, f)
		for i := range ks {
			bars = append(bars, Bar{Feed: f, K: &ks[i], Sim: p.simFed(f)})
		}
		p.last[f] = ks[len(ks)-1].OpenTime
	}
	if polled && len(bars) == 0 && empty {
		p.Counts.Retries++
	}
	if len(bars) > 0 {
		p.Counts.Polls++
		p.queue = appendInstants(p.queue, bars, p.SimIntervals == nil)
	}
	return errors.Join(errs...)
}

// fetch returns the closed bars of f opening in [from, to), paginated,
// with a gap between them (and, when leading is set, before the first)
// counted and logged.
func (p *Poll) fetch(ctx context.Context, f strategy.Feed, from, to time.Time, leading bool) ([]exchange.FixedKline, error) {
	if !to.After(from) {
		return nil, nil
	}
	ks, err := p.Klines.KlinesRange(ctx, f.Symbol, f.Interval, from, to)
	if err != nil {
		return nil, err
	}
	for i := range ks {
		want := from
		if i > 0 {
			want = f.Interval.Next(ks[i-1].OpenTime)
		} else if !leading {
			continue
		}
		if ks[i].OpenTime.After(want) {
			missing := 0
			for t := want; t.Before(ks[i].OpenTime); t = f.Interval.Next(t) {
				missing++
			}
			p.Counts.Gaps += missing
			p.log().Warn("klines gap: the exchange serves no bars here", slog.String("symbol", f.Symbol),
				slog.String("interval", string(f.Interval)), slog.Time("from", want), slog.Int("bars", missing))
		}
	}
	return fixedBars(f, ks)
}

// fixedBars is a feed's klines as compact bars (exchange.FixedKlineOf):
// a price past 18 significant digits is an error naming the feed and the
// bar, and none of the klines is delivered.
func fixedBars(f strategy.Feed, ks []exchange.Kline) ([]exchange.FixedKline, error) {
	out := make([]exchange.FixedKline, len(ks))
	for i := range ks {
		var err error
		if out[i], err = exchange.FixedKlineOf(&ks[i]); err != nil {
			return nil, fmt.Errorf("session: %s %s: %w", f.Symbol, f.Interval, err)
		}
	}
	return out, nil
}

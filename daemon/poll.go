package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// A bar not served yet when due is polled again after firstRetry, then
// after twice as long each time, up to maxRetry: a bar late by seconds is
// seen within seconds, and one missing for an hour (exchange maintenance)
// costs about a request a minute.
const (
	firstRetry = time.Second
	maxRetry   = time.Minute
)

// startPolling starts a live or paper session: clock sync, the simulator
// (paper), the runtime, reconciliation (live), warm-up history, a first
// order sync and the strategies' Start.
func (b *Bot) startPolling(ctx context.Context) error {
	if err := b.syncClock(ctx); err != nil {
		return fmt.Errorf("daemon: clock sync: %w", err)
	}
	if b.cfg.Mode == config.ModePaper {
		if err := b.startPaper(ctx); err != nil {
			return err
		}
		if err := b.closeLeftovers(ctx); err != nil {
			return err
		}
		if err := b.reserveSequence(ctx); err != nil {
			return err
		}
	}
	if err := b.rt.Start(ctx); err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	b.rtStarted = true
	if b.cfg.Mode == config.ModeLive {
		if err := b.reconcile(ctx); err != nil {
			return err
		}
	}
	if err := b.warmUp(ctx); err != nil {
		return err
	}
	// The orders carried over from before the restart are brought up to
	// date first, so a strategy's Start sees the open orders and balances
	// as they are now (a grid lays only the levels that are free).
	if err := b.rt.Sync(ctx); err != nil {
		b.fail("order sync", err)
	}
	b.begin(ctx)
	// The runtime loaded the balances as it started.
	if _, err := b.opts.Store.RecordBalances(ctx, b.account(), b.clock.Now(), b.rt.Balances()); err != nil {
		b.fail("recording balances", err)
	}
	now := b.clock.Now()
	b.nextSync = now.Add(b.cfg.Poll.Orders)
	b.nextClock = now.Add(b.cfg.Daemon.ClockSync)
	b.refresh()
	return nil
}

// startPaper builds the simulator of paper mode with the exchange's rules
// for the configured symbols, starting at the server's time.
func (b *Bot) startPaper(ctx context.Context) error {
	info, err := b.client.Market.ExchangeInfo(ctx, b.symbols...)
	if err != nil {
		return fmt.Errorf("daemon: symbol rules: %w", err)
	}
	rules := make([]exchange.SymbolInfo, 0, len(b.symbols))
	for _, sym := range b.symbols {
		found := false
		for _, s := range info.Symbols {
			if s.Symbol == sym {
				rules = append(rules, s)
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("daemon: symbol %s is not listed by %s", sym, b.cfg.Exchange.BaseURL)
		}
	}
	if b.x, err = newSim(b.cfg, b.serverNow(), rules); err != nil {
		return err
	}
	// The simulator fills on the finest interval fed per symbol.
	b.simIv = map[string]exchange.Interval{}
	for _, f := range b.feeds {
		if iv, ok := b.simIv[f.Symbol]; !ok || f.Interval.Duration() < iv.Duration() {
			b.simIv[f.Symbol] = f.Interval
		}
	}
	b.guard.setPort(b.x.Master())
	return nil
}

// serverNow is the exchange's time by the local clock and the synced
// offset.
func (b *Bot) serverNow() time.Time { return b.clock.Now().Add(b.client.ClockOffset()) }

// syncClock measures the clock offset and blocks trading while it exceeds
// exchange.max_clock_offset.
func (b *Bot) syncClock(ctx context.Context) error {
	off, err := b.client.SyncTime(ctx)
	if err != nil {
		b.guard.count(err)
		return err
	}
	b.stat.ClockOffset, b.stat.ClockSynced = off, b.clock.Now()
	limit := b.cfg.Exchange.MaxClockOffset
	abs := off
	if abs < 0 {
		abs = -abs
	}
	rule, _ := b.guard.blockedBy()
	switch {
	case limit > 0 && abs > limit:
		if rule != RuleClockOffset {
			b.log.Error("trading blocked: the clock differs from the exchange's beyond exchange.max_clock_offset; fix the system clock (NTP)",
				slog.Duration("offset", off), slog.Duration("max_clock_offset", limit))
		}
		b.guard.block(RuleClockOffset, fmt.Sprintf("clock offset %s exceeds exchange.max_clock_offset %s", off, limit))
	case rule == RuleClockOffset:
		b.guard.unblock(RuleClockOffset)
		b.log.Info("clock offset back within exchange.max_clock_offset; trading resumes", slog.Duration("offset", off))
	}
	return nil
}

// warmUp loads the history the strategies need (at least the last closed
// bar of each feed, for its price) and delivers it as warm-up.
func (b *Bot) warmUp(ctx context.Context) error {
	n := max(b.rt.WarmUp(), 1)
	boundary := time.Time{}
	for _, f := range b.feeds {
		boundary = f.Interval.Truncate(b.serverNow()) // open of the bar in progress
		from := boundary
		for i := 0; i < n; i++ {
			from = from.Add(-f.Interval.Duration())
		}
		if f.Interval == exchange.Interval1M {
			from = boundary.AddDate(0, -n, 0)
		}
		ks, err := b.fetch(ctx, f, from, boundary, false)
		if err != nil {
			return fmt.Errorf("daemon: warm-up history of %s %s: %w", f.Symbol, f.Interval, err)
		}
		if len(ks) == 0 {
			return fmt.Errorf("daemon: warm-up history of %s %s: the exchange served no closed bar", f.Symbol, f.Interval)
		}
		if b.x != nil && b.simIv[f.Symbol] == f.Interval {
			for _, k := range ks {
				if err := b.x.FeedKline(f.Symbol, f.Interval, k); err != nil {
					return fmt.Errorf("daemon: %w", err)
				}
			}
		}
		b.rt.DeliverWarmUp(ctx, f, ks)
		b.last[f] = ks[len(ks)-1].OpenTime
	}
	b.stat.Counters.Polls++
	return nil
}

// fetch returns the closed bars of f opening in [from, to), paginated,
// with a gap between them (and, when leading is set, before the first)
// counted and logged.
func (b *Bot) fetch(ctx context.Context, f strategy.Feed, from, to time.Time, leading bool) ([]exchange.Kline, error) {
	if !to.After(from) {
		return nil, nil
	}
	ks, err := b.client.Market.KlinesRange(ctx, f.Symbol, f.Interval, from, to)
	if err != nil {
		b.guard.count(err)
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
			b.stat.Counters.Gaps += missing
			b.log.Warn("klines gap: the exchange serves no bars here", slog.String("symbol", f.Symbol),
				slog.String("interval", string(f.Interval)), slog.Time("from", want), slog.Int("bars", missing))
		}
	}
	return ks, nil
}

// loop runs a live or paper session until ctx ends: new bars just after
// they close, order sync at poll.orders, clock sync at daemon.clock_sync,
// schedules at each wake-up.
func (b *Bot) loop(ctx context.Context) error {
	for {
		now := b.clock.Now()
		wake := b.nextSync
		if b.nextClock.Before(wake) {
			wake = b.nextClock
		}
		for _, f := range b.feeds {
			if t := b.barDue(f); t.Before(wake) {
				wake = t
			}
		}
		if d := wake.Sub(now); d > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-b.clock.After(d):
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		now = b.clock.Now()
		if !now.Before(b.nextClock) {
			if err := b.syncClock(ctx); err != nil {
				b.fail("clock sync", err)
			}
			b.nextClock = now.Add(b.cfg.Daemon.ClockSync)
		}
		if err := b.pollBars(ctx, now); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			b.fail("klines poll", err)
		}
		if !now.Before(b.nextSync) {
			if err := b.rt.Sync(ctx); err != nil {
				b.fail("order sync", err)
			}
			b.followExternal(ctx)
			b.nextSync = now.Add(b.cfg.Poll.Orders)
		}
		b.rt.Tick(ctx, now)
		b.refresh()
	}
}

// barDue is when f's next bar is to be polled: poll.kline_delay after it
// closes, or the retry time after an empty poll.
func (b *Bot) barDue(f strategy.Feed) time.Time {
	if t, ok := b.retry[f]; ok {
		return t
	}
	closeAt := f.Interval.Next(f.Interval.Next(b.last[f]))
	// Local time of the server's close.
	return closeAt.Add(-b.offset()).Add(b.cfg.Poll.KlineDelay)
}

func (b *Bot) offset() time.Duration {
	if b.client == nil {
		return 0
	}
	return b.client.ClockOffset()
}

// backoff schedules the next poll of f after an empty or failed one.
func (b *Bot) backoff(f strategy.Feed, now time.Time) {
	n := b.retries[f]
	b.retries[f] = n + 1
	d := maxRetry
	if n < 6 {
		d = min(firstRetry<<n, maxRetry)
	}
	b.retry[f] = now.Add(d)
}

// pollBars fetches the bars that closed since the last delivered one, for
// every due feed, and delivers them in time order: to the simulator first
// (paper), then order updates, then the bars, as the runtime expects.
func (b *Bot) pollBars(ctx context.Context, now time.Time) error {
	type bar struct {
		f strategy.Feed
		k exchange.Kline
	}
	var bars []bar
	polled, empty := false, false
	for _, f := range b.feeds {
		if now.Before(b.barDue(f)) {
			continue
		}
		polled = true
		boundary := f.Interval.Truncate(b.serverNow())
		ks, err := b.fetch(ctx, f, f.Interval.Next(b.last[f]), boundary, true)
		if err != nil {
			b.backoff(f, now)
			return err
		}
		if len(ks) == 0 {
			// Not served yet: the exchange publishes a bar shortly after
			// it closes, or not at all during maintenance.
			b.backoff(f, now)
			empty = true
			continue
		}
		delete(b.retry, f)
		delete(b.retries, f)
		for _, k := range ks {
			bars = append(bars, bar{f, k})
		}
		b.last[f] = ks[len(ks)-1].OpenTime
	}
	if !polled {
		return nil
	}
	if len(bars) == 0 {
		if empty {
			b.stat.Counters.Retries++
		}
		return nil
	}
	b.stat.Counters.Polls++
	// Feeds come sorted by symbol and interval; a stable sort by time keeps
	// that order within an instant.
	sort.SliceStable(bars, func(i, j int) bool { return bars[i].k.OpenTime.Before(bars[j].k.OpenTime) })
	if b.x == nil {
		// Live: one order sync before the bars; the exchange moves on its
		// own, not with the bars.
		if err := b.rt.Sync(ctx); err != nil {
			b.fail("order sync", err)
		}
	}
	for i := 0; i < len(bars); {
		j := i
		for j < len(bars) && bars[j].k.OpenTime.Equal(bars[i].k.OpenTime) {
			j++
		}
		if b.x != nil {
			for _, br := range bars[i:j] {
				if b.simIv[br.f.Symbol] != br.f.Interval {
					continue
				}
				if err := b.x.FeedKline(br.f.Symbol, br.f.Interval, br.k); err != nil {
					return fmt.Errorf("daemon: %w", err)
				}
			}
			if err := b.rt.Sync(ctx); err != nil {
				b.fail("order sync", err)
			}
		}
		for _, br := range bars[i:j] {
			b.rt.OnBar(ctx, br.f, br.k)
		}
		i = j
	}
	return nil
}

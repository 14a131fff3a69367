package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/session"
)

// startPolling starts a live or paper session: clock sync, the simulator
// (paper), the runtime, reconciliation (live), warm-up history, a first
// order sync and the strategies' Start.
func (b *Bot) startPolling(ctx context.Context) error {
	if err := b.checkStore(ctx); err != nil {
		return err
	}
	b.loadBudget(ctx)
	b.budgetLoaded = true
	// The first request meets a ban (HTTP 418) left by an earlier process
	// or another program on the address: waited out (the client's budget
	// holds every request until it ends, the guard logs it), not an exit
	// that a supervisor's restart would only repeat.
	for {
		err := b.syncClock(ctx)
		var ban *exchange.BanError
		if errors.As(err, &ban) {
			b.refresh()
			continue
		}
		if err != nil {
			return fmt.Errorf("daemon: clock sync: %w", err)
		}
		break
	}
	restored := false
	if b.cfg.Simulated() {
		var err error
		if err = b.startPaper(ctx); err != nil {
			return err
		}
		if restored, err = b.restorePaper(ctx); err != nil {
			return err
		}
		if !restored {
			if err := b.closeLeftovers(ctx); err != nil {
				return err
			}
		}
		if err := b.reserveSequence(ctx); err != nil {
			return err
		}
	}
	if err := b.rt.Start(ctx); err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	b.rtStarted = true
	// A restored paper account is reconciled like a live one: positions
	// from the wallet's fills, the store's open orders adopted.
	if !b.cfg.Simulated() || restored {
		if err := b.reconcile(ctx); err != nil {
			return err
		}
	}
	b.poll = &session.Poll{Klines: countingKlines{b.client.Market, b.guard}, Clock: b.clock, Offset: b.client.ClockOffset,
		Feeds: b.feeds, SimIntervals: b.simIntervals(), WarmUp: b.rt.WarmUp(), KlineDelay: b.cfg.Poll.KlineDelay,
		Prices: lastPrices{b.client.Market, b.guard}, PriceEvery: b.cfg.Poll.Price, PriceSymbols: b.rt.ExitSymbols(),
		Orders: b.cfg.Poll.Orders, WakeEvery: b.cfg.Daemon.ClockSync, Logger: b.log, Failed: b.fail, Interrupt: b.wake, SimFrom: b.paperAt,
		Wake: func(ctx context.Context, _ time.Time) {
			if err := b.syncClock(ctx); err != nil {
				b.fail("clock sync", err)
			}
		}}
	return nil
}

// loop runs a live or paper session until ctx ends: the warm-up history,
// then new bars just after they close, order sync at poll.orders, clock
// sync at daemon.clock_sync, schedules at each wake-up, all in the
// session loop's event order.
func (b *Bot) loop(ctx context.Context) error {
	l := session.Loop{Runtime: b.rt, Sim: b.x, Bar: b.warmPrice,
		Begin: func(ctx context.Context) {
			b.begin(ctx)
			// The runtime loaded the balances as it started.
			if _, err := b.opts.Store.RecordBalances(ctx, b.account(), b.clock.Now(), b.rt.Balances()); err != nil {
				b.fail("recording balances", err)
			}
			b.savePaper(ctx)
		},
		SyncFailed: func(err error) error {
			b.fail("order sync", err)
			return nil
		},
		After: func(ctx context.Context, s *session.Step, _ bool) error {
			if err := b.checkStore(ctx); err != nil {
				return err
			}
			b.applyControl(ctx)
			b.savePaperIfChanged(ctx)
			b.stat.Counters.Polls, b.stat.Counters.Gaps, b.stat.Counters.Retries = b.poll.Counts.Polls, b.poll.Counts.Gaps,
				b.poll.Counts.Retries
			if len(s.Bars) == 0 {
				if s.Sync {
					b.followExternal(ctx)
				}
				b.refresh()
			}
			return nil
		},
	}
	err := l.Run(ctx, b.poll)
	if ctx.Err() != nil {
		return nil
	}
	if err != nil && !l.Trading() {
		return fmt.Errorf("daemon: %w", err)
	}
	return err
}

// countingKlines counts the failed kline requests of the market-data
// feed with the port's.
type countingKlines struct {
	m *exchange.MarketService
	g *guard
}

func (k countingKlines) KlinesRange(ctx context.Context, symbol string, iv exchange.Interval, from, to time.Time) ([]exchange.Kline, error) {
	ks, err := k.m.KlinesRange(ctx, symbol, iv, from, to)
	return ks, k.g.count(err)
}

// lastPrices serves last trade prices from the price ticker, counting
// failed requests like the kline polls.
type lastPrices struct {
	m *exchange.MarketService
	g *guard
}

func (p lastPrices) LastPrice(ctx context.Context, symbol string) (decimal.Decimal, error) {
	t, err := p.m.TickerPrice(ctx, symbol)
	if err = p.g.count(err); err != nil {
		return decimal.Decimal{}, err
	}
	if !t.Price.Valid {
		return decimal.Decimal{}, fmt.Errorf("price ticker of %s has no price", symbol)
	}
	return t.Price.Decimal, nil
}

// simIntervals is, in paper mode, the interval fed to the simulator per
// symbol: the finest its feeds have.
func (b *Bot) simIntervals() map[string]exchange.Interval {
	if b.x == nil {
		return nil
	}
	out := map[string]exchange.Interval{}
	for _, f := range b.feeds {
		if iv, ok := out[f.Symbol]; !ok || f.Interval.Duration() < iv.Duration() {
			out[f.Symbol] = f.Interval
		}
	}
	return out
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
	if b.x, err = b.newSim(b.serverNow(), rules); err != nil {
		return err
	}
	b.guard.setPort(b.x.Master(), b.x.Master())
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

// RuleStore is the rule of orders refused once the store's file was lost
// (deleted, replaced or made read-only): what the bot would record could
// not be read back by the next start.
const RuleStore = "store"

// checkStore stops trading when the store's file is no longer the one the
// bot opened, or is read-only: every step of a polling session (every
// poll.orders at least) asks, so the loss is seen within one poll, and the
// bot stops with the reason.
func (b *Bot) checkStore(ctx context.Context) error {
	err := b.opts.Store.Check(ctx)
	if err == nil || ctx.Err() != nil {
		return nil
	}
	b.guard.block(RuleStore, err.Error())
	b.stat.LastError = "store: " + err.Error()
	b.log.Error("trading stopped: the store was lost; stopping the bot", slog.Any("err", err))
	b.refresh()
	return fmt.Errorf("daemon: %w", err)
}

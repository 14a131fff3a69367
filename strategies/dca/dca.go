// Package dca buys a fixed quote amount of a symbol on a cron schedule,
// optionally only after a dip.
//
// At each scheduled time it spends `amount` of the quote asset with a
// market order. With `dip` set, it buys only when the last close is at least
// that fraction below the highest close of the last `lookback` bars.
//
// Parameters (defaults in brackets):
//
//	amount:    quote amount per buy, > 0 [required]
//	schedule:  cron spec (seconds optional, UTC) [the instance's schedule, else "0 0 * * *"]
//	dip:       fraction below the recent high required to buy, in [0, 1) [0: always buy]
//	lookback:  bars for the recent high [24]
//
// Example:
//
//	strategies:
//	  - name: dca
//	    id: btc-dca
//	    symbols: [BTCUSDT]
//	    interval: 1h
//	    schedule: "0 9 * * MON"
//	    params: {amount: 50, dip: 0.03}
package dca

import (
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// Name is the registered name.
const Name = "dca"

// Params are the strategy's parameters.
type Params struct {
	Amount   decimal.Decimal `koanf:"amount"`
	Schedule string          `koanf:"schedule"`
	Dip      decimal.Decimal `koanf:"dip"`
	Lookback int             `koanf:"lookback"`
}

// Validate checks the parameters, naming the field at fault.
func (p Params) Validate() error {
	switch {
	case !p.Amount.IsPositive():
		return errors.New("amount: must be positive")
	case p.Dip.IsNegative() || p.Dip.GreaterThanOrEqual(decimal.NewFromInt(1)):
		return errors.New("dip: must be in [0, 1)")
	case p.Lookback < 1:
		return errors.New("lookback: must be at least 1")
	}
	if err := strategy.ParseSchedule(p.Schedule); err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	return nil
}

// New builds an instance from its configuration.
func New(cfg strategy.Config) (strategy.Strategy, error) {
	p := Params{Schedule: cfg.Schedule, Lookback: 24}
	if p.Schedule == "" {
		p.Schedule = "0 0 * * *"
	}
	if err := strategy.DecodeParams(cfg.Params, &p); err != nil {
		return nil, err
	}
	if len(cfg.Symbols) != 1 {
		return nil, errors.New("symbols: dca trades exactly one symbol")
	}
	iv, err := cfg.ParsedInterval()
	if err != nil {
		return nil, err
	}
	return &Strategy{p: p, symbol: cfg.Symbols[0], iv: iv}, nil
}

// Strategy is a dca instance.
type Strategy struct {
	p      Params
	symbol string
	iv     exchange.Interval
}

// Reload implements strategy.Reloader (the control API's reload): amount
// and dip apply from the next run. A schedule or lookback of its own
// reshapes the schedules and the warm-up, so it waits for a restart and is
// refused here. Keys the new params leave out keep their values.
func (s *Strategy) Reload(params map[string]any) error {
	p := s.p
	if err := strategy.DecodeParams(params, &p); err != nil {
		return err
	}
	switch {
	case p.Schedule != s.p.Schedule:
		return errors.New("schedule: changes at a restart, not by a reload")
	case p.Lookback != s.p.Lookback:
		return errors.New("lookback: changes at a restart, not by a reload")
	}
	s.p = p
	return nil
}

// WarmUp asks for the lookback window.
func (s *Strategy) WarmUp() int { return s.p.Lookback }

// OnKline implements strategy.Strategy; bars only feed the dip window.
func (s *Strategy) OnKline(strategy.Context, strategy.Bar) error { return nil }

// Schedules implements strategy.Scheduler.
func (s *Strategy) Schedules() []strategy.Schedule {
	return []strategy.Schedule{{Name: "buy", Spec: s.p.Schedule, Run: s.run}}
}

func (s *Strategy) run(ctx strategy.Context, at time.Time) error {
	last := ctx.LastPrice(s.symbol)
	if !last.IsPositive() {
		ctx.Log().Info("dca: no price yet, skipping", "symbol", s.symbol)
		return nil
	}
	if s.p.Dip.IsPositive() {
		high := decimal.Zero
		for _, k := range ctx.Klines(s.symbol, s.iv, s.p.Lookback) {
			if k.Close.GreaterThan(high) {
				high = k.Close
			}
		}
		limit := high.Mul(decimal.NewFromInt(1).Sub(s.p.Dip))
		if last.GreaterThan(limit) {
			ctx.Log().Info("dca: no dip, skipping", "symbol", s.symbol, "last", last, "needs", limit)
			return nil
		}
	}
	info, err := ctx.Rules(s.symbol)
	if err != nil {
		return err
	}
	amount := info.FloorQuote(s.p.Amount)
	_, err = ctx.Place(exchange.NewOrder{Symbol: s.symbol, Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: amount})
	if strategy.IsRefusal(err) {
		ctx.Log().Info("dca: buy refused", "symbol", s.symbol, "err", err)
		return nil
	}
	return err
}

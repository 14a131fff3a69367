// Package rebalance keeps a portfolio at target weights.
//
// At each scheduled time it values every target asset in the quote asset at
// the last close of its <asset><quote> symbol, and for each asset whose
// weight has drifted from its target by more than the band it trades back
// to the target: sells first, then buys, each buy capped by the free quote
// balance at that moment (a buy that cannot be funded yet is left to the
// next run). Orders below the symbol's minimum amount are skipped. In
// plan-only mode it logs the orders it would send and sends none.
//
// Parameters (defaults in brackets):
//
//	quote:      the quote asset all weights are measured in ["USDT"]
//	targets:    asset → weight; weights in [0, 1], summing to 1 with the
//	            quote asset's own weight [required]
//	band:       absolute drift that triggers a trade, in [0, 1) [0.05]
//	schedule:   cron spec (seconds optional, UTC) [instance schedule, else "0 0 * * *"]
//	plan_only:  log instead of trading [false]
//
// Example:
//
//	strategies:
//	  - name: rebalance
//	    id: rebal
//	    symbols: [BTCUSDT, ETHUSDT]
//	    interval: 1h
//	    schedule: "0 0 * * *"
//	    params: {targets: {BTC: 0.4, ETH: 0.3, USDT: 0.3}, band: 0.05}
package rebalance

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// Name is the registered name.
const Name = "rebalance"

// Params are the strategy's parameters.
type Params struct {
	Quote    string                     `koanf:"quote"`
	Targets  map[string]decimal.Decimal `koanf:"targets"`
	Band     decimal.Decimal            `koanf:"band"`
	Schedule string                     `koanf:"schedule"`
	PlanOnly bool                       `koanf:"plan_only"`
}

// Validate checks the parameters, naming the field at fault.
func (p Params) Validate() error {
	one := decimal.NewFromInt(1)
	if p.Quote == "" {
		return errors.New("quote: required")
	}
	if len(p.Targets) == 0 {
		return errors.New("targets: at least one asset required")
	}
	// Sorted, so the same configuration always reports the same asset.
	assets := make([]string, 0, len(p.Targets))
	for a := range p.Targets {
		assets = append(assets, a)
	}
	sort.Strings(assets)
	sum := decimal.Zero
	for _, a := range assets {
		w := p.Targets[a]
		if w.IsNegative() || w.GreaterThan(one) {
			return fmt.Errorf("targets.%s: weight %s must be in [0, 1]", a, w)
		}
		sum = sum.Add(w)
	}
	if !sum.Equal(one) {
		return fmt.Errorf("targets: weights sum to %s, not 1", sum)
	}
	if p.Band.IsNegative() || p.Band.GreaterThanOrEqual(one) {
		return errors.New("band: must be in [0, 1)")
	}
	if err := strategy.ParseSchedule(p.Schedule); err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	return nil
}

// New builds an instance from its configuration.
func New(cfg strategy.Config) (strategy.Strategy, error) {
	p := Params{Quote: "USDT", Band: decimal.RequireFromString("0.05"), Schedule: cfg.Schedule}
	if p.Schedule == "" {
		p.Schedule = "0 0 * * *"
	}
	if err := strategy.DecodeParams(cfg.Params, &p); err != nil {
		return nil, err
	}
	s := &Strategy{p: p}
	for a := range p.Targets {
		if a != p.Quote {
			s.assets = append(s.assets, a)
		}
	}
	sort.Strings(s.assets)
	return s, nil
}

// Strategy is a rebalance instance.
type Strategy struct {
	p      Params
	assets []string // non-quote target assets, sorted
	// Planned holds the orders of the latest run (sent, or only planned).
	Planned []exchange.NewOrder
}

// OnKline implements strategy.Strategy; bars only keep prices current.
func (s *Strategy) OnKline(strategy.Context, strategy.Bar) error { return nil }

// Schedules implements strategy.Scheduler.
func (s *Strategy) Schedules() []strategy.Schedule {
	return []strategy.Schedule{{Name: "rebalance", Spec: s.p.Schedule, Run: s.Rebalance}}
}

type holding struct {
	asset, symbol string
	price, value  decimal.Decimal
	info          *exchange.SymbolInfo
}

// Rebalance values the portfolio and trades drifted assets back to target.
func (s *Strategy) Rebalance(ctx strategy.Context, at time.Time) error {
	s.Planned = nil
	total := held(ctx.Balance(s.p.Quote))
	var hs []holding
	for _, a := range s.assets {
		sym := a + s.p.Quote
		info, err := ctx.Rules(sym)
		if err != nil {
			return fmt.Errorf("rebalance: %w", err)
		}
		price := ctx.LastPrice(sym)
		if !price.IsPositive() {
			ctx.Log().Warn("rebalance: no price yet, skipping this run", "symbol", sym)
			return nil
		}
		v := held(ctx.Balance(a)).Mul(price)
		hs = append(hs, holding{asset: a, symbol: sym, price: price, value: v, info: info})
		total = total.Add(v)
	}
	if !total.IsPositive() {
		return nil
	}
	var sells, buys []exchange.NewOrder
	for _, h := range hs {
		target := s.p.Targets[h.asset]
		drift := h.value.Div(total).Sub(target)
		if drift.Abs().LessThanOrEqual(s.p.Band) {
			continue
		}
		delta := target.Mul(total).Sub(h.value) // quote value to buy (+) or sell (−)
		if delta.IsNegative() {
			qty := h.info.FloorQty(delta.Neg().Div(h.price))
			if qty.Mul(h.price).LessThan(h.info.MinNotional(exchange.TypeMarket)) || !qty.IsPositive() {
				continue
			}
			sells = append(sells, exchange.NewOrder{Symbol: h.symbol, Side: exchange.SideSell, Type: exchange.TypeMarket, Quantity: qty})
		} else {
			buys = append(buys, exchange.NewOrder{Symbol: h.symbol, Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: h.info.FloorQuote(delta)})
		}
	}
	for _, o := range sells {
		s.send(ctx, o)
	}
	for _, o := range buys {
		info, _ := ctx.Rules(o.Symbol)
		if free := info.FloorQuote(ctx.Balance(s.p.Quote).Free); !s.p.PlanOnly && o.QuoteOrderQty.GreaterThan(free) {
			o.QuoteOrderQty = free
		}
		if o.QuoteOrderQty.LessThan(info.MinNotional(exchange.TypeMarket)) || !o.QuoteOrderQty.IsPositive() {
			continue
		}
		s.send(ctx, o)
	}
	return nil
}

// held is free plus locked.
func held(b exchange.Balance) decimal.Decimal { return b.Free.Add(b.Locked) }

func (s *Strategy) send(ctx strategy.Context, o exchange.NewOrder) {
	s.Planned = append(s.Planned, o)
	amount := o.Quantity.String()
	if o.QuoteOrderQty.IsPositive() {
		amount = o.QuoteOrderQty.String() + " quote"
	}
	if s.p.PlanOnly {
		ctx.Log().Info("rebalance plan", "symbol", o.Symbol, "side", string(o.Side), "amount", amount)
		return
	}
	if _, err := ctx.Place(o); err != nil {
		ctx.Log().Warn("rebalance order refused", "symbol", o.Symbol, "side", string(o.Side), "amount", amount, "err", err)
	}
}

// Package rotation is an example of a strategy of one's own: momentum
// rotation between symbols of one quote asset, long only. At each
// scheduled time it measures every symbol's return over the last lookback
// bars (close against the close lookback bars earlier), picks the highest
// (the first in the configuration's order on a tie) and sells every other
// symbol the instance holds. Once nothing else is held or in flight it
// buys the pick at market with a share of the free quote balance: at once
// when there was nothing to sell, else on the first bar after the sells
// filled.
//
// Parameters (defaults in brackets):
//
//	lookback: bars of the return, at least 1; also the warm-up [72]
//	schedule: cron spec of the rotation; the instance's schedule when
//	          params do not set it, else daily at midnight UTC ["0 0 * * *"]
//	fraction: share of the free quote balance a buy spends, in (0, 1] [0.95]
//
// The pick is not persisted: after a restart the instance waits for the
// next scheduled run.
package rotation

import (
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// Name is the registered name.
const Name = "rotation"

// Params are the strategy's parameters.
type Params struct {
	Lookback int             `koanf:"lookback"`
	Schedule string          `koanf:"schedule"`
	Fraction decimal.Decimal `koanf:"fraction"`
}

// Validate checks the parameters, naming the field at fault.
func (p Params) Validate() error {
	switch {
	case p.Lookback < 1:
		return errors.New("lookback: must be at least 1")
	case !p.Fraction.IsPositive() || p.Fraction.GreaterThan(decimal.NewFromInt(1)):
		return errors.New("fraction: must be in (0, 1]")
	}
	if err := strategy.ParseSchedule(p.Schedule); err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	return nil
}

// Strategy is a rotation instance.
type Strategy struct {
	p       Params
	symbols []string
	iv      exchange.Interval
	target  string // the latest pick; "" before the first run
}

// New builds an instance from its configuration.
func New(cfg strategy.Config) (strategy.Strategy, error) {
	p := Params{Lookback: 72, Schedule: cfg.Schedule, Fraction: decimal.RequireFromString("0.95")}
	if p.Schedule == "" {
		p.Schedule = "0 0 * * *"
	}
	if err := strategy.DecodeParams(cfg.Params, &p); err != nil {
		return nil, err
	}
	if len(cfg.Symbols) < 2 {
		return nil, errors.New("symbols: rotation needs at least two symbols")
	}
	iv, err := cfg.ParsedInterval()
	if err != nil {
		return nil, err
	}
	return &Strategy{p: p, symbols: cfg.Symbols, iv: iv}, nil
}

// WarmUp asks for the history of one lookback.
func (s *Strategy) WarmUp() int { return s.p.Lookback + 1 }

// Target returns the latest pick, "" before the first run.
func (s *Strategy) Target() string { return s.target }

// Schedules implements strategy.Scheduler.
func (s *Strategy) Schedules() []strategy.Schedule {
	return []strategy.Schedule{{Name: "rotate", Spec: s.p.Schedule, Run: s.rotate}}
}

// rotate picks the symbol with the highest return and sells the others.
func (s *Strategy) rotate(ctx strategy.Context, _ time.Time) error {
	best, bestReturn := "", 0.0
	for _, sym := range s.symbols {
		ks := ctx.Klines(sym, s.iv, s.p.Lookback+1)
		if len(ks) < s.p.Lookback+1 || !ks[0].Close.IsPositive() {
			ctx.Log().Info("rotation: not enough history, skipping", "symbol", sym, "bars", len(ks))
			return nil
		}
		r := ks[len(ks)-1].Close.InexactFloat64()/ks[0].Close.InexactFloat64() - 1
		if best == "" || r > bestReturn {
			best, bestReturn = sym, r
		}
	}
	s.target = best
	for _, sym := range s.symbols {
		if sym == best || len(ctx.OpenOrders(sym)) > 0 {
			continue
		}
		held, err := s.held(ctx, sym)
		if err != nil {
			return err
		}
		if held.IsZero() {
			continue
		}
		if err := place(ctx, exchange.NewOrder{Symbol: sym, Side: exchange.SideSell, Type: exchange.TypeMarket, Quantity: held}); err != nil {
			return err
		}
	}
	return s.buy(ctx)
}

// OnKline implements strategy.Strategy: a pick waiting for the sells to
// fill is bought on the bar after they did.
func (s *Strategy) OnKline(ctx strategy.Context, bar strategy.Bar) error {
	if ctx.WarmingUp() || bar.Symbol != s.target {
		return nil
	}
	return s.buy(ctx)
}

// buy buys the pick when nothing else is held or in flight and the pick is
// not held yet.
func (s *Strategy) buy(ctx strategy.Context) error {
	if s.target == "" || len(ctx.OpenOrders("")) > 0 {
		return nil
	}
	for _, sym := range s.symbols {
		held, err := s.held(ctx, sym)
		if err != nil || !held.IsZero() {
			return err
		}
	}
	info, err := ctx.Rules(s.target)
	if err != nil {
		return err
	}
	quote := info.FloorQuote(ctx.Balance(info.QuoteAsset).Free.Mul(s.p.Fraction))
	if quote.LessThan(info.MinNotional(exchange.TypeMarket)) {
		return nil
	}
	return place(ctx, exchange.NewOrder{Symbol: s.target, Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: quote})
}

// held returns the quantity of a symbol the instance holds and can sell:
// its position, at most the free balance, to the step; zero when that is
// below the symbol's minimum order.
func (s *Strategy) held(ctx strategy.Context, sym string) (decimal.Decimal, error) {
	info, err := ctx.Rules(sym)
	if err != nil {
		return decimal.Zero, err
	}
	q := info.FloorQty(decimal.Min(ctx.Position(sym).Qty, ctx.Balance(info.BaseAsset).Free))
	if q.Mul(ctx.LastPrice(sym)).LessThan(info.MinNotional(exchange.TypeMarket)) {
		return decimal.Zero, nil
	}
	return q, nil
}

// place sends an order; a refusal (logged and counted by the runtime) does
// not stop the instance: the next run or bar tries again.
func place(ctx strategy.Context, o exchange.NewOrder) error {
	if _, err := ctx.Place(o); err != nil && !strategy.IsRefusal(err) {
		return err
	}
	return nil
}

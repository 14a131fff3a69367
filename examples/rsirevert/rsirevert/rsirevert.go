// Package rsirevert is an example of a strategy of one's own: RSI mean
// reversion, long only. On each closed bar it updates Wilder's RSI of the
// close; when the RSI falls below low and the instance holds nothing it
// buys at market, and when the RSI rises above high while it holds a
// position it sells the whole position at market.
//
// Parameters (defaults in brackets):
//
//	n:        RSI period, at least 2 [14]
//	low:      buy below this RSI, in (0, high) [30]
//	high:     sell above this RSI, in (low, 100) [70]
//	fraction: share of the free quote balance a buy spends, in (0, 1] [0.95]
package rsirevert

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/indicator"
)

// Name is the registered name.
const Name = "rsirevert"

// Params are the strategy's parameters.
type Params struct {
	N        int             `koanf:"n"`
	Low      float64         `koanf:"low"`
	High     float64         `koanf:"high"`
	Fraction decimal.Decimal `koanf:"fraction"`
}

// Defaults returns the default parameters.
func Defaults() Params {
	return Params{N: 14, Low: 30, High: 70, Fraction: decimal.RequireFromString("0.95")}
}

// Validate checks the parameters, naming the field at fault.
func (p Params) Validate() error {
	switch {
	case p.N < 2:
		return errors.New("n: must be at least 2")
	case p.Low <= 0 || p.Low >= p.High:
		return errors.New("low: must be in (0, high)")
	case p.High >= 100:
		return errors.New("high: must be below 100")
	case !p.Fraction.IsPositive() || p.Fraction.GreaterThan(decimal.NewFromInt(1)):
		return errors.New("fraction: must be in (0, 1]")
	}
	return nil
}

// Strategy is an rsirevert instance.
type Strategy struct {
	p   Params
	rsi map[string]*indicator.RSI
}

// New builds an instance from its configuration.
func New(cfg strategy.Config) (strategy.Strategy, error) {
	p := Defaults()
	if err := strategy.DecodeParams(cfg.Params, &p); err != nil {
		return nil, err
	}
	if len(cfg.Symbols) == 0 {
		return nil, errors.New("symbols: rsirevert needs at least one symbol")
	}
	s := &Strategy{p: p, rsi: map[string]*indicator.RSI{}}
	for _, sym := range cfg.Symbols {
		r, err := indicator.NewRSI(p.N)
		if err != nil {
			return nil, fmt.Errorf("params: %w", err)
		}
		s.rsi[sym] = r
	}
	return s, nil
}

// WarmUp asks for the n+1 closes the first RSI value needs.
func (s *Strategy) WarmUp() int { return s.p.N + 1 }

// RSI returns the current RSI of a symbol, or 0 before it is defined.
func (s *Strategy) RSI(symbol string) float64 {
	if r := s.rsi[symbol]; r != nil {
		return r.Value()
	}
	return 0
}

// OnKline implements strategy.Strategy.
func (s *Strategy) OnKline(ctx strategy.Context, bar strategy.Bar) error {
	r := s.rsi[bar.Symbol]
	if r == nil {
		return nil
	}
	r.Update(bar.Close.Float64())
	if !r.Ready() || ctx.WarmingUp() || len(ctx.OpenOrders(bar.Symbol)) > 0 {
		return nil
	}
	info, err := ctx.Rules(bar.Symbol)
	if err != nil {
		return err
	}
	minimum := info.MinNotional(exchange.TypeMarket)
	held := info.FloorQty(decimal.Min(ctx.Position(bar.Symbol).Qty, ctx.Balance(info.BaseAsset).Free))
	holding := !held.Mul(bar.Close.Decimal()).LessThan(minimum)
	var o exchange.NewOrder
	switch v := r.Value(); {
	case v < s.p.Low && !holding:
		quote := info.FloorQuote(ctx.Balance(info.QuoteAsset).Free.Mul(s.p.Fraction))
		if quote.LessThan(minimum) {
			return nil
		}
		o = exchange.NewOrder{Symbol: bar.Symbol, Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: quote}
	case v > s.p.High && holding:
		o = exchange.NewOrder{Symbol: bar.Symbol, Side: exchange.SideSell, Type: exchange.TypeMarket, Quantity: held}
	default:
		return nil
	}
	if _, err := ctx.Place(o); err != nil && !strategy.IsRefusal(err) {
		return err // a refusal is logged and counted by the runtime; the next signal tries again
	}
	return nil
}

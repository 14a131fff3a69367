// Package grid trades a price range split into levels.
//
// At start it lays limit orders on every level: buys below the last price,
// sells above it (as far as the base balance allows), placed in batches of
// up to exchange.MaxBatchOrders (20). When a buy at one level fills it
// places a sell one level up; when a sell fills it places a buy one level
// down. Levels that already
// hold an open order of the instance are left alone, so starting again over
// a live ladder does not double it. Across a process restart, bot run
// hands the runtime the instance's open orders from the store (and the
// fills missed while it was down) before Start, so the ladder is recovered,
// not laid again.
//
// Parameters (defaults in brackets):
//
//	lower, upper:  the price range, 0 < lower < upper [required]
//	levels:        number of price levels including both ends, 2..200 [10]
//	quantity:      base quantity per order, > 0 [required]
//	stp_mode:      self-trade prevention mode sent with every order
//	               ("", cancel_maker, cancel_taker, cancel_both) [""]
//
// Example:
//
//	strategies:
//	  - name: grid
//	    id: eth-grid
//	    symbols: [ETHUSDT]
//	    interval: 1h
//	    params: {lower: 1500, upper: 2500, levels: 11, quantity: 0.05}
package grid

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// Name is the registered name.
const Name = "grid"

// Params are the strategy's parameters.
type Params struct {
	Lower    decimal.Decimal  `koanf:"lower"`
	Upper    decimal.Decimal  `koanf:"upper"`
	Levels   int              `koanf:"levels"`
	Quantity decimal.Decimal  `koanf:"quantity"`
	STPMode  exchange.STPMode `koanf:"stp_mode"`
}

// Validate checks the parameters, naming the field at fault.
func (p Params) Validate() error {
	switch {
	case !p.Lower.IsPositive():
		return errors.New("lower: must be positive")
	case !p.Upper.GreaterThan(p.Lower):
		return errors.New("upper: must be above lower")
	case p.Levels < 2 || p.Levels > 200:
		return errors.New("levels: must be 2..200")
	case !p.Quantity.IsPositive():
		return errors.New("quantity: must be positive")
	case !p.STPMode.Valid():
		return fmt.Errorf("stp_mode: %q is not a mode", p.STPMode)
	}
	return nil
}

// New builds an instance from its configuration.
func New(cfg strategy.Config) (strategy.Strategy, error) {
	p := Params{Levels: 10}
	if err := strategy.DecodeParams(cfg.Params, &p); err != nil {
		return nil, err
	}
	if len(cfg.Symbols) != 1 {
		return nil, errors.New("symbols: grid trades exactly one symbol")
	}
	return &Strategy{p: p, symbol: cfg.Symbols[0]}, nil
}

// Strategy is a grid instance.
type Strategy struct {
	p      Params
	symbol string
	prices []decimal.Decimal // level prices, ascending, at the symbol's precision
}

// OnKline implements strategy.Strategy; the grid reacts to fills, not bars.
func (s *Strategy) OnKline(strategy.Context, strategy.Bar) error { return nil }

// Levels returns the level prices (after Start).
func (s *Strategy) Levels() []decimal.Decimal { return s.prices }

// Start lays out the ladder.
func (s *Strategy) Start(ctx strategy.Context) error {
	info, err := ctx.Rules(s.symbol)
	if err != nil {
		return err
	}
	step := s.p.Upper.Sub(s.p.Lower).Div(decimal.NewFromInt(int64(s.p.Levels - 1)))
	s.prices = s.prices[:0]
	for i := 0; i < s.p.Levels; i++ {
		s.prices = append(s.prices, info.RoundPrice(s.p.Lower.Add(step.Mul(decimal.NewFromInt(int64(i))))))
	}
	last := ctx.LastPrice(s.symbol)
	if !last.IsPositive() {
		return fmt.Errorf("grid %s: no price for %s at start", ctx.ID(), s.symbol)
	}
	taken := map[string]bool{}
	for _, o := range ctx.OpenOrders(s.symbol) {
		taken[o.Price.String()] = true
	}
	qty := info.FloorQty(s.p.Quantity)
	base := ctx.Balance(info.BaseAsset).Free
	var orders []exchange.NewOrder
	for _, p := range s.prices {
		if taken[p.String()] || p.Equal(last) {
			continue
		}
		side := exchange.SideBuy
		if p.GreaterThan(last) {
			if base.LessThan(qty) {
				continue
			}
			base = base.Sub(qty)
			side = exchange.SideSell
		}
		orders = append(orders, s.order(side, p, qty))
	}
	for len(orders) > 0 {
		n := min(len(orders), exchange.MaxBatchOrders)
		res, err := ctx.PlaceBatch(orders[:n])
		if err != nil {
			return err
		}
		for _, o := range res {
			if o.Err != nil {
				ctx.Log().Warn("grid order refused", "price", o.Price.String(), "side", string(o.Side), "err", o.Err)
			}
		}
		orders = orders[n:]
	}
	return nil
}

func (s *Strategy) order(side exchange.Side, price, qty decimal.Decimal) exchange.NewOrder {
	return exchange.NewOrder{Symbol: s.symbol, Side: side, Type: exchange.TypeLimit, Price: price, Quantity: qty, STPMode: s.p.STPMode}
}

// OnOrder implements strategy.OrderHandler: a filled level is answered by
// the opposite order one level away.
func (s *Strategy) OnOrder(ctx strategy.Context, o strategy.Order) error {
	if o.Status != exchange.StatusFilled || o.Symbol != s.symbol {
		return nil
	}
	i := s.level(o.Price)
	if i < 0 {
		return nil
	}
	j, side := i+1, exchange.SideSell
	if o.Side == exchange.SideSell {
		j, side = i-1, exchange.SideBuy
	}
	if j < 0 || j >= len(s.prices) {
		return nil
	}
	_, err := ctx.Place(s.order(side, s.prices[j], o.Quantity))
	if strategy.IsRefusal(err) {
		ctx.Log().Warn("grid order refused", "price", s.prices[j].String(), "side", string(side), "err", err)
		return nil
	}
	return err
}

func (s *Strategy) level(p decimal.Decimal) int {
	for i, lp := range s.prices {
		if lp.Equal(p) {
			return i
		}
	}
	return -1
}

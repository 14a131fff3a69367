package config

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// Symbol is one symbol's rules in the symbols section, for the simulated
// exchange of a backtest or a paper replay: any field left out takes the
// default rules (session.DefaultRules, docs/fill-model.md), so a name
// whose quote asset cannot be read from it (ORCL) needs only base and
// quote.
type Symbol struct {
	Symbol string `koanf:"symbol"`
	// Base and Quote are the assets; both or neither (then they are split
	// from the name, as BTCUSDT → BTC, USDT).
	Base  string `koanf:"base"`
	Quote string `koanf:"quote"`
	// PriceDecimals and QuantityDecimals are the decimals a price and a
	// quantity may carry (default: the data's own price decimals, 2 to
	// 8; 6 quantity decimals).
	PriceDecimals    *int `koanf:"price_decimals"`
	QuantityDecimals *int `koanf:"quantity_decimals"`
	// WholeUnits trades whole units only: 0 quantity decimals and a
	// minimum quantity of 1 unless min_qty says more.
	WholeUnits bool `koanf:"whole_units"`
	// MinQty is the smallest quantity of an order, MinAmount its smallest
	// quote amount (limit and market orders alike).
	MinQty    *decimal.Decimal `koanf:"min_qty"`
	MinAmount *decimal.Decimal `koanf:"min_amount"`
	// MakerFee and TakerFee are the symbol's commission rates; sim.maker_fee
	// and sim.taker_fee override them.
	MakerFee *decimal.Decimal `koanf:"maker_fee"`
	TakerFee *decimal.Decimal `koanf:"taker_fee"`
}

// maxDecimals bounds a symbol's price and quantity decimals.
const maxDecimals = 16

// SymbolRules returns the rules configured for symbol, if any.
func (c *Config) SymbolRules(symbol string) (Symbol, bool) {
	for _, s := range c.Symbols {
		if s.Symbol == symbol {
			return s, true
		}
	}
	return Symbol{}, false
}

// symbolProblems checks the symbols section, each problem naming its key.
func symbolProblems(syms []Symbol) []error {
	var errs []error
	seen := map[string]int{}
	for i, s := range syms {
		p := fmt.Sprintf("symbols[%d]", i)
		add := func(key, format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s.%s: %s", p, key, fmt.Sprintf(format, args...)))
		}
		if s.Symbol == "" {
			add("symbol", "required")
		} else if j, dup := seen[s.Symbol]; dup {
			add("symbol", "%q already listed by symbols[%d]", s.Symbol, j)
		} else {
			seen[s.Symbol] = i
		}
		switch {
		case s.Base == "" && s.Quote != "":
			add("base", "required with quote")
		case s.Base != "" && s.Quote == "":
			add("quote", "required with base")
		case s.Base != "" && s.Base == s.Quote:
			add("quote", "%q is the base asset too", s.Quote)
		}
		for _, d := range []struct {
			key string
			v   *int
		}{{"price_decimals", s.PriceDecimals}, {"quantity_decimals", s.QuantityDecimals}} {
			if d.v != nil && (*d.v < 0 || *d.v > maxDecimals) {
				add(d.key, "%d must be from 0 to %d", *d.v, maxDecimals)
			}
		}
		if s.WholeUnits && s.QuantityDecimals != nil && *s.QuantityDecimals != 0 {
			add("whole_units", "whole units have 0 quantity decimals, not %d; remove one of them", *s.QuantityDecimals)
		}
		if s.MinQty != nil {
			if !s.MinQty.IsPositive() {
				add("min_qty", "%s must be positive", s.MinQty)
			} else if s.WholeUnits && !s.MinQty.IsInteger() {
				add("min_qty", "%s is not a whole number of units (whole_units)", s.MinQty)
			}
		}
		if s.MinAmount != nil && !s.MinAmount.IsPositive() {
			add("min_amount", "%s must be positive", s.MinAmount)
		}
		for _, f := range []struct {
			key string
			fee *decimal.Decimal
		}{{"maker_fee", s.MakerFee}, {"taker_fee", s.TakerFee}} {
			if f.fee != nil && (f.fee.IsNegative() || f.fee.GreaterThanOrEqual(decimal.NewFromInt(1))) {
				add(f.key, "%s must be at least 0 and below 1", f.fee)
			}
		}
	}
	return errs
}

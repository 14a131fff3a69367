package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
)

// quoteAssets are the quote assets DefaultRules recognises at the end of a
// symbol, longest first so USDT wins over USD.
var quoteAssets = []string{"USDT", "USDC", "BUSD", "BTC", "ETH", "USD", "EUR", "TOK"}

// DefaultRules returns rules for a symbol that has data but no configured
// rules: base and quote split from the name (BTCUSDT → BTC, USDT; the
// forms BTC_USDT and BTC-USDT work too), the price precision of the data
// itself (the most decimals any price in it carries, at least 2 and at most
// 8), six quantity decimals, a minimum order of 5 in a fiat-like quote (or
// 0.0001 in a crypto quote), no maximum beyond 10^9, and a 0.1% fee for
// maker and taker. docs/fill-model.md lists these defaults.
func DefaultRules(symbol string, bars []exchange.Kline) (exchange.SymbolInfo, error) {
	base, quote, ok := splitSymbol(symbol)
	if !ok {
		return exchange.SymbolInfo{}, fmt.Errorf("session: symbol %q: cannot tell its base and quote asset; give its base and quote in the symbols section", symbol)
	}
	return defaultRules(symbol, base, quote, bars), nil
}

// SymbolRules returns a symbol's rules for a simulated exchange: the
// default rules (DefaultRules, with the base and quote asset configured
// when they are) with whatever the configuration's symbols section sets
// for it laid over them. It is the one place the symbols section becomes
// exchange rules.
func SymbolRules(configured []config.Symbol, symbol string, bars []exchange.Kline) (exchange.SymbolInfo, error) {
	i := slices.IndexFunc(configured, func(c config.Symbol) bool { return c.Symbol == symbol })
	if i < 0 {
		return DefaultRules(symbol, bars)
	}
	c := configured[i]
	var info exchange.SymbolInfo
	if c.Base != "" {
		info = defaultRules(symbol, c.Base, c.Quote, bars)
	} else {
		var err error
		if info, err = DefaultRules(symbol, bars); err != nil {
			return info, err
		}
	}
	if d := c.PriceDecimals; d != nil {
		info.QuotePrecision, info.QuoteAssetPrecision = *d, *d
	}
	qd := c.QuantityDecimals
	if c.WholeUnits {
		qd = new(int)
	}
	if qd != nil {
		info.BaseAssetPrecision = *qd
		info.BaseSizePrecision = decimal.New(1, -int32(*qd)) // one step, unless min_qty says more
	}
	if c.MinQty != nil {
		info.BaseSizePrecision = *c.MinQty
	}
	if c.MinAmount != nil {
		info.QuoteAmountPrecision, info.QuoteAmountPrecisionMarket = *c.MinAmount, *c.MinAmount
	}
	if c.MakerFee != nil {
		info.MakerCommission = *c.MakerFee
	}
	if c.TakerFee != nil {
		info.TakerCommission = *c.TakerFee
	}
	return info, nil
}

// defaultRules are DefaultRules for a symbol whose assets are known.
func defaultRules(symbol, base, quote string, bars []exchange.Kline) exchange.SymbolInfo {
	prec := int32(2)
	for i := 0; i < len(bars) && prec < 8; i++ { // past 8 the answer is 8
		k := &bars[i]
		prec = max(prec, -k.Open.Exponent(), -k.High.Exponent(), -k.Low.Exponent(), -k.Close.Exponent())
	}
	if prec > 8 {
		prec = 8
	}
	minAmount := decimal.NewFromInt(5)
	if quote == "BTC" || quote == "ETH" {
		minAmount = decimal.New(1, -4)
	}
	fee := decimal.New(1, -3)
	return exchange.SymbolInfo{Symbol: symbol, Status: exchange.SymbolOnline, BaseAsset: base, QuoteAsset: quote,
		BaseAssetPrecision: 6, QuotePrecision: int(prec), QuoteAssetPrecision: int(prec), BaseCommissionPrecision: 8,
		QuoteCommissionPrecision: 8, IsSpotTradingAllowed: true, TradeSideType: exchange.TradeSideAll,
		OrderTypes:           []exchange.OrderType{exchange.TypeLimit, exchange.TypeMarket, exchange.TypeLimitMaker},
		QuoteAmountPrecision: minAmount, QuoteAmountPrecisionMarket: minAmount, BaseSizePrecision: decimal.New(1, -6),
		MaxQuoteAmount: decimal.New(1, 9), MaxQuoteAmountMarket: decimal.New(1, 9), MakerCommission: fee, TakerCommission: fee,
		Permissions: []string{"SPOT"}}
}

// splitSymbol splits a symbol into base and quote asset.
func splitSymbol(s string) (base, quote string, ok bool) {
	if i := strings.IndexAny(s, "_-/"); i > 0 && i < len(s)-1 {
		return s[:i], s[i+1:], true
	}
	for _, q := range quoteAssets {
		if len(s) > len(q) && strings.HasSuffix(s, q) {
			return s[:len(s)-len(q)], q, true
		}
	}
	return "", "", false
}

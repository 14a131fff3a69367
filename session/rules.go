package session

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

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
		return exchange.SymbolInfo{}, fmt.Errorf("session: symbol %q: cannot tell its base and quote asset; configure its rules", symbol)
	}
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
		Permissions: []string{"SPOT"}}, nil
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

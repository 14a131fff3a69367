package smacross

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// TestMemoDerivesAgainOnNewInputs checks the memo's amounts against the
// ones derived afresh, exactly (coefficient and exponent), as the inputs
// stay the same decimal, change value, come back equal but built anew,
// or the rules change.
func TestMemoDerivesAgainOnNewInputs(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	s := &Strategy{p: Params{Fraction: d("0.5")}}
	btc := &exchange.SymbolInfo{BaseAsset: "ETH", QuoteAsset: "BTC", QuoteAssetPrecision: 8, BaseAssetPrecision: 6, QuoteAmountPrecision: d("0.0001")}
	coarse := &exchange.SymbolInfo{BaseAsset: "ETH", QuoteAsset: "BTC", QuoteAssetPrecision: 3, BaseAssetPrecision: 2, QuoteAmountPrecision: d("0.0001")}
	exact := func(got decimal.Decimal, want string) bool {
		w := d(want)
		return got.Coefficient().Cmp(w.Coefficient()) == 0 && got.Exponent() == w.Exponent()
	}
	// Each reading as a decimal, then as the Fixed a FixedBalancer gives:
	// the same amounts.
	for _, asFixed := range []bool{false, true} {
		testMemo(t, s, btc, coarse, exact, func(v decimal.Decimal) free {
			if f, ok := exchange.FixedOf(v); ok && asFixed {
				return free{f: f, fixed: true}
			}
			return free{d: v}
		})
	}
}

func testMemo(t *testing.T, s *Strategy, btc, coarse *exchange.SymbolInfo, exact func(decimal.Decimal, string) bool, read func(decimal.Decimal) free) {
	d := decimal.RequireFromString
	var m memo
	free := d("10.12345679")
	for _, c := range []struct {
		info  *exchange.SymbolInfo
		free  decimal.Decimal
		short bool
		want  string
	}{
		{btc, free, false, "5.06172839"},             // 5.061728395 floored to 8
		{btc, free, false, "5.06172839"},             // the same decimal: from the memo
		{btc, d("3"), false, "1.5"},                  // another balance
		{btc, d("10.12345679"), false, "5.06172839"}, // equal to the first, built anew
		{coarse, d("10.12345679"), false, "5.061"},   // other rules
		{btc, d("0.0001155314252"), true, ""},        // half of it below the minimum
		{btc, d("0.0001155314252"), true, ""},
		{btc, decimal.Decimal{}, true, ""},
	} {
		min := c.info.MinNotional(exchange.TypeMarket)
		if short := m.buyAmount(s, c.info, read(c.free), min); short != c.short {
			t.Fatalf("buy from %s: short %v, want %v", c.free, short, c.short)
		}
		if c.short {
			continue
		}
		if got := m.order(); !exact(got, c.want) {
			t.Fatalf("buy from %s: %se%d, want %s", c.free, got.Coefficient(), got.Exponent(), c.want)
		}
		f, fixed, dec, short := s.quoteAmount(c.info, read(c.free), min)
		if fixed {
			dec = f.Decimal()
		}
		if short || !exact(m.order(), dec.String()) || m.order().Exponent() != dec.Exponent() {
			t.Fatalf("buy from %s: memo %s, derived %s (short %v)", c.free, m.order(), dec, short)
		}
	}
	held := d("0.00111403")
	for _, c := range []struct {
		info       *exchange.SymbolInfo
		held, free decimal.Decimal
		want       string
	}{
		{btc, held, held, "0.001114"},
		{btc, held, held, "0.001114"},             // the same decimals
		{btc, held, d("0.0005"), "0.0005"},        // free below the position: floored alone
		{btc, held, d("0.00111403"), "0.001114"},  // equal, built anew
		{coarse, held, d("0.00111403"), "0.00"},   // other rules
		{btc, d("2.1234567"), d("5"), "2.123456"}, // another position
	} {
		got := m.sellQty(c.info, c.held, read(c.free))
		if !exact(got, c.want) {
			t.Fatalf("sell %s of free %s: %se%d, want %s", c.held, c.free, got.Coefficient(), got.Exponent(), c.want)
		}
	}
	for _, c := range []struct {
		info *exchange.SymbolInfo
		want string
	}{{btc, "0.123456"}, {btc, "0.123456"}, {coarse, "0.12"}, {btc, "0.123456"}} {
		if got := m.quantity(c.info, d("0.1234567")); !exact(got, c.want) {
			t.Fatalf("quantity: %se%d, want %s", got.Coefficient(), got.Exponent(), c.want)
		}
	}
}

package session_test

import (
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/session"
)

func rulesText(i exchange.SymbolInfo) string {
	return fmt.Sprintf("%s %s/%s price=%d quote=%d qty=%d minqty=%s min=%s/%s fees=%s/%s", i.Symbol, i.BaseAsset, i.QuoteAsset,
		i.QuotePrecision, i.QuoteAssetPrecision, i.BaseAssetPrecision, i.BaseSizePrecision, i.QuoteAmountPrecision,
		i.QuoteAmountPrecisionMarket, i.MakerCommission, i.TakerCommission)
}

// The symbols section over the default rules: a name with no known quote
// (ORCL) gets its assets, whole units with a minimum of 1 share; a name
// the defaults can split keeps what the section leaves out; a symbol the
// section does not list gets DefaultRules, and an unsplittable one an
// error that says how to configure it.
func TestSymbolRules(t *testing.T) {
	t.Parallel()
	d := func(s string) *decimal.Decimal { v := decimal.RequireFromString(s); return &v }
	three := 3
	syms := []config.Symbol{
		{Symbol: "ORCL", Base: "ORCL", Quote: "USD", WholeUnits: true, MinAmount: d("1"), TakerFee: d("0.0005")},
		{Symbol: "BTCUSDT", PriceDecimals: &three, QuantityDecimals: &three, MinQty: d("0.01"), MakerFee: d("0")},
	}
	bars := []exchange.Kline{bar(0, "44.12")}
	for _, c := range []struct{ symbol, want string }{
		{"ORCL", "ORCL ORCL/USD price=2 quote=2 qty=0 minqty=1 min=1/1 fees=0.001/0.0005"},
		{"BTCUSDT", "BTCUSDT BTC/USDT price=3 quote=3 qty=3 minqty=0.01 min=5/5 fees=0/0.001"},
		{"ETHBTC", "ETHBTC ETH/BTC price=2 quote=2 qty=6 minqty=0.000001 min=0.0001/0.0001 fees=0.001/0.001"},
	} {
		info, err := session.SymbolRules(syms, c.symbol, bars)
		if err != nil {
			t.Fatal(err)
		}
		if got := rulesText(info); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.symbol, got, c.want)
		}
	}
	_, err := session.SymbolRules(syms, "GOOG", bars)
	if want := `session: symbol "GOOG": cannot tell its base and quote asset; give its base and quote in the symbols section`; err == nil || err.Error() != want {
		t.Errorf("err %v, want %s", err, want)
	}
}

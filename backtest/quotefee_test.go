package backtest

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/spotbot/spotbot/exchange"
)

// quoteFeeBars: flat at 100 for three bars, then a close at 110 that
// lifts the 2-bar average (105) above the 3-bar one (103.33): smacross
// buys at that close, and the market order fills at the next open, 102.
var quoteFeeBars = []exchange.Kline{
	hbar(0, "100", "100", "100", "100"),
	hbar(1, "100", "100", "100", "100"),
	hbar(2, "100", "100", "100", "100"),
	hbar(3, "100", "110", "100", "110"),
	hbar(4, "102", "103", "101", "102"),
	hbar(5, "102", "102", "102", "102"),
}

// quoteFeeRun backtests smacross (fast 2, slow 3) over quoteFeeBars with
// 1000 USDT, fees in the quote asset (0.1% maker, 0.2% taker) and params.
func quoteFeeRun(t *testing.T, params string) *Result {
	t.Helper()
	dir := t.TempDir()
	writeCSV(t, filepath.Join(dir, "BTCUSDT-1h.csv"), quoteFeeBars)
	yaml := `
mode: backtest
data: {source: csv, path: ` + dir + `, interval: 1h}
account: {balances: {USDT: 1000}}
sim: {fee_asset: quote}
symbols:
  - {symbol: BTCUSDT, price_decimals: 2, quantity_decimals: 4, maker_fee: 0.001, taker_fee: 0.002}
strategies:
  - {name: smacross, id: q, symbols: [BTCUSDT], interval: 1h, params: ` + params + `}
`
	res, err := Run(t.Context(), specOf(t, yaml))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// smacross with fraction: 1 and sim.fee_asset: quote spends every free
// USDT as a quote-sized market buy (quoteOrderQty 1000), which the
// exchange spends on the asset and the taker fee together: it buys
// floor(1000 / (102 × 1.002)) = floor(9.784353...) = 9.7843 BTC for
// 997.9986 and a fee of 0.2% of that, 1.9959972, leaving 0.0054028. The
// strategy sees the account's free balance as the exchange reports it;
// nothing is refused.
func TestSmacrossAllInWithQuoteFeesSizesDown(t *testing.T) {
	t.Parallel()
	res := quoteFeeRun(t, `{fast: 2, slow: 3, fraction: 1}`)
	if got, want := fillText(res.Fills), "BTCUSDT B 9.7843@102 fee 1.9959972 USDT maker=false 04:00"; got != want {
		t.Errorf("fills %s, want %s", got, want)
	}
	if got, want := res.Balances["USDT"].String()+" "+res.Balances["BTC"].String(), "0.0054028 9.7843"; got != want {
		t.Errorf("balances %s, want %s", got, want)
	}
	if r := res.Metrics.Rejected; len(r) != 0 {
		t.Errorf("orders_rejected %v, want none", r)
	}
}

// A quantity-sized buy has no such give: smacross with quantity: 9.09
// at the last close 110 is worth 999.9, within the 1000 free, but its fee
// may be 0.2% of that, 1.9998, so it needs 1001.8998 and the risk gate
// refuses it by rule balance (the exchange would refuse it for funds).
func TestSmacrossQuantityWithQuoteFeesRefusedByTheGate(t *testing.T) {
	t.Parallel()
	res := quoteFeeRun(t, `{fast: 2, slow: 3, quantity: 9.09}`)
	if res.Fills.Len() != 0 {
		t.Errorf("fills %s, want none", fillText(res.Fills))
	}
	if got, want := fmt.Sprint(res.Metrics.Rejected), "map[balance:1]"; got != want {
		t.Errorf("orders_rejected %s, want %s", got, want)
	}
	if got := res.Balances["USDT"].String(); got != "1000" {
		t.Errorf("USDT %s, want 1000", got)
	}
}

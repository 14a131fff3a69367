package backtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// writeCSV writes bars as a kline CSV file.
func writeCSV(t *testing.T, path string, bars []exchange.Kline) {
	t.Helper()
	var b strings.Builder
	b.WriteString("open_time_ms,open,high,low,close,volume\n")
	for _, k := range bars {
		fmt.Fprintf(&b, "%d,%s,%s,%s,%s,%s\n", k.OpenTime.UnixMilli(), k.Open, k.High, k.Low, k.Close, k.Volume)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A symbol whose quote asset its name does not tell (ACME, quoted in USD)
// trades in whole units by the symbols section, through the configuration
// as `backtest` reads it. A buy of 1000 USD at 102 with a 0.1% taker fee
// in the quote asset gets floor(1000 / 102.102) = 9 units for 918 and a
// 0.918 fee; a quantity of 1.5 is refused by the exchange's precision rule;
// selling the 9 at 110 receives 990 less 0.99: 1070.092 USD at the end.
func TestSymbolsSectionWholeUnits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeCSV(t, filepath.Join(dir, "ACME-1h.csv"), fourBars)
	s := &script{seen: map[string]int{}, orders: map[int][]exchange.NewOrder{
		0: {{Symbol: "ACME", Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: dec("1000")},
			market("ACME", exchange.SideBuy, "1.5")},
		2: {market("ACME", exchange.SideSell, "9")},
	}}
	reg := strategy.NewRegistry()
	reg.Register("script", func(strategy.Config) (strategy.Strategy, error) { return s, nil })
	yaml := `
mode: backtest
data: {source: csv, path: ` + dir + `, interval: 1h, cache: off}
account: {quote: USD, balances: {USD: 1000}}
sim: {fee_asset: quote}
symbols:
  - {symbol: ACME, base: ACME, quote: USD, whole_units: true, min_amount: 1, maker_fee: 0, taker_fee: 0.001}
strategies:
  - {name: script, id: s, symbols: [ACME], interval: 1h}
`
	res, err := Run(t.Context(), specWith(t, reg, yaml))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fillText(res.Fills), "ACME B 9@102 fee 0.918 USD maker=false 01:00; ACME S 9@110 fee 0.99 USD maker=false 03:00"; got != want {
		t.Errorf("fills\n got %s\nwant %s", got, want)
	}
	if got, want := strings.Join(s.errs, "; "), "precision"; got != want {
		t.Errorf("refusals %q, want %q", got, want)
	}
	if got := res.Balances["USD"].String() + " " + res.Balances["ACME"].String(); got != "1070.092 0" {
		t.Errorf("balances %s", got)
	}
	if tr := res.Trades[0]; tr.Qty.String() != "9" || tr.PnL.String() != "70.092" {
		t.Errorf("trade %+v", tr)
	}
}

// ORCL from ../shared/data (daily, 1995-2014, the backtrader sample) is a
// valid backtest symbol once the symbols section names its assets: whole
// shares, USD, the fee in the quote asset as backtrader charges it. The
// run must end with the engine's ledger equal to the exchange's balances
// (Run checks it) and every quantity traded a whole number.
func TestSymbolsSectionORCL(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(sharedData, "ORCL-1d.csv")); err != nil {
		t.Skipf("real data absent (%v); TestSymbolsSectionWholeUnits covers the same path", err)
	}
	yaml := `
mode: backtest
data: {source: csv, path: ` + sharedData + `, interval: 1d, cache: off}
account: {quote: USD, balances: {USD: 100000}}
sim: {fee_asset: quote, market: close}
symbols:
  - {symbol: ORCL, base: ORCL, quote: USD, quantity_decimals: 0, maker_fee: 0.001, taker_fee: 0.001}
strategies:
  - {name: smacross, id: o, symbols: [ORCL], interval: 1d, params: {fast: 10, slow: 30, fraction: "0.95"}}
`
	res, err := Run(t.Context(), specOf(t, yaml))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Fills.All() {
		if !f.Qty.IsInteger() || f.CommissionAsset != "USD" {
			t.Fatalf("fill %s %s fee %s %s", f.Symbol, f.Qty, f.Commission, f.CommissionAsset)
		}
	}
	m := res.Metrics
	got := fmt.Sprintf("bars=%d fills=%d trades=%d final=%s fees=%s ORCL=%s", m.Bars, res.Fills.Len(), m.Trades, m.EquityFinal,
		m.FeesPaid, res.Balances["ORCL"])
	if want := "bars=5006 fills=193 trades=96 final=107497.79809 fees=18895.43191 ORCL=2286"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

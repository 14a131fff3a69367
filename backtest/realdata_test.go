package backtest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategy"
)

var updateReal = flag.Bool("update-real", false, "rewrite testdata/realdata.golden from ../shared/data")

// TestRealData backtests smacross and grid on real series from
// ../shared/data: hourly Coinbase BTC-USD (20,111 bars, filler bars
// included), Bittrex ETH-BTC 5-minute bars (a BTC-quoted pair with eight
// price decimals and gaps) and UNITTEST_BTC 1-minute bars (538 gaps). Every
// run must finish with the engine's ledger equal to the exchange's balances
// (Run checks it) and pin its results to testdata/realdata.golden.
func TestRealData(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(sharedData); err != nil {
		t.Skipf("real data absent (%v); the sample-data tests cover the same paths", err)
	}
	cases := []struct {
		file, symbol string
		iv           exchange.Interval
		quote        string
		balances     map[string]decimal.Decimal
		inst         strategy.Config
	}{
		{"Coinbase_BTCUSD-1h.csv", "BTCUSD", exchange.Interval60m, "USD", map[string]decimal.Decimal{"USD": decimal.NewFromInt(10000)},
			strategy.Config{Name: "smacross", ID: "cb", Symbols: []string{"BTCUSD"}, Interval: "1h",
				Params: map[string]any{"fast": 20, "slow": 100, "fraction": "0.9"}}},
		{"ETH_BTC-5m.csv", "ETHBTC", exchange.Interval5m, "BTC", map[string]decimal.Decimal{"BTC": decimal.NewFromInt(2)},
			strategy.Config{Name: "smacross", ID: "eb", Symbols: []string{"ETHBTC"}, Interval: "5m",
				Params: map[string]any{"fast": 12, "slow": 48, "ma": "ema", "fraction": "0.5"}}},
		{"ETH_BTC-5m.csv", "ETHBTC", exchange.Interval5m, "BTC", map[string]decimal.Decimal{"BTC": decimal.NewFromInt(2), "ETH": decimal.NewFromInt(10)},
			strategy.Config{Name: "grid", ID: "eg", Symbols: []string{"ETHBTC"}, Interval: "5m",
				Params: map[string]any{"lower": "0.08", "upper": "0.11", "levels": 7, "quantity": "1"}}},
		{"UNITTEST_BTC-1m.csv", "UNITBTC", exchange.Interval1m, "BTC", map[string]decimal.Decimal{"BTC": decimal.NewFromInt(1)},
			strategy.Config{Name: "smacross", ID: "ub", Symbols: []string{"UNITBTC"}, Interval: "1m",
				Params: map[string]any{"fast": 10, "slow": 30, "fraction": "0.95"}}},
	}
	var lines []string
	for _, c := range cases {
		f, err := os.Open(filepath.Join(sharedData, c.file))
		if err != nil {
			t.Fatal(err)
		}
		rd, err := marketdata.ReadCSV(f, marketdata.ReadOptions{Interval: c.iv})
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		res, err := Run(t.Context(), Spec{Instances: []strategy.Config{c.inst}, Registry: strategies.NewRegistry(), Interval: c.iv,
			Data: seriesOf(t, map[string][]exchange.Kline{c.symbol: rd.Klines}), Quote: c.quote, Balances: c.balances})
		if err != nil {
			t.Fatalf("%s %s: %v", c.file, c.inst.Name, err)
		}
		m := res.Metrics
		if len(res.Stopped) > 0 {
			t.Errorf("%s %s: stopped %v", c.file, c.inst.Name, res.Stopped)
		}
		lines = append(lines, fmt.Sprintf("%s %s bars=%d fills=%d trades=%d final=%s fees=%s rejected=%v",
			c.file, c.inst.Name, m.Bars, res.Fills.Len(), m.Trades, m.EquityFinal, m.FeesPaid, m.Rejected))
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "realdata.golden")
	if *updateReal {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("results differ from %s:\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

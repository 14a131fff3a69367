package rotation_test

import (
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/strategytest"

	"github.com/spotbot/spotbot/examples/rotation/rotation"
)

const iv = exchange.Interval60m

// TestRotates runs a rotation every three hours over a two-bar lookback:
// the runtime ticks at each bar's close, so the runs fall after bars 2
// (03:00), 5 (06:00) and 8 (09:00). Market orders fill at the next bar's
// open.
func TestRotates(t *testing.T) {
	t.Parallel()
	cfg := strategy.Config{Name: rotation.Name, ID: "rot", Symbols: []string{"BTCUSDT", "ETHUSDT"}, Interval: "1h",
		Schedule: "0 */3 * * *", Params: map[string]any{"lookback": 2, "fraction": "0.5"}}
	s, err := rotation.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := strategytest.New(t, strategytest.Options{Config: cfg, Strategy: s, Balances: map[string]string{"USDT": "1000"}})
	h.Begin()
	// bar is a bar that moves straight from open to close.
	bar := func(i int, open, close string) exchange.Kline {
		hi, lo := open, close
		if decimal.RequireFromString(close).GreaterThan(decimal.RequireFromString(open)) {
			hi, lo = close, open
		}
		return strategytest.Bar(iv, i, open, hi, lo, close)
	}
	for i, step := range []struct {
		btc, eth exchange.Kline
		target   string
		want     []string
	}{
		{bar(0, "100", "100"), bar(0, "10", "10"), "", nil},
		{bar(1, "100", "100"), bar(1, "10", "10"), "", nil},
		// 03:00: BTC 100 → 110 is +10%, ETH 10 → 10 is 0: buy BTC with half the USDT.
		{bar(2, "100", "110"), bar(2, "10", "10"), "BTCUSDT", []string{"BUY MARKET BTCUSDT quote=500"}},
		// Filled at 110: 4.5454 BTC for 499.994; 500.006 USDT left.
		{bar(3, "110", "110"), bar(3, "10", "10"), "BTCUSDT", nil},
		{bar(4, "110", "110"), bar(4, "10", "11"), "BTCUSDT", nil},
		// 06:00: BTC 110 → 110 is 0, ETH 10 → 12 is +20%: sell BTC; the buy waits for the sale.
		{bar(5, "110", "110"), bar(5, "11", "12"), "ETHUSDT", []string{"SELL MARKET BTCUSDT qty=4.5454"}},
		// Sold at 108 for 490.9032: 990.9092 USDT; half of it buys ETH.
		{bar(6, "108", "108"), bar(6, "12", "12"), "ETHUSDT", []string{"BUY MARKET ETHUSDT quote=495.45"}},
		// Filled at 12: 41.2875 ETH; 495.4592 USDT left.
		{bar(7, "108", "108"), bar(7, "12", "12"), "ETHUSDT", nil},
		// 09:00: BTC 108 → 120 is +11.1%, ETH 12 → 12 is 0: back to BTC.
		{bar(8, "108", "120"), bar(8, "12", "12"), "BTCUSDT", []string{"SELL MARKET ETHUSDT qty=41.2875"}},
		// Sold at 12.5 for 516.09375: 1011.55295 USDT; half of it, 505.77, buys BTC.
		{bar(9, "120", "120"), strategytest.Flat(iv, 9, "12.5"), "BTCUSDT", []string{"BUY MARKET BTCUSDT quote=505.77"}},
		{bar(10, "121", "121"), strategytest.Flat(iv, 10, "12.5"), "BTCUSDT", nil},
	} {
		h.StepAll(strategytest.SymbolBar{Symbol: "BTCUSDT", K: step.btc}, strategytest.SymbolBar{Symbol: "ETHUSDT", K: step.eth})
		if got := h.Sent(); !slices.Equal(got, step.want) {
			t.Fatalf("bar %d: sent %q, want %q", i, got, step.want)
		}
		if got := s.(*rotation.Strategy).Target(); got != step.target {
			t.Fatalf("bar %d: target %q, want %q", i, got, step.target)
		}
	}
	// 505.77 at 121: 4.1799 BTC for 505.7679; ETH's sale realised
	// 41.2875 · (12.5 − 12) = 20.64375.
	btc, eth := h.Position("BTCUSDT"), h.Position("ETHUSDT")
	if got, want := btc.Qty.String()+" "+eth.Qty.String()+" "+eth.Realized.String(), "4.1799 0 20.64375"; got != want {
		t.Errorf("BTC qty, ETH qty, ETH realised %q, want %q", got, want)
	}
	if got, want := h.Balance("USDT")+" "+h.Balance("BTC")+" "+h.Balance("ETH"), "505.78505 4.1799 0"; got != want {
		t.Errorf("balances USDT, BTC, ETH %q, want %q", got, want)
	}
}

func TestParams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		symbols []string
		params  map[string]any
		want    string
	}{
		{[]string{"BTCUSDT", "ETHUSDT"}, map[string]any{"lookback": 0}, "params.lookback: must be at least 1"},
		{[]string{"BTCUSDT", "ETHUSDT"}, map[string]any{"fraction": "1.01"}, "params.fraction: must be in (0, 1]"},
		{[]string{"BTCUSDT", "ETHUSDT"}, map[string]any{"every": 24}, "params.every: unknown parameter"},
		{[]string{"BTCUSDT", "ETHUSDT"}, map[string]any{"schedule": "every day"}, "params.schedule: expected 5 to 6 fields, found 2: [every day]"},
		{[]string{"BTCUSDT"}, nil, "symbols: rotation needs at least two symbols"},
	} {
		_, err := rotation.New(strategy.Config{Name: rotation.Name, ID: "rot", Symbols: tc.symbols, Interval: "1h", Params: tc.params})
		if err == nil || err.Error() != tc.want {
			t.Errorf("New(%v, %v): error %v, want %q", tc.symbols, tc.params, err, tc.want)
		}
	}
}

package rsirevert_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/strategytest"

	"github.com/spotbot/spotbot/examples/rsirevert/rsirevert"
)

const iv = exchange.Interval60m

// TestTrades follows RSI(2) by hand through a dip and a rebound and checks
// every order sent and what came of it. Market orders fill at the next
// bar's open.
func TestTrades(t *testing.T) {
	t.Parallel()
	cfg := strategy.Config{Name: rsirevert.Name, ID: "rsi", Symbols: []string{"BTCUSDT"}, Interval: "1h",
		Params: map[string]any{"n": 2, "low": 30, "high": 70, "fraction": "0.5"}}
	s, err := rsirevert.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.(*rsirevert.Strategy).WarmUp(); got != 3 {
		t.Fatalf("WarmUp() = %d, want 3", got)
	}
	h := strategytest.New(t, strategytest.Options{Config: cfg, Strategy: s, Balances: map[string]string{"USDT": "1000"}})
	// Closes 100, 102, 104: two gains of 2, no loss; the averages start as
	// their means, gain 2 and loss 0, so the RSI is 100.
	h.WarmUp("BTCUSDT", strategytest.Flat(iv, 0, "100"), strategytest.Flat(iv, 1, "102"), strategytest.Flat(iv, 2, "104"))
	h.Begin()
	for _, step := range []struct {
		bar  exchange.Kline
		rsi  string
		want []string
	}{
		// −6: gain (2·1 + 0)/2 = 1, loss (0·1 + 6)/2 = 3, RSI 100·1/4 = 25 < 30: buy with half the USDT.
		{strategytest.Bar(iv, 3, "104", "104", "98", "98"), "25.000000", []string{"BUY MARKET BTCUSDT quote=500"}},
		// Filled at this open, 98: 5.1020 BTC for 499.996. −1: gain 0.5, loss 2, RSI 20: holding already.
		{strategytest.Bar(iv, 4, "98", "98", "97", "97"), "20.000000", nil},
		// +6: gain 3.25, loss 1, RSI 100·3.25/4.25 = 76.47 > 70: sell everything.
		{strategytest.Bar(iv, 5, "97", "103", "97", "103"), "76.470588", []string{"SELL MARKET BTCUSDT qty=5.102"}},
		// Filled at this open, 104: 530.608. +1: gain 2.125, loss 0.5, RSI 80.95: nothing held.
		{strategytest.Bar(iv, 6, "104", "104", "104", "104"), "80.952381", nil},
	} {
		h.Step("BTCUSDT", step.bar)
		if got := fmt.Sprintf("%.6f", s.(*rsirevert.Strategy).RSI("BTCUSDT")); got != step.rsi {
			t.Errorf("bar at %s: RSI %s, want %s", step.bar.OpenTime.Format("15:04"), got, step.rsi)
		}
		if got := h.Sent(); !slices.Equal(got, step.want) {
			t.Fatalf("bar at %s: sent %q, want %q", step.bar.OpenTime.Format("15:04"), got, step.want)
		}
	}
	p := h.Position("BTCUSDT")
	if got, want := p.Qty.String()+" "+p.Realized.String(), "0 30.612"; got != want {
		t.Errorf("position qty and realised profit %q, want %q", got, want)
	}
	if got, want := h.Balance("USDT")+" "+h.Balance("BTC"), "1030.612 0"; got != want {
		t.Errorf("balances USDT and BTC %q, want %q", got, want)
	}
}

func TestParams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"n": 1}, "params.n: must be at least 2"},
		{map[string]any{"low": 70}, "params.low: must be in (0, high)"},
		{map[string]any{"low": 0}, "params.low: must be in (0, high)"},
		{map[string]any{"high": 100}, "params.high: must be below 100"},
		{map[string]any{"fraction": 0}, "params.fraction: must be in (0, 1]"},
		{map[string]any{"lo": 20}, "params.lo: unknown parameter; did you mean low?"},
	} {
		_, err := rsirevert.New(strategy.Config{Name: rsirevert.Name, ID: "rsi", Symbols: []string{"BTCUSDT"}, Params: tc.params})
		if err == nil || err.Error() != tc.want {
			t.Errorf("New(%v): error %v, want %q", tc.params, err, tc.want)
		}
	}
}

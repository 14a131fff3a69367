package daemon

import (
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/strategies"
)

// TestPaperReplayQuoteFeesGate: paper-replay gives its risk gate the fill
// model too, so with sim.fee_asset: quote smacross's all-in quote-sized
// buy sizes down by the fee, and a fixed quantity with no room for the fee
// is refused by the gate (rule balance), as in the backtest
// (backtest/quotefee_test.go, the same bars and numbers). Flat at 100,
// then a close at 110 crosses the 2-bar average above the 3-bar one; the
// buy fills at the next open, 102: floor(1000 / 102.204) = 9.7843 BTC and
// a fee of 0.2% of 997.9986. A quantity of 9.09 at 110 is worth 999.9 but
// needs 1001.8998 with its fee.
func TestPaperReplayQuoteFeesGate(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var bars []exchange.Kline
	for h, p := range [][4]string{{"100", "100", "100", "100"}, {"100", "100", "100", "100"}, {"100", "100", "100", "100"},
		{"100", "110", "100", "110"}, {"102", "103", "101", "102"}, {"102", "102", "102", "102"}} {
		t := t0.Add(time.Duration(h) * time.Hour)
		bars = append(bars, exchange.Kline{OpenTime: t, CloseTime: t.Add(time.Hour - time.Millisecond), Open: decimal.RequireFromString(p[0]),
			High: decimal.RequireFromString(p[1]), Low: decimal.RequireFromString(p[2]), Close: decimal.RequireFromString(p[3]), Volume: decimal.NewFromInt(1)})
	}
	for _, tt := range []struct {
		params, fills string
		refused       map[string]int
	}{
		{`{fast: 2, slow: 3, fraction: 1}`, "BUY 9.7843@102 fee 1.9959972 USDT at 04:00", map[string]int{}},
		{`{fast: 2, slow: 3, quantity: 9.09}`, "", map[string]int{"balance": 1}},
	} {
		yaml := `
mode: paper-replay
data: {source: sample, interval: 1h}
account: {balances: {USDT: 1000}}
sim: {fee_asset: quote}
store: {path: unused.db}
symbols:
  - {symbol: BTCUSDT, price_decimals: 2, quantity_decimals: 4, maker_fee: 0.001, taker_fee: 0.002}
strategies:
  - {name: smacross, id: q, symbols: [BTCUSDT], interval: 1h, params: ` + tt.params + `}
`
		reg := strategies.NewRegistry()
		c, err := config.Load([]byte(yaml), nil, nil, reg)
		if err != nil {
			t.Fatal(err)
		}
		st := memStore(t)
		bot, err := New(Options{Config: c, Registry: reg, Store: st, Replay: map[string][]exchange.Kline{"BTCUSDT": bars},
			Clock: exchangetest.NewStepClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))})
		if err != nil {
			t.Fatal(err)
		}
		if err := bot.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		got, err := st.FillsSince(t.Context(), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		fills := ""
		for _, f := range got {
			fills += fmt.Sprintf("%s %s@%s fee %s %s at %s", f.Side, f.Qty, f.Price, f.Commission, f.CommissionAsset, f.Time.Format("15:04"))
		}
		if fills != tt.fills {
			t.Errorf("%s: fills %q, want %q", tt.params, fills, tt.fills)
		}
		if got := fmt.Sprint(bot.Status().Counters.OrdersRefused); got != fmt.Sprint(tt.refused) {
			t.Errorf("%s: refused %s, want %s", tt.params, got, fmt.Sprint(tt.refused))
		}
	}
}

package backtest

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/strategy"
)

// TestWriteJSONAsEncoder checks that the trades appended by hand are byte
// for byte what encoding/json wrote for the whole report: one instance and
// several, strings that need escaping (quotes, HTML characters, control
// characters, non-ASCII, invalid UTF-8), floats in both of the encoder's
// forms, no trades, and a parameter named trades.
func TestWriteJSONAsEncoder(t *testing.T) {
	t.Parallel()
	base := Report{Schema: ReportSchema, Title: `a "title" <b>`, Interval: "1m",
		Instances: []strategy.Config{{Name: "smacross", ID: "x", Params: map[string]any{"trades": []any{}, "fast": 10}}},
		Balances:  map[string]string{"BTC": "10"}, Final: map[string]string{"BTC": "9.5", "ETH": "0"}, Stopped: []string{},
		Metrics: Metrics{Trades: 3}}
	rows := []TradeRow{
		{Symbol: "ETHBTC", EntryTime: "2020-01-01T02:15:00Z", ExitTime: "2020-01-01T02:17:00Z", Qty: "99.38757694", EntryPrice: "0.05025779",
			ExitPrice: "0.05019952", Fees: "0.0099892097691974", PnL: "-0.01578057106504", ReturnPct: -0.315611, ExitReason: "signal"},
		{Instance: "b", Symbol: "A&B<C>", EntryTime: "t\"1\\", ExitTime: "\n\t\x01", Qty: "é ü € \u2028", EntryPrice: "\xff\xfe", ExitPrice: "",
			Fees: "0", PnL: "1", ReturnPct: 1e-7, ExitReason: "stop-loss"},
		{Instance: "c", Symbol: "X", ReturnPct: 1e21},
		{Symbol: "Y", ReturnPct: math.Copysign(0, -1)},
		{Symbol: "Z", ReturnPct: 123456789.125},
		{Symbol: "W", ReturnPct: -2.5e-300},
	}
	for _, c := range []struct {
		name   string
		trades []TradeRow
		locks  []LockRow
	}{
		{"one trade", rows[:1], nil},
		{"all", rows, []LockRow{{Instance: "x", Symbol: "ETHBTC", Reason: "cool<down>", From: "a", Until: "b"}}},
		{"none", []TradeRow{}, nil},
		{"nil", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := base
			r.Trades, r.Locks = c.trades, c.locks
			var got, want bytes.Buffer
			require.NoError(t, r.WriteJSON(&got))
			require.NoError(t, r.encode(&want))
			require.Equal(t, want.String(), got.String())
		})
	}
	// A NaN is refused as the encoder refuses it.
	r := base
	r.Trades = []TradeRow{{Symbol: "N", ReturnPct: math.NaN()}}
	var b bytes.Buffer
	err := r.WriteJSON(&b)
	require.EqualError(t, err, r.encode(&bytes.Buffer{}).Error())
}

package backtest

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategy"
)

// TestMillionBarReportSize: a run of 1,000,000 generated one-minute bars
// with 20,000 fills gives an interactive report of at most 10 MB (the
// price down-sampled to 4,000 candles, lines to 4,000 points).
func TestMillionBarReportSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a million bars")
	}
	const n = 1_000_000
	start := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	bars := make([]exchange.Kline, n)
	res := &Result{BuyHold: map[string][2]decimal.Decimal{}}
	for i := range bars {
		p := 20000 + 5000*math.Sin(float64(i)/5000) + float64(i%97)
		o := start.Add(time.Duration(i) * time.Minute)
		d := decimal.NewFromFloat(p).Round(2)
		bars[i] = exchange.Kline{OpenTime: o, CloseTime: o.Add(time.Minute - time.Millisecond), Open: d, High: d.Add(decimal.NewFromInt(3)),
			Low: d.Sub(decimal.NewFromInt(3)), Close: d, Volume: decimal.NewFromInt(int64(1 + i%13))}
		res.Curve.Append(o.Add(time.Minute).UnixMilli(), 10000+p/10)
	}
	res.BuyHold["BTCUSDT"] = [2]decimal.Decimal{bars[0].Close, bars[n-1].Close}
	fills := make([]Fill, 0, 20_000)
	for i := 0; i < 20_000; i++ {
		k := bars[i*n/20_000]
		fills = append(fills, Fill{Instance: "x", OwnTrade: exchange.OwnTrade{Symbol: "BTCUSDT", Price: k.Close, Qty: decimal.RequireFromString("0.01"),
			QuoteQty: k.Close.Div(decimal.NewFromInt(100)), Commission: decimal.RequireFromString("0.01"), CommissionAsset: "USDT", Time: k.CloseTime, IsBuyer: i%2 == 0}})
	}
	res.Fills = fillsOf([][]Fill{fills})
	s := Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": bars}), Registry: strategies.NewRegistry(), Interval: "1m",
		Instances: []strategy.Config{{Name: "smacross", ID: "x", Symbols: []string{"BTCUSDT"}, Interval: "1m", Params: map[string]any{"fast": 10, "slow": 30}}}}
	rep := NewReport("x (smacross)", s, res)
	var b bytes.Buffer
	if err := WriteHTML(&b, rep, s, res, HTMLOptions{Script: bytes.Repeat([]byte("x"), 200_000)}); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 10<<20 {
		t.Fatalf("report of %d bytes, over 10 MB", b.Len())
	}
	t.Logf("report of a million bars: %.2f MB", float64(b.Len())/(1<<20))
}

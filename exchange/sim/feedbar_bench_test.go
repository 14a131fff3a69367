package sim

import (
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

// BenchmarkFeedBar is the simulator's share of a backtest bar with no
// order waiting: FeedBar of one-minute bars on a single-driver exchange
// keeping one kline, as a replay feeds them (bars/s, ns/bar). The bars, a
// random walk of distinct prices generated here, are fed to a new
// exchange each round.
func BenchmarkFeedBar(b *testing.B) {
	const n = 100_000
	bars := make([]exchange.FixedKline, n)
	px, seed := int64(2_000_000), uint64(42)
	for i := range bars {
		seed = seed*6364136223846793005 + 1442695040888963407
		px += int64(seed>>59) - 16
		open := exchangetest.T0.Add(time.Duration(i+1) * time.Minute)
		bars[i] = exchange.FixedKline{OpenTime: open, CloseTime: open.Add(time.Minute - time.Millisecond),
			Open: exchange.NewFixed(px, -2), High: exchange.NewFixed(px+40, -2), Low: exchange.NewFixed(px-30, -2),
			Close: exchange.NewFixed(px+5, -2), Volume: exchange.NewFixed(int64(1000+i%977), -3)}
	}
	b.ReportAllocs()
	for b.Loop() {
		x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), KlineRetention: 1, SingleDriver: true})
		if err != nil {
			b.Fatal(err)
		}
		for i := range bars {
			if err := x.FeedBar("BTCUSDT", exchange.Interval1m, &bars[i]); err != nil {
				b.Fatal(err)
			}
		}
		if want := bars[n-1].OpenTime.Add(time.Minute); x.now != want || !x.nowFast || !x.markets["BTCUSDT"].heldFast {
			b.Fatalf("clock %s, want %s, on its integer shadow (%v, the held bar's %v)", x.now, want, x.nowFast, x.markets["BTCUSDT"].heldFast)
		}
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(n)*float64(b.N)/secs, "bars/s")
	b.ReportMetric(secs*1e9/(float64(n)*float64(b.N)), "ns/bar")
}

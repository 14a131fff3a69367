package simserver

import (
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

// BenchmarkClientNewOrder sends signed new-order requests from the REST
// client to the server over loopback, both in this process. Each order is
// an IMMEDIATE_OR_CANCEL bid below the market: validated, booked, matched
// and cancelled, so the book stays empty. Target: ≥ 5,000 requests/s.
func BenchmarkClientNewOrder(b *testing.B) {
	sv := serve(b, sim.Options{MarketFill: sim.Immediate}, Options{Limits: Limits{Off: true}})
	if err := sv.x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")); err != nil {
		b.Fatal(err)
	}
	if err := sv.x.Credit(sv.uids[0], "USDT", dec("1000000000")); err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	o := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeImmediateOrCancel, Quantity: dec("0.01"), Price: dec("19000")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sv.master.Spot.NewOrder(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

func benchExchange(b *testing.B) (*Exchange, *Port) {
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), MarketFill: Immediate})
	if err != nil {
		b.Fatal(err)
	}
	if err := x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")); err != nil {
		b.Fatal(err)
	}
	x.Credit(x.MasterUID(), "USDT", decimal.NewFromInt(1_000_000_000))
	x.Credit(x.MasterUID(), "BTC", decimal.NewFromInt(1_000_000))
	return x, x.Master()
}

// BenchmarkPlaceCancel places and cancels a resting limit order. Target:
// ≤ 1 µs per pair.
func BenchmarkPlaceCancel(b *testing.B) {
	x, p := benchExchange(b)
	ctx := context.Background()
	o := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.01"), Price: decimal.RequireFromString("19000")}
	var events []exchange.OrderEvent
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		ack, err := p.PlaceOrder(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrderID: ack.OrderID}); err != nil {
			b.Fatal(err)
		}
		events = p.DrainEvents(events[:0])
		if n++; n%4096 == 0 {
			forgetOrders(b, x)
		}
	}
}

// forgetOrders keeps the history from growing without bound, outside the
// timer: the place-and-cancel benchmarks measure placing and cancelling,
// not the heap of finished orders (allOrders serves only the last 7 days
// anyway).
func forgetOrders(b *testing.B, x *Exchange) {
	b.StopTimer()
	x.mu.Lock()
	for _, a := range x.accounts {
		a.history = a.history[:0]
	}
	x.mu.Unlock()
	b.StartTimer()
}

// BenchmarkPlaceCancelMixed is the general case of BenchmarkPlaceCancel:
// orders of two symbols in turn (a BTCUSDT buy, an XYZUSDT sell), each
// with a client order id (kept in the open-orders map) and an STP mode,
// from an account in an STP group, cancelled by their client order id.
func BenchmarkPlaceCancelMixed(b *testing.B) {
	x, p := benchExchange(b)
	if err := x.FeedKline("XYZUSDT", exchange.Interval1m, exchangetest.Bar(0, "0.5", "0.5", "0.5", "0.5")); err != nil {
		b.Fatal(err)
	}
	x.Credit(x.MasterUID(), "XYZ", decimal.NewFromInt(1_000_000_000))
	g, err := x.CreateSTPGroup("bench")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := x.AddSTPGroupUIDs(g.ID, []string{x.MasterUID()}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	orders := [2]exchange.NewOrder{
		{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: decimal.RequireFromString("0.01"),
			Price: decimal.RequireFromString("19000"), STPMode: exchange.STPCancelMaker},
		{Symbol: "XYZUSDT", Side: exchange.SideSell, Type: exchange.TypeLimit, Quantity: decimal.RequireFromString("100"),
			Price: decimal.RequireFromString("0.6"), STPMode: exchange.STPCancelBoth},
	}
	// Client ids are made before timing: an id is free again once its
	// order is cancelled.
	ids := make([]string, 64)
	for i := range ids {
		ids[i] = fmt.Sprintf("mixed-%d", i)
	}
	var events []exchange.OrderEvent
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		o := orders[n%2]
		o.NewClientOrderID = ids[n%len(ids)]
		if _, err := p.PlaceOrder(ctx, o); err != nil {
			b.Fatal(err)
		}
		if _, err := p.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: o.Symbol, OrigClientOrderID: o.NewClientOrderID}); err != nil {
			b.Fatal(err)
		}
		events = p.DrainEvents(events[:0])
		if len(events) != 2 || events[1].Order.Status != exchange.StatusCanceled {
			b.Fatalf("events %+v", events)
		}
		if n++; n%4096 == 0 {
			forgetOrders(b, x)
		}
	}
}

// BenchmarkKlineNoFill advances one kline past 1,000 resting orders of
// which none fill. Target: ≤ 300 ns, 0 allocations.
func BenchmarkKlineNoFill(b *testing.B) {
	x, p := benchExchange(b)
	ctx := context.Background()
	for i := 0; i < 500; i++ {
		buy := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: decimal.RequireFromString("0.01"),
			Price: decimal.NewFromInt(int64(18000 + i))}
		sell := buy
		sell.Side, sell.Price = exchange.SideSell, decimal.NewFromInt(int64(21000+i))
		if _, err := p.PlaceOrder(ctx, buy); err != nil {
			b.Fatal(err)
		}
		if _, err := p.PlaceOrder(ctx, sell); err != nil {
			b.Fatal(err)
		}
	}
	m := x.markets["BTCUSDT"]
	k := exchangetest.Bar(1, "20000", "20500", "19500", "20100")
	b.ReportAllocs()
	for b.Loop() {
		x.fillResting(m, k)
	}
	if len(m.bids) != 500 || len(m.asks) != 500 {
		b.Fatalf("orders filled: %d bids %d asks", len(m.bids), len(m.asks))
	}
}

// BenchmarkSweep10Levels places a market buy that takes 10 price levels of
// resting sells. Target: ≤ 10 µs.
func BenchmarkSweep10Levels(b *testing.B) {
	x, taker := benchExchange(b)
	maker := x.As(x.CreateAccount("maker"))
	x.Credit(maker.UID(), "BTC", decimal.NewFromInt(1_000_000))
	// Each sweep spends about 2,000 USDT: enough for any run's length.
	x.Credit(x.MasterUID(), "USDT", decimal.NewFromInt(1_000_000_000_000))
	ctx := context.Background()
	qty := decimal.RequireFromString("0.01")
	levels := make([]exchange.NewOrder, 10)
	for i := range levels {
		levels[i] = exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideSell, Type: exchange.TypeLimit, Quantity: qty,
			Price: decimal.NewFromInt(int64(20100 + 10*i))}
	}
	sweep := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: decimal.RequireFromString("0.1"),
		Price: decimal.NewFromInt(20190)}
	var ev []exchange.OrderEvent
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		// Each sweep leaves the last price at its last fill (20190), which
		// the next round's sells would cross: they would fill at once
		// against the bar-driven market instead of resting, and the sweep
		// would take the bar-driven market in one fill.
		if err := x.SetLastPrice("BTCUSDT", decimal.NewFromInt(20000)); err != nil {
			b.Fatal(err)
		}
		for _, l := range levels {
			if _, err := maker.PlaceOrder(ctx, l); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if _, err := taker.PlaceOrder(ctx, sweep); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		ev = maker.DrainEvents(ev[:0])
		if len(ev) != 2*len(levels) { // each level: NEW, then FILLED by the sweep
			b.Fatalf("%d maker events, want %d", len(ev), 2*len(levels))
		}
		ev = taker.DrainEvents(ev[:0])
		if len(ev) != 1 || len(ev[0].Trades) != len(levels) {
			b.Fatalf("taker events %+v", ev)
		}
		x.mu.Lock()
		if n := len(x.markets["BTCUSDT"].asks); n != 0 {
			b.Fatal(fmt.Sprintf("%d asks left", n))
		}
		// Keep the account histories from growing without bound.
		for _, a := range x.accounts {
			a.history, a.trades = a.history[:0], a.trades[:0]
		}
		x.mu.Unlock()
		b.StartTimer()
	}
	_ = time.Second
}

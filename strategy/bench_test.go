package strategy

import (
	"context"
	"strconv"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/risk"
)

// benchEvents is a fakeTrader reporting fills as events, as the simulator
// does, with the hint that nothing is queued.
type benchEvents struct {
	*fakeTrader
	queue []exchange.OrderEvent
}

func (e *benchEvents) DrainEvents(dst []exchange.OrderEvent) []exchange.OrderEvent {
	dst = append(dst, e.queue...)
	e.queue = e.queue[:0]
	return dst
}

func (e *benchEvents) MayHaveEvents() bool { return len(e.queue) > 0 }

// BenchmarkOrderLifecycle is the runtime's part of one order's life in a
// backtest: placed through the risk gate, recorded in a MemoryJournal,
// filled in one trade reported as an event, and applied to the position
// by Sync, alternating buys and sells.
func BenchmarkOrderLifecycle(b *testing.B) {
	j := NewMemoryJournal()
	et := &benchEvents{fakeTrader: newFakeTrader(newMemJournal())}
	g, _ := risk.New(risk.Limits{})
	rt, err := New(Options{Trader: et, Events: et, Gate: g, Journal: j, Clock: &testClock{t: t0}})
	if err != nil {
		b.Fatal(err)
	}
	if err := rt.Add(Config{Name: "t", ID: "b", Symbols: []string{"BTCUSDT"}, Interval: "1m"}, &countingStrategy{}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := rt.Start(ctx); err != nil {
		b.Fatal(err)
	}
	in := rt.insts[0]
	price, qty, fee := d("29876.54"), d("0.0347"), d("0.0000347")
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		side, feeAsset := exchange.SideBuy, "BTC"
		if n%2 == 1 {
			side, feeAsset = exchange.SideSell, "USDT"
		}
		o, err := in.Place(exchange.NewOrder{Symbol: "BTCUSDT", Side: side, Type: exchange.TypeLimit, Price: price, Quantity: qty})
		if err != nil {
			b.Fatal(err)
		}
		n++
		et.queue = append(et.queue, exchange.OrderEvent{
			Order: exchange.Order{Symbol: "BTCUSDT", OrderID: o.OrderID, ClientOrderID: o.ClientOrderID, Status: exchange.StatusFilled,
				ExecutedQty: qty, Side: side},
			Trades: []exchange.OwnTrade{{Symbol: "BTCUSDT", ID: strconv.Itoa(n), OrderID: o.OrderID, Price: price, Qty: qty,
				Commission: fee, CommissionAsset: feeAsset, IsBuyer: side == exchange.SideBuy}},
		})
		if err := rt.Sync(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if st := rt.Stats(); st.Fills != n || len(rt.OpenOrders()) != 0 {
		b.Fatalf("fills %d of %d orders, open %d", st.Fills, n, len(rt.OpenOrders()))
	}
}

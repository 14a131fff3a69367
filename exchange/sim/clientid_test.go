package sim

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

// A user's client order id of the generated form (sim-<n>) must not be
// shared with the id the simulator later generates for order n. Before, a
// user's "sim-3" placed as order 1 and the generated "sim-3" of order 3
// were both open, and the id found only one of them.
func TestGeneratedClientIDNeverCollides(t *testing.T) {
	t.Parallel()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), MarketFill: Immediate})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000"))
	x.Credit(x.MasterUID(), "USDT", dec("10000"))
	p := x.Master()
	place := func(id string) exchange.OrderAck {
		t.Helper()
		ack, err := p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
			Quantity: dec("0.01"), Price: dec("19000"), NewClientOrderID: id})
		if err != nil {
			t.Fatalf("place %q: %v", id, err)
		}
		return ack
	}
	// Orders 1 and 2 take the ids orders 3 and 4 would be given.
	place("sim-3")
	place("sim-4")
	if ack := place(""); ack.OrderID != "3" || ack.ClientOrderID != "sim-3-1" {
		t.Errorf("order 3: id %s, client id %s, want 3, sim-3-1", ack.OrderID, ack.ClientOrderID)
	}
	// sim-3-1 is taken now, by order 3.
	if _, err := p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: dec("0.01"), Price: dec("19000"), NewClientOrderID: "sim-3-1"}); !exchange.HasCode(err, exchange.CodeParameterError) {
		t.Errorf("a user's sim-3-1 beside the generated one: %v", err)
	}
	if ack := place(""); ack.OrderID != "4" || ack.ClientOrderID != "sim-4-1" {
		t.Errorf("order 4: id %s, client id %s, want 4, sim-4-1", ack.OrderID, ack.ClientOrderID)
	}
	if ack := place(""); ack.OrderID != "5" || ack.ClientOrderID != "sim-5" {
		t.Errorf("order 5: id %s, client id %s, want 5, sim-5", ack.OrderID, ack.ClientOrderID)
	}
	open, err := p.OpenOrders(ctx, "BTCUSDT")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, o := range open {
		ids = append(ids, o.ClientOrderID+"="+o.OrderID)
	}
	sort.Strings(ids)
	if got := fmt.Sprint(ids); got != "[sim-3-1=3 sim-3=1 sim-4-1=4 sim-4=2 sim-5=5]" {
		t.Errorf("open orders %s", got)
	}
	// Each id finds its own order, and cancelling by it cancels that one.
	for _, want := range []struct{ id, order string }{{"sim-3", "1"}, {"sim-3-1", "3"}, {"sim-5", "5"}} {
		o, err := p.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: want.id})
		if err != nil || o.OrderID != want.order {
			t.Errorf("query %s: order %s %v, want %s", want.id, o.OrderID, err, want.order)
		}
	}
	c, err := p.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: "sim-3-1"})
	if err != nil || c.OrderID != "3" {
		t.Errorf("cancel sim-3-1: order %s %v, want 3", c.OrderID, err)
	}
}

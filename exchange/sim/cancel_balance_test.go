package sim

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

// Cancelling restores the balance exactly whether or not something else
// touched it after the order was booked.
func TestCancelRestoresBalances(t *testing.T) {
	t.Parallel()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")); err != nil {
		t.Fatal(err)
	}
	if err := x.Credit(x.MasterUID(), "USDT", decimal.RequireFromString("1000.50")); err != nil {
		t.Fatal(err)
	}
	p, ctx := x.Master(), t.Context()
	usdt := func() string {
		a, err := p.Account(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b := a.Balance("USDT")
		return b.Free.String() + "/" + b.Locked.String()
	}
	buy := func(price string) string {
		ack, err := p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
			Quantity: decimal.RequireFromString("0.01"), Price: decimal.RequireFromString(price)})
		if err != nil {
			t.Fatal(err)
		}
		return ack.OrderID
	}
	cancel := func(id string) {
		if _, err := p.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrderID: id}); err != nil {
			t.Fatal(err)
		}
	}
	a := buy("19000") // locks 190
	if got := usdt(); got != "810.5/190" {
		t.Fatalf("after a: %s", got)
	}
	cancel(a) // untouched since
	if got := usdt(); got != "1000.5/0" {
		t.Errorf("after cancelling a: %s", got)
	}
	b := buy("19000")
	c := buy("18000.5") // locks 180.005; b's balance is touched
	cancel(b)
	if got := usdt(); got != "820.495/180.005" {
		t.Errorf("after cancelling b: %s", got)
	}
	cancel(c) // touched by b's cancel since
	if got := usdt(); got != "1000.5/0" {
		t.Errorf("after cancelling c: %s", got)
	}
}

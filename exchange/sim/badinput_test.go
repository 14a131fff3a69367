package sim

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

// stateDigest renders what a refusal must leave untouched: every account's
// balances and open orders, the books, the STP groups and the id counters.
func stateDigest(t *testing.T, x *Exchange, uids ...string) string {
	t.Helper()
	var b strings.Builder
	for _, u := range uids {
		a, err := x.As(u).Account(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:", u)
		for _, bl := range a.Balances {
			fmt.Fprintf(&b, " %s %s/%s", bl.Asset, bl.Free, bl.Locked)
		}
		open, _ := x.As(u).OpenOrders(context.Background(), "")
		for _, o := range open {
			fmt.Fprintf(&b, " [%s %s %s@%s %s]", o.OrderID, o.Side, o.OrigQty, o.Price, o.Status)
		}
		b.WriteString("\n")
	}
	x.mu.Lock()
	fmt.Fprintf(&b, "groups %s orders %d trades %d\n", x.groupNames(), x.orderSeq, x.tradeSeq)
	x.mu.Unlock()
	for _, s := range []string{"BTCUSDT", "XYZUSDT"} {
		book, err := x.Depth(s, 100)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d %v %v\n", s, book.LastUpdateID, book.Bids, book.Asks)
	}
	return b.String()
}

// TestBadInputChangesNoState refuses bad requests with the live service's
// codes and checks balances, books, groups and counters after each.
func TestBadInputChangesNoState(t *testing.T) {
	t.Parallel()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), MarketFill: Immediate})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")); err != nil {
		t.Fatal(err)
	}
	other := x.CreateAccount("other")
	for _, u := range []string{x.MasterUID(), other} {
		x.Credit(u, "USDT", dec("10000"))
		x.Credit(u, "BTC", dec("1"))
	}
	p := x.Master()
	resting, err := p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: dec("0.1"), Price: dec("19000")})
	if err != nil {
		t.Fatal(err)
	}
	done, err := p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideSell, Type: exchange.TypeLimit, Quantity: dec("0.1"), Price: dec("21000")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrderID: done.OrderID}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.CreateSTPGroup("desk"); err != nil {
		t.Fatal(err)
	}
	order := func(mut func(*exchange.NewOrder)) error {
		o := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: dec("0.1"), Price: dec("19500")}
		mut(&o)
		_, err := p.PlaceOrder(ctx, o)
		return err
	}
	tests := []struct {
		name string
		do   func() error
		code int
	}{
		{"negative quantity", func() error { return order(func(o *exchange.NewOrder) { o.Quantity = dec("-0.1") }) }, exchange.CodeParameterError},
		{"zero quantity", func() error { return order(func(o *exchange.NewOrder) { o.Quantity = dec("0") }) }, exchange.CodeParameterNull},
		{"zero price", func() error { return order(func(o *exchange.NewOrder) { o.Price = dec("0") }) }, exchange.CodeParameterNull},
		{"negative quote amount", func() error {
			return order(func(o *exchange.NewOrder) {
				o.Type, o.Price, o.Quantity, o.QuoteOrderQty = exchange.TypeMarket, dec("0"), dec("0"), dec("-5")
			})
		}, exchange.CodeParameterError},
		{"too many decimals in the quantity", func() error { return order(func(o *exchange.NewOrder) { o.Quantity = dec("0.00001") }) }, exchange.CodeParameterError},
		{"too many decimals in the price", func() error { return order(func(o *exchange.NewOrder) { o.Price = dec("19500.001") }) }, exchange.CodeParameterError},
		{"unknown symbol", func() error { return order(func(o *exchange.NewOrder) { o.Symbol = "NOPEUSDT" }) }, exchange.CodeBadSymbol},
		{"test order above the balance", func() error {
			return p.TestOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: dec("1"), Price: dec("19500")})
		}, exchange.CodeInsufficientPosition},
		{"batch of another symbol", func() error {
			_, err := p.PlaceBatch(ctx, []exchange.NewOrder{
				{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: dec("0.1"), Price: dec("19500")},
				{Symbol: "XYZUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: dec("20"), Price: dec("0.4")}})
			return err
		}, exchange.CodeParameterError},
		{"cancel of a final order", func() error {
			_, err := p.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrderID: done.OrderID})
			return err
		}, exchange.CodeUnknownOrder},
		{"cancel in another symbol", func() error {
			_, err := p.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "XYZUSDT", OrderID: resting.OrderID})
			return err
		}, exchange.CodeUnknownOrder},
		{"cancel without an id", func() error {
			_, err := p.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT"})
			return err
		}, exchange.CodeOrderIDMissing},
		{"second STP group with a taken name", func() error { _, err := x.CreateSTPGroup("desk"); return err }, exchange.CodeUserNameExists},
		{"STP member that does not exist", func() error { _, err := x.AddSTPGroupUIDs("1", []string{"999"}); return err }, exchange.CodeUserNotExist},
		{"debit beyond the balance", func() error { return x.Credit(other, "BTC", dec("-2")) }, exchange.CodeInsufficientBalance},
	}
	for _, tt := range tests {
		before := stateDigest(t, x, x.MasterUID(), other)
		err := tt.do()
		if !exchange.HasCode(err, tt.code) {
			t.Errorf("%s: %v, want code %d", tt.name, err, tt.code)
		}
		if after := stateDigest(t, x, x.MasterUID(), other); after != before {
			t.Errorf("%s changed the state:\n%s\nwas\n%s", tt.name, after, before)
		}
	}
}

// TestRateBudgetsInSimulatedTime shows a backtest the throttling a live
// bot would see: the order pool (12/s) and the account pool (2/s) refuse
// requests beyond them until simulated time moves on.
func TestRateBudgetsInSimulatedTime(t *testing.T) {
	t.Parallel()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), MarketFill: Immediate, RateLimits: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000"))
	x.Credit(x.MasterUID(), "USDT", dec("100000"))
	p := x.Master()
	o := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: dec("0.01"), Price: dec("19000")}
	for i := range 12 {
		if _, err := p.PlaceOrder(ctx, o); err != nil {
			t.Fatalf("order %d: %v", i+1, err)
		}
	}
	_, err = p.PlaceOrder(ctx, o)
	var rl *exchange.RateLimitError
	if !errors.As(err, &rl) || rl.Pool != exchange.PoolOrder || rl.RetryAfter != time.Second {
		t.Fatalf("13th order in one second: %v", err)
	}
	if _, err := p.CancelOpenOrders(ctx, "BTCUSDT"); !errors.As(err, &rl) || rl.Pool != exchange.PoolOrder {
		t.Errorf("cancels share the order pool: %v", err)
	}
	for i := range 2 {
		if _, err := p.Account(ctx); err != nil {
			t.Fatalf("account %d: %v", i+1, err)
		}
	}
	if _, err := p.Account(ctx); !errors.As(err, &rl) || rl.Pool != exchange.PoolAccount {
		t.Errorf("third account request in one second: %v", err)
	}
	x.Advance(time.Second)
	if _, err := p.PlaceOrder(ctx, o); err != nil {
		t.Errorf("a second later: %v", err)
	}
	if _, err := p.Account(ctx); err != nil {
		t.Errorf("account a second later: %v", err)
	}
	// Without RateLimits nothing is throttled.
	free, _ := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
	for i := range 5 {
		if _, err := free.Master().Account(ctx); err != nil {
			t.Fatalf("unthrottled account %d: %v", i+1, err)
		}
	}
}

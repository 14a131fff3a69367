package sim

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

// An account exported, through JSON, and imported into a new exchange has
// the same balances and open orders; its orders then fill and cancel as
// before, and new orders and trades take ids after the old ones.
func TestExportImportAccount(t *testing.T) {
	t.Parallel()
	newX := func() *Exchange {
		x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
		if err != nil {
			t.Fatal(err)
		}
		if err := x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")); err != nil {
			t.Fatal(err)
		}
		return x
	}
	dec := decimal.RequireFromString
	x := newX()
	ctx := t.Context()
	for asset, n := range map[string]string{"USDT": "1000", "BTC": "0.05"} {
		if err := x.Credit(x.MasterUID(), asset, dec(n)); err != nil {
			t.Fatal(err)
		}
	}
	p := x.Master()
	place := func(p *Port, side exchange.Side, price, qty, cid string) string {
		ack, err := p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: side, Type: exchange.TypeLimit,
			Quantity: dec(qty), Price: dec(price), NewClientOrderID: cid})
		if err != nil {
			t.Fatal(err)
		}
		return ack.OrderID
	}
	place(p, exchange.SideBuy, "19000", "0.01", "a")  // 1: locks 190
	place(p, exchange.SideSell, "21000", "0.02", "")  // 2: sim-2, locks 0.02 BTC
	place(p, exchange.SideBuy, "20000", "0.005", "c") // 3: crosses the last price, fills
	sell := place(p, exchange.SideSell, "19500", "0.01", "d")
	if sell != "4" {
		t.Fatalf("order id %s", sell)
	}
	state := func(p *Port) string {
		a, err := p.Account(ctx)
		if err != nil {
			t.Fatal(err)
		}
		open, err := p.OpenOrders(ctx, "BTCUSDT")
		if err != nil {
			t.Fatal(err)
		}
		s := ""
		for _, b := range a.Balances {
			s += fmt.Sprintf("%s %s/%s; ", b.Asset, b.Free, b.Locked)
		}
		for _, o := range open {
			s += fmt.Sprintf("%s %s %s %s %s@%s exec %s; ", o.OrderID, o.ClientOrderID, o.Status, o.Side, o.OrigQty, o.Price, o.ExecutedQty)
		}
		return s
	}
	// c and d fill at the next bar's open: trades 1 and 2.
	if err := x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(1, "20000", "20000", "19950", "20000")); err != nil {
		t.Fatal(err)
	}
	before := state(p)
	if want := "BTC 0.02499/0.02; USDT 909.6/190; 1 a NEW BUY 0.01@19000 exec 0; 2 sim-2 NEW SELL 0.02@21000 exec 0; "; before != want {
		t.Fatalf("before the export: %s, want %s", before, want)
	}
	st, err := x.ExportAccount(x.MasterUID())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back AccountState
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	y := newX()
	if err := y.Credit(y.MasterUID(), "USDT", dec("5")); err != nil { // replaced by the import
		t.Fatal(err)
	}
	if err := y.ImportAccount(y.MasterUID(), back); err != nil {
		t.Fatal(err)
	}
	q := y.Master()
	if after := state(q); after != before {
		t.Fatalf("imported\n%s\nexported\n%s", after, before)
	}
	if err := y.ImportAccount(y.MasterUID(), back); err == nil || err.Error() != "sim: importing into an account that has orders" {
		t.Errorf("second import: %v", err)
	}
	// The restored buy at 19000 fills on a bar reaching it; the trade and
	// a new order take the next ids.
	if err := y.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(2, "20000", "20000", "18900", "19000")); err != nil {
		t.Fatal(err)
	}
	if id := place(q, exchange.SideBuy, "18000", "0.001", "e"); id != "5" {
		t.Errorf("new order id %s, want 5", id)
	}
	trades, err := q.MyTrades(ctx, exchange.MyTradesRequest{Symbol: "BTCUSDT"})
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, tr := range trades {
		got += fmt.Sprintf("%s %s %s@%s; ", tr.ID, tr.OrderID, tr.Qty, tr.Price)
	}
	if want := "3 1 0.01@19000; "; got != want {
		t.Errorf("trades after the import %s, want %s", got, want)
	}
	if got, want := state(q), "BTC 0.03498/0.02; USDT 891.6/18; 2 sim-2 NEW SELL 0.02@21000 exec 0; 5 e NEW BUY 0.001@18000 exec 0; "; got != want {
		t.Errorf("after the fill: %s, want %s", got, want)
	}
	if _, err := q.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: "sim-2"}); err != nil {
		t.Fatal(err)
	}
	if got, want := state(q), "BTC 0.05498/0; USDT 891.6/18; 5 e NEW BUY 0.001@18000 exec 0; "; got != want {
		t.Errorf("after cancelling sim-2: %s, want %s", got, want)
	}
}

// An order the exchange could not have exported (a type, side, STP mode or
// status it does not know, a time in force not its type's, a stop price,
// an id twice) is refused by name, and the account is left as it was.
func TestImportRefusesForeignOrders(t *testing.T) {
	t.Parallel()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")); err != nil {
		t.Fatal(err)
	}
	if err := x.Credit(x.MasterUID(), "USDT", decimal.NewFromInt(1000)); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Master().PlaceOrder(t.Context(), exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.01"), Price: decimal.RequireFromString("19000")}); err != nil {
		t.Fatal(err)
	}
	good, err := x.ExportAccount(x.MasterUID())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		change func(o *exchange.Order)
		want   string
	}{
		{"type", func(o *exchange.Order) { o.Type = "STOP_LOSS" }, `sim: order 1: order type "STOP_LOSS" is not one the exchange knows`},
		{"side", func(o *exchange.Order) { o.Side = "HOLD" }, `sim: order 1: order side "HOLD" is not BUY or SELL`},
		{"stp", func(o *exchange.Order) { o.STPMode = "expire_maker" }, `sim: order 1: STP mode "expire_maker" is not one the exchange knows`},
		{"status", func(o *exchange.Order) { o.Status = "PENDING" }, `sim: order 1: order status "PENDING" is not one the exchange knows`},
		{"time in force", func(o *exchange.Order) { o.TimeInForce = "IOC" },
			"sim: order 1 is not an open order as the exchange exports them (stop price, iceberg, order list, time in force or working flag)"},
		{"stop price", func(o *exchange.Order) { o.StopPrice = decimal.NewFromInt(18000) },
			"sim: order 1 is not an open order as the exchange exports them (stop price, iceberg, order list, time in force or working flag)"},
	} {
		st := good
		st.Orders = append([]OpenOrderState(nil), good.Orders...)
		c.change(&st.Orders[0].Order)
		y, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
		if err != nil {
			t.Fatal(err)
		}
		if err := y.Credit(y.MasterUID(), "USDT", decimal.NewFromInt(5)); err != nil {
			t.Fatal(err)
		}
		if err := y.ImportAccount(y.MasterUID(), st); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
		a, err := y.Master().Account(t.Context())
		if err != nil || len(a.Balances) != 1 || a.Balances[0].Free.String() != "5" {
			t.Errorf("%s: the account changed: %+v %v", c.name, a, err)
		}
	}
	twice := good
	twice.Orders = []OpenOrderState{good.Orders[0], good.Orders[0]}
	if err := func() error {
		y, _ := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
		return y.ImportAccount(y.MasterUID(), twice)
	}(); err == nil || err.Error() != "sim: order id 1 appears twice" {
		t.Errorf("one order twice: %v", err)
	}
	if err := func() error {
		y, _ := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
		return y.ImportAccount(y.MasterUID(), good)
	}(); err != nil {
		t.Errorf("the exported state: %v", err)
	}
}

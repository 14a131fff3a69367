package strategy

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/risk"
)

// TestCompactBalancesMatchAccount runs the runtime on the simulator's
// compact balance read and checks, after funding, an order that locks
// funds, a fill and an amount too wide for an int64, that every balance an
// instance reads and every one Balances lists has the very coefficient
// and exponent the simulator's AppendBalances gives.
func TestCompactBalancesMatchAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	info := exchange.SymbolInfo{Symbol: "ETHBTC", Status: exchange.SymbolOnline, BaseAsset: "ETH", QuoteAsset: "BTC",
		BaseAssetPrecision: 6, QuotePrecision: 6, QuoteAssetPrecision: 6, BaseCommissionPrecision: 8, QuoteCommissionPrecision: 8,
		IsSpotTradingAllowed: true, TradeSideType: exchange.TradeSideAll,
		OrderTypes:      []exchange.OrderType{exchange.TypeLimit, exchange.TypeMarket},
		MakerCommission: d("0.001"), TakerCommission: d("0.001"), Permissions: []string{"SPOT"}}
	x, err := sim.New(sim.Options{Start: t0, Symbols: []exchange.SymbolInfo{info}, SingleDriver: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Credit(x.MasterUID(), "BTC", d("10.5")); err != nil {
		t.Fatal(err)
	}
	port := x.Master()
	g, _ := risk.New(risk.Limits{})
	rt, err := New(Options{Trader: port, Events: port, Balances: port, Gate: g, Journal: NewMemoryJournal(), Clock: &testClock{t: t0}})
	if err != nil {
		t.Fatal(err)
	}
	if rt.compact == nil {
		t.Fatal("the simulator's port is not read as compact balances")
	}
	if err := rt.Add(Config{Name: "t", ID: "b", Symbols: []string{"ETHBTC"}, Interval: "1m"}, &recorder{}); err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(ctx); err != nil {
		t.Fatal(err)
	}
	in := rt.insts[0]
	check := func(step string) {
		t.Helper()
		want, err := port.AppendBalances(nil)
		if err != nil {
			t.Fatal(err)
		}
		// FreeFixed first: after a credit it is the read that refreshes.
		for _, w := range append(want, exchange.Balance{Asset: "BNB"}) {
			wf, fits := exchange.FixedOf(w.Free)
			if got, ok := in.FreeFixed(w.Asset); ok != fits || ok && got != wf {
				t.Errorf("%s: %s FreeFixed %v %v, want %v %v", step, w.Asset, got, ok, wf, fits)
			}
		}
		for _, w := range append(want, exchange.Balance{Asset: "BNB"}) {
			got := in.Balance(w.Asset)
			if got.Asset != w.Asset || !sameDecimal(got.Free, w.Free) || !sameDecimal(got.Locked, w.Locked) || !sameDecimal(got.Available, w.Available) {
				t.Errorf("%s: %s balance %+v, want %+v", step, w.Asset, got, w)
			}
		}
		all := rt.Balances()
		if len(all) != len(want) {
			t.Fatalf("%s: Balances lists %d, want %d", step, len(all), len(want))
		}
		for i := range want {
			if all[i].Asset != want[i].Asset || !sameDecimal(all[i].Free, want[i].Free) || !sameDecimal(all[i].Locked, want[i].Locked) {
				t.Errorf("%s: Balances[%d] %+v, want %+v", step, i, all[i], want[i])
			}
		}
	}
	check("funded")
	bar := exchange.Kline{OpenTime: t0, CloseTime: t0.Add(59_999_000_000), Open: d("0.05"), High: d("0.051"), Low: d("0.049"), Close: d("0.0503"), Volume: d("100")}
	if err := x.FeedKline("ETHBTC", exchange.Interval1m, bar); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Place(exchange.NewOrder{Symbol: "ETHBTC", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Price: d("0.049"), Quantity: d("3.5")}); err != nil {
		t.Fatal(err)
	}
	check("order resting")
	if _, err := in.Place(exchange.NewOrder{Symbol: "ETHBTC", Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: d("1.25")}); err != nil {
		t.Fatal(err)
	}
	check("market order waiting")
	next := bar
	next.OpenTime, next.CloseTime = bar.OpenTime.Add(60_000_000_000), bar.CloseTime.Add(60_000_000_000)
	if err := x.FeedKline("ETHBTC", exchange.Interval1m, next); err != nil {
		t.Fatal(err)
	}
	if err := rt.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	check("filled")
	if eth := in.Balance("ETH").Free; !eth.IsPositive() {
		t.Fatalf("ETH %s after the market buy: nothing filled", eth)
	}
	if err := x.Credit(x.MasterUID(), "ETH", decimal.RequireFromString("123456789012345678901.123456789")); err != nil {
		t.Fatal(err)
	}
	rt.stale = true // a credit is no order event: the runtime is told as an operator's deposit would tell it
	check("wide")
	if _, fits := exchange.FixedOf(in.Balance("ETH").Free); fits {
		t.Error("the ETH balance fits an int64: the wide case is not reached")
	}
	if f, ok := in.FreeFixed("BTC"); !ok || f.Coef <= 0 {
		t.Errorf("BTC FreeFixed %v %v after the fill", f, ok)
	}
}

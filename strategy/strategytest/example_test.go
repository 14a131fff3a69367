package strategytest_test

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/strategytest"
)

// buyTheDip is a strategy of your own: it buys 0.1 of the base asset at
// market, once, after a bar that closes 5% or more below its open.
type buyTheDip struct{ bought bool }

func (s *buyTheDip) OnKline(ctx strategy.Context, bar strategy.Bar) error {
	if s.bought || bar.Close.Decimal().GreaterThan(bar.Open.Decimal().Mul(decimal.RequireFromString("0.95"))) {
		return nil
	}
	_, err := ctx.Place(exchange.NewOrder{Symbol: bar.Symbol, Side: exchange.SideBuy, Type: exchange.TypeMarket,
		Quantity: decimal.RequireFromString("0.1")})
	s.bought = err == nil
	if strategy.IsRefusal(err) {
		return nil // the next dip tries again
	}
	return err
}

// exampleT stands in for the *testing.T a test hands to New: an example
// function has none.
type exampleT struct{}

func (exampleT) Helper()                  {}
func (exampleT) Fatal(args ...any)        { panic(fmt.Sprint(args...)) }
func (exampleT) Context() context.Context { return context.Background() }

// A test of a strategy: four hourly bars, and what the strategy sent after
// each; the buy after bar 1 fills at bar 2's open.
func Example() {
	cfg := strategy.Config{Name: "buythedip", ID: "dip", Symbols: []string{"BTCUSDT"}, Interval: "1h"}
	h := strategytest.New(exampleT{}, strategytest.Options{Config: cfg, Strategy: &buyTheDip{},
		Balances: map[string]string{"USDT": "1000"}})
	h.Begin()
	iv := exchange.Interval60m
	for i, k := range []exchange.Kline{
		strategytest.Flat(iv, 0, "100"),
		strategytest.Bar(iv, 1, "100", "101", "94", "94"), // -6%: buy
		strategytest.Bar(iv, 2, "96", "97", "95", "96"),
		strategytest.Bar(iv, 3, "96", "96", "90", "90"), // -6.25%, but it bought already
	} {
		h.Step("BTCUSDT", k)
		fmt.Printf("bar %d: %q\n", i, h.Sent())
	}
	p := h.Position("BTCUSDT")
	fmt.Println("position", p.Qty, "BTC at", p.AvgPrice)
	fmt.Println("balance", h.Balance("USDT"), "USDT,", h.Balance("BTC"), "BTC")
	// Output:
	// bar 0: []
	// bar 1: ["BUY MARKET BTCUSDT qty=0.1"]
	// bar 2: []
	// bar 3: []
	// position 0.1 BTC at 96
	// balance 990.4 USDT, 0.1 BTC
}

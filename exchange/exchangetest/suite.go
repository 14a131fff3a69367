// Package exchangetest is the trading-port conformance suite: one set of
// behaviours every exchange.Trader must show, run against the simulated
// exchange directly and against the REST client talking to the simulated
// server. A difference between backtest and live that this suite can
// express is a bug in one of them.
package exchangetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// Config is what a harness must set up: these symbols, this clock, both
// accounts empty, market orders filling immediately at the last price, fills
// of resting orders on trade-through.
type Config struct {
	Start   time.Time
	Symbols []exchange.SymbolInfo
}

// Control drives the market and the accounts around the ports under test.
type Control interface {
	// FeedKline feeds a closed 1m kline of a symbol.
	FeedKline(symbol string, k exchange.Kline) error
	// Credit adds an amount to account 0 (Trader) or 1 (Other).
	Credit(account int, asset string, amount decimal.Decimal) error
	// GroupBoth puts both accounts into one STP group.
	GroupBoth() error
	// SetTokDeduct switches paying fees in the token for account 0.
	SetTokDeduct(on bool) error
	// SetSymbolStatus changes a symbol's status.
	SetSymbolStatus(symbol string, st exchange.SymbolStatus) error
}

// Harness is one fresh exchange with two accounts.
type Harness struct {
	Trader  exchange.Trader // account 0, under test
	Other   exchange.Trader // account 1, the counterparty
	Control Control
}

// NewHarness builds a fresh harness for a test.
type NewHarness func(t *testing.T, cfg Config) Harness

// d parses a decimal literal.
func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// T0 is the suite's start time.
var T0 = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)

// Symbols returns the suite's symbols: BTCUSDT (4 quantity and 2 price
// decimals, minimum amount 5, maker 0.1%, taker 0.2%, a ±10% percent-price
// filter), XYZUSDT (dust) and TOKUSDT (the fee token).
func Symbols() []exchange.SymbolInfo {
	base := func(sym, b string) exchange.SymbolInfo {
		return exchange.SymbolInfo{Symbol: sym, Status: exchange.SymbolOnline, BaseAsset: b, QuoteAsset: "USDT",
			BaseAssetPrecision: 4, QuotePrecision: 2, QuoteAssetPrecision: 2, BaseCommissionPrecision: 8, QuoteCommissionPrecision: 8,
			OrderTypes:           []exchange.OrderType{exchange.TypeLimit, exchange.TypeMarket, exchange.TypeLimitMaker},
			IsSpotTradingAllowed: true, TradeSideType: exchange.TradeSideAll, QuoteAmountPrecision: d("5"),
			QuoteAmountPrecisionMarket: d("5"), MaxQuoteAmount: d("1000000"), MaxQuoteAmountMarket: d("100000"),
			MakerCommission: d("0.001"), TakerCommission: d("0.002")}
	}
	btc := base("BTCUSDT", "BTC")
	btc.Filters = []exchange.Filter{{FilterType: exchange.FilterPercentPriceBySide, BidMultiplierUp: d("1.1"), AskMultiplierDown: d("0.9")}}
	return []exchange.SymbolInfo{btc, base("XYZUSDT", "XYZ"), base("TOKUSDT", "TOK")}
}

// Bar is a 1m kline at minute min.
func Bar(min int, open, high, low, close string) exchange.Kline {
	t := T0.Add(time.Duration(min) * time.Minute)
	return exchange.Kline{OpenTime: t, Open: d(open), High: d(high), Low: d(low), Close: d(close), Volume: d("1"),
		CloseTime: t.Add(time.Minute - time.Millisecond)}
}

// env is one test's harness, primed: BTCUSDT last 20000, XYZUSDT 0.5,
// TOKUSDT 2; both accounts hold 10000 USDT and 1 BTC.
type env struct {
	t   *testing.T
	h   Harness
	ctx context.Context
}

func setup(t *testing.T, newH NewHarness) *env {
	t.Helper()
	h := newH(t, Config{Start: T0, Symbols: Symbols()})
	e := &env{t: t, h: h, ctx: t.Context()}
	e.must(h.Control.FeedKline("BTCUSDT", Bar(0, "20000", "20000", "20000", "20000")))
	e.must(h.Control.FeedKline("XYZUSDT", Bar(0, "0.5", "0.5", "0.5", "0.5")))
	e.must(h.Control.FeedKline("TOKUSDT", Bar(0, "2", "2", "2", "2")))
	for acct := 0; acct < 2; acct++ {
		e.must(h.Control.Credit(acct, "USDT", d("10000")))
		e.must(h.Control.Credit(acct, "BTC", d("1")))
	}
	return e
}

func (e *env) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

// balances returns "ASSET free/locked" for the assets asked, of a port.
func (e *env) balances(p exchange.Trader, assets ...string) string {
	e.t.Helper()
	a, err := p.Account(e.ctx)
	e.must(err)
	s := ""
	for i, as := range assets {
		b := a.Balance(as)
		if i > 0 {
			s += " "
		}
		s += as + " " + b.Free.String() + "/" + b.Locked.String()
	}
	return s
}

func (e *env) wantBalances(p exchange.Trader, want string, assets ...string) {
	e.t.Helper()
	if got := e.balances(p, assets...); got != want {
		e.t.Errorf("balances %s, want %s", got, want)
	}
}

func (e *env) place(p exchange.Trader, o exchange.NewOrder) exchange.OrderAck {
	e.t.Helper()
	ack, err := p.PlaceOrder(e.ctx, o)
	e.must(err)
	return ack
}

func (e *env) query(p exchange.Trader, id string) exchange.Order {
	e.t.Helper()
	o, err := p.QueryOrder(e.ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrderID: id})
	e.must(err)
	return o
}

func (e *env) trades(p exchange.Trader, orderID string) []exchange.OwnTrade {
	e.t.Helper()
	ts, err := p.MyTrades(e.ctx, exchange.MyTradesRequest{Symbol: "BTCUSDT", OrderID: orderID})
	e.must(err)
	return ts
}

// wantCode asserts err carries the exchange code.
func wantCode(t *testing.T, err error, code int) {
	t.Helper()
	var a *exchange.APIError
	if !errors.As(err, &a) || a.Code != code {
		t.Errorf("error %v, want code %d", err, code)
	}
}

func limit(side exchange.Side, qty, price string) exchange.NewOrder {
	return exchange.NewOrder{Symbol: "BTCUSDT", Side: side, Type: exchange.TypeLimit, Quantity: d(qty), Price: d(price)}
}

// Run runs the suite.
func Run(t *testing.T, newH NewHarness) {
	t.Run("LimitRestsQueriesAndCancels", func(t *testing.T) { limitRests(t, newH) })
	t.Run("LimitFillsOnTradeThrough", func(t *testing.T) { limitFills(t, newH) })
	t.Run("MarketOrders", func(t *testing.T) { marketOrders(t, newH) })
	t.Run("ImmediateOrCancelAndFillOrKill", func(t *testing.T) { iocFok(t, newH) })
	t.Run("AccountsMatchEachOther", func(t *testing.T) { internalMatch(t, newH) })
	t.Run("SelfTradePrevention", func(t *testing.T) { selfTrade(t, newH) })
	t.Run("TokenFees", func(t *testing.T) { tokenFees(t, newH) })
	t.Run("Rejections", func(t *testing.T) { rejections(t, newH) })
	t.Run("RequestShapeRefusals", func(t *testing.T) { refusals(t, newH) })
	t.Run("Dust", func(t *testing.T) { dust(t, newH) })
}

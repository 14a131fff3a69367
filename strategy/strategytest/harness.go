// Package strategytest is for strategy authors: it runs one strategy
// instance through the real strategy.Runtime, the risk gate and the
// simulated exchange (exchange/sim), bar by bar as a backtest does, and
// records every order that reaches the exchange as a line of text, so a
// test asserts exactly what the strategy sent and what came of it. The
// built-in strategies are tested with it; a strategy in another module is
// tested the same way.
//
// A test builds its strategy from a strategy.Config, hands both to New with
// the starting balances, optionally warms the strategy up (WarmUp) and
// calls Begin, then feeds bars with Step (StepAll for several symbols at one
// instant) and reads Sent, Position, Balance, the Journal (fills, schedule
// runs, saved state) and Logs. Bar and Flat build bars counted from T0;
// symbols the Options give no rules for get Rules.
//
// Fills follow the simulator's model (docs/fill-model.md): a market order
// fills at the next bar's open unless Options.MarketFill says otherwise,
// and a resting limit order fills along the path of a later bar that
// reaches its price.
package strategytest

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/risk"
	"github.com/spotbot/spotbot/strategy"
)

// T0 is the open time of bar 0 and the exchange's default start:
// 2024-03-01 00:00 UTC.
func T0() time.Time { return time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC) }

// TB is what the harness needs of a test: *testing.T and *testing.B are
// TBs. The harness stops the test with Fatal when the setup or a step
// fails, and runs the runtime under the test's context.
type TB interface {
	Helper()
	Fatal(args ...any)
	Context() context.Context
}

// Options configure a Harness.
type Options struct {
	// Config is the instance's configuration; Strategy is built from it by
	// the test (through the strategy's New) so construction errors are the
	// test's to check.
	Config   strategy.Config
	Strategy strategy.Strategy
	// Symbols are the rules of the traded symbols; a symbol of Config
	// without rules gets Rules(symbol).
	Symbols []exchange.SymbolInfo
	// Balances is the starting account (asset → decimal text).
	Balances map[string]string
	// MarketFill is the simulator's market fill model (default: the next
	// bar's open).
	MarketFill sim.MarketFill
	// STPGroup says the account has a self-trade prevention group.
	STPGroup bool
	// Start is the exchange's initial clock (default T0).
	Start time.Time
}

// Harness drives one strategy instance.
type Harness struct {
	t TB
	// X is the simulated exchange, for what the harness has no method for
	// (its order book, another account, a changed symbol status).
	X *sim.Exchange
	// RT is the runtime the instance runs in.
	RT *strategy.Runtime
	// Journal holds what the runtime recorded: fills, refusals, schedule
	// runs and the instance's saved state.
	Journal *strategy.MemoryJournal
	// Logs is the runtime's and the strategy's log output as text, without
	// times.
	Logs  *strings.Builder
	clock *clock
	rec   *recorder
	iv    exchange.Interval
}

// New builds the exchange, the runtime and the instance, and starts the
// runtime at opts.Start (loading the instance's state from the journal,
// which is empty). The instance's interval is Config.Interval, hourly when
// empty. Errors stop the test.
func New(t TB, opts Options) *Harness {
	t.Helper()
	if opts.Start.IsZero() {
		opts.Start = T0()
	}
	iv := exchange.Interval60m
	if opts.Config.Interval != "" {
		var err error
		if iv, err = opts.Config.ParsedInterval(); err != nil {
			t.Fatal(err)
		}
	}
	rules := append([]exchange.SymbolInfo(nil), opts.Symbols...)
	for _, s := range opts.Config.Symbols {
		if !hasRules(rules, s) {
			rules = append(rules, Rules(s))
		}
	}
	x, err := sim.New(sim.Options{Start: opts.Start, Symbols: rules, MarketFill: opts.MarketFill})
	if err != nil {
		t.Fatal(err)
	}
	for a, v := range opts.Balances {
		if err := x.Credit(x.MasterUID(), a, decimal.RequireFromString(v)); err != nil {
			t.Fatal(err)
		}
	}
	gate, err := risk.New(risk.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	logs := &strings.Builder{}
	h := &Harness{t: t, X: x, Journal: strategy.NewMemoryJournal(), Logs: logs, clock: &clock{t: opts.Start},
		rec: &recorder{Trader: x.Master()}, iv: iv}
	h.RT, err = strategy.New(strategy.Options{Trader: h.rec, Events: x.Master(), Gate: gate, Journal: h.Journal, Clock: h.clock,
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{b: logs}, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}})),
		STPGroup: opts.STPGroup})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.RT.Add(opts.Config, opts.Strategy); err != nil {
		t.Fatal(err)
	}
	if err := h.RT.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return h
}

func hasRules(rules []exchange.SymbolInfo, s string) bool {
	for _, r := range rules {
		if r.Symbol == s {
			return true
		}
	}
	return false
}

// Rules returns test rules for a symbol ending in USDT: 2 price decimals,
// 4 quantity decimals, a minimum order of 5 USDT (limit and market), no
// fees, LIMIT and MARKET orders.
func Rules(symbol string) exchange.SymbolInfo {
	base := strings.TrimSuffix(symbol, "USDT")
	return exchange.SymbolInfo{Symbol: symbol, Status: exchange.SymbolOnline, BaseAsset: base, QuoteAsset: "USDT",
		BaseAssetPrecision: 4, QuotePrecision: 2, QuoteAssetPrecision: 2, BaseCommissionPrecision: 8,
		QuoteCommissionPrecision: 8, IsSpotTradingAllowed: true, TradeSideType: exchange.TradeSideAll,
		OrderTypes:           []exchange.OrderType{exchange.TypeLimit, exchange.TypeMarket},
		QuoteAmountPrecision: decimal.NewFromInt(5), QuoteAmountPrecisionMarket: decimal.NewFromInt(5),
		BaseSizePrecision: decimal.New(1, -4), MaxQuoteAmount: decimal.New(1, 9), MaxQuoteAmountMarket: decimal.New(1, 9),
		Permissions: []string{"SPOT"}}
}

// Bar returns the i-th bar of interval iv from T0 with the given open,
// high, low and close (decimal text) and a volume of 1.
func Bar(iv exchange.Interval, i int, open, high, low, close string) exchange.Kline {
	ot := T0().Add(time.Duration(i) * iv.Duration())
	return exchange.Kline{OpenTime: ot, Open: d(open), High: d(high), Low: d(low), Close: d(close),
		Volume: decimal.NewFromInt(1), CloseTime: iv.Next(ot).Add(-time.Millisecond)}
}

// Flat returns the i-th bar with open, high, low and close all equal.
func Flat(iv exchange.Interval, i int, price string) exchange.Kline {
	return Bar(iv, i, price, price, price, price)
}

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// WarmUp lets the exchange see bars of a symbol and delivers them to the
// strategy as warm-up history.
func (h *Harness) WarmUp(symbol string, bars ...exchange.Kline) {
	h.t.Helper()
	f := strategy.Feed{Symbol: symbol, Interval: h.iv}
	for _, k := range bars {
		fk := h.feedExchange(symbol, k)
		h.RT.DeliverWarmUpRef(h.t.Context(), f, &fk, strategy.BarSource{})
	}
}

// Begin ends warm-up: it calls the strategy's Start, if it has one.
func (h *Harness) Begin() { h.RT.Begin(h.t.Context()) }

// Step is one instant of a backtest with one symbol's bar: see StepAll.
func (h *Harness) Step(symbol string, k exchange.Kline) {
	h.t.Helper()
	h.StepAll(SymbolBar{symbol, k})
}

// SymbolBar is a bar of a symbol.
type SymbolBar struct {
	Symbol string
	K      exchange.Kline
}

// StepAll is one instant of a backtest: the exchange sees the bars (pending
// orders fill at their open, resting ones along their path), the runtime
// collects fills, the strategy sees the bars, then due schedules run once.
func (h *Harness) StepAll(bars ...SymbolBar) {
	h.t.Helper()
	fks := make([]exchange.FixedKline, len(bars))
	for i, b := range bars {
		fks[i] = h.feedExchange(b.Symbol, b.K)
	}
	ctx := h.t.Context()
	if err := h.RT.Sync(ctx); err != nil {
		h.t.Fatal(err)
	}
	for i, b := range bars {
		h.RT.OnBarRef(ctx, strategy.Feed{Symbol: b.Symbol, Interval: h.iv}, &fks[i], strategy.BarSource{})
	}
	h.RT.Tick(ctx, h.clock.Now())
}

// Deliver gives a bar to the strategy without the exchange seeing it, so
// orders pending at the exchange stay open: a test of what a strategy does
// while its order is in flight.
func (h *Harness) Deliver(symbol string, k exchange.Kline) {
	h.t.Helper()
	h.clock.set(h.iv.Next(k.OpenTime))
	if err := h.RT.OnBar(h.t.Context(), strategy.Feed{Symbol: symbol, Interval: h.iv}, k); err != nil {
		h.t.Fatal(err)
	}
}

// Tick moves the clock to at and runs the schedules due.
func (h *Harness) Tick(at time.Time) {
	h.clock.set(at)
	h.RT.Tick(h.t.Context(), at)
}

// Conversions returns the asset lists of the dust conversions sent since
// the last call.
func (h *Harness) Conversions() [][]string {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	out := h.rec.converts
	h.rec.converts = nil
	return out
}

// FailConversions makes every later dust conversion fail with err before
// it reaches the exchange (nil restores them).
func (h *Harness) FailConversions(err error) {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	h.rec.convertErr = err
}

// FailListing makes every later listing of dust candidates fail with err
// (nil restores it).
func (h *Harness) FailListing(err error) {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	h.rec.listErr = err
}

// Sync collects fills and order updates without a new bar.
func (h *Harness) Sync() {
	h.t.Helper()
	if err := h.RT.Sync(h.t.Context()); err != nil {
		h.t.Fatal(err)
	}
}

// feedExchange converts a bar as a live session does (a price past 18
// significant digits fails the test), feeds it to the exchange as a
// backtest does, and returns it.
func (h *Harness) feedExchange(symbol string, k exchange.Kline) exchange.FixedKline {
	h.t.Helper()
	fk, err := exchange.FixedKlineOf(&k)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.X.FeedBar(symbol, h.iv, &fk); err != nil {
		h.t.Fatal(err)
	}
	h.clock.set(h.iv.Next(k.OpenTime))
	return fk
}

// Sent returns the orders that reached the exchange since the last call,
// one line each (see Format).
func (h *Harness) Sent() []string { return h.rec.take() }

// Stopped returns why the instance stopped, or "" while it runs.
func (h *Harness) Stopped() string { return h.RT.Instances()[0].Stopped }

// Position returns the instance's position in a symbol.
func (h *Harness) Position(symbol string) strategy.Position {
	return h.RT.Position(h.RT.Instances()[0].ID, symbol)
}

// Balance returns the exchange's free balance of an asset, as text.
func (h *Harness) Balance(asset string) string {
	h.t.Helper()
	acct, err := h.X.Master().Account(h.t.Context())
	if err != nil {
		h.t.Fatal(err)
	}
	for _, b := range acct.Balances {
		if b.Asset == asset {
			return b.Free.String()
		}
	}
	return "0"
}

// Format renders an order as one line: side, type, symbol, then the
// fields that are set: "BUY LIMIT BTCUSDT qty=0.5 price=100 stp=cancel_maker".
func Format(o exchange.NewOrder) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", o.Side, o.Type, o.Symbol)
	if !o.Quantity.IsZero() {
		fmt.Fprintf(&b, " qty=%s", o.Quantity)
	}
	if !o.QuoteOrderQty.IsZero() {
		fmt.Fprintf(&b, " quote=%s", o.QuoteOrderQty)
	}
	if !o.Price.IsZero() {
		fmt.Fprintf(&b, " price=%s", o.Price)
	}
	if o.STPMode != "" {
		fmt.Fprintf(&b, " stp=%s", o.STPMode)
	}
	return b.String()
}

// recorder is the exchange as the runtime sees it, noting every order sent.
type recorder struct {
	exchange.Trader
	mu         sync.Mutex
	sent       []string
	converts   [][]string
	convertErr error
	listErr    error
}

func (r *recorder) DustCandidates(ctx context.Context) ([]exchange.DustCandidate, error) {
	r.mu.Lock()
	err := r.listErr
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return r.Trader.DustCandidates(ctx)
}

func (r *recorder) ConvertDust(ctx context.Context, assets []string) (exchange.DustResult, error) {
	r.mu.Lock()
	r.converts = append(r.converts, append([]string(nil), assets...))
	err := r.convertErr
	r.mu.Unlock()
	if err != nil {
		return exchange.DustResult{}, err
	}
	return r.Trader.ConvertDust(ctx, assets)
}

func (r *recorder) note(o exchange.NewOrder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, Format(o))
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.sent
	r.sent = nil
	return out
}

func (r *recorder) PlaceOrder(ctx context.Context, o exchange.NewOrder) (exchange.OrderAck, error) {
	r.note(o)
	return r.Trader.PlaceOrder(ctx, o)
}

func (r *recorder) PlaceBatch(ctx context.Context, orders []exchange.NewOrder) ([]exchange.BatchResult, error) {
	for _, o := range orders {
		r.note(o)
	}
	return r.Trader.PlaceBatch(ctx, orders)
}

// clock is the runtime's clock: the close of the latest bar.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

type lockedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

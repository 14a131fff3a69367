// Package strategy is what a strategy author imports: the Strategy interface
// and its optional extensions, the Context a strategy acts through, the
// registry of strategy constructors, and typed parameters. The Runtime that
// drives strategies lives beside it in this package, the way database/sql
// sits beside database/sql/driver.
//
// A strategy sees only closed klines, its own orders and fills, balances,
// positions, symbol rules, a logger, its own state and the clock. It never
// sees a REST client, a database or time.Now, so the same code runs in a
// backtest, in paper trading and live.
package strategy

import (
	"log/slog"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// Strategy reacts to closed klines of the feeds it subscribed to.
type Strategy interface {
	// OnKline is called once per closed kline, in time order. A returned
	// error stops this strategy instance (not the others).
	OnKline(ctx Context, bar Bar) error
}

// Bar is a closed kline of one feed, its numbers compact: exact
// fixed-point values that build no decimal until one is asked for.
// Indicators take bar.Close.Float64() (the same float64 as the decimal's
// InexactFloat64); money takes bar.Close.Decimal() (the exact decimal the
// bar was read as); Kline() is the whole bar as decimals.
type Bar struct {
	Symbol   string
	Interval exchange.Interval
	exchange.FixedKline
}

// Kline is the bar with its numbers as decimals.
func (b Bar) Kline() exchange.Kline { return b.FixedKline.Kline() }

// Feed names a symbol and interval a strategy subscribes to.
type Feed struct {
	Symbol   string
	Interval exchange.Interval
}

// FillHandler is implemented by strategies that want each fill of their
// orders. Each fill is delivered exactly once.
type FillHandler interface {
	OnFill(ctx Context, f Fill) error
}

// OrderHandler is implemented by strategies that want their orders' status
// changes (acknowledged, partially filled, filled, cancelled, refused).
type OrderHandler interface {
	OnOrder(ctx Context, o Order) error
}

// WarmUpper is implemented by strategies that need history before trading:
// the runtime delivers WarmUp() closed bars of each feed through OnKline with
// ctx.WarmingUp() true, and refuses orders during warm-up.
type WarmUpper interface {
	WarmUp() int
}

// Starter is implemented by strategies that act once after warm-up and
// before the first live bar (for example to lay out a grid).
type Starter interface {
	Start(ctx Context) error
}

// Scheduler is implemented by strategies with cron schedules. Specs use the
// robfig/cron syntax with optional seconds and are evaluated against the
// runtime's clock, in UTC unless the spec starts with CRON_TZ=.
type Scheduler interface {
	Schedules() []Schedule
}

// Schedule is one cron-scheduled handler.
type Schedule struct {
	Name string
	Spec string
	Run  func(ctx Context, at time.Time) error
}

// Stateful is implemented by strategies with state to persist across
// restarts. The runtime saves it after each event that changed orders or
// fills, and restores it before warm-up.
type Stateful interface {
	MarshalState() ([]byte, error)
	UnmarshalState(data []byte) error
}

// Context is everything a strategy may use. Methods that place or cancel
// orders go through the risk gate and the order tracker.
type Context interface {
	// ID is the strategy instance's id from the configuration.
	ID() string
	// Now is the runtime clock: simulated time in a backtest.
	Now() time.Time
	// Log is the instance's logger (instance id attached).
	Log() *slog.Logger
	// WarmingUp reports whether the current bar is warm-up history.
	WarmingUp() bool

	// Place sends an order. The runtime assigns a client order id unless
	// one is set, records the order before it is sent and follows it to a
	// final status. A risk rejection is a *risk.Rejection; an exchange
	// refusal an *exchange.APIError.
	Place(o exchange.NewOrder) (Order, error)
	// PlaceBatch sends up to 20 orders of one symbol in one request. The
	// result has one entry per order, refused ones with Err set.
	PlaceBatch(orders []exchange.NewOrder) ([]Order, error)
	// Cancel cancels one of the instance's orders by client order id. An
	// order already final is no error, as long as the runtime remembers
	// it (the last 10,000 to 20,000 finished orders).
	Cancel(clientOrderID string) error
	// CancelAll cancels the instance's open orders of a symbol.
	CancelAll(symbol string) error
	// OpenOrders lists the instance's open orders of a symbol ("" for all).
	OpenOrders(symbol string) []Order

	// Balance returns the account's balance of an asset.
	Balance(asset string) exchange.Balance
	// Position returns the instance's position in a symbol.
	Position(symbol string) Position
	// Rules returns a symbol's rules, with rounding helpers
	// (RoundPrice, FloorQty, MinNotional).
	Rules(symbol string) (*exchange.SymbolInfo, error)
	// Klines returns up to n of the most recent closed klines of a feed,
	// oldest first. The slice is only valid during the call.
	Klines(symbol string, iv exchange.Interval, n int) []exchange.Kline
	// LastPrice returns the close of the latest bar of the symbol seen.
	LastPrice(symbol string) decimal.Decimal

	// DustCandidates and ConvertDust expose the exchange's dust
	// conversion to jobs.
	DustCandidates() ([]exchange.DustCandidate, error)
	ConvertDust(assets []string) (exchange.DustResult, error)
}

// Order is an order as a strategy sees it.
type Order struct {
	ClientOrderID string
	OrderID       string // empty until acknowledged
	Symbol        string
	Side          exchange.Side
	Type          exchange.OrderType
	Price         decimal.Decimal
	Quantity      decimal.Decimal
	QuoteOrderQty decimal.Decimal
	Status        exchange.OrderStatus // empty while not yet acknowledged
	ExecutedQty   decimal.Decimal
	CumQuoteQty   decimal.Decimal
	CancelReason  string
	// Reason is why the runtime placed the order (ExitStopLoss, ...);
	// empty for the strategy's own orders.
	Reason string
	Err    error // for a refused order: why
}

// Fill is one execution of one of the instance's orders.
type Fill struct {
	ClientOrderID   string
	OrderID         string
	TradeID         string
	Symbol          string
	Side            exchange.Side
	Price           decimal.Decimal
	Qty             decimal.Decimal
	QuoteQty        decimal.Decimal
	Commission      decimal.Decimal
	CommissionAsset string
	Maker           bool
	SelfTrade       bool
	Time            time.Time
}

// Position is an instance's holding in a symbol, from its own fills:
// quantity, average entry price (average cost of the quantity held) and
// realised profit in the quote asset.
type Position struct {
	Symbol     string
	Qty        decimal.Decimal
	AvgPrice   decimal.Decimal
	Realized   decimal.Decimal
	FeesQuote  decimal.Decimal // fees paid in the quote asset
	FeesBase   decimal.Decimal // fees paid in the base asset (reduce Qty)
	FeesOther  decimal.Decimal // fees paid in a third asset (token)
	OtherAsset string
}

// Apply updates the position with a fill of side s (average-cost method:
// buys raise the average, sells realise against it). Fees in the base asset
// reduce the quantity held (raising its average cost); fees in the quote
// asset reduce realised profit. Averages are divided to 16 decimal places.
func (p *Position) Apply(f Fill, base, quote string) {
	var m posMath
	p.apply(f, base, quote, &m)
}

// apply is Apply with the runtime's reused big.Ints. The average is the
// cost of what is held (the old average times the old quantity, plus this
// fill's price times its quantity) divided by the new quantity; posMath
// computes it and the realised profit with decimal's exact results.
func (p *Position) apply(f Fill, base, quote string, m *posMath) {
	if p.applyNarrow(f, base, quote, m) {
		return
	}
	p.applyDecimal(f, base, quote, m)
}

// applyDecimal is apply in decimal's arithmetic, for the fills whose
// numbers do not fit applyNarrow's.
func (p *Position) applyDecimal(f Fill, base, quote string, m *posMath) {
	switch f.Side {
	case exchange.SideBuy:
		qty := p.Qty.Add(f.Qty)
		if qty.IsPositive() {
			p.AvgPrice = m.avg(p.AvgPrice, p.Qty, f.Price, f.Qty, qty)
		}
		p.Qty = qty
	case exchange.SideSell:
		p.Realized = m.realize(p.Realized, f.Price, p.AvgPrice, f.Qty)
		p.Qty = p.Qty.Sub(f.Qty)
		if !p.Qty.IsPositive() {
			p.AvgPrice = decimal.Zero
		}
	}
	switch f.CommissionAsset {
	case "":
	case base:
		// The fee shrinks the quantity, not the cost paid: the average
		// cost of what is left rises.
		p.FeesBase = p.FeesBase.Add(f.Commission)
		qty := p.Qty.Sub(f.Commission)
		if qty.IsPositive() {
			p.AvgPrice = m.avg(p.AvgPrice, p.Qty, decimal.Decimal{}, decimal.Decimal{}, qty)
		}
		p.Qty = qty
	case quote:
		p.FeesQuote = p.FeesQuote.Add(f.Commission)
		p.Realized = p.Realized.Sub(f.Commission)
	default:
		p.FeesOther = p.FeesOther.Add(f.Commission)
		p.OtherAsset = f.CommissionAsset
	}
}

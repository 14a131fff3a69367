// Package sim is an in-memory spot exchange with the live service's
// semantics, driven by klines. It implements exchange.Trader, so the same
// strategy code runs against it in backtests and paper trading as against
// the REST client live.
//
// It is deterministic: time comes only from the exchange's own clock, set
// by the caller (SetTime, or FeedKline moving it to the bar's close); the
// same calls give the same results, byte for byte. Every refusal is an
// *exchange.APIError with the code the live service returns; docs/sim.md
// lists the choices where the spec names none and how market data is
// synthesised. The fill model is in docs/sim.md and docs/fill-model.md.
package sim

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// LimitFill says when a resting limit order fills against the bar-driven
// market.
type LimitFill uint8

const (
	// TradeThrough fills a buy when a bar's low is strictly below its price
	// (a sell when the high is strictly above). The default.
	TradeThrough LimitFill = iota
	// Touch fills when the bar reaches the price.
	Touch
)

// MarketFill says when orders that take liquidity from the bar-driven
// market fill.
type MarketFill uint8

const (
	// NextOpen holds market orders (and limits crossing the last price)
	// until the next kline and fills them at its open. The default: a
	// signal computed on bar t's close trades at bar t+1's open.
	NextOpen MarketFill = iota
	// Immediate fills them at once at the last price (the signal bar's
	// close, for tools that compare that way).
	Immediate
)

// Options configure an Exchange.
type Options struct {
	// Start is the initial clock.
	Start time.Time
	// Symbols are the tradable symbols and their rules.
	Symbols []exchange.SymbolInfo
	// MasterUID is the UID of the master account (default "1000").
	MasterUID string
	// LimitFill and MarketFill choose the fill model.
	LimitFill  LimitFill
	MarketFill MarketFill
	// SlippageBps worsens market and crossing fills by this many basis
	// points (buys pay more, sells get less).
	SlippageBps decimal.Decimal
	// SlippageTicks worsens them by this many ticks of the symbol's price
	// precision (after SlippageBps); a sell never slips to zero or below.
	SlippageTicks int
	// MakerFee and TakerFee override every symbol's commissions when set.
	MakerFee *decimal.Decimal
	TakerFee *decimal.Decimal
	// Token is the platform token fees may be paid in (default "TOK");
	// TokenDiscount is the discount on fees paid in it (default 0.2).
	Token         string
	TokenDiscount decimal.Decimal
	// DustThreshold is the quote value below which a balance is dust
	// (default 5); DustFee is the share taken by a conversion (default 0.02).
	DustThreshold decimal.Decimal
	DustFee       decimal.Decimal
	// RateLimits applies the spec's budgets in simulated time: requests
	// over budget fail with *exchange.RateLimitError.
	RateLimits bool
	// QuoteFees charges every fee in the quote asset, the way most
	// backtesters do, instead of in the asset received (the base asset
	// for a buyer). A buy then locks its fee at the higher of the maker
	// and taker rates on top of its amount, and a quote-sized market buy
	// spends its quoteOrderQty on the asset and the fee together.
	QuoteFees bool
	// KlineRetention caps the klines kept per feed for the klines endpoint
	// (0 keeps them all).
	KlineRetention int
	// Book shapes the synthetic depth around the last price.
	Book BookShape
	// TradeRetention caps the public trades kept per symbol (default
	// 10000).
	TradeRetention int
	// HistoryRetention, when positive, makes each account forget final
	// orders last updated longer ago than it, and own trades older than
	// it: a paper-trading daemon runs for months. Queries of a forgotten
	// order answer unknown order; windows before it return nothing. 0
	// keeps everything.
	HistoryRetention time.Duration
	// OwnTradeRetention caps the trades each account keeps for the
	// myTrades endpoint, the most recent first to stay (0 keeps them all).
	// A backtest, which reads its fills from order events, sets it low.
	OwnTradeRetention int
	// SingleDriver says one goroutine alone calls the exchange, as a
	// backtest's loop does: FeedBar, called at every bar, and the calls
	// of a Port (orders, events, balances) then take no lock (every other
	// method of the Exchange still does). An exchange shared between
	// goroutines (a server, a paper bot with its status listener) must
	// leave it false.
	SingleDriver bool
}

// Exchange is the simulated exchange. It is safe for concurrent use.
type Exchange struct {
	mu       sync.Mutex
	opts     Options
	now      time.Time
	markets  map[string]*market
	symbols  []string // sorted
	accounts map[string]*account
	master   string
	nextUID  int64
	orderSeq int64
	tradeSeq int64
	// slab is where new order records come from: orders live as long as
	// the exchange, so they are allocated in blocks, not one by one.
	// forgot holds records of final orders an account forgot
	// (trimHistory) that nothing refers to any more: new orders take
	// those first.
	slab       []order
	slabSize   int // the size of the last block
	forgot     []*order
	lastMarket *market // see market
	// queued counts the order events of all accounts not yet drained, so
	// a caller can skip draining (and the lock) when there are none.
	queued atomic.Int64
	// unreported holds the trades of orders not yet flushed to an event:
	// the orders the call in progress filled.
	unreported []ownTrade
	// dropped holds unreported trades their account's list no longer
	// keeps (dropTrades).
	dropped []exchange.OwnTrade
	// orderIDs and tradeIDs write the numbers' text (orders with a
	// client id of their own, trades).
	orderIDs, tradeIDs idText
	groups             []*stpGroup
	groupSeq           int64
	dust               []dustConversion
	wallet             *walletState // wallet, transfers and sub-accounts; see wal
	// nowNs is now's Unix nanoseconds when nowFast says now has that
	// shadow (clock.go; every change of now keeps it).
	nowNs   int64
	nowFast bool
}

// New builds an exchange.
func New(o Options) (*Exchange, error) {
	if o.MasterUID == "" {
		o.MasterUID = "1000"
	}
	if o.Token == "" {
		o.Token = "TOK"
	}
	if o.TokenDiscount.IsZero() {
		o.TokenDiscount = decimal.RequireFromString("0.2")
	}
	if o.DustThreshold.IsZero() {
		o.DustThreshold = decimal.NewFromInt(5)
	}
	if o.DustFee.IsZero() {
		o.DustFee = decimal.RequireFromString("0.02")
	}
	if o.SlippageBps.IsNegative() || o.SlippageTicks < 0 {
		return nil, errors.New("sim: negative slippage")
	}
	x := &Exchange{opts: o, markets: map[string]*market{}, accounts: map[string]*account{}, master: o.MasterUID, nextUID: 1}
	x.setNow(o.Start.UTC())
	for _, s := range o.Symbols {
		if err := x.addSymbol(s); err != nil {
			return nil, err
		}
	}
	x.accounts[o.MasterUID] = newAccount(o.MasterUID, "")
	return x, nil
}

func (x *Exchange) addSymbol(s exchange.SymbolInfo) error {
	if s.Symbol == "" || s.BaseAsset == "" || s.QuoteAsset == "" {
		return fmt.Errorf("sim: symbol %q needs a name, base and quote asset", s.Symbol)
	}
	if _, dup := x.markets[s.Symbol]; dup {
		return fmt.Errorf("sim: symbol %s listed twice", s.Symbol)
	}
	if x.opts.MakerFee != nil {
		s.MakerCommission = *x.opts.MakerFee
	}
	if x.opts.TakerFee != nil {
		s.TakerCommission = *x.opts.TakerFee
	}
	x.markets[s.Symbol] = &market{info: s, klines: map[exchange.Interval]*[]exchange.Kline{}, retain: x.opts.KlineRetention}
	x.symbols = append(x.symbols, s.Symbol)
	sort.Strings(x.symbols)
	return nil
}

// MasterUID returns the master account's UID.
func (x *Exchange) MasterUID() string { return x.master }

// Now returns the exchange clock.
func (x *Exchange) Now() time.Time {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.now
}

// SetTime moves the clock; it never moves backwards.
func (x *Exchange) SetTime(t time.Time) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if t.After(x.now) {
		x.setNow(t.UTC())
	}
}

// Advance moves the clock forward by d.
func (x *Exchange) Advance(d time.Duration) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if d > 0 {
		x.setNow(x.now.Add(d))
	}
}

// After implements exchange.Clock for code that waits on simulated time:
// it advances the clock by d and fires at once.
func (x *Exchange) After(d time.Duration) <-chan time.Time {
	x.Advance(d)
	ch := make(chan time.Time, 1)
	ch <- x.Now()
	return ch
}

// CreateAccount adds an account (a sub-account of the master) and returns
// its UID.
func (x *Exchange) CreateAccount(name string) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.nextUID++
	uid := fmt.Sprint(mustInt(x.master) + x.nextUID - 1)
	x.accounts[uid] = newAccount(uid, name)
	return uid
}

func mustInt(s string) int64 {
	var n int64
	fmt.Sscan(s, &n)
	return n
}

// Credit adds an amount of an asset to an account's free balance (a
// deposit through the control API). A negative amount debits, refused
// beyond the free balance.
func (x *Exchange) Credit(uid, asset string, amount decimal.Decimal) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	a, ok := x.accounts[uid]
	if !ok {
		return apiErr(exchange.CodeUserNotExist, "user %s does not exist", uid)
	}
	b := a.bal(asset)
	after := b.free.add(amountOf(amount))
	if after.isNegative() {
		return apiErr(exchange.CodeInsufficientBalance, "insufficient balance of %s", asset)
	}
	b.free = after
	return nil
}

// SetSymbolStatus changes a symbol's status (online, paused, offline).
func (x *Exchange) SetSymbolStatus(symbol string, st exchange.SymbolStatus) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	m, ok := x.markets[symbol]
	if !ok {
		return apiErr(exchange.CodeBadSymbol, "bad symbol %q", symbol)
	}
	m.info.Status = st
	if st == exchange.SymbolOffline {
		m.tape.offlineAt = x.now
	}
	return nil
}

// SetLastPrice sets a symbol's last trade price without a kline (for tests
// and paper trading on polled prices).
func (x *Exchange) SetLastPrice(symbol string, p decimal.Decimal) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	m, ok := x.markets[symbol]
	if !ok {
		return apiErr(exchange.CodeBadSymbol, "bad symbol %q", symbol)
	}
	m.setLast(p)
	m.tape.updates++
	return nil
}

// apiErr is a refusal as the live service would send it.
func apiErr(code int, format string, args ...any) *exchange.APIError {
	// Strings among args may be a caller's text: quote a short prefix only.
	return &exchange.APIError{Status: 400, Code: code, Msg: fmt.Sprintf(format, exchange.ClipArgs(args)...)}
}

// As returns the trading port acting as the account uid.
func (x *Exchange) As(uid string) *Port { return &Port{x: x, uid: uid} }

// Master returns the trading port of the master account.
func (x *Exchange) Master() *Port { return x.As(x.master) }

// budgetCheck applies rate budgets in simulated time when enabled.
func (x *Exchange) budgetCheck(a *account, ep exchange.EndpointID) error {
	if !x.opts.RateLimits {
		return nil
	}
	if a.budget == nil {
		b, err := exchange.NewBudget(simClock{x}, exchange.BudgetFailFast, 0, exchange.DefaultLimits())
		if err != nil {
			return err
		}
		a.budget = b
	}
	e, _ := exchange.Lookup(ep)
	return a.budget.Acquire(context.Background(), ep, e.Draws)
}

// simClock reads the exchange clock while x.mu is held by the caller.
type simClock struct{ x *Exchange }

func (c simClock) Now() time.Time { return c.x.now }
func (c simClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- c.x.now.Add(d)
	return ch
}

package daemon

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/risk"
)

// RuleClockOffset is the rule of orders refused while the clock offset to
// the exchange is beyond exchange.max_clock_offset.
const RuleClockOffset = "clock-offset"

// RuleShutdown is the rule of orders refused while the bot shuts down.
const RuleShutdown = "shutdown"

// RuleIPBanned is the rule of orders refused while the exchange bans the
// bot's address (HTTP 418, until its Retry-After has passed).
const RuleIPBanned = risk.RuleIPBanned

// guard wraps the trading port the runtime uses: it refuses new orders
// while trading is blocked, before anything is sent, and counts failed
// calls by error code. A refusal is a *risk.Rejection, so the runtime
// records and counts it under its rule like any risk refusal.
type guard struct {
	exchange.Trader
	events    exchange.EventSource // the inner port's order events (the simulator's)
	simulated bool
	// budget is the REST client's, whose ban (HTTP 418) pauses trading;
	// nil in paper-replay mode.
	budget *exchange.Budget
	log    *slog.Logger

	mu      sync.Mutex
	blocked string // rule; empty while trading is allowed
	reason  string
	errs    map[string]int
	ban     time.Time // the ban announced in the log, zero when none
	// onBan, when set, is told a ban's start (its end) and its end (zero).
	onBan func(until time.Time)
}

// newGuard wraps t; events are t's order events on a simulated venue (nil
// live, and in paper mode until the simulator is built at Run).
func newGuard(t exchange.Trader, events exchange.EventSource, simulated bool, budget *exchange.Budget, log *slog.Logger) *guard {
	g := &guard{simulated: simulated, budget: budget, log: log, errs: map[string]int{}}
	g.setPort(t, events)
	return g
}

// setPort sets the wrapped port and its events (paper mode builds its
// simulator at Run).
func (g *guard) setPort(t exchange.Trader, events exchange.EventSource) {
	g.Trader, g.events = t, events
}

// eventSource is what the runtime drains order events from: the inner
// port's, through the guard, on a simulated venue; nil live. It is handed
// to the runtime explicitly (strategy.Options.Events).
func (g *guard) eventSource() exchange.EventSource {
	if !g.simulated {
		return nil
	}
	return guardEvents{g}
}

// guardEvents forwards the inner port's events.
type guardEvents struct{ g *guard }

func (e guardEvents) DrainEvents(dst []exchange.OrderEvent) []exchange.OrderEvent {
	if e.g.events == nil {
		return dst
	}
	return e.g.events.DrainEvents(dst)
}

// MayHaveEvents forwards the port's hint that there is nothing to drain
// (the simulator gives it), so a runtime syncing every bar skips the drain
// as it does without the guard. A port without the hint may always have
// events.
func (e guardEvents) MayHaveEvents() bool {
	if h, ok := e.g.events.(interface{ MayHaveEvents() bool }); ok {
		return h.MayHaveEvents()
	}
	return e.g.events != nil
}

// block refuses new orders under rule with reason; unblock lifts it.
func (g *guard) block(rule, reason string) {
	g.mu.Lock()
	g.blocked, g.reason = rule, reason
	g.mu.Unlock()
}

func (g *guard) unblock(rule string) {
	g.mu.Lock()
	if g.blocked == rule {
		g.blocked, g.reason = "", ""
	}
	g.mu.Unlock()
}

// blockedBy returns the rule and reason of the block, or empty strings: a
// block set with block, else the exchange's ban while it lasts.
func (g *guard) blockedBy() (string, string) {
	until := g.bannedUntil()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.blocked != "" {
		return g.blocked, g.reason
	}
	if !until.IsZero() {
		return RuleIPBanned, banReason(until)
	}
	return "", ""
}

// status sets the block and the ban in s.
func (g *guard) status(s *Status) {
	s.BannedUntil = g.bannedUntil()
	s.Blocked, s.BlockedRule = "", ""
	if rule, reason := g.blockedBy(); rule != "" {
		s.Blocked, s.BlockedRule = rule+": "+reason, rule
	}
}

func banReason(until time.Time) string {
	return "the exchange banned this IP (HTTP 418) until " + until.UTC().Format(time.RFC3339)
}

// bannedUntil is the end of the exchange's ban, zero when none; the end of
// one announced in the log is logged once, at the first look after it.
func (g *guard) bannedUntil() time.Time {
	if g.budget == nil {
		return time.Time{}
	}
	until := g.budget.BannedUntil()
	g.mu.Lock()
	ended := until.IsZero() && !g.ban.IsZero()
	if ended {
		g.ban = time.Time{}
	}
	g.mu.Unlock()
	if ended {
		g.log.Info("the exchange's IP ban is over; trading resumes")
		if g.onBan != nil {
			g.onBan(time.Time{})
		}
	}
	return until
}

// banned announces a ban (HTTP 418) the client met: every request waits
// for its end in the client's budget, and new orders are refused.
func (g *guard) banned(ban *exchange.BanError) {
	until := g.bannedUntil()
	if until.IsZero() {
		return
	}
	g.mu.Lock()
	fresh := !until.Equal(g.ban)
	g.ban = until
	g.mu.Unlock()
	if fresh {
		g.log.Error("trading paused: the exchange banned this IP (HTTP 418); waiting the ban out",
			slog.String("until", until.UTC().Format(time.RFC3339)), slog.Duration("retry_after", ban.RetryAfter), slog.String("endpoint", ban.Endpoint))
		if g.onBan != nil {
			g.onBan(until)
		}
	}
}

func (g *guard) refusal() error {
	rule, reason := g.blockedBy()
	if rule == "" {
		return nil
	}
	return &risk.Rejection{Rule: rule, Reason: reason}
}

// count records a failed call under its error code.
func (g *guard) count(err error) error {
	if err == nil {
		return nil
	}
	var key string
	var api *exchange.APIError
	var uo *exchange.UnknownOutcomeError
	var ban *exchange.BanError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &ban):
		key = "ip-banned"
		g.banned(ban)
	case errors.As(err, &api) && api.Code != 0:
		key = strconv.Itoa(api.Code)
	case errors.As(err, &api):
		key = "http-" + strconv.Itoa(api.Status)
	case errors.Is(err, exchange.ErrRateLimited):
		key = "rate-limit"
	case errors.As(err, &uo):
		key = "unknown-outcome"
	default:
		key = "transport"
	}
	g.mu.Lock()
	g.errs[key]++
	g.mu.Unlock()
	return err
}

func (g *guard) apiErrors() map[string]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return cloneMap(g.errs)
}

// PlaceOrder sends o unless trading is blocked.
func (g *guard) PlaceOrder(ctx context.Context, o exchange.NewOrder) (exchange.OrderAck, error) {
	if err := g.refusal(); err != nil {
		return exchange.OrderAck{}, err
	}
	ack, err := g.Trader.PlaceOrder(ctx, o)
	return ack, g.count(err)
}

// PlaceBatch sends orders unless trading is blocked.
func (g *guard) PlaceBatch(ctx context.Context, orders []exchange.NewOrder) ([]exchange.BatchResult, error) {
	if err := g.refusal(); err != nil {
		return nil, err
	}
	res, err := g.Trader.PlaceBatch(ctx, orders)
	return res, g.count(err)
}

// The calls below only count errors.

func (g *guard) CancelOrder(ctx context.Context, r exchange.CancelOrderRequest) (exchange.Order, error) {
	o, err := g.Trader.CancelOrder(ctx, r)
	return o, g.count(err)
}

func (g *guard) CancelOpenOrders(ctx context.Context, symbol string) ([]exchange.Order, error) {
	o, err := g.Trader.CancelOpenOrders(ctx, symbol)
	return o, g.count(err)
}

func (g *guard) QueryOrder(ctx context.Context, r exchange.QueryOrderRequest) (exchange.Order, error) {
	o, err := g.Trader.QueryOrder(ctx, r)
	return o, g.count(err)
}

func (g *guard) OpenOrders(ctx context.Context, symbol string) ([]exchange.Order, error) {
	o, err := g.Trader.OpenOrders(ctx, symbol)
	return o, g.count(err)
}

func (g *guard) Account(ctx context.Context) (*exchange.Account, error) {
	a, err := g.Trader.Account(ctx)
	return a, g.count(err)
}

func (g *guard) MyTrades(ctx context.Context, r exchange.MyTradesRequest) ([]exchange.OwnTrade, error) {
	t, err := g.Trader.MyTrades(ctx, r)
	return t, g.count(err)
}

func (g *guard) ExchangeInfo(ctx context.Context, symbols ...string) (*exchange.ExchangeInfo, error) {
	i, err := g.Trader.ExchangeInfo(ctx, symbols...)
	return i, g.count(err)
}

func (g *guard) Klines(ctx context.Context, r exchange.KlinesRequest) ([]exchange.Kline, error) {
	k, err := g.Trader.Klines(ctx, r)
	return k, g.count(err)
}

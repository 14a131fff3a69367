// Package risk is the gate every order passes before it reaches the trading
// port. It applies the exchange's own symbol rules (so a well-formed order is
// never refused by the exchange for precision, amounts or sides), the
// account's free balance, and the portfolio limits of the configuration,
// with a kill switch on daily loss and drawdown.
//
// A refusal is a *Rejection naming the rule and, where one exists, the code
// the live service would have returned.
package risk

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// Rules of the gate beyond the exchange's symbol rules (exchange.Rule...).
const (
	RuleUnknownSymbol = "unknown-symbol"
	RuleSTPGroup      = "stp-group"
	RuleBalance       = "balance"
	RuleMaxPosition   = "max-position"
	RuleMaxOpenOrders = "max-open-orders"
	RuleMaxOrderValue = "max-order-value"
	RuleKillSwitch    = "kill-switch"
	RuleRateBudget    = "rate-budget"
	// RuleIPBanned: the exchange banned the address (HTTP 418); orders
	// are refused until the ban ends rather than sent late.
	RuleIPBanned = "ip-banned"
)

// Rejection is an order the gate refused.
type Rejection struct {
	Rule   string // a Rule... constant or an exchange.Rule... constant
	Code   int    // the exchange error code the live service would return; 0 for local limits
	Reason string
	Err    error // the underlying *exchange.RuleError or *exchange.RateLimitError, if any
}

func (r *Rejection) Error() string {
	s := "risk: " + r.Rule + ": " + r.Reason
	if r.Code != 0 {
		s += fmt.Sprintf(" (exchange code %d)", r.Code)
	}
	return s
}

// Unwrap returns the underlying exchange error, if any.
func (r *Rejection) Unwrap() error { return r.Err }

func reject(rule string, code int, format string, args ...any) *Rejection {
	return &Rejection{Rule: rule, Code: code, Reason: fmt.Sprintf(format, args...)}
}

// Limits are the portfolio limits of a configuration. Zero values disable a
// limit.
type Limits struct {
	// MaxPositionValue caps the quote value of the position in one symbol
	// after a buy fills (quantity held plus bought, at the order's price).
	MaxPositionValue decimal.Decimal `koanf:"max_position_value"`
	// MaxOpenOrders caps open orders across all symbols.
	MaxOpenOrders int `koanf:"max_open_orders"`
	// MaxOrderValue caps the quote value of one order.
	MaxOrderValue decimal.Decimal `koanf:"max_order_value"`
	// MaxDailyLoss trips the kill switch when equity falls this much (in the
	// quote asset) below its value at the start of the UTC day.
	MaxDailyLoss decimal.Decimal `koanf:"max_daily_loss"`
	// MaxDrawdown trips the kill switch when equity falls this fraction
	// (0.2 = 20%) below its peak.
	MaxDrawdown decimal.Decimal `koanf:"max_drawdown"`
}

// Validate reports the first invalid limit, naming its field.
func (l Limits) Validate() error {
	switch {
	case l.MaxPositionValue.IsNegative():
		return errors.New("max_position_value: must not be negative")
	case l.MaxOpenOrders < 0:
		return errors.New("max_open_orders: must not be negative")
	case l.MaxOrderValue.IsNegative():
		return errors.New("max_order_value: must not be negative")
	case l.MaxDailyLoss.IsNegative():
		return errors.New("max_daily_loss: must not be negative")
	case l.MaxDrawdown.IsNegative() || l.MaxDrawdown.GreaterThanOrEqual(decimal.NewFromInt(1)):
		return errors.New("max_drawdown: must be a fraction in [0, 1)")
	}
	return nil
}

// View is what the gate needs to know about the account and the market at
// the moment an order is checked. The runtime implements it from its own
// tracked state, so a check does no I/O.
type View interface {
	// Symbol returns the rules of a symbol.
	Symbol(symbol string) (*exchange.SymbolInfo, bool)
	// LastPrice returns the latest trade price, zero if unknown.
	LastPrice(symbol string) decimal.Decimal
	// Free returns the free balance of an asset.
	Free(asset string) decimal.Decimal
	// OpenOrders returns the number of open orders across all symbols.
	OpenOrders() int
	// Position returns the base quantity held for a symbol.
	Position(symbol string) decimal.Decimal
	// HasSTPGroup reports whether the account has a self-trade prevention
	// group, without which an stpMode has no effect.
	HasSTPGroup() bool
}

// FixedLastPricer is an optional capability of a View that holds a
// symbol's last price as an exchange.Fixed (a backtest's runtime keeps a
// bar's close so): LastPriceFixed returns it, and false when the view has
// it only as a decimal or not at all (the gate then asks LastPrice). The
// rules are applied with it (exchange.SymbolInfo.CheckRulesFixed), with
// the same answers, without building its decimal.
type FixedLastPricer interface {
	LastPriceFixed(symbol string) (exchange.Fixed, bool)
}

// FixedFreer is an optional capability of a View that holds balances as
// exchange.Fixed (a backtest's runtime reads the simulator's so):
// FreeFixed returns an asset's free amount, and false when the view has it
// only as a decimal (the gate then asks Free). The balance rule compares
// with it, with the same answers, and builds its decimal only to quote it
// in a refusal.
type FixedFreer interface {
	FreeFixed(asset string) (exchange.Fixed, bool)
}

// BudgetMode says what the gate does when the order pool's budget is spent.
type BudgetMode uint8

const (
	// BudgetWait waits for the budget (context-aware).
	BudgetWait BudgetMode = iota
	// BudgetReject refuses the order with RuleRateBudget.
	BudgetReject
)

// Gate checks orders. It is safe for concurrent use.
type Gate struct {
	limits     Limits
	budget     *exchange.Budget
	budgetMode BudgetMode
	quoteFees  bool // a buy's funds must cover its fee in the quote asset

	mu     sync.Mutex
	killed string // reason, empty while trading is allowed
	// tripped is killed != "", read by Check without the lock (the
	// switch is set and reset under it).
	tripped  atomic.Bool
	peak     decimal.Decimal
	day      time.Time // the UTC day of the last observation
	dayEnd   time.Time // the day's end: day plus 24 hours
	dayStart decimal.Decimal
	dayFloor decimal.Decimal // dayStart − MaxDailyLoss
	ddKeep   decimal.Decimal // 1 − MaxDrawdown: the floor is peak × ddKeep
	// quiet mirrors the day, the peak and the floors as integers, and
	// gen counts its changes (Quiet).
	quiet Quiet
	gen   atomic.Uint64
}

// Quiet is where an observation of the equity changes nothing: the same
// UTC day as the gate's, no higher than its peak, at or above both
// floors, the switch not tripped. It holds the peak and 1 − MaxDrawdown
// as Fixeds and the daily floor in 128 bits; when one of them does not
// fit, nothing is quiet. A Quiet taken from a gate (Gate.Quiet) lets its
// caller skip the gate's lock for such observations (Gate.IsQuiet):
// a backtest with a risk limit observes every bar, and most bars are
// quiet.
type Quiet struct {
	ok          bool
	gen         uint64 // the gate's generation it was taken at
	day, dayEnd time.Time
	peak        exchange.Fixed
	floor       exchange.Wide // the higher floor: the day's, or peak × (1 − MaxDrawdown)
	// peakC and floorC are the peak and the floor as coefficients at
	// exponent exp, the finer of theirs without trailing zeros, when both
	// fit an int64 (atExp): an equity whose value is a whole number of
	// 10^exp (its exponent moves with the holdings, and its coefficient
	// often ends in zeros) is then compared in integers.
	exp           int32
	peakC, floorC int64
	atExp         bool
}

// holds reports whether observing equity at now is quiet.
func (q *Quiet) holds(equity exchange.Fixed, now time.Time) bool {
	if !q.ok || now.Compare(q.day) < 0 || now.Compare(q.dayEnd) >= 0 {
		return false
	}
	if c, ok := equity.CoefAt(q.exp); ok && q.atExp {
		return c <= q.peakC && c >= q.floorC
	}
	return equity.Cmp(q.peak) <= 0 && equity.CmpWide(q.floor) >= 0
}

// Quiet returns where an observation changes nothing, as the gate stands.
func (g *Gate) Quiet() Quiet {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.quiet
}

// IsQuiet reports whether observing equity at now would change nothing,
// by q, taken from this gate and still current (the gate has not changed
// since): then the observation can be left out. It takes no lock.
func (g *Gate) IsQuiet(q *Quiet, equity exchange.Fixed, now time.Time) bool {
	return g.Current(q) && q.holds(equity, now)
}

// Current reports whether q, taken from this gate, is still current.
func (g *Gate) Current(q *Quiet) bool { return q.gen == g.gen.Load() }

// Day is the UTC day q holds in: from its start up to, not including,
// its end.
func (q *Quiet) Day() (start, end time.Time) { return q.day, q.dayEnd }

// PriceRange is where an equity of rest plus qty units of an asset priced
// c × 10^exp is quiet, in value (the time is the caller's to check
// against Day): for c from lo to hi, both included (none when lo > hi).
// A backtest's run of bars between orders moves one price, so the range
// is found once for the run instead of summing the equity at each bar.
// The comparison is taken in integers at the finest of the exponents
// involved. It is false when q has no integer bounds, qty is negative, or
// a value there does not fit an int64.
func (q *Quiet) PriceRange(rest, qty exchange.Fixed, exp int32) (lo, hi int64, ok bool) {
	pe := int64(qty.Exp) + int64(exp) // a unit of c adds qty.Coef × 10^pe
	if !q.ok || !q.atExp || qty.Coef < 0 || pe < math.MinInt32 || pe > math.MaxInt32 {
		return 0, 0, false
	}
	at := min(q.exp, rest.Exp, int32(pe))
	var fits [6]bool
	var f, p, r, u, above, below int64
	f, fits[0] = exchange.NewFixed(q.floorC, q.exp).CoefAt(at)
	p, fits[1] = exchange.NewFixed(q.peakC, q.exp).CoefAt(at)
	r, fits[2] = rest.CoefAt(at)
	u, fits[3] = exchange.NewFixed(qty.Coef, int32(pe)).CoefAt(at)
	above, fits[4] = subChecked(f, r) // u×c ≥ floor − rest
	below, fits[5] = subChecked(p, r) // u×c ≤ peak − rest
	switch {
	case fits != [6]bool{true, true, true, true, true, true}:
		return 0, 0, false
	case u == 0 && above <= 0 && below >= 0:
		return math.MinInt64, math.MaxInt64, true
	case u == 0:
		return 1, 0, true
	}
	return ceilDiv(above, u), floorDiv(below, u), true
}

// subChecked is a − b, and false when that overflows an int64.
func subChecked(a, b int64) (int64, bool) {
	d := a - b
	return d, (d < a) == (b > 0)
}

// floorDiv is ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// ceilDiv is ⌈a/b⌉ for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}

// changed bumps the generation after the quiet range changed (under the
// lock).
func (g *Gate) changed() {
	g.quiet.gen = g.gen.Add(1)
}

// Option configures a Gate.
type Option func(*Gate)

// WithBudget makes the gate check the order pool of the budget the trading
// port draws from (without drawing: the port draws when it sends).
func WithBudget(b *exchange.Budget, mode BudgetMode) Option {
	return func(g *Gate) { g.budget, g.budgetMode = b, mode }
}

// WithQuoteFees tells the gate that the exchange charges a buyer's fee in
// the quote asset and locks it with the order (the simulator's
// sim.fee_asset: quote): the free-balance check of a priced or
// quantity-sized buy then counts its notional plus the most its fee can be
// (exchange.SymbolInfo.MaxQuoteFee), as the simulator locks it. A
// quote-sized market buy (quoteOrderQty) is checked by its amount alone:
// the exchange spends that amount on the asset and the fee together. The
// portfolio limits keep valuing the notional without the fee.
func WithQuoteFees() Option {
	return func(g *Gate) { g.quoteFees = true }
}

// New returns a gate with the given limits.
func New(limits Limits, opts ...Option) (*Gate, error) {
	if err := limits.Validate(); err != nil {
		return nil, fmt.Errorf("risk: %w", err)
	}
	g := &Gate{limits: limits}
	for _, o := range opts {
		o(g)
	}
	return g, nil
}

// Check refuses o with a *Rejection, or returns nil. With a budget in wait
// mode it may block until the order pool has room or ctx ends.
func (g *Gate) Check(ctx context.Context, o exchange.NewOrder, v View) error {
	if g.tripped.Load() {
		g.mu.Lock()
		killed := g.killed
		g.mu.Unlock()
		if killed != "" {
			return reject(RuleKillSwitch, 0, "trading stopped: %s", killed)
		}
	}
	// The request-shape rules first, as the exchange applies them: a
	// malformed order is refused with exchange's own error even when its
	// symbol is unknown.
	if err := o.Validate(); err != nil {
		return exchangeRejection(err)
	}
	info, ok := v.Symbol(o.Symbol)
	if !ok {
		return reject(RuleUnknownSymbol, exchange.CodeBadSymbol, "unknown symbol %q", o.Symbol)
	}
	// The last price is read only where a rule needs it, and as a Fixed
	// when the view holds it so: a backtest's runtime keeps a bar's close
	// compact, and a quote-sized market buy needs none.
	var last decimal.Decimal
	var lastFix exchange.Fixed
	fixed := false
	if exchange.RulesReadLast(o) {
		if fv, ok := v.(FixedLastPricer); ok {
			lastFix, fixed = fv.LastPriceFixed(o.Symbol)
		}
		if !fixed {
			last = v.LastPrice(o.Symbol)
		}
	}
	var err error
	if fixed {
		err = info.CheckRulesFixed(o, lastFix)
	} else {
		err = info.CheckRules(o, last)
	}
	if err != nil {
		return exchangeRejection(err)
	}
	if o.STPMode != exchange.STPNone && !v.HasSTPGroup() {
		return reject(RuleSTPGroup, 0, "stpMode %s set but the account has no STP group, so it would have no effect", o.STPMode)
	}
	// A sell's value is read only by the order-value limit.
	var notional decimal.Decimal
	if o.Side == exchange.SideBuy || g.limits.MaxOrderValue.IsPositive() {
		if fixed && o.Type == exchange.TypeMarket && !o.QuoteOrderQty.IsPositive() {
			last = lastFix.Decimal() // quantity × last; a quote-sized order's value is its amount
		}
		notional = orderValue(o, last)
	}
	if err := g.checkBalance(o, info, v, notional); err != nil {
		return err
	}
	if err := g.checkPortfolio(o, v, notional); err != nil {
		return err
	}
	return g.checkBudget(ctx)
}

// exchangeRejection is the gate's refusal of an order the exchange's rules
// refuse: the rule, code and message of the *exchange.RuleError, which it
// wraps, so errors.As finds the same *exchange.APIError the exchange gives.
func exchangeRejection(err error) *Rejection {
	var re *exchange.RuleError
	if errors.As(err, &re) {
		return &Rejection{Rule: re.Rule, Code: re.Code, Reason: re.Msg, Err: err}
	}
	return &Rejection{Rule: exchange.RuleParameters, Reason: err.Error(), Err: err}
}

// orderValue is the quote value of o: price × quantity for priced orders,
// quoteOrderQty or quantity × last for market orders (last is read only
// for a quantity-sized one, which RulesReadLast covers).
func orderValue(o exchange.NewOrder, last decimal.Decimal) decimal.Decimal {
	switch {
	case o.Type != exchange.TypeMarket:
		return o.Price.Mul(o.Quantity)
	case o.QuoteOrderQty.IsPositive():
		return o.QuoteOrderQty
	}
	return o.Quantity.Mul(last)
}

// checkBalance reads notional for a buy only. Its comparisons are
// exchange.CmpDecimal's, which build no rescaled copy.
func (g *Gate) checkBalance(o exchange.NewOrder, info *exchange.SymbolInfo, v View, notional decimal.Decimal) error {
	if o.Side == exchange.SideSell {
		if free := readFree(v, info.BaseAsset); free.cmp(o.Quantity) < 0 {
			return reject(RuleBalance, exchange.CodeInsufficientPosition, "sell %s %s but only %s free", o.Quantity, info.BaseAsset, free.decimal())
		}
		return nil
	}
	free := readFree(v, info.QuoteAsset)
	if g.quoteFees && !(o.Type == exchange.TypeMarket && o.QuoteOrderQty.IsPositive()) {
		fee := info.MaxQuoteFee(notional)
		if need := notional.Add(fee); free.cmp(need) < 0 {
			return reject(RuleBalance, exchange.CodeInsufficientPosition, "buy for %s %s and up to %s %s in fees but only %s free",
				notional, info.QuoteAsset, fee, info.QuoteAsset, free.decimal())
		}
		return nil
	}
	if free.cmp(notional) < 0 {
		return reject(RuleBalance, exchange.CodeInsufficientPosition, "buy for %s %s but only %s free", notional, info.QuoteAsset, free.decimal())
	}
	return nil
}

// freeAmount is a free balance as the view gave it: a Fixed (FixedFreer)
// or a decimal.
type freeAmount struct {
	fix   exchange.Fixed
	dec   decimal.Decimal
	fixed bool
}

func readFree(v View, asset string) freeAmount {
	if fv, ok := v.(FixedFreer); ok {
		if f, ok := fv.FreeFixed(asset); ok {
			return freeAmount{fix: f, fixed: true}
		}
	}
	return freeAmount{dec: v.Free(asset)}
}

// cmp compares the free amount with d, as exchange.CmpDecimal does.
func (a freeAmount) cmp(d decimal.Decimal) int {
	if a.fixed {
		return a.fix.CmpDecimal(d)
	}
	return exchange.CmpDecimal(a.dec, d)
}

// decimal is the free amount as a decimal, for a refusal's text.
func (a freeAmount) decimal() decimal.Decimal {
	if a.fixed {
		return a.fix.Decimal()
	}
	return a.dec
}

// checkPortfolio reads notional for a buy, or with an order-value limit.
func (g *Gate) checkPortfolio(o exchange.NewOrder, v View, notional decimal.Decimal) error {
	l := g.limits
	if l.MaxOpenOrders > 0 && o.Type != exchange.TypeMarket && v.OpenOrders() >= l.MaxOpenOrders {
		return reject(RuleMaxOpenOrders, 0, "%d open orders, the limit is %d", v.OpenOrders(), l.MaxOpenOrders)
	}
	if l.MaxOrderValue.IsPositive() && exchange.CmpDecimal(notional, l.MaxOrderValue) > 0 {
		return reject(RuleMaxOrderValue, 0, "order value %s above the limit %s", notional, l.MaxOrderValue)
	}
	if l.MaxPositionValue.IsPositive() && o.Side == exchange.SideBuy {
		price := o.Price
		if o.Type == exchange.TypeMarket {
			price = v.LastPrice(o.Symbol)
		}
		after := v.Position(o.Symbol).Mul(price).Add(notional)
		if after.GreaterThan(l.MaxPositionValue) {
			return reject(RuleMaxPosition, 0, "position in %s would be worth %s, the limit is %s", o.Symbol, after, l.MaxPositionValue)
		}
	}
	return nil
}

func (g *Gate) checkBudget(ctx context.Context) error {
	if g.budget == nil {
		return nil
	}
	if until := g.budget.BannedUntil(); !until.IsZero() {
		return &Rejection{Rule: RuleIPBanned, Code: exchange.CodeTooManyRequests,
			Reason: "the exchange banned this IP (HTTP 418) until " + until.UTC().Format(time.RFC3339)}
	}
	for {
		wait := g.budget.Peek(exchange.EpNewOrder)
		if wait == 0 {
			return nil
		}
		if g.budgetMode == BudgetReject {
			return &Rejection{Rule: RuleRateBudget, Code: exchange.CodeTooManyRequests,
				Reason: fmt.Sprintf("order budget spent; room in %s", wait)}
		}
		if err := g.budget.Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// Observe feeds the account's equity (in the quote asset) at time now and
// trips the kill switch when the daily loss or drawdown limit is exceeded.
// It returns true exactly once, when the switch trips, so the caller can
// cancel open orders.
func (g *Gate) Observe(equity decimal.Decimal, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.observe(equity, now)
}

// ObserveFixed is Observe for an equity held as a Fixed (the runtime sums
// it in int64s at every bar of a backtest). A quiet observation (Quiet)
// is compared as a Fixed without building its decimal; any other takes
// Observe's path with equity.Decimal().
func (g *Gate) ObserveFixed(equity exchange.Fixed, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.quiet.holds(equity, now) {
		return false
	}
	return g.observe(equity.Decimal(), now)
}

// observe is Observe with the lock held.
func (g *Gate) observe(equity decimal.Decimal, now time.Time) bool {
	day := now.UTC().Truncate(24 * time.Hour)
	if !day.Equal(g.day) {
		g.day, g.dayEnd, g.dayStart = day, day.Add(24*time.Hour), equity
		g.setFloors()
	}
	// A backtest observes every bar. The comparisons build no decimal
	// (the equity, its peak and the floors have different exponents, and
	// decimal's Cmp would rescale one): the common case, well inside both
	// limits, costs three.
	if exchange.CmpDecimal(equity, g.peak) > 0 {
		g.peak = equity
		g.setFloors()
	}
	if g.killed != "" {
		return false
	}
	if exchange.CmpDecimal(equity, g.dayFloor) >= 0 && exchange.CmpMul(equity, g.peak, g.ddKeep) >= 0 {
		return false
	}
	if l := g.limits.MaxDailyLoss; l.IsPositive() {
		if loss := g.dayStart.Sub(equity); loss.GreaterThan(l) {
			g.trip(fmt.Sprintf("daily loss %s exceeds %s", loss, l))
			return true
		}
	}
	if m := g.limits.MaxDrawdown; m.IsPositive() && g.peak.IsPositive() {
		dd := g.peak.Sub(equity).Div(g.peak)
		if dd.GreaterThan(m) {
			g.trip(fmt.Sprintf("drawdown %s%% exceeds %s%%", dd.Mul(decimal.NewFromInt(100)).StringFixed(2), m.Mul(decimal.NewFromInt(100)).String()))
			return true
		}
	}
	return false
}

// setFloors derives the equity below which a limit may be broken:
// dayStart − MaxDailyLoss, and peak × (1 − MaxDrawdown), since
// peak − equity > m × peak ⟺ equity < peak × (1 − m); Observe compares
// with the product without building it. A disabled limit has floor zero,
// which equity never goes below.
func (g *Gate) setFloors() {
	g.dayFloor, g.ddKeep = decimal.Zero, decimal.Zero
	if l := g.limits.MaxDailyLoss; l.IsPositive() {
		g.dayFloor = g.dayStart.Sub(l)
	}
	if m := g.limits.MaxDrawdown; m.IsPositive() {
		g.ddKeep = decimal.NewFromInt(1).Sub(m)
	}
	// The quiet range's floor is the higher of the two, taken exactly
	// once here (at a new day, a new peak, a Reset). observe keeps its
	// own comparisons: with the product in 128 bits (CmpMul) they build
	// no decimal, where this floor can have 20 digits.
	q := &g.quiet
	floor := g.dayFloor
	if dd := g.peak.Mul(g.ddKeep); exchange.CmpDecimal(dd, floor) > 0 {
		floor = dd
	}
	// Both are kept without trailing zeros: an equity of 19 digits at 18
	// decimals is often a short number, and its peak then fits an int64.
	var ok [3]bool
	var peak, fl exchange.Wide
	peak, ok[0] = exchange.WideOf(g.peak)
	q.peak, ok[1] = peak.Trimmed().Fixed()
	fl, ok[2] = exchange.WideOf(floor)
	q.floor = fl.Trimmed()
	q.day, q.dayEnd = g.day, g.dayEnd
	q.ok = ok == [3]bool{true, true, true} && g.killed == ""
	q.atExp = false
	if f, fits := q.floor.Fixed(); q.ok && fits {
		q.exp = min(q.peak.Exp, f.Exp)
		var ok1, ok2 bool
		q.peakC, ok1 = q.peak.CoefAt(q.exp)
		q.floorC, ok2 = f.CoefAt(q.exp)
		q.atExp = ok1 && ok2
	}
	g.changed()
}

// trip stops trading for reason (under the lock).
func (g *Gate) trip(reason string) {
	g.killed = reason
	g.tripped.Store(true)
	g.quiet.ok = false
	g.changed()
}

// Killed returns why trading was stopped, or "".
func (g *Gate) Killed() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.killed
}

// Reset re-arms the kill switch (an operator decision) at the account's
// equity now: the peak and the day's start become it.
func (g *Gate) Reset(equity decimal.Decimal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.killed = ""
	g.tripped.Store(false)
	g.peak = equity
	g.dayStart = equity
	g.setFloors()
}

package risk

import (
	"context"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

type view struct {
	info     exchange.SymbolInfo
	last     decimal.Decimal
	free     map[string]decimal.Decimal
	open     int
	position decimal.Decimal
	stp      bool
}

func (v *view) Symbol(s string) (*exchange.SymbolInfo, bool) {
	if s != v.info.Symbol {
		return nil, false
	}
	return &v.info, true
}
func (v *view) LastPrice(string) decimal.Decimal { return v.last }
func (v *view) Free(a string) decimal.Decimal    { return v.free[a] }
func (v *view) OpenOrders() int                  { return v.open }
func (v *view) Position(string) decimal.Decimal  { return v.position }
func (v *view) HasSTPGroup() bool                { return v.stp }

func newView() *view {
	return &view{
		info: exchange.SymbolInfo{
			Symbol: "BTCUSDT", Status: exchange.SymbolOnline, BaseAsset: "BTC", QuoteAsset: "USDT",
			BaseAssetPrecision: 4, QuotePrecision: 2, OrderTypes: []exchange.OrderType{exchange.TypeLimit, exchange.TypeMarket},
			IsSpotTradingAllowed: true, TradeSideType: exchange.TradeSideAll, QuoteAmountPrecision: d("5"),
		},
		last: d("20000"),
		free: map[string]decimal.Decimal{"USDT": d("1000"), "BTC": d("0.5")},
	}
}

func buy(qty, price string) exchange.NewOrder {
	return exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: d(qty), Price: d(price)}
}

func TestGateCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limits Limits
		mutate func(*view)
		order  exchange.NewOrder
		rule   string
		code   int
	}{
		{name: "passes", order: buy("0.01", "20000")},
		{name: "unknown symbol", order: exchange.NewOrder{Symbol: "XYZ", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: d("1"), Price: d("1")}, rule: RuleUnknownSymbol, code: exchange.CodeBadSymbol},
		{name: "exchange rule: precision", order: buy("0.00001", "20000"), rule: exchange.RulePrecision, code: exchange.CodeParameterError},
		{name: "exchange rule: min amount", order: buy("0.0001", "20000"), rule: exchange.RuleMinAmount, code: exchange.CodeBelowMinVolume},
		{name: "exchange rule: paused", mutate: func(v *view) { v.info.Status = exchange.SymbolPaused }, order: buy("0.01", "20000"), rule: exchange.RuleSymbolStatus, code: exchange.CodeTradingSuspended},
		{name: "stp mode without group", order: func() exchange.NewOrder { o := buy("0.01", "20000"); o.STPMode = exchange.STPCancelMaker; return o }(), rule: RuleSTPGroup},
		{name: "stp mode with group", mutate: func(v *view) { v.stp = true }, order: func() exchange.NewOrder { o := buy("0.01", "20000"); o.STPMode = exchange.STPCancelMaker; return o }()},
		{name: "buy above free quote", order: buy("0.0501", "20000"), rule: RuleBalance, code: exchange.CodeInsufficientPosition},
		{name: "buy exactly free quote", order: buy("0.05", "20000")},
		{name: "sell above free base", order: exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideSell, Type: exchange.TypeLimit, Quantity: d("0.5001"), Price: d("20000")}, rule: RuleBalance, code: exchange.CodeInsufficientPosition},
		{name: "market buy by quote above free", order: exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: d("1000.01")}, rule: RuleBalance, code: exchange.CodeInsufficientPosition},
		{name: "max open orders", limits: Limits{MaxOpenOrders: 3}, mutate: func(v *view) { v.open = 3 }, order: buy("0.01", "20000"), rule: RuleMaxOpenOrders},
		{name: "max order value", limits: Limits{MaxOrderValue: d("199.99")}, order: buy("0.01", "20000"), rule: RuleMaxOrderValue},
		{name: "max position value", limits: Limits{MaxPositionValue: d("2199")}, mutate: func(v *view) { v.position = d("0.1") }, order: buy("0.01", "20000"), rule: RuleMaxPosition},
		{name: "max position value at limit", limits: Limits{MaxPositionValue: d("2200")}, mutate: func(v *view) { v.position = d("0.1") }, order: buy("0.01", "20000")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := New(tt.limits)
			if err != nil {
				t.Fatal(err)
			}
			v := newView()
			if tt.mutate != nil {
				tt.mutate(v)
			}
			err = g.Check(t.Context(), tt.order, v)
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("Check = %v", err)
				}
				return
			}
			var r *Rejection
			if !errors.As(err, &r) {
				t.Fatalf("Check = %v, want *Rejection", err)
			}
			if r.Rule != tt.rule || r.Code != tt.code {
				t.Errorf("rule %q code %d, want %q %d: %v", r.Rule, r.Code, tt.rule, tt.code, err)
			}
		})
	}
}

func TestKillSwitch(t *testing.T) {
	t.Parallel()
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	t.Run("daily loss", func(t *testing.T) {
		g, _ := New(Limits{MaxDailyLoss: d("100")})
		if g.Observe(d("1000"), day.Add(time.Hour)) {
			t.Fatal("tripped at start")
		}
		if g.Observe(d("900"), day.Add(2*time.Hour)) {
			t.Fatal("tripped at a loss of exactly the limit")
		}
		if !g.Observe(d("899.99"), day.Add(3*time.Hour)) {
			t.Fatal("did not trip at a loss above the limit")
		}
		if g.Observe(d("800"), day.Add(4*time.Hour)) {
			t.Fatal("tripped twice")
		}
		if got := g.Killed(); got != "daily loss 100.01 exceeds 100" {
			t.Errorf("Killed = %q", got)
		}
		err := g.Check(t.Context(), buy("0.01", "20000"), newView())
		var r *Rejection
		if !errors.As(err, &r) || r.Rule != RuleKillSwitch {
			t.Fatalf("Check after kill = %v", err)
		}
		g.Reset(d("800")) // the equity last observed
		if err := g.Check(t.Context(), buy("0.01", "20000"), newView()); err != nil {
			t.Fatalf("Check after Reset = %v", err)
		}
	})
	t.Run("new day resets the daily base", func(t *testing.T) {
		g, _ := New(Limits{MaxDailyLoss: d("100")})
		g.Observe(d("1000"), day.Add(23*time.Hour))
		g.Observe(d("950"), day.Add(23*time.Hour+30*time.Minute))
		if g.Observe(d("860"), day.Add(25*time.Hour)) {
			t.Fatal("tripped on a loss measured against yesterday")
		}
	})
	t.Run("drawdown", func(t *testing.T) {
		g, _ := New(Limits{MaxDrawdown: d("0.2")})
		g.Observe(d("1000"), day)
		g.Observe(d("1250"), day.Add(time.Hour))
		if g.Observe(d("1000"), day.Add(2*time.Hour)) {
			t.Fatal("tripped at exactly 20%")
		}
		if !g.Observe(d("999"), day.Add(3*time.Hour)) {
			t.Fatal("did not trip above 20%")
		}
		if got := g.Killed(); got != "drawdown 20.08% exceeds 20%" {
			t.Errorf("Killed = %q", got)
		}
	})
}

// Observing an equity between the floors and the peak builds no decimal,
// at the exponents and sizes a backtest's equity has (19 digits at 14
// decimals, its floor at 15), and the drawdown limit holds as before:
// exactly half the peak does not trip it, a cent below does.
func TestObserveDoesNotAllocate(t *testing.T) {
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	g, _ := New(Limits{MaxDrawdown: d("0.5"), MaxDailyLoss: d("15000")})
	g.Observe(d("20438.17017532710001"), day)
	eq := d("15123.45678901234567")
	if n := testing.AllocsPerRun(100, func() { g.Observe(eq, day.Add(time.Hour)) }); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
	fixed := exchange.NewFixed(1512345678901234567, -14)
	if n := testing.AllocsPerRun(100, func() { g.ObserveFixed(fixed, day.Add(time.Hour)) }); n != 0 {
		t.Errorf("ObserveFixed: %v allocations, want 0", n)
	}
	if g.Observe(d("10219.085087663550005"), day.Add(2*time.Hour)) {
		t.Fatal("tripped at exactly half the peak")
	}
	if !g.Observe(d("10219.075087663550005"), day.Add(3*time.Hour)) {
		t.Fatal("did not trip a cent below half the peak")
	}
}

// ObserveFixed decides as Observe does: two gates, one fed decimals and
// one Fixeds, over random walks of equities of 19 digits at 14 decimals
// across days, with both limits, trip at the same observation with the
// same reason, and after a Reset at the equity that tripped them go on
// agreeing. A third gate, observed only where its last Quiet does not
// hold, agrees with them too.
func TestObserveFixedAgreesWithObserve(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	trips, quiet := 0, 0
	for walk := range 40 {
		limits := Limits{MaxDrawdown: d("0.08"), MaxDailyLoss: d("900")}
		switch walk % 4 {
		case 0:
			limits.MaxDailyLoss = decimal.Decimal{}
		case 2: // a daily floor of more than 19 digits at 14 decimals
			limits.MaxDailyLoss = d("200000")
		}
		a, _ := New(limits)
		b, _ := New(limits)
		c, _ := New(limits) // observed only when its Quiet says so
		q := c.Quiet()
		// 10,000 to 20,000 at 14 decimals (19 digits), or, in every
		// other walk, at 8 (the quiet range's integer bounds then fit).
		exp, unit := int32(-14), int64(1_000_000_000_000)
		if walk%2 == 1 {
			exp, unit = -8, 1_000_000
		}
		eq := 10_000*unit*100 + r.Int64N(10_000*unit*100)
		at := day
		for i := range 2000 {
			eq += (r.Int64N(12001) - 6000) * unit // ± 60 a step
			if i%7 == 0 {
				eq += r.Int64N(unit) // off the step's grid
			}
			at = at.Add(time.Duration(1+r.IntN(90)) * time.Minute)
			f := exchange.NewFixed(eq, exp)
			ta, tb := a.Observe(f.Decimal(), at), b.ObserveFixed(f, at)
			if ta != tb || a.Killed() != b.Killed() {
				t.Fatalf("walk %d step %d (%s at %s): Observe %v %q, ObserveFixed %v %q", walk, i, f, at, ta, a.Killed(), tb, b.Killed())
			}
			tc := false
			if c.IsQuiet(&q, f, at) {
				quiet++
			} else {
				tc = c.ObserveFixed(f, at)
				q = c.Quiet()
			}
			if tc != ta || c.Killed() != a.Killed() {
				t.Fatalf("walk %d step %d (%s at %s): Observe %v %q, observed when not quiet %v %q", walk, i, f, at, ta, a.Killed(), tc, c.Killed())
			}
			if ta {
				trips++
				a.Reset(f.Decimal())
				b.Reset(f.Decimal())
				c.Reset(f.Decimal())
				if c.IsQuiet(&q, f, at) {
					t.Fatalf("walk %d step %d: a Quiet taken before a Reset is still quiet", walk, i)
				}
			}
		}
	}
	if trips != 61 || quiet != 73_717 {
		t.Fatalf("%d trips and %d quiet steps over the walks: want 61 and 73,717", trips, quiet)
	}
}

func TestLimitsValidate(t *testing.T) {
	t.Parallel()
	tests := map[string]Limits{
		"max_position_value": {MaxPositionValue: d("-1")},
		"max_open_orders":    {MaxOpenOrders: -1},
		"max_order_value":    {MaxOrderValue: d("-1")},
		"max_daily_loss":     {MaxDailyLoss: d("-1")},
		"max_drawdown":       {MaxDrawdown: d("1")},
	}
	for field, l := range tests {
		_, err := New(l)
		if err == nil || err.Error() != "risk: "+field+": "+map[bool]string{true: "must be a fraction in [0, 1)", false: "must not be negative"}[field == "max_drawdown"] {
			t.Errorf("%s: New = %v", field, err)
		}
	}
}

// clock is a fake clock whose After advances it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) After(dur time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.t = c.t.Add(dur)
	c.mu.Unlock()
	ch := make(chan time.Time, 1)
	ch <- c.Now()
	return ch
}

func TestGateBudget(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Unix(1700000000, 0)}
	b, err := exchange.NewBudget(clk, exchange.BudgetWait, 0, exchange.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	ep, _ := exchange.Lookup(exchange.EpNewOrder)
	for range 12 {
		if err := b.Acquire(context.Background(), exchange.EpNewOrder, ep.Draws); err != nil {
			t.Fatal(err)
		}
	}
	reject, _ := New(Limits{}, WithBudget(b, BudgetReject))
	err = reject.Check(t.Context(), buy("0.01", "20000"), newView())
	var r *Rejection
	if !errors.As(err, &r) || r.Rule != RuleRateBudget || r.Code != exchange.CodeTooManyRequests {
		t.Fatalf("reject mode: %v", err)
	}
	wait, _ := New(Limits{}, WithBudget(b, BudgetWait))
	start := clk.Now()
	if err := wait.Check(t.Context(), buy("0.01", "20000"), newView()); err != nil {
		t.Fatalf("wait mode: %v", err)
	}
	if got := clk.Now().Sub(start); got != time.Second {
		t.Errorf("waited %s, want 1s (the order pool's window)", got)
	}
	if got := b.Waited(); got != time.Second {
		t.Errorf("Waited = %s", got)
	}
}

// While the exchange bans the address, the gate refuses orders at once in
// either mode instead of waiting for the ban's end (minutes to days) and
// sending them late.
func TestGateRefusesWhileBanned(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Unix(1700000000, 0)}
	b, err := exchange.NewBudget(clk, exchange.BudgetWait, 0, exchange.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	b.Ban(2 * time.Minute)
	for _, mode := range []BudgetMode{BudgetWait, BudgetReject} {
		g, _ := New(Limits{}, WithBudget(b, mode))
		err := g.Check(t.Context(), buy("0.01", "20000"), newView())
		var r *Rejection
		if !errors.As(err, &r) || r.Rule != RuleIPBanned || r.Code != exchange.CodeTooManyRequests ||
			r.Reason != "the exchange banned this IP (HTTP 418) until 2023-11-14T22:15:20Z" {
			t.Fatalf("mode %d: %v", mode, err)
		}
	}
	if !clk.Now().Equal(time.Unix(1700000000, 0)) {
		t.Errorf("the gate waited until %s", clk.Now())
	}
	clk.t = clk.t.Add(2 * time.Minute)
	g, _ := New(Limits{}, WithBudget(b, BudgetWait))
	if err := g.Check(t.Context(), buy("0.01", "20000"), newView()); err != nil {
		t.Fatalf("after the ban: %v", err)
	}
}

// TestGateRefusesMalformedOrdersAsTheExchange sends the conformance
// suite's malformed orders through the gate: each is refused by the rule
// exchange names, with the code and message every exchange.Trader gives
// it, and the *exchange.APIError they carry is in the rejection's chain.
func TestGateRefusesMalformedOrdersAsTheExchange(t *testing.T) {
	t.Parallel()
	g, err := New(Limits{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range exchangetest.Refusals() {
		if r.IsBatch {
			continue
		}
		n++
		err := g.Check(t.Context(), r.Order, newView())
		var rej *Rejection
		if !errors.As(err, &rej) || rej.Code != r.Code || rej.Reason != r.Msg {
			t.Errorf("%s: %v, want code %d %q", r.Name, err, r.Code, r.Msg)
			continue
		}
		var re *exchange.RuleError
		if !errors.As(err, &re) || re.Rule != rej.Rule {
			t.Errorf("%s: rule %q, want the exchange's rule in the chain (%v)", r.Name, rej.Rule, err)
		}
		if err := exchangetest.WantRefusal(err, r); err != nil {
			t.Error(err)
		}
	}
	if n < 10 {
		t.Fatalf("only %d single-order refusals", n)
	}
}

// lastCounter is a view that counts its last-price reads.
type lastCounter struct {
	*view
	reads int
}

func (c *lastCounter) LastPrice(s string) decimal.Decimal {
	c.reads++
	return c.view.LastPrice(s)
}

// TestCheckReadsLastOnlyWhenNeeded: a quote-sized market buy is checked
// without the last price (a backtest's runtime builds its decimal on
// demand); a quantity-sized market sell reads it once, for its amount.
func TestCheckReadsLastOnlyWhenNeeded(t *testing.T) {
	t.Parallel()
	g, err := New(Limits{})
	if err != nil {
		t.Fatal(err)
	}
	v := newView()
	v.free["BTC"] = d("1")
	for _, c := range []struct {
		o     exchange.NewOrder
		reads int
	}{
		{exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: d("100")}, 0},
		{exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideSell, Type: exchange.TypeMarket, Quantity: d("0.01")}, 1},
		{buy("0.01", "20000"), 1},
	} {
		lc := &lastCounter{view: v}
		if err := g.Check(context.Background(), c.o, lc); err != nil {
			t.Fatalf("%+v: %v", c.o, err)
		}
		if lc.reads != c.reads {
			t.Errorf("%s %s: %d last-price reads, want %d", c.o.Side, c.o.Type, lc.reads, c.reads)
		}
	}
}

// fixedView holds the last price as an exchange.Fixed, as a backtest's
// runtime holds a bar's close, and refuses to be asked for its decimal.
type fixedView struct {
	*view
	fix exchange.Fixed
}

func (f *fixedView) LastPriceFixed(string) (exchange.Fixed, bool) { return f.fix, true }
func (f *fixedView) LastPrice(string) decimal.Decimal {
	panic("LastPrice asked of a view that holds the last price as a Fixed")
}

// TestCheckWithFixedLastPrice: a view with the last price as a Fixed gets
// the very answers (rule, code and message) a view with its decimal gets,
// for passing and refused market and limit orders, with an order-value
// limit that values a market order at the last price.
func TestCheckWithFixedLastPrice(t *testing.T) {
	t.Parallel()
	g, err := New(Limits{MaxOrderValue: d("300")})
	if err != nil {
		t.Fatal(err)
	}
	market := func(side exchange.Side, qty string) exchange.NewOrder {
		return exchange.NewOrder{Symbol: "BTCUSDT", Side: side, Type: exchange.TypeMarket, Quantity: d(qty)}
	}
	var refusals int
	for _, o := range []exchange.NewOrder{
		market(exchange.SideSell, "0.01"),    // passes: 200 USDT
		market(exchange.SideSell, "0.02"),    // 400 USDT: above the order-value limit
		market(exchange.SideBuy, "0.0002"),   // 4 USDT: below the minimum amount
		market(exchange.SideBuy, "0.01"),     // passes
		market(exchange.SideSell, "0.00001"), // precision
		buy("0.01", "20000"),
		buy("0.02", "20000"),
	} {
		v := newView()
		v.last = d("20000.00")
		want := g.Check(context.Background(), o, v)
		got := g.Check(context.Background(), o, &fixedView{view: newView(), fix: exchange.NewFixed(2000000, -2)})
		if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
			t.Errorf("%s %s %s: fixed %v, decimal %v", o.Side, o.Type, o.Quantity, got, want)
		}
		if want != nil {
			refusals++
		}
	}
	if refusals != 4 {
		t.Errorf("%d refusals, want 4: the orders do not exercise the rules", refusals)
	}
}

// fixedFreeView holds the free balances as exchange.Fixed, as a backtest's
// runtime holds the simulator's, and refuses to be asked for a decimal of
// one it holds (an asset it does not hold so is asked of the view).
type fixedFreeView struct {
	*view
	fix map[string]exchange.Fixed
}

func (f *fixedFreeView) FreeFixed(a string) (exchange.Fixed, bool) {
	x, ok := f.fix[a]
	return x, ok
}
func (f *fixedFreeView) Free(a string) decimal.Decimal {
	if _, ok := f.fix[a]; ok {
		panic("Free asked of a view that holds " + a + " as a Fixed")
	}
	return f.view.Free(a)
}

// TestCheckWithFixedFree: a view with the free balances as Fixed gets the
// very answers (rule, code and message, the free amount quoted with its
// exponent) a view with their decimals gets, for sells and buys that pass
// and that the balance rule refuses, with and without quote fees, and
// with one asset the view has only as a decimal.
func TestCheckWithFixedFree(t *testing.T) {
	t.Parallel()
	plain, err := New(Limits{})
	if err != nil {
		t.Fatal(err)
	}
	fees, err := New(Limits{}, WithQuoteFees())
	if err != nil {
		t.Fatal(err)
	}
	market := func(side exchange.Side, qty, quote string) exchange.NewOrder {
		o := exchange.NewOrder{Symbol: "BTCUSDT", Side: side, Type: exchange.TypeMarket}
		if qty != "" {
			o.Quantity = d(qty)
		}
		if quote != "" {
			o.QuoteOrderQty = d(quote)
		}
		return o
	}
	frees := []map[string]exchange.Fixed{
		{"USDT": exchange.NewFixed(100000, -2), "BTC": exchange.NewFixed(50000000, -8)}, // 1000.00 USDT, 0.50000000 BTC
		{"USDT": exchange.NewFixed(1000, 0)},                                            // BTC only as a decimal
	}
	var refusals int
	for _, g := range []*Gate{plain, fees} {
		for _, fx := range frees {
			for _, o := range []exchange.NewOrder{
				market(exchange.SideSell, "0.5", ""),    // passes: all of it
				market(exchange.SideSell, "0.5001", ""), // more than free
				market(exchange.SideBuy, "", "1000"),    // passes: all of it
				market(exchange.SideBuy, "", "1000.01"),
				buy("0.05", "20000"), // 1000: passes
				buy("0.0499", "20000"),
				buy("0.06", "20000"),
			} {
				v := newView()
				for a, f := range fx {
					v.free[a] = f.Decimal()
				}
				want := g.Check(context.Background(), o, v)
				got := g.Check(context.Background(), o, &fixedFreeView{view: v, fix: fx})
				if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
					t.Errorf("%s %s %s %s: fixed %v, decimal %v", o.Side, o.Type, o.Quantity, o.QuoteOrderQty, got, want)
				}
				if want != nil {
					refusals++
				}
			}
		}
	}
	if refusals != 12 {
		t.Errorf("%d refusals, want 12: the orders do not exercise the rule", refusals)
	}
	err = plain.Check(context.Background(), market(exchange.SideBuy, "", "1000.01"), &fixedFreeView{view: newView(), fix: frees[0]})
	if err == nil || err.Error() != "risk: balance: buy for 1000.01 USDT but only 1000 free (exchange code 30004)" {
		t.Errorf("refusal %v", err)
	}
}

// A Quiet holds inside the day it was taken on, at or below the peak and
// at or above both floors, and not once the gate has changed since it was
// taken, even for an equity it would still hold for.
func TestQuiet(t *testing.T) {
	t.Parallel()
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	g, _ := New(Limits{MaxDrawdown: d("0.08"), MaxDailyLoss: d("50")})
	fx := func(s string) exchange.Fixed {
		f, ok := exchange.FixedOf(d(s))
		if !ok {
			t.Fatalf("%s does not fit a Fixed", s)
		}
		return f
	}
	if q := g.Quiet(); g.IsQuiet(&q, fx("1000"), day) {
		t.Fatal("quiet before the first observation")
	}
	g.Observe(d("1000"), day.Add(time.Hour)) // peak 1000; floors 920 (drawdown) and 950 (the day's loss)
	q := g.Quiet()
	for _, c := range []struct {
		eq    string
		at    time.Duration
		quiet bool
	}{
		{"1000", 2 * time.Hour, true},
		{"950", 2 * time.Hour, true},
		{"949.99", 2 * time.Hour, false},  // below the day's floor
		{"1000.01", 2 * time.Hour, false}, // a new peak
		{"1000", 24 * time.Hour, false},   // the next day
		{"1000", -time.Nanosecond, false}, // the day before
	} {
		if got := g.IsQuiet(&q, fx(c.eq), day.Add(c.at)); got != c.quiet {
			t.Errorf("%s at %s: quiet %v, want %v", c.eq, c.at, got, c.quiet)
		}
	}
	// A new peak moves the drawdown floor to 1012: the Quiet taken before
	// no longer answers, though 960 was quiet by it.
	g.Observe(d("1100"), day.Add(3*time.Hour))
	if g.IsQuiet(&q, fx("960"), day.Add(4*time.Hour)) {
		t.Fatal("a Quiet taken before a new peak still holds")
	}
	q = g.Quiet()
	if g.IsQuiet(&q, fx("960"), day.Add(4*time.Hour)) || g.IsQuiet(&q, fx("1011.99"), day.Add(4*time.Hour)) || !g.IsQuiet(&q, fx("1012"), day.Add(4*time.Hour)) {
		t.Fatal("the new Quiet does not hold from the new floor, 1012, to the peak")
	}
	if !g.Observe(d("960"), day.Add(4*time.Hour)) {
		t.Fatal("960 did not trip the drawdown")
	}
	if q = g.Quiet(); g.IsQuiet(&q, fx("1050"), day.Add(5*time.Hour)) {
		t.Fatal("quiet with the switch tripped")
	}
	// Tripped, the gate still follows the days: a new day's floors leave
	// nothing quiet either.
	next := day.Add(24 * time.Hour)
	g.Observe(d("1050"), next)
	if q = g.Quiet(); g.IsQuiet(&q, fx("1050"), next.Add(time.Hour)) {
		t.Fatal("quiet with the switch tripped, on a new day")
	}
	g.Reset(d("960"))
	if q = g.Quiet(); !g.IsQuiet(&q, fx("960"), next.Add(time.Hour)) || g.IsQuiet(&q, fx("960.01"), next.Add(time.Hour)) {
		t.Fatal("after Reset at 960 the Quiet does not hold at 960 and only there (floors 910 and 883.2)")
	}
}

// A Quiet answers as the gate's decimals do, at the bounds' integer
// comparisons: equities one unit either side of the peak and of the
// floor at the bounds' exponent, at coarser exponents (scaled up to
// compare) and at a finer one (compared in Fixed and Wide), over gates
// in random states with both limits.
func TestQuietMatchesDecimal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	keeps := []string{"0.08", "0.5", "0.123", "0.99"}
	losses := []string{"0", "5", "33.33", "12.3456789"}
	checked := 0
	for trial := range 3000 {
		g, _ := New(Limits{MaxDrawdown: d(keeps[trial%4]), MaxDailyLoss: d(losses[(trial/4)%4])})
		at := day
		for range 1 + r.IntN(4) {
			at = at.Add(time.Duration(r.IntN(600)) * time.Minute)
			// The equity's exponent moves with the holdings: -8, -12 or
			// -18, the coefficient then ending in zeros (at -18 it does
			// not fit an int64 untrimmed).
			exp := []int32{-8, -12, -18}[r.IntN(3)]
			c := big.NewInt(9_000_000_000 + r.Int64N(2_000_000_000))
			g.Observe(decimal.NewFromBigInt(c.Mul(c, new(big.Int).SetUint64(exchange.Pow10(int(-8-exp)))), exp), at)
		}
		q := g.Quiet()
		if g.Killed() != "" {
			continue
		}
		if !q.atExp {
			t.Fatalf("trial %d: peak %s, floor %s: no integer bounds", trial, g.peak, q.floor.Decimal())
		}
		var eqs []exchange.Fixed
		for _, c := range []int64{q.floorC, q.peakC} {
			for k := range 4 { // at the bounds' exponent and up to 3 coarser
				ck := c / int64(exchange.Pow10(k))
				for _, c := range []int64{ck - 1, ck, ck + 1} {
					eqs = append(eqs, exchange.NewFixed(c, q.exp+int32(k)))
				}
			}
			// Finer by one or two digits: off the bounds' grid, and on it
			// with trailing zeros.
			for _, cd := range []int64{c - 1, c, c + 1} {
				for _, j := range []int64{-1, 0, 1} {
					eqs = append(eqs, exchange.NewFixed(10*cd+j, q.exp-1), exchange.NewFixed(100*cd+j, q.exp-2))
				}
			}
		}
		for _, eq := range eqs {
			e := eq.Decimal()
			want := exchange.CmpDecimal(e, g.peak) <= 0 && exchange.CmpDecimal(e, g.dayFloor) >= 0 && e.Cmp(g.peak.Mul(g.ddKeep)) >= 0
			if got := g.IsQuiet(&q, eq, at); got != want {
				t.Fatalf("trial %d: peak %s, day's floor %s, keep %s: %s quiet %v, want %v", trial, g.peak, g.dayFloor, g.ddKeep, e, got, want)
			}
			checked++
		}
	}
	if checked != 149_520 { // 60 equities a trial, the trials whose switch tripped left out
		t.Fatalf("%d equities checked, want 149,520", checked)
	}
}

// Quiet.PriceRange is where rest + qty × price is quiet in value: over
// gates in random states, random rests and quantities (none held too),
// the prices one coefficient either side of each end of the range, and
// random prices, are quiet exactly when inside it, by the gate's
// decimals.
func TestPriceRange(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(13, 14))
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	checked, empty, all := 0, 0, 0
	for trial := range 3000 {
		g, _ := New(Limits{MaxDrawdown: d([]string{"0.08", "0.5", "0.99"}[trial%3]), MaxDailyLoss: d([]string{"0", "5", "12.3456789"}[(trial/3)%3])})
		at := day.Add(time.Duration(r.IntN(600)) * time.Minute)
		g.Observe(exchange.NewFixed(9_000_000_000+r.Int64N(2_000_000_000), -8).Decimal(), at)
		g.Observe(exchange.NewFixed(9_000_000_000+r.Int64N(2_000_000_000), -8).Decimal(), at.Add(time.Minute))
		q := g.Quiet()
		if g.Killed() != "" {
			continue
		}
		rest := exchange.NewFixed(r.Int64N(10_000_000_000), -8) // 0 to 100
		qty := exchange.NewFixed(r.Int64N(100_000), -4)         // 0 to 10, at times none
		if trial%10 == 0 {
			qty = exchange.NewFixed(0, 0)
		}
		exp := int32(-6)
		lo, hi, ok := q.PriceRange(rest, qty, exp)
		if !ok {
			t.Fatalf("trial %d: no range for %s + %s × price (floor %s, peak %s)", trial, rest, qty, q.floor.Decimal(), q.peak)
		}
		switch {
		case lo > hi:
			empty++
		case lo == math.MinInt64:
			all++
		}
		for _, c := range []int64{lo - 1, lo, hi, hi + 1, r.Int64N(20_000_000), r.Int64N(20_000_000)} {
			if c < 0 || c > 1e15 {
				continue
			}
			e := rest.Decimal().Add(qty.Decimal().Mul(exchange.NewFixed(c, exp).Decimal()))
			want := exchange.CmpDecimal(e, g.peak) <= 0 && exchange.CmpDecimal(e, g.dayFloor) >= 0 && e.Cmp(g.peak.Mul(g.ddKeep)) >= 0
			if got := lo <= c && c <= hi; got != want {
				t.Fatalf("trial %d: %s + %s × %s = %s: in [%d, %d] %v, quiet %v", trial, rest, qty, exchange.NewFixed(c, exp), e, lo, hi, got, want)
			}
			checked++
		}
	}
	// Ranges of every kind: some empty (the rest alone below the floor, or
	// above the peak with nothing held) and some of every price.
	if checked != 13_958 || empty != 203 || all != 62 {
		t.Fatalf("%d prices checked, %d empty ranges, %d of every price; want 13,958, 203 and 62", checked, empty, all)
	}
}

// PriceRange at the edges: a rest exactly at either bound with nothing
// held is quiet at every price, a unit beyond is quiet at none, and a
// holding's range is rounded inwards; subChecked catches an int64's
// overflow.
func TestPriceRangeEdges(t *testing.T) {
	t.Parallel()
	g, _ := New(Limits{MaxDrawdown: d("0.5")})
	g.Observe(d("100"), time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)) // floor 50, peak 100
	q := g.Quiet()
	f := exchange.NewFixed
	for _, c := range []struct {
		rest, qty exchange.Fixed
		lo, hi    int64
	}{
		{f(50, 0), f(0, 0), math.MinInt64, math.MaxInt64},
		{f(10_000_000_000, -8), f(0, 0), math.MinInt64, math.MaxInt64},
		{f(4_999_999_999, -8), f(0, 0), 1, 0},
		{f(10_000_000_001, -8), f(0, 0), 1, 0},
		{f(0, 0), f(2, 0), 2500, 5000},   // 2 × c × 0.01 from 50 to 100
		{f(10, 0), f(3, 0), 1334, 3000},  // (50 − 10) / 0.03 = 1333.3…
		{f(101, 0), f(3, 0), -1700, -34}, // the rest above the peak: no positive price
	} {
		lo, hi, ok := q.PriceRange(c.rest, c.qty, -2)
		if !ok || lo != c.lo || hi != c.hi {
			t.Errorf("%s + %s × c×0.01: [%d, %d] %v, want [%d, %d]", c.rest, c.qty, lo, hi, ok, c.lo, c.hi)
		}
	}
	for _, c := range []struct {
		a, b, want int64
		ok         bool
	}{
		{5, 7, -2, true},
		{math.MinInt64, 1, 0, false},
		{math.MaxInt64, -1, 0, false},
		{math.MinInt64, -1, math.MinInt64 + 1, true},
		{-1, math.MaxInt64, math.MinInt64, true},
	} {
		if got, ok := subChecked(c.a, c.b); ok != c.ok || ok && got != c.want {
			t.Errorf("%d − %d = %d %v, want %d %v", c.a, c.b, got, ok, c.want, c.ok)
		}
	}
}

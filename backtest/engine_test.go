package backtest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/risk"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

// t0 is the open of the first bar of every micro-scenario.
var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// hbar is hourly bar i with prices o, h, l, c.
func hbar(i int, o, h, l, c string) exchange.Kline {
	t := t0.Add(time.Duration(i) * time.Hour)
	return exchange.Kline{OpenTime: t, Open: dec(o), High: dec(h), Low: dec(l), Close: dec(c), Volume: dec("1"),
		CloseTime: t.Add(time.Hour - time.Millisecond)}
}

// rulesFor returns micro-scenario rules: 4 quantity and 2 price decimals,
// a minimum order of 5, maker 0.1%, taker 0.2%.
func rulesFor(sym, base string) exchange.SymbolInfo {
	return exchange.SymbolInfo{Symbol: sym, Status: exchange.SymbolOnline, BaseAsset: base, QuoteAsset: "USDT",
		BaseAssetPrecision: 4, QuotePrecision: 2, QuoteAssetPrecision: 2, BaseCommissionPrecision: 8, QuoteCommissionPrecision: 8,
		OrderTypes:           []exchange.OrderType{exchange.TypeLimit, exchange.TypeMarket, exchange.TypeLimitMaker},
		IsSpotTradingAllowed: true, TradeSideType: exchange.TradeSideAll, QuoteAmountPrecision: dec("5"),
		QuoteAmountPrecisionMarket: dec("5"), MaxQuoteAmount: dec("1000000"), MaxQuoteAmountMarket: dec("1000000"),
		MakerCommission: dec("0.001"), TakerCommission: dec("0.002")}
}

// script is a test strategy: at the close of bar i (counted per symbol) it
// places the orders listed for i, and it records what it could see.
type script struct {
	orders map[int][]exchange.NewOrder
	seen   map[string]int
	log    []string
	errs   []string
}

func (s *script) OnKline(ctx strategy.Context, b strategy.Bar) error {
	i := s.seen[b.Symbol]
	s.seen[b.Symbol] = i + 1
	ks := ctx.Klines(b.Symbol, b.Interval, 1000)
	last := ks[len(ks)-1]
	s.log = append(s.log, fmt.Sprintf("%s#%d now=%s last=%s px=%s", b.Symbol, i, ctx.Now().Format("15:04"),
		last.OpenTime.Format("15:04"), ctx.LastPrice(b.Symbol)))
	for _, o := range s.orders[i] {
		if o.Symbol != b.Symbol {
			continue
		}
		if _, err := ctx.Place(o); err != nil {
			var rej *risk.Rejection
			if errors.As(err, &rej) {
				s.errs = append(s.errs, rej.Rule)
			} else {
				s.errs = append(s.errs, err.Error())
			}
		}
	}
	return nil
}

func runScript(t *testing.T, s *script, spec Spec) *Result {
	t.Helper()
	s.seen = map[string]int{}
	reg := strategy.NewRegistry()
	reg.Register("script", func(strategy.Config) (strategy.Strategy, error) { return s, nil })
	spec.Registry = reg
	if spec.Interval == "" {
		spec.Interval = exchange.Interval60m
	}
	if spec.Instances == nil {
		var syms []string
		for sym := range spec.Data {
			syms = append(syms, sym)
		}
		spec.Instances = []strategy.Config{{Name: "script", ID: "s", Symbols: syms, Interval: "1h"}}
	}
	res, err := Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func market(sym string, side exchange.Side, qty string) exchange.NewOrder {
	return exchange.NewOrder{Symbol: sym, Side: side, Type: exchange.TypeMarket, Quantity: dec(qty)}
}

func limit(sym string, side exchange.Side, qty, price string) exchange.NewOrder {
	return exchange.NewOrder{Symbol: sym, Side: side, Type: exchange.TypeLimit, Quantity: dec(qty), Price: dec(price)}
}

func curveText(c Curve) string {
	parts := make([]string, c.Len())
	for i, v := range c.Values {
		parts[i] = strconv.FormatFloat(v, 'f', 6, 64)
	}
	return strings.Join(parts, " ")
}

func fillText(fs Fills) string {
	parts := make([]string, fs.Len())
	for i, f := range fs.All() {
		side := "S"
		if f.IsBuyer {
			side = "B"
		}
		parts[i] = fmt.Sprintf("%s %s %s@%s fee %s %s maker=%v %s", f.Symbol, side, f.Qty, f.Price, f.Commission,
			f.CommissionAsset, f.IsMaker, f.Time.Format("15:04"))
	}
	return strings.Join(parts, "; ")
}

var fourBars = []exchange.Kline{
	hbar(0, "100", "101", "99", "100"),
	hbar(1, "102", "103", "101", "102"),
	hbar(2, "104", "106", "103", "105"),
	hbar(3, "110", "112", "109", "111"),
}

// A market order placed on bar t's close fills at bar t+1's open at the
// taker fee, in the asset received: buy 1 at 102 pays 0.002 BTC; selling
// the 0.998 left at 110 receives 109.78 and pays 0.21956 USDT.
func TestMarketOrdersFillAtNextOpen(t *testing.T) {
	t.Parallel()
	s := &script{orders: map[int][]exchange.NewOrder{
		0: {market("BTCUSDT", exchange.SideBuy, "1")},
		2: {market("BTCUSDT", exchange.SideSell, "0.998")},
	}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")}})
	wantFills := "BTCUSDT B 1@102 fee 0.002 BTC maker=false 01:00; BTCUSDT S 0.998@110 fee 0.21956 USDT maker=false 03:00"
	if got := fillText(res.Fills); got != wantFills {
		t.Errorf("fills\n got %s\nwant %s", got, wantFills)
	}
	// Equity at each close: 1000; 898 + 0.998×102; 898 + 0.998×105; 1007.56044.
	if got, want := curveText(res.Curve), "1000.000000 999.796000 1002.790000 1007.560440"; got != want {
		t.Errorf("curve %q, want %q", got, want)
	}
	if got := res.Balances["USDT"].String() + " " + res.Balances["BTC"].String(); got != "1007.56044 0" {
		t.Errorf("balances %s", got)
	}
	m := res.Metrics
	if m.Trades != 1 || m.EquityFinal != "1007.56044" || m.FeesPaid != "0.42356" || m.Volume != "211.78" {
		t.Errorf("metrics trades=%d final=%s fees=%s volume=%s", m.Trades, m.EquityFinal, m.FeesPaid, m.Volume)
	}
	// Trade: cost 102, proceeds 109.78, fees not in base 0.21956 → 7.56044.
	if tr := res.Trades[0]; tr.PnL.String() != "7.56044" || tr.EntryPrice.String() != "102" || tr.ExitPrice.String() != "110" {
		t.Errorf("trade %+v", tr)
	}
	if got := res.BuyHold["BTCUSDT"]; got[0].String() != "100" || got[1].String() != "111" || m.BuyHoldPct != 11 {
		t.Errorf("buy and hold %v %v", got, m.BuyHoldPct)
	}
}

// No look-ahead: on bar t the strategy sees bar t as the latest kline, the
// clock at bar t's close and bar t's close as the last price; its order
// fills at bar t+1's open, not at anything bar t+1 holds later.
func TestNoLookAhead(t *testing.T) {
	t.Parallel()
	s := &script{orders: map[int][]exchange.NewOrder{1: {market("BTCUSDT", exchange.SideBuy, "1")}}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")}})
	want := "BTCUSDT#0 now=01:00 last=00:00 px=100|BTCUSDT#1 now=02:00 last=01:00 px=102|" +
		"BTCUSDT#2 now=03:00 last=02:00 px=105|BTCUSDT#3 now=04:00 last=03:00 px=111"
	if got := strings.Join(s.log, "|"); got != want {
		t.Errorf("seen\n got %s\nwant %s", got, want)
	}
	if res.Fills.Len() != 1 || res.Fills.At(0).Price.String() != "104" || !res.Fills.At(0).Time.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("fills %s", fillText(res.Fills))
	}
}

// With AtSignalClose a market order fills at once at the signal bar's close.
func TestMarketAtSignalClose(t *testing.T) {
	t.Parallel()
	s := &script{orders: map[int][]exchange.NewOrder{1: {market("BTCUSDT", exchange.SideBuy, "1")}}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")},
		Fill: FillModel{AtSignalClose: true}})
	if got, want := fillText(res.Fills), "BTCUSDT B 1@102 fee 0.002 BTC maker=false 02:00"; got != want {
		t.Errorf("fills %s, want %s", got, want)
	}
}

// A resting buy at 99.50 does not fill on a bar whose low only touches it
// (trade-through, the default) and fills at its own price, maker fee, on
// the bar that trades below it; with Touch it fills on the touching bar.
func TestLimitTradeThroughAndTouch(t *testing.T) {
	t.Parallel()
	bars := []exchange.Kline{
		hbar(0, "100", "101", "100", "100"),
		hbar(1, "100", "101", "99.5", "100"), // touches 99.50
		hbar(2, "100", "101", "99", "100"),   // trades through
	}
	for _, tt := range []struct {
		touch bool
		want  string
	}{
		{false, "BTCUSDT B 2@99.5 fee 0.002 BTC maker=true 02:00"},
		{true, "BTCUSDT B 2@99.5 fee 0.002 BTC maker=true 01:00"},
	} {
		s := &script{orders: map[int][]exchange.NewOrder{0: {limit("BTCUSDT", exchange.SideBuy, "2", "99.5")}}}
		res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": bars}),
			Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")},
			Fill: FillModel{Touch: tt.touch}})
		if got := fillText(res.Fills); got != tt.want {
			t.Errorf("touch=%v: fills %s, want %s", tt.touch, got, tt.want)
		}
		// 1000 − 199 USDT, 1.998 BTC at the last close 100.
		if got := res.Balances["USDT"].String() + " " + res.Balances["BTC"].String(); got != "801 1.998" {
			t.Errorf("touch=%v: balances %s", tt.touch, got)
		}
	}
}

// A limit sell below the last price crosses: it is a taker at the next open.
func TestCrossingLimitIsTaker(t *testing.T) {
	t.Parallel()
	s := &script{orders: map[int][]exchange.NewOrder{0: {limit("BTCUSDT", exchange.SideSell, "1", "95")}}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols:  []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")},
		Balances: map[string]decimal.Decimal{"USDT": dec("0"), "BTC": dec("1")}})
	if got, want := fillText(res.Fills), "BTCUSDT S 1@102 fee 0.204 USDT maker=false 01:00"; got != want {
		t.Errorf("fills %s, want %s", got, want)
	}
}

// Slippage of 50 bps worsens a market buy at 102 to 102.51.
func TestSlippage(t *testing.T) {
	t.Parallel()
	s := &script{orders: map[int][]exchange.NewOrder{0: {market("BTCUSDT", exchange.SideBuy, "1")}}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")},
		Fill: FillModel{SlippageBps: dec("50")}})
	if res.Fills.Len() != 1 || res.Fills.At(0).Price.String() != "102.51" {
		t.Errorf("fills %s", fillText(res.Fills))
	}
	// Three ticks of 0.01 on top: 102.54; a sell at the next open, 104,
	// gets 104 × 0.995 = 103.48 less three ticks, 103.45.
	s = &script{orders: map[int][]exchange.NewOrder{0: {market("BTCUSDT", exchange.SideBuy, "1")},
		1: {market("BTCUSDT", exchange.SideSell, "0.998")}}}
	res = runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")},
		Fill: FillModel{SlippageBps: dec("50"), SlippageTicks: 3}})
	if res.Fills.Len() != 2 || res.Fills.At(0).Price.String() != "102.54" || res.Fills.At(1).Price.String() != "103.45" {
		t.Errorf("fills %s", fillText(res.Fills))
	}
}

// Orders below the minimum amount or with too many decimals are refused by
// the risk gate with the rule named, and counted by rule in the metrics.
func TestRejectionsByRule(t *testing.T) {
	t.Parallel()
	s := &script{orders: map[int][]exchange.NewOrder{0: {
		limit("BTCUSDT", exchange.SideBuy, "0.04", "100"),    // 4 USDT < 5
		limit("BTCUSDT", exchange.SideBuy, "0.00001", "100"), // 5 quantity decimals > 4
	}}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")}})
	if got := strings.Join(s.errs, ","); got != "min-amount,precision" {
		t.Errorf("rejections %q", got)
	}
	if r := res.Metrics.Rejected; r["min-amount"] != 1 || r["precision"] != 1 || res.Fills.Len() != 0 {
		t.Errorf("metrics rejected %v, fills %d", r, res.Fills.Len())
	}
}

// Two symbols share one account: the second buy finds the cash the first
// one spent gone and is refused for balance.
func TestMultiSymbolSharedCash(t *testing.T) {
	t.Parallel()
	eth := []exchange.Kline{
		hbar(0, "50", "51", "49", "50"),
		hbar(1, "50", "51", "49", "50"),
		hbar(2, "52", "53", "51", "52"),
	}
	s := &script{orders: map[int][]exchange.NewOrder{
		0: {limit("BTCUSDT", exchange.SideBuy, "1", "105"), limit("ETHUSDT", exchange.SideBuy, "1", "50")},
	}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars[:3], "ETHUSDT": eth}),
		Symbols:  []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC"), rulesFor("ETHUSDT", "ETH")},
		Balances: map[string]decimal.Decimal{"USDT": dec("120")}})
	// BTCUSDT comes first at each instant (symbols in name order): its buy
	// at 105 crosses the close 100 and locks 105; ETH then needs 50 of 15.
	// The buy fills at the next open, 102, as a taker.
	if got := strings.Join(s.errs, ","); got != "balance" {
		t.Errorf("rejections %q", got)
	}
	if got, want := fillText(res.Fills), "BTCUSDT B 1@102 fee 0.002 BTC maker=false 01:00"; got != want {
		t.Errorf("fills %s, want %s", got, want)
	}
	// 120 − 102 = 18 USDT and 0.998 BTC at 105.
	if got, want := curveText(res.Curve), "120.000000 119.796000 122.790000"; got != want {
		t.Errorf("curve %q, want %q", got, want)
	}
}

func TestRunRefusesBadSpecs(t *testing.T) {
	t.Parallel()
	reg := strategy.NewRegistry()
	reg.Register("script", func(strategy.Config) (strategy.Strategy, error) { return &script{}, nil })
	inst := []strategy.Config{{Name: "script", ID: "s", Symbols: []string{"BTCUSDT"}, Interval: "1h"}}
	data := seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars})
	for _, tt := range []struct {
		name string
		spec Spec
		want string
	}{
		{"no instances", Spec{Registry: reg, Interval: exchange.Interval60m, Data: data}, "no strategy instances"},
		{"bad interval", Spec{Instances: inst, Registry: reg, Interval: "1h", Data: data}, `interval "1h" is not valid`},
		{"other interval", Spec{Instances: inst, Registry: reg, Interval: exchange.Interval1m, Data: data},
			"the BTCUSDT bars are 60m, not the run's interval 1m"},
		{"negative balance", Spec{Instances: inst, Registry: reg, Interval: exchange.Interval60m, Data: data,
			Balances: map[string]decimal.Decimal{"USDT": dec("-1")}}, "account.balances.USDT: -1 is negative"},
		{"no data for symbol", Spec{Instances: []strategy.Config{{Name: "script", ID: "s", Symbols: []string{"ETHUSDT"}, Interval: "1h"}},
			Registry: reg, Interval: exchange.Interval60m, Data: data}, "no data for symbol ETHUSDT"},
		{"unknown strategy", Spec{Instances: []strategy.Config{{Name: "nope", ID: "s", Symbols: []string{"BTCUSDT"}, Interval: "1h"}},
			Registry: reg, Interval: exchange.Interval60m, Data: data}, `strategies[0]: unknown strategy "nope" (known: script)`},
		{"unsplittable symbol", Spec{Instances: inst, Registry: reg, Interval: exchange.Interval60m,
			Data: seriesOf(t, map[string][]exchange.Kline{"FOO": fourBars})}, `symbol "FOO": cannot tell its base and quote asset`},
	} {
		_, err := Run(t.Context(), tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestDefaultRules(t *testing.T) {
	t.Parallel()
	r, err := session.DefaultRules("ETH_BTC", []exchange.Kline{hbar(0, "0.08", "0.081", "0.07912345", "0.08")})
	if err != nil {
		t.Fatal(err)
	}
	if r.BaseAsset != "ETH" || r.QuoteAsset != "BTC" || r.QuotePrecision != 8 || r.QuoteAmountPrecision.String() != "0.0001" {
		t.Errorf("rules %+v", r)
	}
	r, _ = session.DefaultRules("BTCUSDT", fourBars)
	if r.BaseAsset != "BTC" || r.QuoteAsset != "USDT" || r.QuotePrecision != 2 || r.TakerCommission.String() != "0.001" {
		t.Errorf("rules %+v", r)
	}
}

// The drawdown kill switch: when equity falls more than 20% below its peak
// the runtime cancels the resting order and refuses every new one.
func TestKillSwitchCancelsAndRefuses(t *testing.T) {
	t.Parallel()
	bars := []exchange.Kline{
		hbar(0, "100", "101", "99", "100"), // equity 1000 + 10 × 100 = 2000
		hbar(1, "100", "101", "69", "70"),  // 1700: 15% down
		hbar(2, "70", "71", "56", "58"),    // 1580: 21% down, trips
		hbar(3, "58", "60", "57", "59"),
	}
	s := &script{orders: map[int][]exchange.NewOrder{
		0: {limit("BTCUSDT", exchange.SideBuy, "1", "50")},
		3: {market("BTCUSDT", exchange.SideBuy, "1")},
	}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": bars}),
		Symbols:  []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")},
		Balances: map[string]decimal.Decimal{"USDT": dec("1000"), "BTC": dec("10")},
		Risk:     risk.Limits{MaxDrawdown: dec("0.2")}})
	if got := strings.Join(s.errs, ","); got != "kill-switch" {
		t.Errorf("refusals %q, want kill-switch", got)
	}
	if res.Fills.Len() != 0 || res.Metrics.Rejected["kill-switch"] != 1 {
		t.Errorf("fills %d, rejected %v", res.Fills.Len(), res.Metrics.Rejected)
	}
	// The resting buy was cancelled: its 50 USDT are free again.
	if got := res.Balances["USDT"].String(); got != "1000" {
		t.Errorf("USDT %s, want 1000 (nothing locked)", got)
	}
}

// Without self-trade prevention a strategy's buy crossing its own resting
// sell trades with it: at the next open the buy (limit 102) meets the sell
// resting at 101 first, both fills are flagged self-trades, the sell pays
// the maker fee in USDT (0.101) and the buy the taker fee in BTC (0.002).
// Asking for an STP mode without a group is refused by the risk gate.
func TestSelfTradeAndSTPMode(t *testing.T) {
	t.Parallel()
	stp := limit("BTCUSDT", exchange.SideBuy, "1", "90")
	stp.STPMode = exchange.STPCancelMaker
	s := &script{orders: map[int][]exchange.NewOrder{0: {
		limit("BTCUSDT", exchange.SideSell, "1", "101"), limit("BTCUSDT", exchange.SideBuy, "1", "102"), stp,
	}}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols:  []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")},
		Balances: map[string]decimal.Decimal{"USDT": dec("1000"), "BTC": dec("1")}})
	want := "BTCUSDT S 1@101 fee 0.101 USDT maker=true 01:00; BTCUSDT B 1@101 fee 0.002 BTC maker=false 01:00"
	if got := fillText(res.Fills); got != want {
		t.Errorf("fills\n got %s\nwant %s", got, want)
	}
	for _, f := range res.Fills.All() {
		if !f.IsSelfTrade {
			t.Errorf("fill %s not flagged as a self-trade", f.ID)
		}
	}
	if got := res.Balances["USDT"].String() + " " + res.Balances["BTC"].String(); got != "999.899 0.998" {
		t.Errorf("balances %s", got)
	}
	if got := strings.Join(s.errs, ","); got != "stp-group" {
		t.Errorf("refusals %q, want stp-group", got)
	}
}

// schedStrategy records its schedule runs.
type schedStrategy struct{ runs []string }

func (s *schedStrategy) OnKline(strategy.Context, strategy.Bar) error { return nil }

func (s *schedStrategy) Schedules() []strategy.Schedule {
	return []strategy.Schedule{{Name: "job", Spec: "30 0,2 * * *", Run: func(ctx strategy.Context, at time.Time) error {
		s.runs = append(s.runs, at.Format("15:04")+"@"+ctx.Now().Format("15:04"))
		return nil
	}}}
}

// Schedules run in backtests: an occurrence inside a bar runs at that
// bar's close (00:30 at 01:00, 02:30 at 03:00), not missed.
func TestSchedulesRunAtBarCloses(t *testing.T) {
	t.Parallel()
	s := &schedStrategy{}
	reg := strategy.NewRegistry()
	reg.Register("sched", func(strategy.Config) (strategy.Strategy, error) { return s, nil })
	_, err := Run(t.Context(), Spec{Instances: []strategy.Config{{Name: "sched", ID: "j", Symbols: []string{"BTCUSDT"}, Interval: "1h"}},
		Registry: reg, Interval: exchange.Interval60m, Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.runs, " "); got != "00:30@01:00 02:30@03:00" {
		t.Errorf("runs %q", got)
	}
}

// With token fees on, the taker fee of a buy at 102 (0.2%, 0.204 USDT) is
// paid in TOK at a 20% discount at TOK's price of 2: 0.0816 TOK, and the
// whole 1 BTC is received. The report values fees in the quote asset.
func TestFeesInTheToken(t *testing.T) {
	t.Parallel()
	tok := make([]exchange.Kline, len(fourBars))
	for i := range tok {
		tok[i] = hbar(i, "2", "2", "2", "2")
	}
	s := &script{orders: map[int][]exchange.NewOrder{0: {market("BTCUSDT", exchange.SideBuy, "1")}}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars, "TOKUSDT": tok}),
		Symbols:  []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC"), rulesFor("TOKUSDT", "TOK")},
		Balances: map[string]decimal.Decimal{"USDT": dec("1000"), "TOK": dec("10")}, Fill: FillModel{TokenFees: true}})
	if got, want := fillText(res.Fills), "BTCUSDT B 1@102 fee 0.0816 TOK maker=false 01:00"; got != want {
		t.Errorf("fills %s, want %s", got, want)
	}
	if got := res.Balances["USDT"].String() + " " + res.Balances["BTC"].String() + " " + res.Balances["TOK"].String(); got != "898 1 9.9184" {
		t.Errorf("balances %s", got)
	}
	// 1000 + 10 × 2; 898 + 102 + 9.9184 × 2; then at 105 and 111.
	if got, want := curveText(res.Curve), "1020.000000 1019.836800 1022.836800 1028.836800"; got != want {
		t.Errorf("curve %q, want %q", got, want)
	}
	if res.Metrics.FeesPaid != "0.1632" || res.Metrics.EquityFinal != "1028.8368" {
		t.Errorf("fees %s final %s", res.Metrics.FeesPaid, res.Metrics.EquityFinal)
	}
}

// A market buy of 1 BTC with 100 USDT passes the gate at the last price,
// 100, but the next open is 102: the funds buy 0.9803 (floored to the
// quantity step), the rest is cancelled and the order ends
// PARTIALLY_CANCELED; the account holds what was bought less the fee in BTC.
func TestPartialFillEndsPartiallyCanceled(t *testing.T) {
	t.Parallel()
	s := &orderWatcher{script: script{orders: map[int][]exchange.NewOrder{0: {market("BTCUSDT", exchange.SideBuy, "1")}}}}
	reg := strategy.NewRegistry()
	s.seen = map[string]int{}
	reg.Register("watch", func(strategy.Config) (strategy.Strategy, error) { return s, nil })
	res, err := Run(t.Context(), Spec{Instances: []strategy.Config{{Name: "watch", ID: "w", Symbols: []string{"BTCUSDT"}, Interval: "1h"}},
		Registry: reg, Interval: exchange.Interval60m, Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("100")}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fillText(res.Fills), "BTCUSDT B 0.9803@102 fee 0.0019606 BTC maker=false 01:00"; got != want {
		t.Errorf("fills %s, want %s", got, want)
	}
	if got := strings.Join(s.statuses, " "); got != "PARTIALLY_CANCELED executed=0.9803" {
		t.Errorf("order updates %q", got)
	}
	// 100 − 0.9803 × 102 = 0.0094 USDT; 0.9803 − 0.0019606 BTC.
	if got := res.Balances["USDT"].String() + " " + res.Balances["BTC"].String(); got != "0.0094 0.9783394" {
		t.Errorf("balances %s", got)
	}
}

// orderWatcher is a script that records its orders' status updates.
type orderWatcher struct {
	script
	statuses []string
}

func (w *orderWatcher) OnOrder(_ strategy.Context, o strategy.Order) error {
	st := string(o.Status)
	if o.Status.Final() {
		st += " executed=" + o.ExecutedQty.String()
	}
	w.statuses = append(w.statuses, st)
	return nil
}

// seriesOf builds a spec's Data from klines, as a loader would.
func seriesOf(t testing.TB, data map[string][]exchange.Kline) map[string]*marketdata.Series {
	t.Helper()
	out := make(map[string]*marketdata.Series, len(data))
	for sym, ks := range data {
		// The interval is the shortest step between bars (60m for one bar).
		iv := exchange.Interval60m
		step := time.Duration(0)
		for i := 1; i < len(ks); i++ {
			if d := ks[i].OpenTime.Sub(ks[i-1].OpenTime); step == 0 || d < step {
				step = d
			}
		}
		for _, v := range []exchange.Interval{exchange.Interval1m, exchange.Interval5m, exchange.Interval15m, exchange.Interval30m, exchange.Interval4h, exchange.Interval1d} {
			if step == v.Duration() {
				iv = v
			}
		}
		s, err := marketdata.FromKlines(sym, iv, ks)
		if err != nil {
			t.Fatalf("%s: %v", sym, err)
		}
		out[sym] = s
	}
	return out
}

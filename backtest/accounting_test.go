package backtest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// sim.fee_asset: quote charges the buyer's fee in USDT, the way most
// backtesters do: buy 1 at 102 pays 0.2% of 102 = 0.204 USDT and receives
// the whole 1 BTC; selling it at 110 pays 0.22 USDT. The ledger agrees
// with the exchange (Run checks it) and the round trip is
// (110 − 102) × 1 − 0.424 = 7.576.
func TestFeesInTheQuoteAsset(t *testing.T) {
	t.Parallel()
	s := &script{orders: map[int][]exchange.NewOrder{
		0: {market("BTCUSDT", exchange.SideBuy, "1")},
		2: {market("BTCUSDT", exchange.SideSell, "1")},
	}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")},
		Fill: FillModel{QuoteFees: true}})
	wantFills := "BTCUSDT B 1@102 fee 0.204 USDT maker=false 01:00; BTCUSDT S 1@110 fee 0.22 USDT maker=false 03:00"
	if got := fillText(res.Fills); got != wantFills {
		t.Errorf("fills\n got %s\nwant %s", got, wantFills)
	}
	// 1000; 897.796 + 102; 897.796 + 105; 897.796 + 110 − 0.22.
	if got, want := curveText(res.Curve), "1000.000000 999.796000 1002.796000 1007.576000"; got != want {
		t.Errorf("curve %q, want %q", got, want)
	}
	if got := res.Balances["USDT"].String() + " " + res.Balances["BTC"].String(); got != "1007.576 0" {
		t.Errorf("balances %s", got)
	}
	m := res.Metrics
	if m.Trades != 1 || m.EquityFinal != "1007.576" || m.FeesPaid != "0.424" || m.Volume != "212" {
		t.Errorf("metrics trades=%d final=%s fees=%s volume=%s", m.Trades, m.EquityFinal, m.FeesPaid, m.Volume)
	}
	if tr := res.Trades[0]; tr.PnL.String() != "7.576" || tr.Qty.String() != "1" || tr.Fees.String() != "0.424" {
		t.Errorf("trade %+v", tr)
	}
	if got := (FillModel{QuoteFees: true}).String(); got != "trade-through, market at next open, fees in the quote asset" {
		t.Errorf("fill model %q", got)
	}
}

// With quote fees a quote-sized market buy spends its amount on the asset
// and the fee together: 100 USDT at 102 with a 0.2% taker fee buys
// floor(100 / 102.204) = 0.9784 BTC for 99.7968 and pays 0.1995936, so
// 0.0036064 USDT is left. A priced buy locks its fee at the higher rate on
// top of its amount: a limit buy of 1 at 100 needs 100.2 and is refused
// with 100 free, by the risk gate (rule balance), which counts the fee as
// the exchange locks it, rather than by the exchange.
func TestQuoteFeesBuyWithinTheFunds(t *testing.T) {
	t.Parallel()
	s := &script{orders: map[int][]exchange.NewOrder{
		0: {{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: dec("100")}},
	}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("100")},
		Fill: FillModel{QuoteFees: true}})
	if got, want := fillText(res.Fills), "BTCUSDT B 0.9784@102 fee 0.1995936 USDT maker=false 01:00"; got != want {
		t.Errorf("fills %s, want %s", got, want)
	}
	if got := res.Balances["USDT"].String() + " " + res.Balances["BTC"].String(); got != "0.0036064 0.9784" {
		t.Errorf("balances %s", got)
	}

	s = &script{orders: map[int][]exchange.NewOrder{0: {limit("BTCUSDT", exchange.SideBuy, "1", "100")}}}
	res = runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("100")},
		Fill: FillModel{QuoteFees: true}})
	if got, want := strings.Join(s.errs, "; "), "balance"; got != want {
		t.Errorf("errors %q, want %q", got, want)
	}
	if r := res.Metrics.Rejected; len(r) != 1 || r["balance"] != 1 {
		t.Errorf("orders_rejected %v, want balance: 1", r)
	}
	if res.Fills.Len() != 0 || res.Balances["USDT"].String() != "100" {
		t.Errorf("fills %s, balances %v", fillText(res.Fills), res.Balances)
	}
}

// data.resample_gaps reaches the runtime through Spec.MergeGaps: a 4h
// instance over hourly bars missing 03:00 sees two bars when a gap closes
// the partial one (at 03:00, the close of its last base bar, 102.5, then
// at 08:00), one
// when the bars merge across the gap (at 08:00, stamped 04:00).
func TestResampleGapsInABacktest(t *testing.T) {
	t.Parallel()
	var bars []exchange.Kline
	for i := range 8 {
		if i != 3 {
			p := strconv.Itoa(100 + i)
			bars = append(bars, hbar(i, p, p+".5", p, p+".5"))
		}
	}
	for _, c := range []struct {
		merge bool
		want  string
	}{
		{false, "BTCUSDT#0 now=03:00 last=00:00 px=102.5; BTCUSDT#1 now=08:00 last=04:00 px=107.5"},
		{true, "BTCUSDT#0 now=08:00 last=04:00 px=107.5"},
	} {
		s := &script{}
		runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": bars}), MergeGaps: c.merge,
			Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")},
			Instances: []strategy.Config{{Name: "script", ID: "s", Symbols: []string{"BTCUSDT"}, Interval: "4h"}}})
		if got := strings.Join(s.log, "; "); got != c.want {
			t.Errorf("merge=%t:\n got %s\nwant %s", c.merge, got, c.want)
		}
	}
}

// A resting limit buy with quote fees locks 100.5 + 0.201 (the 0.2% taker
// rate, the higher) and fills as a maker at 0.1%: it pays 100.5 and
// 0.1005, and the 0.1005 of the lock the fee did not use returns to free.
func TestQuoteFeesMakerBuyReturnsTheUnusedLock(t *testing.T) {
	t.Parallel()
	bars := []exchange.Kline{hbar(0, "100", "100", "100", "100"), hbar(1, "102", "103", "99", "101"), hbar(2, "101", "102", "100", "101")}
	s := &balanceLog{script: script{orders: map[int][]exchange.NewOrder{0: {limit("BTCUSDT", exchange.SideBuy, "1", "100.5")}}}}
	s.seen = map[string]int{}
	reg := strategy.NewRegistry()
	reg.Register("bal", func(strategy.Config) (strategy.Strategy, error) { return s, nil })
	res, err := Run(t.Context(), Spec{Registry: reg, Interval: exchange.Interval60m, Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": bars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")},
		Fill:      FillModel{QuoteFees: true},
		Instances: []strategy.Config{{Name: "bal", ID: "b", Symbols: []string{"BTCUSDT"}, Interval: "1h"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fillText(res.Fills), "BTCUSDT B 1@100.5 fee 0.1005 USDT maker=true 01:00"; got != want {
		t.Errorf("fills %s, want %s", got, want)
	}
	// After bar 0's order: 100.701 locked; after the fill: all free.
	if got, want := strings.Join(s.usdt, "; "), "899.299 free 100.701 locked; 899.3995 free 0 locked; 899.3995 free 0 locked"; got != want {
		t.Errorf("USDT at each bar\n got %s\nwant %s", got, want)
	}
	if got := res.Balances["BTC"].String(); got != "1" {
		t.Errorf("BTC %s", got)
	}
}

// balanceLog is a script that records its USDT balance after each bar's
// orders.
type balanceLog struct {
	script
	usdt []string
}

func (b *balanceLog) OnKline(ctx strategy.Context, k strategy.Bar) error {
	err := b.script.OnKline(ctx, k)
	bal := ctx.Balance("USDT")
	b.usdt = append(b.usdt, bal.Free.String()+" free "+bal.Locked.String()+" locked")
	return err
}

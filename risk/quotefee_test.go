package risk

import (
	"errors"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
)

// quoteFeeView is newView with a 0.1% maker and 0.2% taker fee and fees
// rounded to 2 decimals of USDT.
func quoteFeeView(free string) *view {
	v := newView()
	v.info.MakerCommission, v.info.TakerCommission, v.info.QuoteCommissionPrecision = d("0.001"), d("0.002"), 2
	v.free["USDT"] = d(free)
	return v
}

// quoteFeeCases are checked by the gate with WithQuoteFees and by the
// simulator with QuoteFees, which must agree. A buy of 0.0499 at 20000 is
// worth 998; its fee at the higher rate, 0.2%, is 1.996, rounded up to
// 2.00: it needs 1000 free, and 999.999 (enough for the unrounded fee) is
// not enough. A buy of every free unit (0.05 = 1000) leaves nothing for
// the fee. A quote-sized market buy spends its amount on the asset and
// the fee together, so 1000 of 1000 passes; sells are as without the
// option.
var quoteFeeCases = []struct {
	name   string
	free   string
	order  exchange.NewOrder
	reason string // the gate's refusal, empty when it passes
}{
	{name: "limit buy, fee fits", free: "1000", order: buy("0.0499", "20000")},
	{name: "limit buy, rounded fee does not fit", free: "999.999", order: buy("0.0499", "20000"),
		reason: "buy for 998 USDT and up to 2 USDT in fees but only 999.999 free"},
	{name: "limit buy of every free unit", free: "1000", order: buy("0.05", "20000"),
		reason: "buy for 1000 USDT and up to 2 USDT in fees but only 1000 free"},
	{name: "market buy by quantity, fee fits", free: "1000",
		order: exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket, Quantity: d("0.0499")}},
	{name: "market buy by quantity of every free unit", free: "1000",
		order:  exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket, Quantity: d("0.05")},
		reason: "buy for 1000 USDT and up to 2 USDT in fees but only 1000 free"},
	{name: "market buy by quote of every free unit", free: "1000",
		order: exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: d("1000")}},
	{name: "sell of every free unit", free: "1000",
		order: exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideSell, Type: exchange.TypeLimit, Quantity: d("0.5"), Price: d("20000")}},
}

func TestGateQuoteFees(t *testing.T) {
	t.Parallel()
	g, err := New(Limits{}, WithQuoteFees())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range quoteFeeCases {
		err := g.Check(t.Context(), tt.order, quoteFeeView(tt.free))
		if tt.reason == "" {
			if err != nil {
				t.Errorf("%s: Check = %v", tt.name, err)
			}
			continue
		}
		var r *Rejection
		if !errors.As(err, &r) {
			t.Fatalf("%s: Check = %v, want *Rejection", tt.name, err)
		}
		if r.Rule != RuleBalance || r.Code != exchange.CodeInsufficientPosition || r.Reason != tt.reason {
			t.Errorf("%s: rule %q code %d reason %q, want %q %d %q", tt.name, r.Rule, r.Code, r.Reason, RuleBalance, exchange.CodeInsufficientPosition, tt.reason)
		}
	}
	// Without the option the fee is not counted: every free unit passes.
	plain, err := New(Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Check(t.Context(), buy("0.05", "20000"), quoteFeeView("1000")); err != nil {
		t.Errorf("without quote fees: Check = %v", err)
	}
	// The portfolio limits value the notional alone: 998 is within a
	// 998 order-value limit although the buy needs 1000 of funds.
	capped, err := New(Limits{MaxOrderValue: d("998")}, WithQuoteFees())
	if err != nil {
		t.Fatal(err)
	}
	if err := capped.Check(t.Context(), buy("0.0499", "20000"), quoteFeeView("1000")); err != nil {
		t.Errorf("max order value: Check = %v", err)
	}
}

// The gate with WithQuoteFees refuses exactly the buys the simulator with
// QuoteFees refuses for funds: both count exchange.SymbolInfo.MaxQuoteFee.
func TestGateQuoteFeesAgreesWithTheSimulator(t *testing.T) {
	t.Parallel()
	g, err := New(Limits{}, WithQuoteFees())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range quoteFeeCases {
		v := quoteFeeView(tt.free)
		x, err := sim.New(sim.Options{Start: t0, Symbols: []exchange.SymbolInfo{v.info}, QuoteFees: true, MarketFill: sim.Immediate})
		if err != nil {
			t.Fatal(err)
		}
		for a, f := range v.free {
			if err := x.Credit(x.MasterUID(), a, f); err != nil {
				t.Fatal(err)
			}
		}
		k := exchange.Kline{OpenTime: t0, CloseTime: t0.Add(time.Hour - time.Millisecond), Open: d("20000"), High: d("20000"),
			Low: d("20000"), Close: d("20000"), Volume: d("1")}
		if err := x.FeedKline("BTCUSDT", exchange.Interval60m, k); err != nil {
			t.Fatal(err)
		}
		gateErr := g.Check(t.Context(), tt.order, v)
		_, simErr := x.Master().PlaceOrder(t.Context(), tt.order)
		if (gateErr == nil) != (simErr == nil) {
			t.Errorf("%s: gate %v, simulator %v", tt.name, gateErr, simErr)
		}
		var ae *exchange.APIError
		if simErr != nil && (!errors.As(simErr, &ae) || ae.Code != exchange.CodeInsufficientPosition) {
			t.Errorf("%s: simulator refused with %v, want code %d", tt.name, simErr, exchange.CodeInsufficientPosition)
		}
	}
}

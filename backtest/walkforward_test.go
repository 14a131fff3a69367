package backtest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// holdFromData is the chained buy-and-hold computed from the bars alone:
// per symbol, the product over the test windows of the last close over the
// first close in [TestFrom, TestTo), less one, averaged over the symbols.
func holdFromData(s Spec, wins []Window) string {
	var out []string
	for _, sym := range []string{"BTCUSDT", "ETHUSDT"} {
		if s.Data[sym] == nil {
			continue
		}
		num, den := decimal.NewFromInt(1), decimal.NewFromInt(1)
		for _, w := range wins {
			var first, last decimal.Decimal
			for _, k := range s.Klines(sym) {
				if k.OpenTime.Before(w.TestFrom) || !k.OpenTime.Before(w.TestTo) {
					continue
				}
				if first.IsZero() {
					first = k.Close
				}
				last = k.Close
			}
			num, den = num.Mul(last), den.Mul(first)
		}
		out = append(out, sym+" "+num.DivRound(den, 16).Sub(decimal.NewFromInt(1)).Shift(2).String())
	}
	return strings.Join(out, ", ")
}

// TestWalkForwardBuyHold: the chained out-of-sample metrics carry the
// buy-and-hold over the test windows, chained as the equity is; one
// window's is its run's exactly; the HTML metrics table shows it.
func TestWalkForwardBuyHold(t *testing.T) {
	t.Parallel()
	obj, _ := ParseObjective("return")
	ps := []Param{{Name: "fast", Values: []any{5, 10}}}
	day := 24 * time.Hour
	for _, tc := range []struct {
		name        string
		spec        Spec
		test        time.Duration
		windows     int
		hold, total string // per symbol from the bars; the metric
	}{
		// Four 30-day test windows of BTCUSDT from 2021-01-16 to 2021-05-16;
		// one 120-day window over the same span.
		{"one symbol", sampleSpec(t), 30 * day, 4, "BTCUSDT 25.8136463021427", "25.8136463021427"},
		{"one window", sampleSpec(t), 120 * day, 1, "BTCUSDT 25.84393604759589", "25.84393604759589"},
		// Two symbols: their chained returns averaged, (25.8136463021427 +
		// 207.76370519595203) / 2.
		{"two symbols", specOf(t, twoInstances), 30 * day, 4, "BTCUSDT 25.8136463021427, ETHUSDT 207.76370519595203", "116.78867574904737"},
	} {
		res, err := WalkForward(t.Context(), tc.spec, WalkForwardOptions{Params: ps, Objective: obj, Train: 60 * day, Test: tc.test, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(res.Aggregate.BuyHoldPct)
		if len(res.Windows) != tc.windows || holdFromData(tc.spec, res.Windows) != tc.hold || got != tc.total {
			t.Errorf("%s: %d windows, bars give %s, buy-and-hold %s; want %d, %s, %s", tc.name, len(res.Windows),
				holdFromData(tc.spec, res.Windows), got, tc.windows, tc.hold, tc.total)
		}
		if tc.windows == 1 && res.Aggregate.BuyHoldPct != res.Windows[0].Test.BuyHoldPct {
			t.Errorf("one window: chained %v, the window's run %v", res.Aggregate.BuyHoldPct, res.Windows[0].Test.BuyHoldPct)
		}
		var b bytes.Buffer
		if err := WriteWalkForwardHTML(&b, tc.name, res, HTMLOptions{Note: "static"}); err != nil {
			t.Fatal(err)
		}
		if row := "<tr><td>Buy &amp; hold return %</td><td>" + pct(res.Aggregate.BuyHoldPct) + "</td></tr>"; !strings.Contains(b.String(), row) {
			t.Errorf("%s: walkforward.html lacks %s", tc.name, row)
		}
	}
}

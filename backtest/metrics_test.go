package backtest

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.12g, want %.12g", name, got, want)
	}
}

func TestRoundTrips(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	fills := []FillRecord{
		{Symbol: "BTCUSDT", Side: exchange.SideSell, Price: dec("90"), Qty: dec("1"), QuoteQty: dec("90"), Time: t0}, // held before the run: ignored
		{Symbol: "BTCUSDT", Side: exchange.SideBuy, Price: dec("100"), Qty: dec("1"), QuoteQty: dec("100"), FeeQuote: dec("0.1"), Time: t0.Add(time.Hour)},
		{Symbol: "BTCUSDT", Side: exchange.SideBuy, Price: dec("110"), Qty: dec("1"), QuoteQty: dec("110"), FeeQuote: dec("0.11"), FeeInBase: dec("0.001"), Time: t0.Add(2 * time.Hour)},
		{Symbol: "BTCUSDT", Side: exchange.SideSell, Price: dec("120"), Qty: dec("1.999"), QuoteQty: dec("239.88"), FeeQuote: dec("0.23988"), Time: t0.Add(5 * time.Hour)},
		{Symbol: "BTCUSDT", Side: exchange.SideBuy, Price: dec("100"), Qty: dec("1"), QuoteQty: dec("100"), Time: t0.Add(6 * time.Hour)}, // still open
	}
	tr := RoundTrips(fills)
	if len(tr) != 1 {
		t.Fatalf("%d trades, want 1", len(tr))
	}
	got := tr[0]
	// cost 210, proceeds 239.88, fees not paid in base 0.1 + 0 + 0.23988.
	if got.PnL.String() != "29.54012" || got.EntryPrice.String() != "105" || got.ExitPrice.String() != "120" ||
		got.Qty.String() != "1.999" || got.Fees.String() != "0.44488" || got.Duration() != 4*time.Hour {
		t.Errorf("trade %+v", got)
	}
	near(t, "ReturnPct", got.ReturnPct, 29.54012/210*100)
}

// Two instances trading one symbol hold positions of their own: their
// interleaved fills make two round trips, where folding by symbol alone
// (fills with no instance) makes one.
func TestRoundTripsPerInstance(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	fills := []FillRecord{
		{Instance: "a", Symbol: "BTCUSDT", Side: exchange.SideBuy, Price: dec("100"), Qty: dec("1"), QuoteQty: dec("100"), FeeQuote: dec("0.1"), Time: at(1)},
		{Instance: "b", Symbol: "BTCUSDT", Side: exchange.SideBuy, Price: dec("101"), Qty: dec("2"), QuoteQty: dec("202"), FeeQuote: dec("0.202"), Time: at(2)},
		{Instance: "c", Symbol: "BTCUSDT", Side: exchange.SideSell, Price: dec("109"), Qty: dec("1"), QuoteQty: dec("109"), Time: at(3)}, // c holds nothing: ignored
		{Instance: "a", Symbol: "BTCUSDT", Side: exchange.SideSell, Price: dec("110"), Qty: dec("1"), QuoteQty: dec("110"), FeeQuote: dec("0.11"), Time: at(3)},
		{Instance: "b", Symbol: "BTCUSDT", Side: exchange.SideSell, Price: dec("105"), Qty: dec("1"), QuoteQty: dec("105"), FeeQuote: dec("0.105"), Time: at(4)},
		{Instance: "b", Symbol: "BTCUSDT", Side: exchange.SideSell, Price: dec("108"), Qty: dec("1"), QuoteQty: dec("108"), FeeQuote: dec("0.108"), Time: at(5)},
	}
	text := func(ts []Trade) string {
		var b strings.Builder
		for _, tr := range ts {
			fmt.Fprintf(&b, "%s %s %d→%d %s@%s→%s fees %s pnl %s %.6f%%\n", tr.Instance, tr.Symbol, tr.EntryTime.Sub(t0)/time.Hour,
				tr.ExitTime.Sub(t0)/time.Hour, tr.Qty, tr.EntryPrice, tr.ExitPrice, tr.Fees, tr.PnL, tr.ReturnPct)
		}
		return b.String()
	}
	// a: 110 − 100 − 0.21; b: 213 − 202 − 0.415, 10.585 / 202 = 5.240099 %.
	want := "a BTCUSDT 1→3 1@100→110 fees 0.21 pnl 9.79 9.790000%\n" +
		"b BTCUSDT 2→5 2@101→106.5 fees 0.415 pnl 10.585 5.240099%\n"
	if got := text(RoundTrips(fills)); got != want {
		t.Errorf("per instance:\n%s\nwant\n%s", got, want)
	}
	// By symbol alone, c's sell counts against the others' holding, so
	// the position is flat after b's first sell (324 − 302 − 0.517,
	// 21.483 / 302 = 7.113576 %) and b's last sell is left out.
	for i := range fills {
		fills[i].Instance = ""
	}
	want = " BTCUSDT 1→4 3@100.6666666666666667→108 fees 0.517 pnl 21.483 7.113576%\n"
	if got := text(RoundTrips(fills)); got != want {
		t.Errorf("by symbol:\n%s\nwant\n%s", got, want)
	}
}

func TestCompute(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	vals := []string{"100", "110", "99", "121", "110"}
	var curve Curve
	exact := map[int]decimal.Decimal{}
	var exposed Exposure
	for i, v := range vals {
		curve.Append(t0.Add(time.Duration(i)*day).UnixMilli(), dec(v).InexactFloat64())
		exposed.mark(i, i%2 == 1)
		exact[i] = dec(v)
	}
	trades := []Trade{
		{PnL: dec("10"), ReturnPct: 10, EntryTime: t0, ExitTime: t0.Add(day)},
		{PnL: dec("-5"), ReturnPct: -5, EntryTime: t0, ExitTime: t0.Add(3 * day)},
		{PnL: dec("20"), ReturnPct: 20, EntryTime: t0, ExitTime: t0.Add(2 * day)},
	}
	m := Compute(ComputeInput{Curve: curve, Exact: exact, Exposed: exposed, Trades: trades, Fees: dec("1.5"), Volume: dec("1000"), BuyHoldPct: 7, BudgetWait: 3 * time.Second})

	rets := []float64{110.0/100 - 1, 99.0/110 - 1, 121.0/99 - 1, 110.0/121 - 1}
	mean := (rets[0] + rets[1] + rets[2] + rets[3]) / 4
	var ss, down float64
	for _, r := range rets {
		ss += (r - mean) * (r - mean)
		if r < 0 {
			down += r * r
		}
	}
	sd := math.Sqrt(ss / 3)
	ppy := 365.25
	years := 4 / 365.25

	if m.Bars != 5 || m.EquityStart != "100" || m.EquityFinal != "110" || m.EquityPeak != "121" || m.Duration != "96h0m0s" {
		t.Errorf("summary %+v", m)
	}
	near(t, "ExposurePct", m.ExposurePct, 40)
	near(t, "ReturnPct", m.ReturnPct, 10)
	near(t, "CAGRPct", m.CAGRPct, (math.Pow(1.1, 1/years)-1)*100)
	near(t, "PeriodsPerYear", m.PeriodsPerYear, ppy)
	near(t, "AnnReturnPct", m.AnnReturnPct, (math.Pow(1.1, ppy/4)-1)*100)
	near(t, "AnnVolPct", m.AnnVolPct, sd*math.Sqrt(ppy)*100)
	near(t, "Sharpe", m.Sharpe, mean/sd*math.Sqrt(ppy))
	near(t, "Sortino", m.Sortino, mean/math.Sqrt(down/4)*math.Sqrt(ppy))
	// Drawdowns: 110 → 99 (10%, recovered two days later), then 121 → 110 (1/11, open at the end).
	near(t, "MaxDrawdownPct", m.MaxDrawdownPct, 10)
	near(t, "AvgDrawdownPct", m.AvgDrawdownPct, (0.1+11.0/121)/2*100)
	if m.MaxDrawdownDur != "48h0m0s" {
		t.Errorf("MaxDrawdownDur = %s", m.MaxDrawdownDur)
	}
	near(t, "Calmar", m.Calmar, m.CAGRPct/10)
	dd := DrawdownSeries(curve)
	near(t, "Drawdown[2]", dd[2], 0.1)
	near(t, "Drawdown[4]", dd[4], 11.0/121)
	if dd[0] != 0 || dd[1] != 0 || dd[3] != 0 || !exposed.Held(1) || exposed.Held(2) || exposed.Count() != 2 {
		t.Errorf("drawdowns %v, exposure %b", dd, exposed)
	}

	if m.Trades != 3 || m.Expectancy != "8.33333333" || m.AvgTradeDuration != "48h0m0s" || m.MaxTradeDuration != "72h0m0s" {
		t.Errorf("trade stats %+v", m)
	}
	near(t, "WinRatePct", m.WinRatePct, 200.0/3)
	near(t, "BestTradePct", m.BestTradePct, 20)
	near(t, "WorstTradePct", m.WorstTradePct, -5)
	near(t, "AvgTradePct", m.AvgTradePct, 25.0/3)
	near(t, "ProfitFactor", m.ProfitFactor, 6)
	pm := 25.0 / 3
	psd := math.Sqrt(((10-pm)*(10-pm) + (-5-pm)*(-5-pm) + (20-pm)*(20-pm)) / 2)
	near(t, "SQN", m.SQN, math.Sqrt(3)*pm/psd)
	if m.FeesPaid != "1.5" || m.Volume != "1000" || m.BuyHoldPct != 7 || m.BudgetWait != "3s" {
		t.Errorf("totals %+v", m)
	}
}

func TestComputeEmpty(t *testing.T) {
	t.Parallel()
	m := Compute(ComputeInput{})
	if m.Bars != 0 || m.Trades != 0 || m.Expectancy != "0" || len(m.Rejected) != 0 {
		t.Errorf("empty metrics %+v", m)
	}
}

// The peak is printed from the exact value of the highest point: the
// first point of the highest value, or a later point of that value that
// carries an exact value (the last such), whatever the float values of
// equal points.
func TestComputePeakTies(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		vals  []float64
		exact map[int]string
		want  string
	}{
		// No exact value at the peak: its float.
		{[]float64{1, 3, 2, 3, 3}, map[int]string{0: "1"}, "3"},
		// Exact at the first 3 only.
		{[]float64{1, 3, 2, 3, 3}, map[int]string{0: "1", 1: "3.000000000000000001"}, "3.000000000000000001"},
		// Exact at the first and the fourth: the fourth, the later.
		{[]float64{1, 3, 2, 3, 3}, map[int]string{0: "1", 1: "3.1", 3: "3.2"}, "3.2"},
		// An exact equal value before the highest point does not count.
		{[]float64{2, 2, 5, 4}, map[int]string{0: "2", 1: "2.5", 2: "5.5"}, "5.5"},
	} {
		var curve Curve
		for i, v := range c.vals {
			curve.Append(t0.Add(time.Duration(i)*time.Hour).UnixMilli(), v)
		}
		exact := map[int]decimal.Decimal{}
		for i, s := range c.exact {
			exact[i] = decimal.RequireFromString(s)
		}
		if got := Compute(ComputeInput{Curve: curve, Exact: exact}).EquityPeak; got != c.want {
			t.Errorf("%v with exact %v: peak %s, want %s", c.vals, c.exact, got, c.want)
		}
	}
}

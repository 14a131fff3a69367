package smacross_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies/smacross"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/strategytest"
)

const iv = exchange.Interval60m

func harness(t *testing.T, params map[string]any, balances map[string]string) *strategytest.Harness {
	t.Helper()
	cfg := strategy.Config{Name: smacross.Name, ID: "cross", Symbols: []string{"BTCUSDT"}, Interval: "1h", Params: params}
	s, err := smacross.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return strategytest.New(t, strategytest.Options{Config: cfg, Strategy: s, Balances: balances})
}

// step feeds flat bars from index i on and returns the orders sent at each.
func steps(h *strategytest.Harness, from int, closes ...string) [][]string {
	out := make([][]string, len(closes))
	for j, c := range closes {
		h.Step("BTCUSDT", strategytest.Flat(iv, from+j, c))
		out[j] = h.Sent()
	}
	return out
}

func warm(h *strategytest.Harness, closes ...string) {
	for i, c := range closes {
		h.WarmUp("BTCUSDT", strategytest.Flat(iv, i, c))
	}
	h.Begin()
}

func TestCrossBuysWithFractionAndSellsEverything(t *testing.T) {
	t.Parallel()
	h := harness(t, map[string]any{"fast": 2, "slow": 3}, map[string]string{"USDT": "1000"})
	// Warm-up 10, 10, 10: fast = slow = 10, fast not above.
	warm(h, "10", "10", "10")
	got := steps(h, 3,
		"13", // fast 11.5 > slow 11: cross up → buy 95% of 1000 USDT
		"14", // the buy fills at this bar's open, 14: 950/14 → 67.8571 BTC; fast 13.5 > slow 12.33
		"8",  // fast 11 < slow 11.67: cross down → sell the whole position
		"9",  // the sell fills at this bar's open, 9; fast 8.5 < slow 10.33
		"20", // fast 14.5 > slow 12.33: cross up again → buy with the new balance
	)
	want := [][]string{
		{"BUY MARKET BTCUSDT quote=950"},
		nil,
		{"SELL MARKET BTCUSDT qty=67.8571"},
		nil,
		// 1000 − 67.8571·14 + 67.8571·9 = 660.7145; 95% = 627.678775 → 627.67
		{"BUY MARKET BTCUSDT quote=627.67"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("orders per bar\n got %q\nwant %q", got, want)
	}
	if p := h.Position("BTCUSDT"); !p.Qty.IsZero() || p.Realized.String() != "-339.2855" {
		t.Errorf("position %s realised %s, want 0 and -339.2855 (67.8571 × (9 − 14))", p.Qty, p.Realized)
	}
	if h.Stopped() != "" {
		t.Errorf("stopped: %s", h.Stopped())
	}
}

func TestFixedQuantity(t *testing.T) {
	t.Parallel()
	h := harness(t, map[string]any{"fast": 2, "slow": 3, "quantity": "0.12345"}, map[string]string{"USDT": "1000"})
	warm(h, "100", "100", "100")
	got := steps(h, 3, "130", "130", "70", "70")
	// The quantity is floored to the symbol's 4 decimals.
	want := [][]string{{"BUY MARKET BTCUSDT qty=0.1234"}, nil, {"SELL MARKET BTCUSDT qty=0.1234"}, nil}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("orders per bar\n got %q\nwant %q", got, want)
	}
}

func TestEMA(t *testing.T) {
	t.Parallel()
	h := harness(t, map[string]any{"fast": 2, "slow": 4, "ma": "ema", "quantity": 1}, map[string]string{"USDT": "1000"})
	// EMA(2) seeds at (10+10)/2 and EMA(4) at the mean of four 10s; both 10.
	warm(h, "10", "10", "10", "10")
	// 12: fast 10 + 2·2/3 = 11.33, slow 10 + 2·2/5 = 10.8 → cross up.
	// 10: fast 11.33 − 1.33·2/3 = 10.44, slow 10.8 − 0.8·0.4 = 10.48 → cross down.
	// An SMA(2)/SMA(4) would still be above: (12+10)/2 = 11 > 10.5.
	got := steps(h, 4, "12", "10", "10")
	want := [][]string{{"BUY MARKET BTCUSDT qty=1"}, {"SELL MARKET BTCUSDT qty=1"}, nil}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("orders per bar\n got %q\nwant %q", got, want)
	}
}

func TestNoTradeOnWarmUpCrossOrWithoutPosition(t *testing.T) {
	t.Parallel()
	h := harness(t, map[string]any{"fast": 1, "slow": 2}, map[string]string{"USDT": "1000"})
	// A cross up inside the warm-up (10 → 12) places nothing.
	warm(h, "10", "12")
	got := steps(h, 2,
		"15", // still above: no cross
		"11", // cross down with no position: nothing to sell
		"11", // equal is not above: no cross
	)
	if !slices.EqualFunc(got, [][]string{nil, nil, nil}, slices.Equal) {
		t.Fatalf("orders per bar %q, want none", got)
	}
}

func TestBuyBelowMinimumIsSkipped(t *testing.T) {
	t.Parallel()
	// 95% of 5 USDT is 4.75, below the 5 USDT minimum.
	h := harness(t, map[string]any{"fast": 1, "slow": 2}, map[string]string{"USDT": "5"})
	warm(h, "10", "10")
	if got := steps(h, 2, "12"); got[0] != nil {
		t.Fatalf("sent %q, want nothing", got[0])
	}
	if !strings.Contains(h.Logs.String(), `msg="buy signal skipped: amount below the minimum" instance=cross symbol=BTCUSDT amount=4.75`) {
		t.Errorf("log:\n%s", h.Logs)
	}
}

func TestFixedQuantityBelowMinimumIsSkipped(t *testing.T) {
	t.Parallel()
	// 0.04 BTC at 120 is 4.8 USDT, below the 5 USDT minimum.
	h := harness(t, map[string]any{"fast": 1, "slow": 2, "quantity": "0.04"}, map[string]string{"USDT": "1000"})
	warm(h, "100", "100")
	if got := steps(h, 2, "120"); got[0] != nil {
		t.Fatalf("sent %q, want nothing", got[0])
	}
	if !strings.Contains(h.Logs.String(), `msg="buy signal skipped: amount below the minimum" instance=cross symbol=BTCUSDT amount=4.8`) {
		t.Errorf("log:\n%s", h.Logs)
	}
}

func TestSellBelowMinimumIsSkipped(t *testing.T) {
	t.Parallel()
	// 0.05 BTC bought at 125 (6.25 USDT); at 90 it is worth 4.5, below
	// the 5 USDT minimum: the exchange would refuse the sell, so none is
	// sent.
	h := harness(t, map[string]any{"fast": 1, "slow": 2, "quantity": "0.05"}, map[string]string{"USDT": "1000"})
	warm(h, "100", "100")
	got := steps(h, 2, "120", "125", "90")
	if want := [][]string{{"BUY MARKET BTCUSDT qty=0.05"}, nil, nil}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("orders per bar\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(h.Logs.String(), `msg="sell signal skipped: amount below the minimum" instance=cross symbol=BTCUSDT qty=0.05`) {
		t.Errorf("log:\n%s", h.Logs)
	}
}

func TestOneOrderAtATime(t *testing.T) {
	t.Parallel()
	h := harness(t, map[string]any{"fast": 1, "slow": 2, "quantity": 1}, map[string]string{"USDT": "1000"})
	warm(h, "10", "10")
	h.Step("BTCUSDT", strategytest.Flat(iv, 2, "12")) // cross up: buy
	if got := h.Sent(); !slices.Equal(got, []string{"BUY MARKET BTCUSDT qty=1"}) {
		t.Fatalf("sent %q", got)
	}
	// The exchange has not filled the buy yet: a cross down and a second
	// cross up while it is open place nothing (no second buy while the
	// position is still 0).
	h.Deliver("BTCUSDT", strategytest.Flat(iv, 3, "9"))
	h.Deliver("BTCUSDT", strategytest.Flat(iv, 4, "12"))
	if got := h.Sent(); got != nil {
		t.Fatalf("sent %q while an order was open", got)
	}
	// Once it fills (at 13, the next bar's open), the next cross down sells.
	h.Step("BTCUSDT", strategytest.Flat(iv, 5, "13"))
	h.Step("BTCUSDT", strategytest.Flat(iv, 6, "8"))
	if got := h.Sent(); !slices.Equal(got, []string{"SELL MARKET BTCUSDT qty=1"}) {
		t.Fatalf("sent %q", got)
	}
}

func TestParams(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"fast": 0}, "params.fast: must be at least 1"},
		{map[string]any{"fast": 30}, "params.fast: must be < slow"},
		{map[string]any{"ma": "wma"}, `params.ma: "wma" must be sma or ema`},
		{map[string]any{"quantity": "-1"}, "params.quantity: must not be negative"},
		{map[string]any{"fraction": "1.5"}, "params.fraction: must be in (0, 1]"},
		{map[string]any{"fraction": 0}, "params.fraction: must be in (0, 1]"},
		{map[string]any{"slowest": 3}, "params.slowest: unknown parameter"},
	} {
		_, err := smacross.New(strategy.Config{Name: smacross.Name, ID: "x", Symbols: []string{"BTCUSDT"}, Interval: "1h", Params: tt.params})
		if err == nil || err.Error() != tt.want {
			t.Errorf("params %v: error %v, want %q", tt.params, err, tt.want)
		}
	}
	if _, err := smacross.New(strategy.Config{Name: smacross.Name, ID: "x", Interval: "1h"}); err == nil ||
		err.Error() != "symbols: smacross needs at least one symbol" {
		t.Errorf("no symbols: %v", err)
	}
	// A fixed quantity replaces the fraction, which is then not checked.
	if _, err := smacross.New(strategy.Config{Name: smacross.Name, ID: "x", Symbols: []string{"BTCUSDT"},
		Params: map[string]any{"quantity": 1, "fraction": 0}}); err != nil {
		t.Errorf("quantity without fraction: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	p := smacross.Defaults()
	if p.Fast != 10 || p.Slow != 30 || p.MA != "sma" || p.Fraction.String() != "0.95" || !p.Quantity.IsZero() {
		t.Errorf("defaults %+v", p)
	}
	s, err := smacross.New(strategy.Config{Name: smacross.Name, ID: "x", Symbols: []string{"BTCUSDT"}})
	if err != nil {
		t.Fatal(err)
	}
	if w := s.(strategy.WarmUpper).WarmUp(); w != 30 {
		t.Errorf("WarmUp = %d, want the slow period 30", w)
	}
}

// BenchmarkBar delivers one closed bar through the runtime to a warmed-up
// smacross instance (SMA 10/30) that places no order.
func BenchmarkBar(b *testing.B) {
	cfg := strategy.Config{Name: smacross.Name, ID: "cross", Symbols: []string{"BTCUSDT"}, Interval: "1h"}
	s, err := smacross.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	h := strategytest.New(b, strategytest.Options{Config: cfg, Strategy: s, Balances: map[string]string{"USDT": "1000"}})
	for i := range 30 {
		h.WarmUp("BTCUSDT", strategytest.Flat(iv, i, "100"))
	}
	h.Begin()
	k := strategytest.Bar(iv, 30, "100", "101.5", "99.25", "100") // no cross: both averages stay 100
	f := strategy.Feed{Symbol: "BTCUSDT", Interval: iv}
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		h.RT.OnBar(ctx, f, k)
	}
	if got := h.Sent(); got != nil {
		b.Fatalf("sent %q", got)
	}
}

// entry: state buys on the first trading bar where the fast average
// already stands above the slow one, with no crossing seen: after a
// warm-up of 10, 11, 12 (fast 11.5 > slow 11) the first bar, 13, buys;
// cross would wait for a crossing.
func TestStateEntry(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		entry string
		want  [][]string
	}{
		{"state", [][]string{{"BUY MARKET BTCUSDT quote=950"}, nil, nil}},
		{"cross", [][]string{nil, nil, nil}},
	} {
		h := harness(t, map[string]any{"fast": 2, "slow": 3, "entry": c.entry}, map[string]string{"USDT": "1000"})
		warm(h, "10", "11", "12")
		// 13: fast 12.5 > slow 12; 14: the buy fills, still above (no
		// second buy while holding); 15: still above.
		if got := steps(h, 3, "13", "14", "15"); !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("entry %s: orders per bar\n got %q\nwant %q", c.entry, got, c.want)
		}
	}
}

// TestPlot: SMA(2) and SMA(3) of closes 1, 2, 3, 4 are NaN, 1.5, 2.5, 3.5
// and NaN, NaN, 2, 3.
func TestPlot(t *testing.T) {
	t.Parallel()
	st, err := smacross.New(strategy.Config{Name: "smacross", ID: "x", Symbols: []string{"BTCUSDT"}, Params: map[string]any{"fast": 2, "slow": 3}})
	if err != nil {
		t.Fatal(err)
	}
	var bars []exchange.Kline
	for _, c := range []int64{1, 2, 3, 4} {
		bars = append(bars, exchange.Kline{Close: decimal.NewFromInt(c)})
	}
	got := st.(strategy.Plotter).Plot("BTCUSDT", bars)
	want := []strategy.PlotSeries{{Name: "sma(2)", Values: []float64{math.NaN(), 1.5, 2.5, 3.5}}, {Name: "sma(3)", Values: []float64{math.NaN(), math.NaN(), 2, 3}}}
	if len(got) != 2 {
		t.Fatalf("%d series", len(got))
	}
	for k := range want {
		if got[k].Name != want[k].Name || !slices.EqualFunc(got[k].Values, want[k].Values, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
			t.Errorf("series %d: %v, want %v", k, got[k], want[k])
		}
	}
}

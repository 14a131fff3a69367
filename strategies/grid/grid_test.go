package grid_test

import (
	"slices"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies/grid"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/strategytest"
)

const iv = exchange.Interval60m

func harness(t *testing.T, params map[string]any, btc string, stpGroup bool) (*strategytest.Harness, *grid.Strategy) {
	t.Helper()
	cfg := strategy.Config{Name: grid.Name, ID: "grid", Symbols: []string{"BTCUSDT"}, Interval: "1h", Params: params}
	s, err := grid.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := strategytest.New(t, strategytest.Options{Config: cfg, Strategy: s, STPGroup: stpGroup,
		Balances: map[string]string{"USDT": "1000", "BTC": btc}})
	// The last price at start is 100.
	h.WarmUp("BTCUSDT", strategytest.Flat(iv, 0, "100"))
	return h, s.(*grid.Strategy)
}

var base = map[string]any{"lower": 90, "upper": 110, "levels": 5, "quantity": "0.1"}

func TestLaysOutTheLadder(t *testing.T) {
	t.Parallel()
	h, g := harness(t, base, "0.25", false)
	h.Begin()
	// Levels 90, 95, 100, 105, 110; none at the last price 100; buys below,
	// sells above.
	want := []string{
		"BUY LIMIT BTCUSDT qty=0.1 price=90",
		"BUY LIMIT BTCUSDT qty=0.1 price=95",
		"SELL LIMIT BTCUSDT qty=0.1 price=105",
		"SELL LIMIT BTCUSDT qty=0.1 price=110",
	}
	if got := h.Sent(); !slices.Equal(got, want) {
		t.Fatalf("sent\n%q\nwant\n%q", got, want)
	}
	var levels []string
	for _, p := range g.Levels() {
		levels = append(levels, p.String())
	}
	if !slices.Equal(levels, []string{"90", "95", "100", "105", "110"}) {
		t.Errorf("levels %q", levels)
	}
	// A second Start (the ladder still open) lays nothing twice.
	h.Begin()
	if got := h.Sent(); got != nil {
		t.Errorf("second start sent %q", got)
	}
}

func TestSellsOnlyWhatTheBaseBalanceHolds(t *testing.T) {
	t.Parallel()
	h, _ := harness(t, base, "0.15", false)
	h.Begin()
	want := []string{
		"BUY LIMIT BTCUSDT qty=0.1 price=90",
		"BUY LIMIT BTCUSDT qty=0.1 price=95",
		"SELL LIMIT BTCUSDT qty=0.1 price=105",
	}
	if got := h.Sent(); !slices.Equal(got, want) {
		t.Fatalf("sent\n%q\nwant\n%q", got, want)
	}
}

func TestFillsAreAnsweredOneLevelAway(t *testing.T) {
	t.Parallel()
	h, _ := harness(t, base, "0.25", false)
	h.Begin()
	h.Sent()
	// The low of 94 trades through the buy at 95: a sell goes up at 100.
	h.Step("BTCUSDT", strategytest.Bar(iv, 1, "100", "100", "94", "96"))
	if got := h.Sent(); !slices.Equal(got, []string{"SELL LIMIT BTCUSDT qty=0.1 price=100"}) {
		t.Fatalf("after the buy at 95: %q", got)
	}
	// The high of 106 trades through the sells at 100 and 105: buys go
	// down at 95 and 100.
	h.Step("BTCUSDT", strategytest.Bar(iv, 2, "96", "106", "96", "104"))
	got := h.Sent()
	slices.Sort(got)
	if want := []string{"BUY LIMIT BTCUSDT qty=0.1 price=100", "BUY LIMIT BTCUSDT qty=0.1 price=95"}; !slices.Equal(got, want) {
		t.Fatalf("after the sells at 100 and 105: %q", got)
	}
	// The top sell filling answers with a buy at 105; nothing is placed
	// beyond the ends.
	h.Step("BTCUSDT", strategytest.Bar(iv, 3, "104", "111", "104", "111"))
	if got := h.Sent(); !slices.Equal(got, []string{"BUY LIMIT BTCUSDT qty=0.1 price=105"}) {
		t.Fatalf("after the sell at 110: %q", got)
	}
	// Filled: the buy at 95 and the sells at 100, 105 and 110. The
	// instance's position counts its own fills only, so selling the
	// account's starting BTC leaves it at 0.1 − 0.3.
	if p := h.Position("BTCUSDT"); p.Qty.String() != "-0.2" {
		t.Errorf("position %s, want -0.2", p.Qty)
	}
	if got := h.Balance("BTC"); got != "0.05" {
		t.Errorf("free BTC %s, want 0.25 + 0.1 − 0.3", got)
	}
}

func TestSTPModeIsSentWithEveryOrder(t *testing.T) {
	t.Parallel()
	params := map[string]any{"lower": 99, "upper": 101, "levels": 3, "quantity": "0.1", "stp_mode": "cancel_maker"}
	h, _ := harness(t, params, "1", true)
	h.Begin()
	want := []string{
		"BUY LIMIT BTCUSDT qty=0.1 price=99 stp=cancel_maker",
		"SELL LIMIT BTCUSDT qty=0.1 price=101 stp=cancel_maker",
	}
	if got := h.Sent(); !slices.Equal(got, want) {
		t.Fatalf("sent\n%q\nwant\n%q", got, want)
	}
}

func TestLevelsAreRoundedToThePriceTick(t *testing.T) {
	t.Parallel()
	// Step 1/3 between 99 and 100 at 2 decimals: 99, 99.33, 99.67, 100.
	h, g := harness(t, map[string]any{"lower": 99, "upper": 100, "levels": 4, "quantity": "0.1"}, "0", false)
	h.Begin()
	var levels []string
	for _, p := range g.Levels() {
		levels = append(levels, p.String())
	}
	if !slices.Equal(levels, []string{"99", "99.33", "99.67", "100"}) {
		t.Errorf("levels %q", levels)
	}
	// No BTC: no sells; 100 is the last price.
	want := []string{"BUY LIMIT BTCUSDT qty=0.1 price=99", "BUY LIMIT BTCUSDT qty=0.1 price=99.33", "BUY LIMIT BTCUSDT qty=0.1 price=99.67"}
	if got := h.Sent(); !slices.Equal(got, want) {
		t.Fatalf("sent %q", got)
	}
}

func TestParams(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		params  map[string]any
		symbols []string
		want    string
	}{
		{map[string]any{"upper": 10, "quantity": 1}, nil, "params.lower: must be positive"},
		{map[string]any{"lower": 10, "upper": 10, "quantity": 1}, nil, "params.upper: must be above lower"},
		{map[string]any{"lower": 1, "upper": 10, "levels": 1, "quantity": 1}, nil, "params.levels: must be 2..200"},
		{map[string]any{"lower": 1, "upper": 10, "levels": 201, "quantity": 1}, nil, "params.levels: must be 2..200"},
		{map[string]any{"lower": 1, "upper": 10}, nil, "params.quantity: must be positive"},
		{map[string]any{"lower": 1, "upper": 10, "quantity": 1, "stp_mode": "both"}, nil, `params.stp_mode: "both" is not a mode`},
		{map[string]any{"lower": 1, "upper": 10, "quantity": 1}, []string{"BTCUSDT", "ETHUSDT"}, "symbols: grid trades exactly one symbol"},
	} {
		if tt.symbols == nil {
			tt.symbols = []string{"BTCUSDT"}
		}
		_, err := grid.New(strategy.Config{Name: grid.Name, ID: "x", Symbols: tt.symbols, Interval: "1h", Params: tt.params})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%v: error %v, want %q", tt.params, err, tt.want)
		}
	}
}

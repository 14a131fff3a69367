package dca_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies/dca"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/strategytest"
)

const iv = exchange.Interval60m

func harness(t *testing.T, params map[string]any, usdt string) *strategytest.Harness {
	t.Helper()
	// Every two hours: the runtime ticks at each bar's close, so the runs
	// fall after bars 1 (02:00), 3 (04:00) and 5 (06:00).
	cfg := strategy.Config{Name: dca.Name, ID: "dca", Symbols: []string{"BTCUSDT"}, Interval: "1h",
		Schedule: "0 */2 * * *", Params: params}
	s, err := dca.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := strategytest.New(t, strategytest.Options{Config: cfg, Strategy: s, Balances: map[string]string{"USDT": usdt}})
	h.Begin()
	return h
}

func steps(h *strategytest.Harness, closes ...string) [][]string {
	out := make([][]string, len(closes))
	for i, c := range closes {
		h.Step("BTCUSDT", strategytest.Flat(iv, i, c))
		out[i] = h.Sent()
	}
	return out
}

func TestBuysOnSchedule(t *testing.T) {
	t.Parallel()
	// 10.555 is floored to the quote's 2 decimals.
	h := harness(t, map[string]any{"amount": "10.555"}, "1000")
	got := steps(h, "100", "100", "120", "120", "80", "80")
	buy := []string{"BUY MARKET BTCUSDT quote=10.55"}
	want := [][]string{nil, buy, nil, buy, nil, buy}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("orders per bar\n got %q\nwant %q", got, want)
	}
	// Three runs recorded (the 00:00 occurrence, due at start, was
	// already an hour old at the first tick and is skipped).
	if n := len(h.Journal.Runs()); n != 3 {
		t.Errorf("%d runs recorded, want 3", n)
	}
	// Each buy filled at the next bar's open: 10.55/120 → 0.0879 BTC,
	// 10.55/80 → 0.1318; the last is still pending.
	if p := h.Position("BTCUSDT"); p.Qty.String() != "0.2197" {
		t.Errorf("position %s, want 0.2197", p.Qty)
	}
}

func TestBuysOnlyAfterDip(t *testing.T) {
	t.Parallel()
	h := harness(t, map[string]any{"amount": 50, "dip": "0.1", "lookback": 3}, "1000")
	got := steps(h,
		"100",
		"100", // 02:00: high 100, needs ≤ 90: skip
		"95",
		"89", // 04:00: high of 100, 95, 89 is 100; 89 ≤ 90: buy
		"89",
		"95", // 06:00: high of 89, 89, 95 is 95, needs ≤ 85.5: skip
	)
	want := [][]string{nil, nil, nil, {"BUY MARKET BTCUSDT quote=50"}, nil, nil}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("orders per bar\n got %q\nwant %q", got, want)
	}
	for _, line := range []string{
		`msg="dca: no dip, skipping" instance=dca symbol=BTCUSDT last=100 needs=90`,
		`msg="dca: no dip, skipping" instance=dca symbol=BTCUSDT last=95 needs=85.5`,
	} {
		if !strings.Contains(h.Logs.String(), line) {
			t.Errorf("log lacks %s:\n%s", line, h.Logs)
		}
	}
}

func TestRefusedBuyDoesNotStopTheInstance(t *testing.T) {
	t.Parallel()
	// 30 USDT pays for one buy of 20; the risk gate refuses the second.
	h := harness(t, map[string]any{"amount": 20}, "30")
	got := steps(h, "100", "100", "100", "100", "100", "100")
	buy := []string{"BUY MARKET BTCUSDT quote=20"}
	if want := [][]string{nil, buy, nil, nil, nil, nil}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("orders per bar\n got %q\nwant %q", got, want)
	}
	if h.Stopped() != "" || strings.Count(h.Logs.String(), `msg="dca: buy refused"`) != 2 {
		t.Errorf("stopped %q; log:\n%s", h.Stopped(), h.Logs)
	}
}

func TestParams(t *testing.T) {
	t.Parallel()
	cfg := func(params map[string]any, symbols ...string) strategy.Config {
		return strategy.Config{Name: dca.Name, ID: "x", Symbols: symbols, Interval: "1h", Params: params}
	}
	for _, tt := range []struct {
		cfg  strategy.Config
		want string
	}{
		{cfg(nil, "BTCUSDT"), "params.amount: must be positive"},
		{cfg(map[string]any{"amount": 10, "dip": 1}, "BTCUSDT"), "params.dip: must be in [0, 1)"},
		{cfg(map[string]any{"amount": 10, "dip": "-0.1"}, "BTCUSDT"), "params.dip: must be in [0, 1)"},
		{cfg(map[string]any{"amount": 10, "lookback": 0}, "BTCUSDT"), "params.lookback: must be at least 1"},
		{cfg(map[string]any{"amount": 10, "schedule": "every day"}, "BTCUSDT"),
			"params.schedule: expected 5 to 6 fields, found 2: [every day]"},
		{cfg(map[string]any{"amount": 10}, "BTCUSDT", "ETHUSDT"), "symbols: dca trades exactly one symbol"},
		{cfg(map[string]any{"amount": 10, "dips": 1}, "BTCUSDT"), "params.dips: unknown parameter; did you mean dip?"},
	} {
		if _, err := dca.New(tt.cfg); err == nil || err.Error() != tt.want {
			t.Errorf("%v: error %v, want %q", tt.cfg.Params, err, tt.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	s, err := dca.New(strategy.Config{Name: dca.Name, ID: "x", Symbols: []string{"BTCUSDT"}, Interval: "1h",
		Params: map[string]any{"amount": 10}})
	if err != nil {
		t.Fatal(err)
	}
	if w := s.(strategy.WarmUpper).WarmUp(); w != 24 {
		t.Errorf("WarmUp = %d, want the default lookback 24", w)
	}
	if sc := s.(strategy.Scheduler).Schedules(); len(sc) != 1 || sc[0].Spec != "0 0 * * *" || sc[0].Name != "buy" {
		t.Errorf("schedules %+v, want one daily at midnight", sc)
	}
}

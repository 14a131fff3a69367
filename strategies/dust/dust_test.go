package dust_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies/dust"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/strategytest"
)

// harness builds an account holding 17 dust assets A01…A17 (1 unit at 1
// USDT each), BIG (10 USDT, above the simulator's 5 USDT dust threshold),
// EXC (dust, excluded), NOP (no market, so no price) and 100 USDT.
func harness(t *testing.T) (*strategytest.Harness, *dust.Strategy) {
	t.Helper()
	cfg := strategy.Config{Name: dust.Name, ID: "dust", Schedule: "0 * * * *", Params: map[string]any{"exclude": []any{"EXC"}}}
	s, err := dust.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	balances := map[string]string{"USDT": "100", "BIG": "10", "EXC": "1", "NOP": "1"}
	var rules []exchange.SymbolInfo
	prices := map[string]string{"TOKUSDT": "2", "BIGUSDT": "1", "EXCUSDT": "1"}
	for i := 1; i <= 17; i++ {
		a := fmt.Sprintf("A%02d", i)
		balances[a] = "1"
		prices[a+"USDT"] = "1"
	}
	for sym := range prices {
		rules = append(rules, strategytest.Rules(sym))
	}
	h := strategytest.New(t, strategytest.Options{Config: cfg, Strategy: s, Symbols: rules, Balances: balances})
	for sym, p := range prices {
		if err := h.X.SetLastPrice(sym, decimal.RequireFromString(p)); err != nil {
			t.Fatal(err)
		}
	}
	return h, s.(*dust.Strategy)
}

func assets(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("A%02d", i))
	}
	return out
}

func outcomes(convertedResult, reason string) []dust.Outcome {
	var out []dust.Outcome
	for _, a := range assets(1, 17) {
		out = append(out, dust.Outcome{Asset: a, Result: convertedResult, Reason: reason})
	}
	return append(out,
		dust.Outcome{Asset: "BIG", Result: "ineligible", Reason: "value not below the dust threshold of 5 USDT"},
		dust.Outcome{Asset: "EXC", Result: "excluded"},
		dust.Outcome{Asset: "NOP", Result: "ineligible", Reason: "no valid trade price"},
		dust.Outcome{Asset: "USDT", Result: "ineligible", Reason: "asset cannot be converted"},
	)
}

func TestConvertsEligibleDustInBatchesOf15(t *testing.T) {
	t.Parallel()
	h, s := harness(t)
	h.Tick(strategytest.T0())
	if got, want := h.Conversions(), [][]string{assets(1, 15), assets(16, 17)}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("conversions %q, want %q", got, want)
	}
	if want := outcomes("converted", ""); !slices.Equal(s.Last, want) {
		t.Fatalf("outcomes\n%+v\nwant\n%+v", s.Last, want)
	}
	if !s.LastRun.Equal(strategytest.T0()) {
		t.Errorf("LastRun %v", s.LastRun)
	}
	// 17 USDT of dust at a token price of 2, less the 2% fee: 8.33 TOK.
	if got := h.Balance("TOK"); got != "8.33" {
		t.Errorf("TOK %s, want 8.33", got)
	}
	if got := h.Balance("A01"); got != "0" {
		t.Errorf("A01 left %s", got)
	}
	// The outcomes are the instance's persisted state.
	var saved dust.Strategy
	if err := json.Unmarshal(h.Journal.State("dust"), &saved); err != nil {
		t.Fatalf("state %q: %v", h.Journal.State("dust"), err)
	}
	if !slices.Equal(saved.Last, s.Last) || !saved.LastRun.Equal(strategytest.T0()) {
		t.Errorf("saved state %+v", saved)
	}
	// An hour later nothing is dust any more but the ineligible assets
	// and the token itself.
	h.Tick(strategytest.T0().Add(time.Hour))
	if got := h.Conversions(); got != nil {
		t.Errorf("second run converted %q", got)
	}
}

func TestFailedConversionIsRecordedPerAsset(t *testing.T) {
	t.Parallel()
	h, s := harness(t)
	h.FailConversions(errors.New("exchange down"))
	h.Tick(strategytest.T0())
	if got := h.Conversions(); len(got) != 2 {
		t.Fatalf("conversions %q, want both batches tried", got)
	}
	if want := outcomes("failed", "exchange down"); !slices.Equal(s.Last, want) {
		t.Fatalf("outcomes\n%+v\nwant\n%+v", s.Last, want)
	}
	if h.Stopped() != "" {
		t.Errorf("stopped: %s", h.Stopped())
	}
}

func TestListingFailureKeepsTheSchedule(t *testing.T) {
	t.Parallel()
	h, s := harness(t)
	h.FailListing(errors.New("connection reset"))
	h.Tick(strategytest.T0())
	if h.Stopped() != "" || len(s.Last) != 0 || s.LastError != "listing candidates: connection reset" {
		t.Fatalf("stopped %q, last %+v, error %q", h.Stopped(), s.Last, s.LastError)
	}
	// The next run, an hour later, converts and clears the error.
	h.FailListing(nil)
	h.Tick(strategytest.T0().Add(time.Hour))
	if got := h.Conversions(); len(got) != 2 || s.LastError != "" || len(s.Last) != 21 {
		t.Fatalf("conversions %q, error %q, %d outcomes", got, s.LastError, len(s.Last))
	}
}

func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	s, err := dust.New(strategy.Config{Name: dust.Name, ID: "d"})
	if err != nil {
		t.Fatal(err)
	}
	in := `{"last":[{"asset":"A","result":"converted"},{"asset":"B","result":"failed","reason":"x"}],"last_run":"2024-03-01T03:00:00Z"}`
	st := s.(strategy.Stateful)
	if err := st.UnmarshalState([]byte(in)); err != nil {
		t.Fatal(err)
	}
	out, err := st.MarshalState()
	if err != nil || string(out) != in {
		t.Errorf("MarshalState = %s, %v; want %s", out, err, in)
	}
}

func TestParams(t *testing.T) {
	t.Parallel()
	s, err := dust.New(strategy.Config{Name: dust.Name, ID: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if sc := s.(strategy.Scheduler).Schedules(); len(sc) != 1 || sc[0].Spec != "0 3 * * *" || sc[0].Name != "convert" {
		t.Errorf("default schedule %+v", sc)
	}
	for _, tt := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"schedule": "* * *"}, "params.schedule: expected 5 to 6 fields, found 3: [* * *]"},
		{map[string]any{"exclude": "BNB"}, "params.exclude: must be a list"},
		{map[string]any{"excludes": []any{"BNB"}}, "params.excludes: unknown parameter; did you mean exclude?"},
	} {
		if _, err := dust.New(strategy.Config{Name: dust.Name, ID: "d", Params: tt.params}); err == nil || err.Error() != tt.want {
			t.Errorf("%v: error %v, want %q", tt.params, err, tt.want)
		}
	}
}

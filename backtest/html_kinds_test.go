package backtest

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategy"
)

const twoInstances = `mode: backtest
data: {source: sample, interval: 1h}
account: {balances: {USDT: 10000}}
strategies:
  - {name: smacross, id: btc, symbols: [BTCUSDT], interval: 1h, params: {fast: 10, slow: 30, fraction: 0.45}}
  - {name: smacross, id: eth, symbols: [ETHUSDT], interval: 1h, params: {fast: 8, slow: 40, fraction: 0.45}}
`

// specOf builds the spec of a configuration text over the built-in
// strategies.
func specOf(t *testing.T, yaml string) Spec {
	t.Helper()
	return specWith(t, strategies.NewRegistry(), yaml)
}

// specWith builds the spec of a configuration text over reg.
func specWith(t *testing.T, reg *strategy.Registry, yaml string) Spec {
	t.Helper()
	c, err := config.Load([]byte(yaml), nil, nil, reg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromConfig(c, reg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReportKindsInChromium opens the report of several instances, of a
// sweep and of a walk-forward in headless Chromium with the real library.
func TestReportKindsInChromium(t *testing.T) {
	lib := chartLibrary(t)
	s := specOf(t, twoInstances)
	res, err := Run(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, NewReport("btc, eth", s, res), s, res, HTMLOptions{Script: lib}); err != nil {
		t.Fatal(err)
	}
	dom := chromium(t, b.Bytes(), "report-instances.png")
	rendered(t, dom, 4, "chart-price-BTCUSDT", "chart-price-ETHUSDT", "chart-equity", "chart-drawdown")
	if n := strings.Count(dom[strings.Index(dom, `id="per-instance"`):strings.Index(dom, `id="per-symbol"`)], "<tr>"); n != 3 {
		t.Errorf("per-instance table has %d rows, want a header and 2", n)
	}

	obj, _ := ParseObjective("return")
	ps := []Param{{Name: "fast", Values: []any{int64(5), int64(10)}}, {Name: "slow", Values: []any{int64(30), int64(50)}}}
	base := specOf(t, twoInstances)
	runs, err := Sweep(t.Context(), base, SweepOptions{Combos: Grid(ps), Objective: obj, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	best, err := RunBest(t.Context(), base, runs)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteSweepHTML(&b, SweepReport{Title: "btc, eth", Objective: "return", Params: ps, Runs: runs,
		Overfit: Overfit(runs, best, OverfitOptions{}), Spec: base, Best: best}, HTMLOptions{Script: lib}); err != nil {
		t.Fatal(err)
	}
	dom = chromium(t, b.Bytes(), "report-sweep.png")
	rendered(t, dom, 2, "chart-equity", "chart-drawdown")
	if !strings.Contains(dom, `class="best"`) || !strings.Contains(dom, `id="overfitting"`) || !strings.Contains(dom, `id="edge"`) {
		t.Error("sweep report lacks the best cell, the overfitting table or the edge flag")
	}

	wf, err := WalkForward(t.Context(), base, WalkForwardOptions{Params: ps[:1], Objective: obj, Train: 60 * 24 * time.Hour, Test: 30 * 24 * time.Hour, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteWalkForwardHTML(&b, "btc, eth", wf, HTMLOptions{Script: lib}); err != nil {
		t.Fatal(err)
	}
	dom = chromium(t, b.Bytes(), "report-walkforward.png")
	rendered(t, dom, 1, "chart-walkforward")
	if !strings.Contains(dom, `id="windows"`) {
		t.Error("walk-forward report lacks the windows table")
	}
}

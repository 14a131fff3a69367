package backtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseParam(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, want, err string
	}{
		{in: "fast=5:20:5", want: "fast [5 10 15 20]"},
		{in: "slow=30,50, 80", want: "slow [30 50 80]"},
		{in: "fraction=0.1:0.3:0.1", want: "fraction [0.1 0.2 0.3]"},
		{in: "ma=sma,ema", want: "ma [sma ema]"},
		{in: "fast", err: `param "fast": want name=v1,v2 or name=lo:hi:step`},
		{in: "=1,2", err: `param "=1,2": want`},
		{in: "fast=1,,2", err: `param fast: empty value in "1,,2"`},
		{in: "fast=5:1:1", err: "needs lo ≤ hi and a positive step"},
		{in: "fast=1:5:0", err: "needs lo ≤ hi and a positive step"},
		{in: "fast=a:5:1", err: `param fast: "a" is not a number`},
		{in: "fast=0:100000:1", err: "more than 10000 values"},
	} {
		p, err := ParseParam(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if got := fmt.Sprint(p.Name, " ", p.Values); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestGridAndRandom(t *testing.T) {
	t.Parallel()
	ps := []Param{{Name: "fast", Values: []any{5, 10}}, {Name: "slow", Values: []any{30, 50, 80}}}
	g := Grid(ps)
	var got []string
	for _, c := range g {
		got = append(got, c.String())
	}
	want := "fast=5 slow=30|fast=5 slow=50|fast=5 slow=80|fast=10 slow=30|fast=10 slow=50|fast=10 slow=80"
	if strings.Join(got, "|") != want {
		t.Errorf("grid %q", strings.Join(got, "|"))
	}
	a, b := Random(ps, 5, 42), Random(ps, 5, 42)
	if !reflect.DeepEqual(a, b) || len(a) != 5 {
		t.Errorf("random draws differ for one seed: %v %v", a, b)
	}
	if reflect.DeepEqual(a, Random(ps, 5, 43)) {
		t.Error("two seeds drew the same points")
	}
}

func TestParseObjective(t *testing.T) {
	t.Parallel()
	m := Metrics{ReturnPct: 1, Sharpe: 2, Sortino: 3, Calmar: 4, CAGRPct: 5, ProfitFactor: 6, SQN: 7, WinRatePct: 8, MaxDrawdownPct: 9}
	for name, want := range map[string]float64{"return": 1, "sharpe": 2, "sortino": 3, "calmar": 4, "cagr": 5,
		"profit_factor": 6, "sqn": 7, "win_rate": 8, "-max_drawdown": -9} {
		f, err := ParseObjective(name)
		if err != nil || f(m) != want {
			t.Errorf("%s: %v %v", name, err, f)
		}
	}
	if _, err := ParseObjective("luck"); err == nil || !strings.Contains(err.Error(), "known objectives are return, sharpe") {
		t.Errorf("unknown objective: %v", err)
	}
}

// A sweep gives the same ranking with one worker or several, its shards
// together hold exactly the full sweep's runs, and a combination the
// strategy refuses is kept with its error, ranked last.
func TestSweepParallelShardsAndErrors(t *testing.T) {
	t.Parallel()
	base := sampleSpec(t)
	ps := []Param{{Name: "fast", Values: []any{5, 10, 40}}, {Name: "slow", Values: []any{30, 50}}}
	obj, _ := ParseObjective("sharpe")
	combos := Grid(ps)
	one, err := Sweep(t.Context(), base, SweepOptions{Combos: combos, Objective: obj, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	many, err := Sweep(t.Context(), base, SweepOptions{Combos: combos, Objective: obj, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, many) {
		t.Error("one worker and four ranked differently")
	}
	if one[0].Params.String() != "fast=10 slow=30" || one[0].Metrics.EquityFinal != "20438.1701753271" {
		t.Errorf("best %s final %s", one[0].Params, one[0].Metrics.EquityFinal)
	}
	last := one[len(one)-1]
	if last.Params.String() != "fast=40 slow=30" || !strings.Contains(last.Err, "fast: must be < slow") {
		t.Errorf("refused combo %s err %q", last.Params, last.Err)
	}
	var merged []SweepRun
	for i := 0; i < 3; i++ {
		part, err := Sweep(t.Context(), base, SweepOptions{Combos: combos, Objective: obj, Shard: i, Shards: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(part) != 2 {
			t.Errorf("shard %d: %d runs, want 2", i, len(part))
		}
		merged = append(merged, part...)
	}
	SortRuns(merged)
	if !reflect.DeepEqual(merged, one) {
		t.Error("the shards together differ from the whole sweep")
	}
	if _, err := Sweep(t.Context(), base, SweepOptions{Combos: combos, Objective: obj, Shard: 3, Shards: 3}); err == nil {
		t.Error("shard 3/3 accepted")
	}
}

// A sweep cancelled from its Done callback starts no run after the
// cancel: with one worker, one run, then the context's error.
func TestSweepStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	base := sampleSpec(t)
	obj, _ := ParseObjective("sharpe")
	combos := Grid([]Param{{Name: "fast", Values: []any{5, 8, 10, 12}}, {Name: "slow", Values: []any{30, 40}}})
	for _, workers := range []int{1, 2} {
		ctx, cancel := context.WithCancel(t.Context())
		done := 0
		_, err := Sweep(ctx, base, SweepOptions{Combos: combos, Objective: obj, Workers: workers, Done: func(SweepRun) {
			done++
			cancel()
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%d workers: err %v, want the context's", workers, err)
		}
		// The other worker may be in a run when the first one's Done
		// cancels: at most one run each.
		if done < 1 || done > workers {
			t.Fatalf("%d workers: %d runs done after the cancel, want 1 to %d", workers, done, workers)
		}
	}
}

// Walk-forward over the sample: 60-day train and 30-day test windows make
// four test windows, chained into one out-of-sample curve whose first
// point is the starting balance.
func TestWalkForward(t *testing.T) {
	t.Parallel()
	base := sampleSpec(t)
	obj, _ := ParseObjective("return")
	res, err := WalkForward(t.Context(), base, WalkForwardOptions{Params: []Param{{Name: "fast", Values: []any{5, 10}}},
		Objective: obj, Train: 60 * 24 * time.Hour, Test: 30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Windows) != 4 {
		t.Fatalf("%d windows, want 4", len(res.Windows))
	}
	w := res.Windows[0]
	if got := w.TestFrom.Format(time.DateOnly) + " " + w.TestTo.Format(time.DateOnly); got != "2021-01-16 2021-02-15" {
		t.Errorf("first test window %s", got)
	}
	for i := 1; i < len(res.Windows); i++ {
		if !res.Windows[i].TestFrom.Equal(res.Windows[i-1].TestTo) {
			t.Errorf("window %d does not start where %d ended", i, i-1)
		}
	}
	if res.Aggregate.EquityStart != "10000" || res.Curve.Len() == 0 {
		t.Errorf("aggregate start %s, %d points", res.Aggregate.EquityStart, res.Curve.Len())
	}
	// The chained exposure is the windows' exposure together.
	held := 0
	for _, w := range res.Windows {
		held += int(math.Round(w.Test.ExposurePct * float64(w.Test.Bars) / 100))
	}
	if res.Exposure.Count() != held || held == 0 {
		t.Errorf("exposure %d points, windows %d", res.Exposure.Count(), held)
	}
	// The chained curve ends at the product of the windows' growth.
	growth := 1.0
	for _, w := range res.Windows {
		growth *= 1 + w.Test.ReturnPct/100
	}
	if got := res.Aggregate.ReturnPct; got < (growth-1)*100-1e-6 || got > (growth-1)*100+1e-6 {
		t.Errorf("aggregate return %v, windows compound to %v", got, (growth-1)*100)
	}
	if _, err := WalkForward(t.Context(), base, WalkForwardOptions{Params: []Param{{Name: "fast", Values: []any{5}}},
		Objective: obj, Train: 400 * 24 * time.Hour, Test: 30 * 24 * time.Hour}); err == nil ||
		!strings.Contains(err.Error(), "less than one train") {
		t.Errorf("too long a window: %v", err)
	}
}

package distributed_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/distributed"
	"github.com/spotbot/spotbot/distributed/natstest"
	"github.com/spotbot/spotbot/strategies/smacross"
	"github.com/spotbot/spotbot/strategy"
)

// wfJSON is everything of a walk-forward result, the in-sample curves
// (not in its JSON) and the curve's times included.
func wfJSON(t *testing.T, r *backtest.WalkForwardResult) string {
	t.Helper()
	var curves [][]backtest.EquityPoint
	for _, w := range r.Windows {
		var c []backtest.EquityPoint
		for _, p := range w.TrainCurve.All() {
			c = append(c, p)
		}
		curves = append(curves, c)
	}
	var points []backtest.EquityPoint
	for _, p := range r.Curve.All() {
		points = append(points, p)
	}
	return mustJSON(t, map[string]any{"windows": r.Windows, "train_curves": curves, "aggregate": r.Aggregate, "curve": points,
		"exact": fmt.Sprint(r.Exact), "exposure": r.Exposure, "trades": fmt.Sprintf("%+v", r.Trades)})
}

// TestWalkForwardWindowsOnWorkers: every backtest of a distributed
// walk-forward runs on a worker (the windows' runs of their best
// combination too, one unit a window), the coordinator builds no
// strategy, and the result is the local walk-forward's exactly; run again
// with no worker left, it is rebuilt from the stored results alone.
func TestWalkForwardWindowsOnWorkers(t *testing.T) {
	url := natstest.Server(t)
	job, spec, _, reg := sampleJob(t, "wfunits", []string{"fast=5,10", "slow=30,50"}, 2)
	job.Kind = distributed.KindWalkForward
	ps := []backtest.Param{}
	for _, s := range job.Params {
		p, err := backtest.ParseParam(s)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	obj, _ := backtest.ParseObjective(job.Objective)
	const train, test = 60 * 24 * time.Hour, 30 * 24 * time.Hour
	local, err := backtest.WalkForward(t.Context(), spec, backtest.WalkForwardOptions{Params: ps, Objective: obj, Train: train, Test: test})
	if err != nil {
		t.Fatal(err)
	}
	if len(local.Windows) < 3 || local.Aggregate.Trades == 0 {
		t.Fatalf("%d windows, %d trades: too small a walk-forward to compare", len(local.Windows), local.Aggregate.Trades)
	}

	var coordBuilds atomic.Int32
	coordReg := strategy.NewRegistry()
	coordReg.Register(smacross.Name, func(cfg strategy.Config) (strategy.Strategy, error) {
		coordBuilds.Add(1)
		return smacross.New(cfg)
	})
	coordSpec := spec
	coordSpec.Registry = coordReg
	q := connect(t, url, "coordinator")
	j, _, err := q.Start(t.Context(), job, spec.Data)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	windows := map[int]int{} // stage -> window units started
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for i := range 2 {
		w := &distributed.Worker{Queue: connect(t, url, fmt.Sprint("w", i)), Registry: reg, Name: fmt.Sprint("w", i), Concurrency: 1,
			Started: func(u distributed.Unit) {
				if u.Kind == distributed.KindWindow {
					mu.Lock()
					windows[u.Stage]++
					mu.Unlock()
				}
			}}
		wg.Go(func() { _ = w.Run(ctx) })
	}
	var last distributed.Progress
	q.OnProgress = func(p distributed.Progress) { last = p }
	sweep, window := q.WalkForward(j, test)
	opts := backtest.WalkForwardOptions{Params: ps, Objective: obj, Train: train, Test: test, Sweep: sweep, Window: window}
	got, err := backtest.WalkForward(t.Context(), coordSpec, opts)
	stop()
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if a, b := wfJSON(t, got), wfJSON(t, local); a != b {
		t.Fatalf("distributed walk-forward:\n%s\nlocal:\n%s", a, b)
	}
	// Each window: its sweep's 2 units of 2 runs and the unit of its 2 runs.
	if n := len(local.Windows); last != (distributed.Progress{UnitsDone: 3 * n, Units: 3 * n, RunsDone: 6 * n, Runs: 6 * n}) {
		t.Fatalf("progress %+v at the end, %d windows", last, n)
	}
	if n := coordBuilds.Load(); n != 0 {
		t.Fatalf("the coordinator built %d strategies, want 0: a backtest ran on it", n)
	}
	if len(windows) != len(local.Windows) {
		t.Fatalf("window units started for stages %v, want one for each of %d windows", windows, len(local.Windows))
	}
	for st, n := range windows {
		if n != 1 {
			t.Fatalf("window unit of stage %d started %d times", st, n)
		}
	}
	again, err := backtest.WalkForward(t.Context(), coordSpec, opts)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := wfJSON(t, again), wfJSON(t, local); a != b {
		t.Fatalf("walk-forward from the stored results:\n%s\nlocal:\n%s", a, b)
	}
	checkDrained(t, url)
}

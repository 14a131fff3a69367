package distributed_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/distributed"
	"github.com/spotbot/spotbot/distributed/natstest"
	"github.com/spotbot/spotbot/marketdata"
)

// TestFirstBarsCalledOnce: the worker's FirstBars hook (where the program
// sizes its garbage collector) runs once, after the first unit started
// and before its runs finished, however many units and jobs follow.
func TestFirstBarsCalledOnce(t *testing.T) {
	url := natstest.Server(t)
	job, spec, combos, reg := sampleJob(t, "gc1", []string{"fast=5,10", "slow=30,50"}, 1)
	obj, _ := backtest.ParseObjective(job.Objective)
	var starts, calls, startsAtCall atomic.Int32
	runWorker(t, &distributed.Worker{Queue: connect(t, url, "w"), Registry: reg, Name: "w", Concurrency: 2,
		Started: func(distributed.Unit) { starts.Add(1) },
		FirstBars: func() {
			startsAtCall.Store(starts.Load())
			calls.Add(1)
		}})
	q := connect(t, url, "coordinator")
	var doneAtCall []int32
	for i, data := range []map[string]*marketdata.Series{spec.Data, {"BTCUSDT": spec.Data["BTCUSDT"].Slice(0, 2000)}} {
		job.ID = []string{"gc1", "gc2"}[i]
		j, _, err := q.Start(t.Context(), job, data)
		if err != nil {
			t.Fatal(err)
		}
		var merged atomic.Int32
		if _, err := q.Sweep(t.Context(), j, 0, time.Time{}, time.Time{}, backtest.SweepOptions{Combos: combos, Objective: obj,
			Done: func(backtest.SweepRun) {
				if merged.Add(1) == 1 {
					doneAtCall = append(doneAtCall, calls.Load())
				}
			}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("FirstBars called %d times, want 1", n)
	}
	if s := startsAtCall.Load(); s < 1 || s > 2 {
		t.Fatalf("FirstBars called after %d units started, want 1 or 2 (concurrency 2)", s)
	}
	if doneAtCall[0] != 1 || doneAtCall[1] != 1 {
		t.Fatalf("calls when the first result of each job arrived: %v, want [1 1]", doneAtCall)
	}
	if s := starts.Load(); s != 8 {
		t.Fatalf("%d units started, want 8", s)
	}
}

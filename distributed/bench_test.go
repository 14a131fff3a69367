package distributed_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/distributed"
	"github.com/spotbot/spotbot/distributed/natstest"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// walk is n hourly bars of a seeded random walk from 20000, generated at
// benchmark time.
func walk(n int, seed uint64) []exchange.Kline {
	r := rand.New(rand.NewPCG(seed, seed+1))
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	price := 20000.0
	out := make([]exchange.Kline, n)
	for i := range out {
		open := price
		price *= 1 + r.NormFloat64()*0.01
		hi, lo := max(open, price)*(1+r.Float64()*0.003), min(open, price)*(1-r.Float64()*0.003)
		at := start.Add(time.Duration(i) * time.Hour)
		d := func(f float64) decimal.Decimal { return decimal.NewFromFloat(f).Round(2) }
		out[i] = exchange.Kline{OpenTime: at, CloseTime: at.Add(time.Hour - time.Millisecond), Open: d(open), High: d(hi),
			Low: d(lo), Close: d(price), Volume: decimal.NewFromInt(int64(10 + r.IntN(100)))}
	}
	return out
}

// walkSeries is walk's bars as BTCUSDT's series.
func walkSeries(tb testing.TB, n int, seed uint64) map[string]*marketdata.Series {
	s, err := marketdata.FromKlines("BTCUSDT", exchange.Interval60m, walk(n, seed))
	if err != nil {
		tb.Fatal(err)
	}
	return map[string]*marketdata.Series{"BTCUSDT": s}
}

// benchSweep runs the job's sweep on the queue with workers in-process
// workers of one unit at a time, started for this sweep.
func benchSweep(b *testing.B, url string, job distributed.Job, spec backtest.Spec, workers int) []backtest.SweepRun {
	b.Helper()
	q, err := distributed.Connect(b.Context(), distributed.ConnOptions{URL: url})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	j, _, err := q.Start(b.Context(), job, spec.Data)
	if err != nil {
		b.Fatal(err)
	}
	combos, _ := j.Combos()
	obj, _ := backtest.ParseObjective(j.Objective)
	ctx, stop := context.WithCancel(b.Context())
	var wg sync.WaitGroup
	for i := range workers {
		wq, err := distributed.Connect(b.Context(), distributed.ConnOptions{URL: url})
		if err != nil {
			b.Fatal(err)
		}
		w := &distributed.Worker{Queue: wq, Registry: spec.Registry, Name: fmt.Sprint("w", i), Concurrency: 1}
		wg.Go(func() {
			defer wq.Close()
			_ = w.Run(ctx)
		})
	}
	runs, err := q.Sweep(b.Context(), j, 0, time.Time{}, time.Time{}, backtest.SweepOptions{Combos: combos, Objective: obj})
	stop()
	wg.Wait()
	if err != nil {
		b.Fatal(err)
	}
	return runs
}

// BenchmarkDistributedScaling runs a sweep of 64 smacross runs over a
// year of generated hourly bars, units of 4 runs, with one worker (on one
// core: GOMAXPROCS 1, the server included) and with two (GOMAXPROCS 2);
// compare the runs/s of the two (target ≥ 1.7×). Server, coordinator and
// workers share the process, as they share the machine.
func BenchmarkDistributedScaling(b *testing.B) {
	job, spec, _, _ := sampleJob(b, "x", []string{"fast=5:40:5", "slow=50:120:10"}, 4)
	spec.Data = walkSeries(b, 8760, 7)
	_, restore := backtest.SweepMemory()
	defer restore()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprint("workers=", workers), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers))
			url := natstest.Server(b) // a server of its own: job ids start again with -count
			n := 0
			job.ID = fmt.Sprintf("scale%d-warm", workers)
			benchSweep(b, url, job, spec, workers) // the heap grows to its limit once
			b.ReportAllocs()
			runs := 0
			for b.Loop() {
				n++
				job.ID = fmt.Sprintf("scale%d-%d", workers, n)
				runs += len(benchSweep(b, url, job, spec, workers))
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}

// BenchmarkQueueOverhead is the queue's cost per unit: 64 units of one run
// each that the strategy refuses at once (fast ≥ slow), so the unit's
// work is nothing but the queue's (publish, fetch, the stored-result check,
// the result stored, the acknowledgement, the coordinator's watch), run
// one at a time by one worker; the same runs' time on this machine without
// the queue is subtracted. Target: ≤ 2 ms/unit.
func BenchmarkQueueOverhead(b *testing.B) {
	url := natstest.Server(b)
	job, spec, _, _ := sampleJob(b, "x", []string{"fast=100:163:1", "slow=10"}, 1)
	spec.Data = walkSeries(b, 500, 11)
	combos, _ := job.Combos()
	obj, _ := backtest.ParseObjective(job.Objective)
	b.ReportAllocs()
	var queued, local time.Duration
	n := 0
	for b.Loop() {
		n++
		job.ID = fmt.Sprint("overhead", n)
		t0 := time.Now()
		runs := benchSweep(b, url, job, spec, 1)
		t1 := time.Now()
		if _, err := backtest.Sweep(b.Context(), spec, backtest.SweepOptions{Combos: combos, Objective: obj, Workers: 1}); err != nil {
			b.Fatal(err)
		}
		queued += t1.Sub(t0)
		local += time.Since(t1)
		if runs[0].Err == "" {
			b.Fatal("the refused combination ran")
		}
	}
	units := float64(n * len(combos))
	b.ReportMetric(float64((queued-local).Microseconds())/1000/units, "ms/unit")
}

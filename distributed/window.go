package distributed

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/strategy"
)

// WalkForward returns the two hooks of backtest.WalkForwardOptions that
// run a walk-forward on the queue: Sweep runs window k's in-sample sweep
// as stage k+1 and, once it is merged, queues the window's runs of its
// best combination (test is the out-of-sample length); Window waits for
// those runs' results. So a worker, not the coordinator, runs every
// backtest, and a window's runs start as soon as its sweep is done.
func (q *Queue) WalkForward(j *Job, test time.Duration) (
	sweep func(ctx context.Context, window int, from, to time.Time, train backtest.Spec, o backtest.SweepOptions) ([]backtest.SweepRun, error),
	window func(ctx context.Context, n int, w backtest.Window, best backtest.SweepRun) (train, out *backtest.Result, err error)) {
	sweep = func(ctx context.Context, n int, from, to time.Time, _ backtest.Spec, o backtest.SweepOptions) ([]backtest.SweepRun, error) {
		q.track(1, 2) // the window's runs, counted from the start
		runs, err := q.Sweep(ctx, j, n+1, from, to, o)
		if err != nil || len(runs) == 0 || runs[0].Err != "" {
			return runs, err // the walk-forward stops on a window whose every run failed
		}
		u := windowUnit(j.ID, n, backtest.Window{TrainFrom: from, TrainTo: to, TestFrom: to, TestTo: to.Add(test)}, runs[0].Index)
		if _, err := q.results.Get(ctx, u.resultKey()); err == nil {
			return runs, nil
		} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
			return nil, fmt.Errorf("queue: job %s: window %d: %w", j.ID, n, err)
		}
		return runs, q.publish(ctx, []Unit{u}, []bool{false})
	}
	window = func(ctx context.Context, n int, w backtest.Window, best backtest.SweepRun) (*backtest.Result, *backtest.Result, error) {
		return q.awaitWindow(ctx, j, windowUnit(j.ID, n, w, best.Index))
	}
	return sweep, window
}

// windowUnit is window n's unit of the runs of combination best.
func windowUnit(job string, n int, w backtest.Window, best int) Unit {
	return Unit{Job: job, Kind: KindWindow, Stage: n + 1, Lo: best, Hi: best + 1, From: w.TrainFrom, To: w.TrainTo, TestTo: w.TestTo}
}

// awaitWindow waits for the result of a window's unit, queueing it when
// it is neither done nor queued (as Sweep does for its units).
func (q *Queue) awaitWindow(ctx context.Context, j *Job, u Unit) (*backtest.Result, *backtest.Result, error) {
	w, err := q.results.WatchFiltered(ctx, []string{u.resultKey(), u.errorKey()})
	if err != nil {
		return nil, nil, fmt.Errorf("queue: watch results of %s: %w", j.ID, err)
	}
	defer func() { _ = w.Stop() }()
	initial := true
	for {
		var e jetstream.KeyValueEntry
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case e = <-w.Updates():
		}
		if e == nil {
			initial = false
			if err := q.publish(ctx, []Unit{u}, []bool{false}); err != nil {
				return nil, nil, err
			}
			continue
		}
		if e.Operation() != jetstream.KeyValuePut {
			continue
		}
		var r result
		if err := json.Unmarshal(e.Value(), &r); err != nil {
			return nil, nil, fmt.Errorf("queue: job %s: result %s: %w", j.ID, e.Key(), err)
		}
		if e.Key() == u.errorKey() {
			if initial {
				_ = q.results.Delete(ctx, e.Key())
				continue
			}
			return nil, nil, fmt.Errorf("job %s: window %d's runs of run %d: worker %s: %s; fix the workers, then attach to the job again",
				j.ID, u.Stage-1, u.Lo, r.Worker, r.Error)
		}
		b, err := q.runs.GetBytes(ctx, r.Object)
		if err != nil {
			return nil, nil, fmt.Errorf("queue: job %s: window %d's runs %s: %w", j.ID, u.Stage-1, r.Object, err)
		}
		var wr windowRuns
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&wr); err != nil {
			return nil, nil, fmt.Errorf("queue: job %s: window %d's runs %s: %w", j.ID, u.Stage-1, r.Object, err)
		}
		train, err := wr.Train.result()
		if err != nil {
			return nil, nil, fmt.Errorf("queue: job %s: window %d's in-sample run: %w", j.ID, u.Stage-1, err)
		}
		test, err := wr.Test.result()
		if err != nil {
			return nil, nil, fmt.Errorf("queue: job %s: window %d's out-of-sample run: %w", j.ID, u.Stage-1, err)
		}
		q.advance(1, 2)
		return train, test, nil
	}
}

// runWindow runs a window's unit on the worker and stores its runs in
// RunsBucket; it returns the result naming them.
func (w *Worker) runWindow(ctx context.Context, u Unit) (result, error) {
	p, err := w.prepare(ctx, u.Job)
	if err != nil {
		return result{}, err
	}
	if u.Lo < 0 || u.Lo >= len(p.combos) || u.To.IsZero() || !u.TestTo.After(u.To) {
		return result{}, fmt.Errorf("window unit of run %d of %d combinations over %s-%s-%s", u.Lo, len(p.combos), u.From, u.To, u.TestTo)
	}
	data, err := w.barsOf(ctx, p.job.Bars)
	if err != nil {
		return result{}, err
	}
	if w.FirstBars != nil {
		w.first.Do(w.FirstBars)
	}
	spec, err := p.spec.WithData(data)
	if err != nil {
		return result{}, err
	}
	train, test, err := backtest.WindowRuns(ctx, spec, backtest.Window{TrainFrom: u.From, TrainTo: u.To, TestFrom: u.To, TestTo: u.TestTo}, p.combos[u.Lo])
	if err != nil {
		return result{}, err
	}
	var wr windowRuns
	if wr.Train, err = wireOf(train); err != nil {
		return result{}, err
	}
	if wr.Test, err = wireOf(test); err != nil {
		return result{}, err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(wr); err != nil {
		return result{}, fmt.Errorf("encode the window's runs: %w", err)
	}
	name := u.resultKey()
	if _, err := w.Queue.runs.PutBytes(ctx, name, buf.Bytes()); err != nil {
		return result{}, fmt.Errorf("store the window's runs: %w", err)
	}
	return result{Worker: w.Name, Object: name}, nil
}

// windowRuns are a window's two runs as they travel.
type windowRuns struct {
	Train, Test runWire
}

// runWire is a backtest.Result without its fills, exactly: gob keeps
// every float's bits, time's instant and zone offset and every decimal's
// coefficient and exponent; the metrics travel as JSON, as a sweep's do,
// so an empty map stays an empty map.
type runWire struct {
	Metrics  []byte
	At       []int64
	Values   []float64
	Exact    map[int]decimal.Decimal
	Exposure backtest.Exposure
	Trades   []backtest.Trade
	Balances map[string]decimal.Decimal
	BuyHold  map[string][2]decimal.Decimal
	Stopped  []strategy.InstanceStatus
	Locks    []strategy.Lock
}

func wireOf(r *backtest.Result) (runWire, error) {
	m, err := json.Marshal(r.Metrics)
	if err != nil {
		return runWire{}, err
	}
	out := runWire{Metrics: m, At: make([]int64, 0, r.Curve.Len()), Values: r.Curve.Values, Exact: r.Exact, Exposure: r.Exposure,
		Trades: r.Trades, Balances: r.Balances, BuyHold: r.BuyHold, Stopped: r.Stopped, Locks: r.Locks}
	for _, p := range r.Curve.All() {
		out.At = append(out.At, p.At)
	}
	return out, nil
}

func (w runWire) result() (*backtest.Result, error) {
	if len(w.At) != len(w.Values) {
		return nil, fmt.Errorf("%d times for %d curve values", len(w.At), len(w.Values))
	}
	r := &backtest.Result{Exact: w.Exact, Exposure: w.Exposure, Trades: w.Trades, Balances: w.Balances, BuyHold: w.BuyHold,
		Stopped: w.Stopped, Locks: w.Locks}
	if err := json.Unmarshal(w.Metrics, &r.Metrics); err != nil {
		return nil, err
	}
	for i, at := range w.At {
		r.Curve.Append(at, w.Values[i])
	}
	return r, nil
}

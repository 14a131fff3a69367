package backtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/strategy"
)

// WalkForwardOptions configure WalkForward.
type WalkForwardOptions struct {
	Params    []Param
	Objective Objective
	// Train and Test are the lengths of the in-sample and out-of-sample
	// windows; the windows roll forward by Test.
	Train, Test time.Duration
	Workers     int
	// Sweep, when set, runs each window's in-sample sweep instead of
	// Sweep (a distributed queue does), every window's at once: window
	// counts from 0, train is base cut to [from, to) as CutWindow cuts it.
	Sweep func(ctx context.Context, window int, from, to time.Time, train Spec, o SweepOptions) ([]SweepRun, error)
	// Window, when set, runs window n's two runs of its best combination
	// (best, the in-sample sweep's first run) instead of WindowRuns (a
	// distributed queue does, on a worker).
	Window func(ctx context.Context, n int, w Window, best SweepRun) (train, test *Result, err error)
}

// Window is one step of a walk-forward: the best parameters of the
// in-sample window and their out-of-sample result.
type Window struct {
	TrainFrom, TrainTo time.Time
	TestFrom, TestTo   time.Time
	Best               Combo
	TrainScore         float64
	Test               Metrics
	// TrainCurve is the best parameters' equity over the in-sample
	// window, for the report's stitched chart.
	TrainCurve Curve `json:"-"`
}

// WalkForwardResult is every window and the aggregate out-of-sample run:
// the windows' equity curves chained (each scaled to start where the last
// ended) and their trades together. The aggregate's buy-and-hold chains
// the windows' the same way: a symbol's growth (last close / first close
// of each window) multiplied over the windows it traded in, then averaged
// over the symbols as a single run's is.
type WalkForwardResult struct {
	Windows   []Window
	Aggregate Metrics
	Curve     Curve
	Exact     map[int]decimal.Decimal // exact equity by curve index
	Exposure  Exposure                // points at which a position was held
	Trades    []Trade
}

// WalkForward optimises on each in-sample window with a grid sweep, runs
// the best parameters on the following out-of-sample window, and rolls
// forward. Each out-of-sample run gets the strategy's warm-up bars from
// just before its window, so it trades from the window's first bar.
func WalkForward(ctx context.Context, base Spec, o WalkForwardOptions) (*WalkForwardResult, error) {
	if o.Train <= 0 || o.Test <= 0 {
		return nil, errors.New("walkforward: train and test windows must be positive")
	}
	if o.Objective == nil || len(o.Params) == 0 {
		return nil, errors.New("walkforward: need an objective and at least one parameter")
	}
	if len(base.Instances) == 0 {
		return nil, errors.New("walkforward: no strategy instances")
	}
	if base.Equity != nil {
		return nil, errors.New("walkforward: Spec.Equity streams one run's equity.csv; a walk-forward has many runs")
	}
	from, to := span(base.Data)
	if from.Add(o.Train + o.Test).After(to) {
		return nil, fmt.Errorf("walkforward: the data spans %s, less than one train (%s) plus test (%s) window", to.Sub(from), o.Train, o.Test)
	}
	combos := Grid(o.Params)
	out := &WalkForwardResult{Exact: map[int]decimal.Decimal{}}
	factor := decimal.NewFromInt(1)
	fees, volume := decimal.Zero, decimal.Zero
	// Each symbol's first and last closes multiplied over the windows:
	// their quotient is the windows' buy-and-hold growth chained.
	hold := map[string][2]decimal.Decimal{}
	var wins []Window
	for start := from; !start.Add(o.Train + o.Test).After(to); start = start.Add(o.Test) {
		wins = append(wins, Window{TrainFrom: start, TrainTo: start.Add(o.Train), TestFrom: start.Add(o.Train), TestTo: start.Add(o.Train + o.Test)})
	}
	so := SweepOptions{Combos: combos, Objective: o.Objective, Workers: o.Workers}
	// On a queue (o.Sweep), every window's in-sample sweep is queued at
	// once, so the workers do not wait for one window's last runs before
	// the next window's start; here each sweep runs on every core, one
	// window after another.
	var pending []chan sweepResult
	if o.Sweep != nil {
		var wg sync.WaitGroup
		defer wg.Wait()
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		for n, w := range wins {
			ch := make(chan sweepResult, 1)
			pending = append(pending, ch)
			train := base
			train.Data = CutWindow(base.Data, w.TrainFrom, w.TrainTo)
			wg.Go(func() {
				runs, err := o.Sweep(sctx, n, w.TrainFrom, w.TrainTo, train, so)
				ch <- sweepResult{runs, err}
			})
		}
	}
	for n, w := range wins {
		var runs []SweepRun
		var err error
		train := base
		train.Data = CutWindow(base.Data, w.TrainFrom, w.TrainTo)
		if pending != nil {
			r := <-pending[n]
			runs, err = r.runs, r.err
		} else {
			runs, err = Sweep(ctx, train, so)
		}
		if err != nil {
			return nil, err
		}
		if runs[0].Err != "" {
			return nil, fmt.Errorf("walkforward: window %s: every run failed; first: %s", stamp(w.TrainFrom), runs[0].Err)
		}
		w.Best, w.TrainScore = runs[0].Params, runs[0].Score
		var best, res *Result
		if o.Window != nil {
			best, res, err = o.Window(ctx, n, w, runs[0])
		} else {
			best, res, err = WindowRuns(ctx, base, w, w.Best)
		}
		if err != nil {
			return nil, err
		}
		w.TrainCurve = best.Curve
		w.Test = res.Metrics
		out.Windows = append(out.Windows, w)
		if res.Curve.Len() == 0 {
			continue
		}
		// Each window starts from the starting balances; scale it to start
		// where the chain stands. The exact first and last values carry
		// the factor exactly.
		first, last := res.Exact[0], res.Exact[res.Curve.Len()-1]
		f := factor.InexactFloat64()
		base := out.Curve.Len()
		for i, p := range res.Curve.All() {
			out.Curve.Append(p.At, p.Value*f)
			if e, ok := res.Exact[i]; ok {
				out.Exact[base+i] = e.Mul(factor).Round(8)
			}
			out.Exposure.mark(base+i, res.Exposure.Held(i))
		}
		if first.IsPositive() {
			factor = factor.Mul(last).DivRound(first, 16)
		}
		for sym, c := range res.BuyHold {
			if h, ok := hold[sym]; ok {
				c = [2]decimal.Decimal{h[0].Mul(c[0]), h[1].Mul(c[1])}
			}
			hold[sym] = c
		}
		out.Trades = append(out.Trades, res.Trades...)
		fees = fees.Add(decimal.RequireFromString(res.Metrics.FeesPaid))
		volume = volume.Add(decimal.RequireFromString(res.Metrics.Volume))
	}
	out.Aggregate = Compute(ComputeInput{Curve: out.Curve, Exact: out.Exact, Exposed: out.Exposure, Trades: out.Trades, Fees: fees, Volume: volume,
		BuyHoldPct: buyHoldPct(hold)})
	return out, nil
}

// WindowRuns runs combination c on window w of base: over the in-sample
// window (its curve is the report's) and over the out-of-sample window,
// with the strategies' warm-up bars from just before it.
func WindowRuns(ctx context.Context, base Spec, w Window, c Combo) (train, test *Result, err error) {
	in := base
	in.Data = CutWindow(base.Data, w.TrainFrom, w.TrainTo)
	train, err = RunBest(ctx, in, []SweepRun{{Params: c}})
	if err != nil {
		return nil, nil, fmt.Errorf("walkforward: window %s: in-sample run: %w", stamp(w.TrainFrom), err)
	}
	out := withParams(base, c)
	warm, err := warmUp(out)
	if err != nil {
		return nil, nil, err
	}
	out.Data = window(base.Data, w.TestFrom, w.TestTo, warm)
	test, err = Run(ctx, out)
	if err != nil {
		return nil, nil, fmt.Errorf("walkforward: window %s: %w", stamp(w.TestFrom), err)
	}
	return train, test, nil
}

type sweepResult struct {
	runs []SweepRun
	err  error
}

// withParams returns base with the combo set in the first instance's params.
func withParams(base Spec, c Combo) Spec {
	s := base
	s.Instances = append([]strategy.Config(nil), base.Instances...)
	first := s.Instances[0]
	first.Params = maps.Clone(first.Params)
	if first.Params == nil {
		first.Params = map[string]any{}
	}
	maps.Copy(first.Params, c)
	s.Instances[0] = first
	return s
}

// warmUp is the largest warm-up any instance of s asks for.
func warmUp(s Spec) (int, error) {
	n := 0
	for i, cfg := range s.Instances {
		st, err := s.Registry.New(cfg)
		if err != nil {
			return 0, fmt.Errorf("walkforward: strategies[%d]: %w", i, err)
		}
		if w, ok := st.(strategy.WarmUpper); ok && w.WarmUp() > n {
			n = w.WarmUp()
		}
	}
	return n, nil
}

// span is the first open and last close time over every series.
func span(data map[string]*marketdata.Series) (from, to time.Time) {
	for _, ks := range data {
		first, last := ks.Range()
		if from.IsZero() || first.Before(from) {
			from = first
		}
		if t := ks.Interval().Next(last).Add(-time.Millisecond); t.After(to) {
			to = t
		}
	}
	return from, to
}

// CutWindow cuts every series to [from, to), leaving out a symbol with no
// bars there: the data of an in-sample window. The cuts share the
// series' columns.
func CutWindow(data map[string]*marketdata.Series, from, to time.Time) map[string]*marketdata.Series {
	return window(data, from, to, 0)
}

// window cuts every series to [from, to) plus warm bars before from,
// sharing the series' columns.
func window(data map[string]*marketdata.Series, from, to time.Time, warm int) map[string]*marketdata.Series {
	out := make(map[string]*marketdata.Series, len(data))
	for sym, ks := range data {
		lo := ks.Between(time.Time{}, from).Len()
		n := ks.Between(from, to).Len()
		if n == 0 {
			continue
		}
		w := min(warm, lo)
		out[sym] = ks.Slice(lo-w, lo+n)
	}
	return out
}

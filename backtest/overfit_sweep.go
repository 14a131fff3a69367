package backtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
)

// Overfitting are a sweep's overfitting statistics, in the sweep's
// summary, its JSON (under "overfitting") and its HTML report.
type Overfitting struct {
	// Partitions and Splits are CSCV's S and C(S, S/2).
	Partitions int `json:"partitions"`
	Splits     int `json:"splits"`
	// PBO is the probability of backtest overfitting; absent when it could
	// not be computed (see Notes).
	PBO *float64 `json:"pbo,omitempty"`
	// Trials is the number of distinct configurations that ran; Sharpe the
	// chosen one's per-bar Sharpe ratio over Returns returns, with their
	// Skew and Kurtosis; SharpeVariance the variance of the trials'
	// per-bar Sharpe ratios; ExpectedMaxSharpe what the best of Trials
	// would reach by luck; DeflatedSharpe the probability that the chosen
	// configuration's true Sharpe ratio exceeds it.
	Trials            int     `json:"trials"`
	Returns           int     `json:"returns"`
	Sharpe            float64 `json:"sharpe_per_bar"`
	Skew              float64 `json:"skew"`
	Kurtosis          float64 `json:"kurtosis"`
	SharpeVariance    float64 `json:"sharpe_variance"`
	ExpectedMaxSharpe float64 `json:"expected_max_sharpe"`
	DeflatedSharpe    float64 `json:"deflated_sharpe"`
	// Bootstrap holds the chosen configuration's 95 % intervals; absent
	// when its run was not at hand (a merged sweep).
	Bootstrap *BootstrapIntervals `json:"bootstrap,omitempty"`
	Notes     []string            `json:"notes,omitempty"`
}

// BootstrapIntervals are the chosen configuration's 95 % intervals of the
// total return and the maximum drawdown, in percent, by resampling its
// trades and by resampling blocks of its per-bar returns.
type BootstrapIntervals struct {
	Samples          int       `json:"samples"`
	Seed             uint64    `json:"seed"`
	Block            int       `json:"block"`
	TradeReturnPct   *Interval `json:"trade_return_pct,omitempty"`
	TradeDrawdownPct *Interval `json:"trade_max_drawdown_pct,omitempty"`
	BlockReturnPct   Interval  `json:"block_return_pct"`
	BlockDrawdownPct Interval  `json:"block_max_drawdown_pct"`
}

// OverfitOptions configure Overfit; zero values take the defaults.
type OverfitOptions struct {
	// Samples is the number of bootstrap resamples (1000).
	Samples int
	// Seed seeds them (1).
	Seed uint64
	// Block is the block length of the return bootstrap (√n rounded up).
	Block int
}

// RunBest runs the best of a sweep's runs (runs sorted best first) again,
// for its curve and trades: backtests are deterministic, so it is the
// same run.
func RunBest(ctx context.Context, base Spec, runs []SweepRun) (*Result, error) {
	if len(runs) == 0 || runs[0].Err != "" {
		return nil, errors.New("sweep: no run succeeded")
	}
	s := withParams(base, runs[0].Params)
	s.Progress, s.Logger = nil, nil
	return Run(ctx, s)
}

// Overfit computes the overfitting statistics of a sweep's runs, sorted
// best first (runs[0] is the chosen configuration). best, the chosen
// configuration's run (RunBest), gives the bootstrap; nil skips it.
func Overfit(runs []SweepRun, best *Result, o OverfitOptions) Overfitting {
	if o.Samples <= 0 {
		o.Samples = 1000
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	var out Overfitting
	seen := map[string]bool{}
	var blocks [][]Moments
	var srs []float64
	for _, r := range runs {
		if r.Err != "" || len(r.Blocks) == 0 || seen[r.Params.String()] {
			continue
		}
		seen[r.Params.String()] = true
		blocks = append(blocks, r.Blocks)
		var tot Moments
		for _, m := range r.Blocks {
			tot = tot.Plus(m)
		}
		srs = append(srs, tot.Sharpe())
	}
	out.Trials = len(blocks)
	if len(blocks) == 0 {
		out.Notes = append(out.Notes, "no run succeeded")
		return out
	}
	out.Partitions = len(blocks[0])
	pbo, splits, err := PBO(blocks)
	if err != nil {
		out.Notes = append(out.Notes, err.Error())
	} else {
		out.PBO, out.Splits = &pbo, splits
	}
	var chosen Moments
	for _, m := range runs[0].Blocks {
		chosen = chosen.Plus(m)
	}
	out.Returns, out.Sharpe, out.Skew, out.Kurtosis = chosen.N, chosen.Sharpe(), chosen.Skew(), chosen.Kurtosis()
	if len(srs) > 1 {
		var mean, ss float64
		for _, v := range srs {
			mean += v
		}
		mean /= float64(len(srs))
		for _, v := range srs {
			ss += (v - mean) * (v - mean)
		}
		out.SharpeVariance = ss / float64(len(srs)-1)
	}
	out.ExpectedMaxSharpe = ExpectedMaxSharpe(out.Trials, out.SharpeVariance)
	out.DeflatedSharpe = DeflatedSharpe(out.Sharpe, out.ExpectedMaxSharpe, out.Returns, out.Skew, out.Kurtosis)
	if best == nil {
		out.Notes = append(out.Notes, "bootstrap: the chosen configuration's run is not at hand")
		return out
	}
	var rets []float64
	returnsOf(best.Curve, func(r float64) { rets = append(rets, r) })
	block := o.Block
	if block <= 0 {
		block = int(math.Ceil(math.Sqrt(float64(len(rets)))))
	}
	bi := &BootstrapIntervals{Samples: o.Samples, Seed: o.Seed, Block: block}
	var err2 error
	if bi.BlockReturnPct, bi.BlockDrawdownPct, err2 = BootstrapBlocks(rets, block, o.Samples, o.Seed); err2 != nil {
		out.Notes = append(out.Notes, err2.Error())
		return out
	}
	trades := tradeEquityReturns(best)
	if r, d, err := BootstrapTrades(trades, o.Samples, o.Seed); err == nil {
		bi.TradeReturnPct, bi.TradeDrawdownPct = &r, &d
	} else {
		out.Notes = append(out.Notes, fmt.Sprintf("trade bootstrap: %v", err))
	}
	out.Bootstrap = bi
	return out
}

// tradeEquityReturns are the trades' PnL as a percentage of the equity at
// their entry: what each trade did to the account, whatever its size.
func tradeEquityReturns(res *Result) []float64 {
	out := make([]float64, 0, len(res.Trades))
	c := &res.Curve
	for _, t := range res.Trades {
		at := t.EntryTime.UnixMilli()
		// The last point at or before the entry (the first when none is).
		i := sort.Search(c.Len(), func(i int) bool { return c.At(i) > at }) - 1
		i = max(i, 0)
		if i >= c.Len() || c.Values[i] <= 0 {
			continue
		}
		out = append(out, t.PnL.InexactFloat64()/c.Values[i]*100)
	}
	return out
}

// Apply returns s with the combo's values set in the first instance's
// params, as a sweep runs it.
func (c Combo) Apply(s Spec) Spec {
	if len(s.Instances) == 0 {
		return s
	}
	return withParams(s, c)
}

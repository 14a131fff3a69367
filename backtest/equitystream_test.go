package backtest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/strategy"
)

// walkSeries is n bars of walkBars(n, seed) named symbol, the times of
// the bars from gapAt on moved a day later (no gap when gapAt is 0).
func walkSeries(t *testing.T, symbol string, n int, seed uint64, gapAt int) *marketdata.Series {
	t.Helper()
	w, err := walkBars(n, seed)
	require.NoError(t, err)
	times := append([]int64(nil), w.Times()...)
	if gapAt > 0 {
		for i := gapAt; i < n; i++ {
			times[i] += 24 * 60 * 60_000
		}
	}
	var cols [5][]int64
	for f := marketdata.Open; f <= marketdata.Volume; f++ {
		cols[f] = make([]int64, n)
		for i := range n {
			cols[f][i] = w.Int(f, i)
		}
	}
	s, err := marketdata.NewSeries(symbol, exchange.Interval1m, w.Exp(marketdata.Close), w.Exp(marketdata.Volume), times,
		cols[0], cols[1], cols[2], cols[3], cols[4])
	require.NoError(t, err)
	return s
}

// streamRun runs s with an EquityStream of chunks of every points and
// returns the result, the streamed bytes, WriteCSV's error, and the
// number of writes made before the replay ended (the last progress
// report, before the last points are handed over).
func streamRun(t *testing.T, ctx context.Context, s Spec, every int, w func(p []byte) (int, error)) (*Result, []byte, error, int64, error) {
	t.Helper()
	stream := newEquityStream(every)
	s.Equity = stream
	var buf bytes.Buffer
	var writes, early atomic.Int64
	s.Progress = func(done, total int) {
		if done == total {
			early.Store(writes.Load())
		}
	}
	writer := writerFunc(func(p []byte) (int, error) {
		writes.Add(1)
		if w != nil {
			if _, err := w(p); err != nil {
				return 0, err
			}
		}
		return buf.Write(p)
	})
	done := make(chan error, 1)
	go func() { done <- stream.WriteCSV(writer) }()
	res, err := Run(ctx, s)
	werr := <-done
	return res, buf.Bytes(), werr, early.Load(), err
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestEquityStreamSameBytes: the streamed equity.csv is WriteEquityCSV's,
// byte for byte, on the fast path and stepwise, over a gap in the data,
// with two symbols, and with chunks of every size down to one point; the
// rows are written while the run goes on.
func TestEquityStreamSameBytes(t *testing.T) {
	one := func(gapAt int) Spec {
		s := millionSpec(walkSeries(t, "ETHBTC", 20_000, 3, gapAt))
		s.Fill.MakerFee, s.Fill.TakerFee = &decimal.Zero, &decimal.Zero
		return s
	}
	two := one(0)
	two.Data["LTCBTC"] = walkSeries(t, "LTCBTC", 20_000, 4, 9_000)
	two.Instances = append(two.Instances, strategy.Config{Name: "smacross", ID: "ltc", Symbols: []string{"LTCBTC"}, Interval: "1m",
		Params: map[string]any{"fast": 5, "slow": 20, "fraction": "0.3"}})
	stepwise := one(0)
	stepwise.Stepwise = true
	cases := []struct {
		name  string
		spec  Spec
		every int
		lines int
		fills int
	}{
		{"fast path", one(0), 1000, 19_971, 795},
		{"fast path, one point a chunk", one(0), 1, 19_971, 795},
		{"gap", one(12_345), 777, 19_971, 795},
		{"stepwise", stepwise, 1000, 19_971, 795},
		{"few chunks", one(0), 4096, 19_971, 795},
		{"two symbols", two, 3000, 21_411, 2_066},
		{"default chunks", one(0), equityChunkPoints, 19_971, 795},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, got, werr, early, err := streamRun(t, t.Context(), c.spec, c.every, nil)
			require.NoError(t, err)
			require.NoError(t, werr)
			require.Equal(t, c.fills, res.Fills.Len())
			var want bytes.Buffer
			require.NoError(t, WriteEquityCSV(&want, res))
			require.Equal(t, c.lines, strings.Count(want.String(), "\n"))
			require.True(t, bytes.Equal(want.Bytes(), got), "the streamed equity.csv differs from WriteEquityCSV's")
			// The run hands over a chunk at every `every` final points and
			// waits once four are queued: to hand over the sixth, WriteCSV
			// has taken the second, so it has written the first. With
			// fewer the writer may not have run yet; with none (a run
			// shorter than a chunk) nothing can have been written.
			switch mid := (c.lines - 2) / c.every; {
			case mid >= 6:
				require.Positive(t, early, "no row was written before the replay ended")
			case mid == 0:
				require.Zero(t, early, "a run shorter than a chunk hands its points over at the end")
			}
		})
	}
}

// TestEquityStreamErrors: a run that fails ends the stream with its
// error; a writer that fails does not hold the run up; a stream serves
// one run, and sweeps and walk-forwards refuse one.
func TestEquityStreamErrors(t *testing.T) {
	spec := millionSpec(walkSeries(t, "ETHBTC", 20_000, 3, 0))

	t.Run("run fails", func(t *testing.T) {
		bad := spec
		bad.Instances = []strategy.Config{{Name: "smacross", ID: "x", Symbols: []string{"XRPBTC"}, Interval: "1m"}}
		_, got, werr, _, err := streamRun(t, t.Context(), bad, 100, nil)
		require.EqualError(t, err, "backtest: no data for symbol XRPBTC")
		require.Equal(t, err, werr)
		require.Empty(t, got)
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		n := 0
		_, _, werr, _, err := streamRun(t, ctx, spec, 10, func([]byte) (int, error) {
			if n++; n == 3 {
				cancel()
			}
			return 0, nil
		})
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, err, werr)
	})
	t.Run("writer fails", func(t *testing.T) {
		full := errors.New("disk full")
		n := 0
		res, _, werr, _, err := streamRun(t, t.Context(), spec, 10, func([]byte) (int, error) {
			if n++; n >= 2 {
				return 0, full
			}
			return 0, nil
		})
		require.NoError(t, err)
		require.Equal(t, 19_970, res.Curve.Len())
		require.Equal(t, full, werr)
		require.Equal(t, 2, n, "writes after the first failure")
	})
	t.Run("one run", func(t *testing.T) {
		s := spec
		s.Equity = newEquityStream(100)
		done := make(chan error, 1)
		go func() { done <- s.Equity.WriteCSV(&bytes.Buffer{}) }()
		_, err := Run(t.Context(), s)
		require.NoError(t, err)
		require.NoError(t, <-done)
		_, err = Run(t.Context(), s)
		require.EqualError(t, err, "backtest: Spec.Equity has served a run already: a stream is for one run")
	})
	t.Run("sweeps refuse", func(t *testing.T) {
		s := spec
		s.Equity = NewEquityStream()
		obj, err := ParseObjective("sharpe")
		require.NoError(t, err)
		_, err = Sweep(t.Context(), s, SweepOptions{Objective: obj, Combos: Grid([]Param{{Name: "fast", Values: []any{5}}})})
		require.EqualError(t, err, "sweep: Spec.Equity streams one run's equity.csv; a sweep has many runs")
		_, err = WalkForward(t.Context(), s, WalkForwardOptions{Train: 1, Test: 1, Objective: obj, Params: []Param{{Name: "fast", Values: []any{5}}}})
		require.EqualError(t, err, "walkforward: Spec.Equity streams one run's equity.csv; a walk-forward has many runs")
	})
}

package backtest

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSameOnOneCoreAndTwo runs a backtest long enough for its trade rows
// to be split between two cores (NewReport) and its curve's metrics to be
// gone through beside the round trips (driver.result), once with one core
// and once with two: the metrics, report.json and trades.csv are the same
// to the byte.
func TestSameOnOneCoreAndTwo(t *testing.T) {
	if testing.Short() {
		t.Skip("a million-bar backtest twice")
	}
	bars, err := walkBars(1_000_000, 7)
	require.NoError(t, err)
	spec := millionSpec(bars)
	run := func(procs int) (*Result, []byte, []byte) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := Run(t.Context(), spec)
		require.NoError(t, err)
		rep := NewReport("cores", spec, res)
		var js, csv bytes.Buffer
		require.NoError(t, rep.WriteJSON(&js))
		require.NoError(t, rep.WriteTradesCSV(&csv))
		return res, js.Bytes(), csv.Bytes()
	}
	one, js1, csv1 := run(1)
	two, js2, csv2 := run(2)
	require.Equal(t, 10_941, len(one.Trades))
	require.GreaterOrEqual(t, len(one.Trades), 2*reportChunk, "too few trades to split the rows")
	require.Equal(t, one.Metrics, two.Metrics)
	require.Equal(t, js1, js2)
	require.Equal(t, csv1, csv2)
	// The rows past the split are the trades' own.
	rep := NewReport("cores", spec, two)
	last := two.Trades[len(two.Trades)-1]
	require.Equal(t, decimalString(last.Qty), rep.Trades[len(rep.Trades)-1].Qty)
	require.Equal(t, stamp(last.ExitTime), rep.Trades[len(rep.Trades)-1].ExitTime)
}

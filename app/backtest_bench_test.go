package app

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/spotbot/spotbot/internal/procfs"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/scripts/benchrun"
)

// BenchmarkBacktestRun runs the whole `backtest run` command in process,
// from its flags to its reports (configuration, loading, the run, the
// summary, report.json, trades.csv and equity.csv; --no-html --no-store),
// over 1,000,000 distinct one-minute bars generated at benchmark time
// (package scripts/benchrun: the bars of scripts/bench-backtest-run.sh),
// into a report folder holding the last run's reports: from=cache reads
// the binary cache a first, untimed run wrote; from=csv parses the CSV,
// the cache removed before each run (and written meanwhile, as the
// command does). It reports s/run, bars/s and peak-MB, the process's peak
// resident memory during the runs (VmHWM, reset through
// /proc/self/clear_refs after the bars are generated; not reported where
// that cannot be done), to set against issue 16's targets: from the CSV
// ≤ 0.5 s and ≤ 150 MB, from the cache ≤ 0.15 s. Run it with -benchtime
// 5x or so: each run takes a third of a second.
func BenchmarkBacktestRun(b *testing.B) {
	const bars = 1_000_000
	dir := b.TempDir()
	data := filepath.Join(dir, "ETHBTC-1m.csv")
	if err := benchrun.WriteCSV(data, bars, 1); err != nil {
		b.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	config := filepath.Join(dir, "run.yaml")
	text := "mode: backtest\ndata: {source: csv, path: " + data + ", interval: 1m, cache: " + cache + "}\n" +
		"account: {quote: BTC, balances: {BTC: 10}}\nstrategies:\n  - name: smacross\n    id: bench\n    symbols: [ETHBTC]\n" +
		"    interval: 1m\n    params: {fast: 10, slow: 30, fraction: 0.5}\n"
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	run := func(b *testing.B) {
		var errb bytes.Buffer
		d := testDeps(nil, exchange.SystemClock{}, nil)
		args := []string{"run", "--config", config, "--no-html", "--no-store", "--out", out}
		if code := Execute(b.Context(), newBacktest("backtest", d), args, io.Discard, &errb); code != ExitOK || errb.Len() > 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
	for _, from := range []string{"cache", "csv"} {
		b.Run("from="+from, func(b *testing.B) {
			run(b) // the cache written, the report folder filled
			debug.FreeOSMemory()
			reset := resetPeakRSS()
			b.ReportAllocs()
			for b.Loop() {
				if from == "csv" {
					b.StopTimer()
					if err := os.RemoveAll(cache); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				run(b)
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(sec, "s/run")
			b.ReportMetric(bars/sec, "bars/s")
			if kb := peakRSSKB(); reset && kb > 0 {
				b.ReportMetric(float64(kb)/1024, "peak-MB")
			}
		})
	}
}

// resetPeakRSS resets the process's peak resident set (VmHWM) to its
// current one, and says whether it could.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSSKB is the process's peak resident set (VmHWM) in kB, or 0 where
// it cannot be read.
func peakRSSKB() int64 {
	kb, _ := procfs.KB("/proc/self/status", "VmHWM")
	return kb
}

package backtest

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/spotbot/spotbot/internal/procfs"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/risk"
	"github.com/spotbot/spotbot/scripts/benchrun"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategy"
)

// sharedData is ../shared/data from this package's directory.
const sharedData = "../../shared/data"

// tiled returns n one-minute bars: a real series from ../shared/data
// repeated end to end, each copy shifted in time to follow the copy before
// it. The copies share nothing but values: the columns are n bars long.
func tiled(tb testing.TB, n int) *marketdata.Series {
	tb.Helper()
	f, err := os.Open(filepath.Join(sharedData, "ETH_BTC-1m.csv"))
	if err != nil {
		tb.Skipf("real data absent (%v); this benchmark needs ../shared/data", err)
	}
	defer f.Close()
	src, _, err := marketdata.Read(f, marketdata.ReadOptions{Interval: exchange.Interval1m, Symbol: "ETHBTC", SkipBad: true})
	if err != nil {
		tb.Fatal(err)
	}
	m := src.Len()
	first, last := src.Range()
	span := last.Sub(first).Milliseconds() + time.Minute.Milliseconds()
	t := make([]int64, n)
	var cols [5][]int64
	for i := range t {
		t[i] = src.OpenMs(i%m) + int64(i/m)*span
	}
	for f := marketdata.Open; f <= marketdata.Volume; f++ {
		cols[f] = make([]int64, n)
		for i := range cols[f] {
			cols[f][i] = src.Int(f, i%m)
		}
	}
	s, err := marketdata.NewSeries("ETHBTC", exchange.Interval1m, src.Exp(marketdata.Close), src.Exp(marketdata.Volume), t,
		cols[0], cols[1], cols[2], cols[3], cols[4])
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkSMACrossMillionBars is one smacross backtest over 1,000,000
// one-minute bars already in memory. Targets: ≥ 2,000,000 bars/s on one
// core (the bars/s metric, with -cpu 1) and ≤ 300 MB peak resident memory
// of the whole process, data included (the peak-MB metric; meaningful when
// this benchmark runs alone: -bench SMACrossMillion).
func BenchmarkSMACrossMillionBars(b *testing.B) {
	benchMillion(b, nil, func(res *Result) {
		if res.Fills.Len() != 15_154 {
			b.Fatalf("%d fills, want 15,154", res.Fills.Len())
		}
	})
	if kb := peakRSSKB(); kb > 0 {
		b.ReportMetric(float64(kb)/1024, "peak-MB")
	}
}

// BenchmarkMillionBarsNoOrders is BenchmarkSMACrossMillionBars with a
// balance too small for smacross to ever place an order: the cost of
// replaying the bars alone, so that the difference between the two is the
// cost of the orders.
func BenchmarkMillionBarsNoOrders(b *testing.B) {
	benchMillion(b, map[string]decimal.Decimal{"BTC": decimal.RequireFromString("0.00000001")}, func(res *Result) {
		if res.Fills.Len() != 0 {
			b.Fatalf("%d fills, want none", res.Fills.Len())
		}
	})
}

// benchMillion runs smacross over a million tiled bars (with the given
// starting balances, nil for the default), checks each result and reports
// bars/s.
func benchMillion(b *testing.B, balances map[string]decimal.Decimal, check func(*Result)) {
	bars := tiled(b, 1_000_000)
	spec := millionSpec(bars)
	if balances != nil {
		spec.Balances = balances
	}
	run := func() {
		res, err := Run(b.Context(), spec)
		if err != nil {
			b.Fatal(err)
		}
		check(res)
	}
	benchRuns(b, bars.Len(), run)
}

// benchRuns times run over a heap settled by it (settleHeap) and reports
// bars/s and the allocations a bar, run replaying bars bars.
func benchRuns(b *testing.B, bars int, run func()) {
	settleHeap(run)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		run()
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	perBar := float64(bars) * float64(b.N)
	b.ReportMetric(perBar/b.Elapsed().Seconds(), "bars/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/perBar, "allocs/bar")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/perBar, "B/bar")
}

// settleHeap runs run (at most five times) until the collector has freed
// runs' garbage twice: by then the heap has reached the size it keeps, and
// the timed runs reuse memory the way every run after the first few of a
// process does. Until then runs get their memory fresh from the system, and on the development VM a fresh page
// costs about 11 µs (76 MB, one run's allocations, take 225 ms to touch
// the first time and 0.6 ms the second). With -benchtime 1x there is no
// warm-up: the benchmark then measures one cold run, and its peak memory.
func settleHeap(run func()) {
	if f := flag.Lookup("test.benchtime"); f != nil && f.Value.String() == "1x" {
		return
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gc := ms.NumGC
	for i := 0; i < 5 && ms.NumGC < gc+2; i++ {
		run()
		runtime.ReadMemStats(&ms)
	}
}

// peakRSSKB is the process's peak resident set (VmHWM) in kB, or 0 where
// /proc is not available.
func peakRSSKB() int64 {
	kb, _ := procfs.KB("/proc/self/status", "VmHWM")
	return kb
}

func millionSpec(bars *marketdata.Series) Spec {
	return Spec{Instances: []strategy.Config{{Name: "smacross", ID: "bench", Symbols: []string{"ETHBTC"}, Interval: "1m",
		Params: map[string]any{"fast": 10, "slow": 30, "fraction": "0.5"}}},
		Registry: strategies.NewRegistry(), Interval: exchange.Interval1m, Quote: "BTC",
		Data:     map[string]*marketdata.Series{"ETHBTC": bars},
		Balances: map[string]decimal.Decimal{"BTC": decimal.NewFromInt(10)}}
}

// BenchmarkSweepParallel runs 32 smacross backtests over the embedded
// sample, one at a time on one core (GOMAXPROCS 1, so the garbage collector
// does not borrow the idle core: the single-run rate) and with a worker per
// core; compare the two rates (runs/s): on 2 cores the second should be
// ≥ 1.8× the first. Both run with the garbage collector set as the sweep
// command sets it (SweepMemory).
func BenchmarkSweepParallel(b *testing.B) {
	base := sampleSpec(b)
	_, restore := SweepMemory()
	defer restore()
	ps := []Param{{Name: "fast", Values: []any{5, 8, 10, 12, 15, 18, 20, 25}}, {Name: "slow", Values: []any{30, 40, 50, 60}}}
	obj, _ := ParseObjective("sharpe")
	cores := runtime.GOMAXPROCS(0)
	for _, w := range []int{1, cores} {
		b.Run("workers="+itoa(w), func(b *testing.B) {
			if w == 1 {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			}
			// One sweep first: the heap grows to the memory limit once, and
			// what is measured is the steady state of a long sweep, not the
			// first page faults.
			if _, err := Sweep(b.Context(), base, SweepOptions{Combos: Grid(ps), Objective: obj, Workers: w}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			runs := 0
			for b.Loop() {
				rs, err := Sweep(b.Context(), base, SweepOptions{Combos: Grid(ps), Objective: obj, Workers: w})
				if err != nil {
					b.Fatal(err)
				}
				runs += len(rs)
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}

func itoa(n int) string { return decimal.NewFromInt(int64(n)).String() }

func sampleSpec(tb testing.TB) Spec {
	tb.Helper()
	reg := strategies.NewRegistry()
	data, err := session.LoadSeries(config.Data{Source: "sample"}, exchange.Interval60m, []string{"BTCUSDT"}, [2]time.Time{})
	if err != nil {
		tb.Fatal(err)
	}
	return Spec{Instances: []strategy.Config{{Name: "smacross", ID: "btc", Symbols: []string{"BTCUSDT"}, Interval: "1h",
		Params: map[string]any{"fast": 10, "slow": 30, "fraction": "0.95"}}},
		Registry: reg, Interval: exchange.Interval60m, Data: data,
		Balances: map[string]decimal.Decimal{"USDT": decimal.NewFromInt(10000)}}
}

// BenchmarkRoundTrips folds 15,000 fills (buys paying their fee in the
// base asset, each closed by one sell) into 7,500 round trips: the trade
// list of a million-bar smacross run.
func BenchmarkRoundTrips(b *testing.B) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	step := decimal.New(1, -6)
	fills := make([]FillRecord, 0, 15_000)
	for i := range 7_500 {
		price := decimal.New(int64(3_000_000+i%997), -8)
		qty := decimal.New(int64(1_000_000+i%13), -6)
		fee := decimal.New(int64(1_000+i%13), -6)
		fills = append(fills,
			FillRecord{Symbol: "ETHBTC", Side: exchange.SideBuy, Price: price, Qty: qty, QuoteQty: price.Mul(qty),
				FeeInBase: fee, FeeQuote: fee.Mul(price), Time: t0.Add(time.Duration(2*i) * time.Minute), Step: step},
			FillRecord{Symbol: "ETHBTC", Side: exchange.SideSell, Price: price, Qty: qty.Sub(fee), QuoteQty: price.Mul(qty.Sub(fee)),
				FeeQuote: price.Mul(qty.Sub(fee)).Mul(decimal.New(1, -3)), Time: t0.Add(time.Duration(2*i+1) * time.Minute), Step: step})
	}
	b.ReportAllocs()
	for b.Loop() {
		if n := len(RoundTrips(fills)); n != 7_500 {
			b.Fatalf("%d trades, want 7500", n)
		}
	}
}

// BenchmarkSMACrossDistinct is smacross (10/30, half the balance a trade,
// no fees) over 1, 10 and 50 million distinct one-minute bars generated at
// benchmark time (walkBars), resident as a series: bars/s, bytes and
// allocations a bar (allocated during the runs), data-B/bar (the series'
// own heap, measured around its generation) and peak-B/bar (the process's
// peak resident memory over the bars, data and run together; meaningful
// for the largest size run alone, -benchtime 1x), with the collector set
// as the command sets it (RunMemory), and the process's CPU
// time a bar in user mode and in the kernel (user-ns/bar, sys-ns/bar:
// where the wall time grows faster than the bars, these say whether the
// engine or the system's page faults did). The 10M and 50M sizes
// take tens of seconds and several GB: run them by name.
func BenchmarkSMACrossDistinct(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000, 50_000_000} {
		b.Run("bars="+itoa(n/1_000_000)+"M", func(b *testing.B) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			bars, err := walkBars(n, 1)
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			dataPerBar := float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
			// The collector set as `backtest run` sets it once the bars
			// are loaded (RunMemory).
			_, restore := RunMemory(0)
			defer restore()
			spec := millionSpec(bars)
			// No fees: with the default 0.1% the balance wastes away over
			// the first million bars and later bars place no order.
			spec.Fill.MakerFee, spec.Fill.TakerFee = &decimal.Zero, &decimal.Zero
			run, fills := sameFillsRun(b, spec)
			if n <= 1_000_000 {
				settleHeap(run)
			}
			b.ReportAllocs()
			runtime.ReadMemStats(&before)
			user0, sys0, cpuOK := cpuTimes()
			b.ResetTimer()
			for b.Loop() {
				run()
			}
			b.StopTimer()
			user1, sys1, _ := cpuTimes()
			runtime.ReadMemStats(&after)
			perBar := float64(n) * float64(b.N)
			b.ReportMetric(perBar/b.Elapsed().Seconds(), "bars/s")
			if cpuOK {
				// The user time is the engine's; the kernel's is mostly
				// the first touch of fresh pages, whose cost per page
				// grows with the memory touched on some virtual machines.
				b.ReportMetric(float64(user1-user0)/perBar, "user-ns/bar")
				b.ReportMetric(float64(sys1-sys0)/perBar, "sys-ns/bar")
			}
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/perBar, "allocs/bar")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/perBar, "B/bar")
			b.ReportMetric(dataPerBar, "data-B/bar")
			b.ReportMetric(float64(*fills), "fills")
			if kb := peakRSSKB(); kb > 0 {
				b.ReportMetric(float64(kb)*1024/float64(n), "peak-B/bar")
			}
		})
	}
}

// BenchmarkSMACrossUSDT is BenchmarkSMACrossDistinct's million bars at
// BTCUSDT's prices (about 50,000, two decimals) with 100,000 USDT: an
// average price of 16 decimals then needs more than an int64, which the
// engine's positions and round trips carry in 128 bits (session 33; at
// ETHBTC's prices nothing needs them, so the benchmarks above cannot show
// it).
func BenchmarkSMACrossUSDT(b *testing.B) {
	bars, err := benchrun.SeriesOf("BTCUSDT", -2, 1_000_000, 1)
	if err != nil {
		b.Fatal(err)
	}
	_, restore := RunMemory(0)
	defer restore()
	spec := Spec{Instances: []strategy.Config{{Name: "smacross", ID: "bench", Symbols: []string{"BTCUSDT"}, Interval: "1m",
		Params: map[string]any{"fast": 10, "slow": 30, "fraction": "0.5"}}},
		Registry: strategies.NewRegistry(), Interval: exchange.Interval1m, Quote: "USDT",
		Data:     map[string]*marketdata.Series{"BTCUSDT": bars},
		Balances: map[string]decimal.Decimal{"USDT": decimal.NewFromInt(100_000)}}
	spec.Fill.MakerFee, spec.Fill.TakerFee = &decimal.Zero, &decimal.Zero
	timeFillsRuns(b, spec, bars.Len(), -1)
}

// BenchmarkSMACrossArmed is BenchmarkSMACrossDistinct's million bars with
// both of the kill switch's limits armed and never tripped (a daily loss
// of 1,000 BTC on a 10 BTC account, a drawdown of 99%): the equity is
// then watched at every bar, which is what a risk limit costs a backtest
// (the default configuration arms max_drawdown). It places the same
// 38,997 fills as without the limits.
func BenchmarkSMACrossArmed(b *testing.B) {
	bars, err := walkBars(1_000_000, 1)
	if err != nil {
		b.Fatal(err)
	}
	_, restore := RunMemory(0)
	defer restore()
	spec := millionSpec(bars)
	spec.Fill.MakerFee, spec.Fill.TakerFee = &decimal.Zero, &decimal.Zero
	spec.Risk = risk.Limits{MaxDailyLoss: decimal.NewFromInt(1000), MaxDrawdown: decimal.RequireFromString("0.99")}
	timeFillsRuns(b, spec, bars.Len(), 38_997) // the kill switch never trips
}

// timeFillsRuns times spec's runs over a settled heap (settleHeap), each
// making the same fills (want of them, unless want is negative), and
// reports bars/s, B/bar and the fills.
func timeFillsRuns(b *testing.B, spec Spec, bars, want int) {
	run, fills := sameFillsRun(b, spec)
	settleHeap(run)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		run()
	}
	b.StopTimer()
	if want >= 0 && *fills != want {
		b.Fatalf("%d fills, want %d", *fills, want)
	}
	runtime.ReadMemStats(&after)
	perBar := float64(bars) * float64(b.N)
	b.ReportMetric(perBar/b.Elapsed().Seconds(), "bars/s")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/perBar, "B/bar")
	b.ReportMetric(float64(*fills), "fills")
}

// BenchmarkSMACrossSymbols is one smacross instance trading a million
// distinct generated one-minute bars split evenly between one, two or four
// symbols (each its own random walk, the same instants): the cost of a
// step of several symbols, and whether the fast path (strategy.Skipper)
// takes their bars. bars/s counts the bars of all symbols.
func BenchmarkSMACrossSymbols(b *testing.B) {
	for _, k := range []int{1, 2, 4} {
		b.Run("symbols="+itoa(k), func(b *testing.B) {
			spec := symbolsSpec(b, 1_000_000/k, k)
			_, restore := RunMemory(0)
			defer restore()
			run, fills := sameFillsRun(b, spec)
			benchRuns(b, 1_000_000/k*k, run)
			b.ReportMetric(float64(*fills), "fills")
		})
	}
}

// sameFillsRun returns a function running spec that fails the benchmark
// unless each run makes as many fills as the first, and the count.
func sameFillsRun(b *testing.B, spec Spec) (run func(), fills *int) {
	n := -1
	return func() {
		res, err := Run(b.Context(), spec)
		if err != nil {
			b.Fatal(err)
		}
		if n >= 0 && res.Fills.Len() != n {
			b.Fatalf("%d fills, then %d", n, res.Fills.Len())
		}
		n = res.Fills.Len()
	}, &n
}

// symbolsSpec is millionSpec over k symbols of n distinct bars each (seeds
// 1 to k, the same instants; the first is ETHBTC), one instance trading
// them all, without fees (as BenchmarkSMACrossDistinct).
func symbolsSpec(tb testing.TB, n, k int) Spec {
	tb.Helper()
	names := []string{"ETHBTC", "LTCBTC", "XRPBTC", "ADABTC"}[:k]
	data := make(map[string]*marketdata.Series, k)
	for i, sym := range names {
		s, err := walkBars(n, uint64(i+1))
		if err != nil {
			tb.Fatal(err)
		}
		if s, err = marketdata.NewSeries(sym, s.Interval(), s.Exp(marketdata.Close), s.Exp(marketdata.Volume), s.Times(),
			s.Ints(marketdata.Open), s.Ints(marketdata.High), s.Ints(marketdata.Low), s.Ints(marketdata.Close), s.Ints(marketdata.Volume)); err != nil {
			tb.Fatal(err)
		}
		data[sym] = s
	}
	spec := millionSpec(data["ETHBTC"])
	spec.Data = data
	spec.Instances[0].Symbols = names
	spec.Fill.MakerFee, spec.Fill.TakerFee = &decimal.Zero, &decimal.Zero
	return spec
}

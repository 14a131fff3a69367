package indicator

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// bar is one row of testdata/BTCUSDT-1h.csv.
type bar struct{ h, l, c, v float64 }

// loadBars reads the bars of testdata/BTCUSDT-1h.csv.
func loadBars(t testing.TB) []bar {
	t.Helper()
	rows := readCSV(t, "BTCUSDT-1h.csv")
	out := make([]bar, len(rows))
	for i, r := range rows {
		if len(r) != 6 {
			t.Fatalf("BTCUSDT-1h.csv line %d: %d fields, want 6", i+2, len(r))
		}
		out[i] = bar{h: parse(t, r[2]), l: parse(t, r[3]), c: parse(t, r[4]), v: parse(t, r[5])}
	}
	return out
}

// readCSV returns the rows of a testdata CSV file after its header.
func readCSV(t testing.TB, name string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var rows [][]string
	for first := true; sc.Scan(); first = false {
		if !first {
			rows = append(rows, strings.Split(sc.Text(), ","))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func parse(t testing.TB, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// subject drives one indicator through a uniform interface: outs returns
// each output, NaN where the indicator says it is not yet defined.
type subject struct {
	update func(bar)
	outs   func() []float64
	reset  func()
}

// adapter builds a fresh subject; fields names the bar fields it reads
// ("c", "hlc" or "hlcv").
type adapter struct {
	name   string
	fields string
	make   func(t testing.TB) subject
}

func or(ok bool, v float64) float64 {
	if !ok {
		return math.NaN()
	}
	return v
}

// must turns a constructor's result into a function of the test that
// fails it on error: must(NewSMA(3))(t).
func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// adapters holds one configuration of every indicator, named as its golden
// file.
var adapters = []adapter{
	{"sma_1", "c", func(t testing.TB) subject { return avgSubject(must(NewSMA(1))(t)) }},
	{"sma_2", "c", func(t testing.TB) subject { return avgSubject(must(NewSMA(2))(t)) }},
	{"sma_20", "c", func(t testing.TB) subject { return avgSubject(must(NewSMA(20))(t)) }},
	{"ema_1", "c", func(t testing.TB) subject { return avgSubject(must(NewEMA(1))(t)) }},
	{"ema_2", "c", func(t testing.TB) subject { return avgSubject(must(NewEMA(2))(t)) }},
	{"ema_20", "c", func(t testing.TB) subject { return avgSubject(must(NewEMA(20))(t)) }},
	{"wma_1", "c", func(t testing.TB) subject { return avgSubject(must(NewWMA(1))(t)) }},
	{"wma_2", "c", func(t testing.TB) subject { return avgSubject(must(NewWMA(2))(t)) }},
	{"wma_20", "c", func(t testing.TB) subject { return avgSubject(must(NewWMA(20))(t)) }},
	{"max_20", "h", func(t testing.TB) subject {
		m := must(NewMax(20))(t)
		return subject{func(b bar) { m.Update(b.h) }, func() []float64 { return []float64{or(m.Ready(), m.Value())} }, m.Reset}
	}},
	{"min_20", "l", func(t testing.TB) subject {
		m := must(NewMin(20))(t)
		return subject{func(b bar) { m.Update(b.l) }, func() []float64 { return []float64{or(m.Ready(), m.Value())} }, m.Reset}
	}},
	{"rsi_14", "c", func(t testing.TB) subject {
		r := must(NewRSI(14))(t)
		return subject{func(b bar) { r.Update(b.c) }, func() []float64 {
			ok := r.Ready()
			return []float64{or(ok, r.Value()), or(ok, r.AvgGain()), or(ok, r.AvgLoss())}
		}, r.Reset}
	}},
	{"macd_12_26_9", "c", func(t testing.TB) subject {
		m := must(NewMACD(12, 26, 9))(t)
		return subject{func(b bar) { m.Update(b.c) }, func() []float64 {
			return []float64{or(m.LineReady(), m.Value()), or(m.Ready(), m.Signal()), or(m.Ready(), m.Histogram())}
		}, m.Reset}
	}},
	{"bb_20_2", "c", func(t testing.TB) subject {
		bb := must(NewBollinger(20, 2))(t)
		return subject{func(b bar) { bb.Update(b.c) }, func() []float64 {
			ok := bb.Ready()
			return []float64{or(ok, bb.Middle()), or(ok, bb.Upper()), or(ok, bb.Lower()), or(ok, bb.PercentB())}
		}, bb.Reset}
	}},
	{"atr_14", "hlc", func(t testing.TB) subject {
		a := must(NewATR(14))(t)
		return subject{func(b bar) { a.Update(b.h, b.l, b.c) }, func() []float64 { return []float64{or(a.Ready(), a.Value())} }, a.Reset}
	}},
	{"stoch_14_3", "hlc", func(t testing.TB) subject {
		s := must(NewStochastic(14, 3))(t)
		return subject{func(b bar) { s.Update(b.h, b.l, b.c) }, func() []float64 {
			return []float64{or(s.KReady(), s.K()), or(s.Ready(), s.D())}
		}, s.Reset}
	}},
	{"vwap", "hlcv", func(t testing.TB) subject { return vwapSubject(NewVWAP()) }},
	{"vwap_24", "hlcv", func(t testing.TB) subject { return vwapSubject(must(NewRollingVWAP(24))(t)) }},
}

type average interface {
	Update(float64)
	Value() float64
	Ready() bool
	Reset()
}

func avgSubject(a average) subject {
	return subject{func(b bar) { a.Update(b.c) }, func() []float64 { return []float64{or(a.Ready(), a.Value())} }, a.Reset}
}

func vwapSubject(w *VWAP) subject {
	return subject{func(b bar) { w.Update(b.h, b.l, b.c, b.v) }, func() []float64 { return []float64{or(w.Ready(), w.Value())} }, w.Reset}
}

// run feeds bars to a fresh subject and returns its outputs after each.
func run(s subject, bars []bar) [][]float64 {
	out := make([][]float64, len(bars))
	for i, b := range bars {
		s.update(b)
		out[i] = s.outs()
	}
	return out
}

// same reports whether a and b are the same float64, NaN equal to NaN.
func same(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b)
}

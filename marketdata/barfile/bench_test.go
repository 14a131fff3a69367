package barfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// genSeries makes n distinct one-minute bars (a random walk) at benchmark
// time.
func genSeries(tb testing.TB, n int) *marketdata.Series {
	t := make([]int64, n)
	cols := [5][]int64{make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)}
	p := int64(2_900_000)
	x := uint64(88172645463325252)
	for i := range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		o := p
		c := max(p+int64(x%2001)-1000, 100)
		t[i] = 1609459200000 + int64(i)*60_000
		cols[0][i], cols[3][i] = o, c
		cols[1][i] = max(o, c) + int64(x>>20%500)
		cols[2][i] = max(min(o, c)-int64(x>>30%500), 1)
		cols[4][i] = int64(x >> 40 % 100_000_000)
		p = c
	}
	s, err := marketdata.NewSeries("BTCUSDT", exchange.Interval1m, -2, -4, t, cols[0], cols[1], cols[2], cols[3], cols[4])
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

const benchBars = 1_000_000

// BenchmarkWrite writes 1,000,000 bars as an Arrow IPC file in memory.
func BenchmarkWrite(b *testing.B) {
	s := genSeries(b, benchBars)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := Write(&buf, s, Meta{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchBars)*float64(b.N)/b.Elapsed().Seconds(), "bars/s")
	b.ReportMetric(float64(buf.Len())/benchBars, "B/bar")
}

// BenchmarkReadFile reads 1,000,000 bars back from an Arrow IPC file (in
// the page cache), checking every bar.
func BenchmarkReadFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bars.arrow")
	if err := WriteFile(path, genSeries(b, benchBars), Meta{}); err != nil {
		b.Fatal(err)
	}
	st, _ := os.Stat(path)
	b.ReportAllocs()
	for b.Loop() {
		s, _, err := ReadFile(path)
		if err != nil || s.Len() != benchBars {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchBars)*float64(b.N)/b.Elapsed().Seconds(), "bars/s")
	b.ReportMetric(float64(st.Size())/benchBars, "B/bar")
}

// BenchmarkMapFile maps 1,000,000 bars of an Arrow IPC file (in the page
// cache) as a run from the cache does, checking every bar, and unmaps
// them: each round faults the mapping in afresh. With more than one core
// the check is split between two (-cpu 1,2 shows both).
func BenchmarkMapFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bars.arrow")
	if err := WriteFile(path, genSeries(b, benchBars), Meta{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, _, unmap, err := mapFile(path)
		if err != nil || s.Len() != benchBars {
			b.Fatal(err)
		}
		if err := unmap(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchBars)*float64(b.N)/b.Elapsed().Seconds(), "bars/s")
}

package marketdata

import (
	"bytes"
	"io"
	"testing"

	"github.com/spotbot/spotbot/exchange"
)

// BenchmarkReadCSV parses the embedded BTCUSDT sample (4,309 rows).
func BenchmarkReadCSV(b *testing.B) {
	data, err := sampleFS.ReadFile("sample/BTCUSDT-1h.csv")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	rows := 0
	for b.Loop() {
		res, err := ReadCSV(bytes.NewReader(data), ReadOptions{Interval: exchange.Interval60m})
		if err != nil {
			b.Fatal(err)
		}
		rows += len(res.Klines)
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkWriteCSV writes the BTCUSDT sample.
func BenchmarkWriteCSV(b *testing.B) {
	ks, err := Sample("BTCUSDT")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteCSV(io.Discard, ks); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ks))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// distinctKlines makes n distinct one-minute bars (a random walk, prices
// at two decimals, volumes at four) at benchmark time.
func distinctKlines(n int) []exchange.Kline {
	out := make([]exchange.Kline, n)
	p := int64(2_900_000)
	x := uint64(88172645463325252)
	for i := range out {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		o := p
		c := max(p+int64(x%2001)-1000, 100)
		open := time.UnixMilli(1609459200000 + int64(i)*60_000).UTC()
		out[i] = exchange.Kline{OpenTime: open, CloseTime: open.Add(time.Minute - time.Millisecond),
			Open: decimal.New(o, -2), High: decimal.New(max(o, c)+int64(x>>20%500), -2),
			Low: decimal.New(max(min(o, c)-int64(x>>30%500), 1), -2), Close: decimal.New(c, -2),
			Volume: decimal.New(int64(x>>40%100_000_000), -4)}
		p = c
	}
	return out
}

// BenchmarkKlineSeries loads 1,000,000 distinct stored bars into a
// marketdata.Series (rows/s against the 2 M target; B/bar is the series'
// resident size).
func BenchmarkKlineSeries(b *testing.B) {
	const n = 1_000_000
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.InsertKlines(context.Background(), "BTCUSDT", exchange.Interval1m, distinctKlines(n)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	rounds := 0
	var perBar float64
	for b.Loop() {
		ser, err := s.KlineSeries(context.Background(), "BTCUSDT", exchange.Interval1m, time.Time{}, time.Time{})
		if err != nil || ser.Len() != n {
			b.Fatalf("loaded: %v", err)
		}
		perBar = float64(8*(cap(ser.Times())+5*cap(ser.Ints(0)))) / n
		rounds++
	}
	b.ReportMetric(float64(n*rounds)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(perBar, "B/bar")
}

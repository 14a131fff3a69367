package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

func benchKlines(b *testing.B, n int) []exchange.Kline {
	b.Helper()
	sample, err := marketdata.Sample("BTCUSDT")
	if err != nil {
		b.Fatal(err)
	}
	out := make([]exchange.Kline, n)
	for i := range out {
		k := sample[i%len(sample)]
		k.OpenTime = time.UnixMilli(1_600_000_000_000).UTC().Add(time.Duration(i) * time.Minute)
		k.CloseTime = k.OpenTime.Add(time.Minute - time.Millisecond)
		k.QuoteVolume = k.Volume.Mul(k.Close)
		out[i] = k
	}
	return out
}

// BenchmarkInsertKlines inserts batches of 5,000 one-minute bars into a WAL
// file database; rows/s is the figure to compare with the 200,000 target.
func BenchmarkInsertKlines(b *testing.B) {
	const batch = 5000
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ks := benchKlines(b, batch)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// A new symbol per round keeps every row an insert.
		if n, err := s.InsertKlines(context.Background(), fmt.Sprintf("SYM%d", i), exchange.Interval1m, ks); err != nil || n != batch {
			b.Fatalf("inserted %d: %v", n, err)
		}
		i++
	}
	b.ReportMetric(float64(batch*i)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkLoadKlines reads 20,000 bars into typed values (decimals
// parsed); rows/s is the figure to compare with the 400,000 target.
func BenchmarkLoadKlines(b *testing.B) {
	const n = 20000
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.InsertKlines(context.Background(), "BTCUSDT", exchange.Interval1m, benchKlines(b, n)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	rounds := 0
	for b.Loop() {
		ks, err := s.Klines(context.Background(), "BTCUSDT", exchange.Interval1m, time.Time{}, time.Time{})
		if err != nil || len(ks) != n {
			b.Fatalf("loaded %d: %v", len(ks), err)
		}
		rounds++
	}
	b.ReportMetric(float64(n*rounds)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkIntentAck records an order intent and its acknowledgement, two
// transactions, in a WAL file database with synchronous=NORMAL; ns/op is
// the figure to compare with the 100 µs target.
func BenchmarkIntentAck(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		cid := fmt.Sprintf("bench-%d", i)
		in := intent(cid)
		if created, err := s.RecordIntent(ctx, in); err != nil || !created {
			b.Fatal(created, err)
		}
		if err := s.RecordAck(ctx, cid, fmt.Sprint(i+1), t0); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

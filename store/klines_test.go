package store

import (
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

func TestKlines(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	ctx := t.Context()
	if _, ok, err := s.LastKline(ctx, "BTCUSDT", "60m"); ok || err != nil {
		t.Fatalf("last kline of an empty store: %v %v", ok, err)
	}
	ks := sampleKlines(250) // more than one INSERT statement
	n, err := s.InsertKlines(ctx, "BTCUSDT", "60m", ks)
	if err != nil || n != 250 {
		t.Fatalf("inserted %d, %v", n, err)
	}
	// Overlapping bars are not duplicated.
	n, err = s.InsertKlines(ctx, "BTCUSDT", "60m", sampleKlines(260)[240:])
	if err != nil || n != 10 {
		t.Fatalf("overlap inserted %d, %v", n, err)
	}
	// Another interval is another series.
	if n, _ := s.InsertKlines(ctx, "BTCUSDT", "4h", ks[:1]); n != 1 {
		t.Fatalf("4h inserted %d", n)
	}
	all, err := s.Klines(ctx, "BTCUSDT", "60m", time.Time{}, time.Time{})
	if err != nil || len(all) != 260 {
		t.Fatalf("%d klines, %v", len(all), err)
	}
	k, w := all[7], ks[7]
	if !k.OpenTime.Equal(w.OpenTime) || !k.CloseTime.Equal(w.CloseTime) || k.Open.String() != "40007" || decText(k.High) != "40017.50" ||
		decText(k.Low) != "39997.75" || decText(k.Close) != "40008.125" || decText(k.Volume) != "12.3400" || decText(k.QuoteVolume) != "493600.5" {
		t.Fatalf("bar 7 = %+v", k)
	}
	rng, err := s.Klines(ctx, "BTCUSDT", "60m", ks[10].OpenTime, ks[20].OpenTime)
	if err != nil || len(rng) != 10 || !rng[0].OpenTime.Equal(ks[10].OpenTime) || !rng[9].OpenTime.Equal(ks[19].OpenTime) {
		t.Fatalf("range [10, 20): %d bars, %v", len(rng), err)
	}
	last, ok, err := s.LastKline(ctx, "BTCUSDT", "60m")
	if err != nil || !ok || !last.OpenTime.Equal(t0.Truncate(time.Hour).Add(259*time.Hour)) {
		t.Fatalf("last = %v %v %v", last.OpenTime, ok, err)
	}
	if _, err := s.InsertKlines(ctx, "BTCUSDT", "1h", ks); err == nil || !strings.Contains(err.Error(), `interval "1h" is not one of`) {
		t.Errorf("bad interval: %v", err)
	}
	if _, err := s.InsertKlines(ctx, "", "60m", ks); err == nil || err.Error() != "store: klines without a symbol" {
		t.Errorf("no symbol: %v", err)
	}
}

func TestKlinesSampleRoundTrip(t *testing.T) {
	t.Parallel()
	ks, err := marketdata.Sample("ETHUSDT")
	if err != nil {
		t.Fatal(err)
	}
	s := memStore(t)
	if n, err := s.InsertKlines(t.Context(), "ETHUSDT", marketdata.SampleInterval, ks); err != nil || n != 4309 {
		t.Fatalf("inserted %d, %v", n, err)
	}
	got, err := s.Klines(t.Context(), "ETHUSDT", marketdata.SampleInterval, time.Time{}, time.Time{})
	if err != nil || len(got) != len(ks) {
		t.Fatalf("%d klines, %v", len(got), err)
	}
	for i := range ks {
		a, b := got[i], ks[i]
		if !a.OpenTime.Equal(b.OpenTime) || !a.CloseTime.Equal(b.CloseTime) || decText(a.Open) != decText(b.Open) || decText(a.High) != decText(b.High) ||
			decText(a.Low) != decText(b.Low) || decText(a.Close) != decText(b.Close) || decText(a.Volume) != decText(b.Volume) {
			t.Fatalf("bar %d = %+v, want %+v", i, a, b)
		}
	}
	if decText(got[0].Open) != "482.110000" {
		t.Errorf("first open = %s", decText(got[0].Open))
	}
}

func TestKlineCorruptText(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	s.InsertKlines(t.Context(), "BTCUSDT", exchange.Interval60m, sampleKlines(1))
	at := itoa(t0.Truncate(time.Hour).UnixMilli())
	tests := []struct{ ohlcv, want string }{
		{"1,2,abc,1,1,0", `low "abc" is not a decimal`},
		{"1,2,1,1,1", `ohlcv "1" has 5 values, want 6`},
		{"1,2,1,1,1,0,7", "ohlcv has more than 6 values"},
		{"1,2,1,1,1,", `quote_volume "" is not a decimal`},
	}
	for _, tt := range tests {
		if _, err := s.w.ExecContext(t.Context(), `UPDATE klines SET ohlcv = ?`, tt.ohlcv); err != nil {
			t.Fatal(err)
		}
		_, _, err := s.LastKline(t.Context(), "BTCUSDT", exchange.Interval60m)
		want := "store: last kline of BTCUSDT 60m: the bar at " + at + ": " + tt.want
		if err == nil || err.Error() != want {
			t.Errorf("error = %v\nwant %s", err, want)
		}
	}
}

package store

import (
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// KlineSeries reads across its pages (more bars than one query joins) and
// gives the bars Klines gives, in a range.
func TestKlineSeries(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = klinePage + 1000
	ks := distinctKlines(n)
	if _, err := s.InsertKlines(t.Context(), "BTCUSDT", exchange.Interval1m, ks); err != nil {
		t.Fatal(err)
	}
	ser, err := s.KlineSeries(t.Context(), "BTCUSDT", exchange.Interval1m, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := marketdata.FromKlines("BTCUSDT", exchange.Interval1m, ks)
	if err != nil {
		t.Fatal(err)
	}
	if ser.Len() != n || ser.HashString() != want.HashString() || ser.Symbol() != "BTCUSDT" {
		t.Fatalf("%d bars, hash %s, want %d and %s", ser.Len(), ser.HashString(), n, want.HashString())
	}
	for _, i := range []int{0, klinePage - 1, klinePage, n - 1} {
		if got, w := ser.Kline(i), ks[i]; !got.OpenTime.Equal(w.OpenTime) || !got.Close.Equal(w.Close) || !got.Volume.Equal(w.Volume) || !got.Low.Equal(w.Low) {
			t.Errorf("bar %d = %+v, want %+v", i, got, w)
		}
	}
	from, to := ks[10].OpenTime, ks[20].OpenTime
	cut, err := s.KlineSeries(t.Context(), "BTCUSDT", exchange.Interval1m, from, to)
	if err != nil || cut.Len() != 10 || cut.OpenMs(0) != from.UnixMilli() {
		t.Fatalf("range: %v, %d bars", err, cut.Len())
	}
	if _, err := s.KlineSeries(t.Context(), "BTCUSDT", "1h", time.Time{}, time.Time{}); err == nil ||
		err.Error() != `store: klines of BTCUSDT: interval "1h" is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M` {
		t.Errorf("bad interval: %v", err)
	}
	empty, err := s.KlineSeries(t.Context(), "ETHUSDT", exchange.Interval1m, time.Time{}, time.Time{})
	if err != nil || empty.Len() != 0 {
		t.Errorf("no bars: %v, %d", err, empty.Len())
	}
}

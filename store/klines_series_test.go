package store

import (
	"database/sql"
	"slices"
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

// Windows with gaps (and a window with no bar at all) read their open
// times; a bar off the interval's boundary is refused, not moved.
func TestKlineSeriesGaps(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	all := distinctKlines(3 * klinePage)
	// Keep the first 70,000 bars but one, then the last 10,000 after a long gap.
	ks := append(append(append([]exchange.Kline{}, all[:500]...), all[501:70000]...), all[3*klinePage-10000:]...)
	if _, err := s.InsertKlines(t.Context(), "BTCUSDT", exchange.Interval1m, ks); err != nil {
		t.Fatal(err)
	}
	ser, err := s.KlineSeries(t.Context(), "BTCUSDT", exchange.Interval1m, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := marketdata.FromKlines("BTCUSDT", exchange.Interval1m, ks)
	if ser.Len() != len(ks) || ser.HashString() != want.HashString() || ser.OpenMs(500) != all[501].OpenTime.UnixMilli() {
		t.Fatalf("%d bars, want %d; hash equal %v", ser.Len(), len(ks), ser.HashString() == want.HashString())
	}
	// Room for the span's 196,608 bars was reserved; the gaps' is given back.
	if c := cap(ser.Times()); c != len(ks) || cap(ser.Ints(marketdata.Volume)) != len(ks) {
		t.Errorf("columns of capacity %d and %d for %d bars", c, cap(ser.Ints(marketdata.Volume)), len(ks))
	}
	// A bar 1 s off its minute, in a window that would otherwise look whole.
	odd := all[0]
	odd.OpenTime = all[200].OpenTime.Add(time.Second)
	if _, err := s.w.ExecContext(t.Context(), `DELETE FROM klines WHERE symbol = 'BTCUSDT' AND open_ms = ?`, all[200].OpenTime.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.InsertKlines(t.Context(), "BTCUSDT", exchange.Interval1m, []exchange.Kline{odd}); err != nil {
		t.Fatal(err)
	}
	_, err = s.KlineSeries(t.Context(), "BTCUSDT", exchange.Interval1m, time.Time{}, all[1000].OpenTime)
	if want := "store: klines of BTCUSDT 1m: the bar at 1609471201000: open_time: 1609471201000 (2021-01-01T03:20:01Z) is not on a 1m boundary"; err == nil || err.Error() != want {
		t.Errorf("off boundary: %v\nwant %s", err, want)
	}
}

// The bars come back in time order however they were inserted: backwards,
// in scattered batches, between other series' bars.
func TestKlineSeriesOrder(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ks := distinctKlines(2*klinePage + 300)
	want, err := marketdata.FromKlines("BTCUSDT", exchange.Interval1m, ks)
	if err != nil {
		t.Fatal(err)
	}
	// Batches of 1,000 bars inserted last first, each batch backwards,
	// with another symbol's and another interval's bars in between.
	for hi := len(ks); hi > 0; hi -= 1000 {
		batch := append([]exchange.Kline(nil), ks[max(hi-1000, 0):hi]...)
		slices.Reverse(batch)
		for _, sym := range []string{"BTCUSDT", "ETHUSDT", "ADAUSDT"} {
			if _, err := s.InsertKlines(t.Context(), sym, exchange.Interval1m, batch); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.InsertKlines(t.Context(), "BTCUSDT", exchange.Interval5m, batch[:1]); err != nil {
			t.Fatal(err)
		}
	}
	ser, err := s.KlineSeries(t.Context(), "BTCUSDT", exchange.Interval1m, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if ser.Len() != len(ks) || ser.HashString() != want.HashString() {
		t.Fatalf("%d bars, hash %s, want %d and %s", ser.Len(), ser.HashString(), len(ks), want.HashString())
	}
	for _, i := range []int{0, 999, 1000, klinePage, len(ks) - 1} {
		if ser.OpenMs(i) != ks[i].OpenTime.UnixMilli() || !ser.Decimal(marketdata.Close, i).Equal(ks[i].Close) {
			t.Errorf("bar %d opens %d closing at %s, want %d and %s", i, ser.OpenMs(i), ser.Decimal(marketdata.Close, i), ks[i].OpenTime.UnixMilli(), ks[i].Close)
		}
	}
}

// A window's line that does not parse is named with what is wrong.
func TestAppendWindowBadLines(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		text    string
		gapless bool
		want    string
	}{
		{"1,2,1,1,1,0\n1,2,1\n", true, `the bar "1,2,1" has 3 values, want 6`},
		{"1,2,1,1,1,0\n1,2", true, `the bar "1,2" has 2 values, want 6`},
		{"60000,1,2,1,1,1,0\n120000,1,2,1\n180000,1,2,1,1,1,0\n", false, `the bar "120000,1,2,1" has 3 values, want 6`},
		{"6x000,1,2,1,1,1,0\n", false, `the bar "6x000,1,2,1,1,1,0" has no open time`},
		{"60000,1,2,1,1,-1,0\n", false, `the bar at 60000: volume: -1 is negative`},
	} {
		b := marketdata.NewBuilder("X", exchange.Interval1m, 4)
		err := appendWindow(b, klineWindow{text: sql.NullString{String: tt.text, Valid: true}, gapless: tt.gapless, first: 60000}, 60000)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: %v\nwant %s", tt.text, err, tt.want)
		}
	}
	b := marketdata.NewBuilder("X", exchange.Interval1m, 4)
	if err := appendWindow(b, klineWindow{text: sql.NullString{String: "1,2,1,1.5,1,0,extra\n1.5,2,1,2,3,0", Valid: true}, gapless: true, first: 60000}, 60000); err != nil ||
		b.Series().Len() != 2 || b.Series().OpenMs(1) != 120000 || b.Series().Decimal(marketdata.Volume, 1).String() != "3" {
		t.Errorf("good lines: %v", err)
	}
}

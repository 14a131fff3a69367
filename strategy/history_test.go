package strategy

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// The ring grows to its capacity, then keeps the latest bars in order.
func TestHistoryGrowsThenWraps(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	bar := func(i int) *exchange.FixedKline {
		return &exchange.FixedKline{OpenTime: t0.Add(time.Duration(i) * time.Minute), Close: exchange.NewFixed(int64(i), -2)}
	}
	opens := func(ks []exchange.Kline) (out []int) {
		for _, k := range ks {
			out = append(out, int(k.OpenTime.Sub(t0)/time.Minute))
		}
		return out
	}
	h := newHistory(100)
	_, ok := h.last()
	require.False(t, ok)
	for i := range 70 {
		h.push(bar(i))
	}
	require.Len(t, h.buf, 128-28) // 64, then doubled but capped at 100
	require.Equal(t, []int{67, 68, 69}, opens(h.recent(3)))
	for i := 70; i < 250; i++ {
		h.push(bar(i))
	}
	require.Len(t, h.buf, 100)
	last, ok := h.last()
	require.True(t, ok)
	require.Equal(t, t0.Add(249*time.Minute), last.OpenTime)
	got := opens(h.recent(1000))
	require.Len(t, got, 100)
	require.Equal(t, 150, got[0])
	require.Equal(t, 249, got[99])
	for i := 1; i < len(got); i++ {
		require.Equal(t, got[i-1]+1, got[i])
	}
	// Klines built before the ring wrapped over their slots are built
	// again: each kline is its own bar's.
	for i := 250; i < 330; i++ {
		h.push(bar(i))
	}
	ks := h.recent(100)
	require.Equal(t, t0.Add(230*time.Minute), ks[0].OpenTime)
	for j, k := range ks {
		require.Equal(t, decimal.New(int64(230+j), -2).String(), k.Close.String())
	}
}

// seriesOf is n one-minute bars, bar i closing at 100+i.
func seriesOf(t *testing.T, n int) *marketdata.Series {
	t.Helper()
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	var ts, o, h, l, c, v []int64
	for i := range n {
		p := int64(10_000 + 100*i)
		ts, o, h, l, c, v = append(ts, t0+int64(i)*60_000), append(o, p), append(h, p+50), append(l, p-50), append(c, p+10), append(v, int64(i+1))
	}
	s, err := marketdata.NewSeries("BTCUSDT", exchange.Interval1m, -2, 0, ts, o, h, l, c, v)
	require.NoError(t, err)
	return s
}

// A history fed from a series (bar by bar, by runs, then a bar from
// elsewhere, then the series again) holds what a ring fed every bar
// holds: the same last bar and the same recent klines, at every length.
func TestHistoryFromSeries(t *testing.T) {
	s := seriesOf(t, 400)
	ring, fromSeries := newHistory(100), newHistory(100)
	check := func(at string) {
		t.Helper()
		want, ok := ring.last()
		got, ok2 := fromSeries.last()
		require.Equal(t, ok, ok2, at)
		require.Equal(t, want, got, at)
		for _, n := range []int{1, 7, 100, 1000} {
			require.Equal(t, ring.recent(n), fromSeries.recent(n), "%s, %d klines", at, n)
		}
	}
	feed := func(lo, hi int) {
		for j := lo; j < hi; j++ {
			k := s.FixedKline(j)
			ring.push(&k)
		}
	}
	// Bar by bar.
	for j := range 30 {
		k := s.FixedKline(j)
		ring.push(&k)
		fromSeries.pushFrom(s, j, &k)
	}
	require.Same(t, s, fromSeries.src)
	check("30 bars one by one")
	// A run shorter than the capacity, then one longer.
	feed(30, 80)
	fromSeries.pushRun(s, 30, 80)
	check("a run of 50")
	feed(80, 330)
	fromSeries.pushRun(s, 80, 330)
	require.Same(t, s, fromSeries.src)
	require.Equal(t, 100, fromSeries.kept)
	check("a run of 250")
	// A bar from elsewhere turns the history into a ring.
	other := s.FixedKline(330)
	ring.push(&other)
	fromSeries.pushFrom(nil, 0, &other)
	require.Nil(t, fromSeries.src)
	check("a bar from elsewhere")
	// The series again (not the next bar of a series the history follows):
	// it stays a ring.
	feed(331, 400)
	fromSeries.pushRun(s, 331, 400)
	require.Nil(t, fromSeries.src)
	check("the series after a ring")
	last, _ := fromSeries.last()
	require.Equal(t, int64(10_000+100*399+10), last.Close.Coef)
}

// A series skipped into (pushFrom not at the next bar) leaves the series.
func TestHistoryFromSeriesGap(t *testing.T) {
	s := seriesOf(t, 10)
	h := newHistory(5)
	for j := range 3 {
		k := s.FixedKline(j)
		h.pushFrom(s, j, &k)
	}
	k := s.FixedKline(5)
	h.pushFrom(s, 5, &k)
	require.Nil(t, h.src)
	var closes []int64
	for _, kl := range h.recent(10) {
		closes = append(closes, kl.Close.Mul(decimal.NewFromInt(100)).IntPart())
	}
	require.Equal(t, []int64{10_010, 10_110, 10_210, 10_510}, closes)
}

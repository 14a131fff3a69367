package strategy

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/exchange"
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

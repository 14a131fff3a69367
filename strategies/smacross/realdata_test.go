package smacross_test

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// loadShared reads the first n bars of a file of ../shared/data (from the
// repository root), skipping the test when the shared data is absent.
func loadShared(t *testing.T, name string, n int) []exchange.Kline {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "shared", "data", name))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("../shared/data is absent (it exists for the project's CI and developers only)")
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	var out []exchange.Kline
	for len(out) < n && sc.Scan() {
		c := strings.Split(sc.Text(), ",")
		ms, err := strconv.ParseInt(c[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		open := time.UnixMilli(ms).UTC()
		out = append(out, exchange.Kline{OpenTime: open, Open: decimal.RequireFromString(c[1]), High: decimal.RequireFromString(c[2]),
			Low: decimal.RequireFromString(c[3]), Close: decimal.RequireFromString(c[4]), Volume: decimal.RequireFromString(c[5]),
			CloseTime: open.Add(time.Hour - time.Millisecond)})
	}
	if len(out) != n {
		t.Fatalf("%s: %d bars, want %d", name, len(out), n)
	}
	return out
}

// TestRealDataOrdersAtIndependentCrosses runs smacross over 1000 real
// hourly BTCUSDT bars and checks that it trades exactly at the crosses of
// SMA(10) and SMA(30) computed here from scratch: a buy at each cross up, a
// sell at each cross down while holding.
func TestRealDataOrdersAtIndependentCrosses(t *testing.T) {
	t.Parallel()
	const fast, slow = 10, 30
	bars := loadShared(t, "BTCUSDT-1h.csv", 1000)
	closes := make([]float64, len(bars))
	for i, k := range bars {
		closes[i] = k.Close.InexactFloat64()
	}
	mean := func(xs []float64) float64 {
		var s float64
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	var want []string
	holding := false
	for i := slow; i < len(bars); i++ { // bars before slow are warm-up
		prev := mean(closes[i-fast:i]) > mean(closes[i-slow:i])
		now := mean(closes[i+1-fast:i+1]) > mean(closes[i+1-slow:i+1])
		switch {
		case now && !prev && !holding:
			want = append(want, fmt.Sprintf("%d BUY MARKET BTCUSDT qty=0.01", i))
			holding = true
		case !now && prev && holding:
			want = append(want, fmt.Sprintf("%d SELL MARKET BTCUSDT qty=0.01", i))
			holding = false
		}
	}
	if len(want) < 20 {
		t.Fatalf("only %d expected orders: the data does not exercise the strategy", len(want))
	}

	h := harness(t, map[string]any{"fast": fast, "slow": slow, "quantity": "0.01"}, map[string]string{"USDT": "1000000"})
	h.WarmUp("BTCUSDT", bars[:slow]...)
	h.Begin()
	var got []string
	for i := slow; i < len(bars); i++ {
		h.Step("BTCUSDT", bars[i])
		for _, o := range h.Sent() {
			got = append(got, fmt.Sprintf("%d %s", i, o))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("orders\n got %q\nwant %q", got, want)
	}
	t.Logf("%d orders at the independently computed crosses", len(got))
}

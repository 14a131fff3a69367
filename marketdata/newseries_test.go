package marketdata

import (
	"testing"

	"github.com/spotbot/spotbot/exchange"
)

// TestNewSeriesChecks covers the fast pass and the worded slow path of
// NewSeries: the first bad bar is named whether it is the first bar, in a
// gapless run or after a gap, at fixed intervals, weeks and months.
func TestNewSeriesChecks(t *testing.T) {
	t.Parallel()
	const (
		jan1  = int64(1704067200000) // 2024-01-01, a Monday
		hour  = int64(3_600_000)
		week  = 7 * 24 * hour
		feb1  = int64(1706745600000)
		mar1  = int64(1709251200000)
		apr1  = int64(1711929600000)
		good  = int64(100)
		above = int64(110)
		below = int64(90)
	)
	type bar struct{ t, o, h, l, c, v int64 }
	ok := func(t int64) bar { return bar{t, good, above, below, good, 5} }
	tests := []struct {
		name string
		iv   exchange.Interval
		bars []bar
		want string // "" when good
	}{
		{"gapless", exchange.Interval60m, []bar{ok(jan1), ok(jan1 + hour), ok(jan1 + 2*hour)}, ""},
		{"gaps", exchange.Interval60m, []bar{ok(jan1), ok(jan1 + 5*hour), ok(jan1 + 6*hour)}, ""},
		{"empty", exchange.Interval60m, nil, ""},
		{"first off boundary", exchange.Interval60m, []bar{ok(jan1 + 1), ok(jan1 + hour)},
			"marketdata: bar 0 (2024-01-01T00:00:00Z): open time: not on a 60m boundary"},
		{"off boundary after a gap", exchange.Interval60m, []bar{ok(jan1), ok(jan1 + hour), ok(jan1 + 3*hour + 60_000)},
			"marketdata: bar 2 (2024-01-01T03:01:00Z): open time: not on a 60m boundary"},
		{"repeated", exchange.Interval60m, []bar{ok(jan1), ok(jan1 + hour), ok(jan1 + hour)},
			"marketdata: bar 2 (2024-01-01T01:00:00Z): open time: not after the previous bar's"},
		{"backwards", exchange.Interval60m, []bar{ok(jan1), ok(jan1 + 2*hour), ok(jan1 + hour)},
			"marketdata: bar 2 (2024-01-01T01:00:00Z): open time: not after the previous bar's"},
		{"zero price", exchange.Interval60m, []bar{ok(jan1), {jan1 + hour, good, above, 0, good, 5}},
			"marketdata: bar 1 (2024-01-01T01:00:00Z): prices: not all positive"},
		{"high below close", exchange.Interval60m, []bar{ok(jan1), ok(jan1 + hour), {jan1 + 2*hour, good, above, below, above + 1, 5}},
			"marketdata: bar 2 (2024-01-01T02:00:00Z): high: below max(open, close)"},
		{"low above open", exchange.Interval60m, []bar{ok(jan1), {jan1 + hour, below - 1, above, below, good, 5}},
			"marketdata: bar 1 (2024-01-01T01:00:00Z): low: above min(open, close)"},
		{"negative volume", exchange.Interval60m, []bar{ok(jan1), ok(jan1 + hour), {jan1 + 2*hour, good, above, below, good, -1}},
			"marketdata: bar 2 (2024-01-01T02:00:00Z): volume: negative"},
		{"weeks", exchange.Interval1W, []bar{ok(jan1), ok(jan1 + week), ok(jan1 + 3*week)}, ""},
		{"week off Monday", exchange.Interval1W, []bar{ok(jan1), ok(jan1 + week), ok(jan1 + 2*week + 24*hour)},
			"marketdata: bar 2 (2024-01-16T00:00:00Z): open time: not on a 1W boundary"},
		{"months", exchange.Interval1M, []bar{ok(jan1), ok(feb1), ok(apr1)}, ""},
		{"month repeated", exchange.Interval1M, []bar{ok(jan1), ok(feb1), ok(feb1)},
			"marketdata: bar 2 (2024-02-01T00:00:00Z): open time: not after the previous bar's"},
		{"month off boundary", exchange.Interval1M, []bar{ok(jan1), ok(feb1), ok(mar1 + hour)},
			"marketdata: bar 2 (2024-03-01T01:00:00Z): open time: not on a 1M boundary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var cols [6][]int64
			for _, b := range tt.bars {
				for f, v := range [6]int64{b.t, b.o, b.h, b.l, b.c, b.v} {
					cols[f] = append(cols[f], v)
				}
			}
			s, err := NewSeries("X", tt.iv, -2, 0, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5])
			if tt.want == "" {
				if err != nil || s.Len() != len(tt.bars) {
					t.Fatalf("err %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Errorf("err %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestFirstSuspectHalves checks firstSuspect's split between two cores
// over 300,000 one-minute bars (past suspectSplit) against the one-core
// pass: a bad price or a time going back at the first bar, either side
// of the middle and at the last; a bad bar in each half (the first
// half's is the first); a gap across the middle (both fine, and an open
// time off the boundary just after it).
func TestFirstSuspectHalves(t *testing.T) {
	t.Parallel()
	const n, minute, start = 300_000, int64(60_000), int64(1704067200000)
	if n < suspectSplit {
		t.Fatalf("%d bars do not reach the split, %d", n, suspectSplit)
	}
	mid := n / 2
	build := func() (cols [6][]int64) {
		for f := range cols {
			cols[f] = make([]int64, n)
		}
		for i := range n {
			cols[0][i] = start + int64(i)*minute
			cols[1][i], cols[2][i], cols[3][i], cols[4][i], cols[5][i] = 100, 110, 90, 100, 5
		}
		return cols
	}
	badPrice := func(i int) func(*[6][]int64) { return func(c *[6][]int64) { c[3][i] = 0 } }
	back := func(i int) func(*[6][]int64) { return func(c *[6][]int64) { c[0][i] = c[0][i-1] } }
	for _, c := range []struct {
		name  string
		spoil []func(*[6][]int64)
		want  int
	}{
		{"all good", nil, n},
		{"first bar", []func(*[6][]int64){badPrice(0)}, 0},
		{"before the middle", []func(*[6][]int64){badPrice(mid - 1)}, mid - 1},
		{"the middle", []func(*[6][]int64){badPrice(mid)}, mid},
		{"time back at the middle", []func(*[6][]int64){back(mid)}, mid},
		{"last bar", []func(*[6][]int64){badPrice(n - 1)}, n - 1},
		{"one in each half", []func(*[6][]int64){badPrice(mid + 10), badPrice(10)}, 10},
		{"a gap across the middle", []func(*[6][]int64){func(c *[6][]int64) {
			for i := mid; i < n; i++ {
				c[0][i] += 60 * minute
			}
		}}, n},
		{"off the boundary after the gap", []func(*[6][]int64){func(c *[6][]int64) {
			for i := mid; i < n; i++ {
				c[0][i] += 60*minute + 1
			}
		}}, mid},
	} {
		cols := build()
		for _, s := range c.spoil {
			s(&cols)
		}
		iv := exchange.Interval1m
		if got := firstSuspect(iv, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5]); got != c.want {
			t.Errorf("%s: firstSuspect %d, want %d", c.name, got, c.want)
		}
		if got := suspectIn(iv, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], 0, n); got != c.want {
			t.Errorf("%s: one pass %d, want %d", c.name, got, c.want)
		}
	}
}

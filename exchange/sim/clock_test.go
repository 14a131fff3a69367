package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

// clockStep is one call in a clock test: a bar fed (open, iv), or the
// clock set or advanced.
type clockStep struct {
	open    time.Time
	iv      exchange.Interval
	set     time.Time
	advance time.Duration
	err     string    // the refusal the bar gets, "" for none
	now     time.Time // the clock after the step
}

// The per-bar feed's clock (FeedBar, on the integer shadows of clock.go)
// is FeedKline's (on time.Time) field for field after every step, and has
// the exact value expected, at the edges: a zero start, sub-millisecond
// times, bars out of order, a month, the clock set and advanced between
// bars, times outside int64 nanoseconds and another location.
func TestFeedBarClock(t *testing.T) {
	t.Parallel()
	date := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	sub := date(2024, 1, 2, 3, 4, 5, 123_456_789)
	zone := time.FixedZone("UTC+2", 2*3600)
	for _, tc := range []struct {
		name  string
		start time.Time
		steps []clockStep
	}{
		{"zero start, sub-millisecond times", time.Time{}, []clockStep{
			{open: sub, iv: exchange.Interval1m, now: sub.Add(time.Minute)},
			{open: sub.Add(time.Minute), iv: exchange.Interval1m, now: date(2024, 1, 2, 3, 6, 5, 123_456_789)},
			{open: sub.Add(2*time.Minute + time.Nanosecond), iv: exchange.Interval1m, now: date(2024, 1, 2, 3, 7, 5, 123_456_790)},
		}},
		{"out of order", date(2024, 1, 1, 0, 0, 0, 0), []clockStep{
			{open: sub, iv: exchange.Interval1m, now: sub.Add(time.Minute)},
			{open: sub, iv: exchange.Interval1m, now: sub.Add(time.Minute),
				err: "sim: BTCUSDT 1m kline at 2024-01-02 03:04:05.123456789 +0000 UTC is not after 2024-01-02 03:04:05.123456789 +0000 UTC"},
			{open: sub.Add(-time.Nanosecond), iv: exchange.Interval1m, now: sub.Add(time.Minute),
				err: "sim: BTCUSDT 1m kline at 2024-01-02 03:04:05.123456788 +0000 UTC is not after 2024-01-02 03:04:05.123456789 +0000 UTC"},
			{open: sub.Add(time.Nanosecond), iv: exchange.Interval1m, now: sub.Add(time.Minute + time.Nanosecond)},
		}},
		{"an earlier bar of another interval moves no clock back", date(2024, 1, 1, 0, 0, 0, 0), []clockStep{
			{open: date(2024, 1, 2, 4, 0, 0, 0), iv: exchange.Interval60m, now: date(2024, 1, 2, 5, 0, 0, 0)},
			{open: date(2024, 1, 2, 4, 0, 0, 0), iv: exchange.Interval1m, now: date(2024, 1, 2, 5, 0, 0, 0)},
			{open: date(2024, 1, 2, 4, 59, 30, 0), iv: exchange.Interval1m, now: date(2024, 1, 2, 5, 0, 30, 0)},
		}},
		{"a month", date(2024, 1, 1, 0, 0, 0, 0), []clockStep{
			{open: date(2024, 1, 31, 0, 0, 0, 0), iv: exchange.Interval1M, now: date(2024, 3, 2, 0, 0, 0, 0)},
			{open: date(2024, 3, 1, 0, 0, 0, 0), iv: exchange.Interval1M, now: date(2024, 4, 1, 0, 0, 0, 0)},
			{open: date(2024, 3, 1, 0, 0, 0, 0), iv: exchange.Interval1M, now: date(2024, 4, 1, 0, 0, 0, 0),
				err: "sim: BTCUSDT 1M kline at 2024-03-01 00:00:00 +0000 UTC is not after 2024-03-01 00:00:00 +0000 UTC"},
			{open: date(2024, 4, 1, 0, 0, 0, 0), iv: exchange.Interval1d, now: date(2024, 4, 2, 0, 0, 0, 0)},
		}},
		{"set and advanced between bars", date(2024, 1, 1, 0, 0, 0, 0), []clockStep{
			{open: sub, iv: exchange.Interval5m, now: sub.Add(5 * time.Minute)},
			{set: sub.Add(7 * time.Minute), now: sub.Add(7 * time.Minute)},
			{open: sub.Add(5 * time.Minute), iv: exchange.Interval5m, now: sub.Add(10 * time.Minute)},
			{advance: 1500*time.Millisecond + 7, now: sub.Add(10*time.Minute + 1500*time.Millisecond + 7)},
			{open: sub.Add(10 * time.Minute), iv: exchange.Interval5m, now: sub.Add(15 * time.Minute)},
			{set: sub, now: sub.Add(15 * time.Minute)},
			{set: time.Date(2024, 1, 2, 5, 20, 5, 123_456_789, zone), now: date(2024, 1, 2, 3, 20, 5, 123_456_789)},
			{open: sub.Add(15 * time.Minute), iv: exchange.Interval5m, now: sub.Add(20 * time.Minute)},
			{open: sub.Add(20 * time.Minute), iv: exchange.Interval5m, now: sub.Add(25 * time.Minute)},
		}},
		{"outside int64 nanoseconds", time.Time{}, []clockStep{
			{open: date(1500, 1, 1, 0, 0, 0, 5), iv: exchange.Interval1W, now: date(1500, 1, 8, 0, 0, 0, 5)},
			{open: date(2024, 1, 1, 0, 0, 0, 0), iv: exchange.Interval1W, now: date(2024, 1, 8, 0, 0, 0, 0)},
			{open: date(2300, 1, 1, 0, 0, 0, 0), iv: exchange.Interval1W, now: date(2300, 1, 8, 0, 0, 0, 0)},
			{open: date(2300, 1, 8, 0, 0, 0, 0), iv: exchange.Interval1W, now: date(2300, 1, 15, 0, 0, 0, 0)},
		}},
		{"another location", date(2024, 1, 1, 0, 0, 0, 0), []clockStep{
			{open: sub.In(zone), iv: exchange.Interval1m, now: sub.In(zone).Add(time.Minute)},
			{open: sub.Add(time.Minute), iv: exchange.Interval1m, now: sub.Add(2 * time.Minute)},
			{open: sub.Add(2 * time.Minute).In(zone), iv: exchange.Interval1m, now: sub.In(zone).Add(3 * time.Minute)},
			{open: sub.Add(2 * time.Minute), iv: exchange.Interval1m, now: sub.In(zone).Add(3 * time.Minute),
				err: "sim: BTCUSDT 1m kline at 2024-01-02 03:06:05.123456789 +0000 UTC is not after 2024-01-02 05:06:05.123456789 +0200 UTC+2"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var xs [2]*Exchange
			for i := range xs {
				x, err := New(Options{Start: tc.start, Symbols: exchangetest.Symbols(), KlineRetention: 1, SingleDriver: i == 1})
				require.NoError(t, err)
				xs[i] = x
			}
			for i, s := range tc.steps {
				for path, x := range xs {
					where := fmt.Sprintf("step %d, path %d", i, path)
					switch {
					case !s.set.IsZero():
						x.SetTime(s.set)
					case s.advance != 0:
						x.Advance(s.advance)
					default:
						bar := exchange.FixedKline{OpenTime: s.open, CloseTime: s.open.Add(time.Second),
							Open: exchange.NewFixed(200, 0), High: exchange.NewFixed(210, 0), Low: exchange.NewFixed(190, 0), Close: exchange.NewFixed(205, 0), Volume: exchange.NewFixed(1, 0)}
						var err error
						if path == 0 {
							err = x.FeedKline("BTCUSDT", s.iv, bar.Kline())
						} else {
							err = x.FeedBar("BTCUSDT", s.iv, &bar)
						}
						if s.err == "" {
							require.NoError(t, err, where)
						} else {
							require.EqualError(t, err, s.err, where)
						}
					}
					require.True(t, x.Now() == s.now, "%s: clock %s, want %s", where, x.Now(), s.now)
					ns, fast := fastNanos(x.now)
					require.Equal(t, fast, x.nowFast, where)
					require.Equal(t, ns, x.nowNs, where)
				}
				require.True(t, xs[0].Now() == xs[1].Now(), "step %d: FeedKline's clock %s, FeedBar's %s", i, xs[0].Now(), xs[1].Now())
			}
		})
	}
}

// fastNanos gives a shadow exactly to the UTC times within its range.
func TestFastNanos(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		t    time.Time
		ns   int64
		fast bool
	}{
		{time.Time{}, 0, false},
		{time.Unix(0, 0).UTC(), 0, true},
		{time.Unix(0, 0), 0, false}, // Local
		{time.Unix(1_700_000_000, 123_456_789).UTC(), 1_700_000_000_123_456_789, true},
		{time.Unix(-1, 999_999_999).UTC(), -1, true},
		{time.Unix(fastSecMax, 999_999_999).UTC(), fastSecMax*1e9 + 999_999_999, true},
		{time.Unix(fastSecMax+1, 0).UTC(), 0, false},
		{time.Unix(-fastSecMax, 0).UTC(), -fastSecMax * 1e9, true},
		{time.Unix(-fastSecMax-1, 999_999_999).UTC(), 0, false},
		{time.Unix(0, 0).In(time.FixedZone("Z", 0)), 0, false},
	} {
		ns, fast := fastNanos(tc.t)
		require.Equal(t, tc.fast, fast, "%s", tc.t)
		require.Equal(t, tc.ns, ns, "%s", tc.t)
		if fast {
			require.True(t, time.Unix(0, ns).UTC() == tc.t, "%s rebuilt as %s", tc.t, time.Unix(0, ns).UTC())
		}
	}
}

// An order waiting for the next open fills at the clock of that open,
// which the per-bar feed reaches before the bar's close even after a gap
// in the bars; the clock then moves to the close.
func TestFeedBarFillsAtTheOpen(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	x, err := New(Options{Start: start, Symbols: exchangetest.Symbols(), KlineRetention: 1, SingleDriver: true})
	require.NoError(t, err)
	bar := func(open time.Time) *exchange.FixedKline {
		return &exchange.FixedKline{OpenTime: open, CloseTime: open.Add(time.Minute - time.Millisecond),
			Open: exchange.NewFixed(200, 0), High: exchange.NewFixed(210, 0), Low: exchange.NewFixed(190, 0), Close: exchange.NewFixed(205, 0), Volume: exchange.NewFixed(1, 0)}
	}
	require.NoError(t, x.FeedBar("BTCUSDT", exchange.Interval1m, bar(start)))
	require.NoError(t, x.Credit(x.MasterUID(), "USDT", decimal.NewFromInt(1000)))
	p, ctx := x.Master(), t.Context()
	_, err = p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket, Quantity: decimal.RequireFromString("0.5")})
	require.NoError(t, err)
	open := time.Date(2024, 1, 1, 1, 0, 0, 123_457, time.UTC) // an hour's gap
	require.NoError(t, x.FeedBar("BTCUSDT", exchange.Interval1m, bar(open)))
	trades, err := p.MyTrades(ctx, exchange.MyTradesRequest{Symbol: "BTCUSDT"})
	require.NoError(t, err)
	require.Len(t, trades, 1)
	require.Equal(t, "200", trades[0].Price.String())
	require.True(t, trades[0].Time == open, "filled at %s, want %s", trades[0].Time, open)
	require.True(t, x.Now() == time.Date(2024, 1, 1, 1, 1, 0, 123_457, time.UTC), "clock %s", x.Now())
}

// A bar time with a monotonic clock reading (only time.Now gives one, so
// this test reads the wall clock, never compared with anything but
// itself) has no shadow: the clock keeps the reading as FeedKline's does.
func TestFeedBarClockMonotonic(t *testing.T) {
	t.Parallel()
	mono := time.Now()
	require.False(t, mono == mono.Round(0), "time.Now has no monotonic reading here")
	_, fast := fastNanos(mono)
	require.False(t, fast)
	var xs [2]*Exchange
	for i := range xs {
		x, err := New(Options{Start: mono.Add(-time.Hour), Symbols: exchangetest.Symbols(), KlineRetention: 1, SingleDriver: true})
		require.NoError(t, err)
		xs[i] = x
	}
	for i, open := range []time.Time{mono, mono.Add(time.Minute), mono.Add(time.Minute), mono.Add(3 * time.Minute)} {
		var errs [2]error
		for path, x := range xs {
			bar := exchange.FixedKline{OpenTime: open, CloseTime: open.Add(time.Second),
				Open: exchange.NewFixed(200, 0), High: exchange.NewFixed(210, 0), Low: exchange.NewFixed(190, 0), Close: exchange.NewFixed(205, 0), Volume: exchange.NewFixed(1, 0)}
			if path == 0 {
				errs[path] = x.FeedKline("BTCUSDT", exchange.Interval1m, bar.Kline())
			} else {
				errs[path] = x.FeedBar("BTCUSDT", exchange.Interval1m, &bar)
			}
		}
		if i == 2 { // the same open again
			require.EqualError(t, errs[1], errs[0].Error())
			require.Equal(t, notAfter("BTCUSDT", exchange.Interval1m, open, open).Error(), errs[1].Error())
		} else {
			require.NoError(t, errs[0], "step %d", i)
			require.NoError(t, errs[1], "step %d", i)
		}
		require.True(t, xs[0].Now() == xs[1].Now(), "step %d: FeedKline's clock %s, FeedBar's %s", i, xs[0].Now(), xs[1].Now())
		require.False(t, xs[1].nowFast, "step %d", i)
	}
	require.True(t, xs[1].Now() == mono.Add(4*time.Minute), "clock %s", xs[1].Now())
}

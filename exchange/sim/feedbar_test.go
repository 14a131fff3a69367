package sim

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

// FeedBar gives what FeedKline gives for the same bars: the same fills at
// the same prices, balances, last price and klines (resampled too), with a
// replay's one kline a feed and with more kept.
func TestFeedBarMatchesFeedKline(t *testing.T) {
	t.Parallel()
	px := func(c int64) exchange.Fixed { return exchange.NewFixed(c, -2) }
	var bars []exchange.FixedKline
	for i, c := range []int64{2_000_000, 1_990_050, 1_899_990, 2_050_000, 2_120_000, 2_100_000, 2_000_000} {
		open := exchangetest.T0.Add(time.Duration(i+1) * time.Minute)
		bars = append(bars, exchange.FixedKline{OpenTime: open, CloseTime: open.Add(time.Minute - time.Millisecond),
			Open: px(c), High: px(c + 15_000), Low: px(c - 12_000), Close: px(c + 500),
			Volume: exchange.NewFixed(int64(1234+i), -3)})
	}
	for _, ret := range []int{1, 0} {
		var got [2][]any
		for path := range 2 {
			x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), KlineRetention: ret})
			require.NoError(t, err)
			require.NoError(t, x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")))
			require.NoError(t, x.Credit(x.MasterUID(), "USDT", decimal.NewFromInt(100_000)))
			require.NoError(t, x.Credit(x.MasterUID(), "BTC", decimal.NewFromInt(1)))
			p, ctx := x.Master(), t.Context()
			for _, o := range []exchange.NewOrder{
				{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: decimal.RequireFromString("0.1"), Price: decimal.RequireFromString("19000.5")},
				{Symbol: "BTCUSDT", Side: exchange.SideSell, Type: exchange.TypeLimit, Quantity: decimal.RequireFromString("0.2"), Price: decimal.NewFromInt(21000)},
				{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket, Quantity: decimal.RequireFromString("0.01")},
			} {
				_, err := p.PlaceOrder(ctx, o)
				require.NoError(t, err)
			}
			for i := range bars {
				if path == 0 {
					require.NoError(t, x.FeedKline("BTCUSDT", exchange.Interval1m, bars[i].Kline()))
				} else {
					require.NoError(t, x.FeedBar("BTCUSDT", exchange.Interval1m, &bars[i]))
				}
				last, err := x.LastPrice("BTCUSDT")
				require.NoError(t, err)
				got[path] = append(got[path], last.String())
			}
			trades, err := p.MyTrades(ctx, exchange.MyTradesRequest{Symbol: "BTCUSDT"})
			require.NoError(t, err)
			acct, err := p.Account(ctx)
			require.NoError(t, err)
			k1, err := p.Klines(ctx, exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: exchange.Interval1m})
			require.NoError(t, err)
			k5, err := p.Klines(ctx, exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: exchange.Interval5m})
			require.NoError(t, err)
			got[path] = append(got[path], trades, acct.Balances, k1, k5, x.Now())
		}
		require.Equal(t, got[0], got[1], "retention %d", ret)
		require.Equal(t, []any{"20005", "19905.5", "19004.9", "20505", "21205", "21005", "20005"}, got[1][:7])
		// The market buy meets the account's own sell at 21000 (two trades), then the limit buy and the rest of the sell fill.
		require.Len(t, got[1][7], 4)
	}
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), KlineRetention: 1})
	require.NoError(t, err)
	require.NoError(t, x.FeedBar("BTCUSDT", exchange.Interval1m, &bars[1]))
	require.EqualError(t, x.FeedBar("BTCUSDT", exchange.Interval1m, &bars[0]),
		"sim: BTCUSDT 1m kline at 2024-03-01 00:01:00 +0000 UTC is not after 2024-03-01 00:02:00 +0000 UTC")
	bad := bars[2]
	bad.Low = px(0)
	require.EqualError(t, x.FeedBar("BTCUSDT", exchange.Interval1m, &bad), "sim: BTCUSDT 1m kline at 2024-03-01 00:03:00 +0000 UTC has low 0 above high 19149.9 or not positive")
}

// FeedRun of an idle symbol leaves the exchange as the same bars fed one
// by one leave it (clock, last price, kept kline, the book's update id);
// it is refused while an order waits, on an exchange keeping more than
// one kline, and for no bars.
func TestFeedRun(t *testing.T) {
	t.Parallel()
	var bars []exchange.FixedKline
	for i := range 5 {
		open := exchangetest.T0.Add(time.Duration(i+1) * time.Minute)
		c := int64(2_000_000 + 1000*i)
		bars = append(bars, exchange.FixedKline{OpenTime: open, CloseTime: open.Add(time.Minute - time.Millisecond),
			Open: exchange.NewFixed(c, -2), High: exchange.NewFixed(c+500, -2), Low: exchange.NewFixed(c-500, -2),
			Close: exchange.NewFixed(c+100, -2), Volume: exchange.NewFixed(7, 0)})
	}
	state := func(x *Exchange) []any {
		last, err := x.LastPrice("BTCUSDT")
		require.NoError(t, err)
		book, err := x.Depth("BTCUSDT", 5)
		require.NoError(t, err)
		ks, err := x.Master().Klines(t.Context(), exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: exchange.Interval1m})
		require.NoError(t, err)
		return []any{x.Now(), last.String(), book.LastUpdateID, ks}
	}
	build := func(ret int) *Exchange {
		x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), KlineRetention: ret, SingleDriver: true})
		require.NoError(t, err)
		return x
	}
	one, run := build(1), build(1)
	for i := range bars {
		require.NoError(t, one.FeedBar("BTCUSDT", exchange.Interval1m, &bars[i]))
	}
	require.True(t, run.Idle("BTCUSDT"))
	require.NoError(t, run.FeedRun("BTCUSDT", exchange.Interval1m, len(bars), &bars[len(bars)-1]))
	got := state(run)
	require.Equal(t, state(one), got)
	require.Equal(t, []any{exchangetest.T0.Add(6 * time.Minute), "20041", int64(5)}, got[:3])

	require.EqualError(t, run.FeedRun("BTCUSDT", exchange.Interval1m, 0, &bars[4]), "sim: BTCUSDT 1m: a run of 0 bars")
	require.NoError(t, run.Credit(run.MasterUID(), "USDT", decimal.NewFromInt(1000)))
	_, err := run.Master().PlaceOrder(t.Context(), exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.01"), Price: decimal.NewFromInt(19000)})
	require.NoError(t, err)
	require.False(t, run.Idle("BTCUSDT"))
	next := bars[4]
	next.OpenTime, next.CloseTime = next.OpenTime.Add(time.Minute), next.CloseTime.Add(time.Minute)
	require.EqualError(t, run.FeedRun("BTCUSDT", exchange.Interval1m, 1, &next), "sim: BTCUSDT 1m: a run of bars fed while orders wait for them")
	require.EqualError(t, build(0).FeedRun("BTCUSDT", exchange.Interval1m, 1, &next),
		"sim: BTCUSDT 1m: a run of bars fed to an exchange that keeps more than one kline (it would lose all but the last)")
	require.False(t, run.Idle("NOSUCH"))
}

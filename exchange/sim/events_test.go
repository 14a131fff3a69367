package sim

import (
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/exchange"
)

// A taker that takes two makers' orders gets one event with its two trades
// (numbered 2 and 4: each maker's trade comes first), each maker an event
// with its own; the trades in events are those myTrades serves.
func TestEventTradesOfATakerAndItsMakers(t *testing.T) {
	t.Parallel()
	taker, ctx := fundedPort(t, Options{})
	maker := takeLadder(t, taker, []int64{20100, 20110}, "m")

	line := func(tr exchange.OwnTrade) string {
		return tr.ID + " " + tr.ClientOrderID + " " + tr.Qty.String() + "@" + tr.Price.String() + " fee " + tr.Commission.String() + " " + tr.CommissionAsset
	}
	var got []string
	for _, ev := range taker.DrainEvents(nil) {
		got = append(got, "taker "+string(ev.Order.Status))
		for _, tr := range ev.Trades {
			got = append(got, line(tr))
		}
	}
	for _, ev := range maker.DrainEvents(nil) {
		got = append(got, "maker "+ev.Order.ClientOrderID+" "+string(ev.Order.Status))
		for _, tr := range ev.Trades {
			got = append(got, line(tr))
		}
	}
	require.Equal(t, []string{
		"taker FILLED",
		"2 t 0.01@20100 fee 0.00002 BTC", // taker fee 0.2% of the base received
		"4 t 0.01@20110 fee 0.00002 BTC",
		"maker m20100 FILLED",
		"1 m20100 0.01@20100 fee 0.201 USDT", // maker fee 0.1% of the quote received
		"maker m20110 FILLED",
		"3 m20110 0.01@20110 fee 0.2011 USDT",
	}, got)
	mine, err := taker.MyTrades(ctx, exchange.MyTradesRequest{Symbol: "BTCUSDT"})
	require.NoError(t, err)
	require.Len(t, mine, 2)
	require.Equal(t, []string{"2 t 0.01@20100 fee 0.00002 BTC", "4 t 0.01@20110 fee 0.00002 BTC"}, []string{line(mine[0]), line(mine[1])})
}

// With OwnTradeRetention 1 the taker's list is trimmed twice while it
// takes four makers' orders: its event still carries the four trades, in
// their order, and myTrades serves the two the list kept.
func TestEventTradesSurviveTrimming(t *testing.T) {
	t.Parallel()
	taker, ctx := fundedPort(t, Options{OwnTradeRetention: 1})
	takeLadder(t, taker, []int64{20100, 20110, 20120, 20130}, "")
	line := func(tr exchange.OwnTrade) string {
		return tr.ID + " " + tr.OrderID + " " + tr.Qty.String() + "@" + tr.Price.String() + " fee " + tr.Commission.String() + " " + tr.CommissionAsset
	}
	var got []string
	for _, ev := range taker.DrainEvents(nil) {
		got = append(got, string(ev.Order.Status))
		for _, tr := range ev.Trades {
			got = append(got, line(tr))
		}
	}
	require.Equal(t, []string{"FILLED",
		"2 5 0.01@20100 fee 0.00002 BTC", "4 5 0.01@20110 fee 0.00002 BTC",
		"6 5 0.01@20120 fee 0.00002 BTC", "8 5 0.01@20130 fee 0.00002 BTC"}, got)
	mine, err := taker.MyTrades(ctx, exchange.MyTradesRequest{Symbol: "BTCUSDT"})
	require.NoError(t, err)
	require.Len(t, mine, 2)
	require.Equal(t, []string{"6 5 0.01@20120 fee 0.00002 BTC", "8 5 0.01@20130 fee 0.00002 BTC"}, []string{line(mine[0]), line(mine[1])})
	require.Empty(t, taker.Exchange().unreported)
	require.Empty(t, taker.Exchange().dropped)
}

// takeLadder has a new account "maker" sell 0.01 BTCUSDT at each of prices
// (client ids prefix+price, or the simulator's own when prefix is empty),
// drains the maker's acknowledgements, and has taker (client id "t") buy
// them all with one limit order at the highest price. It returns the
// maker's port.
func takeLadder(t *testing.T, taker *Port, prices []int64, prefix string) *Port {
	t.Helper()
	ctx := t.Context()
	x := taker.Exchange()
	maker := x.As(x.CreateAccount("maker"))
	require.NoError(t, x.Credit(maker.UID(), "BTC", decimal.NewFromInt(1)))
	for _, p := range prices {
		o := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideSell, Type: exchange.TypeLimit,
			Quantity: decimal.RequireFromString("0.01"), Price: decimal.NewFromInt(p)}
		if prefix != "" {
			o.NewClientOrderID = prefix + decimal.NewFromInt(p).String()
		}
		_, err := maker.PlaceOrder(ctx, o)
		require.NoError(t, err)
	}
	require.Len(t, maker.DrainEvents(nil), len(prices))
	_, err := taker.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.New(int64(len(prices)), -2), Price: decimal.NewFromInt(prices[len(prices)-1]), NewClientOrderID: "t"})
	require.NoError(t, err)
	return maker
}

// An event's trades are the exchange's until the next drain: those of the
// first drain are intact while the second fill happens, and the third
// drain's trades are back in the first one's storage. Discarded events
// leave no trades behind.
func TestEventTradesLiveUntilTheNextDrain(t *testing.T) {
	t.Parallel()
	p, ctx := fundedPort(t, Options{MarketFill: Immediate})
	buy := func() {
		t.Helper()
		_, err := p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket,
			Quantity: decimal.RequireFromString("0.01")})
		require.NoError(t, err)
	}
	drain := func() []exchange.OwnTrade {
		t.Helper()
		ev := p.DrainEvents(nil)
		require.Len(t, ev, 1)
		require.Len(t, ev[0].Trades, 1)
		return ev[0].Trades
	}
	buy()
	first := drain()
	buy()
	require.Equal(t, "1", first[0].ID, "the first drain's trade, after the second fill")
	second := drain()
	buy()
	require.Equal(t, "2", second[0].ID, "the second drain's trade, after the third fill")
	third := drain()
	require.Equal(t, "3", third[0].ID)
	require.Same(t, &first[0], &third[0], "the third drain's trade is not in the first one's storage")

	buy()
	p.DiscardEvents()
	a, _ := p.account()
	require.Empty(t, a.evTrades, "trades of discarded events kept")
	buy()
	require.Equal(t, "5", drain()[0].ID)
}

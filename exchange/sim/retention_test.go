package sim

import (
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

// With OwnTradeRetention 3 an account keeps between 3 and 6 of its latest
// trades (trimmed in bulk); myTrades serves what is kept.
func TestOwnTradeRetention(t *testing.T) {
	t.Parallel()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), MarketFill: Immediate, OwnTradeRetention: 3})
	require.NoError(t, err)
	require.NoError(t, x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")))
	require.NoError(t, x.Credit(x.MasterUID(), "USDT", decimal.NewFromInt(10_000)))
	p, ctx := x.Master(), t.Context()
	var ids []string
	for range 10 {
		ack, err := p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket,
			Quantity: decimal.RequireFromString("0.01")})
		require.NoError(t, err)
		ids = append(ids, ack.OrderID)
	}
	got, err := p.MyTrades(ctx, exchange.MyTradesRequest{Symbol: "BTCUSDT"})
	require.NoError(t, err)
	var orders []string
	for _, tr := range got {
		orders = append(orders, tr.OrderID)
	}
	// The 7th trade trimmed the six kept to the latest two; 8-10 followed.
	require.Equal(t, ids[4:], orders)
}

func TestMayHaveEvents(t *testing.T) {
	t.Parallel()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
	require.NoError(t, err)
	require.NoError(t, x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")))
	require.NoError(t, x.Credit(x.MasterUID(), "USDT", decimal.NewFromInt(10_000)))
	p, ctx := x.Master(), t.Context()
	require.False(t, p.MayHaveEvents())
	for range 2 {
		_, err := p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
			Quantity: decimal.RequireFromString("0.01"), Price: decimal.NewFromInt(19000)})
		require.NoError(t, err)
	}
	require.True(t, p.MayHaveEvents())
	require.Len(t, p.DrainEvents(nil), 2)
	require.False(t, p.MayHaveEvents())
	_, err = p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.01"), Price: decimal.NewFromInt(19000)})
	require.NoError(t, err)
	p.DiscardEvents()
	require.False(t, p.MayHaveEvents())
}

package sim

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

// With OwnTradeRetention 3 an account keeps between 3 and 6 of its latest
// trades (trimmed in bulk); myTrades serves what is kept.
func TestOwnTradeRetention(t *testing.T) {
	t.Parallel()
	p, ctx := fundedPort(t, Options{MarketFill: Immediate, OwnTradeRetention: 3})
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
	p, ctx := fundedPort(t, Options{})
	require.False(t, p.MayHaveEvents())
	buy := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.01"), Price: decimal.NewFromInt(19000)}
	for range 2 {
		_, err := p.PlaceOrder(ctx, buy)
		require.NoError(t, err)
	}
	require.True(t, p.MayHaveEvents())
	require.Len(t, p.DrainEvents(nil), 2)
	require.False(t, p.MayHaveEvents())
	_, err := p.PlaceOrder(ctx, buy)
	require.NoError(t, err)
	p.DiscardEvents()
	require.False(t, p.MayHaveEvents())
}

// A generated client order id (sim-<order id>) finds its order while open
// and after, and an explicit client id equal to an open one is refused.
func TestGeneratedClientOrderIDs(t *testing.T) {
	t.Parallel()
	p, ctx := fundedPort(t, Options{})
	buy := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.01"), Price: decimal.NewFromInt(19000)}
	ack, err := p.PlaceOrder(ctx, buy)
	require.NoError(t, err)
	cid := "sim-" + ack.OrderID
	got, err := p.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: cid})
	require.NoError(t, err)
	require.Equal(t, ack.OrderID, got.OrderID)
	require.Equal(t, exchange.StatusNew, got.Status)

	dup := buy
	dup.NewClientOrderID = cid
	_, err = p.PlaceOrder(ctx, dup)
	require.True(t, exchange.HasCode(err, exchange.CodeParameterError), "%v", err)
	// Look-alikes are not generated ids.
	for _, id := range []string{"sim-0" + ack.OrderID, "sim-x", "sim-"} {
		_, err := p.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: id})
		require.Error(t, err, id)
	}

	canceled, err := p.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: cid})
	require.NoError(t, err)
	require.Equal(t, exchange.StatusCanceled, canceled.Status)
	got, err = p.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: cid})
	require.NoError(t, err)
	require.Equal(t, exchange.StatusCanceled, got.Status)
	// Once it is final the id may be used again.
	_, err = p.PlaceOrder(ctx, dup)
	require.NoError(t, err)
}

// fundedPort is the master's port on an exchange with the test symbols,
// BTCUSDT at 20000 and 10,000 USDT credited.
func fundedPort(t *testing.T, o Options) (*Port, context.Context) {
	t.Helper()
	o.Start, o.Symbols = exchangetest.T0, exchangetest.Symbols()
	x, err := New(o)
	require.NoError(t, err)
	require.NoError(t, x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")))
	require.NoError(t, x.Credit(x.MasterUID(), "USDT", decimal.NewFromInt(10_000)))
	return x.Master(), t.Context()
}

// hourHistory is an exchange that fills market orders at once and keeps
// an hour of final orders, with the test symbols, BTCUSDT at 20000 and
// usdt USDT credited; its master's port, and a market buy of 0.01 BTC.
func hourHistory(t *testing.T, usdt int64) (*Exchange, *Port, context.Context, exchange.NewOrder) {
	t.Helper()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), MarketFill: Immediate, HistoryRetention: time.Hour})
	require.NoError(t, err)
	require.NoError(t, x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")))
	require.NoError(t, x.Credit(x.MasterUID(), "USDT", decimal.NewFromInt(usdt)))
	market := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket,
		Quantity: decimal.RequireFromString("0.01")}
	return x, x.Master(), t.Context(), market
}

// With HistoryRetention, final orders and trades older than it are
// forgotten once the history has grown enough to trim; open orders and
// recent ones stay.
func TestHistoryRetention(t *testing.T) {
	t.Parallel()
	x, p, ctx, market := hourHistory(t, 1_000_000)
	limit := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.01"), Price: decimal.NewFromInt(19000)}
	open, err := p.PlaceOrder(ctx, limit) // stays open throughout
	require.NoError(t, err)
	old, err := p.PlaceOrder(ctx, market) // filled at once, then ages
	require.NoError(t, err)
	// Two hours later, enough new orders to trigger a trim.
	require.NoError(t, x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(120, "20000", "20000", "20000", "20000")))
	var last exchange.OrderAck
	for range historyTrimMin {
		last, err = p.PlaceOrder(ctx, market)
		require.NoError(t, err)
	}
	_, err = p.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrderID: old.OrderID})
	require.True(t, exchange.HasCode(err, exchange.CodeUnknownOrder), "the aged order: %v", err)
	got, err := p.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrderID: open.OrderID})
	require.NoError(t, err)
	require.Equal(t, exchange.StatusNew, got.Status)
	got, err = p.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrderID: last.OrderID})
	require.NoError(t, err)
	require.Equal(t, exchange.StatusFilled, got.Status)
	trades, err := p.MyTrades(ctx, exchange.MyTradesRequest{Symbol: "BTCUSDT", OrderID: old.OrderID})
	require.NoError(t, err)
	require.Empty(t, trades)
	x.mu.Lock()
	defer x.mu.Unlock()
	a := x.accounts[x.MasterUID()]
	require.Len(t, a.history, historyTrimMin+1) // the open order and the new ones
	require.Len(t, a.trades, historyTrimMin)
}

// A final order an account forgot serves a new order's record, unless an
// event of it is still queued: the events drained late still read the
// forgotten orders as they were, the forgotten are unknown to queries,
// and the orders placed in recycled records read as placed.
func TestForgottenOrdersServeNewOnes(t *testing.T) {
	t.Parallel()
	x, p, ctx, market := hourHistory(t, 10_000_000)
	var err error
	forgot := func() int {
		x.mu.Lock()
		defer x.mu.Unlock()
		return len(x.forgot)
	}
	place := func(n int, drain bool) []exchange.OrderAck {
		acks := make([]exchange.OrderAck, n)
		for i := range acks {
			acks[i], err = p.PlaceOrder(ctx, market)
			require.NoError(t, err)
			if drain {
				p.DrainEvents(nil)
			}
		}
		return acks
	}
	// Orders whose events stay queued through the trim two hours later.
	first := place(10, false)
	require.NoError(t, x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(120, "20000", "20000", "20000", "20000")))
	place(historyTrimMin-10, false)
	require.Zero(t, forgot(), "records recycled with their events queued")
	events := p.DrainEvents(nil)
	require.Len(t, events, historyTrimMin)
	for i, ack := range first {
		require.Equal(t, ack.OrderID, events[i].Order.OrderID)
		require.Equal(t, exchange.StatusFilled, events[i].Order.Status)
		require.Equal(t, "0.01", events[i].Order.ExecutedQty.String())
	}
	// Two hours on, events drained as they come: the trim frees the
	// records of the orders of the first two hours that it forgets.
	require.NoError(t, x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(240, "20000", "20000", "20000", "20000")))
	second := place(historyTrimMin, true)
	freed := forgot()
	// The trim came at the 1,014th order, when the history had doubled
	// to 2,028: it freed the 1,014 records of the orders placed at two
	// hours (the first ten were forgotten with their events queued), and
	// the last ten orders took ten of them.
	require.Equal(t, historyTrimMin-20, freed)
	x.mu.Lock()
	slab := len(x.slab)
	x.mu.Unlock()
	third := place(freed, true)
	require.Zero(t, forgot())
	x.mu.Lock()
	require.Equal(t, slab, len(x.slab), "new blocks taken while recycled records were left")
	x.mu.Unlock()
	_, err = p.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrderID: first[0].OrderID})
	require.True(t, exchange.HasCode(err, exchange.CodeUnknownOrder), "a forgotten order: %v", err)
	for _, ack := range []exchange.OrderAck{second[0], third[0], third[len(third)-1]} {
		got, err := p.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrderID: ack.OrderID})
		require.NoError(t, err)
		require.Equal(t, ack.OrderID, got.OrderID)
		require.Equal(t, exchange.StatusFilled, got.Status)
		require.Equal(t, "0.01", got.ExecutedQty.String())
	}
}

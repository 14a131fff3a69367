package daemon

import (
	"log/slog"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

// The guard passes the simulator's no-events hint through, and a port
// without events never claims any.
func TestGuardForwardsEventHint(t *testing.T) {
	x, err := sim.New(sim.Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
	require.NoError(t, err)
	require.NoError(t, x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")))
	require.NoError(t, x.Credit(x.MasterUID(), "USDT", decimal.NewFromInt(1000)))
	g := newGuard(x.Master(), x.Master(), true, nil, slog.New(slog.DiscardHandler))
	ev := g.eventSource().(guardEvents)
	require.False(t, ev.MayHaveEvents())
	_, err = g.PlaceOrder(t.Context(), exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.01"), Price: decimal.NewFromInt(19000)})
	require.NoError(t, err)
	require.True(t, ev.MayHaveEvents())
	require.Len(t, ev.DrainEvents(nil), 1)
	require.False(t, ev.MayHaveEvents())

	g.events = nil
	require.False(t, ev.MayHaveEvents())
	require.Nil(t, newGuard(x.Master(), nil, false, nil, slog.New(slog.DiscardHandler)).eventSource(), "a live guard has no event source")
}

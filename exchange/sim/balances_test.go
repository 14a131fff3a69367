package sim

import (
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/exchange"
)

// AppendBalances lists exactly what Account lists (assets in order, empty
// ones left out, locked amounts), after dst's own elements; read again
// with nothing changed into a slice with room, it allocates nothing.
func TestAppendBalances(t *testing.T) {
	p, ctx := fundedPort(t, Options{MarketFill: Immediate})
	x := p.Exchange()
	require.NoError(t, x.Credit(p.UID(), "ZZZ", decimal.NewFromInt(3)))
	require.NoError(t, x.Credit(p.UID(), "AAA", decimal.NewFromInt(0))) // created, empty: not listed
	_, err := p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket,
		Quantity: decimal.RequireFromString("0.1")}) // 2000 USDT at 20000, fee 0.0002 BTC
	require.NoError(t, err)
	_, err = p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.1"), Price: decimal.NewFromInt(19000)}) // locks 1900 USDT
	require.NoError(t, err)

	acct, err := p.Account(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"SPOT"}, acct.Permissions)
	mark := exchange.Balance{Asset: "mark"}
	got, err := p.AppendBalances([]exchange.Balance{mark})
	require.NoError(t, err)
	require.Equal(t, append([]exchange.Balance{mark}, acct.Balances...), got)
	var text []string
	for _, b := range got[1:] {
		text = append(text, b.Asset+" "+b.Free.String()+" "+b.Locked.String())
	}
	require.Equal(t, []string{"BTC 0.0998 0", "USDT 6100 1900", "ZZZ 3 0"}, text)

	buf := make([]exchange.Balance, 0, 8)
	if n := testing.AllocsPerRun(50, func() {
		if buf, err = p.AppendBalances(buf[:0]); err != nil || len(buf) != 3 {
			t.Fatalf("%v %v", buf, err)
		}
	}); n != 0 {
		t.Errorf("an unchanged read allocates %v times, want 0", n)
	}
	_, err = x.As("nobody").AppendBalances(nil)
	require.True(t, exchange.HasCode(err, exchange.CodeUserNotExist), "%v", err)
}

package strategy

import (
	"testing"

	"github.com/spotbot/spotbot/exchange"
)

// listReader gives the account reads of reads in turn, the last one
// again once they are used up.
type listReader struct {
	reads [][]exchange.CompactBalance
	n     int
}

func (l *listReader) AppendCompactBalances(dst []exchange.CompactBalance) ([]exchange.CompactBalance, error) {
	r := l.reads[min(l.n, len(l.reads)-1)]
	l.n++
	return append(dst, r...), nil
}

// An asset that leaves the account's list and comes back (a backtest's
// base asset, sold out and bought again) reads as the list has it each
// time, with the decimals' exact coefficient and exponent, and once the
// reads alternate between the same two shapes, a read allocates nothing.
func TestCompactBalancesAssetsComeAndGo(t *testing.T) {
	f := exchange.NewFixed
	btc := func(c int64) exchange.CompactBalance {
		return exchange.CompactBalance{Asset: "BTC", Free: f(c, -8), Locked: f(0, 0)}
	}
	eth := func(c int64) exchange.CompactBalance {
		return exchange.CompactBalance{Asset: "ETH", Free: f(c, -6), Locked: f(5, -1)}
	}
	reads := [][]exchange.CompactBalance{
		{btc(1_050_000_000)},
		{btc(50_000_000), eth(2_500_000)},
		{btc(1_049_000_000)},
		{btc(49_000_000), eth(3_000_000)},
	}
	c := &compactBalances{reader: &listReader{reads: reads}}
	for i, want := range reads {
		if err := c.refresh(); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			got := c.balance(w.Asset)
			if got == nil {
				t.Fatalf("read %d: no %s", i, w.Asset)
			}
			wb := w.Balance()
			if got.Free.String() != wb.Free.String() || got.Free.Exponent() != wb.Free.Exponent() ||
				got.Locked.String() != wb.Locked.String() || got.Locked.Exponent() != wb.Locked.Exponent() ||
				got.Available.String() != wb.Free.String() {
				t.Errorf("read %d: %s %+v, want %+v", i, w.Asset, *got, wb)
			}
		}
		if len(want) == 1 && c.balance("ETH") != nil {
			t.Errorf("read %d: ETH listed after it left the account", i)
		}
	}
	if got := c.balance("ETH").Free.String(); got != "3" {
		t.Errorf("ETH free %s after the last read, want 3", got)
	}
	lr, k := c.reader.(*listReader), 0
	allocs := testing.AllocsPerRun(100, func() {
		lr.n, k = 2+k%2, k+1 // the last two reads in turn
		if err := c.refresh(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("a read allocates %.1f times, want 0", allocs)
	}
}

package sim

import (
	"testing"
	"unsafe"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

// account.order finds an order by its number in the history, which is in
// the order of the numbers, with gaps (other accounts' orders) and after
// the oldest were forgotten.
func TestAccountOrderByNumber(t *testing.T) {
	t.Parallel()
	a := newAccount("1", "")
	for _, n := range []int64{3, 4, 7, 10, 11, 20, 21, 22, 40} {
		a.history = append(a.history, &order{seq: n})
	}
	for n := int64(0); n <= 41; n++ {
		want := int64(0)
		for _, o := range a.history {
			if o.seq == n {
				want = n
			}
		}
		got := int64(0)
		if o := a.order(n); o != nil {
			got = o.seq
		}
		if got != want {
			t.Errorf("order(%d) found %d, want %d", n, got, want)
		}
	}
	a.history = a.history[:0]
	if o := a.order(3); o != nil {
		t.Errorf("empty history found order %d", o.seq)
	}
}

// A full block of order records, with the allocator's 8-byte header for
// objects with pointers, fits the 16 KiB size class (see orderSlab): a
// field added to the record must keep it there, or the block shrink.
func TestOrderSlabFits(t *testing.T) {
	t.Parallel()
	if n := int(unsafe.Sizeof(order{}))*orderSlab + 8; n > 16<<10 {
		t.Errorf("a block of %d order records of %d bytes takes %d bytes, over 16 KiB", orderSlab, unsafe.Sizeof(order{}), n)
	}
}

// A refused order and a test order leave their record to the next order:
// only a booked order takes one.
func TestRefusedOrdersTakeNoRecord(t *testing.T) {
	t.Parallel()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")); err != nil {
		t.Fatal(err)
	}
	if err := x.Credit(x.MasterUID(), "USDT", decimal.NewFromInt(1000)); err != nil {
		t.Fatal(err)
	}
	p, ctx := x.Master(), t.Context()
	buy := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.01"), Price: decimal.RequireFromString("19000")}
	if _, err := p.PlaceOrder(ctx, buy); err != nil {
		t.Fatal(err)
	}
	free := len(x.slab)
	big := buy
	big.Quantity = decimal.NewFromInt(1)
	if _, err := p.PlaceOrder(ctx, big); !exchange.HasCode(err, exchange.CodeInsufficientPosition) {
		t.Fatalf("an order beyond the balance: %v", err)
	}
	maker := buy
	maker.Type, maker.Price = exchange.TypeLimitMaker, decimal.NewFromInt(20000)
	if _, err := p.PlaceOrder(ctx, maker); !exchange.HasCode(err, exchange.CodeOrderTypeNotAllowed) {
		t.Fatalf("a LIMIT_MAKER that would take: %v", err)
	}
	if err := p.TestOrder(ctx, buy); err != nil {
		t.Fatal(err)
	}
	if n := len(x.slab); n != free {
		t.Fatalf("%d records left in the block after refusals and a test order, want %d", n, free)
	}
	if x.slab[0] != (order{}) {
		t.Fatalf("the next record is not zeroed: %+v", x.slab[0])
	}
	ack, err := p.PlaceOrder(ctx, buy)
	if err != nil || ack.OrderID != "2" || len(x.slab) != free-1 {
		t.Fatalf("the next order: %+v %v, %d records left, want %d", ack, err, len(x.slab), free-1)
	}
}

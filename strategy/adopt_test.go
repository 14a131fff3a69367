package strategy

import (
	"context"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// TestAdoptDeliversOnlyMissingFills: an order carried over from before a
// restart, with one of its two fills already recorded and applied, is
// followed again; the next Sync delivers only the missing fill, the
// position counts both once, and the order ends final and not open.
func TestAdoptDeliversOnlyMissingFills(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	h := newHarness(t, Options{}, rec)
	ctx := t.Context()
	// Placed by the previous process: on the exchange, in the journal.
	o := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Price: d("100"), Quantity: d("2"),
		NewClientOrderID: "s0-old-1"}
	if _, err := h.ft.PlaceOrder(ctx, o); err != nil {
		t.Fatal(err)
	}
	h.ft.fill("s0-old-1", "0.5", "100", t0)
	first := h.ft.trades["1"][0]
	if _, err := h.j.RecordFill(ctx, "s0", "s0-old-1", first); err != nil {
		t.Fatal(err)
	}
	if err := h.rt.RestoreFill("s0", Fill{ClientOrderID: "s0-old-1", OrderID: "1", TradeID: first.ID, Symbol: "BTCUSDT",
		Side: exchange.SideBuy, Price: first.Price, Qty: first.Qty, Time: first.Time}); err != nil {
		t.Fatal(err)
	}
	h.ft.fill("s0-old-1", "1.5", "100", t0) // while the bot was down
	err := h.rt.Adopt("s0", Order{ClientOrderID: "s0-old-1", OrderID: "1", Symbol: "BTCUSDT", Side: exchange.SideBuy,
		Type: exchange.TypeLimit, Price: d("100"), Quantity: d("2"), Status: exchange.StatusPartiallyFilled}, d("0.5"), false)
	if err != nil {
		t.Fatal(err)
	}
	if open := h.rt.OpenOrders(); len(open) != 1 || open[0].Instance != "s0" || open[0].ClientOrderID != "s0-old-1" {
		t.Fatalf("open orders %+v", open)
	}
	if err := h.rt.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if len(rec.fills) != 1 || rec.fills[0] != "s0-old-1 1-2 1.5@100" {
		t.Fatalf("fills delivered %v", rec.fills)
	}
	if p := h.rt.Position("s0", "BTCUSDT"); !p.Qty.Equal(d("2")) || !p.AvgPrice.Equal(d("100")) {
		t.Fatalf("position %+v", p)
	}
	if len(h.rt.OpenOrders()) != 0 || h.rt.Stats().Fills != 1 {
		t.Fatalf("open %v, fills %d", h.rt.OpenOrders(), h.rt.Stats().Fills)
	}
}

// TestAdoptUnconfirmedIntent: an intent whose send was never confirmed is
// forgotten (recorded as refused) when the exchange does not know it.
func TestAdoptUnconfirmedIntent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Options{}, &recorder{})
	err := h.rt.Adopt("s0", Order{ClientOrderID: "s0-lost-1", Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Price: d("100"), Quantity: d("1")}, decimal.Zero, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.rt.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, refused := h.j.refused["s0-lost-1"]; !refused || len(h.rt.OpenOrders()) != 0 {
		t.Fatalf("refused %v, open %v", h.j.refused, h.rt.OpenOrders())
	}
}

// TestAdoptRefusals names what is wrong with an adoption.
func TestAdoptRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Options{}, &recorder{})
	ok := Order{ClientOrderID: "s0-x-1", Symbol: "BTCUSDT"}
	if err := h.rt.Adopt("s0", ok, decimal.Zero, false); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		inst string
		o    Order
		want string
	}{
		{"nope", ok, `strategy: adopt s0-x-1: no instance "nope"`},
		{"s0", Order{Symbol: "BTCUSDT"}, "strategy: adopt: order of s0 without a client order id or symbol"},
		{"s0", ok, "strategy: adopt: order s0-x-1 is already tracked"},
	} {
		if err := h.rt.Adopt(tt.inst, tt.o, decimal.Zero, false); err == nil || err.Error() != tt.want {
			t.Errorf("Adopt(%s, %+v): %v; want %q", tt.inst, tt.o, err, tt.want)
		}
	}
	if err := h.rt.RestoreFill("s0", Fill{TradeID: "9", Symbol: "ETHUSDT"}); err == nil ||
		err.Error() != "strategy: restore fill 9: no rules for ETHUSDT (call after Start)" {
		t.Errorf("RestoreFill: %v", err)
	}
}

// TestSetSequence: client ids continue after the sequence set, which never
// moves back.
func TestSetSequence(t *testing.T) {
	t.Parallel()
	var got []string
	s := &recorder{onBar: func(ctx Context, b Bar) error {
		o, err := ctx.Place(exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Price: d("100"), Quantity: d("0.01")})
		got = append(got, o.ClientOrderID)
		return err
	}}
	h := newHarness(t, Options{}, s)
	h.rt.SetSequence(100)
	h.rt.SetSequence(50)
	h.rt.Begin(context.Background())
	h.rt.OnBar(t.Context(), Feed{Symbol: "BTCUSDT", Interval: exchange.Interval1m}, bar(0, "100"))
	if len(got) != 1 || got[0] != "s0-"+strconv.FormatInt(h.clock.t.UnixMilli(), 36)+"-2t" || h.rt.Sequence() != 101 {
		t.Fatalf("ids %v, sequence %d", got, h.rt.Sequence())
	}
}

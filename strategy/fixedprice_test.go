package strategy

import (
	"testing"

	"github.com/spotbot/spotbot/exchange"
)

// TestLastPriceFixed checks the capability against LastPrice: a fed bar's
// close (warm-up or not) is offered as a Fixed, with the same value as
// LastPrice's decimal, before and after that decimal is built; a price held
// as a decimal only (a polled one) is not; an unseen symbol has none.
func TestLastPriceFixed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Options{}, &recorder{})
	ctx := t.Context()
	var c Context = h.rt.insts[0]
	fp, ok := c.(FixedPricer)
	if !ok {
		t.Fatal("the runtime's Context has no LastPriceFixed")
	}
	if f, ok := fp.LastPriceFixed("BTCUSDT"); ok {
		t.Fatalf("a price %s before any bar", f)
	}
	h.rt.DeliverWarmUp(ctx, feed1m, []exchange.Kline{bar(0, "10"), bar(1, "11")})
	if f, ok := fp.LastPriceFixed("BTCUSDT"); !ok || f != exchange.NewFixed(11, 0) || c.LastPrice("BTCUSDT").String() != "11" {
		t.Fatalf("after the warm-up: %s %v, LastPrice %s", f, ok, c.LastPrice("BTCUSDT"))
	}
	h.rt.setLast("BTCUSDT", d("11.5")) // as a polled price is kept
	if f, ok := fp.LastPriceFixed("BTCUSDT"); ok || c.LastPrice("BTCUSDT").String() != "11.5" {
		t.Fatalf("a decimal price: %s %v, LastPrice %s", f, ok, c.LastPrice("BTCUSDT"))
	}
	h.rt.OnBar(ctx, feed1m, bar(2, "12.375"))
	for range 2 { // before and after LastPrice builds the decimal
		f, ok := fp.LastPriceFixed("BTCUSDT")
		if !ok || f != exchange.NewFixed(12375, -3) {
			t.Fatalf("after a bar: %+v %v", f, ok)
		}
		if d := c.LastPrice("BTCUSDT"); f.CmpDecimal(d) != 0 || d.String() != "12.375" {
			t.Fatalf("LastPrice %s, LastPriceFixed %s", d, f)
		}
	}
	if _, ok := fp.LastPriceFixed("ETHUSDT"); ok {
		t.Fatal("a price for a symbol never fed")
	}
}

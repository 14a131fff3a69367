package strategy

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// FuzzHeldPos applies a seeded random run of fills (as
// FuzzPositionApplyNarrow: some steps past 64 bits take the decimal path)
// to the runtime's compact position, reading some of its fields between
// fills (so some decimals are built and some stay compact over several
// fills), and compares what is read with refApply's position: each field
// with the same coefficient and exponent, the whole Position deeply equal
// to the one Position.Apply gives, and the quantity as a Fixed.
func FuzzHeldPos(f *testing.F) {
	f.Add(uint64(1), uint8(6))
	f.Add(uint64(2), uint8(8))
	f.Add(uint64(3), uint8(18))
	f.Add(uint64(4), uint8(19))
	f.Fuzz(func(t *testing.T, seed uint64, digits uint8) {
		r := rand.New(rand.NewPCG(seed, 17))
		maxDigits := 1 + int(digits%19)
		h := &heldPos{pos: Position{Symbol: "BTCUSDT"}}
		want, applied := Position{Symbol: "BTCUSDT"}, Position{Symbol: "BTCUSDT"}
		var m, am posMath
		for i := range 60 {
			fl := randomFill(r, maxDigits)
			h.apply(fl, "BTC", "USDT", &m)
			refApply(&want, fl, "BTC", "USDT")
			applied.apply(fl, "BTC", "USDT", &am)
			label := fmt.Sprintf("fill %d %+v", i, fl)
			switch r.IntN(4) {
			case 0:
				got := h.position()
				comparePositions(t, label, got, want)
				if !reflect.DeepEqual(got, applied) {
					t.Errorf("%s: %+v, Position.Apply gives %+v", label, got, applied)
				}
			case 1:
				if q := h.qty(); !sameDecimal(q, want.Qty) {
					t.Errorf("%s: qty %se%d, want %se%d", label, q.Coefficient(), q.Exponent(), want.Qty.Coefficient(), want.Qty.Exponent())
				}
			case 2:
				if rz := h.realized(); !sameDecimal(rz, want.Realized) {
					t.Errorf("%s: realised %se%d, want %se%d", label, rz.Coefficient(), rz.Exponent(), want.Realized.Coefficient(), want.Realized.Exponent())
				}
			}
			if t.Failed() {
				return
			}
		}
		got := h.position()
		comparePositions(t, "end", got, want)
		if !reflect.DeepEqual(got, applied) {
			t.Errorf("end: %+v, Position.Apply gives %+v", got, applied)
		}
	})
}

// TestHeldPosBuildsOnRead: fills of a backtest's sizes stay compact (no
// field's decimal is built until read), a read of the quantity builds the
// quantity alone, and the context's capability gives it as a Fixed.
func TestHeldPosBuildsOnRead(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	buy := Fill{Side: exchange.SideBuy, Price: d("0.051234"), Qty: d("97.518000"), Commission: d("0.09751800"), CommissionAsset: "ETH"}
	sell := Fill{Side: exchange.SideSell, Price: d("0.052001"), Qty: d("97.420000"), Commission: d("0.00506593"), CommissionAsset: "BTC"}
	in := &instance{positions: map[string]*heldPos{}}
	var m posMath
	h := in.position("ETHBTC")
	h.apply(buy, "ETH", "BTC", &m)
	h.apply(sell, "ETH", "BTC", &m)
	if h.f.stale != allFields&^fFeesOther {
		t.Fatalf("stale fields %06b", h.f.stale)
	}
	if !reflect.DeepEqual(h.pos, Position{Symbol: "ETHBTC"}) {
		t.Fatalf("decimals built before a read: %+v", h.pos)
	}
	qf, ok := in.PositionQtyFixed("ETHBTC")
	if !ok || qf != exchange.NewFixed(48200, -8) {
		t.Errorf("PositionQtyFixed %v %v, want 48200e-8", qf, ok)
	}
	if q := in.PositionQty("ETHBTC"); q.String() != "0.000482" || q.Exponent() != -8 {
		t.Errorf("PositionQty %s (exponent %d)", q, q.Exponent())
	}
	if h.f.stale != allFields&^(fQty|fFeesOther) {
		t.Errorf("after the quantity's read, stale fields %06b", h.f.stale)
	}
	p := in.Position("ETHBTC")
	var want Position
	refApply(&want, buy, "ETH", "BTC")
	refApply(&want, sell, "ETH", "BTC")
	comparePositions(t, "read", p, want)
	if p.Realized.String() != "0.064658997507506074" || p.FeesBase.String() != "0.097518" || p.FeesQuote.String() != "0.00506593" || p.AvgPrice.String() != "0.0512852852852853" {
		t.Errorf("position %+v", p)
	}
	if h.f.stale != 0 {
		t.Errorf("after Position, stale fields %06b", h.f.stale)
	}
	if q, ok := in.PositionQtyFixed("XRPBTC"); !ok || q != (exchange.Fixed{}) || !in.PositionQty("XRPBTC").Equal(decimal.Zero) {
		t.Errorf("no position: %v %v", q, ok)
	}
}

// TestHeldRemembersLastSymbol: the instance finds the position read last
// without its map, and each symbol still gets its own (or none).
func TestHeldRemembersLastSymbol(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	in := &instance{positions: map[string]*heldPos{}}
	var m posMath
	in.position("ETHBTC").apply(Fill{Side: exchange.SideBuy, Price: d("0.05"), Qty: d("2.5")}, "ETH", "BTC", &m)
	in.position("XRPBTC").apply(Fill{Side: exchange.SideBuy, Price: d("0.00001"), Qty: d("700")}, "XRP", "BTC", &m)
	for _, c := range []struct{ sym, qty string }{{"ETHBTC", "2.5"}, {"ETHBTC", "2.5"}, {"XRPBTC", "700"}, {"BNBBTC", "0"}, {"XRPBTC", "700"}, {"ETHBTC", "2.5"}} {
		if q := in.PositionQty(c.sym); q.String() != c.qty {
			t.Errorf("%s: PositionQty %s, want %s", c.sym, q, c.qty)
		}
		if p := in.Position(c.sym); p.Symbol != c.sym || p.Qty.String() != c.qty {
			t.Errorf("%s: Position %+v", c.sym, p)
		}
	}
	if in.held("BNBBTC") != nil || len(in.positions) != 2 {
		t.Errorf("a read made a position: %v", in.positions)
	}
}

package smacross

import (
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// TestFloorProductIsFloorOfMul checks floorProduct against the decimals
// it stands for, truncate(a × b, places) as SymbolInfo.FloorQuote
// computes it: the same coefficient and exponent (so the same text and
// the same order), or not ok where the integers cannot hold it.
func TestFloorProductIsFloorOfMul(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	for _, c := range []struct {
		a, b   string
		places int32
		want   string // coefficient e exponent; "" for not ok
	}{
		{"10", "0.5", 8, "50e-1"},                 // nothing cut: the product as Mul forms it
		{"9.87654321", "0.95", 8, "938271604e-8"}, // 9.3827160495 floored
		{"0.00000001", "0.5", 8, "0e-8"},
		{"1234.5", "1", 2, "12345e-1"},
		{"999999999999999999", "0.99", 0, "989999999999999999e0"},
		{"999999999999999999", "999999999999999999", 0, ""}, // past int64
		{"9999999999999999999", "0.5", 8, ""},               // 19 digits
		{"-1", "0.5", 8, ""},
		{"123", "1e-30", 2, "0e-2"},                             // 10^k past the table
		{"999999999999999999", "9e-30", 2, "0e-2"},              // still below 2^64
		{"999999999999999999", "999999999999999999e-40", 2, ""}, // a product past 2^64 with k past the table
		{"5", "3", -1, "15e0"},                                  // negative places: nothing cut
	} {
		got, ok := floorProduct(d(c.a), d(c.b), c.places)
		if c.want == "" {
			if ok {
				t.Errorf("%s × %s to %d places: %de%d, want not ok", c.a, c.b, c.places, got.Coef, got.Exp)
			}
			continue
		}
		info := exchange.SymbolInfo{QuoteAssetPrecision: int(max(c.places, 0))}
		want := d(c.a).Mul(d(c.b))
		if c.places >= 0 {
			want = info.FloorQuote(want)
		}
		if !ok || got.Coef != want.CoefficientInt64() || got.Exp != want.Exponent() {
			t.Errorf("%s × %s to %d places: %de%d %v, decimal gives %se%d", c.a, c.b, c.places, got.Coef, got.Exp, ok, want.Coefficient(), want.Exponent())
		}
		if s := fmtFixed(got); s != c.want {
			t.Errorf("%s × %s to %d places: %s, want %s", c.a, c.b, c.places, s, c.want)
		}
	}
}

// TestFloorProductRandom compares floorProduct with decimal's floor of
// the product over generated operands of every size up to 18 digits.
func TestFloorProductRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 8))
	oks := 0
	for range 200_000 {
		a := decimal.New(r.Int64N(pow10i(r.IntN(19))), -int32(r.IntN(20)))
		b := decimal.New(r.Int64N(pow10i(r.IntN(19))), -int32(r.IntN(20)))
		places := int32(r.IntN(19))
		info := exchange.SymbolInfo{QuoteAssetPrecision: int(places)}
		want := info.FloorQuote(a.Mul(b))
		got, ok := floorProduct(a, b, places)
		if !ok {
			continue
		}
		oks++
		if !want.Coefficient().IsInt64() || got.Coef != want.CoefficientInt64() || got.Exp != want.Exponent() {
			t.Fatalf("%s × %s to %d places: %de%d, decimal gives %se%d", a, b, places, got.Coef, got.Exp, want.Coefficient(), want.Exponent())
		}
	}
	if oks < 100_000 {
		t.Fatalf("only %d of 200,000 products on integers", oks)
	}
}

// TestFloorCoefRandom compares floorCoef (a free balance held as a Fixed,
// any int64 coefficient, 19 digits included) with decimal's floor of the
// product, and with floorProduct where that takes the operands.
func TestFloorCoefRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 2))
	oks, nineteen := 0, 0
	for range 200_000 {
		ac := r.Int64N(pow10i(r.IntN(19)))
		if r.IntN(4) == 0 {
			ac = r.Int64() // up to 19 digits
		}
		ae := -int32(r.IntN(20))
		b := decimal.New(r.Int64N(pow10i(r.IntN(19))), -int32(r.IntN(20)))
		places := int32(r.IntN(19))
		info := exchange.SymbolInfo{QuoteAssetPrecision: int(places)}
		a := decimal.New(ac, ae)
		want := info.FloorQuote(a.Mul(b))
		got, ok := floorCoef(ac, ae, b, places)
		if p, pok := floorProduct(a, b, places); pok && (!ok || p != got) {
			t.Fatalf("%s × %s to %d places: floorProduct %de%d, floorCoef %de%d %v", a, b, places, p.Coef, p.Exp, got.Coef, got.Exp, ok)
		}
		if !ok {
			continue
		}
		oks++
		if a.NumDigits() == 19 {
			nineteen++
		}
		if !want.Coefficient().IsInt64() || got.Coef != want.CoefficientInt64() || got.Exp != want.Exponent() {
			t.Fatalf("%s × %s to %d places: %de%d, decimal gives %se%d", a, b, places, got.Coef, got.Exp, want.Coefficient(), want.Exponent())
		}
	}
	if oks < 100_000 || nineteen < 1_000 {
		t.Fatalf("%d of 200,000 products on integers, %d with 19 digits", oks, nineteen)
	}
}

func pow10i(n int) int64 { return int64(exchange.Pow10(n)) + 1 }

func fmtFixed(f exchange.Fixed) string {
	return decimal.NewFromInt(f.Coef).String() + "e" + decimal.NewFromInt(int64(f.Exp)).String()
}

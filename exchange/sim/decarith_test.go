package sim

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"
)

// mulDec, addDec and subDec give decimal.Decimal's results exactly:
// coefficient, exponent and text, on narrow operands and on operands or
// results that do not fit 64 bits.
func TestDecArithMatchesDecimal(t *testing.T) {
	t.Parallel()
	vals := []string{"0", "1", "-1", "0.01", "19000", "19000.50", "0.00000001", "123456789012345678", "-123456789012345678",
		"9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e-30", "5e20", "0.1000", "3.14159265358979323846"}
	for _, as := range vals {
		for _, bs := range vals {
			a, b := decimal.RequireFromString(as), decimal.RequireFromString(bs)
			for _, c := range []struct {
				op        string
				got, want decimal.Decimal
			}{
				{"*", mulDec(a, b), a.Mul(b)},
				{"+", addDec(a, b), a.Add(b)},
				{"-", subDec(a, b), a.Sub(b)},
			} {
				if c.got.String() != c.want.String() || c.got.Exponent() != c.want.Exponent() ||
					c.got.Coefficient().Cmp(c.want.Coefficient()) != 0 {
					t.Errorf("%s %s %s = %s (exp %d), decimal gives %s (exp %d)", as, c.op, bs, c.got, c.got.Exponent(), c.want, c.want.Exponent())
				}
				if !c.want.IsZero() && !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s %s %s: %#v, decimal gives %#v", as, c.op, bs, c.got, c.want)
				}
			}
		}
	}
}

// A fill's arithmetic on narrow values allocates only the result's big.Int
// and its one word (decimal.Decimal's takes more when the exponents differ,
// and five words).
func TestDecArithAllocations(t *testing.T) {
	a, b := decimal.RequireFromString("19000.5"), decimal.RequireFromString("0.013")
	var sink decimal.Decimal
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"mul", func() { sink = mulDec(a, b) }},
		{"add", func() { sink = addDec(a, b) }},
		{"sub", func() { sink = subDec(a, b) }},
	} {
		if n := testing.AllocsPerRun(100, c.f); n != 2 {
			t.Errorf("%s: %v allocations, want 2", c.name, n)
		}
	}
	_ = sink
}

// floorQuotient gives decimal's n.Div(d).Truncate(scale) exactly (text and
// exponent), on narrow values and wide ones, including a quotient that
// decimal rounds up across the truncation (0.37037099999999999 / 3 is
// 0.12345699999999999666…, rounded at 16 places to 0.1234570000000000,
// truncated to 0.123457), and floorQuotientPositive agrees with it.
func TestFloorQuotientMatchesDecimal(t *testing.T) {
	t.Parallel()
	vals := []string{"1", "-1", "3", "0.5", "0.05", "0.049731", "0.37037099999999999", "7", "19000.5", "0.00000001",
		"123456789012345678", "-123456789012345678", "9223372036854775807", "-9223372036854775807", "99999999999999999999",
		"1e-30", "5e20", "0.1000", "0.4995004995", "2.5e-17", "0.000123"}
	check := func(ns, ds string, scale int32) {
		n, d := decimal.RequireFromString(ns), decimal.RequireFromString(ds)
		if d.IsZero() {
			return
		}
		want := n.Div(d).Truncate(scale)
		got := floorQuotient(n, d, scale)
		if got.String() != want.String() || got.Exponent() != want.Exponent() {
			t.Errorf("%s / %s to %d: %s (exp %d), decimal gives %s (exp %d)", ns, ds, scale, got, got.Exponent(), want, want.Exponent())
		}
		if got := floorQuotientOf(amountOf(n), d, scale); got.String() != want.String() || got.Exponent() != want.Exponent() {
			t.Errorf("amount %s / %s to %d: %s (exp %d), decimal gives %s (exp %d)", ns, ds, scale, got, got.Exponent(), want, want.Exponent())
		}
		if p := floorQuotientPositive(n, d, scale); p != want.IsPositive() {
			t.Errorf("%s / %s to %d: positive %v, decimal gives %s", ns, ds, scale, p, want)
		}
	}
	for _, ns := range vals {
		for _, ds := range vals {
			for _, scale := range []int32{0, 2, 6, 8, 16, 20, -1} {
				check(ns, ds, scale)
			}
		}
	}
	if got := floorQuotient(decimal.RequireFromString("0.37037099999999999"), decimal.NewFromInt(3), 6); got.String() != "0.123457" {
		t.Errorf("rounded across the truncation: %s, want 0.123457", got)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		n := decimal.New(r.Int64N(1e18)-r.Int64N(1e10), -r.Int32N(19))
		d := decimal.New(r.Int64N(1e12)+1, -r.Int32N(13))
		check(n.String(), d.String(), r.Int32N(18))
	}
}

// A quote-sized buy's quantity on narrow values allocates only the
// result's big.Int and its word (decimal's Div and Truncate take about
// eight allocations), and the test whether any is left none.
func TestFloorQuotientAllocations(t *testing.T) {
	n, d := decimal.RequireFromString("0.5"), decimal.RequireFromString("0.049731")
	if a := testing.AllocsPerRun(100, func() { _ = floorQuotient(n, d, 6) }); a != 2 { // the result's big.Int and word
		t.Errorf("floorQuotient: %v allocations, want 2", a)
	}
	if a := testing.AllocsPerRun(100, func() { _ = floorQuotientPositive(n, d, 6) }); a != 0 {
		t.Errorf("floorQuotientPositive: %v allocations, want 0", a)
	}
}

// FuzzFloorQuotient checks floorQuotient against decimal's
// n.Div(d).Truncate(scale) on any coefficients and exponents.
func FuzzFloorQuotient(f *testing.F) {
	f.Add(int64(37037099999999999), int32(-17), int64(3), int32(0), int32(6))
	f.Add(int64(5), int32(-1), int64(49731), int32(-6), int32(6))
	f.Add(int64(-9223372036854775807), int32(-3), int64(7), int32(2), int32(0))
	f.Fuzz(func(t *testing.T, nc int64, ne int32, dc int64, de int32, scale int32) {
		if dc == 0 || ne < -40 || ne > 40 || de < -40 || de > 40 || scale < -20 || scale > 40 {
			return
		}
		n, d := decimal.New(nc, ne), decimal.New(dc, de)
		want := n.Div(d).Truncate(scale)
		got := floorQuotient(n, d, scale)
		if got.String() != want.String() || got.Exponent() != want.Exponent() {
			t.Fatalf("%s / %s to %d: %s (exp %d), decimal gives %s (exp %d)", n, d, scale, got, got.Exponent(), want, want.Exponent())
		}
		if p := floorQuotientPositive(n, d, scale); p != want.IsPositive() {
			t.Fatalf("%s / %s to %d: positive %v, decimal gives %s", n, d, scale, p, want)
		}
	})
}

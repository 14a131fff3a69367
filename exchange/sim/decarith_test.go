package sim

import (
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

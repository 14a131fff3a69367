package sim

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// sameDec reports whether got and want have the same coefficient and
// exponent.
func sameDec(got, want decimal.Decimal) bool {
	return got.Exponent() == want.Exponent() && got.Coefficient().Cmp(want.Coefficient()) == 0
}

// A num's split is narrowOf's, however it was made, and its amount is
// amountOf's; mulNum and floorQuotientNum give decimal's product and
// FloorQty quotient exactly (coefficient and exponent), narrow or not.
func TestNumMatchesDecimal(t *testing.T) {
	t.Parallel()
	vals := []string{"0", "1", "-1", "0.01", "19000", "19000.50", "0.00000001", "123456789012345678", "-123456789012345678",
		"999999999999999999", "1000000000000000000", "-1000000000000000000", "9223372036854775807", "-9223372036854775807",
		"99999999999999999999", "1e-30", "5e20", "0.1000", "3.14159265358979323846", "0.000123"}
	check := func(what string, n num, want decimal.Decimal) {
		t.Helper()
		c, e, ok := narrowOf(want)
		if !sameDec(n.d, want) || n.ok != ok || (ok && (n.c != c || n.e != e)) {
			t.Errorf("%s: %v (%d, %d, %v), want %v (%d, %d, %v)", what, n.d, n.c, n.e, n.ok, want, c, e, ok)
		}
		if got, w := n.amount(), amountOf(want); got.wide != w.wide || (w.wide && !sameDec(got.d, w.d)) || (!w.wide && got != w) {
			t.Errorf("%s: amount %+v, amountOf gives %+v", what, n.amount(), amountOf(want))
		}
	}
	for _, as := range vals {
		a := decimal.RequireFromString(as)
		check("numOf "+as, numOf(a), a)
		if f, ok := exchange.FixedOf(a); ok {
			check("numFixed "+as, numFixed(f), f.Decimal())
		}
		if c, e, ok := narrowOf(a); ok {
			check("numNarrow "+as, numNarrow(c, e), exchange.NewDecimal(c, e))
		}
		am := amountOf(a)
		check("numOfAmount "+as, numOfAmount(am), am.dec())
		for _, bs := range vals {
			b := decimal.RequireFromString(bs)
			check(as+" * "+bs, mulNum(numOf(a), numOf(b)), a.Mul(b))
			if b.IsZero() {
				continue
			}
			for _, scale := range []int32{0, 6, 8, 20} {
				check(as+" / "+bs, floorQuotientNum(numOf(a), numOf(b), scale), a.Div(b).Truncate(scale))
			}
		}
	}
	// Wide amounts (round keeps a result wide) keep decimal's form.
	w := amount{wide: true, d: decimal.RequireFromString("12345678901234567890.5")}
	check("numOfAmount wide", numOfAmount(w), w.d)
}

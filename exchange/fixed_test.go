package exchange

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

func TestFixedValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		f    Fixed
		text string
		fl   float64
	}{
		{NewFixed(52345, -6), "0.052345", 0.052345},
		{NewFixed(-120, -2), "-1.2", -1.2},
		{NewFixed(7, 3), "7000", 7000},
		{NewFixed(42, 0), "42", 42},
		{NewFixed(0, -8), "0", 0},
		{NewFixed(1<<53+1, -2), "90071992547409.93", 90071992547409.93},
		{NewFixed(123, -30), "0.000000000000000000000000000123", 1.23e-28},
	} {
		if got := c.f.String(); got != c.text {
			t.Errorf("%+v: String %q, want %q", c.f, got, c.text)
		}
		if got := c.f.Float64(); got != c.fl {
			t.Errorf("%+v: Float64 %v, want %v", c.f, got, c.fl)
		}
		if got := c.f.Decimal(); got.String() != c.text || got.Exponent() != c.f.Exp && c.f.Coef != 0 {
			t.Errorf("%+v: Decimal %s exp %d", c.f, got, got.Exponent())
		}
	}
}

// TestFixedAgreesWithDecimal checks Float64, Cmp and CmpDecimal against the
// decimal package's answers over generated values of many scales.
func TestFixedAgreesWithDecimal(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(16, 2))
	var fs []Fixed
	for range 400 {
		c := rng.Int64N(1<<62) >> rng.IntN(62)
		if rng.IntN(4) == 0 {
			c = -c
		}
		fs = append(fs, NewFixed(c, int32(rng.IntN(40)-30)))
	}
	fs = append(fs, NewFixed(math.MaxInt64, -4), NewFixed(math.MinInt64+1, -4), NewFixed(5, -2), NewFixed(50, -3))
	for _, f := range fs {
		d := f.Decimal()
		if got, want := f.Float64(), d.InexactFloat64(); got != want {
			t.Fatalf("%+v: Float64 %v, decimal %v", f, got, want)
		}
		if f.String() != d.String() {
			t.Fatalf("%+v: String %s, decimal %s", f, f.String(), d)
		}
		if back, ok := FixedOf(d); ok != (d.NumDigits() <= 18) || ok && back != f {
			t.Fatalf("%+v: FixedOf %+v %v", f, back, ok)
		}
		for _, g := range fs[:60] {
			if got, want := f.Cmp(g), d.Cmp(g.Decimal()); got != want {
				t.Fatalf("%+v Cmp %+v = %d, decimal %d", f, g, got, want)
			}
			if got, want := f.CmpDecimal(g.Decimal()), d.Cmp(g.Decimal()); got != want {
				t.Fatalf("%+v CmpDecimal %+v = %d, decimal %d", f, g, got, want)
			}
		}
	}
	if _, ok := FixedOf(decimal.RequireFromString("1234567890123456789.5")); ok {
		t.Fatal("a 20-digit coefficient fits a Fixed")
	}
}

func TestFixedCompareAllocatesNothing(t *testing.T) {
	a, b := NewFixed(52345, -6), decimal.RequireFromString("0.0523")
	if n := testing.AllocsPerRun(100, func() {
		_ = a.CmpDecimal(b) + a.Cmp(NewFixed(5, -1))
		_ = a.Float64()
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

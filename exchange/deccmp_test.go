package exchange

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// randomDecimal draws decimals around the sizes the exchange sees, with
// some beyond 18 digits to exercise the fallback.
func randomDecimal(r *rand.Rand) decimal.Decimal {
	var coef int64
	switch r.IntN(6) {
	case 0:
		coef = 0
	case 1:
		coef = r.Int64N(10)
	case 2:
		coef = r.Int64N(1_000_000)
	case 3:
		coef = r.Int64()
	default:
		coef = r.Int64N(1_000_000_000_000)
	}
	if r.IntN(4) == 0 {
		coef = -coef
	}
	d := decimal.New(coef, int32(r.IntN(41)-20))
	if r.IntN(10) == 0 {
		d = d.Mul(decimal.New(r.Int64(), 0)) // beyond 18 digits
	}
	return d
}

func TestCmpDecMatchesCmp(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		a, b, c := randomDecimal(r), randomDecimal(r), randomDecimal(r)
		if i%7 == 0 {
			b = a.Add(decimal.New(int64(r.IntN(3)-1), int32(r.IntN(10)-12))) // neighbours
		}
		if got, want := cmpDec(a, b), a.Cmp(b); got != want || CmpDecimal(a, b) != want || cmpSplit(splitOf(a), splitOf(b)) != want {
			t.Fatalf("cmpDec(%s, %s) = %d (CmpDecimal %d), want %d", a, b, got, CmpDecimal(a, b), want)
		}
		if got, want := CmpMul(a, b, c), a.Cmp(b.Mul(c)); got != want {
			t.Fatalf("CmpMul(%s, %s, %s) = %d, want %d", a, b, c, got, want)
		}
		if f, ok := FixedOf(c); ok {
			if got, want := CmpMulFixed(a, b, f), a.Cmp(b.Mul(c)); got != want {
				t.Fatalf("CmpMulFixed(%s, %s, %s) = %d, want %d", a, b, c, got, want)
			}
		}
	}
	tests := []struct {
		a, b string
		want int
	}{
		{"1.1", "1", 1}, {"0.9", "1", -1}, {"1.000", "1", 0}, {"-0.5", "0", -1}, {"0", "-0.00", 0},
		{"18446744073709551615", "1e-5", 1}, {"123456789012345678", "123456789012345678.0", 0},
		{"1e25", "99999999999999999", 1}, {"-1e25", "-99999999999999999", -1},
	}
	for _, tt := range tests {
		a, b := decimal.RequireFromString(tt.a), decimal.RequireFromString(tt.b)
		if got := cmpDec(a, b); got != tt.want {
			t.Errorf("cmpDec(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	// Coefficients of 19 digits, within an int64 and past it (below
	// 2^64, where the low word's sign gives them away), against each
	// other and their neighbours at other exponents.
	var edges []decimal.Decimal
	for _, c := range []string{"1000000000000000000", "9223372036854775807", "9223372036854775808", "9223372036854775809",
		"9999999999999999999", "18446744073709551615", "18446744073709551616", "4611686018427387904"} {
		v := decimal.RequireFromString(c)
		for _, e := range []int32{0, -1, -14, -15, 3} {
			d := decimal.NewFromBigInt(v.Coefficient(), e)
			edges = append(edges, d, d.Neg())
		}
	}
	for _, a := range edges {
		for _, b := range edges {
			if got, want := CmpDecimal(a, b), a.Cmp(b); got != want {
				t.Fatalf("CmpDecimal(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// Fixed.CmpWide is decimal's comparison with a coefficient of up to 128
// bits (WideOf's), both signs and zero, at exponents 36 apart.
func TestFixedCmpWideMatchesDecimal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 200_000 {
		f := NewFixed(r.Int64()>>uint(r.IntN(50)), int32(r.IntN(37)-24))
		if r.IntN(3) == 0 {
			f.Coef = -f.Coef
		}
		w := Wide{Neg: r.IntN(2) == 0, Hi: r.Uint64() >> uint(r.IntN(64)), Lo: r.Uint64(), Exp: int32(r.IntN(37) - 24)}
		switch i % 4 {
		case 0:
			w.Hi = 0
		case 1: // f itself, widened
			w = Wide{Neg: f.Coef < 0, Lo: uint64(max(f.Coef, -f.Coef)), Exp: f.Exp}
		case 2:
			w.Hi, w.Lo = 0, 0
		}
		d := NewDecimal128(w.Neg, w.Hi, w.Lo, w.Exp)
		if got, want := f.CmpWide(w), f.Decimal().Cmp(d); got != want {
			t.Fatalf("%s CmpWide(%s) = %d, want %d", f, d, got, want)
		}
		if back, ok := WideOf(d); !ok || NewDecimal128(back.Neg, back.Hi, back.Lo, back.Exp).Cmp(d) != 0 {
			t.Fatalf("WideOf(%s) = %+v, %v", d, back, ok)
		}
		fits := d.Coefficient().IsInt64()
		if g, ok := w.Fixed(); ok != fits || ok && (g.Decimal().Cmp(d) != 0 || g.Exp != w.Exp) {
			t.Fatalf("%+v.Fixed() = %s, %v; the coefficient fits an int64: %v", w, g, ok, fits)
		}
	}
	for _, w := range []Wide{{Neg: true, Lo: 1 << 63}, {Lo: 1 << 63}, {Lo: math.MaxInt64}, {Neg: true, Lo: math.MaxInt64}, {Hi: 1}} {
		d := NewDecimal128(w.Neg, w.Hi, w.Lo, w.Exp)
		g, ok := w.Fixed()
		if fits := d.Coefficient().IsInt64(); ok != fits || ok && g.Decimal().Cmp(d) != 0 {
			t.Errorf("%+v.Fixed() = %s, %v; want %v", w, g, ok, fits)
		}
	}
}

func TestCmpDecDoesNotAllocate(t *testing.T) {
	a, b, c := decimal.RequireFromString("19000.5"), decimal.RequireFromString("20000"), decimal.RequireFromString("1.1")
	f := NewFixed(11, -1)
	// An equity of 19 digits at 14 decimals against a floor at 15.
	eq, floor := decimal.New(2043817017532710000, -14), decimal.New(-1021908508766355000, -15)
	if n := testing.AllocsPerRun(100, func() {
		cmpDec(a, b)
		CmpMul(a, b, c)
		CmpDecimal(a, b)
		CmpMulFixed(a, b, f)
		CmpDecimal(eq, floor)
	}); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}

// truncate gives decimal's Truncate, value and exponent, on random
// decimals and places (negative ones included), allocating only the
// result (its big.Int and its word) where decimal's division takes three.
func TestTruncateMatchesDecimal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200000; i++ {
		d := randomDecimal(r)
		places := int32(r.IntN(30) - 4)
		got, want := truncate(d, places), d.Truncate(places)
		if !got.Equal(want) || got.Exponent() != want.Exponent() || got.String() != want.String() {
			t.Fatalf("truncate(%s, %d) = %s (exp %d), want %s (exp %d)", d, places, got, got.Exponent(), want, want.Exponent())
		}
	}
	d := decimal.RequireFromString("0.97843921")
	ours, theirs := testing.AllocsPerRun(100, func() { truncate(d, 4) }), testing.AllocsPerRun(100, func() { d.Truncate(4) })
	if ours != 2 || theirs != 3 {
		t.Errorf("%v allocations, decimal's %v; want 2 and 3", ours, theirs)
	}
}

func TestPow10(t *testing.T) {
	want := uint64(1)
	for k := 0; k <= MaxPow10; k++ {
		if got := Pow10(k); got != want {
			t.Fatalf("Pow10(%d) = %d, want %d", k, got, want)
		}
		if k < MaxPow10 {
			want *= 10
		}
	}
	if hi, _ := bits.Mul64(Pow10(MaxPow10), 10); hi == 0 {
		t.Fatalf("10^%d fits a uint64: MaxPow10 is too small", MaxPow10+1)
	}
}

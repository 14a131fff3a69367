package exchange

import (
	"math"
	"math/big"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"
)

// sameDecimal reports how a differs from b, the decimal.New of the same
// coefficient and exponent, in anything a caller can see: value, text,
// exponent, coefficient, and the results of arithmetic on both.
func sameDecimal(t *testing.T, a, b decimal.Decimal) {
	t.Helper()
	if a.String() != b.String() || a.Exponent() != b.Exponent() || a.Coefficient().Cmp(b.Coefficient()) != 0 ||
		a.CoefficientInt64() != b.CoefficientInt64() || a.Sign() != b.Sign() || !a.Equal(b) || a.NumDigits() != b.NumDigits() {
		t.Fatalf("NewDecimal %s (exp %d), decimal.New %s (exp %d)", a, a.Exponent(), b, b.Exponent())
	}
	other := decimal.RequireFromString("-3.14159")
	for _, op := range []func(decimal.Decimal) decimal.Decimal{
		func(d decimal.Decimal) decimal.Decimal { return d.Add(other) },
		func(d decimal.Decimal) decimal.Decimal { return d.Sub(other) },
		func(d decimal.Decimal) decimal.Decimal { return d.Mul(other) },
		func(d decimal.Decimal) decimal.Decimal { return d.Div(other) },
		func(d decimal.Decimal) decimal.Decimal { return d.Neg() },
		func(d decimal.Decimal) decimal.Decimal { return d.Abs() },
		func(d decimal.Decimal) decimal.Decimal { return d.Truncate(2) },
		func(d decimal.Decimal) decimal.Decimal { return d.Round(3) },
		func(d decimal.Decimal) decimal.Decimal { return d.Add(d) },
	} {
		x, y := op(a), op(b)
		if x.String() != y.String() || x.Exponent() != y.Exponent() {
			t.Fatalf("an operation on %s gave %s (exp %d) and %s (exp %d)", b, x, x.Exponent(), y, y.Exponent())
		}
	}
	if !reflect.DeepEqual(a, b) { // the same big.Int value behind the pointer
		t.Fatalf("NewDecimal %#v, decimal.New %#v", a, b)
	}
	for k, z := range decimalZeros {
		if z.Sign() != 0 || z.Exponent() != -int32(k) || z.Coefficient().Bits() != nil {
			t.Fatalf("the shared zero of exponent %d became %s (exp %d)", -k, z, z.Exponent())
		}
	}
	if a.StringFixed(10) != b.StringFixed(10) || a.InexactFloat64() != b.InexactFloat64() {
		t.Fatalf("%s formats differently", b)
	}
	// Arithmetic leaves the operands as they were.
	if a.String() != b.String() {
		t.Fatalf("an operation changed %s into %s", b, a)
	}
}

func TestNewDecimalIsDecimalNew(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		coef int64
		exp  int32
	}{
		{0, 0}, {0, -8}, {0, -36}, {0, -37}, {0, 5}, {1, 0}, {-1, 0}, {52345, -6}, {-120, -2}, {7, 3}, {150000, -5},
		{math.MaxInt64, -18}, {math.MinInt64, -18}, {math.MinInt64 + 1, 4}, {123, -30}, {1 << 53, -9},
	} {
		sameDecimal(t, NewDecimal(c.coef, c.exp), decimal.New(c.coef, c.exp))
	}
}

func FuzzNewDecimal(f *testing.F) {
	f.Add(int64(52345), int32(-6))
	f.Add(int64(-1), int32(3))
	f.Add(int64(math.MinInt64), int32(-18))
	f.Fuzz(func(t *testing.T, coef int64, exp int32) {
		exp %= 40 // decimal's text of huge exponents is slow, not different
		sameDecimal(t, NewDecimal(coef, exp), decimal.New(coef, exp))
	})
}

func TestNewDecimalAllocations(t *testing.T) {
	var sink decimal.Decimal
	for _, c := range []struct {
		name string
		f    func()
		want float64
	}{
		{"a zero", func() { sink = NewDecimal(0, -6) }, 0},
		{"a zero of exponent -36", func() { sink = NewDecimal(0, -36) }, 0},
		{"a zero of exponent -37", func() { sink = NewDecimal(0, -37) }, 1}, // decimal.New's big.Int, without words
		{"a value", func() { sink = NewDecimal(-52345, -6) }, 2},            // decimal.New's big.Int and its word
		{"decimal.New", func() { sink = decimal.New(-52345, -6) }, 2},
		{"NewDecimal128 within int64", func() { sink = NewDecimal128(true, 0, 4, -30) }, 2},
	} {
		if n := testing.AllocsPerRun(100, c.f); n != c.want {
			t.Errorf("%s: %v allocations, want %v", c.name, n, c.want)
		}
	}
	_ = sink
}

// wideOf is the big.Int NewDecimal128's arguments stand for.
func wideOf(neg bool, hi, lo uint64) *big.Int {
	b := new(big.Int).SetUint64(hi)
	b.Lsh(b, 64).Or(b, new(big.Int).SetUint64(lo))
	if neg {
		b.Neg(b)
	}
	return b
}

// wideCase is NewDecimal128's arguments.
type wideCase struct {
	neg    bool
	hi, lo uint64
	exp    int32
}

// wideCases are magnitudes of one and two words, at their edges.
func wideCases() []wideCase {
	return []wideCase{
		{false, 0, 0, -4}, {true, 0, 0, 2}, {false, 0, 12345, -3}, {true, 0, 12345, -3},
		{false, 0, math.MaxInt64, -18}, {true, 0, math.MaxInt64 + 1, -18}, {false, 0, math.MaxUint64, -20},
		{false, 1, 0, -30}, {true, 1, 5, -30}, {false, math.MaxUint64, math.MaxUint64, 0}, {true, 12, 34, 7},
	}
}

func TestNewDecimal128IsNewFromBigInt(t *testing.T) {
	t.Parallel()
	for _, c := range wideCases() {
		sameDecimal(t, NewDecimal128(c.neg, c.hi, c.lo, c.exp), decimal.NewFromBigInt(wideOf(c.neg, c.hi, c.lo), c.exp))
	}
}

// WideOf gives back NewDecimal128's arguments (a negative zero has no
// sign), Wide.Decimal the decimal again, and WideOf refuses a coefficient
// past 128 bits.
func TestWideOf(t *testing.T) {
	t.Parallel()
	for _, c := range wideCases() {
		d := NewDecimal128(c.neg, c.hi, c.lo, c.exp)
		w, ok := WideOf(d)
		if wantNeg := c.neg && c.hi|c.lo != 0; !ok || w.Neg != wantNeg || w.Hi != c.hi || w.Lo != c.lo || w.Exp != c.exp {
			t.Errorf("WideOf(NewDecimal128(%v, %d, %d, %d)) = %+v, %v", c.neg, c.hi, c.lo, c.exp, w, ok)
		}
		sameDecimal(t, w.Decimal(), d)
	}
	past := new(big.Int).Lsh(big.NewInt(1), 128) // 2^128: 129 bits
	for _, d := range []decimal.Decimal{decimal.NewFromBigInt(past, -2), decimal.NewFromBigInt(past.Neg(past), 3)} {
		if _, ok := WideOf(d); ok {
			t.Errorf("WideOf(%s) fits 128 bits", d)
		}
	}
}

func FuzzNewDecimal128(f *testing.F) {
	f.Add(false, uint64(1), uint64(2), int32(-30))
	f.Add(true, uint64(0), uint64(math.MaxUint64), int32(-6))
	f.Fuzz(func(t *testing.T, neg bool, hi, lo uint64, exp int32) {
		exp %= 40
		sameDecimal(t, NewDecimal128(neg, hi, lo, exp), decimal.NewFromBigInt(wideOf(neg, hi, lo), exp))
	})
}

// Wide.Trimmed drops the coefficient's trailing zeros, across both words
// and for negatives and zero; Fixed.CoefAt rescales exactly or refuses.
func TestWideTrimmedAndCoefAt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"10452514488800850000e-18", "1045251448880085e-14"},
		{"-1200e-2", "-12e0"},
		{"7e-3", "7e-3"},
		{"0e-9", "0e-9"},
		{"340282366920938463463374607431768211450e-5", "34028236692093846346337460743176821145e-4"}, // both words
		{"100000000000000000000000000000000000000e-40", "1e-2"},
	} {
		in, want := d(c.in), d(c.want)
		w, ok := WideOf(in)
		if !ok {
			t.Fatalf("WideOf(%s) does not fit", c.in)
		}
		got := w.Trimmed()
		if g := got.Decimal(); g.Cmp(want) != 0 || got.Exp != want.Exponent() || g.Coefficient().Cmp(want.Coefficient()) != 0 {
			t.Errorf("%s trimmed is %se%d, want %s", c.in, g.Coefficient(), got.Exp, c.want)
		}
	}
	for _, c := range []struct {
		f    Fixed
		exp  int32
		want int64
		ok   bool
	}{
		{NewFixed(12345, -4), -8, 123450000, true},
		{NewFixed(-12345, -4), -6, -1234500, true},
		{NewFixed(123450000, -8), -4, 12345, true},
		{NewFixed(-123450000, -8), -5, -123450, true},
		{NewFixed(123450001, -8), -4, 0, false}, // not a whole number of 10^-4
		{NewFixed(123450010, -8), -7, 12345001, true},
		{NewFixed(922337203685477580, 0), -1, 9223372036854775800, true},
		{NewFixed(922337203685477581, 0), -1, 0, false}, // past int64
		{NewFixed(1, 0), -20, 0, false},
		{NewFixed(0, 0), -30, 0, true},
		{NewFixed(5, -30), 0, 0, false},
	} {
		got, ok := c.f.CoefAt(c.exp)
		if got != c.want || ok != c.ok {
			t.Errorf("%v at 10^%d: %d %v, want %d %v", c.f, c.exp, got, ok, c.want, c.ok)
		}
	}
}

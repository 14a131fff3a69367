package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/exchange"
)

func TestAmountExamples(t *testing.T) {
	d := decimal.RequireFromString
	a := amountOf(d("19000")).mul(amountOf(d("0.01")))
	assert.Equal(t, amount{coef: 19000, exp: -2}, a)
	assert.Equal(t, "190", a.String())

	free := amountOf(d("1000000000")).sub(a)
	assert.Equal(t, "999999810", free.String())
	assert.Equal(t, "1000000000", free.add(a).String())
	assert.Equal(t, -1, a.cmp(free))
	assert.Equal(t, 0, amountOf(d("1.50")).cmp(amountOf(d("1.5"))))

	// A 20-digit coefficient with trailing zeros is narrowed.
	assert.Equal(t, amount{coef: 1, exp: 12}, amountOf(d("100000000000000000000e-8")))
	// One that has no trailing zeros stays wide, and still adds exactly.
	w := amountOf(d("12345678901234567890.123"))
	assert.True(t, w.wide)
	assert.Equal(t, "12345678901234567891.123", w.add(amountOf(d("1"))).String())
	// A sum that overflows 64 bits is done wide and is exact.
	big := amount{coef: math.MaxInt64 - 1}
	assert.Equal(t, "18446744073709551612", big.add(big).String())
	assert.Equal(t, "-9223372036854775806", big.neg().String())
	// Aligning exponents far apart falls back rather than overflowing.
	far := amount{coef: 5, exp: 30}.add(amount{coef: 1, exp: -30})
	assert.Equal(t, "5000000000000000000000000000000.000000000000000000000000000001", far.String())
	assert.Equal(t, 1, amount{coef: 5, exp: 30}.cmp(amount{coef: 1, exp: -30}))
	assert.Equal(t, "0.13", amountOf(d("0.125")).round(2).String())
	assert.Equal(t, "-0.13", amountOf(d("-0.125")).round(2).String())
	assert.Equal(t, "0.12", amountOf(d("0.1249999")).round(2).String())
	assert.Equal(t, amount{coef: 300, exp: -2}, amountOf(d("3")).round(2))
	assert.True(t, amount{}.isZero())
	assert.True(t, amount{coef: -3, exp: 4}.isNegative())
}

// TestAmountMatchesDecimal checks add, sub, mul and cmp against
// decimal.Decimal over random operands, many near the 64-bit edge.
func TestAmountMatchesDecimal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	coef := func() int64 {
		switch r.IntN(4) {
		case 0:
			return r.Int64N(2000) - 1000
		case 1:
			return math.MaxInt64 - r.Int64N(1000)
		case 2:
			return -(math.MaxInt64 - r.Int64N(1000))
		}
		return r.Int64() >> r.IntN(63)
	}
	val := func() decimal.Decimal { return decimal.New(coef(), int32(r.IntN(41)-20)) }
	for i := 0; i < 20000; i++ {
		x, y := val(), val()
		a, b := amountOf(x), amountOf(y)
		require.True(t, a.dec().Equal(x), "%s", x)
		require.True(t, a.add(b).dec().Equal(x.Add(y)), "%s + %s", x, y)
		require.True(t, a.sub(b).dec().Equal(x.Sub(y)), "%s - %s", x, y)
		require.True(t, a.mul(b).dec().Equal(x.Mul(y)), "%s * %s", x, y)
		require.Equal(t, x.Cmp(y), a.cmp(b), "%s cmp %s", x, y)
		require.Equal(t, x.Sign(), a.sign())
		places := int32(r.IntN(41) - 20)
		rd := a.round(places).dec()
		require.True(t, rd.Equal(x.Round(places)), "%s round %d = %s", x, places, rd)
		require.Equal(t, x.Round(places).Exponent(), rd.Exponent(), "%s round %d", x, places)
	}
}

func BenchmarkAmountLock(b *testing.B) {
	price, qty := amountOf(decimal.RequireFromString("19000.12")), amountOf(decimal.RequireFromString("0.01"))
	free := amountOf(decimal.NewFromInt(1_000_000_000))
	var locked amount
	b.ReportAllocs()
	for b.Loop() {
		l := price.mul(qty)
		if free.cmp(l) < 0 {
			b.Fatal("short")
		}
		free, locked = free.sub(l), locked.add(l)
		free, locked = free.add(l), locked.sub(l)
	}
	assert.Equal(b, "1000000000", free.String())
}

// alignRef is align as it was first written (recursive, scaleUp dividing
// to check overflow): the one it replaced must give the same coefficients
// and exponent, since a balance's exponent shows in its decimal.
func alignRef(x, y amount) (xc, yc int64, exp int32, ok bool) {
	scale := func(c int64, n int32) (int64, bool) {
		if n < 0 || n >= int32(len(pow10i)) {
			return 0, c == 0 && n >= 0
		}
		p := pow10i[n]
		if exchange.Abs64(c) > math.MaxInt64/uint64(p) {
			return 0, false
		}
		return c * p, true
	}
	if x.exp == y.exp {
		return x.coef, y.coef, x.exp, true
	}
	if x.exp < y.exp {
		yc, xc, exp, ok = alignRef(y, x)
		return xc, yc, exp, ok
	}
	if c, ok := scale(x.coef, x.exp-y.exp); ok {
		return c, y.coef, y.exp, true
	}
	for y.exp < x.exp && y.coef%10 == 0 {
		y.coef /= 10
		y.exp++
	}
	if c, ok := scale(x.coef, x.exp-y.exp); ok {
		return c, y.coef, y.exp, true
	}
	return 0, 0, 0, false
}

func TestAlignMatchesReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 5))
	coef := func() int64 {
		switch r.IntN(5) {
		case 0:
			return r.Int64N(2000) - 1000
		case 1:
			return (math.MaxInt64 - r.Int64N(1000)) / int64(pow10i[r.IntN(19)])
		case 2:
			return -(math.MaxInt64 - r.Int64N(1000)) / int64(pow10i[r.IntN(19)])
		case 3:
			return (r.Int64N(1e6) - 5e5) * int64(pow10i[r.IntN(13)])
		}
		return r.Int64() >> r.IntN(63)
	}
	for i := 0; i < 200000; i++ {
		x, y := amount{coef: coef(), exp: int32(r.IntN(45) - 22)}, amount{coef: coef(), exp: int32(r.IntN(45) - 22)}
		xc, yc, e, ok := align(x, y)
		rxc, ryc, re, rok := alignRef(x, y)
		if xc != rxc || yc != ryc || e != re || ok != rok {
			t.Fatalf("align(%+v, %+v) = %d, %d, %d, %v; reference %d, %d, %d, %v", x, y, xc, yc, e, ok, rxc, ryc, re, rok)
		}
	}
}

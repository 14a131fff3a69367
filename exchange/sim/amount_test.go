package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

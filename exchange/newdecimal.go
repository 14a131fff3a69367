package exchange

import (
	"math"
	"math/big"

	"github.com/shopspring/decimal"
)

// NewDecimal is decimal.New(coef, exp): the same value, coefficient and
// exponent. A zero whose exponent is between -(len(decimalZeros)-1) and 0
// is a copy of one built once, and costs no allocation (smacross floors a
// dust position to zero tens of thousands of times a million-bar run);
// any other value is decimal.New's.
func NewDecimal(coef int64, exp int32) decimal.Decimal {
	if coef == 0 && exp <= 0 && -exp < int32(len(decimalZeros)) {
		return decimalZeros[-exp]
	}
	return decimal.New(coef, exp)
}

// decimalZeros[k] is decimal.New(0, -k), built once and only read. Its
// copies share its big.Int as any copy of a decimal.Decimal value shares
// one: the decimal package never modifies a value's big.Int in place
// (every operation builds a new one).
var decimalZeros = func() (z [37]decimal.Decimal) {
	for k := range z {
		z[k] = decimal.New(0, -int32(k))
	}
	return z
}()

// NewDecimal128 is the decimal of the 128-bit magnitude hi×2^64+lo,
// negated when neg, times 10^exp: NewDecimal where it fits an int64 (a
// position's realised profit nearly always does), else
// decimal.NewFromBigInt.
func NewDecimal128(neg bool, hi, lo uint64, exp int32) decimal.Decimal {
	if hi == 0 && lo <= math.MaxInt64 {
		c := int64(lo)
		if neg {
			c = -c
		}
		return NewDecimal(c, exp)
	}
	var b big.Int
	b.SetUint64(hi)
	b.Lsh(&b, 64)
	b.Or(&b, new(big.Int).SetUint64(lo))
	if neg {
		b.Neg(&b)
	}
	return decimal.NewFromBigInt(&b, exp)
}

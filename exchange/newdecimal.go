package exchange

import (
	"math"
	"math/big"
	"math/bits"
	"unsafe"

	"github.com/shopspring/decimal"
)

// NewDecimal is decimal.New(coef, exp), the same value with the same
// coefficient and exponent, built in one allocation where decimal.New
// takes two (a big.Int, then its one-word coefficient): the big.Int and
// its word share one object. Money crosses from the fixed-point values of
// the engine into public decimals several times an order (a fill's
// amounts, a position's fields, a balance, a floored quantity), and these
// two allocations each were most of a backtest's garbage.
//
// A decimal.Decimal has no constructor that adopts a big.Int without
// copying it, so the result is assembled through decimalLayout, a copy of
// the decimal package's private layout; TestDecimalLayout fails if a new
// version of the package changes it, and the array sizes below stop the
// build if its size changes. The decimal package never modifies a value's
// big.Int in place (every operation builds a new one), so the word is
// never written after this function returns; for the same reason every
// zero shares one big.Int, zeroInt, and costs no allocation.
func NewDecimal(coef int64, exp int32) decimal.Decimal {
	if coef == 0 {
		return fromLayout(decimalLayout{value: &zeroInt, exp: exp})
	}
	if bits.UintSize == 32 {
		return decimal.New(coef, exp) // a coefficient may need two words
	}
	u := uint64(coef)
	if coef < 0 {
		u = -u
	}
	c := new(oneWordInt)
	c.w[0] = big.Word(u)
	c.i.SetBits(c.w[:]) // adopts the array: no copy
	if coef < 0 {
		c.i.Neg(&c.i)
	}
	return fromLayout(decimalLayout{value: &c.i, exp: exp})
}

// NewDecimal128 is the decimal of the 128-bit magnitude hi×2^64+lo, negated
// when neg, times 10^exp: decimal.NewFromBigInt of that big.Int, built in
// one allocation where NewFromBigInt takes two beside the big.Int it
// copies (a position's realised profit can outgrow int64 coefficients).
func NewDecimal128(neg bool, hi, lo uint64, exp int32) decimal.Decimal {
	switch {
	case hi == 0 && lo <= math.MaxInt64:
		c := int64(lo)
		if neg {
			c = -c
		}
		return NewDecimal(c, exp)
	case bits.UintSize == 32:
		var b big.Int
		b.SetUint64(hi)
		b.Lsh(&b, 64)
		b.Or(&b, new(big.Int).SetUint64(lo))
		if neg {
			b.Neg(&b)
		}
		return decimal.NewFromBigInt(&b, exp)
	}
	c := new(twoWordInt)
	c.w = [2]big.Word{big.Word(lo), big.Word(hi)}
	c.i.SetBits(c.w[:]) // adopts the array, trimmed of a zero high word
	if neg {
		c.i.Neg(&c.i)
	}
	return fromLayout(decimalLayout{value: &c.i, exp: exp})
}

// twoWordInt is a big.Int and the two words of its magnitude, allocated
// together.
type twoWordInt struct {
	i big.Int
	w [2]big.Word
}

// zeroInt is the coefficient of the zeros NewDecimal builds: big.NewInt(0)'s
// value (no words), never written (see NewDecimal), so it is a constant the
// language cannot declare as one. The decimal package keeps its own the
// same way.
var zeroInt big.Int

func fromLayout(l decimalLayout) decimal.Decimal { return *(*decimal.Decimal)(unsafe.Pointer(&l)) }

// oneWordInt is a big.Int and the one word of its magnitude, allocated
// together.
type oneWordInt struct {
	i big.Int
	w [1]big.Word
}

// decimalLayout mirrors decimal.Decimal's fields (value *big.Int, exp
// int32), in order.
type decimalLayout struct {
	value *big.Int
	exp   int32
}

// Both differences are array lengths: a negative one does not compile.
var (
	_ [unsafe.Sizeof(decimal.Decimal{}) - unsafe.Sizeof(decimalLayout{})]struct{}
	_ [unsafe.Sizeof(decimalLayout{}) - unsafe.Sizeof(decimal.Decimal{})]struct{}
)

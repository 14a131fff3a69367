package exchange

import (
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
// never written after this function returns.
func NewDecimal(coef int64, exp int32) decimal.Decimal {
	if coef == 0 || bits.UintSize == 32 {
		return decimal.New(coef, exp) // zero has no word; 32-bit words may need two
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
	l := decimalLayout{value: &c.i, exp: exp}
	return *(*decimal.Decimal)(unsafe.Pointer(&l))
}

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

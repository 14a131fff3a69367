package sim

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"
)

// A fill computes a trade's quote amount and adds to the order's executed
// and quote sums and takes from what is left: values that leave the engine
// as decimal.Decimal (trades, order events). decimal.Decimal's arithmetic
// allocates twice a result (the big.Int and its words); mulDec, addDec and
// subDec give the very same decimal (coefficient and exponent, so the same
// text and the same value to any comparison) with one allocation when the
// operands' coefficients and the result fit 64 bits, and fall back to
// decimal.Decimal otherwise.

// narrowOf splits d into an int64 coefficient and its exponent, exactly as
// d holds them (no trailing zeros stripped), when the coefficient has at
// most 18 digits.
func narrowOf(d decimal.Decimal) (int64, int32, bool) {
	if d.NumDigits() > 18 {
		return 0, 0, false
	}
	return d.CoefficientInt64(), d.Exponent(), true
}

// mulDec is a.Mul(b).
func mulDec(a, b decimal.Decimal) decimal.Decimal {
	ac, ae, ok1 := narrowOf(a)
	bc, be, ok2 := narrowOf(b)
	if ok1 && ok2 {
		e := int64(ae) + int64(be)
		hi, lo := bits.Mul64(absU(ac), absU(bc))
		if hi == 0 && lo <= math.MaxInt64 && e >= math.MinInt32 && e <= math.MaxInt32 {
			c := int64(lo)
			if (ac < 0) != (bc < 0) {
				c = -c
			}
			return decimal.New(c, int32(e))
		}
	}
	return a.Mul(b)
}

// addDec is a.Add(b).
func addDec(a, b decimal.Decimal) decimal.Decimal {
	return sumDec(a, b, false)
}

// subDec is a.Sub(b).
func subDec(a, b decimal.Decimal) decimal.Decimal {
	return sumDec(a, b, true)
}

// sumDec is a + b, or a − b when neg is set, with decimal.Decimal's
// exponent: the smaller of the two.
func sumDec(a, b decimal.Decimal, neg bool) decimal.Decimal {
	ac, ae, ok1 := narrowOf(a)
	bc, be, ok2 := narrowOf(b)
	if ok1 && ok2 {
		e := min(ae, be)
		x, okx := scaleUp(ac, ae-e)
		y, oky := scaleUp(bc, be-e)
		if neg {
			y = -y // |y| < 2^63: never MinInt64
		}
		if s := x + y; okx && oky && (s > x) == (y > 0) && s != math.MinInt64 {
			return decimal.New(s, e)
		}
	}
	if neg {
		return a.Sub(b)
	}
	return a.Add(b)
}

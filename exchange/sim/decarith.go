package sim

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// A fill computes a trade's quote amount and adds to the order's executed
// and quote sums and takes from what is left: values that leave the engine
// as decimal.Decimal (trades, order events). decimal.Decimal's arithmetic
// allocates twice a result (the big.Int and its words); mulDec, addDec and
// subDec give the very same decimal (coefficient and exponent, so the same
// text and the same value to any comparison) with one allocation when the
// operands' coefficients and the result fit 64 bits, and fall back to
// decimal.Decimal otherwise.

// narrowOf is exchange.FixedOf's split of d, as a coefficient and an
// exponent: exactly as d holds them (no trailing zeros stripped), when the
// coefficient has at most 18 digits.
func narrowOf(d decimal.Decimal) (int64, int32, bool) {
	f, ok := exchange.FixedOf(d)
	return f.Coef, f.Exp, ok
}

// mulDec is a.Mul(b).
func mulDec(a, b decimal.Decimal) decimal.Decimal {
	ac, ae, ok1 := narrowOf(a)
	bc, be, ok2 := narrowOf(b)
	if ok1 && ok2 {
		e := int64(ae) + int64(be)
		hi, lo := bits.Mul64(exchange.Abs64(ac), exchange.Abs64(bc))
		if hi == 0 && lo <= math.MaxInt64 && e >= math.MinInt32 && e <= math.MaxInt32 {
			c := int64(lo)
			if (ac < 0) != (bc < 0) {
				c = -c
			}
			return exchange.NewDecimal(c, int32(e))
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
		if s, e, ok := sumNarrow(ac, ae, bc, be, neg); ok {
			return exchange.NewDecimal(s, e)
		}
	}
	if neg {
		return a.Sub(b)
	}
	return a.Add(b)
}

// A quote-sized market buy fills FloorQty(left.Div(price)) and is done
// when FloorQty(left.Div(price)) is no longer positive: decimal.Decimal's
// division rounds to DivisionPrecision places (half away from zero) and
// FloorQty then truncates to the quantity precision, each on a big.Int.
// divFloor gives that very result on int64 coefficients, in 128 bits.

// divFloor is n.DivRound(d, prec).Truncate(scale) for narrow operands,
// as a coefficient and exponent; false when an operand or an
// intermediate does not fit (the caller then uses decimal.Decimal).
func divFloor(nc int64, ne int32, dc int64, de int32, prec, scale int32) (int64, int32, bool) {
	if dc == 0 || nc == math.MinInt64 || dc == math.MinInt64 {
		return 0, 0, false
	}
	// quoRem: n × 10^e over d when e ≥ 0, else n over d × 10^−e.
	e := int64(ne) - int64(de) + int64(prec)
	nu, du := exchange.Abs64(nc), exchange.Abs64(dc)
	var hi, lo uint64
	if e >= 0 {
		var ok bool
		if hi, lo, ok = mulPow10(nu, e); !ok {
			return 0, 0, false
		}
	} else {
		h, l, ok := mulPow10(du, -e)
		if !ok || h != 0 {
			return 0, 0, false
		}
		du, lo = l, nu
	}
	if hi >= du { // the quotient would pass 64 bits
		return 0, 0, false
	}
	q, r := bits.Div64(hi, lo, du)
	// Round half away from zero: 2r ≥ d (2r may need 65 bits).
	if r >= du-r {
		q++
		if q == 0 {
			return 0, 0, false
		}
	}
	exp := -prec
	if scale < prec { // Truncate: towards zero
		switch k := int64(prec) - int64(scale); {
		case k < int64(len(pow10i)):
			q /= uint64(pow10i[k])
		case k == int64(len(pow10i)):
			q /= 10 * uint64(pow10i[k-1]) // 10^19 still fits a uint64
		default:
			q = 0 // q < 2^64 < 10^20
		}
		exp = -scale
	}
	if q > math.MaxInt64 {
		return 0, 0, false
	}
	c := int64(q)
	if (nc < 0) != (dc < 0) {
		c = -c
	}
	return c, exp, true
}

// mulPow10 is u × 10^e in 128 bits, false when it does not fit.
func mulPow10(u uint64, e int64) (hi, lo uint64, ok bool) {
	lo = u
	for e > 0 {
		k := min(e, int64(len(pow10i)-1))
		p := uint64(pow10i[k])
		h1, l1 := bits.Mul64(lo, p)
		h2, l2 := bits.Mul64(hi, p)
		if h2 != 0 {
			return 0, 0, false
		}
		var carry uint64
		if hi, carry = bits.Add64(h1, l2, 0); carry != 0 {
			return 0, 0, false
		}
		lo = l1
		e -= k
	}
	return hi, lo, true
}

// floorQuotient is info's FloorQty(n.Div(d)) (FloorQty truncates to the
// quantity precision).
func floorQuotient(n, d decimal.Decimal, qtyScale int32) decimal.Decimal {
	nc, ne, ok1 := narrowOf(n)
	dc, de, ok2 := narrowOf(d)
	if ok1 && ok2 {
		if c, e, ok := divFloor(nc, ne, dc, de, int32(decimal.DivisionPrecision), qtyScale); ok {
			return exchange.NewDecimal(c, e)
		}
	}
	return n.Div(d).Truncate(qtyScale)
}

// floorQuotientOf is floorQuotient of an amount (a balance), which is
// not made a decimal when it is narrow (the quotient depends on the
// values alone, not on how their exponents are written).
func floorQuotientOf(n amount, d decimal.Decimal, qtyScale int32) decimal.Decimal {
	if dc, de, ok := narrowOf(d); ok && !n.wide {
		if c, e, ok := divFloor(n.coef, n.exp, dc, de, int32(decimal.DivisionPrecision), qtyScale); ok {
			return exchange.NewDecimal(c, e)
		}
	}
	return floorQuotient(n.dec(), d, qtyScale)
}

// floorQuotientPositive is floorQuotient(n, d, qtyScale).IsPositive(),
// without building the decimal.
func floorQuotientPositive(n, d decimal.Decimal, qtyScale int32) bool {
	nc, ne, ok1 := narrowOf(n)
	dc, de, ok2 := narrowOf(d)
	if ok1 && ok2 {
		if c, _, ok := divFloor(nc, ne, dc, de, int32(decimal.DivisionPrecision), qtyScale); ok {
			return c > 0
		}
	}
	return n.Div(d).Truncate(qtyScale).IsPositive()
}

// sumNarrow is sumDec on coefficients and exponents, false when the
// result does not fit 64 bits.
func sumNarrow(ac int64, ae int32, bc int64, be int32, neg bool) (int64, int32, bool) {
	e := min(ae, be)
	x, okx := scaleUp(ac, ae-e)
	y, oky := scaleUp(bc, be-e)
	if neg {
		y = -y // |y| < 2^63: never MinInt64
	}
	if s := x + y; okx && oky && (s > x) == (y > 0) && s != math.MinInt64 {
		return s, e, true
	}
	return 0, 0, false
}

package smacross

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// quoteAmount is a buy's amount, info.FloorQuote(free.Mul(fraction)),
// and whether it is short: free not positive, or the amount below min or
// not positive (free below min, or free × fraction below it, are short
// then too: fraction is in (0, 1] and flooring only lowers). The product
// and its floor are computed on integers when the coefficients allow:
// the amount is then f (fixed true), its decimal left to be built only
// for the order; else it is d, computed with decimals.
func (s *Strategy) quoteAmount(info *exchange.SymbolInfo, free free, min decimal.Decimal) (f exchange.Fixed, fixed bool, d decimal.Decimal, short bool) {
	if free.sign() <= 0 {
		return exchange.Fixed{}, false, decimal.Decimal{}, true
	}
	var ok bool
	if free.fixed {
		f, ok = floorCoef(free.f.Coef, free.f.Exp, s.p.Fraction, info.QuoteScale())
	} else {
		f, ok = floorProduct(free.d, s.p.Fraction, info.QuoteScale())
	}
	if ok {
		if !f.IsPositive() || f.CmpDecimal(min) < 0 {
			return exchange.Fixed{}, false, decimal.Decimal{}, true
		}
		return f, true, decimal.Decimal{}, false
	}
	fd := free.dec()
	if exchange.CmpDecimal(fd, min) < 0 || exchange.CmpMul(min, fd, s.p.Fraction) > 0 {
		return exchange.Fixed{}, false, decimal.Decimal{}, true
	}
	amount := info.FloorQuote(fd.Mul(s.p.Fraction))
	return exchange.Fixed{}, false, amount, exchange.CmpDecimal(amount, min) < 0 || !amount.IsPositive()
}

// floorProduct is truncate(a × b, places) as exchange.SymbolInfo's
// FloorQuote and FloorQty truncate, for non-negative a and b, as a
// Fixed with the same coefficient and exponent as that decimal, when the
// coefficients fit 18 digits and the result an int64 (ok false
// otherwise): the product itself when it has no more than places
// decimals, else its coefficient divided (toward zero) by the power of
// ten that leaves places.
func floorProduct(a, b decimal.Decimal, places int32) (exchange.Fixed, bool) {
	if a.NumDigits() > 18 {
		return exchange.Fixed{}, false
	}
	return floorCoef(a.CoefficientInt64(), a.Exponent(), b, places)
}

// floorCoef is floorProduct with a given as its coefficient ac and
// exponent ae (a free balance held as an exchange.Fixed): any int64
// coefficient, the product's 128 bits checked as for 18 digits.
func floorCoef(ac int64, ae int32, b decimal.Decimal, places int32) (exchange.Fixed, bool) {
	if b.NumDigits() > 18 {
		return exchange.Fixed{}, false
	}
	bc := b.CoefficientInt64()
	if ac < 0 || bc < 0 {
		return exchange.Fixed{}, false
	}
	hi, lo := bits.Mul64(uint64(ac), uint64(bc))
	e := int64(ae) + int64(b.Exponent())
	if e < math.MinInt32 || e > math.MaxInt32 {
		return exchange.Fixed{}, false
	}
	if places < 0 || -int64(places) <= e {
		// Nothing to cut: the product as decimal's Mul gives it.
		if hi != 0 || lo > math.MaxInt64 {
			return exchange.Fixed{}, false
		}
		return exchange.Fixed{Coef: int64(lo), Exp: int32(e)}, true
	}
	k := -int64(places) - e // digits cut, > 0
	var q uint64
	switch {
	case k <= exchange.MaxPow10:
		if hi >= exchange.Pow10(int(k)) {
			return exchange.Fixed{}, false // the quotient does not fit 64 bits
		}
		q, _ = bits.Div64(hi, lo, exchange.Pow10(int(k)))
	case hi != 0:
		return exchange.Fixed{}, false // rare: left to decimal
	default:
		q = 0 // below 2^64 < 10^k
	}
	if q > math.MaxInt64 {
		return exchange.Fixed{}, false
	}
	return exchange.Fixed{Coef: int64(q), Exp: -places}, true
}

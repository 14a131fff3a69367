package sim

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// amount is an exact decimal, coef × 10^exp, kept in an int64 while it fits
// and as a decimal.Decimal (wide set) when it does not (round also keeps a
// result wide to give it the exponent decimal.Round gives). Balances and locks
// change on every order the engine books, fills or cancels; a
// decimal.Decimal allocates a big.Int for every sum, an amount does not.
// Results never lose digits: an operation whose result would not fit 64
// bits is done in decimal.Decimal and the result narrowed again if it can be.
type amount struct {
	coef int64
	exp  int32
	wide bool
	d    decimal.Decimal // the value when wide
}

// pow10i holds 10^0 … 10^18, the powers that fit an int64.
var pow10i = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// amountOf converts d, narrowing it to 64 bits when its coefficient fits.
func amountOf(d decimal.Decimal) amount {
	if d.NumDigits() <= 18 {
		return amount{coef: d.CoefficientInt64(), exp: d.Exponent()}
	}
	// Trailing zeros may hide a narrow value (10^20 × 10^-8 is 10^12).
	c, e := d.Coefficient(), d.Exponent()
	ten, q, r := big.NewInt(10), new(big.Int), new(big.Int)
	for c.Sign() != 0 && e < math.MaxInt32 {
		if q.QuoRem(c, ten, r); r.Sign() != 0 {
			break
		}
		c, q = q, c
		e++
	}
	if c.IsInt64() && c.Int64() != math.MinInt64 {
		return amount{coef: c.Int64(), exp: e}
	}
	return amount{wide: true, d: d}
}

// dec is a as a decimal.Decimal.
func (a amount) dec() decimal.Decimal {
	if a.wide {
		return a.d
	}
	return exchange.NewDecimal(a.coef, a.exp)
}

func (a amount) String() string { return a.dec().String() }

// sign is -1, 0 or +1.
func (a amount) sign() int {
	switch {
	case a.wide:
		return a.d.Sign()
	case a.coef > 0:
		return 1
	case a.coef < 0:
		return -1
	}
	return 0
}

func (a amount) isZero() bool     { return a.sign() == 0 }
func (a amount) isPositive() bool { return a.sign() > 0 }
func (a amount) isNegative() bool { return a.sign() < 0 }

// scaleUp multiplies c by 10^n, reporting false when that overflows
// (checked on the 128-bit product: a division per call cost more than the
// rest of an addition).
func scaleUp(c int64, n int32) (int64, bool) {
	if n < 0 || n >= int32(len(pow10i)) {
		return 0, c == 0 && n >= 0
	}
	p := pow10i[n]
	if hi, lo := bits.Mul64(exchange.Abs64(c), uint64(p)); hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	return c * p, true
}

// align brings two narrow amounts to one exponent (the smaller, or the
// larger of one side's trailing zeros allow), reporting false when a
// coefficient would overflow.
func align(x, y amount) (xc, yc int64, exp int32, ok bool) {
	if x.exp == y.exp {
		return x.coef, y.coef, x.exp, true
	}
	swap := x.exp < y.exp
	if swap {
		x, y = y, x
	}
	// x.exp > y.exp: scale x up, or failing that strip y's trailing zeros.
	c, ok := scaleUp(x.coef, x.exp-y.exp)
	if !ok {
		for y.exp < x.exp && y.coef%10 == 0 {
			y.coef /= 10
			y.exp++
		}
		if c, ok = scaleUp(x.coef, x.exp-y.exp); !ok {
			return 0, 0, 0, false
		}
	}
	if swap {
		return y.coef, c, y.exp, true
	}
	return c, y.coef, y.exp, true
}

// add is a + b.
func (a amount) add(b amount) amount {
	if !a.wide && !b.wide {
		if x, y, e, ok := align(a, b); ok {
			if s := x + y; (s > x) == (y > 0) && s != math.MinInt64 {
				return amount{coef: s, exp: e}
			}
		}
	}
	return amountOf(a.dec().Add(b.dec()))
}

// neg is -a.
func (a amount) neg() amount {
	if a.wide {
		return amount{wide: true, d: a.d.Neg()}
	}
	a.coef = -a.coef // coef is never MinInt64
	return a
}

// sub is a − b.
func (a amount) sub(b amount) amount { return a.add(b.neg()) }

// mul is a × b.
func (a amount) mul(b amount) amount {
	if !a.wide && !b.wide {
		e := int64(a.exp) + int64(b.exp)
		hi, lo := bits.Mul64(exchange.Abs64(a.coef), exchange.Abs64(b.coef))
		if hi == 0 && lo <= math.MaxInt64 && e >= math.MinInt32 && e <= math.MaxInt32 {
			c := int64(lo)
			if (a.coef < 0) != (b.coef < 0) {
				c = -c
			}
			return amount{coef: c, exp: int32(e)}
		}
	}
	return amountOf(a.dec().Mul(b.dec()))
}

// cmp is -1, 0 or +1 as a is less than, equal to or greater than b.
func (a amount) cmp(b amount) int {
	if !a.wide && !b.wide {
		if x, y, _, ok := align(a, b); ok {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	}
	return a.dec().Cmp(b.dec())
}

// round rounds a to places decimals, half away from zero, as
// decimal.Decimal.Round does (the result has exactly places decimals; when
// that does not fit 64 bits it is kept wide as decimal.Round made it).
func (a amount) round(places int32) amount {
	e := -int64(places)
	switch {
	case a.wide || e < math.MinInt32 || e > math.MaxInt32:
		return amount{wide: true, d: a.dec().Round(places)}
	case int64(a.exp) == e:
		return a
	case int64(a.exp) > e:
		if c, ok := scaleUp(a.coef, a.exp-int32(e)); ok {
			return amount{coef: c, exp: int32(e)}
		}
		return amount{wide: true, d: a.dec().Round(places)}
	}
	// Drop all but one of the extra digits (towards zero), then round on
	// that one.
	c := a.coef
	if exchange.Abs64(c) > math.MaxInt64-5 {
		return amount{wide: true, d: a.dec().Round(places)}
	}
	if k := e - int64(a.exp) - 1; k > 0 {
		if k >= int64(len(pow10i)) {
			c = 0
		} else {
			c /= pow10i[k]
		}
	}
	if c < 0 {
		c -= 5
	} else {
		c += 5
	}
	return amount{coef: c / 10, exp: int32(e)}
}

package exchange

import (
	"math/bits"

	"github.com/shopspring/decimal"
)

// The order rules compare prices, quantities and amounts on every order.
// decimal.Cmp allocates whenever the exponents differ (1.1 against 1, a
// price with two decimals against one with none), which made the rule
// check the most expensive step of placing an order in the simulator.
// cmpDec, CmpMul and the split forms give the same answers without
// allocating whenever the coefficients fit 64 bits, which covers every
// realistic value.

// decOne is 1; never modified.
var decOne = decimal.NewFromInt(1)

// MaxPow10 is the largest k for which 10^k fits a uint64 (Pow10).
const MaxPow10 = 19

// Pow10 is 10^k for k from 0 to MaxPow10: the powers the integer
// arithmetic of amounts scales by, here and in the packages that do that
// arithmetic beside decimals. It panics for any other k.
func Pow10(k int) uint64 { return pow10u[k] }

// Abs64 is c's magnitude as a uint64 (2^63 for math.MinInt64, which an
// int64 cannot hold negated): the integer arithmetic of amounts works on
// magnitudes and signs.
func Abs64(c int64) uint64 {
	if c < 0 {
		return uint64(-c) // -MinInt64 wraps to its magnitude 2^63
	}
	return uint64(c)
}

// pow10u holds 10^0 … 10^19, every power of ten below 2^64.
var pow10u = [MaxPow10 + 1]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// small is a decimal as sign, magnitude and exponent: -mag×10^exp or
// mag×10^exp.
type small struct {
	sign int // -1, 0 or 1
	mag  uint64
	exp  int64
}

// smallOf splits d when its coefficient has at most 18 digits (so it fits
// an int64 and NumDigits does not allocate).
func smallOf(d decimal.Decimal) (small, bool) {
	if d.NumDigits() > 18 {
		return small{}, false
	}
	c := d.CoefficientInt64()
	s := small{exp: int64(d.Exponent())}
	switch {
	case c > 0:
		s.sign, s.mag = 1, uint64(c)
	case c < 0:
		s.sign, s.mag = -1, uint64(-c)
	}
	return s, true
}

// cmpOf is smallOf for a comparison, which takes a coefficient of 19
// digits too: an account's equity at 14 decimals has 19 (the sample's
// 20,438 USDT), and the risk gate compares it with its peak and floors at
// every bar. NumDigits reads such a coefficient without allocating, and
// being below 10^19 < 2^64 its magnitude is its low word, which Int64
// hands out as an int64 of the same bits (negated for a negative one)
// whether or not it fits.
func cmpOf(d decimal.Decimal) (small, bool) {
	if d.NumDigits() > 19 {
		return small{}, false
	}
	s := small{sign: d.Sign(), mag: uint64(d.CoefficientInt64()), exp: int64(d.Exponent())}
	if s.sign < 0 {
		s.mag = -s.mag
	}
	return s, true
}

// cmpMag compares two non-zero magnitudes xm×10^xe and ym×10^ye: cmpWide
// with both in one word.
func cmpMag(xm uint64, xe int64, ym uint64, ye int64) int { return cmpWide(0, xm, xe, 0, ym, ye) }

func cmpSmall(x, y small) int {
	if r, ok := bySign(x.sign, y.sign); ok {
		return r
	}
	return x.sign * cmpMag(x.mag, x.exp, y.mag, y.exp)
}

// bySign compares two values of signs a and b (-1, 0, +1) where the signs
// decide: when they differ, or both are zero.
func bySign(a, b int) (int, bool) {
	switch {
	case a != b:
		if a > b {
			return 1, true
		}
		return -1, true
	case a == 0:
		return 0, true
	}
	return 0, false
}

// CmpDecimal compares a and b like a.Cmp(b), without allocating whenever
// both coefficients have at most 19 digits. Hot paths that compare prices of
// different scales (a kline's low against its high) use it.
func CmpDecimal(a, b decimal.Decimal) int {
	if a.Exponent() == b.Exponent() {
		return a.Cmp(b) // no rescaling, so no allocation
	}
	return cmpDec(a, b)
}

// cmpDec is a.Cmp(b), without allocating for coefficients of up to 19
// digits (cmpOf).
func cmpDec(a, b decimal.Decimal) int {
	x, okA := cmpOf(a)
	y, okB := cmpOf(b)
	if !okA || !okB {
		return a.Cmp(b)
	}
	return cmpSmall(x, y)
}

// split is a decimal with its small form, when it has one: a value the
// rule check compares several times is split once. A split of a Fixed
// (fixed set) has no decimal until dec builds it: where the small forms
// cannot decide, or a refusal quotes the value.
type split struct {
	d     decimal.Decimal
	s     small
	ok    bool
	fixed bool
	f     Fixed
}

func splitOf(d decimal.Decimal) split {
	s, ok := cmpOf(d) // a split is compared and multiplied, never added
	return split{d: d, s: s, ok: ok}
}

func splitFixed(f Fixed) split { return split{s: f.small(), ok: true, fixed: true, f: f} }

// positive reports whether the value is above zero.
func (a split) positive() bool {
	if a.ok {
		return a.s.sign > 0
	}
	return a.d.IsPositive()
}

// dec is the split's decimal.
func (a split) dec() decimal.Decimal {
	if a.fixed {
		return a.f.Decimal()
	}
	return a.d
}

// cmpSplit is a.dec().Cmp(b.dec()).
func cmpSplit(a, b split) int {
	if a.ok && b.ok {
		return cmpSmall(a.s, b.s)
	}
	return a.dec().Cmp(b.dec())
}

// product is b × c as a small, when both have one and the product fits.
func product(b, c split) (small, bool) {
	if !b.ok || !c.ok {
		return small{}, false
	}
	hi, lo := bits.Mul64(b.s.mag, c.s.mag)
	if hi != 0 {
		return small{}, false
	}
	return small{sign: b.s.sign * c.s.sign, mag: lo, exp: b.s.exp + c.s.exp}, true
}

// cmpToProduct is a.dec().Cmp(b.dec() × c.dec()) given p, ok :=
// product(b, c).
func cmpToProduct(a split, p small, ok bool, b, c split) int {
	if ok && a.ok {
		return cmpSmall(a.s, p)
	}
	return a.dec().Cmp(b.dec().Mul(c.dec()))
}

// CmpMul compares a with b × c like a.Cmp(b.Mul(c)), without allocating
// when the coefficients have up to 18 digits and b's times c's fits 64
// bits: an order's value against a minimum, say.
func CmpMul(a, b, c decimal.Decimal) int {
	sb, sc := splitOf(b), splitOf(c)
	p, ok := product(sb, sc)
	return cmpToProduct(splitOf(a), p, ok, sb, sc)
}

// CmpMulFixed is CmpMul with c a Fixed: a against b × c, without building
// c's decimal unless the product does not fit (a position's value at a
// bar's close against a minimum, say, at every bar of a strategy's fast
// path).
func CmpMulFixed(a, b decimal.Decimal, c Fixed) int {
	sb, sc := splitOf(b), splitFixed(c)
	p, ok := product(sb, sc)
	return cmpToProduct(splitOf(a), p, ok, sb, sc)
}

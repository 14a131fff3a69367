package exchange

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"

	"github.com/shopspring/decimal"
)

// Fixed is an exact decimal number as an int64 coefficient and a base-ten
// exponent: Coef × 10^Exp. It is a plain value (no pointer, no heap), so a
// bar of Fixed prices costs nothing to build or copy; a decimal.Decimal is
// built only when one is asked for (Decimal), where money is computed.
// Indicators take Float64, the float64 nearest the value.
type Fixed struct {
	Coef int64
	Exp  int32
}

// NewFixed is Coef × 10^exp.
func NewFixed(coef int64, exp int32) Fixed { return Fixed{Coef: coef, Exp: exp} }

// FixedOf returns d as a Fixed, and false when its coefficient does not fit
// 18 digits.
func FixedOf(d decimal.Decimal) (Fixed, bool) {
	if d.NumDigits() > 18 {
		return Fixed{}, false
	}
	return Fixed{Coef: d.CoefficientInt64(), Exp: d.Exponent()}, true
}

// Decimal is the value as a decimal: NewDecimal(Coef, Exp), the same
// coefficient and exponent, so its text and arithmetic are those of the
// decimal the bar was read as.
func (f Fixed) Decimal() decimal.Decimal { return NewDecimal(f.Coef, f.Exp) }

// fixedPow10 holds 10^0 … 10^22, every power of ten a float64 holds
// exactly.
var fixedPow10 = [23]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Float64 is the float64 nearest the value, the same as
// f.Decimal().InexactFloat64(), without building the decimal in the common
// case (a coefficient of at most 2^53 and an exponent of -22 to 0: one
// correctly rounded division of two exact floats).
func (f Fixed) Float64() float64 {
	if f.Coef == 0 {
		return 0
	}
	if f.Exp <= 0 && f.Exp >= -22 && f.Coef >= -1<<53 && f.Coef <= 1<<53 {
		return float64(f.Coef) / fixedPow10[-f.Exp]
	}
	return f.Decimal().InexactFloat64()
}

// String is the decimal's text (f.Decimal().String()).
func (f Fixed) String() string {
	if f.Exp == 0 {
		return strconv.FormatInt(f.Coef, 10)
	}
	return f.Decimal().String()
}

// IsPositive reports whether the value is above zero.
func (f Fixed) IsPositive() bool { return f.Coef > 0 }

// small is f as sign, magnitude and exponent.
func (f Fixed) small() small {
	s := small{exp: int64(f.Exp)}
	switch {
	case f.Coef > 0:
		s.sign, s.mag = 1, uint64(f.Coef)
	case f.Coef < 0:
		s.sign, s.mag = -1, uint64(-f.Coef) // -MinInt64 wraps to its magnitude 2^63
	}
	return s
}

// Cmp compares f with g: -1, 0 or +1 as f is below, equal to or above g.
// It never allocates.
func (f Fixed) Cmp(g Fixed) int {
	if f.Exp == g.Exp {
		switch {
		case f.Coef < g.Coef:
			return -1
		case f.Coef > g.Coef:
			return 1
		}
		return 0
	}
	return cmpSmall(f.small(), g.small())
}

// CmpDecimal compares f with d like f.Decimal().Cmp(d), without allocating
// whenever d's coefficient has at most 19 digits (every realistic price).
func (f Fixed) CmpDecimal(d decimal.Decimal) int {
	y, ok := cmpOf(d)
	if !ok {
		return f.Decimal().Cmp(d)
	}
	return cmpSmall(f.small(), y)
}

// Wide is a decimal whose coefficient fits 128 bits, as a sign and the
// high and low words of its magnitude, and an exponent: NewDecimal128's
// arguments. A limit's floor, the start of a day's equity less a loss
// limit, may need more than an int64; an average price of 16 decimals
// past 922 does.
type Wide struct {
	Neg    bool
	Hi, Lo uint64
	Exp    int32
}

// WideOf is d as a Wide (its coefficient and exponent), and false when the
// coefficient needs more than 128 bits. One of more than 18 digits is
// copied out of d (an allocation).
func WideOf(d decimal.Decimal) (Wide, bool) {
	if f, fits := FixedOf(d); fits {
		return Wide{Neg: f.Coef < 0, Lo: Abs64(f.Coef), Exp: f.Exp}, true
	}
	c := d.Coefficient()
	if c.BitLen() > 128 {
		return Wide{}, false
	}
	var w [16]byte
	c.FillBytes(w[:]) // the magnitude, big-endian
	return Wide{Neg: c.Sign() < 0, Hi: binary.BigEndian.Uint64(w[:8]), Lo: binary.BigEndian.Uint64(w[8:]), Exp: d.Exponent()}, true
}

// Decimal is w's decimal: NewDecimal128's, the same coefficient and
// exponent.
func (w Wide) Decimal() decimal.Decimal { return NewDecimal128(w.Neg, w.Hi, w.Lo, w.Exp) }

// Fixed is w as a Fixed, and false when its coefficient does not fit an
// int64 (FixedOf asks for 18 digits; an equity at 14 decimals has 19).
func (w Wide) Fixed() (Fixed, bool) {
	switch {
	case w.Hi != 0 || w.Lo > 1<<63 || w.Lo == 1<<63 && !w.Neg:
		return Fixed{}, false
	case w.Neg:
		return Fixed{Coef: -int64(w.Lo), Exp: w.Exp}, true // 2^63 negates to MinInt64
	}
	return Fixed{Coef: int64(w.Lo), Exp: w.Exp}, true
}

// Trimmed is w without its coefficient's trailing zeros: the same value
// at the largest exponent it has.
func (w Wide) Trimmed() Wide {
	for w.Hi|w.Lo != 0 {
		hi, r := w.Hi/10, w.Hi%10
		lo, r := bits.Div64(r, w.Lo, 10)
		if r != 0 {
			break
		}
		w.Hi, w.Lo, w.Exp = hi, lo, w.Exp+1
	}
	return w
}

// CoefAt is f's coefficient at exponent exp (f = c × 10^exp), and false
// when f is not a whole number of 10^exp or c does not fit an int64.
func (f Fixed) CoefAt(exp int32) (int64, bool) {
	k := int64(f.Exp) - int64(exp)
	if k > MaxPow10 || -k > MaxPow10 {
		return 0, f.Coef == 0
	}
	u := Abs64(f.Coef)
	if k >= 0 {
		hi, lo := bits.Mul64(u, Pow10(int(k)))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, false
		}
		u = lo
	} else {
		p := Pow10(int(-k))
		if u%p != 0 {
			return 0, false
		}
		u /= p
	}
	if f.Coef < 0 {
		return -int64(u), true
	}
	return int64(u), true
}

// CmpWide compares f with w exactly, as f.Decimal().Cmp of w's decimal
// does.
func (f Fixed) CmpWide(w Wide) int {
	x := f.small()
	ws := 0
	switch {
	case w.Hi|w.Lo == 0:
	case w.Neg:
		ws = -1
	default:
		ws = 1
	}
	if r, ok := bySign(x.sign, ws); ok {
		return r
	}
	return x.sign * cmpWide(0, x.mag, x.exp, w.Hi, w.Lo, int64(w.Exp))
}

// cmpWide compares the magnitudes xh:xl×10^xe and yh:yl×10^ye, each of
// 128 bits: the one at the larger exponent is scaled to the other's, and
// past 128 bits it is the larger (when not zero).
func cmpWide(xh, xl uint64, xe int64, yh, yl uint64, ye int64) int {
	if xe < ye {
		return -cmpWide(yh, yl, ye, xh, xl, xe)
	}
	for d := xe - ye; d > 0 && xh|xl != 0; {
		k := min(d, MaxPow10)
		p := Pow10(int(k))
		h1, l1 := bits.Mul64(xl, p)
		h2, l2 := bits.Mul64(xh, p)
		h, carry := bits.Add64(h1, l2, 0)
		if h2 != 0 || carry != 0 {
			return 1
		}
		xh, xl = h, l1
		d -= k
	}
	switch {
	case xh != yh:
		if xh > yh {
			return 1
		}
		return -1
	case xl != yl:
		if xl > yl {
			return 1
		}
		return -1
	}
	return 0
}

// Add returns f+g exactly as decimal's Add forms it (the coefficients
// aligned to the smaller exponent, then added), and false when the result
// does not fit an int64 coefficient.
func (f Fixed) Add(g Fixed) (Fixed, bool) {
	if f.Exp != g.Exp {
		if f.Exp < g.Exp {
			f, g = g, f
		}
		// f has the larger exponent: its coefficient at g's.
		c, ok := f.CoefAt(g.Exp)
		if !ok {
			return Fixed{}, false
		}
		f = Fixed{Coef: c, Exp: g.Exp}
	}
	s := f.Coef + g.Coef
	if (s > f.Coef) != (g.Coef > 0) {
		return Fixed{}, false // overflow
	}
	return Fixed{Coef: s, Exp: f.Exp}, true
}

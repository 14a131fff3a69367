package backtest

import (
	"cmp"
	"math"
	"math/bits"
	"strconv"

	"github.com/shopspring/decimal"
	"github.com/spotbot/spotbot/exchange"
)

// Every decimal.Decimal result allocates a big.Int, and a long run folds
// tens of thousands of fills into round trips and totals. decSum keeps
// such a running sum exact in an int64 coefficient while the terms allow,
// so adding to it allocates nothing; the values it hands out equal what
// the same decimal arithmetic gives (reports print values, never the
// coefficient and exponent a value happens to be stored as).

// decSum is an exact sum of decimals: c×10^exp while that fits an int64,
// else (once a term or the sum does not) the decimal d. The zero value is
// zero.
type decSum struct {
	c     int64
	exp   int32
	d     decimal.Decimal
	isBig bool
}

// smallOf is exchange.FixedOf's split of d, as a coefficient and an
// exponent, when the coefficient has at most 18 digits (so it fits an
// int64 and negating it cannot overflow).
func smallOf(d decimal.Decimal) (int64, int32, bool) {
	f, ok := exchange.FixedOf(d)
	return f.Coef, f.Exp, ok
}

// scale10 returns c×10^k for k ≥ 0, or false when that overflows an
// int64 (exchange.Fixed.CoefAt).
func scale10(c int64, k int32) (int64, bool) {
	if k < 0 {
		return 0, false
	}
	return exchange.NewFixed(c, k).CoefAt(0)
}

// addSmall adds c×10^e, or reports false and leaves s as it was when the
// sum does not fit.
func (s *decSum) addSmall(c int64, e int32) bool {
	switch {
	case c == 0:
		return true
	case s.c == 0:
		s.c, s.exp = c, e
		return true
	}
	a, b, exp := s.c, c, s.exp
	var ok bool
	if e < exp {
		a, ok = scale10(a, exp-e)
		exp = e
	} else {
		b, ok = scale10(b, e-exp)
	}
	if !ok {
		return false
	}
	r := a + b
	if (a > 0 && b > 0 && r < 0) || (a < 0 && b < 0 && r >= 0) {
		return false
	}
	s.c, s.exp = r, exp
	return true
}

// toBig moves the sum to its decimal form for good.
func (s *decSum) toBig() {
	if !s.isBig {
		s.d, s.isBig = s.Decimal(), true
	}
}

// term is a decimal with its coefficient and exponent when they fit an
// int64 (smallOf; else big): a fill's amount goes into several sums, and
// is looked at once. The zero value is zero.
type term struct {
	d   decimal.Decimal
	c   int64
	e   int32
	big bool
}

// termOf is d as a term.
func termOf(d decimal.Decimal) term {
	c, e, ok := smallOf(d)
	return term{d: d, c: c, e: e, big: !ok}
}

// zero reports whether the term is zero (a zero always fits).
func (t *term) zero() bool { return !t.big && t.c == 0 }

// Add adds d.
func (s *decSum) Add(d decimal.Decimal) {
	t := termOf(d)
	s.addTerm(&t, false)
}

// Sub subtracts d.
func (s *decSum) Sub(d decimal.Decimal) {
	t := termOf(d)
	s.addTerm(&t, true)
}

// addTerm adds t, or subtracts it when neg.
func (s *decSum) addTerm(t *term, neg bool) {
	if !s.isBig {
		c := t.c
		if neg {
			c = -c // at most 18 digits: no overflow
		}
		if !t.big && s.addSmall(c, t.e) {
			return
		}
		s.toBig()
	}
	if neg {
		s.d = s.d.Sub(t.d)
	} else {
		s.d = s.d.Add(t.d)
	}
}

// SubMul subtracts a×b.
func (s *decSum) SubMul(a, b decimal.Decimal) {
	ta, tb := termOf(a), termOf(b)
	s.addMul(&ta, &tb, true)
}

// addMul adds a×b, or subtracts it when neg.
func (s *decSum) addMul(a, b *term, neg bool) {
	if !s.isBig {
		if a.zero() || b.zero() {
			return
		}
		if !a.big && !b.big && s.addMulSmall(a.c, a.e, b.c, b.e, neg) {
			return
		}
		s.toBig()
	}
	if neg {
		s.d = s.d.Sub(a.d.Mul(b.d))
	} else {
		s.d = s.d.Add(a.d.Mul(b.d))
	}
}

// addMulSmall adds (ac×10^ae)×(bc×10^be), negated when neg, or reports
// false and leaves s as it was when the product or the sum does not fit.
func (s *decSum) addMulSmall(ac int64, ae int32, bc int64, be int32, neg bool) bool {
	hi, lo := bits.Mul64(exchange.Abs64(ac), exchange.Abs64(bc))
	if hi != 0 || lo > math.MaxInt64 {
		return false
	}
	p := int64(lo)
	if (ac < 0) != (bc < 0) != neg {
		p = -p
	}
	return s.addSmall(p, ae+be)
}

// addMulFixed adds q × p, a holding at a close: in int64s when they fit,
// else with decimal's Mul and Add (the same value either way).
func (s *decSum) addMulFixed(q *decSum, p exchange.Fixed) {
	if !s.isBig && !q.isBig && s.addMulSmall(q.c, q.exp, p.Coef, p.Exp, false) {
		return
	}
	s.toBig()
	s.d = s.d.Add(q.Decimal().Mul(p.Decimal()))
}

// AddSum adds t (negated when neg).
func (s *decSum) AddSum(t decSum, neg bool) {
	if !s.isBig && !t.isBig {
		c := t.c
		if neg {
			c = -c
		}
		// -MinInt64 overflows to itself: that one is left to the decimal.
		if c != math.MinInt64 && s.addSmall(c, t.exp) {
			return
		}
	}
	s.toBig()
	if neg {
		s.d = s.d.Sub(t.Decimal())
	} else {
		s.d = s.d.Add(t.Decimal())
	}
}

// Decimal is the sum as a decimal.
func (s *decSum) Decimal() decimal.Decimal {
	if s.isBig {
		return s.d
	}
	return decimal.New(s.c, s.exp)
}

// Float is Decimal().InexactFloat64().
func (s *decSum) Float() float64 {
	if !s.isBig && s.exp <= 0 && s.exp >= -22 {
		// Decimal.Float64's own exact case: a coefficient within ±2^53
		// and a power of ten that is exact as a float64.
		if s.c >= -1<<53 && s.c <= 1<<53 {
			return float64(s.c) / math.Pow10(int(-s.exp))
		}
		// Past 2^53 the coefficient's conversion would round before the
		// division does. strconv's parser rounds the exact value once, to
		// the nearest (ties to even) as Decimal.Float64's big.Rat does,
		// and builds nothing on the heap (a quote balance at 11 decimals
		// passes 2^53 at 90,072: the sample's USDT, at every fill).
		var buf [32]byte
		b := strconv.AppendInt(buf[:0], s.c, 10)
		b = append(b, 'e', '-')
		b = strconv.AppendInt(b, int64(-s.exp), 10)
		if f, err := strconv.ParseFloat(string(b), 64); err == nil {
			return f
		}
	}
	return s.Decimal().InexactFloat64()
}

// Sign is -1, 0 or +1.
func (s *decSum) Sign() int {
	switch {
	case s.isBig:
		return s.d.Sign()
	case s.c < 0:
		return -1
	case s.c > 0:
		return 1
	}
	return 0
}

// Cmp compares the sum with d.
func (s *decSum) Cmp(d decimal.Decimal) int {
	t := termOf(d)
	return s.cmpTerm(&t)
}

// cmpTerm compares the sum with t.
func (s *decSum) cmpTerm(t *term) int {
	if !s.isBig && !t.big {
		a, b := s.c, t.c
		var ok bool
		if t.e < s.exp {
			a, ok = scale10(a, s.exp-t.e)
		} else {
			b, ok = scale10(b, t.e-s.exp)
		}
		if ok {
			return cmp.Compare(a, b)
		}
	}
	return s.Decimal().Cmp(t.d)
}

// quo is a/b as Decimal.Div gives it: rounded half away from zero to
// decimal.DivisionPrecision places.
func quo(a, b *decSum) decimal.Decimal {
	prec := int32(decimal.DivisionPrecision)
	if neg, hi, lo, ok := quoWide(a, b, prec); ok {
		return exchange.NewDecimal128(neg, hi, lo, -prec)
	}
	return a.Decimal().DivRound(b.Decimal(), prec)
}

// quoFloat is quo(a, b).InexactFloat64().
func quoFloat(a, b *decSum) float64 {
	prec := int32(decimal.DivisionPrecision)
	// The conversion Decimal.Float64 makes of a coefficient within ±2^53
	// and a power of ten that is exact as a float64.
	if q, ok := quoSmall(a, b, prec); ok && prec >= 0 && prec <= 22 && q >= -1<<53 && q <= 1<<53 {
		return float64(q) / math.Pow10(int(prec))
	}
	return quo(a, b).InexactFloat64()
}

// quoSmall is the coefficient of quo(a, b) at exponent -prec when it fits
// an int64 (quoWide's).
func quoSmall(a, b *decSum, prec int32) (int64, bool) {
	neg, hi, lo, ok := quoWide(a, b, prec)
	if !ok || hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(lo), true
	}
	return int64(lo), true
}

// quoWide is the coefficient of quo(a, b) at exponent -prec, as a sign
// and the high and low words of its magnitude, when the division fits:
// the scaled dividend in 128 bits, the divisor in 64. An average price
// carries 16 decimals, so past a price of about 922 it needs the second
// word (BTCUSDT's does).
func quoWide(a, b *decSum, prec int32) (neg bool, qhi, qlo uint64, ok bool) {
	if a.isBig || b.isBig || b.c == 0 {
		return false, 0, 0, false
	}
	// a/b×10^prec = a.c×10^e / b.c, with e as Decimal.QuoRem takes it.
	e := int64(a.exp) - int64(b.exp) + int64(prec)
	num, den := exchange.Abs64(a.c), exchange.Abs64(b.c)
	var hi, lo uint64
	switch {
	case e > exchange.MaxPow10 || -e > exchange.MaxPow10:
		return false, 0, 0, false
	case e >= 0:
		hi, lo = bits.Mul64(num, exchange.Pow10(int(e)))
	default:
		h, l := bits.Mul64(den, exchange.Pow10(int(-e)))
		if h != 0 {
			return false, 0, 0, false
		}
		lo, den = num, l
	}
	qhi = hi / den
	qlo, r := bits.Div64(hi%den, lo, den)
	if r >= den-r { // 2r ≥ den: round half away from zero, as DivRound
		var c uint64
		qlo, c = bits.Add64(qlo, 1, 0)
		qhi += c // no carry out: a remainder needs den ≥ 2, so the quotient is below 2^127
	}
	neg = (a.c < 0) != (b.c < 0) && qhi|qlo != 0
	return neg, qhi, qlo, true
}

package strategy

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// A backtest applies every fill to a position, and decimal's arithmetic
// builds a big.Int (two allocations) for each intermediate result: the
// quantity after the fill, the average after it, then both again after a
// fee taken from the base asset. applyNarrow does the same arithmetic on
// int64 coefficients with 128-bit intermediates, the average and the
// realised profit held in 128 bits, and builds a decimal only for each
// field that ends up changed, with the coefficient and exponent
// decimal's own operations give. Whenever a value or a step does not fit,
// it reports false before touching the position, and apply takes the
// decimal path.

// wide is a signed 128-bit integer in sign-magnitude form.
type wide struct {
	neg    bool
	hi, lo uint64
}

func wideOf(c int64) wide {
	if c < 0 {
		return wide{neg: true, lo: uint64(-c)} // -MinInt64 wraps to its magnitude 2^63
	}
	return wide{lo: uint64(c)}
}

func (w wide) isZero() bool { return w.hi == 0 && w.lo == 0 }

// mulWide is a × b, exact.
func mulWide(a, b int64) wide {
	x, y := wideOf(a), wideOf(b)
	hi, lo := bits.Mul64(x.lo, y.lo)
	w := wide{hi: hi, lo: lo}
	w.neg = x.neg != y.neg && !w.isZero()
	return w
}

// scale multiplies w by 10^k, k ≥ 0, and reports false on overflow (a
// non-zero value overflows within a few steps: 10^39 passes 2^128).
func (w wide) scale(k int64) (wide, bool) {
	if w.isZero() {
		return w, true
	}
	for k > 0 {
		n := min(k, 19)
		p := exchange.Pow10(int(n))
		h1, l1 := bits.Mul64(w.lo, p)
		h2, l2 := bits.Mul64(w.hi, p)
		hi, carry := bits.Add64(l2, h1, 0)
		if h2 != 0 || carry != 0 {
			return wide{}, false
		}
		w.hi, w.lo = hi, l1
		k -= n
	}
	return w, true
}

// cmpMag compares the magnitudes of w and v.
func (w wide) cmpMag(v wide) int {
	switch {
	case w.hi != v.hi:
		if w.hi < v.hi {
			return -1
		}
		return 1
	case w.lo != v.lo:
		if w.lo < v.lo {
			return -1
		}
		return 1
	}
	return 0
}

// add is w + v, and false on overflow.
func (w wide) add(v wide) (wide, bool) {
	if w.neg == v.neg {
		lo, c := bits.Add64(w.lo, v.lo, 0)
		hi, c2 := bits.Add64(w.hi, v.hi, c)
		return wide{neg: w.neg, hi: hi, lo: lo}, c2 == 0
	}
	if w.cmpMag(v) < 0 {
		w, v = v, w
	}
	// |w| ≥ |v|: the result has w's sign.
	lo, b := bits.Sub64(w.lo, v.lo, 0)
	hi, _ := bits.Sub64(w.hi, v.hi, b)
	r := wide{neg: w.neg, hi: hi, lo: lo}
	if r.isZero() {
		r.neg = false
	}
	return r, true
}

// mul is w × c, and false when the product does not fit 128 bits.
func (w wide) mul(c int64) (wide, bool) {
	y := wideOf(c) // y.hi is 0
	h1, l1 := bits.Mul64(w.lo, y.lo)
	h2, l2 := bits.Mul64(w.hi, y.lo)
	hi, carry := bits.Add64(h1, l2, 0)
	if h2 != 0 || carry != 0 {
		return wide{}, false
	}
	r := wide{neg: w.neg != y.neg, hi: hi, lo: l1}
	if r.isZero() {
		r.neg = false
	}
	return r, true
}

// divRound is w / d rounded half away from zero, as decimal's DivRound
// rounds its quotient, and false when d is zero.
func (w wide) divRound(d int64) (wide, bool) {
	if d == 0 {
		return wide{}, false
	}
	dm := wideOf(d) // dm.hi is 0
	q := wide{hi: w.hi / dm.lo}
	var r uint64
	q.lo, r = bits.Div64(w.hi%dm.lo, w.lo, dm.lo)
	// Twice the remainder against the divisor, in 65 bits. Rounding up
	// cannot carry past 128 bits: with a divisor of 1 there is no
	// remainder, and with a larger one the quotient is below 2^127.
	if r >= dm.lo-r {
		var c uint64
		q.lo, c = bits.Add64(q.lo, 1, 0)
		q.hi += c
	}
	q.neg = w.neg != dm.neg && !q.isZero()
	return q, true
}

// negated is −w.
func (w wide) negated() wide {
	if !w.isZero() {
		w.neg = !w.neg
	}
	return w
}

// narrow is a decimal's coefficient and exponent as decimal holds them.
type narrow = exchange.Fixed

// narrowOf splits d when its coefficient has at most 18 digits.
func narrowOf(d decimal.Decimal) (narrow, bool) { return exchange.FixedOf(d) }

// sumNarrow is x + y (x − y with neg) at the smaller exponent, as
// decimal's Add and Sub form it, and false when it does not fit.
func sumNarrow(x, y narrow, neg bool) (narrow, bool) {
	if neg {
		if y.Coef == math.MinInt64 {
			return narrow{}, false
		}
		y.Coef = -y.Coef
	}
	return x.Add(y)
}

// avgWide is x.Mul(y).Add(v.Mul(w)).Div(e) as posMath.avg gives it (a
// coefficient at exponent −DivisionPrecision), and false when a step does
// not fit 128 bits. An average carries 16 decimals, so past a price of
// about 922 its coefficient no longer fits an int64 (BTCUSDT's does not):
// it is held in 128 bits, as the realised profit is.
func avgWide(x wideDec, y, v, w, e narrow) (wideDec, bool) {
	prec := int64(decimal.DivisionPrecision)
	e1 := int64(x.exp) + int64(y.Exp)
	e2 := int64(v.Exp) + int64(w.Exp)
	ec := min(e1, e2)
	if v.Coef == 0 || w.Coef == 0 {
		ec = e1
	}
	k := ec - int64(e.Exp) + prec // the numerator is scaled by 10^k (the divisor by 10^-k)
	if k < 0 {
		return wideDec{}, false // the divisor would be scaled: posMath's path
	}
	num, ok := x.c.mul(y.Coef)
	if !ok {
		return wideDec{}, false
	}
	if num, ok = num.scale(e1 - ec); !ok {
		return wideDec{}, false
	}
	t, ok := mulWide(v.Coef, w.Coef).scale(e2 - ec)
	if !ok {
		return wideDec{}, false
	}
	if num, ok = num.add(t); !ok {
		return wideDec{}, false
	}
	if num, ok = num.scale(k); !ok {
		return wideDec{}, false
	}
	q, ok := num.divRound(e.Coef)
	if !ok {
		return wideDec{}, false
	}
	return wideDec{c: q, exp: int32(-prec)}, true
}

// wideDec is a wide coefficient with its exponent. Realised profit sits
// at the exponent of an average (16 decimals) times a quantity's, so its
// coefficient passes 18 digits at once: it is carried in 128 bits.
type wideDec struct {
	c   wide
	exp int32
}

func wideDecOf(n narrow) wideDec { return wideDec{c: wideOf(n.Coef), exp: n.Exp} }

// wideDecOfDecimal is d's coefficient and exponent, and false when the
// coefficient does not fit 128 bits. One of 19 digits or more is copied
// out of d (an allocation): that is the case only after a fill that took
// the decimal path.
func wideDecOfDecimal(d decimal.Decimal) (wideDec, bool) {
	w, ok := exchange.WideOf(d)
	return wideDec{c: wide{neg: w.Neg, hi: w.Hi, lo: w.Lo}, exp: w.Exp}, ok
}

// at is w at exponent e ≤ w.exp, and false on overflow.
func (w wideDec) at(e int64) (wide, bool) { return w.c.scale(int64(w.exp) - e) }

// sumWide is x + y at the smaller exponent, as decimal's Add forms it.
func sumWide(x, y wideDec) (wideDec, bool) {
	e := min(int64(x.exp), int64(y.exp))
	xc, ok1 := x.at(e)
	yc, ok2 := y.at(e)
	if !ok1 || !ok2 {
		return wideDec{}, false
	}
	s, ok := xc.add(yc)
	return wideDec{c: s, exp: int32(e)}, ok
}

// realizeWide is r.Add(p.Sub(a).Mul(q)) as decimal forms it, and false
// when a step does not fit 128 bits.
func realizeWide(r wideDec, p narrow, a wideDec, q narrow) (wideDec, bool) {
	d, ok := sumWide(wideDecOf(p), wideDec{c: a.c.negated(), exp: a.exp})
	if !ok {
		return wideDec{}, false
	}
	ep := int64(d.exp) + int64(q.Exp)
	if ep < math.MinInt32 || ep > math.MaxInt32 {
		return wideDec{}, false
	}
	prod, ok := d.c.mul(q.Coef)
	if !ok {
		return wideDec{}, false
	}
	return sumWide(r, wideDec{c: prod, exp: int32(ep)})
}

// realizedOf is p.Realized in 128 bits: the value m last built for p when
// p.Realized is still that decimal (the same big.Int: decimals are never
// changed in place), else its coefficient when it fits 18 digits.
func (m *posMath) realizedOf(p *Position) (wideDec, bool) {
	if m.realizedFor == p && p.Realized == m.realizedDec {
		return m.realized, true
	}
	return wideDecOfDecimal(p.Realized)
}

// applyNarrow is apply on int64 coefficients; false (the position
// untouched) when something does not fit. The realised profit m built
// for p last is read from m (past 18 digits it has no other compact
// form), and the one built now is remembered there.
func (p *Position) applyNarrow(f Fill, base, quote string, m *posMath) bool {
	var s posFields
	if r, ok := m.realizedOf(p); ok {
		s.realized, s.ok = r, fRealized
	}
	if !s.applyNarrow(p, f, base, quote) {
		return false
	}
	realized := s.stale&fRealized != 0
	s.build(p, allFields)
	if realized {
		m.realizedFor, m.realizedDec, m.realized = p, p.Realized, s.realized
	}
	return true
}

// posMask is a set of a position's decimal fields.
type posMask uint8

const (
	fQty posMask = 1 << iota
	fAvg
	fRealized
	fFeesBase
	fFeesQuote
	fFeesOther
	allFields = fQty | fAvg | fRealized | fFeesBase | fFeesQuote | fFeesOther
)

// posFields is a position's fields held compact beside its Position: a
// field in ok has its value here (the same coefficient and exponent as
// the decimal it stands for), and one in stale too, its decimal not built
// yet (stale ⊆ ok). The runtime applies every fill to these and builds a
// field's decimal only when something reads it (build): a backtest's
// strategy reads the quantity it holds and nothing else, and the average,
// realised profit and fees would otherwise cost a decimal per fill each.
type posFields struct {
	qty                            narrow
	feesBase, feesQuote, feesOther narrow
	avg, realized                  wideDec
	ok, stale                      posMask
}

// field is the compact value of the field bit of p (held at n, its decimal
// d), taken from d and kept when not held yet; false when it does not fit.
func (s *posFields) field(bit posMask, n *narrow, d decimal.Decimal) (narrow, bool) {
	if s.ok&bit != 0 {
		return *n, true
	}
	v, ok := narrowOf(d)
	if ok {
		*n, s.ok = v, s.ok|bit
	}
	return v, ok
}

// realizedOf is the realised profit in 128 bits.
func (s *posFields) realizedOf(p *Position) (wideDec, bool) {
	if s.ok&fRealized != 0 {
		return s.realized, true
	}
	return wideDecOfDecimal(p.Realized)
}

// avgOf is the average in 128 bits, taken from p's decimal and kept when
// not held yet.
func (s *posFields) avgOf(p *Position) (wideDec, bool) {
	if s.ok&fAvg != 0 {
		return s.avg, true
	}
	a, ok := wideDecOfDecimal(p.AvgPrice)
	if ok {
		s.avg, s.ok = a, s.ok|fAvg
	}
	return a, ok
}

// set holds v as the field bit's new value, its decimal to be built.
func (s *posFields) set(bit posMask, n *narrow, v narrow) {
	*n = v
	s.ok |= bit
	s.stale |= bit
}

// build builds p's decimals of the fields of mask that are stale, each as
// the decimal arithmetic would have stored it.
func (s *posFields) build(p *Position, mask posMask) {
	b := s.stale & mask
	if b == 0 {
		return
	}
	s.stale &^= b
	if b&fQty != 0 {
		p.Qty = s.qty.Decimal()
	}
	if b&fAvg != 0 {
		p.AvgPrice = exchange.NewDecimal128(s.avg.c.neg, s.avg.c.hi, s.avg.c.lo, s.avg.exp)
	}
	if b&fRealized != 0 {
		p.Realized = exchange.NewDecimal128(s.realized.c.neg, s.realized.c.hi, s.realized.c.lo, s.realized.exp)
	}
	if b&fFeesBase != 0 {
		p.FeesBase = s.feesBase.Decimal()
	}
	if b&fFeesQuote != 0 {
		p.FeesQuote = s.feesQuote.Decimal()
	}
	if b&fFeesOther != 0 {
		p.FeesOther = s.feesOther.Decimal()
	}
}

// applyNarrow applies f to the position whose decimals are p and compact
// fields s, on int64 coefficients; false (nothing changed but what s
// learnt of p's decimals) when something does not fit. The changed
// fields are left stale in s, but for an average back to zero, set in p
// as decimal.Zero, and the fee's third asset.
func (s *posFields) applyNarrow(p *Position, f Fill, base, quote string) bool {
	qty, ok1 := s.field(fQty, &s.qty, p.Qty)
	fq, ok2 := narrowOf(f.Qty)
	if !ok1 || !ok2 {
		return false
	}
	// The average as the steps leave it: p's unchanged, a computed
	// value, or decimal.Zero.
	const (
		avgKept = iota
		avgNew
		avgZero
	)
	avgKind := avgKept
	var avg wideDec
	curAvg := func() (wideDec, bool) {
		switch avgKind {
		case avgNew:
			return avg, true
		case avgZero:
			return wideDec{}, true
		}
		return s.avgOf(p)
	}
	var realized wideDec
	realizedSet := false
	switch f.Side {
	case exchange.SideBuy:
		q, ok := sumNarrow(qty, fq, false)
		if !ok {
			return false
		}
		if q.Coef > 0 {
			a, ok1 := curAvg()
			pr, ok2 := narrowOf(f.Price)
			if !ok1 || !ok2 {
				return false
			}
			if avg, ok = avgWide(a, qty, pr, fq, q); !ok {
				return false
			}
			avgKind = avgNew
		}
		qty = q
	case exchange.SideSell:
		r, ok1 := s.realizedOf(p)
		pr, ok2 := narrowOf(f.Price)
		a, ok3 := curAvg()
		if !ok1 || !ok2 || !ok3 {
			return false
		}
		var ok bool
		if realized, ok = realizeWide(r, pr, a, fq); !ok {
			return false
		}
		realizedSet = true
		if qty, ok = sumNarrow(qty, fq, true); !ok {
			return false
		}
		if qty.Coef <= 0 {
			avgKind = avgZero
		}
	default:
		return false // no side: apply changes only the fees, on decimals
	}
	// The fee goes to one of the fee fields (none without a fee asset).
	var fees narrow
	var feesBit posMask
	var feesN *narrow
	var feesDec decimal.Decimal
	switch f.CommissionAsset {
	case "":
	case base:
		feesBit, feesN, feesDec = fFeesBase, &s.feesBase, p.FeesBase
	case quote:
		feesBit, feesN, feesDec = fFeesQuote, &s.feesQuote, p.FeesQuote
	default:
		feesBit, feesN, feesDec = fFeesOther, &s.feesOther, p.FeesOther
	}
	if feesN != nil {
		fee, ok1 := narrowOf(f.Commission)
		held, ok2 := s.field(feesBit, feesN, feesDec)
		if !ok1 || !ok2 {
			return false
		}
		var ok bool
		if fees, ok = sumNarrow(held, fee, false); !ok {
			return false
		}
		switch f.CommissionAsset {
		case base:
			// The fee shrinks the quantity: the average cost rises.
			q, ok := sumNarrow(qty, fee, true)
			if !ok {
				return false
			}
			if q.Coef > 0 {
				a, ok := curAvg()
				if !ok {
					return false
				}
				if avg, ok = avgWide(a, qty, narrow{}, narrow{}, q); !ok {
					return false
				}
				avgKind = avgNew
			}
			qty = q
		case quote:
			if !realizedSet {
				if realized, ok = s.realizedOf(p); !ok {
					return false
				}
			}
			if fee.Coef == math.MinInt64 {
				return false
			}
			if realized, ok = sumWide(realized, wideDecOf(narrow{Coef: -fee.Coef, Exp: fee.Exp})); !ok {
				return false
			}
			realizedSet = true
		}
	}
	// Everything fitted: hold the results.
	s.set(fQty, &s.qty, qty)
	switch avgKind {
	case avgNew:
		s.avg, s.ok, s.stale = avg, s.ok|fAvg, s.stale|fAvg
	case avgZero:
		p.AvgPrice = decimal.Zero
		s.avg, s.ok, s.stale = wideDec{}, s.ok|fAvg, s.stale&^fAvg // decimal.Zero is 0e0
	}
	if realizedSet {
		s.realized, s.ok, s.stale = realized, s.ok|fRealized, s.stale|fRealized
	}
	if feesN != nil {
		s.set(feesBit, feesN, fees)
		if f.CommissionAsset != base && f.CommissionAsset != quote {
			p.OtherAsset = f.CommissionAsset
		}
	}
	return true
}

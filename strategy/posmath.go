package strategy

import (
	"math"
	"math/big"

	"github.com/shopspring/decimal"
	"github.com/spotbot/spotbot/exchange"
)

// Position.Apply runs on every fill, and decimal allocates two objects for
// each operation and seven for a division. posMath computes the two
// costly steps (the average price after a buy or a base-asset fee, and the
// profit a sell realises) on big.Ints it reuses, and gives results with
// the same coefficient and exponent decimal's own operations give.
type posMath struct {
	a, b, c, d, t, p, q, r big.Int
	// realized is the realised profit last built for the position
	// realizedFor, as the decimal realizedDec: the next fill of that
	// position reads it from here while it is unchanged (applyNarrow).
	realized    wideDec
	realizedFor *Position
	realizedDec decimal.Decimal
}

// coef sets z to d's coefficient, without allocating while it fits an
// int64.
func coef(z *big.Int, d decimal.Decimal) *big.Int {
	if d.NumDigits() <= 18 {
		return z.SetInt64(d.CoefficientInt64())
	}
	return z.Set(d.Coefficient())
}

// scaleUp multiplies z by 10^k, k ≥ 0. A product never goes to one of its
// factors (math/big would allocate): it is formed in m.t and copied back.
func (m *posMath) scaleUp(z *big.Int, k int64) {
	if z.Sign() == 0 {
		return
	}
	for k > 0 {
		n := min(k, 19)
		m.p.SetUint64(exchange.Pow10(int(n)))
		m.t.Mul(z, &m.p)
		z.Set(&m.t)
		k -= n
	}
}

// inInt32 reports whether every exponent fits decimal's int32 exponent;
// outside it decimal panics, so callers fall back to decimal.
func inInt32(es ...int64) bool {
	for _, e := range es {
		if e > math.MaxInt32 || e < math.MinInt32 {
			return false
		}
	}
	return true
}

// avg returns x.Mul(y).Add(v.Mul(w)).Div(e), e non-zero. A division's
// result depends only on the values divided, so the sum is formed exactly
// at the smaller of its terms' exponents.
func (m *posMath) avg(x, y, v, w, e decimal.Decimal) decimal.Decimal {
	prec := int64(decimal.DivisionPrecision)
	e1 := int64(x.Exponent()) + int64(y.Exponent())
	e2 := int64(v.Exponent()) + int64(w.Exponent())
	ec := min(e1, e2)
	if v.IsZero() || w.IsZero() {
		ec = e1 // a zero term changes no value: no need to scale to it
	}
	k := ec - int64(e.Exponent()) + prec // the numerator is scaled by 10^k (the divisor by 10^-k)
	if !inInt32(e1, e2, k, -prec) || k > 1000 || k < -1000 {
		return x.Mul(y).Add(v.Mul(w)).Div(e)
	}
	num, den := &m.c, &m.d
	num.Mul(coef(&m.a, x), coef(&m.b, y))
	m.scaleUp(num, e1-ec)
	m.q.Mul(coef(&m.a, v), coef(&m.b, w))
	m.scaleUp(&m.q, e2-ec)
	num.Add(num, &m.q)
	coef(den, e)
	if k >= 0 {
		m.scaleUp(num, k)
	} else {
		m.scaleUp(den, -k)
	}
	// As decimal's DivRound: truncate, then away from zero when twice the
	// remainder reaches the divisor.
	m.q.QuoRem(num, den, &m.r)
	m.r.Abs(&m.r).Lsh(&m.r, 1)
	if m.r.CmpAbs(den) >= 0 {
		if num.Sign()*den.Sign() < 0 {
			m.q.Sub(&m.q, m.t.SetInt64(1))
		} else {
			m.q.Add(&m.q, m.t.SetInt64(1))
		}
	}
	return decimal.NewFromBigInt(&m.q, int32(-prec))
}

// realize returns r.Add(p.Sub(a).Mul(q)) as decimal computes it: a sum or
// difference at the smaller exponent, a product at the sum of exponents.
func (m *posMath) realize(r, p, a, q decimal.Decimal) decimal.Decimal {
	ed := min(int64(p.Exponent()), int64(a.Exponent()))
	ep := ed + int64(q.Exponent())
	er := min(int64(r.Exponent()), ep)
	if !inInt32(ep) {
		return r.Add(p.Sub(a).Mul(q))
	}
	diff := coef(&m.a, p)
	m.scaleUp(diff, int64(p.Exponent())-ed)
	coef(&m.b, a)
	m.scaleUp(&m.b, int64(a.Exponent())-ed)
	diff.Sub(diff, &m.b)
	sum := m.c.Mul(diff, coef(&m.b, q))
	m.scaleUp(sum, ep-er)
	coef(&m.d, r)
	m.scaleUp(&m.d, int64(r.Exponent())-er)
	sum.Add(sum, &m.d)
	return decimal.NewFromBigInt(sum, int32(er))
}

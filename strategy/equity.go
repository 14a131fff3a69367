package strategy

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// Equity for the kill switch is valued at every bar. The holdings only
// change when balances are reloaded, so each asset's total and the price
// it is valued at are found once per reload (valuedAsset); the sum is then
// taken in int64 while the coefficients fit, which leaves one decimal to
// allocate per bar instead of two per operation.

// valuedAsset is a holding the account is valued with.
type valuedAsset struct {
	// amt is free plus locked, built by amount: from the compact
	// balances (at, their index plus one) only if the sum is taken in
	// decimal after all.
	amt    decimal.Decimal
	at     int
	symbol string  // the asset's symbol in the valuation asset; "" for the valuation asset itself
	last   *lastPx // the symbol's last price, once one was seen
	// term is amt as a term, when its coefficient has at most 18
	// digits (small): split once per reload, not at every bar.
	term  equityTerm
	small bool
}

// equityTerm is one term of the equity sum: coefficient×10^exp.
type equityTerm struct {
	c   int64
	exp int32
}

// valueHoldings lists the holdings from the balances as loaded. From
// compact balances (a backtest's, reloaded after every fill and every
// placement) it builds no decimal: free plus locked is added as Fixed,
// as decimal's Add would form it.
func (r *Runtime) valueHoldings() {
	r.valued = r.valued[:0]
	if c := r.compact; c != nil {
		for i := range c.list {
			cb := &c.list[i]
			v := valuedAsset{at: i + 1}
			if !cb.Wide {
				if f, ok := cb.Free.Add(cb.Locked); ok && f.Coef > -1e18 && f.Coef < 1e18 { // at most 18 digits, as smallDec
					v.term, v.small = equityTerm{f.Coef, f.Exp}, true
				}
			}
			r.addValued(v, cb.Asset)
		}
	} else {
		for asset, b := range r.bal {
			v := valuedAsset{amt: b.Free.Add(b.Locked)}
			v.term, v.small = smallDec(v.amt)
			r.addValued(v, asset)
		}
	}
	r.valuedOK = true
}

// addValued lists v, the holding of asset. The symbols are named once
// per asset (valuedSymbols), not at every reload.
func (r *Runtime) addValued(v valuedAsset, asset string) {
	if asset != r.opts.Valuation {
		sym, ok := r.valuedSymbols[asset]
		if !ok {
			if r.valuedSymbols == nil {
				r.valuedSymbols = map[string]string{}
			}
			sym = asset + r.opts.Valuation
			r.valuedSymbols[asset] = sym
		}
		v.symbol = sym
	}
	r.valued = append(r.valued, v)
}

// amount is v's free plus locked as a decimal.
func (r *Runtime) amount(v *valuedAsset) decimal.Decimal {
	if v.at > 0 {
		b := r.compact.decimals(v.at - 1)
		v.amt, v.at = b.Free.Add(b.Locked), 0
	}
	return v.amt
}

// equity returns the account's value in the valuation asset at the last
// prices: decimal.Zero plus each holding (times its price), with the same
// coefficient and exponent as that sum taken in decimal. Holdings with no
// price are left out.
func (r *Runtime) equity() decimal.Decimal {
	if f, ok := r.equityFixed(); ok {
		return f.Decimal()
	}
	return r.equityDecimal()
}

// equityDecimal is equity in decimal's arithmetic, for holdings whose
// terms or sum do not fit an int64 (equityFixed's false).
func (r *Runtime) equityDecimal() decimal.Decimal {
	eq := decimal.Zero
	for i := range r.valued {
		v := &r.valued[i]
		switch {
		case v.symbol == "":
			eq = eq.Add(r.amount(v))
		case v.last != nil:
			eq = eq.Add(r.amount(v).Mul(v.last.decimal()))
		}
	}
	return eq
}

// equityFixed is equity as a Fixed (its decimal is Fixed.Decimal's),
// taken in int64, and false when a term or the sum does not fit: the kill
// switch compares it without building the decimal (risk.Gate.ObserveFixed).
func (r *Runtime) equityFixed() (exchange.Fixed, bool) {
	eq, _, ok := r.sumHoldings("")
	return eq, ok
}

// sumHoldings is equityFixed over every holding but the one priced by
// symbol ("" leaves none out), with that one's amount (zero when the
// account holds none): the equity at a price p of symbol is then sum plus
// held × p.
func (r *Runtime) sumHoldings(symbol string) (sum exchange.Fixed, held exchange.Fixed, ok bool) {
	if !r.valuedOK {
		r.valueHoldings()
	}
	terms := r.terms[:0]
	small := true
	for i := range r.valued {
		v := &r.valued[i]
		if symbol != "" && v.symbol == symbol {
			held, small = exchange.NewFixed(v.term.c, v.term.exp), small && v.small
			continue
		}
		if v.symbol != "" && v.last == nil {
			if v.last = r.last[v.symbol]; v.last == nil {
				continue
			}
		}
		if !small {
			continue
		}
		t, ok := v.term, v.small
		if ok && v.symbol != "" {
			t, ok = mulTerm(t, v.last)
		}
		terms = append(terms, t)
		small = ok
	}
	r.terms = terms
	if !small {
		return exchange.Fixed{}, exchange.Fixed{}, false
	}
	sum, ok = sumTerms(terms, decimal.Zero.Exponent())
	return sum, held, ok
}

// smallDec returns d as a term when its coefficient has at most 18 digits.
func smallDec(d decimal.Decimal) (equityTerm, bool) {
	if d.NumDigits() > 18 {
		return equityTerm{}, false
	}
	return equityTerm{d.CoefficientInt64(), d.Exponent()}, true
}

// mulTerm returns t×p as decimal's Mul forms it (the coefficients'
// product at the sum of the exponents).
func mulTerm(t equityTerm, p *lastPx) (equityTerm, bool) {
	var pt equityTerm
	ok := p.fixed && p.fix.Coef > -1e18 && p.fix.Coef < 1e18 // at most 18 digits, as smallDec
	if ok {
		pt = equityTerm{p.fix.Coef, p.fix.Exp}
	} else {
		pt, ok = smallDec(p.decimal())
	}
	exp := int64(t.exp) + int64(pt.exp)
	if !ok || exp > math.MaxInt32 || exp < math.MinInt32 {
		return equityTerm{}, false
	}
	hi, lo := bits.Mul64(exchange.Abs64(t.c), exchange.Abs64(pt.c))
	if hi != 0 || lo > math.MaxInt64 {
		return equityTerm{}, false
	}
	c := int64(lo)
	if (t.c < 0) != (pt.c < 0) {
		c = -c
	}
	return equityTerm{c, int32(exp)}, true
}

// sumTerms returns the sum of the terms and a zero of exponent exp0 as
// decimal's Add forms it: the exact sum at the smallest exponent.
func sumTerms(terms []equityTerm, exp0 int32) (exchange.Fixed, bool) {
	exp := exp0
	for _, t := range terms {
		exp = min(exp, t.exp)
	}
	var sum int64
	for _, t := range terms {
		c, ok := exchange.NewFixed(t.c, t.exp).CoefAt(exp) // exp ≤ t.exp: scaled up
		if !ok {
			return exchange.Fixed{}, false
		}
		s := sum + c
		if (sum > 0 && c > 0 && s < 0) || (sum < 0 && c < 0 && s >= 0) {
			return exchange.Fixed{}, false
		}
		sum = s
	}
	return exchange.NewFixed(sum, exp), true
}

package smacross

import (
	"cmp"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// free is an asset's free balance as buy and sell read it: a Fixed when
// the Context gives one (strategy.FixedBalancer: no decimal built), else
// the decimal of Balance. Either has the balance's coefficient and
// exponent, so what is derived from it is the same.
type free struct {
	f     exchange.Fixed
	d     decimal.Decimal
	fixed bool
}

// freeOf reads asset's free balance from ctx.
func freeOf(ctx strategy.Context, asset string) free {
	if b, ok := ctx.(strategy.FixedBalancer); ok {
		if f, ok := b.FreeFixed(asset); ok {
			return free{f: f, fixed: true}
		}
	}
	return free{d: ctx.Balance(asset).Free}
}

// dec is the balance's decimal, built when it is a Fixed.
func (a free) dec() decimal.Decimal {
	if a.fixed {
		return a.f.Decimal()
	}
	return a.d
}

// sign is the balance's sign.
func (a free) sign() int {
	if a.fixed {
		return cmp.Compare(a.f.Coef, 0)
	}
	return a.d.Sign()
}

// cmp compares the balance with d.
func (a free) cmp(d decimal.Decimal) int {
	if a.fixed {
		return a.f.CmpDecimal(d)
	}
	return exchange.CmpDecimal(a.d, d)
}

// same reports whether a and b are the same reading: equal Fixed values,
// or the same decimal (see memo).
func (a free) same(b free) bool {
	if a.fixed || b.fixed {
		return a.fixed && b.fixed && a.f == b.f
	}
	return same(a.d, b.d)
}

// heldQty is the quantity of symbol held: through strategy.FixedPositioner
// when ctx has it, which builds none of the position's other decimals
// (its average, realised profit and fees, all changed by every fill).
func heldQty(ctx strategy.Context, symbol string) decimal.Decimal {
	if p, ok := ctx.(strategy.FixedPositioner); ok {
		return p.PositionQty(symbol)
	}
	return ctx.Position(symbol).Qty
}

package smacross

import (
	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// memo is what buy and sell last derived from the rules, the balance and
// the position they read: a buy's amount, a sell's quantity. The same
// inputs give the same amounts, so a signal bar's dry act in Skip and
// OnKline's act on that bar after it derive them once, and so do the
// signals of an account that can no longer trade (its balance and
// position stay put from one cross to the next: about 43,000 of the
// million-bar benchmark's 55,000 dry acts). What still depends on the
// bar (its close against the minimum) is compared each time.
//
// The inputs are recognised by identity (same): the runtime hands out the
// same decimal for a balance or a position until a fill or a refresh
// changes it. A value equal but built anew is not recognised and the
// amount is derived again, with the same result.
type memo struct {
	// A buy's amount from the quote's free balance (fraction).
	buyInfo *exchange.SymbolInfo
	buyFree free
	short   bool
	fix     exchange.Fixed // the amount when fixed
	fixed   bool
	amount  decimal.Decimal // the amount's decimal: when not fixed, or once built
	built   bool            // amount holds the decimal of fix

	// A sell's quantity from the position and the base's free balance.
	sellInfo *exchange.SymbolInfo
	sellHeld decimal.Decimal
	sellFree free
	qty      decimal.Decimal

	// A buy's fixed quantity (quantity), floored to the rules.
	qtyInfo *exchange.SymbolInfo
	fixQty  decimal.Decimal
}

// same reports whether a and b are one decimal: the same coefficient
// object and exponent. A decimal is never changed in place, so the same
// one has the same value (the converse does not hold: callers derive
// again on false).
func same(a, b decimal.Decimal) bool { return a == b }

// buyAmount is s.quoteAmount(info, free, min) (min is info's market
// minimum), from the memo when info and free are those of the last call.
// It reports whether the amount is short; when not, order gives it.
func (m *memo) buyAmount(s *Strategy, info *exchange.SymbolInfo, free free, min decimal.Decimal) (short bool) {
	if m.buyInfo == info && info != nil && m.buyFree.same(free) {
		return m.short
	}
	m.fix, m.fixed, m.amount, m.short = s.quoteAmount(info, free, min)
	m.built = false
	m.buyInfo, m.buyFree = info, free
	return m.short
}

// order is the amount of the last buyAmount that was not short, its
// decimal built once.
func (m *memo) order() decimal.Decimal {
	if m.fixed && !m.built {
		m.amount, m.built = m.fix.Decimal(), true
	}
	return m.amount
}

// sellQty is the position held floored to info's quantity step, capped by
// the free balance floored to it (flooring keeps order, so the free
// balance's floor can be below the position's only when the free balance
// is: it is floored then alone, and usually the two are equal), from the
// memo when info, held and free are those of the last call.
func (m *memo) sellQty(info *exchange.SymbolInfo, held decimal.Decimal, free free) decimal.Decimal {
	if m.sellInfo == info && info != nil && same(m.sellHeld, held) && m.sellFree.same(free) {
		return m.qty
	}
	qty := info.FloorQty(held)
	if free.cmp(held) < 0 {
		if f := info.FloorQty(free.dec()); exchange.CmpDecimal(qty, f) > 0 {
			qty = f
		}
	}
	m.sellInfo, m.sellHeld, m.sellFree, m.qty = info, held, free, qty
	return qty
}

// quantity is info.FloorQty(q), from the memo for the info of the last
// call (q is the parameter, the same at every call).
func (m *memo) quantity(info *exchange.SymbolInfo, q decimal.Decimal) decimal.Decimal {
	if m.qtyInfo != info || info == nil {
		m.qtyInfo, m.fixQty = info, info.FloorQty(q)
	}
	return m.fixQty
}

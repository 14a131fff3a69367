package strategy

import (
	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// FixedPositioner is an optional capability of a Context (the runtime's
// has it) for a strategy that reads only the quantity it holds.
// PositionQty is Position(symbol).Qty, the same decimal (coefficient and
// exponent), without the position's other fields: Position builds the
// average, the realised profit and the fees the runtime keeps compact
// after each fill, which a strategy sizing its next order never looks at.
// PositionQtyFixed is that quantity as an exchange.Fixed, and false when
// it does not fit one (the caller then asks PositionQty); it builds no
// decimal at all. A Context that wraps another hides the capability (the
// assertion fails), which costs the decimals and changes no answer.
type FixedPositioner interface {
	PositionQty(symbol string) decimal.Decimal
	PositionQtyFixed(symbol string) (exchange.Fixed, bool)
}

var _ FixedPositioner = (*instance)(nil)

// PositionQty implements FixedPositioner.
func (in *instance) PositionQty(symbol string) decimal.Decimal {
	if h := in.held(symbol); h != nil {
		return h.qty()
	}
	return decimal.Decimal{}
}

// PositionQtyFixed implements FixedPositioner.
func (in *instance) PositionQtyFixed(symbol string) (exchange.Fixed, bool) {
	if h := in.held(symbol); h != nil {
		if h.f.ok&fQty != 0 {
			return h.f.qty, true
		}
		return exchange.FixedOf(h.pos.Qty)
	}
	return exchange.Fixed{}, true
}

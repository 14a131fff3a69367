package strategy

import "github.com/shopspring/decimal"

// heldPos is an instance's position in a symbol as the runtime holds it:
// the public Position with its fields kept compact in f, each decimal
// built when something reads it (Position, PositionQty, the exits, the
// operator's controls). What a read returns is the Position that applying
// the same fills with Position.Apply gives, field for field (coefficient
// and exponent).
type heldPos struct {
	pos Position
	f   posFields
}

// apply applies a fill: compact when its numbers fit, else in decimal's
// arithmetic on the built fields (the compact ones are then read again
// from the decimals).
func (h *heldPos) apply(f Fill, base, quote string, m *posMath) {
	if h.f.applyNarrow(&h.pos, f, base, quote) {
		return
	}
	h.f.build(&h.pos, allFields)
	h.pos.applyDecimal(f, base, quote, m)
	h.f.ok = 0
}

// position is the whole Position, its decimals built.
func (h *heldPos) position() Position {
	h.f.build(&h.pos, allFields)
	return h.pos
}

// qty is the quantity held, its decimal built.
func (h *heldPos) qty() decimal.Decimal {
	h.f.build(&h.pos, fQty)
	return h.pos.Qty
}

// realized is the realised profit, its decimal built.
func (h *heldPos) realized() decimal.Decimal {
	h.f.build(&h.pos, fRealized)
	return h.pos.Realized
}

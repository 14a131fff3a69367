package exchange

import "github.com/shopspring/decimal"

// DefaultCommissionScale is the commission precision (decimals) of a
// symbol whose rules give none.
const DefaultCommissionScale = 8

// CommissionScale is the decimals a commission is rounded to for a
// precision from the symbol rules: the precision itself, or
// DefaultCommissionScale when it is unset.
func CommissionScale(precision int) int32 {
	if precision <= 0 {
		return DefaultCommissionScale
	}
	return int32(precision)
}

// MaxQuoteFee is the most a buy worth notional can pay in fees when they
// are charged in the quote asset (the simulator's sim.fee_asset: quote):
// the notional at the higher of the symbol's maker and taker rates,
// rounded up to its quote commission precision. Whether the order ends
// up maker or taker is not known when it is placed, so the simulator locks
// this much on top of a priced or quantity-sized buy, and the risk gate
// checks the same sum against the free balance: one formula, so the gate
// never passes a buy the exchange then refuses for its fee.
func (s *SymbolInfo) MaxQuoteFee(notional decimal.Decimal) decimal.Decimal {
	r := decimal.Max(s.MakerCommission, s.TakerCommission)
	return notional.Mul(r).RoundUp(CommissionScale(s.QuoteCommissionPrecision))
}

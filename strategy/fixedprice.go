package strategy

import "github.com/spotbot/spotbot/exchange"

// FixedPricer is an optional capability of a Context (the runtime's has
// it): LastPriceFixed is LastPrice as the exchange.Fixed a fed bar's close
// is held as, and false when the runtime has the price only as a decimal
// (a warm-up or polled price) or has none; the caller then asks LastPrice.
// A strategy comparing the price (exchange.CmpMulFixed, Fixed.CmpDecimal)
// builds no decimal for it: LastPrice builds one per price asked for, and
// a strategy that checks a signal against the price on every cross would
// otherwise build one for each, orders or not. A Context that wraps
// another hides the capability (the assertion fails), which costs the
// decimal and changes no answer.
type FixedPricer interface {
	LastPriceFixed(symbol string) (exchange.Fixed, bool)
}

var _ FixedPricer = (*instance)(nil)

// LastPriceFixed implements FixedPricer.
func (in *instance) LastPriceFixed(symbol string) (exchange.Fixed, bool) {
	if lp := in.rt.last[symbol]; lp != nil && lp.fixed {
		return lp.fix, true
	}
	return exchange.Fixed{}, false
}

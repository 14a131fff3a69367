package strategy

import (
	"github.com/spotbot/spotbot/exchange"
)

// FixedBalancer is an optional capability of a Context (the runtime's has
// it) for a strategy that compares or sizes with the free amount of an
// asset: FreeFixed is Balance(asset).Free as an exchange.Fixed (the same
// coefficient and exponent), and false when the runtime holds it only as
// a decimal (past 18 digits, or an account read without compact
// balances); the caller then asks Balance. The runtime reloads balances
// after every fill and Balance builds the decimals of the balance it
// returns that changed since; FreeFixed builds none. A Context that wraps
// another hides the capability (the assertion fails), which costs the
// decimals and changes no answer.
type FixedBalancer interface {
	FreeFixed(asset string) (exchange.Fixed, bool)
}

var _ FixedBalancer = (*instance)(nil)

// FreeFixed implements FixedBalancer.
func (in *instance) FreeFixed(asset string) (exchange.Fixed, bool) { return in.rt.freeFixed(asset) }

// freeFixed is asset's free amount as a Fixed, when the runtime holds the
// balances compact and the amount fits; an asset the account does not
// list has none (zero, as Balance gives it).
func (r *Runtime) freeFixed(asset string) (exchange.Fixed, bool) {
	r.refreshStale()
	if r.compact == nil {
		return exchange.Fixed{}, false
	}
	i, ok := r.compact.find(asset)
	switch {
	case !ok:
		return exchange.Fixed{}, true
	case r.compact.list[i].Wide:
		return exchange.Fixed{}, false
	}
	return r.compact.list[i].Free, true
}

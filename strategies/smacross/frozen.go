package smacross

import (
	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// frozen is the Context Skip hands act for the signal bars it looks at:
// the rules, the quantity held and the free balances are read from the
// instance's Context once a Skip call and answered again from there,
// since they cannot change during the call (strategy.Skipper: no order is
// open and none fills); everything else passes through. An account that
// can no longer trade meets a quiet signal at every cross, tens of
// thousands in one call. It keeps the capabilities buy and sell use
// (strategy.FixedPositioner, strategy.FixedBalancer) and answers them from
// the instance's Context's own when it has them.
type frozen struct {
	strategy.Context
	rulesOK  bool
	rulesSym string
	info     *exchange.SymbolInfo
	rulesErr error
	qtyOK    bool
	qtySym   string
	qty      decimal.Decimal
	nbal     int
	bal      [2]exchange.Balance // the assets read, base and quote
	nfree    int
	free     [2]freeFixed // the same, through FreeFixed
}

// freeFixed is an answer of FreeFixed.
type freeFixed struct {
	asset string
	f     exchange.Fixed
	ok    bool
}

var (
	_ strategy.FixedPositioner = (*frozen)(nil)
	_ strategy.FixedBalancer   = (*frozen)(nil)
)

// reset points f at ctx, forgetting what it read.
func (f *frozen) reset(ctx strategy.Context) {
	f.Context, f.rulesOK, f.qtyOK, f.nbal, f.nfree = ctx, false, false, 0, 0
}

// Rules implements strategy.Context.
func (f *frozen) Rules(symbol string) (*exchange.SymbolInfo, error) {
	if !f.rulesOK || f.rulesSym != symbol {
		f.info, f.rulesErr = f.Context.Rules(symbol)
		f.rulesOK, f.rulesSym = true, symbol
	}
	return f.info, f.rulesErr
}

// PositionQty implements strategy.FixedPositioner.
func (f *frozen) PositionQty(symbol string) decimal.Decimal {
	if !f.qtyOK || f.qtySym != symbol {
		f.qty, f.qtyOK, f.qtySym = heldQty(f.Context, symbol), true, symbol
	}
	return f.qty
}

// PositionQtyFixed implements strategy.FixedPositioner (passed through:
// buy and sell do not ask it).
func (f *frozen) PositionQtyFixed(symbol string) (exchange.Fixed, bool) {
	if p, ok := f.Context.(strategy.FixedPositioner); ok {
		return p.PositionQtyFixed(symbol)
	}
	return exchange.FixedOf(f.PositionQty(symbol))
}

// FreeFixed implements strategy.FixedBalancer: false when the instance's
// Context does not have it (freeOf then asks Balance).
func (f *frozen) FreeFixed(asset string) (exchange.Fixed, bool) {
	for i := range f.nfree {
		if f.free[i].asset == asset {
			return f.free[i].f, f.free[i].ok
		}
	}
	b, ok := f.Context.(strategy.FixedBalancer)
	if !ok {
		return exchange.Fixed{}, false
	}
	v, vok := b.FreeFixed(asset)
	if f.nfree < len(f.free) {
		f.free[f.nfree] = freeFixed{asset, v, vok}
		f.nfree++
	}
	return v, vok
}

// Balance implements strategy.Context.
func (f *frozen) Balance(asset string) exchange.Balance {
	for i := range f.nbal {
		if f.bal[i].Asset == asset {
			return f.bal[i]
		}
	}
	b := f.Context.Balance(asset)
	if b.Asset == asset && f.nbal < len(f.bal) {
		f.bal[f.nbal] = b
		f.nbal++
	}
	return b
}

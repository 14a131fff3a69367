package smacross

import (
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// frozen is the Context Skip hands act for the signal bars it looks at:
// Rules, Position and Balance are read from the instance's Context once a
// Skip call and answered again from there, since they cannot change
// during the call (strategy.Skipper: no order is open and none fills);
// everything else passes through. An account that can no longer trade
// meets a quiet signal at every cross, tens of thousands in one call.
type frozen struct {
	strategy.Context
	rulesOK  bool
	rulesSym string
	info     *exchange.SymbolInfo
	rulesErr error
	posOK    bool
	posSym   string
	pos      strategy.Position
	nbal     int
	bal      [2]exchange.Balance // the assets read, base and quote
}

// reset points f at ctx, forgetting what it read.
func (f *frozen) reset(ctx strategy.Context) {
	f.Context, f.rulesOK, f.posOK, f.nbal = ctx, false, false, 0
}

// Rules implements strategy.Context.
func (f *frozen) Rules(symbol string) (*exchange.SymbolInfo, error) {
	if !f.rulesOK || f.rulesSym != symbol {
		f.info, f.rulesErr = f.Context.Rules(symbol)
		f.rulesOK, f.rulesSym = true, symbol
	}
	return f.info, f.rulesErr
}

// Position implements strategy.Context.
func (f *frozen) Position(symbol string) strategy.Position {
	if !f.posOK || f.posSym != symbol {
		f.pos, f.posOK, f.posSym = f.Context.Position(symbol), true, symbol
	}
	return f.pos
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

package strategy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spotbot/spotbot/exchange"
)

// CompactBalanceReader is an optional capability of Options.Balances (the
// simulator's Port has it): AppendCompactBalances is the same account read
// as AppendBalances (the same balances, in asset order, the same rate
// budget drawn) with the amounts as exchange.Fixed while they fit. The
// runtime then builds the decimals of the balances it reads only: a
// backtest reloads the balances after every fill and reads one or two.
type CompactBalanceReader interface {
	AppendCompactBalances(dst []exchange.CompactBalance) ([]exchange.CompactBalance, error)
}

// compactBalances is the runtime's state of a CompactBalanceReader's
// balances.
type compactBalances struct {
	reader CompactBalanceReader
	list   []exchange.CompactBalance // the last read, in asset order
	inMap  bool                      // Runtime.bal holds list's balances
	// shown are the decimals last built for each asset, with the amounts
	// they were built from: an amount unchanged since is not built again.
	shown map[string]*shownBalance
}

type shownBalance struct {
	from exchange.CompactBalance
	b    exchange.Balance
}

// refresh reads the balances.
func (c *compactBalances) refresh() error {
	list, err := c.reader.AppendCompactBalances(c.list[:0])
	if err != nil {
		return fmt.Errorf("strategy: loading balances: %w", err)
	}
	c.list, c.inMap = list, false
	return nil
}

// balance returns asset's balance as the last read listed it.
func (c *compactBalances) balance(asset string) (exchange.Balance, bool) {
	i, ok := slices.BinarySearchFunc(c.list, asset, func(b exchange.CompactBalance, a string) int { return strings.Compare(b.Asset, a) })
	if !ok {
		return exchange.Balance{}, false
	}
	return c.decimals(&c.list[i]), true
}

// decimals is cb as an exchange.Balance, building only the amounts that
// changed since the asset was last built.
func (c *compactBalances) decimals(cb *exchange.CompactBalance) exchange.Balance {
	s := c.shown[cb.Asset]
	switch {
	case s == nil:
		if c.shown == nil {
			c.shown = map[string]*shownBalance{}
		}
		s = &shownBalance{from: *cb, b: cb.Balance()}
		c.shown[cb.Asset] = s
		return s.b
	case cb.Wide || s.from.Wide:
		s.from, s.b = *cb, cb.Balance()
		return s.b
	}
	if s.from.Free != cb.Free {
		s.b.Free = cb.Free.Decimal()
		s.b.Available = s.b.Free
	}
	if s.from.Locked != cb.Locked {
		s.b.Locked = cb.Locked.Decimal()
	}
	s.from = *cb
	return s.b
}

// fillMap puts the balances of the last read in bal (for the equity
// valuation and Balances, which list them all).
func (c *compactBalances) fillMap(bal map[string]exchange.Balance) {
	if c.inMap {
		return
	}
	clear(bal)
	for i := range c.list {
		bal[c.list[i].Asset] = c.decimals(&c.list[i])
	}
	c.inMap = true
}

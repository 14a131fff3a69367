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
	// shown[i] are the decimals last built for list[i]'s asset, with the
	// amounts they were built from: an amount unchanged since is not
	// built again. They stay aligned with list across reads (align), so
	// a read finds them without a map.
	shown []shownBalance
	spare []shownBalance // the previous shown, whose storage align reuses
	inMap bool           // Runtime.bal holds list's balances
	hint  int            // the index find returned last: looked at first
}

type shownBalance struct {
	asset string
	ok    bool // from and b are set
	from  exchange.CompactBalance
	b     exchange.Balance
}

// refresh reads the balances.
func (c *compactBalances) refresh() error {
	list, err := c.reader.AppendCompactBalances(c.list[:0])
	if err != nil {
		return fmt.Errorf("strategy: loading balances: %w", err)
	}
	c.list, c.inMap = list, false
	c.align()
	return nil
}

// align lines shown up with list: kept as it is while the assets are
// those of the last read, in the same order.
func (c *compactBalances) align() {
	same := len(c.shown) == len(c.list)
	for i := 0; same && i < len(c.list); i++ {
		same = c.shown[i].asset == c.list[i].Asset
	}
	if same {
		return
	}
	// A backtest's account lists an asset only while it holds some, so
	// the assets change at about every other fill: the new alignment is
	// built in the slice two reads old (spare), not a new one each time.
	shown := slices.Grow(c.spare[:0], len(c.list))[:len(c.list)]
	for i := range c.list {
		shown[i] = shownBalance{asset: c.list[i].Asset}
		for j := range c.shown {
			if c.shown[j].asset == c.list[i].Asset {
				shown[i] = c.shown[j]
				break
			}
		}
	}
	c.shown, c.spare = shown, c.shown
}

// balance returns asset's balance as the last read listed it.
// The result points into c (a Balance is copied once, by the caller).
func (c *compactBalances) balance(asset string) *exchange.Balance {
	i, ok := c.find(asset)
	if !ok {
		return nil
	}
	return c.decimals(i)
}

// find returns the index of asset in the last read.
func (c *compactBalances) find(asset string) (int, bool) {
	if c.hint < len(c.list) && c.list[c.hint].Asset == asset {
		return c.hint, true
	}
	i, ok := c.find1(asset)
	if ok {
		c.hint = i
	}
	return i, ok
}

func (c *compactBalances) find1(asset string) (int, bool) {
	i, ok := 0, false
	if len(c.list) <= 16 {
		for i = range c.list {
			if ok = c.list[i].Asset == asset; ok {
				break
			}
		}
	} else {
		i, ok = slices.BinarySearchFunc(c.list, asset, func(b exchange.CompactBalance, a string) int { return strings.Compare(b.Asset, a) })
	}
	return i, ok
}

// decimals is list[i] as an exchange.Balance, building only the amounts
// that changed since its asset was last built.
func (c *compactBalances) decimals(i int) *exchange.Balance {
	s, cb := &c.shown[i], &c.list[i]
	switch {
	case !s.ok || cb.Wide || s.from.Wide:
		s.b = cb.Balance()
	default:
		if s.from.Free != cb.Free {
			s.b.Free = cb.Free.Decimal()
			s.b.Available = s.b.Free
		}
		if s.from.Locked != cb.Locked {
			s.b.Locked = cb.Locked.Decimal()
		}
	}
	s.from, s.ok = *cb, true
	return &s.b
}

// fillMap puts the balances of the last read in bal (for the equity
// valuation and Balances, which list them all).
func (c *compactBalances) fillMap(bal map[string]exchange.Balance) {
	if c.inMap {
		return
	}
	clear(bal)
	for i := range c.list {
		bal[c.list[i].Asset] = *c.decimals(i)
	}
	c.inMap = true
}

package sim

import (
	"slices"
	"sort"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// balance is one asset of an account.
type balance struct {
	asset        string
	free, locked amount
	// shown caches the decimal forms last read, with the amounts they
	// were made from: a strategy reads its balances after every fill, and
	// most of them have not changed.
	shown struct {
		free, locked   amount
		freeD, lockedD decimal.Decimal
		ok             bool
	}
}

// decimals returns free and locked as decimals.
func (b *balance) decimals() (free, locked decimal.Decimal) {
	s := &b.shown
	if !s.ok || s.free != b.free {
		s.free, s.freeD = b.free, b.free.dec()
	}
	if !s.ok || s.locked != b.locked {
		s.locked, s.lockedD = b.locked, b.locked.dec()
	}
	s.ok = true
	return s.freeD, s.lockedD
}

// account is one user: balances, orders, trades and pending events.
type account struct {
	uid      string
	name     string
	balances map[string]*balance
	// sorted holds the same balances in asset order, so a snapshot
	// sorts nothing.
	sorted []*balance
	open   map[string]*order // open orders by client order id (a generated one: see openAuto)
	// history is every order in placement order, which is the order of
	// their numbers (see order; Options.HistoryRetention trims it).
	history []*order
	trimAt  int // history length that triggers the next trim
	trades  []exchange.OwnTrade
	events  []event // undrained order events, oldest first
	// evTrades holds the trades of the undrained events (takeTrades),
	// drained the trades the last drain handed out: valid until the next
	// drain (exchange.EventSource), which hands evTrades out and reuses
	// drained for the events after it.
	evTrades, drained []exchange.OwnTrade
	tokDeduct         bool
	kyc               string // KYC level, "1" to "4"; empty reads as "1"
	budget            *exchange.Budget
	// pairM is the market whose base and quote balances pairBase and
	// pairQuote are (pair): a fill reads three balances of two assets,
	// and a look-up in balances hashes the asset's name each time.
	pairM               *market
	pairBase, pairQuote *balance
}

func newAccount(uid, name string) *account {
	return &account{uid: uid, name: name, balances: map[string]*balance{}, open: map[string]*order{}}
}

func (a *account) bal(asset string) *balance {
	b, ok := a.balances[asset]
	if !ok {
		b = &balance{asset: asset}
		a.balances[asset] = b
		i := sort.Search(len(a.sorted), func(i int) bool { return a.sorted[i].asset > asset })
		a.sorted = slices.Insert(a.sorted, i, b)
	}
	return b
}

// pair returns the base and quote balances of m's assets (made when
// missing, as bal makes them).
func (a *account) pair(m *market) (base, quote *balance) {
	if a.pairM != m {
		a.pairBase, a.pairQuote = a.bal(m.info.BaseAsset), a.bal(m.info.QuoteAsset)
		a.pairM = m
	}
	return a.pairBase, a.pairQuote
}

// balOf is bal(asset) for an asset of market m: the pair's balance when
// the pair is m's, without a look-up.
func (a *account) balOf(m *market, asset string) *balance {
	if a.pairM == m {
		switch asset {
		case m.info.BaseAsset:
			return a.pairBase
		case m.info.QuoteAsset:
			return a.pairQuote
		}
	}
	return a.bal(asset)
}

// clearBalances forgets every balance (an import replaces them).
func (a *account) clearBalances() {
	a.pairM, a.pairBase, a.pairQuote = nil, nil, nil
	clear(a.balances)
	clear(a.sorted)
	a.sorted = a.sorted[:0]
}

// snapshot lists balances sorted by asset, skipping empty ones.
func (a *account) snapshot() []exchange.Balance {
	n := 0
	for _, b := range a.sorted {
		if !b.empty() {
			n++
		}
	}
	return a.appendBalances(make([]exchange.Balance, 0, n))
}

func (b *balance) empty() bool { return b.free.isZero() && b.locked.isZero() }

// appendBalances appends the snapshot's balances to dst.
func (a *account) appendBalances(dst []exchange.Balance) []exchange.Balance {
	for _, b := range a.sorted {
		if b.empty() {
			continue
		}
		free, locked := b.decimals()
		dst = append(dst, exchange.Balance{Asset: b.asset, Free: free, Locked: locked, Available: free})
	}
	return dst
}

// appendCompact appends the snapshot's balances to dst with their
// amounts as they are held: no decimal is built unless an amount is wide.
func (a *account) appendCompact(dst []exchange.CompactBalance) []exchange.CompactBalance {
	for _, b := range a.sorted {
		if b.empty() {
			continue
		}
		c := exchange.CompactBalance{Asset: b.asset}
		if b.free.wide || b.locked.wide {
			c.Wide, c.FreeDec, c.LockedDec = true, b.free.dec(), b.locked.dec()
		} else {
			c.Free, c.Locked = exchange.NewFixed(b.free.coef, b.free.exp), exchange.NewFixed(b.locked.coef, b.locked.exp)
		}
		dst = append(dst, c)
	}
	return dst
}

// order returns the account's order numbered n, or nil (none, or
// forgotten). The history is in the order of the numbers (the exchange
// numbers orders as it books them; an import books its orders in their
// order, into an account without orders, and raises the counter past
// them), so a binary search finds it, and most lookups are of the latest
// order: no map entry per order is needed.
func (a *account) order(n int64) *order {
	h := a.history
	if k := len(h); k > 0 && h[k-1].seq == n {
		return h[k-1]
	}
	lo, hi := 0, len(h)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if h[mid].seq < n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(h) && h[lo].seq == n {
		return h[lo]
	}
	return nil
}

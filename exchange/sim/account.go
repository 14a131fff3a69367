package sim

import (
	"sort"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// balance is one asset of an account.
type balance struct {
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
	uid       string
	name      string
	balances  map[string]*balance
	orders    map[int64]*order  // every order by its number (its id is the number in decimal)
	open      map[string]*order // open orders by client order id (a generated one: see openAuto)
	history   []*order          // every order, in placement order (see Options.HistoryRetention)
	trimAt    int               // history length that triggers the next trim
	trades    []exchange.OwnTrade
	events    []exchange.OrderEvent
	tokDeduct bool
	kyc       string // KYC level, "1" to "4"; empty reads as "1"
	budget    *exchange.Budget
}

func newAccount(uid, name string) *account {
	return &account{uid: uid, name: name, balances: map[string]*balance{}, orders: map[int64]*order{}, open: map[string]*order{}}
}

func (a *account) bal(asset string) *balance {
	b, ok := a.balances[asset]
	if !ok {
		b = &balance{}
		a.balances[asset] = b
	}
	return b
}

// snapshot lists balances sorted by asset, skipping empty ones.
func (a *account) snapshot() []exchange.Balance {
	assets := make([]string, 0, len(a.balances))
	for k, b := range a.balances {
		if !b.free.isZero() || !b.locked.isZero() {
			assets = append(assets, k)
		}
	}
	sort.Strings(assets)
	out := make([]exchange.Balance, 0, len(assets))
	for _, k := range assets {
		b := a.balances[k]
		free, locked := b.decimals()
		out = append(out, exchange.Balance{Asset: k, Free: free, Locked: locked, Available: free})
	}
	return out
}

// order is a resting or finished order.
type order struct {
	acct *account
	o    exchange.Order
	seq  int64           // time priority
	left decimal.Decimal // base quantity still to fill (quote for a quote-sized market buy)
	// lockAsset and lock are what the order holds locked, lockBal the
	// balance they are locked in (balances are never replaced).
	lockAsset string
	lockBal   *balance
	lock      amount
	// pending orders wait for the next kline (NextOpen).
	pending bool
	byQuote bool // a MARKET BUY sized by quoteOrderQty
	// autoID says the client order id is the generated sim-<order id>:
	// such an order is found through its number, not the open map.
	autoID bool
	// newEvent holds the trades not yet reported; eventDue says the
	// order changed since its last report.
	newEvent []exchange.OwnTrade
	eventDue bool
}

func (o *order) final() bool { return o.o.Status.Final() }

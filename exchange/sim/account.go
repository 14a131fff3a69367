package sim

import (
	"sort"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// balance is one asset of an account.
type balance struct {
	free, locked amount
}

// account is one user: balances, orders, trades and pending events.
type account struct {
	uid       string
	name      string
	balances  map[string]*balance
	orders    map[int64]*order  // every order by its number (its id is the number in decimal)
	open      map[string]*order // open orders by client order id
	history   []*order          // every order, in placement order
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
		free := b.free.dec()
		out = append(out, exchange.Balance{Asset: k, Free: free, Locked: b.locked.dec(), Available: free})
	}
	return out
}

// order is a resting or finished order.
type order struct {
	acct *account
	o    exchange.Order
	seq  int64           // time priority
	left decimal.Decimal // base quantity still to fill (quote for a quote-sized market buy)
	// lockAsset and lock are what the order holds locked.
	lockAsset string
	lock      amount
	// pending orders wait for the next kline (NextOpen).
	pending bool
	byQuote bool // a MARKET BUY sized by quoteOrderQty
	// newEvent holds the trades not yet reported; eventDue says the
	// order changed since its last report.
	newEvent []exchange.OwnTrade
	eventDue bool
}

func (o *order) final() bool { return o.o.Status.Final() }

package strategy

import (
	"sort"

	"github.com/spotbot/spotbot/exchange"
)

// Read-only views of the runtime for a daemon's status snapshot. Like every
// Runtime method they must be called from the goroutine driving it.

// TrackedOrder is an order the runtime follows, with its instance.
type TrackedOrder struct {
	Instance string
	Order
	// Unknown says the order's send had an unknown outcome not yet
	// resolved.
	Unknown bool
}

// OpenOrders returns the orders not yet final, in placement order.
func (r *Runtime) OpenOrders() []TrackedOrder {
	out := make([]TrackedOrder, 0, len(r.open))
	for _, t := range r.open {
		out = append(out, TrackedOrder{Instance: t.inst.id, Order: t.order, Unknown: t.unknown})
	}
	return out
}

// Balances returns the account's balances as last loaded, sorted by asset.
func (r *Runtime) Balances() []exchange.Balance {
	bal := r.balances()
	out := make([]exchange.Balance, 0, len(bal))
	for _, b := range bal {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Asset < out[j].Asset })
	return out
}

// Positions returns each instance's positions, by instance (in the order
// they were added) and symbol.
func (r *Runtime) Positions() map[string][]Position {
	out := make(map[string][]Position, len(r.insts))
	for _, in := range r.insts {
		syms := make([]string, 0, len(in.positions))
		for s := range in.positions {
			syms = append(syms, s)
		}
		sort.Strings(syms)
		for _, s := range syms {
			out[in.id] = append(out[in.id], in.positions[s].position())
		}
	}
	return out
}

// LastKline returns the latest closed kline delivered on a feed.
func (r *Runtime) LastKline(f Feed) (exchange.Kline, bool) {
	st := r.feeds[f]
	if st == nil {
		return exchange.Kline{}, false
	}
	k, ok := st.hist.last()
	if !ok {
		return exchange.Kline{}, false
	}
	return k.Kline(), true
}

// Killed reports whether the kill switch stopped trading.
func (r *Runtime) Killed() bool { return r.killed }

package strategy

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// Restart hooks: a daemon restarting over a journal hands the runtime what
// it knew before, between Start and Begin, so strategies see their open
// orders and positions again and every fill still reaches them once.

// Adopt makes the runtime follow an order of an instance that it did not
// place in this process: a non-final order from the journal, or an order
// found open on the exchange. executed is the quantity whose fills are
// already in the journal; when the exchange reports more, the next Sync
// imports the missing fills from the own trades and delivers them. unknown
// says the order's send had an unknown outcome (or was never confirmed),
// so Sync resolves it by client order id and forgets it when the exchange
// does not know it.
func (r *Runtime) Adopt(instance string, o Order, executed decimal.Decimal, unknown bool) error {
	in := r.instance(instance)
	if in == nil {
		return fmt.Errorf("strategy: adopt %s: no instance %q", o.ClientOrderID, instance)
	}
	if o.ClientOrderID == "" || o.Symbol == "" {
		return fmt.Errorf("strategy: adopt: order of %s without a client order id or symbol", instance)
	}
	if r.find(o.ClientOrderID) != nil {
		return fmt.Errorf("strategy: adopt: order %s is already tracked", o.ClientOrderID)
	}
	o.ExecutedQty = executed
	t := &tracked{inst: in, order: o, unknown: unknown}
	if o.Status.Final() {
		// Followed until Sync brought its missing fills; it is not open.
		t.order.Status = exchange.StatusPartiallyFilled
		if executed.IsZero() {
			t.order.Status = exchange.StatusNew
		}
	}
	r.addOpen(t)
	return nil
}

// RestoreFill applies a fill recorded before a restart to its instance's
// position, without delivering it to the strategy (it was delivered when
// it happened). Fills must be restored in time order.
func (r *Runtime) RestoreFill(instance string, f Fill) error {
	in := r.instance(instance)
	if in == nil {
		return fmt.Errorf("strategy: restore fill %s: no instance %q", f.TradeID, instance)
	}
	info, ok := r.rule(f.Symbol)
	if !ok {
		return fmt.Errorf("strategy: restore fill %s: no rules for %s (call after Start)", f.TradeID, f.Symbol)
	}
	in.position(f.Symbol).apply(f, info.BaseAsset, info.QuoteAsset, &r.posMath)
	in.exitFill(f, info)
	return nil
}

// SetSequence makes the client order ids generated next continue after n.
// Ids carry the clock's milliseconds, which are unique across restarts in
// real time but repeat when a replay starts over at the same bars; a
// daemon replaying into a journal that may hold an earlier session's ids
// gives each session its own sequence range.
func (r *Runtime) SetSequence(n int64) {
	if n > r.seq {
		r.seq = n
	}
}

// Sequence returns the sequence number of the last client order id
// generated.
func (r *Runtime) Sequence() int64 { return r.seq }

func (r *Runtime) instance(id string) *instance {
	for _, in := range r.insts {
		if in.id == id {
			return in
		}
	}
	return nil
}
